/* top_jvm.c - jvmtool top PID: one JVM's threads by CPU, hot stacks
 *
 * CPU per thread over the interval from /proc/<pid>/task/<tid>/stat, user
 * and system apart (core/proc). Names and states come from a thread dump
 * over attach (core/tdump), matched by nid: the thread's tid in the JVM's
 * own pid namespace (the last NSpid of /proc/<pid>/task/<tid>/status, read
 * once per thread when the JVM is in another pid namespace), in hex on
 * JDK 11/17, decimal on 25. A dump stops the JVM at a safepoint, so it is
 * taken only when something is new: names are learned once per thread and
 * kept; a thread alive at a dump that does not name it (the launcher, GC,
 * JIT, JFR's sampler) never asks for another; stacks and new names wait
 * for --dump-every (5 s). --alloc is the exception that says its cost: a
 * Thread.print -e every refresh, whose allocated= bytes give each thread's
 * allocation rate (JDK 11+). A JVM that takes no attach
 * (-XX:+DisableAttachMechanism) gets no request and no SIGQUIT at all:
 * its threads carry their native names (/proc comm, 15 bytes), and GC,
 * compiler and VM threads are marked from those names either way.
 */
#include "core/jvmtool.h"
#include "core/jvm.h"
#include "cmd/top.h"
#include "core/attach.h"
#include "core/fold.h"
#include "core/tdump.h"
#include "core/vm.h"

enum { DUMP_TIMEOUT_MS = 3000, STACK_FRAMES = 8, NAME_MIN = 16 };
/* STATE's text: tdump_state_short's longest form, "TIMED_WAITING (sleep)" */
enum { STATE_W = 21 };

/* 1 when the JVM may be asked (a verified JVM that takes attach
 * requests, core/attach's rule, asked of the value opened once); else 0
 * with the reason in j->why. */
static int attach_ok(struct top_jvm *j)
{
  char err[256];

  if (j->why[0]) return 0;
  if (!j->opened) { /* top_main opens it first */
    snprintf(j->why, sizeof(j->why), "no names: not opened");
    return 0;
  }
  if (!attach_check(&j->jvm, err, sizeof(err))) return 1;
  snprintf(j->why, sizeof(j->why), "%s: native names, no stacks",
           j->jvm.off == 1 ? "attach disabled (-XX:+DisableAttachMechanism)"
                           : err);
  return 0;
}

/* What the new dump says of each thread of the last walk: its name and
 * state, and with -e its allocation rate since the last -e dump. */
static void learn(struct top_jvm *j, uint64_t at)
{
  for (size_t i = 0; i < j->nprev; i++) {
    struct top_known *k = &j->known[i];
    const struct tdump_thread *d = tdump_find(j->td, k->nstid);

    k->dumped = 1;
    if (!d) continue;
    if (!k->name) k->name = xstrdup(d->name);
    memcpy(k->state, d->state, sizeof(k->state));
    k->java = d->java;
    if (d->allocated < 0) continue;
    k->alloc = -1;
    if (k->alloc_ns && at > k->alloc_ns && d->allocated >= k->allocated)
      k->alloc =
          (d->allocated - k->allocated) / ((double)(at - k->alloc_ns) / 1e9);
    k->allocated = d->allocated;
    k->alloc_ns = at;
  }
}

int top_jvm_can_dump(struct top_jvm *j)
{
  return attach_ok(j);
}

const char *top_jvm_dump_line(const struct top_jvm *j)
{
  return j->alloc ? "Thread.print -e" : "Thread.print";
}

static int take_dump(struct top_jvm *j)
{
  const char *args[3] = {NULL, NULL, NULL};
  char err[256], *reply = NULL;

  if (!attach_ok(j)) return -1;
  args[0] = top_jvm_dump_line(j);
  if (attach_send(&j->jvm, "jcmd", args, DUMP_TIMEOUT_MS, &reply, err,
                  sizeof(err))) {
    free(reply);
    snprintf(j->why, sizeof(j->why), "no thread dump: %s", err);
    return -1;
  }
  return top_jvm_take(j, reply);
}

int top_jvm_take(struct top_jvm *j, char *reply)
{
  const char *body;

  if (attach_status(reply, &body)) {
    snprintf(j->why, sizeof(j->why), "no thread dump: the JVM refused");
    free(reply);
    return -1;
  }
  if (j->td)
    tdump_free(j->td);
  else
    j->td = xzalloc(sizeof(*j->td));
  free(j->dump);
  j->dump = reply;
  tdump_parse(body, strlen(body), j->td);
  j->dumps++;
  j->dump_ns = top_now_ns();
  learn(j, j->dump_ns);
  return 0;
}

int top_jvm_dump(struct top_jvm *j)
{
  return take_dump(j);
}

/* Whether a dump is due (see top_jvm_read). */
static int need_dump(const struct top_jvm *j, uint64_t now)
{
  if (j->no_dump) return 0; /* its owner takes them (top_jvm_dump_due) */
  return top_jvm_dump_due(j, now);
}

int top_jvm_dump_due(const struct top_jvm *j, uint64_t now)
{
  if (j->alloc || !j->td) return 1;
  if (now - j->dump_ns < j->dump_every_ns) return 0;
  if (j->stacks) return 1;
  for (size_t i = 0; i < j->nprev; i++)
    if (!j->known[i].dumped && j->prev[i].tid != j->pid &&
        !tdump_native_kind(j->prev[i].st.comm))
      return 1;
  return 0;
}

/* The JVM's innermost pid (its status's, read at its open), or 0 when
 * unknown: then each thread's own status says. */
static int jvm_nspid(const struct top_jvm *j)
{
  return j->opened ? j->jvm.nspid : 0;
}

/* The known threads of cur (n, by tid): those of the last walk carried
 * over (same tid and start time), new ones mapped to their namespace tid
 * and named from the last dump when it has them. */
static struct top_known *carry(struct top_jvm *j, const struct proc_task *cur,
                               size_t n)
{
  struct top_known *out = xzalloc((n + 1) * sizeof(*out));
  int nspid = jvm_nspid(j);
  size_t p = 0;

  for (size_t i = 0; i < n; i++) {
    struct top_known *k = &out[i];
    const struct tdump_thread *d;
    struct proc_status st;

    while (p < j->nprev && j->prev[p].tid < cur[i].tid) p++;
    if (p < j->nprev && j->prev[p].tid == cur[i].tid &&
        j->prev[p].st.starttime == cur[i].st.starttime) {
      *k = j->known[p];
      j->known[p].name = NULL;
      continue;
    }
    k->allocated = k->alloc = -1;
    k->nstid = cur[i].tid;
    if (nspid != j->pid && !proc_task_status_at(j->jvm.procfd, cur[i].tid, &st))
      k->nstid = proc_innermost(&st, cur[i].tid);
    else if (nspid != j->pid)
      k->nstid = 0; /* gone, or unreadable: matches no nid */
    if (j->td && (d = tdump_find(j->td, k->nstid))) {
      k->name = xstrdup(d->name);
      memcpy(k->state, d->state, sizeof(k->state));
      k->java = d->java;
      k->dumped = 1;
    }
  }
  for (size_t i = 0; i < j->nprev; i++) free(j->known[i].name);
  free(j->known);
  return out;
}

static int by_cpu(const void *a, const void *b)
{
  const struct top_thread *x = a, *y = b;

  if (x->cpu != y->cpu) return x->cpu < y->cpu ? 1 : -1;
  return (x->task.tid > y->task.tid) - (x->task.tid < y->task.tid);
}

int top_jvm_read(struct top_jvm *j)
{
  struct proc_task *cur = NULL;
  uint64_t(*d)[2], now = top_now_ns();
  double dt = j->at_ns ? (double)(now - j->at_ns) / 1e9 : 0;
  double hz = (double)proc_hz();
  size_t n;

  if (!j->opened || proc_tasks_at(j->jvm.procfd, &cur, &n, NULL) || !n) {
    free(cur);
    return -ESRCH;
  }
  j->one.given = &j->jvm; /* its line: the same JVM, never listed */
  top_node_read(&j->one);
  d = xmalloc(n * sizeof(*d));
  proc_tasks_delta(j->prev, j->nprev, cur, n, d);
  j->known = carry(j, cur, n);
  free(j->prev);
  j->prev = cur;
  j->nprev = n;
  if (need_dump(j, now)) take_dump(j);
  free(j->t);
  j->t = xzalloc(n * sizeof(*j->t));
  for (size_t i = 0; i < n; i++) {
    struct top_thread *t = &j->t[i];
    const char *native = tdump_native_kind(cur[i].st.comm);

    t->task = cur[i];
    t->k = i;
    t->usr = dt > 0 ? (double)d[i][0] / hz / dt * 100 : -1;
    t->sys = dt > 0 ? (double)d[i][1] / hz / dt * 100 : -1;
    t->cpu = dt > 0 ? t->usr + t->sys : -1;
    t->kind = native                 ? native
              : j->known[i].java     ? "java"
              : cur[i].tid == j->pid ? "vm" /* the launcher */
              : j->known[i].name     ? "vm"
                                     : "-";
  }
  qsort(j->t, n, sizeof(*j->t), by_cpu);
  free(d);
  j->n = n;
  j->at_ns = now;
  return 0;
}

int top_jvm_open(struct top_jvm *j, int pid, struct vm *row, char *err,
                 size_t n)
{
  int rc = row ? jvm_open_row(&j->jvm, row, err, n)
               : jvm_open_pid(&j->jvm, pid, err, n);

  if (rc) return rc;
  j->pid = pid;
  j->opened = 1;
  return 0;
}

void top_jvm_free(struct top_jvm *j)
{
  if (j->td) tdump_free(j->td);
  free(j->td);
  free(j->dump);
  for (size_t i = 0; i < j->nprev; i++) free(j->known[i].name);
  free(j->known);
  free(j->prev);
  free(j->t);
  top_node_free(&j->one);
  if (j->opened) jvm_close(&j->jvm);
  memset(j, 0, sizeof(*j));
}

static const struct top_known *known_of(const struct top_jvm *j,
                                        const struct top_thread *t)
{
  return &j->known[t->k];
}

/* The thread's name: the dump's, else its native one. */
static const char *name_of(const struct top_jvm *j, const struct top_thread *t)
{
  const char *n = known_of(j, t)->name;

  return n ? n : t->task.st.comm;
}

static const char *state_of(const struct top_jvm *j, const struct top_thread *t)
{
  const char *s = known_of(j, t)->state;

  return *s ? s : "-";
}

/* The dump's block of row t, or NULL. */
static const struct tdump_thread *dumped(const struct top_jvm *j,
                                         const struct top_thread *t)
{
  return j->td ? tdump_find(j->td, known_of(j, t)->nstid) : NULL;
}

static void line_end(struct buf *b, size_t at, int width)
{
  if (width > 0 && b->len - at > (size_t)width) b->len = at + (size_t)width;
  buf_addc(b, '\n');
}

/* The columns of the thread table; NAME is the last, the rest of a line. */
enum { C_TID, C_CPU, C_USR, C_SYS, C_ALLOC, C_STATE, C_KIND, C_N };
static const struct top_col cols[C_N] = {
    [C_TID] = {"TID", 7, 0, 0},       [C_CPU] = {"%CPU", 7, 0, 0},
    [C_USR] = {"%USR", 7, 0, 2},      [C_SYS] = {"%SYS", 7, 0, 1},
    [C_ALLOC] = {"ALLOC/s", 8, 0, 5}, [C_STATE] = {"STATE", STATE_W + 1, 1, 4},
    [C_KIND] = {"KIND", 5, 1, 3},
};

static void pct(struct buf *b, double v)
{
  if (v < 0)
    buf_adds(b, "      -");
  else
    buf_printf(b, "%7.1f", v);
}

/* One row of the table (no newline). */
static void row(const struct top_jvm *j, const struct top_thread *t,
                unsigned mask, int esc, struct buf *b)
{
  const struct top_known *k = known_of(j, t);
  struct buf s = {0};

  buf_printf(b, "%7d", t->task.tid);
  if (mask & 1u << C_CPU) pct(b, t->cpu);
  if (mask & 1u << C_USR) pct(b, t->usr);
  if (mask & 1u << C_SYS) pct(b, t->sys);
  if (mask & 1u << C_ALLOC) {
    top_size(&s, k->alloc);
    buf_printf(b, "%8s", s.p);
  }
  if (mask & 1u << C_STATE) {
    const char *st;
    size_t n = tdump_state_short(state_of(j, t), STATE_W, &st);

    s.len = 0;
    top_add_text(&s, st, n, esc);
    buf_printf(b, " %-*s", STATE_W, s.p);
  }
  if (mask & 1u << C_KIND) buf_printf(b, " %-4s", t->kind);
  buf_addc(b, ' ');
  top_add_text(b, name_of(j, t), strlen(name_of(j, t)), esc);
  buf_free(&s);
}

/* Row t's header line in a stack section (no newline). */
static void stack_head(const struct top_jvm *j, const struct top_thread *t,
                       int esc, struct buf *b)
{
  const char *st = state_of(j, t);

  buf_addc(b, '"');
  top_add_text(b, name_of(j, t), strlen(name_of(j, t)), esc);
  buf_printf(b, "\" tid %d  cpu %.1f%%  ", t->task.tid,
             t->cpu < 0 ? 0 : t->cpu);
  top_add_text(b, st, strlen(st), esc);
}

/* Row t's first max frames, one line each ("    at ..."), at most lines
 * of them; returns the lines written. */
static size_t frames(const struct top_jvm *j, const struct top_thread *t,
                     size_t skip, size_t max, int width, int esc, struct buf *b)
{
  const struct tdump_thread *k = dumped(j, t);
  struct buf f = {0};
  size_t got = 0, i = 0;

  if (!k || !tdump_frames(j->td, k, skip + max, &f)) {
    size_t at = b->len;

    buf_adds(b, j->td ? "    (no Java stack)" : "    (no thread dump yet)");
    line_end(b, at, width);
    buf_free(&f);
    return 1;
  }
  for (char *p = f.p, *nl; *p; p = nl + 1, i++) {
    size_t at = b->len;

    nl = strchr(p, '\n');
    if (i < skip) continue;
    buf_adds(b, "    at ");
    top_add_text(b, p, (size_t)(nl - p), esc);
    line_end(b, at, width);
    got++;
  }
  buf_free(&f);
  return got;
}

/* Row t's stack in at most max lines (max >= 3) that explain it: its top
 * frames, or, when the application's first frame is further down than
 * that, the top frame, one line counting the JDK frames left out, and the
 * application's frames from its first on. Returns the lines written. */
static size_t hot_frames(const struct top_jvm *j, const struct top_thread *t,
                         size_t max, int width, int esc, struct buf *b)
{
  const struct tdump_thread *k = dumped(j, t);
  struct buf f = {0};
  size_t n, app = 0, got = 0, at, i = 0;

  if (!k || (n = tdump_frames(j->td, k, (size_t)-1, &f)) <= max) {
    buf_free(&f);
    return frames(j, t, 0, max, width, esc, b);
  }
  for (char *p = f.p; *p; p = strchr(p, '\n') + 1, app++)
    if (!fold_jdk_frame(p, (size_t)(strchr(p, '\n') - p))) break;
  if (app < max || app >= n) {
    buf_free(&f);
    return frames(j, t, 0, max, width, esc, b);
  }
  for (char *p = f.p, *nl; *p && got < max; p = nl + 1, i++) {
    nl = strchr(p, '\n');
    if (i && i < app) continue;
    at = b->len;
    buf_adds(b, "    at ");
    top_add_text(b, p, (size_t)(nl - p), esc);
    line_end(b, at, width);
    if (!i && ++got < max) {
      at = b->len;
      buf_printf(b, "    ... %zu frames of the JDK", app - 1);
      line_end(b, at, width);
    }
    got++;
  }
  buf_free(&f);
  return got;
}

/* The hot threads' stacks: each a blank line, a header and the frames that
 * explain it, in at most lines lines (0: STACK_FRAMES frames each); a
 * thread shown has three frame lines at least. */
static void hot(const struct top_jvm *j, struct buf *b, size_t lines, int width,
                int esc)
{
  size_t nhot = (size_t)j->stacks < j->n ? (size_t)j->stacks : j->n;
  size_t per = STACK_FRAMES, at;

  if (lines) {
    while (nhot && lines < nhot * 5) nhot--;
    if (!nhot) return;
    per = lines / nhot - 2;
  }
  for (size_t i = 0; i < nhot; i++) {
    buf_addc(b, '\n');
    at = b->len;
    stack_head(j, &j->t[i], esc, b);
    line_end(b, at, width);
    hot_frames(j, &j->t[i], per, width, esc, b);
  }
}

void top_jvm_text(const struct top_jvm *j, struct buf *b, size_t rows,
                  int width, int esc, int sel)
{
  unsigned have = (1u << C_N) - 1, mask;
  size_t at, used = 0, nrows = j->n;
  int num = sel >= 0 ? 4 : 0; /* "%3d " row numbers on a terminal */

  if (!j->alloc) have &= ~(1u << C_ALLOC);
  mask = top_fit(cols, C_N, have, width > 0 ? width - num : width, NAME_MIN);
  top_node_text(&j->one, b, 0, width, esc, -1);
  used += 2 + j->one.n;
  if (j->why[0]) {
    at = b->len;
    buf_adds(b, "(");
    top_add_text(b, j->why, strlen(j->why), esc);
    buf_adds(b, ")");
    line_end(b, at, width);
    used++;
  }
  at = b->len;
  buf_printf(b, "%*s", num, "");
  top_titles(b, cols, C_N, mask, "NAME");
  line_end(b, at, width);
  used++;
  if (rows) {
    size_t left = rows > used ? rows - used : 0;
    size_t want = j->stacks ? left / 2 : left;

    if (j->stacks && want < 5) want = left < 5 ? left : 5;
    nrows = nrows < want ? nrows : want;
  }
  for (size_t i = 0; i < nrows; i++) {
    at = b->len;
    if (sel >= 0) {
      buf_adds(b, (int)i == sel ? "\033[7m" : "");
      buf_printf(b, "%3zu ", i + 1);
    }
    row(j, &j->t[i], mask, esc, b);
    if (sel >= 0 && (int)i == sel) {
      if (width > 0 && b->len - at > (size_t)width + 4) b->len = at + width + 4;
      buf_adds(b, "\033[0m\n");
      continue;
    }
    line_end(b, at, width);
  }
  if (!rows)
    hot(j, b, 0, width, esc);
  else if (j->stacks && rows > used + nrows)
    hot(j, b, rows - used - nrows, width, esc);
}

void top_jvm_stack_text(const struct top_jvm *j, size_t i, struct buf *b,
                        size_t rows, int width, size_t skip)
{
  size_t at = b->len;
  int age;

  if (i >= j->n) return;
  stack_head(j, &j->t[i], 1, b);
  line_end(b, at, width);
  at = b->len;
  age = j->td ? (int)((top_now_ns() - j->dump_ns) / 1000000000u) : -1;
  if (age >= 0)
    buf_printf(b, "(the thread dump of %ds ago; %d taken)", age, j->dumps);
  line_end(b, at, width);
  frames(j, &j->t[i], skip, rows > 2 ? rows - 2 : 1, width, 1, b);
}

static void thread_json(const struct top_jvm *j, const struct top_thread *t,
                        size_t rank, struct buf *b)
{
  const struct tdump_thread *k = rank < (size_t)j->stacks ? dumped(j, t) : NULL;
  const struct top_known *kn = known_of(j, t);
  struct buf f = {0};
  struct json_obj o;

  json_open(&o, b, 1);
  json_int(&o, "tid", t->task.tid);
  json_int(&o, "ns_tid", kn->nstid);
  json_strz(&o, "name", name_of(j, t));
  json_strz(&o, "native_name", t->task.st.comm);
  json_strz(&o, "kind", t->kind);
  json_strz(&o, "state", kn->state);
  json_bool(&o, "java", kn->java);
  json_num(&o, "alloc_bytes_per_s", top_json_val(kn->alloc));
  json_num(&o, "cpu_pct", top_json_val(t->cpu));
  json_num(&o, "user_pct", top_json_val(t->usr));
  json_num(&o, "sys_pct", top_json_val(t->sys));
  if (k) {
    tdump_frames(j->td, k, STACK_FRAMES, &f);
    json_key(&o, "stack");
    buf_addc(b, '[');
    for (char *p = f.p, *nl; p && *p; p = nl + 1) {
      nl = strchr(p, '\n');
      buf_adds(b, p == f.p ? "" : ", ");
      json_buf(b, p, (size_t)(nl - p));
    }
    buf_addc(b, ']');
  }
  json_close(&o);
  buf_free(&f);
}

void top_jvm_json(const struct top_jvm *j, struct buf *b)
{
  struct json_obj o;

  json_open(&o, b, 1);
  top_node_fields(&j->one, "jvm", &o);
  json_int(&o, "pid", j->pid);
  json_int(&o, "dumps", j->dumps);
  json_strz(&o, "note", j->why);
  json_key(&o, "threads");
  buf_addc(b, '[');
  for (size_t i = 0; i < j->n; i++) {
    buf_adds(b, i ? ", " : "");
    thread_json(j, &j->t[i], i, b);
  }
  buf_addc(b, ']');
  json_close(&o);
  buf_addc(b, '\n');
}
