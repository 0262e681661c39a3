/* jfr_alloc.c - bytes per stack from JFR's sampled allocations
 *
 * jdk.ObjectAllocationSample's weight is the bytes its thread allocated
 * since that thread's last *emitted* sample, and that count is not reset
 * when a recording starts: each thread's first sample carries everything
 * it allocated before (gigabytes), and later weights follow time as much
 * as bytes (docs/jfr.md §13). So a stack is given its share of its
 * thread's samples times the bytes the thread allocated during the
 * recording: the difference of its first and last
 * jdk.ThreadAllocationStatistics (cumulative since the thread started).
 * Totals are exact by construction; the split is as good as "which
 * allocation enters the slow path" (a refill), which periodic patterns
 * and G1 region ends bias. A thread without two statistics events (it
 * started or ended inside the recording) keeps its raw weights, counted
 * in the stats. One recording at a time: thread keys are per recording.
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/jfr_int.h"

struct est_thread {
  uint64_t samples; /* all its samples, in the window or not */
  int64_t lo, hi;   /* its statistics' least and greatest value */
  int ntas;
};

struct est_entry {
  uint32_t thread, len;
  size_t off; /* the stack: arena[off .. off + len) */
  uint64_t count;
  int64_t weight;
};

struct jfr_est {
  struct jmap ids; /* thread key -> index into threads */
  struct est_thread *threads;
  size_t nthreads;
  struct est_entry *e;
  size_t n, cap;
  struct buf arena;
};

struct jfr_est *jfr_est_new(void)
{
  return xzalloc(sizeof(struct jfr_est));
}

static struct est_thread *thread_of(struct jfr_est *e, uint64_t key,
                                    uint32_t *index)
{
  uint32_t i = jmap_get(&e->ids, key);

  if (i == UINT32_MAX) {
    e->threads = xrealloc(e->threads, (e->nthreads + 1) * sizeof(*e->threads));
    i = (uint32_t)e->nthreads++;
    memset(&e->threads[i], 0, sizeof(*e->threads));
    jmap_put(&e->ids, key, i);
  }
  if (index) *index = i;
  return &e->threads[i];
}

void jfr_est_tas(struct jfr_est *e, uint64_t thread, int64_t allocated)
{
  struct est_thread *t = thread_of(e, thread, NULL);

  if (!t->ntas++ || allocated < t->lo) t->lo = allocated;
  if (t->ntas == 1 || allocated > t->hi) t->hi = allocated;
}

void jfr_est_seen(struct jfr_est *e, uint64_t thread)
{
  thread_of(e, thread, NULL)->samples++;
}

void jfr_est_add(struct jfr_est *e, uint64_t thread, const char *key,
                 size_t len, uint64_t count, int64_t weight)
{
  struct est_entry *x;
  uint32_t i;

  thread_of(e, thread, &i);
  if (e->n == e->cap) {
    e->cap = e->cap ? e->cap * 2 : 256;
    e->e = xrealloc(e->e, e->cap * sizeof(*e->e));
  }
  x = &e->e[e->n++];
  x->thread = i;
  x->off = e->arena.len;
  x->len = (uint32_t)len;
  x->count = count;
  x->weight = weight;
  buf_add(&e->arena, key, len);
}

static const struct jfr_est *sorting; /* qsort has no context argument */

static int entry_cmp(const void *pa, const void *pb)
{
  const struct est_entry *x = pa, *y = pb;
  uint32_t n = x->len < y->len ? x->len : y->len;
  int c;

  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if ((c = memcmp(sorting->arena.p + x->off, sorting->arena.p + y->off, n)))
    return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* Entries of one thread and stack (from several chunks) made one, so that
 * each (thread, stack) is rounded once. */
static void merge(struct jfr_est *e)
{
  size_t k = 0;

  if (!e->n) return;
  sorting = e;
  qsort(e->e, e->n, sizeof(*e->e), entry_cmp);
  for (size_t i = 1; i < e->n; i++) {
    struct est_entry *x = &e->e[k], *y = &e->e[i];

    if (!entry_cmp(x, y)) {
      x->count += y->count;
      if (__builtin_add_overflow(x->weight, y->weight, &x->weight))
        x->weight = INT64_MAX;
    } else {
      e->e[++k] = *y;
    }
  }
  e->n = k + 1;
}

void jfr_est_flush(struct jfr_est *e, struct fold *f, struct fold *counts,
                   int has_type, uint64_t *scaled, uint64_t *unscaled)
{
  merge(e);
  for (size_t t = 0; t < e->nthreads; t++) {
    const struct est_thread *th = &e->threads[t];
    int pair = th->ntas >= 2 && th->samples;

    if (!th->samples) continue;
    *scaled += pair;
    *unscaled += !pair;
  }
  for (size_t i = 0; i < e->n; i++) {
    const struct est_entry *x = &e->e[i];
    const struct est_thread *th = &e->threads[x->thread];
    int64_t v = x->weight;

    if (th->ntas >= 2 && th->samples)
      v = (int64_t)((double)x->count / (double)th->samples *
                        (double)(th->hi - th->lo) +
                    0.5);
    fold_add(f, e->arena.p + x->off, x->len, v, has_type);
    if (counts)
      fold_add(counts, e->arena.p + x->off, x->len, (int64_t)x->count,
               has_type);
  }
  jmap_clear(&e->ids);
  e->nthreads = e->n = 0;
  e->arena.len = 0;
}

void jfr_est_free(struct jfr_est *e)
{
  if (!e) return;
  jmap_free(&e->ids);
  free(e->threads);
  free(e->e);
  buf_free(&e->arena);
  free(e);
}
