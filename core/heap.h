/* heap.h - a JVM's memory pools, collectors, GC time and allocation from
 * its PerfData
 *
 * The one place that knows which counters make a pool, the heap, the
 * non-heap and each collector as the JVM's own MXBeans report them:
 * specs/prom_map.def's rows for the JVM's family (Serial, Parallel, G1, Z,
 * ZGC, Shenandoah: named by its collector counters), each rule there
 * checked against the MXBeans by test/mxbean.test; the GC time is jstat's
 * GCT (every collector's time over sun.os.hrt.frequency). serve, dump
 * --prometheus and top read them here.
 */
#ifndef HEAP_H
#define HEAP_H

#include <stddef.h>
#include <stdint.h>

struct perfdata;

/* One memory pool: bytes used, committed and max, as its
 * MemoryPoolMXBean says them; max -1 where the MXBean has none. */
struct heap_pool {
  const char *name; /* the MXBean's name, static */
  int nonheap;      /* 1: metaspace and class space */
  double used, committed, max;
};

enum { HEAP_MAX_POOLS = 8, HEAP_MAX_GCS = 16 };

/* The pools pd has, at most HEAP_MAX_POOLS, in prom_map.def's order; a
 * survivor pool's used is both survivor spaces'. Returns how many. */
size_t heap_pools(const struct perfdata *pd, struct heap_pool *out);

/* The heap (nonheap 0) or non-heap area as MemoryMXBean says it: v[0]
 * used, v[1] committed (its pools' sums), v[2] max by the family's HEAP
 * row (the heap), -1 (the non-heap when a pool has no max) or NAN where
 * PerfData cannot say it (the non-heap's max otherwise: the code cache's
 * is not there). Returns how many pools make it (0: v says nothing). */
size_t heap_area(const struct perfdata *pd, int nonheap, double v[3]);

/* A GarbageCollectorMXBean: its name, collection count and time
 * (seconds; -1 when the JVM has no time counter or clock frequency). */
struct heap_gc {
  const char *name; /* static */
  double count, seconds;
};
/* The collectors pd counts for its MXBeans, at most HEAP_MAX_GCS. */
size_t heap_collectors(const struct perfdata *pd, struct heap_gc *out);

/* Every collector's time, in seconds (jstat's GCT). Returns 0 and *secs,
 * or -ENOENT when pd has no sun.os.hrt.frequency. */
int heap_gc_seconds(const struct perfdata *pd, double *secs);

/* The eden counters that allocation is estimated from. */
struct heap_eden {
  int ok;                /* eden and collector 0 were found */
  double used, capacity; /* bytes */
  int64_t young_gcs;     /* sun.gc.collector.0.invocations */
};
void heap_eden(const struct perfdata *pd, struct heap_eden *e);

/* Bytes allocated between two eden readings a and b (a first). PerfData
 * counts no allocated bytes, so this is an estimate: with no young GC
 * between them, what eden grew by; with k of them, what eden had left
 * before the first (it filled), (k - 1) whole edens, and b's used. Returns
 * -1 when either reading is not ok or the JVM's counters went back. */
double heap_allocated(const struct heap_eden *a, const struct heap_eden *b);

#endif
