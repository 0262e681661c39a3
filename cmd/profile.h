/* profile.h - profile's allocation sampling with our agent (profile_alloc.c)
 *
 * `profile --event alloc --sampler jvmti`: the built-in agent (agent/, JVMTI
 * SampledObjectAlloc, JEP 331) loaded through core/agent (the copy the JVM
 * maps is reused), sampling until the caller's wait ends, its samples file
 * taken from the target's /tmp and folded like collapse folds stacks.txt.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stddef.h>
#include "core/agent.h"
#include "core/fold.h"

struct palloc {
  const struct jvm *t;          /* the JVM sampled (core/jvm) */
  int open;                     /* started: palloc_collect/abort close */
  char lib[AGENT_PATH_MAX];     /* the agent, as the JVM names it */
  char samples[AGENT_PATH_MAX]; /* its samples file, in the JVM's /tmp */
  int timeout_ms;
};

/* Start sampling j's allocations (lines: frames with line numbers); j is
 * held by the caller until palloc_collect or palloc_abort.
 * 0, or -1 with why: the agent cannot sample there (no /tmp to write, JDK
 * before 11, attach or loading refused, another agent owns sampling);
 * nothing is left in the target then. */
struct jvm;
int palloc_start(struct palloc *pa, const struct jvm *j, int lines,
                 int timeout_ms, char *why, size_t n);

/* Stop the sampler and fold its samples into f, and into counts when not
 * NULL (a fold that counts lines: pprof's alloc_objects); the file is
 * removed. 0, or 1 (reported). The target is closed either way. */
int palloc_collect(struct palloc *pa, struct fold *f, struct fold *counts);

/* Stop the sampler if the JVM still runs, remove its samples file and,
 * when nothing maps it, the agent; close. Quiet. */
void palloc_abort(struct palloc *pa);

#endif
