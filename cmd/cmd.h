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

/* The agent's .so (agent-install's and profile's jvmti sampler's), from
 * the gzip'd copy the binary carries: 0, or -1 with why. */
int agent_image(const unsigned char **p, size_t *n, char *why, size_t whylen);

/* One counter of dump --json ("name": {value, units, variability}), after
 * ",\n  " (or "\n  " when first) into b: dump's and serve's JVM page's. */
struct buf;
struct perfdata;
struct pd_counter;
void dump_json_counter(struct buf *b, const struct perfdata *pd,
                       const struct pd_counter *c, int first);

/* top's views for another command (serve's page: cmd/top_view.c), each
 * kept from one reading to the next for its rates, written as top --json
 * writes them (one writer). The node view: top_node_only keeps only the
 * pids listed (only stays the caller's), top_node_lists_next says whether
 * the next reading walks the processes again (else it reads again the
 * JVMs it knows). */
struct top_node;
struct top_jvm;
struct jvm;
struct top_node *top_node_new(void);
void top_node_only(struct top_node *node, const int *only, size_t n);
int top_node_lists_next(const struct top_node *node);
void top_node_read(struct top_node *node);
/* One JSON object of the node (view "node") or a JVM's line ("jvm"). */
void top_node_json(const struct top_node *node, const char *view,
                   struct buf *b);
void top_node_delete(struct top_node *node);
/* A JVM's view of its threads (top_jvm_new: the JVM opened and verified
 * once, NULL with err when it cannot be), the hot stacks of the stacks busiest,
 * whose thread dumps its owner takes without blocking (at most every
 * dump_every_s): when top_jvm_dump_now says one is due and
 * top_jvm_can_dump that the JVM may be asked (top_jvm_target: the JVM
 * opened once, verified), it sends top_jvm_dump_line and gives the reply
 * to top_jvm_take (taken over), or says why there is none
 * (top_jvm_no_dump). top_jvm_read: 0, or -ESRCH when it is gone. */
struct top_jvm *top_jvm_new(int pid, int stacks, int dump_every_s, char *err,
                            size_t n);
int top_jvm_read(struct top_jvm *j);
int top_jvm_dump_now(const struct top_jvm *j);
int top_jvm_can_dump(struct top_jvm *j);
const struct jvm *top_jvm_target(const struct top_jvm *j);
const char *top_jvm_dump_line(const struct top_jvm *j);
int top_jvm_take(struct top_jvm *j, char *reply);
void top_jvm_no_dump(struct top_jvm *j, const char *why);
/* 1 when the last reading found the JVM (its pid and start time: not a
 * process that took its pid since); its PerfData as the last reading left
 * it open, or NULL. */
int top_jvm_found(const struct top_jvm *j);
const struct perfdata *top_jvm_perfdata(const struct top_jvm *j);
void top_jvm_json(const struct top_jvm *j, struct buf *b);
void top_jvm_delete(struct top_jvm *j);

/* The take-out (cmd/jdk_out.c): a file the JVM writes for us, landing at
 * out on the host, for jcmd --out-file, the jmap link and heap PID;
 * jvm_path is what to ask the JVM to write. */
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
