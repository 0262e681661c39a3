/* pprof.h - write pprof profiles (profile.proto, gzipped) from folded stacks
 *
 * Folded stacks ("root;...;leaf", a frame "pkg.Class.method" or with its
 * line, "pkg.Class.method:42") become pprof's samples (leaf first),
 * locations (one per method and line, ids 1..N in order, each with its own
 * stable non-zero address: Alloy's delta matches stacks by address) and
 * functions; the value columns follow Go's names for the kind of profile
 * (docs/pprof.md). The string table, ids and samples grow with the
 * distinct stacks; the gzip framing holds one block (core/gz).
 */
#ifndef PPROF_H
#define PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pprof_kind {
  PPROF_CPU,   /* samples/count, cpu/nanoseconds (count x period) */
  PPROF_ALLOC, /* alloc_objects/count, alloc_space/bytes */
  PPROF_LOCK,  /* contentions/count, delay/nanoseconds */
  PPROF_VALUE, /* one column, named after unit */
  PPROF_WALL,  /* samples/count, wall/nanoseconds (the values) */
};

struct pprof_opts {
  enum pprof_kind kind;
  const char *unit;    /* PPROF_VALUE: "samples", "bytes", "ns", ... */
  int64_t period;      /* PPROF_CPU: ns between samples */
  int64_t time_ns;     /* the profile's start (ns since the epoch), */
  int64_t duration_ns; /* and its length; 0: unknown */
  int thread_root;     /* each stack's root frame is its thread's
                              name: it becomes the label "thread" */
  const char *comment; /* NULL: none; a comment a line ('\n' between) */
  int accounted;       /* PPROF_CPU: the values are CPU ns themselves
                          (core/jfr_cpu), not count x period */
};

struct fold_stack;
struct pprof;

/* The kind of profile a --event word gives (cpu, cputime and native are
 * PPROF_CPU; alloc; lock; wall), PPROF_VALUE for anything else. */
enum pprof_kind pprof_kind_of(const char *event);

/* A new, empty profile (o and its strings are copied). Never NULL. */
struct pprof *pprof_new(const struct pprof_opts *o);

/* One sample: the stack key[0..len) with count events and value (the
 * kind's second column; PPROF_CPU uses count x period, PPROF_VALUE
 * value). A stack without frames becomes a sample with no location. */
void pprof_add(struct pprof *p, const char *key, size_t len, int64_t count,
               int64_t value);

/* Add every stack of v[0..n) with its count from c[0..m) (the same stacks'
 * event counts; both sorted as fold_result sorts, c may be NULL: the count
 * is the value). */
void pprof_add_folds(struct pprof *p, const struct fold_stack *v, size_t n,
                     const struct fold_stack *c, size_t m);

/* Write the profile gzipped to f (not closed). Returns 0, or -EIO after a
 * write error. */
int pprof_write(struct pprof *p, FILE *f);

void pprof_free(struct pprof *p);

/* A profile of values' stacks (their event counts from counts, NULL: the
 * values), written gzipped to out. Returns 0 or -EIO. */
struct fold;
int pprof_write_folds(FILE *out, const struct pprof_opts *o,
                      struct fold *values, struct fold *counts);

#endif
