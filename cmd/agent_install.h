/* agent_install.h - what cmd/agent_install.c and cmd/agent_target.c share
 *
 * agent_target.c is agent-install's view of the target (core/jvm's
 * opened JVM: its ids, its root and /tmp as fds): the attach
 * "load" request, files it writes there and the samples file it takes
 * back. It prints its own errors (the error_msg family) and returns -1.
 */
#ifndef AGENT_INSTALL_H
#define AGENT_INSTALL_H

#include "core/agent.h"
#include "core/jvm.h"
#include "core/wfile.h"

/* Open the JVM a target names, in core/jvm's one grammar (a pid, a main
 * class, a PerfData path or file: URI of a running JVM): 0, or -1
 * (reported). jvm_close it. */
int target_open(struct jvm *t, const char *arg);

/* attach "load" lib with opts: 0 and the agent's return code in *rc, or -1
 * (reported). A JVM still starting is asked again until timeout_ms ends;
 * each answer is awaited that long too. */
int target_load(struct jvm *t, const char *lib, int absolute, const char *opts,
                int *rc, int timeout_ms);

/* Write data into the target's /tmp under prefix<16 random hex>suffix
 * (O_EXCL, owned by the JVM's user), to be loaded; its path as the target
 * sees it goes to path. 0 or -1 (reported; also a JVM that takes no attach
 * requests, core/attach's check: nothing is put). */
int target_put(struct jvm *t, const char *prefix, const char *suffix,
               const void *data, size_t n, char *path, size_t pathlen);

/* The samples file the target holds open, if any: 0 and its path, or -1. */
int target_open_samples(struct jvm *t, char *path, size_t n);

struct samples {
  uint64_t lines;   /* sample lines seen (lifetime: survivors) */
  uint64_t samples; /* from the end line, when complete */
  uint64_t gcs;     /* "#GC <n>" sections (lifetime recorder) */
  int complete;     /* the end line was there */
  int lifetime;     /* the header says recorder=lifetime */
};

/* Copy the samples file path (as the target sees it, in its /tmp) to out
 * (NULL: only count), through a fixed buffer, after checking it is a
 * regular file of the JVM's user with one link; remove it afterwards when
 * take is set and the name still leads to that file. 0 or -1 (reported). */
int target_samples(struct jvm *t, const char *path, struct wfile *out, int take,
                   struct samples *s);

/* --agent: load any other agent, a .so natively or a .jar through the
 * JDK's instrument agent, copied into the target's /tmp when the target
 * cannot see path (another mount namespace). 0, or -1 (reported, also a
 * non-zero return code of the agent). */
int target_load_other(struct jvm *t, const char *path, const char *args,
                      int timeout_ms);

/* The target's JAVA_VERSION from its JDK's release file, or "?". */
void target_java_version(struct jvm *t, char *out, size_t n);

#endif
