/* prom.h - JVMs' PerfData as Prometheus text exposition (format 0.0.4)
 *
 * One renderer for dump --prometheus and serve. Families are named as
 * Prometheus' Java client 1.x names them (jvm_memory_*, jvm_gc_*,
 * jvm_threads_*, ...), derived from PerfData counters; pool and collector
 * labels carry the JVM's own MXBean names (specs/prom_map.def). Every
 * series has pid and main_class, and container_id / pod_uid when the
 * process's cgroup names them. Samples of one family stay together, each
 * family with # HELP and # TYPE, so promtool check metrics is clean.
 */
#ifndef PROM_H
#define PROM_H

#include <stddef.h>

struct buf;
struct perfdata;

/* One JVM to render: pid 0 for a file (no /proc facts, no pid label). */
struct prom_jvm {
  int pid;
  const struct perfdata *pd;
};

enum { PROM_RAW = 1 };  /* also every numeric counter as hotspot_... */

/* Append the exposition of n JVMs to out (flags: PROM_RAW). Reads
 * /proc/<pid>/{stat,status,cgroup} for process facts; what cannot be read
 * is left out. Never fails; memory grows with n and the counters only. */
void prom_render(struct buf *out, const struct prom_jvm *jvms, size_t n,
                 int flags);

/* The content type of what prom_render writes. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
