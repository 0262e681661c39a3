/* life.h - the lifetime recorder (recorder=lifetime)
 *
 * Each sample waits in a table of LIFE_CAP (a->life, under a->lock) with its
 * line, the object held by a JNI weak reference, until the agent thread
 * writes the section of the next garbage collection: "#GC <x>" and the
 * lines of the objects still alive (the original's LifetimePrinter). GCs
 * are counted in a->gc_count by the callback (no lock: a safepoint).
 */
#ifndef AGENT_LIFE_H
#define AGENT_LIFE_H

#include <jvmti.h>

struct agent; /* agent/agent.h: every function takes the agent's state */

/* Allocate the table (once, zeroed). Returns 0, or -1: out of memory. */
int life_alloc(struct agent *a, jvmtiEnv *j);
/* On the allocating thread: keep line (n bytes, copied) until the next
 * section, counted in a->samples; while the agent is not RUNNING nothing
 * is kept, and a full slot drops it (counted in a->dropped). */
void life_keep(struct agent *a, jvmtiEnv *j, JNIEnv *jni, jobject obj,
               const char *line, size_t n);
/* On the agent thread: write section x (via out_append) and take its
 * samples out of the table; refs, lines and lens have room for LIFE_CAP. */
void life_section(struct agent *a, JNIEnv *jni, int x, jweak *refs,
                  char **lines, int *lens);
/* At stop, on a Java thread: forget every waiting sample. */
void life_clear(struct agent *a);

#endif
