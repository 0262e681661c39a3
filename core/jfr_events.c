/* jfr_events.c - fold a recording's events into stacks
 *
 * Which events and what they weigh come from specs/jfr_events.def. Each
 * event's stack trace becomes "root;...;leaf" frames named
 * "dotted.Class.method" (":line" with --lines), the way our jstack and
 * sampler frames read; a stack cut at JFR's depth limit gets a
 * "[truncated]" root frame, an event without one a "[no stack]" frame, an
 * unresolvable frame "[unknown]". Stack strings are built once per chunk
 * (keys are per chunk) and then handed to the fold per event.
 */
/* The record walk and value decoding are the hot loops of reading a
 * recording: built for speed in a binary otherwise built for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/jfr_int.h"
#include "core/pprof.h"

enum { MAXSEL = 16 };
/* A thread dump's text kept at most (a JFR event is at most 16 MiB). The
 * window starts once JFR.start has answered (its first dump before) and
 * ends before JFR.stop is asked (its last dump after): a dump more than
 * DUMP_SLACK_NS inside the window is another chunk's. */
enum { DUMP_MAX = 16 << 20 };
#define DUMP_SLACK_NS 200000000LL

struct sel {
  const char *name, *value;
  int group, leaf;   /* group: index into pending[]; leaf: the
                              allocated class is the leaf (bytes) */
  const char *scale; /* the row's scale, when it applies */
  const char *word;  /* the row's word; NULL: an event type */
  int acct;          /* on-CPU samples weighted to /proc's CPU */
  int cls;           /* a class leaf: the row's type_leaf */
  const char *state; /* the row's state frame, NULL: none */
};

struct bound { /* where a selected event keeps its fields */
  int sel, time, stack, thread, cls, value, ticks;
  int scale; /* a scale event of sel: feeds est */
};

struct jfr_fold {
  struct fold *f;
  struct jfr_fold_opts o;
  struct sel sel[MAXSEL];
  int nsel, ngroups;
  struct fold *pending[MAXSEL]; /* [0] is f itself */
  struct fold *counts[MAXSEL];  /* the events per stack: [0] the caller's */
  uint64_t group_events[MAXSEL];
  uint64_t group_own[MAXSEL]; /* of them, in JFR's own code: left out */
  int group_ticks[MAXSEL];
  struct jfr *j;
  struct bound *bind;
  uint8_t *want;
  struct jmap stacks; /* stack key -> offset in cache */
  struct buf cache, key, chosen;
  struct jfr_aggs aggs; /* this chunk's sums */
  uint64_t bound_gen;   /* the metadata bind[] was made for */
  struct jfr_est *est;  /* the scaled group's samples */
  int estimated;        /* the group chosen is est's */
  int est_group, est_leaf;
  struct jfr_cpu *cpu; /* the accounted group's samples */
  int cpu_group;
  int wall;                   /* cpu is wall's: jdk.ThreadDump is read */
  int dump_type, dump_result; /* this chunk's jdk.ThreadDump, its "result" */
  int dump_time;              /* and its startTime field, or -1 */
  int64_t dump_ns;            /* the latest dump kept's time (0: none) */
  int64_t first_ns;           /* the earliest's (0: none) */
  struct buf dump, first, comment;
  struct jfr_fold_stats st;
  const char *word, *unit; /* what finish chose */
};

struct jfr_fold *jfr_fold_new(struct fold *f, const struct jfr_fold_opts *o)
{
  struct jfr_fold *jf = xzalloc(sizeof(*jf));
  struct fold_opts plain = {.no_squash = 1, .gc_lo = -1, .gc_hi = -1};
  int last = -1;

  jf->f = f;
  jf->o = *o;
  jf->dump_type = -1;
  if (o->value && !strcmp(o->value, "samples")) {
    jf->o.value = NULL;
    jf->o.samples = 1;
  }
  o = &jf->o;
  for (int i = 0; i < jfr_event_nrows && jf->nsel < MAXSEL; i++) {
    const struct jfr_event_row *r = &jfr_event_rows[i];

    if (o->event && strcmp(o->event, r->word)) continue;
    if (r->group != last) jf->ngroups++;
    last = r->group;
    jf->sel[jf->nsel++] =
        (struct sel){r->name,
                     o->value ? o->value : r->value,
                     jf->ngroups - 1,
                     r->type_leaf == 1,
                     o->value || o->samples ? NULL : r->scale,
                     r->word,
                     o->cpu && !o->value && !o->samples && !r->value &&
                         (!strcmp(r->word, "cpu") || !strcmp(r->word, "wall")),
                     r->type_leaf,
                     r->state};
    if (jf->sel[jf->nsel - 1].acct && !jf->cpu) {
      jf->wall = !strcmp(r->word, "wall");
      jf->cpu = jfr_cpu_new(o->cpu, o->ncpu, o->cpu_ns, jf->wall, o->win_ns,
                            o->span_ns);
      jf->cpu_group = jf->ngroups - 1;
    }
    if (r->scale && !o->value && !o->samples && !jf->est) {
      jf->est = jfr_est_new();
      jf->est_group = jf->ngroups - 1;
      jf->est_leaf = r->type_leaf == 1;
    }
  }
  if (!jf->nsel) { /* an event type by name */
    jf->sel[jf->nsel++] =
        (struct sel){o->event, o->value, 0, 0, NULL, NULL, 0, 0, NULL};
    jf->ngroups = 1;
  }
  jf->pending[0] = f;
  for (int g = 1; g < jf->ngroups; g++) jf->pending[g] = fold_new(&plain);
  return jf;
}

void jfr_fold_counts(struct jfr_fold *jf, struct fold *counts)
{
  struct fold_opts plain = {.no_squash = 1, .gc_lo = -1, .gc_hi = -1};

  jf->counts[0] = counts;
  for (int g = 1; g < jf->ngroups; g++) jf->counts[g] = fold_new(&plain);
}

/* The event that scales sel i ("type#field"), bound to feed est. */
static void bind_scale(struct jfr_fold *jf, int i)
{
  const char *s = jf->sel[i].scale, *hash = strchr(s, '#');
  char name[128];
  struct bound *b;
  int t;

  snprintf(name, sizeof(name), "%.*s", (int)(hash - s), s);
  if ((t = jfr_type(jf->j, name)) < 0) return;
  b = &jf->bind[t];
  memset(b, 0, sizeof(*b));
  b->sel = i;
  b->scale = 1;
  b->thread = jfr_field(jf->j, t, "thread");
  b->value = jfr_field(jf->j, t, hash + 1);
  if (b->thread < 0 || jfr_field_numeric(jf->j, t, b->value) != 1) return;
  jf->want[t] = 1;
}

/* Find the selected events in a new chunk. Returns 0, or -1 with err when
 * --value names no number of an event that is there. */
static int bind_chunk(struct jfr_fold *jf, char *err, size_t errlen)
{
  struct jfr *j = jf->j;
  const struct sel *missing = NULL;
  int nt = jfr_ntypes(j), bound = 0;

  jmap_clear(&jf->stacks);
  jf->cache.len = 0;
  if (j->md_gen == jf->bound_gen) return 0; /* the same types as before */
  jf->bound_gen = j->md_gen;
  jf->bind = xrealloc(jf->bind, (size_t)(nt + 1) * sizeof(*jf->bind));
  jf->want = xrealloc(jf->want, (size_t)nt + 1);
  memset(jf->want, 0, (size_t)nt + 1);
  for (int i = 0; i < jf->nsel; i++) {
    const struct sel *s = &jf->sel[i];
    int t = jfr_type(j, s->name), num = 0;
    struct bound *b;

    if (t < 0 || jf->want[t]) continue; /* a type two words share: the first */
    bound++;
    b = &jf->bind[t];
    b->sel = i;
    b->time = jfr_field(j, t, "startTime");
    b->stack = jfr_field(j, t, "stackTrace");
    if ((b->thread = jfr_field(j, t, "sampledThread")) < 0)
      b->thread = jfr_field(j, t, "eventThread");
    b->cls = s->cls == 1   ? jfr_field(j, t, "objectClass")
             : s->cls == 2 ? jfr_field(j, t, "monitorClass")
                           : -1;
    if (s->cls == 2 && b->cls < 0) b->cls = jfr_field(j, t, "parkedClass");
    b->value = s->value ? jfr_field(j, t, s->value) : -1;
    if (s->value && !(num = jfr_field_numeric(j, t, b->value))) {
      /* a table row this JDK lays out else, or a --value that only some
       * of a word's events have (alloc's "weight") */
      if (!missing) missing = s;
      bound--;
      continue;
    }
    b->ticks = num == 2;
    b->scale = 0;
    jf->group_ticks[s->group] |= b->ticks;
    jf->want[t] = 1;
    if (s->scale) bind_scale(jf, i);
  }
  /* cpu and wall: the thread dump at the window's end (not folded, kept):
   * whole thread names, and for wall the waits still going on */
  jf->dump_type = -1;
  if (jf->cpu) {
    int t = jfr_type(j, "jdk.ThreadDump");

    if (t >= 0 && !jf->want[t] &&
        (jf->dump_result = jfr_field(j, t, "result")) >= 0 &&
        (jf->dump_time = jfr_field(j, t, "startTime")) >= 0) {
      jf->dump_type = t;
      jf->want[t] = 1;
    }
  }
  if (jf->o.value && missing && !bound) {
    jf->bound_gen = 0;
    snprintf(err, errlen, "%s has no numeric field '%s'", missing->name,
             missing->value);
    return -1;
  }
  return 0;
}

/* Frames hold no ';' (it separates them) and no control characters. */
static void clean(struct buf *b, size_t from)
{
  for (char *p = b->p + from; p < b->p + b->len; p++)
    if (*p == ';' || (unsigned char)*p < 0x20 || *p == 0x7f) *p = '_';
}

/* JFR's own code: its start-up in the thread that took JFR.start, its
 * periodic tasks. A profile leaves these stacks out (counted). */
static const char own_prefix[] = "jdk.jfr.internal.";
enum { OWN = 1u << 31 }; /* in a cached length: a stack of JFR's own */

/* Append the frames of stack key, root first (cached): nothing for an
 * empty stack, "[no stack]" for one the chunk does not hold. Returns 1
 * when a frame is JFR's own code, else 0. */
static int stack_frames(struct jfr_fold *jf, uint64_t key, struct buf *out)
{
  uint32_t at = jmap_get(&jf->stacks, key), len;
  const struct jfr_frame *fr;
  struct buf *c = &jf->cache;
  int n, truncated;

  if (at == UINT32_MAX) {
    size_t start = c->len;
    uint32_t own = 0;

    buf_add(c, "\0\0\0\0", 4);
    if ((n = jfr_stack(jf->j, key, &fr, &truncated)) < 0) {
      buf_adds(c, "[no stack]");
      jf->st.no_stack++;
    } else {
      if (truncated) buf_adds(c, n ? "[truncated];" : "[truncated]");
      for (int i = n - 1; i >= 0; i--) {
        size_t from = c->len;

        if (jfr_method_name(jf->j, fr[i].method, c)) jf->st.unknown_frames++;
        if (c->len - from > sizeof(own_prefix) - 1 &&
            !memcmp(c->p + from, own_prefix, sizeof(own_prefix) - 1))
          own = OWN;
        if (jf->o.lines && fr[i].line >= 0) buf_printf(c, ":%d", fr[i].line);
        clean(c, from);
        if (i) buf_addc(c, ';');
      }
    }
    len = (uint32_t)(c->len - start - 4) | own;
    memcpy(c->p + start, &len, 4);
    jmap_put(&jf->stacks, key, at = (uint32_t)start);
  }
  memcpy(&len, c->p + at, 4);
  if ((len & ~OWN) && out->len) buf_addc(out, ';');
  buf_add(out, c->p + at + 4, len & ~OWN);
  return (len & OWN) != 0;
}

/* wall: what the values are and where they came from (pprof's comment). */
static void wall_comment(struct jfr_fold *jf)
{
  struct buf *c = &jf->comment;

  c->len = 0;
  buf_printf(c,
             "wall/nanoseconds: each thread there all along has the "
             "window's length: [running] its CPU from /proc shared among "
             "its JFR samples, JFR's blocking events by their part in the "
             "window, [runnable] its runqueue wait (schedstat); a wait "
             "still going on at the window's end (JFR writes its event "
             "when it ends) from JFR's thread dumps at the start and stop "
             "(jdk.ThreadDump), the state and stack at the stop: %" PRIu64
             " threads, %.3f s",
             jf->st.dump_threads, jf->st.dump_ns / 1e9);
  if (jf->st.no_dump)
    buf_adds(c, " (none: the recording held no thread dump at its stop, "
                "those waits are [unrecorded])");
  buf_adds(c, "; the rest [unrecorded]");
}

/* Keep the earliest thread dump (wall's at the start) and the latest
 * (at the stop). */
static void on_dump(struct jfr_fold *jf, const uint64_t *v)
{
  int64_t at = jfr_time_ns(jf->j, v[jf->dump_time]);

  if (at >= jf->dump_ns) {
    jf->dump.len = 0;
    if (!jfr_event_str(jf->j, jf->dump_result, DUMP_MAX, &jf->dump))
      jf->dump_ns = at;
  }
  if (!jf->first_ns || at < jf->first_ns) {
    jf->first.len = 0;
    if (!jfr_event_str(jf->j, jf->dump_result, DUMP_MAX, &jf->first))
      jf->first_ns = at;
  }
}

static int on_event(void *ctx, int t, const uint64_t *v)
{
  struct jfr_fold *jf = ctx;
  const struct bound *b = &jf->bind[t];
  const struct sel *s;
  struct jfr_agg a = {0, 0, 0, 1, 1, 0, 0};

  if (t == jf->dump_type) {
    on_dump(jf, v);
    return 0;
  }
  s = &jf->sel[b->sel];
  a.sel = b->sel;
  if (b->scale) {
    jfr_est_tas(jf->est, v[b->thread], (int64_t)v[b->value]);
    return 0;
  }
  /* a scaled sample counts for its thread's share in or out of a window */
  if (s->scale && b->thread >= 0) {
    a.thread = v[b->thread];
    a.has |= 8;
    jfr_est_seen(jf->est, a.thread);
  }
  if (s->acct) { /* weighted by its thread's CPU: keyed by thread */
    a.thread = b->thread >= 0 ? v[b->thread] : 0;
    a.has |= 16;
    if (jf->wall && a.thread && b->time >= 0) /* it ran then */
      jfr_cpu_seen(jf->cpu, jfr_thread_os_id(jf->j, a.thread),
                   jfr_time_ns(jf->j, v[b->time]));
  }
  if (b->time >= 0 && (jf->o.from_ns >= 0 || jf->o.to_ns >= 0)) {
    int64_t rel = jfr_time_ns(jf->j, v[b->time]) - jfr_start_ns(jf->j);

    if ((jf->o.from_ns >= 0 && rel < jf->o.from_ns) ||
        (jf->o.to_ns >= 0 && rel >= jf->o.to_ns))
      return 0;
  }
  if (b->value >= 0 && !jf->o.samples) {
    a.value = (int64_t)v[b->value];
    if (b->ticks) a.value = jfr_span_ns(jf->j, a.value);
  }
  if (s->state && jf->cpu && b->value >= 0 && b->thread >= 0 && b->ticks) {
    int64_t ns = jfr_span_ns(jf->j, (int64_t)v[b->value]);

    if (jf->o.win_ns && b->time >= 0) { /* its part in the CPU's window */
      int64_t from = jfr_time_ns(jf->j, v[b->time]), to = from + ns;
      int64_t lo = jf->o.win_ns, hi = lo + jf->o.span_ns;

      ns = (to < hi ? to : hi) - (from > lo ? from : lo);
      if (ns <= 0) return 0;
      jfr_cpu_seen(jf->cpu, jfr_thread_os_id(jf->j, v[b->thread]), to);
      if (!jf->o.samples) a.value = ns;
    }
    jfr_cpu_blocked(jf->cpu, jfr_thread_os_id(jf->j, v[b->thread]), ns);
  }
  if (b->stack >= 0) {
    a.stack = v[b->stack];
    a.has |= 1;
  }
  if (jf->o.thread_frames && b->thread >= 0) {
    a.thread = v[b->thread];
    a.has |= 2;
  }
  if (jf->sel[b->sel].cls && b->cls >= 0) {
    a.cls = v[b->cls];
    a.has |= 4;
  }
  jfr_agg_add(&jf->aggs, &a);
  jf->group_events[s->group]++;
  return 0;
}

/* "thread;frames...;leaf": each part only when there is one; a stack
 * with none of them is "[no stack]". */
static void fold_agg(struct jfr_fold *jf, const struct jfr_agg *a)
{
  const struct sel *s = &jf->sel[a->sel];
  struct buf *k = &jf->key;
  int own = 0;

  k->len = 0;
  buf_add(k, "", 0);
  if (jf->o.thread_frames) {
    if (!(a->has & 2) || jfr_thread_name(jf->j, a->thread, k))
      jf->st.unknown_frames++;
    clean(k, 0);
  }
  if (s->state) {
    if (k->len) buf_addc(k, ';');
    buf_adds(k, s->state);
  }
  if (a->has & 1) {
    own = stack_frames(jf, a->stack, k);
  } else {
    buf_adds(k, k->len ? ";[no stack]" : "[no stack]");
    jf->st.no_stack++;
  }
  if (s->leaf) {
    size_t from;

    if (k->len) buf_addc(k, ';');
    from = k->len;
    if (!(a->has & 4) || jfr_class_name(jf->j, a->cls, k))
      jf->st.unknown_frames++;
    clean(k, from);
  } else if (s->cls && (a->has & 4) && a->cls) {
    /* the monitor's class, when the event names one (a park on no
     * object has none) */
    size_t from;

    if (k->len) buf_addc(k, ';');
    from = k->len;
    if (jfr_class_name(jf->j, a->cls, k)) jf->st.unknown_frames++;
    clean(k, from);
  }
  if (!k->len) {
    buf_adds(k, "[no stack]");
    jf->st.no_stack++;
  }
  if (a->has & 16) {
    own &= !jf->o.keep_own;
    jfr_cpu_add(jf->cpu,
                (a->has & 16) && a->thread ? jfr_thread_os_id(jf->j, a->thread)
                                           : -1,
                k->p, k->len, a->count, own);
    return;
  }
  if (own && !jf->o.keep_own) {
    jf->group_own[s->group] += a->count;
    return;
  }
  if (a->has & 8)
    jfr_est_add(jf->est, a->thread, k->p, k->len, a->count, a->value);
  else
    fold_add(jf->pending[s->group], k->p, k->len, a->value, s->leaf);
  if (!(a->has & 8) && jf->counts[s->group])
    fold_add(jf->counts[s->group], k->p, k->len, (int64_t)a->count, s->leaf);
}

/* The chunk's sums go into the folds while its pools name them. */
static void flush_chunk(struct jfr_fold *jf)
{
  struct jfr_aggs *t = &jf->aggs;

  for (size_t i = 0; i < t->cap && t->n; i++)
    if (t->e[i].sel >= 0) fold_agg(jf, &t->e[i]);
  for (size_t i = 0; i < t->cap; i++) t->e[i].sel = -1;
  t->n = 0;
}

int jfr_fold_fd(struct jfr_fold *jf, int fd, const char *name, char *err,
                size_t errlen)
{
  const struct jfr_stats *s;
  int rc;

  jf->j = jfr_open(fd, name);
  jf->bound_gen = 0;
  while ((rc = jfr_next_chunk(jf->j, err, errlen)) == 1) {
    if (bind_chunk(jf, err, errlen) ||
        jfr_walk(jf->j, jf->want, on_event, jf, err, errlen)) {
      flush_chunk(jf);
      rc = -1;
      break;
    }
    flush_chunk(jf);
  }
  if (jf->est)
    jfr_est_flush(jf->est, jf->pending[jf->est_group],
                  jf->counts[jf->est_group], jf->est_leaf, &jf->st.scaled,
                  &jf->st.unscaled);
  if (jf->cpu) {
    struct jfr_cpu_stats cs;

    /* the dump JFR took as our recording stopped: after the window's
     * end (the stop is asked once it ended), not an earlier chunk's */
    if (jf->dump_ns && jf->o.win_ns &&
        jf->dump_ns >= jf->o.win_ns + jf->o.span_ns - DUMP_SLACK_NS)
      jfr_cpu_dump(jf->cpu,
                   jf->first_ns && jf->first_ns <= jf->o.win_ns + DUMP_SLACK_NS
                       ? jf->first.p
                       : NULL,
                   jf->first.len, jf->dump.p, jf->dump.len, jf->o.lines);
    else if (jf->wall)
      jf->st.no_dump = 1;
    jfr_cpu_flush(jf->cpu, jf->pending[jf->cpu_group],
                  jf->counts[jf->cpu_group], jf->o.thread_frames, &cs);
    jf->st.accounted = 1;
    jf->st.cpu_ns += cs.total_ns;
    jf->st.process_ns += cs.process_ns;
    jf->st.unsampled_ns += cs.unsampled_ns;
    jf->st.own_ns += cs.own_ns;
    jf->st.dump_ns += cs.dump_ns;
    jf->st.dump_threads += cs.dump_threads;
    if (jf->wall) wall_comment(jf);
    jf->group_own[jf->cpu_group] += cs.own_samples;
  }
  s = jfr_stats(jf->j);
  jf->st.chunks += s->chunks;
  jf->st.events += s->events;
  jf->st.bad += s->bad_records + s->bad_pools;
  jf->st.truncated |= s->truncated;
  jf->st.end = s->end;
  if (!jf->st.start_ns || (s->start_ns && s->start_ns < jf->st.start_ns))
    jf->st.start_ns = s->start_ns;
  if (s->end_ns > jf->st.end_ns) jf->st.end_ns = s->end_ns;
  jf->st.live |= s->live;
  jfr_close(jf->j);
  jf->j = NULL;
  return rc < 0 ? -1 : 0;
}

const char *jfr_fold_finish(struct jfr_fold *jf, const char **unit)
{
  const struct fold_stack *st;
  int g = 0, leaf = 0;
  size_t n;

  /* the accounted group holds CPU even when JFR sampled nothing */
  while (g < jf->ngroups && !jf->group_events[g] &&
         !(jf->cpu && g == jf->cpu_group && jf->st.cpu_ns))
    g++;
  *unit = "samples";
  /* the chosen group's events: those left out are not in the result */
  jf->st.own = g < jf->ngroups ? jf->group_own[g] : 0;
  jf->st.used = g < jf->ngroups ? jf->group_events[g] - jf->st.own : 0;
  if (g == jf->ngroups) return NULL;
  jf->estimated = jf->est && g == jf->est_group;
  jf->chosen.len = 0;
  for (int i = 0; i < jf->nsel; i++) {
    if (jf->sel[i].group != g) continue;
    buf_printf(&jf->chosen, "%s%s", jf->chosen.len ? " and " : "",
               jf->sel[i].name);
    leaf = jf->sel[i].leaf;
    jf->word = jf->sel[i].word;
    if (jf->sel[i].value && !jf->o.samples)
      *unit = leaf ? "bytes" : jf->group_ticks[g] ? "ns" : jf->sel[i].value;
  }
  if (jf->cpu && g == jf->cpu_group) *unit = "ns";
  if (g > 0) {
    n = fold_result(jf->pending[g], &st);
    for (size_t i = 0; i < n; i++)
      fold_add(jf->f, st[i].key, st[i].len, st[i].value, leaf);
  }
  jf->unit = *unit;
  if (g > 0 && jf->counts[0]) {
    n = fold_result(jf->counts[g], &st);
    for (size_t i = 0; i < n; i++)
      fold_add(jf->counts[0], st[i].key, st[i].len, st[i].value, leaf);
  }
  return jf->chosen.p;
}

void jfr_fold_pprof(const struct jfr_fold *jf, struct pprof_opts *o)
{
  o->kind = jf->o.samples ? PPROF_VALUE : pprof_kind_of(jf->word);
  if (jf->o.value) o->kind = PPROF_VALUE;
  o->unit = jf->unit;
  o->time_ns = jf->st.start_ns;
  o->duration_ns =
      jf->st.end_ns > jf->st.start_ns ? jf->st.end_ns - jf->st.start_ns : 0;
  if (jf->st.accounted && jf->o.win_ns) { /* the window the values cover */
    o->time_ns = jf->o.win_ns;
    o->duration_ns = jf->o.span_ns;
  }
  o->thread_root = jf->o.thread_frames;
  o->accounted = jf->st.accounted;
  if (o->accounted)
    o->comment = "cpu/nanoseconds: each thread's CPU from /proc "
                 "(utime+stime over the recording) shared among its JFR "
                 "samples; threads JFR does not sample as frames by kind, "
                 "named as JFR's thread dump at the stop names them "
                 "(jdk.ThreadDump)";
  if (o->accounted && jf->wall && jf->comment.len) o->comment = jf->comment.p;
  if (jf->estimated)
    o->comment = "alloc_space: JFR's sampled allocations, not every one: "
                 "each thread's bytes (jdk.ThreadAllocationStatistics over "
                 "the recording) shared among its stacks by their share of "
                 "its samples, an estimate; alloc_objects: JFR's samples";
}

const struct jfr_fold_stats *jfr_fold_stats(const struct jfr_fold *jf)
{
  return &jf->st;
}

const char *jfr_fold_word(const struct jfr_fold *jf)
{
  return jf->word;
}

void jfr_fold_free(struct jfr_fold *jf)
{
  if (!jf) return;
  for (int g = 1; g < jf->ngroups; g++) {
    fold_free(jf->pending[g]);
    if (jf->counts[0]) fold_free(jf->counts[g]);
  }
  jfr_est_free(jf->est);
  jfr_cpu_free(jf->cpu);
  buf_free(&jf->dump);
  buf_free(&jf->first);
  buf_free(&jf->comment);
  free(jf->bind);
  free(jf->want);
  free(jf->aggs.e);
  jmap_free(&jf->stacks);
  buf_free(&jf->cache);
  buf_free(&jf->key);
  buf_free(&jf->chosen);
  free(jf);
}
