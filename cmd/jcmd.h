/* jcmd.h - what cmd/jcmd.c shares with the other JDK tool links
 * (cmd/jstack.c: jstack and jmap; cmd/jinfo.c): the tools' words, printing
 * a reply, a file the JVM writes for us (cmd/jcmd_out.c). Targets are
 * core/vm's (vm_find), requests core/attach's (attach_ask). */
#ifndef JCMD_H
#define JCMD_H

#include <limits.h>
#include <stddef.h>
#include "core/wfile.h"

/* The JDK tools' words when vm_find (its rc and err) named no JVM for
 * target: its reason, or "Could not find any processes matching". */
void jdk_none(const char *target, int rc, const char *err);

/* Print a reply through term_write: its body on stdout when the status is
 * 0 (empty: the line empty, unless NULL) and return 0, else on stderr and
 * return 1. */
int jcmd_print_reply(int pid, const char *reply, const char *empty);

/* Drop the JDK launcher's -J options (the tools take them anywhere) from
 * argv; returns the new argc. */
int jcmd_drop_j(int argc, char **argv);
/* 1 for the JDK tools' help words: -h -help --help -? */
int jcmd_is_help(const char *s);

/* cmd/jstack.c: why a request was not answered (attach_ask's enum
 * attach_error, err its reason), in the words of jstack, jmap and jinfo:
 * "<pid>: <why>". */
void jdk_refusal(int pid, int why, const char *err);

/* jvm_open_row for the JDK tool links: 0, or -1 after jdk_refusal's line. */
struct jvm;
struct vm;
int jdk_open(struct jvm *j, const struct vm *row);

/* A file the JVM writes for us (cmd/jcmd_out.c), landing at out on the
 * host: jvm_path is what to ask the JVM to write. */
struct jcmd_out {
  const char *out;         /* the host path asked for */
  struct wfile w;          /* where a taken file is written */
  char jvm_path[PATH_MAX]; /* the path to send */
  const struct jvm *j;     /* the JVM writing it */
  int pid, taken;          /* taken: a random name in the JVM's /tmp */
  long long uid;           /* the JVM's user */
  uint64_t bound;          /* the most bytes a taken file may have */
};
/* Pick jvm_path for j: out made absolute when out's folder is the same
 * folder in the JVM's mount namespace (core/jvm's jvm_same_path) and the
 * JVM runs as our user, else /tmp/jvmtool-dump-<random><suffix> in its
 * /tmp, to be taken out. Returns 0, or -errno for the caller to say: out
 * cannot be written (opened here, before the JVM is asked). */
int jcmd_out_begin(struct jcmd_out *o, const struct jvm *j, const char *out,
                   const char *suffix);
/* 1 when a dumpheap or GC.heap_dump reply says the file was written. */
int jcmd_out_written(const char *reply);
/* After the request (also when it failed: call it once after a 0 from
 * begin): take a file written in the JVM's /tmp out to the host path
 * (written: the reply said it is whole; else it is only removed), or, for
 * a path handed to the JVM, check that the file is there on this host.
 * Returns 0, or 1 (after a message when the JVM said it wrote a file that
 * is not there or was not taken); prints one line naming where a taken
 * file went. */
int jcmd_out_end(struct jcmd_out *o, int written);

#endif
