/* cmd.h - what the dispatcher (cmd/jvmtool.c) and the commands share
 *
 * core/ knows nothing of commands: the tables of them (specs/commands.def,
 * specs/dropins.def) and the name the binary was run by are the
 * dispatcher's. Helpers several commands share are here too: the
 * skipped-JVM line, the take-out of a file a JVM writes.
 */
#ifndef CMD_H
#define CMD_H

#include <limits.h>
#include <stdint.h>
#include "core/wfile.h"

/* Every command's entry point, from the rows of specs/commands.def. */
#define CMD(id, name, summary) int id##_main(int argc, char **argv);
#include "specs/commands.def"
#undef CMD

/* Every drop-in link's entry point (the JDK tool's command line), from the
 * rows of specs/dropins.def. */
#define DROPIN(link, takes) int link##_link_main(int argc, char **argv);
#include "specs/dropins.def"
#undef DROPIN

/* Say on stderr, once per pid per run, what core/vm's walks did not look
 * at (vm_skipped: a /tmp a process serves). Every node-wide command calls
 * it after it walks. */
void say_skipped(void);

/* The take-out (cmd/jdk_out.c): a file the JVM writes for us, landing at
 * out on the host, for jcmd --out-file, the jmap link and heap PID;
 * jvm_path is what to ask the JVM to write. */
struct jvm;
struct jdk_out {
  const char *out;         /* the host path asked for */
  struct wfile w;          /* where a taken file is written */
  char jvm_path[PATH_MAX]; /* the path to send */
  const struct jvm *j;     /* the JVM writing it */
  int pid, taken;          /* taken: a random name in the JVM's /tmp */
  int dirfd, slot;         /* not taken: the folder; the file's note for a
                              stop signal (core/wfile), or -1 */
  long long uid;           /* the JVM's user */
  uint64_t bound;          /* the most bytes a taken file may have: from
                              the kernel's view of the JVM, at the start */
  int quiet;               /* set after begin: 1 the "moved" line goes to
                              stderr, 2 nowhere (jvmtool heap PID) */
};
/* Pick jvm_path for j: out made absolute when out's folder is the same
 * folder in the JVM's mount namespace (core/jvm's jvm_same_path) and the
 * JVM runs as our user, else /tmp/jvmtool-dump-<random><suffix> in its
 * /tmp, to be taken out. Everything that would refuse the file later is
 * checked here, before the JVM is asked: out's folder writable (as the
 * JVM's user when it writes there itself), its file system not full, and
 * a take-out possible (core/root's root_take_ready). From here on a stop
 * signal removes the JVM's file too (core/wfile). Returns 0, or 1 after
 * one line. */
int jdk_out_begin(struct jdk_out *o, const struct jvm *j, const char *out,
                  const char *suffix);
/* 1 when a dumpheap or GC.heap_dump reply says the file was written. */
int jdk_out_written(const char *reply);
/* After the request (also when it failed: call it once after a 0 from
 * begin): take a file written in the JVM's /tmp out to the host path
 * (written: the reply said it is whole; else it is only removed), or, for
 * a path handed to the JVM, check that the file is there on this host.
 * Returns 0, or 1 (after a message when the JVM said it wrote a file that
 * is not there or was not taken); prints one line naming where a taken
 * file went. */
int jdk_out_end(struct jdk_out *o, int written);

#endif
