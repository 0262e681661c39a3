/* agent.h - the agent's one state, passed from agent.c to the files below it
 *
 * agent.c (options, JVMTI callbacks, start and stop) holds the one
 * instance (its callbacks have no argument to carry it) and passes it
 * down: sample.c (one sample as a line), life.c (the lifetime recorder)
 * and rt.c (runtime helpers, the samples file) read and update the struct
 * agent they are given, as the fields say. Calls go one way only: agent.c
 * calls the three, sample.c calls life.c and rt.c, life.c calls rt.c, rt.c
 * calls none (lint.test's lint-2.1 checks it).
 *
 * Locking: "lock" guards the state and the sample buffer, "io" the output
 * file. The garbage-collection callback runs in the VM thread during a
 * safepoint and takes no lock at all: a Java thread can hold a raw monitor
 * while it is stopped for that safepoint.
 */
#ifndef AGENT_AGENT_H
#define AGENT_AGENT_H

#include <jvmti.h>
#include "agent/config.h"

enum state { IDLE, STARTING, RUNNING, STOPPING };
enum {
  BUF_CAP = 256 * 1024, /* each of the two output buffers */
  LINE_CAP = 16 * 1024, /* one sample line, on the allocating thread's stack */
  LIFE_CAP = 65536,     /* sampled objects waiting for their first GC */
  STACK_FRAMES = 128,
  STOP_BOUND_MS = 5000 /* well below the 30 s agent-install waits for an answer
                          unless --timeout says (core/attach.h) */
};

/* A sampled object waiting for the next GC (lifetime recorder). */
struct life {
  jweak ref; /* the object, without keeping it alive */
  uint64_t seq;
  char *line;
  int len;
  int gen; /* GCs finished before it was sampled */
};

/* The agent's state: one per JVM, defined in agent.c. */
struct agent {
  JavaVM *vm;
  jvmtiEnv *jvmti;
  jrawMonitorID lock, io;
  volatile int state;
  int threads; /* agent threads alive, of any run */
  /* this start's number: a thread of an earlier run never serves a later */
  unsigned run;
  int onload, have_caps;
  struct config cfg;
  int fd;
  char *buf, *spare;
  size_t len;
  volatile int armed;    /* time strategy: take the next sample */
  volatile int inflight; /* callbacks between entry and exit */
  volatile int gc_count; /* GC pauses finished since start */
  int gc_done;
  uint64_t samples, dropped, write_errors, rng;
  struct life *life;
  uint64_t life_seq;
  jvmtiCapabilities caps;
};
/* Enter or leave a's raw monitor m (a->lock or a->io). */
static inline void lock(const struct agent *a, jrawMonitorID m)
{
  (*a->jvmti)->RawMonitorEnter(a->jvmti, m);
}

static inline void unlock(const struct agent *a, jrawMonitorID m)
{
  (*a->jvmti)->RawMonitorExit(a->jvmti, m);
}

#endif
