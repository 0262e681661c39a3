/* heap.h - a JVM's memory pools, GC time and allocation from its PerfData
 *
 * The one place that knows which counters make a pool, the heap and the
 * GC time: the pools are specs/prom_map.def's rows for the JVM's collector
 * (its first word: Serial, Parallel, G1, Z, ...), named as its MXBeans
 * name them; the GC time is jstat's GCT (every collector's time over
 * sun.os.hrt.frequency). serve, dump --prometheus and top read them here.
 */
#ifndef HEAP_H
#define HEAP_H

#include <stddef.h>
#include <stdint.h>

struct perfdata;

/* One memory pool: bytes used, committed (capacity) and max. */
struct heap_pool {
  const char *name; /* the MXBean's name, static */
  int nonheap;      /* 1: metaspace and class space */
  double used, committed, max;
};

enum { HEAP_MAX_POOLS = 8 };

/* The pools pd has, at most HEAP_MAX_POOLS, in prom_map.def's order; a
 * survivor pool's used is both survivor spaces'. Returns how many. */
size_t heap_pools(const struct perfdata *pd, struct heap_pool *out);

/* The heap (nonheap 0) or non-heap area summed over its pools: v[0]
 * used, v[1] committed, v[2] max, bytes. Returns how many pools added. */
size_t heap_area(const struct perfdata *pd, int nonheap, double v[3]);

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
