/* jcmd.h - what cmd/jcmd.c shares with cmd/jstack.c (the jstack and jmap
 * links): targets, one attach request, printing its reply */
#ifndef JCMD_H
#define JCMD_H

#include <limits.h>
#include <stddef.h>
#include "core/wfile.h"

/* The JVMs a target names: a pid (core/vm's grammar), 0 for all, or every
 * JVM whose main class (jps -l's: a jar's path, "module/class") contains
 * it, as jcmd matches; only JVMs that take attach requests. Returns how
 * many (*pids malloc'd, caller frees), 0 for none, -1 after a message for
 * a target that names no process. */
int jcmd_targets(const char *target, int **pids);

/* Why a request was not sent or got no reply. */
enum jcmd_refusal { JCMD_SENT, JCMD_ATTACH_OFF, JCMD_NO_PROCESS, JCMD_FAILED };

/* Send one request (cmd, up to three args, NULL = empty) to pid through
 * core/attach, which applies the attach preconditions. Returns JCMD_SENT
 * with *reply set (caller frees), or why not; JCMD_ATTACH_OFF and
 * JCMD_FAILED put attach's one-line reason in err. */
enum jcmd_refusal jcmd_ask(int pid, const char *cmd, const char *const args[3],
                           int timeout_ms, char **reply, char *err,
                           size_t errlen);

/* Print a reply through term_write: its body on stdout when the status is
 * 0 (empty: the line empty, unless NULL) and return 0, else on stderr and
 * return 1. */
int jcmd_print_reply(int pid, const char *reply, const char *empty);

/* Drop the JDK launcher's -J options (the tools take them anywhere) from
 * argv; returns the new argc. */
int jcmd_drop_j(int argc, char **argv);
/* 1 for the JDK tools' help words: -h -help --help -? */
int jcmd_is_help(const char *s);

/* cmd/jstack.c: why a request was not answered (jcmd_ask's refusal, err
 * its reason), in the words of jstack, jmap and jinfo: "<pid>: <why>". */
void jdk_refusal(int pid, enum jcmd_refusal why, const char *err);

/* A file the JVM writes for us (cmd/jcmd_out.c), landing at out on the
 * host: jvm_path is what to ask the JVM to write. */
struct jcmd_out {
  const char *out;         /* the host path asked for */
  struct wfile w;          /* where a taken file is written */
  char jvm_path[PATH_MAX]; /* the path to send */
  int pid, taken;          /* taken: a random name in the JVM's /tmp */
  long long uid;           /* the JVM's user */
};
/* Pick jvm_path for pid: out made absolute when the JVM shares our root
 * and user, else /tmp/jvmtool-dump-<random><suffix> in its root. Returns
 * 0, or -errno for the caller to say: -ESRCH no such process, else out
 * cannot be written (opened here, before the JVM is asked). */
int jcmd_out_begin(struct jcmd_out *o, int pid, const char *out,
                   const char *suffix);
/* 1 when a dumpheap or GC.heap_dump reply says the file was written. */
int jcmd_out_written(const char *reply);
/* After the request (also when it failed: call it once after a 0 from
 * begin): take a file written in the JVM's /tmp out to the host path
 * (written: the reply said it is whole; else it is only removed). Returns
 * 0, or 1 (after a message when the file was taken); prints one line
 * naming where a taken file went. */
int jcmd_out_end(struct jcmd_out *o, int written);

#endif
