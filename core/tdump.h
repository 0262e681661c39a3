/* tdump.h - a HotSpot thread dump (Thread.print, jstack) read by TID
 *
 * Each thread's block starts with a header line (docs jvm-facts-2 §3.2):
 *   "name" #12 daemon prio=5 os_prio=0 cpu=.. tid=0x.. nid=0x63c5 runnable
 * nid is the thread's Linux tid in the JVM's own pid namespace (a
 * container's JVM counts from 1 there: the last NSpid of its task's
 * status), in hex on JDK 11 and 17, decimal on 25 (with "#N [TID]" too); non-Java threads (GC, VM Thread) have no "#N"
 * and no stack. The dump comes from the JVM and is hostile: a name may
 * hold quotes, " os_prio=" or a newline, so the name ends at the last
 * '"' before the line's last " os_prio=", and nid is the line's last
 * " nid="; "allocated=" is read only between the name and nid. Work
 * is linear in the dump; nothing is copied but the names.
 */
#ifndef TDUMP_H
#define TDUMP_H

#include <stddef.h>

struct buf;

struct tdump_thread {
  char *name;       /* the Java or VM name, raw bytes (malloc'd) */
  int tid;          /* nid: the tid in the JVM's pid namespace, or 0 */
  int java;         /* has "#N": a Java thread */
  char state[32];   /* java.lang.Thread.State's word, else the header's
                        word after nid ("runnable"), "" when none; raw
                        bytes from the JVM like the name */
  double allocated; /* Thread.print -e (JDK 11+): "allocated=2888M", bytes
                        (B/K/M/G: the unit keeps 4 digits, so +-1 unit);
                        -1 when the header has none */
  size_t body, end; /* its lines after the header: [body, end) of text */
};

struct tdump {
  const char *text;       /* the dump, not owned: valid while d is used */
  struct tdump_thread *t; /* sorted by tid, then by place in text */
  size_t n;
};

/* Parse len bytes of a dump, O(len + n log n). Blocks whose header cannot
 * be read are left out. Always succeeds; free with tdump_free. */
void tdump_parse(const char *text, size_t len, struct tdump *d);
void tdump_free(struct tdump *d);

/* The thread whose nid is tid, or NULL (the first of several in the
 * text), O(log n). */
const struct tdump_thread *tdump_find(const struct tdump *d, int tid);

/* Append t's first max frames ("at ..." lines, "\tat " dropped), each
 * ending in '\n', to b; returns how many. */
size_t tdump_frames(const struct tdump *d, const struct tdump_thread *t,
                    size_t max, struct buf *b);

/* Parse a nid value as HotSpot prints it: "0x63c5" hex, "25541" decimal.
 * Returns the TID, or 0 when it is neither or not a positive int. */
int tdump_nid(const char *s, size_t n);

/* What a HotSpot thread is from its native name (/proc/<pid>/task/<tid>/
 * comm, at most 15 bytes): "gc" (GC Thread#N, G1 ..., Z..., Shenandoah),
 * "jit" (C1/C2 CompilerThread, Sweeper), "vm" (VM Thread, VM Periodic
 * Task), "jfr" (JFR's sampler), or NULL for any other, a Java thread's name
 * among them. */
const char *tdump_native_kind(const char *comm);

/* A thread state as a column shows it, in at most max bytes: the dump's
 * "WAITING (parking)" as "WAITING (park)", "BLOCKED (on object monitor)"
 * as "BLOCKED (monitor)", "TIMED_WAITING (sleeping)" as "TIMED_WAITING
 * (sleep)" (21 bytes, the longest)..., any other cut after its last whole
 * word that fits (a word longer than max, at max).
 * Returns how many bytes of the result to show; *out is state or a
 * static string. */
size_t tdump_state_short(const char *state, size_t max, const char **out);

#endif
