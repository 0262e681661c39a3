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
 *
 * wall gives every thread there all along the window's whole length:
 * its CPU as above, JFR's blocking events by their part in the window,
 * its wait for a core (schedstat), and the rest. JFR writes a blocking
 * event only when the wait ends, so a wait still going on at the
 * window's end has none: the thread dump JFR takes at the stop
 * (jdk.ThreadDump at the chunk's end) gives its state and stack. A
 * thread that never ran in the window (schedstat's run time did not
 * move) waited there all along; one that ran waited since the last time
 * JFR saw it run or end a wait, at most. What no source explains is
 * "[unrecorded]" (waits under the threshold, CPU quota throttling).
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/jfr_int.h"
#include "core/proc.h"
#include "core/tdump.h"

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
  int64_t win_ns, span_ns;
  int64_t *seen; /* wall: per thread, the last time JFR saw it (0: never) */
  struct buf dump_text, first_text;
  struct tdump dump, first; /* at the window's end and start */
  int have_dump, have_first, lines;
  int64_t *blocked; /* per thread, ns in blocking events */
  int64_t process_ns;
  uint64_t *samples; /* per thread */
  struct jmap ids;   /* osThreadId + 1 -> index into t */
  struct cpu_entry *e;
  size_t n, cap;
  struct buf arena, key;
};

struct jfr_cpu *jfr_cpu_new(const struct proc_cpu *t, size_t n,
                            int64_t process_ns, int wall, int64_t win_ns,
                            int64_t span_ns)
{
  struct jfr_cpu *c = xzalloc(sizeof(*c));

  c->wall = wall;
  c->win_ns = win_ns;
  c->span_ns = span_ns;
  c->seen = xzalloc((n ? n : 1) * sizeof(*c->seen));
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

void jfr_cpu_seen(struct jfr_cpu *c, int64_t ostid, int64_t ns)
{
  uint32_t i = ostid > 0 ? jmap_get(&c->ids, (uint64_t)ostid + 1) : UINT32_MAX;

  if (i != UINT32_MAX && ns > c->seen[i]) c->seen[i] = ns;
}

static void dump_free(struct jfr_cpu *c)
{
  if (c->have_dump) tdump_free(&c->dump);
  if (c->have_first) tdump_free(&c->first);
  c->have_dump = c->have_first = 0;
}

void jfr_cpu_dump(struct jfr_cpu *c, const char *first, size_t first_len,
                  const char *text, size_t len, int lines)
{
  dump_free(c);
  c->dump_text.len = 0;
  buf_add(&c->dump_text, text, len);
  tdump_parse(c->dump_text.p, c->dump_text.len, &c->dump);
  c->have_dump = 1;
  c->first_text.len = 0;
  if (first) {
    buf_add(&c->first_text, first, first_len);
    tdump_parse(c->first_text.p, c->first_text.len, &c->first);
    c->have_first = 1;
  }
  c->lines = lines;
}

/* The same state and frames in both dumps (a thread that waited through
 * the window, or came back to the same wait: no JFR event tells). */
static int same_wait(const struct jfr_cpu *c, const struct tdump_thread *a,
                     const struct tdump_thread *b)
{
  struct buf x = {0}, y = {0};
  int same;

  if (!a || !b || strcmp(a->state, b->state)) return 0;
  tdump_frames(&c->first, a, 65, &x);
  tdump_frames(&c->dump, b, 65, &y);
  same = x.len == y.len && (!x.len || !memcmp(x.p, y.p, x.len));
  buf_free(&x);
  buf_free(&y);
  return same;
}

/* The wall state of a Java thread in a dump: java.lang.Thread.State and
 * its reason, as the blocking events' frames name them; RUNNABLE off the
 * CPU is in native or VM code. NULL: no state to tell (not a Java
 * thread, NEW, TERMINATED). */
static const char *dump_state(const struct tdump_thread *d)
{
  const char *s = d->state;

  if (!d->java) return NULL;
  if (starts_with(s, "BLOCKED")) return "[blocked]";
  if (strstr(s, "(sleeping")) return "[sleeping]";
  if (strstr(s, "(parking")) return "[parked]";
  if (starts_with(s, "WAITING") || starts_with(s, "TIMED_WAITING"))
    return "[waiting]";
  if (starts_with(s, "RUNNABLE")) return "[native]";
  return NULL;
}

static void name_frame(struct buf *b, const char *comm);

enum { DUMP_DEPTH = 64 }; /* JFR's default stack depth */

/* One dump frame "pkg.Class.method(module@v/File.java:12)" as JFR's
 * frames read: "pkg.Class.method", ":12" added with lines. */
static void dump_frame(struct buf *b, const char *s, size_t n, int lines)
{
  const char *par = memchr(s, '(', n), *colon = NULL;
  size_t from = b->len, name = par ? (size_t)(par - s) : n;

  buf_add(b, s, name);
  for (size_t k = name; lines && k < n && s[k] != ')'; k++)
    if (s[k] == ':') colon = s + k;
  if (colon) {
    size_t d = 1;

    while (colon + d < s + n && colon[d] >= '0' && colon[d] <= '9' && d < 11)
      d++;
    if (d > 1 && colon + d < s + n && colon[d] == ')') buf_add(b, colon, d);
  }
  for (char *p = b->p + from; p < b->p + b->len; p++)
    if (*p == ';' || (unsigned char)*p < 0x20 || *p == 0x7f) *p = '_';
}

/* Add ns to f under the thread, state and the dump's stack of d. */
static void dump_add(struct jfr_cpu *c, struct fold *f, const char *state,
                     const struct tdump_thread *d, int thread_frames,
                     int64_t ns)
{
  struct buf fr = {0};
  size_t n = tdump_frames(&c->dump, d, DUMP_DEPTH + 1, &fr), at[DUMP_DEPTH + 2];
  size_t k = 0;

  c->key.len = 0;
  if (thread_frames) {
    name_frame(&c->key, d->name);
    buf_addc(&c->key, ';');
  }
  buf_adds(&c->key, state);
  if (n > DUMP_DEPTH) { /* cut as JFR cuts: the leaf's 64 frames */
    buf_adds(&c->key, ";[truncated]");
    n = DUMP_DEPTH;
  }
  /* each line ends in '\n', leaf first: at[i] is where line i starts */
  at[0] = 0;
  for (size_t p = 0; p < fr.len && k < n; p++)
    if (fr.p[p] == '\n') at[++k] = p + 1;
  while (k-- > 0) {
    buf_addc(&c->key, ';');
    dump_frame(&c->key, fr.p + at[k], at[k + 1] - 1 - at[k], c->lines);
  }
  buf_free(&fr);
  fold_add(f, c->key.p, c->key.len, ns, 0);
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

/* The frame of a thread JFR did not sample: "[GC] G1 Conc#0", its kind
 * from the kernel's name (comm), shown by name. */
static void kind_frame(struct buf *b, const char *comm, const char *name)
{
  const char *k = "native";

  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (starts_with(comm, kinds[i].prefix)) {
      k = kinds[i].kind;
      break;
    }
  buf_printf(b, "[%s] ", k);
  name_frame(b, name);
}

/* A thread's name: the JVM's whole one from the thread dump at the stop,
 * else the kernel's (cut to 15 bytes). */
static const char *thread_name(const struct tdump_thread *d,
                               const struct proc_cpu *t)
{
  return d && d->name && d->name[0] ? d->name : t->comm;
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
    const struct tdump_thread *d =
        c->have_dump ? tdump_find(&c->dump, c->t[i].nstid) : NULL;
    const char *name = thread_name(d, &c->t[i]);

    if (c->samples[i] || !c->t[i].ns) continue;
    c->key.len = 0;
    if (thread_frames) { /* the thread's name as the root, then its kind */
      name_frame(&c->key, name);
      buf_addc(&c->key, ';');
    }
    kind_frame(&c->key, c->t[i].comm, name);
    fold_add(f, c->key.p, c->key.len, c->t[i].ns, 0);
    st->unsampled_ns += c->t[i].ns;
    st->total_ns += c->t[i].ns;
  }
  /* wall: the time each thread was ready to run and waited for a core,
   * and the rest of the window for a thread there all along */
  for (size_t i = 0; c->wall && i < c->nt; i++) {
    const struct proc_cpu *t = &c->t[i];
    const struct tdump_thread *d =
        c->have_dump ? tdump_find(&c->dump, t->nstid) : NULL;
    const char *state = d ? dump_state(d) : NULL, *name = thread_name(d, t);
    int64_t wait = t->wait_ns, left = c->span_ns - t->ns - c->blocked[i], rest,
            held = 0;

    /* a blocking event's duration holds the wait for a core after it
     * ended: what the window leaves is the most the thread waited else */
    if (wait > left) wait = left;
    if (wait < 0) wait = 0;
    rest = left - wait;
    if (t->whole && rest > 0 && state) {
      /* a wait still going on at the end: all the window when the thread
       * never ran in it, else since JFR last saw it at most */
      if (t->run_ns == 0)
        held = rest;
      else if (c->seen[i] > 0)
        held = c->win_ns + c->span_ns - c->seen[i];
      else if (c->have_first &&
               same_wait(c, tdump_find(&c->first, t->nstid), d))
        held = rest;
      if (held > rest) held = rest;
      if (held > 0) {
        dump_add(c, f, state, d, thread_frames, held);
        st->dump_ns += held;
        st->dump_threads++;
      } else {
        held = 0;
      }
    }
    /* off CPU with no event and no dump to say why: waits under the
     * threshold or in native code, CPU quota throttling */
    if (t->whole && rest - held > 0)
      state_add(c, f, "[unrecorded]", name, thread_frames, rest - held);
    if (wait <= 0) continue;
    state_add(c, f, "[runnable]", name, thread_frames, wait);
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
  memset(c->seen, 0, (c->nt ? c->nt : 1) * sizeof(*c->seen));
}

void jfr_cpu_free(struct jfr_cpu *c)
{
  if (!c) return;
  free(c->samples);
  free(c->blocked);
  free(c->seen);
  dump_free(c);
  buf_free(&c->dump_text);
  buf_free(&c->first_text);
  jmap_free(&c->ids);
  free(c->e);
  buf_free(&c->arena);
  buf_free(&c->key);
  free(c);
}
