/* jfr_cpu.c - CPU nanoseconds per stack from JFR's samples and /proc
 *
 * JFR's execution sampler takes at most five Java threads per period,
 * only those "in Java" (running or waiting for a core), and never the
 * GC, JIT or VM threads (docs/jfr.md "How CPU is accounted"): samples x
 * period is not CPU time. The kernel's per-thread utime+stime over the
 * recording is. So each stack gets its share of its thread's samples
 * times that thread's CPU (the allocation estimator's shape, jfr_alloc.c):
 * the shape within a thread is JFR's, the amount the kernel's. A thread
 * that used CPU and has no sample is a frame of its own, named by kind
 * (specs/thread_kinds.def). Samples of a thread /proc no longer lists
 * (it ended in the window) share the CPU the process used beyond its
 * live threads; without such samples that CPU is "[exited threads]".
 * The total is the process's CPU over the window.
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/jfr_int.h"
#include "core/proc.h"

static const struct {
  const char *kind, *prefix;
} kinds[] = {
#define KIND(k, p) {k, p},
#include "specs/thread_kinds.def"
#undef KIND
};

struct cpu_entry {
  uint32_t thread; /* index into threads; UINT32_MAX: not in /proc */
  uint32_t len;
  size_t off; /* the stack: arena[off .. off + len) */
  uint64_t count;
  int own; /* JFR's own frames: counted, left out */
};

struct jfr_cpu {
  const struct proc_cpu *t;
  size_t nt;
  int wall;
  int64_t span_ns;
  int64_t *blocked; /* per thread, ns in blocking events */
  int64_t process_ns;
  uint64_t *samples; /* per thread */
  struct jmap ids;   /* osThreadId + 1 -> index into t */
  struct cpu_entry *e;
  size_t n, cap;
  struct buf arena, key;
};

struct jfr_cpu *jfr_cpu_new(const struct proc_cpu *t, size_t n,
                            int64_t process_ns, int wall, int64_t span_ns)
{
  struct jfr_cpu *c = xzalloc(sizeof(*c));

  c->wall = wall;
  c->span_ns = span_ns;
  c->blocked = xzalloc((n ? n : 1) * sizeof(*c->blocked));
  c->t = t;
  c->nt = n;
  c->process_ns = process_ns;
  c->samples = xzalloc((n ? n : 1) * sizeof(*c->samples));
  for (size_t i = 0; i < n; i++)
    jmap_put(&c->ids, (uint64_t)t[i].nstid + 1, (uint32_t)i);
  return c;
}

void jfr_cpu_add(struct jfr_cpu *c, int64_t ostid, const char *key, size_t len,
                 uint64_t count, int own)
{
  uint32_t i = ostid > 0 ? jmap_get(&c->ids, (uint64_t)ostid + 1) : UINT32_MAX;
  struct cpu_entry *x;

  if (i != UINT32_MAX) c->samples[i] += count;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->e = xrealloc(c->e, c->cap * sizeof(*c->e));
  }
  x = &c->e[c->n++];
  *x = (struct cpu_entry){i, (uint32_t)len, c->arena.len, count, own};
  buf_add(&c->arena, key, len);
}

void jfr_cpu_blocked(struct jfr_cpu *c, int64_t ostid, int64_t ns)
{
  uint32_t i = ostid > 0 ? jmap_get(&c->ids, (uint64_t)ostid + 1) : UINT32_MAX;

  if (i != UINT32_MAX && ns > 0) c->blocked[i] += ns;
}

/* A thread's name as a frame (no ';', no control characters). */
static void name_frame(struct buf *b, const char *comm)
{
  size_t from = b->len;

  buf_adds(b, comm);
  for (char *p = b->p + from; p < b->p + b->len; p++)
    if (*p == ';' || (unsigned char)*p < 0x20 || *p == 0x7f) *p = '_';
}

/* Add ns to f under a state frame of a thread's own (wall): the thread
 * (named comm) then the state with thread_frames, else "[state] comm". */
static void state_add(struct jfr_cpu *c, struct fold *f, const char *state,
                      const char *comm, int thread_frames, int64_t ns)
{
  c->key.len = 0;
  if (thread_frames) {
    name_frame(&c->key, comm);
    buf_printf(&c->key, ";%s", state);
  } else {
    buf_printf(&c->key, "%s ", state);
    name_frame(&c->key, comm);
  }
  fold_add(f, c->key.p, c->key.len, ns, 0);
}

/* The frame of a thread JFR did not sample: "[GC] G1 Conc#0". */
static void kind_frame(struct buf *b, const char *comm)
{
  const char *k = "native";

  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (starts_with(comm, kinds[i].prefix)) {
      k = kinds[i].kind;
      break;
    }
  buf_printf(b, "[%s] ", k);
  name_frame(b, comm);
}

static int64_t share(uint64_t count, uint64_t of, int64_t ns)
{
  return of ? (int64_t)((double)count / (double)of * (double)ns + 0.5) : 0;
}

void jfr_cpu_flush(struct jfr_cpu *c, struct fold *f, struct fold *counts,
                   int thread_frames, struct jfr_cpu_stats *st)
{
  int64_t live = 0, gone;
  uint64_t lost = 0; /* samples of threads /proc no longer lists */

  memset(st, 0, sizeof(*st));
  for (size_t i = 0; i < c->nt; i++) live += c->t[i].ns;
  for (size_t i = 0; i < c->n; i++)
    if (c->e[i].thread == UINT32_MAX) lost += c->e[i].count;
  gone = c->process_ns > live ? c->process_ns - live : 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct cpu_entry *x = &c->e[i];
    int64_t v = x->thread == UINT32_MAX ? share(x->count, lost, gone)
                                        : share(x->count, c->samples[x->thread],
                                                c->t[x->thread].ns);

    if (x->own) {
      st->own_samples += x->count;
      st->own_ns += v;
      continue;
    }
    st->total_ns += v;
    fold_add(f, c->arena.p + x->off, x->len, v, 0);
    if (counts)
      fold_add(counts, c->arena.p + x->off, x->len, (int64_t)x->count, 0);
  }
  for (size_t i = 0; i < c->nt; i++) {
    if (c->samples[i] || !c->t[i].ns) continue;
    c->key.len = 0;
    if (thread_frames) { /* the thread's name as the root, then its kind */
      name_frame(&c->key, c->t[i].comm);
      buf_addc(&c->key, ';');
    }
    kind_frame(&c->key, c->t[i].comm);
    fold_add(f, c->key.p, c->key.len, c->t[i].ns, 0);
    st->unsampled_ns += c->t[i].ns;
    st->total_ns += c->t[i].ns;
  }
  /* wall: the time each thread was ready to run and waited for a core */
  for (size_t i = 0; c->wall && i < c->nt; i++) {
    int64_t wait = c->t[i].wait_ns,
            left = c->span_ns - c->t[i].ns - c->blocked[i];

    /* a blocking event's duration holds the wait for a core after it
     * ended: what the window leaves is the most the thread waited else */
    if (wait > left) wait = left;
    /* a Java thread there all along: the rest of the window is time off
     * CPU that no event recorded (waits under the threshold or in native
     * code, CPU quota throttling) */
    if ((c->samples[i] || c->blocked[i]) && c->t[i].whole && left > wait &&
        left - wait > 0) {
      state_add(c, f, "[unrecorded]", c->t[i].comm, thread_frames, left - wait);
    }
    if (wait <= 0) continue;
    state_add(c, f, "[runnable]", c->t[i].comm, thread_frames, wait);
    st->wait_ns += wait;
  }
  if (!lost && gone > 0) {
    c->key.len = 0;
    buf_adds(&c->key,
             thread_frames ? "[exited];[exited threads]" : "[exited threads]");
    fold_add(f, c->key.p, c->key.len, gone, 0);
    st->total_ns += gone;
  }
  st->process_ns = c->process_ns;
  c->n = 0;
  c->arena.len = 0;
  memset(c->samples, 0, (c->nt ? c->nt : 1) * sizeof(*c->samples));
  memset(c->blocked, 0, (c->nt ? c->nt : 1) * sizeof(*c->blocked));
}

void jfr_cpu_free(struct jfr_cpu *c)
{
  if (!c) return;
  free(c->samples);
  free(c->blocked);
  jmap_free(&c->ids);
  free(c->e);
  buf_free(&c->arena);
  buf_free(&c->key);
  free(c);
}
