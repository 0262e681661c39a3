/* top_jvm.c - jvmtool top PID: one JVM's threads by CPU, hot stacks
 *
 * CPU per thread over the interval from /proc/<pid>/task/<tid>/stat, user
 * and system apart (core/proc). Names and states come from one thread
 * dump over attach (core/tdump), matched by nid = TID: JDK 11/17 print it
 * in hex, 25 in decimal. The dump is taken when stacks are asked for
 * (--stacks N: each refresh), else once, and again only when a thread
 * appears that the last dump does not name. A JVM that takes no attach
 * (-XX:+DisableAttachMechanism) gets no request and no SIGQUIT at all:
 * its threads carry their native names (/proc comm, 15 bytes), and GC,
 * compiler and VM threads are marked from those names either way.
 */
#include "core/jvmtool.h"
#include "core/jvm.h"
#include "cmd/top.h"
#include "core/attach.h"
#include "core/tdump.h"
#include "core/vm.h"

enum { DUMP_TIMEOUT_MS = 3000, STACK_FRAMES = 8 };

/* 1 when the JVM may be asked (a verified JVM that takes attach
 * requests, core/attach's rule, asked of the value opened once); else 0
 * with the reason in j->why. */
static int attach_ok(struct top_jvm *j)
{
  char err[256];

  if (j->why[0]) return 0;
  if (!j->opened) {
    if (jvm_open_pid(&j->vm, j->pid, err, sizeof(err))) {
      snprintf(j->why, sizeof(j->why), "no names: %s", err);
      return 0;
    }
    j->opened = 1;
  }
  if (!attach_check(&j->vm, err, sizeof(err))) return 1;
  snprintf(j->why, sizeof(j->why), "%s: native names, no stacks",
           j->vm.off == 1 ? "attach disabled (-XX:+DisableAttachMechanism)"
                          : err);
  return 0;
}

static void take_dump(struct top_jvm *j)
{
  const char *args[3] = {"Thread.print", NULL, NULL}, *body;
  char err[256], *reply = NULL;

  if (attach_send(&j->vm, "jcmd", args, DUMP_TIMEOUT_MS, &reply, err,
                  sizeof(err))) {
    free(reply);
    snprintf(j->why, sizeof(j->why), "no thread dump: %s", err);
    return;
  }
  if (attach_status(reply, &body)) {
    snprintf(j->why, sizeof(j->why), "no thread dump: the JVM refused");
    free(reply);
    return;
  }
  if (j->td)
    tdump_free(j->td);
  else
    j->td = xzalloc(sizeof(*j->td));
  free(j->dump);
  j->dump = reply;
  tdump_parse(body, strlen(body), j->td);
  j->dumps++;
}

/* A dump is needed for stacks (each printed refresh), or for names: none
 * yet, or a thread the last one does not name. */
static int need_dump(struct top_jvm *j, const struct proc_task *t, size_t n,
                     int baseline)
{
  if (j->stacks) return !baseline;
  if (!j->td) return 1;
  for (size_t i = 0; i < n; i++)
    if (!tdump_find(j->td, t[i].tid)) return 1;
  return 0;
}

static int by_cpu(const void *a, const void *b)
{
  const struct top_thread *x = a, *y = b;

  if (x->cpu != y->cpu) return x->cpu < y->cpu ? 1 : -1;
  return (x->task.tid > y->task.tid) - (x->task.tid < y->task.tid);
}

int top_jvm_read(struct top_jvm *j)
{
  struct proc_task *cur;
  uint64_t(*d)[2], now = top_now_ns();
  double dt = j->at_ns ? (double)(now - j->at_ns) / 1e9 : 0;
  double hz = (double)proc_hz();
  size_t n;
  int baseline = !j->at_ns;

  if (proc_tasks(j->pid, &cur, &n, NULL) || !n) {
    free(cur);
    return -ESRCH;
  }
  j->one.only = &j->pid;
  j->one.nonly = 1;
  top_node_read(&j->one);
  if (need_dump(j, cur, n, baseline) && attach_ok(j)) take_dump(j);
  d = xmalloc(n * sizeof(*d));
  proc_tasks_delta(j->prev, j->nprev, cur, n, d);
  free(j->t);
  j->t = xzalloc(n * sizeof(*j->t));
  for (size_t i = 0; i < n; i++) {
    struct top_thread *t = &j->t[i];
    const struct tdump_thread *k = j->td ? tdump_find(j->td, cur[i].tid) : NULL;
    const char *native = tdump_native_kind(cur[i].st.comm);

    t->task = cur[i];
    t->usr = dt > 0 ? (double)d[i][0] / hz / dt * 100 : -1;
    t->sys = dt > 0 ? (double)d[i][1] / hz / dt * 100 : -1;
    t->cpu = dt > 0 ? t->usr + t->sys : -1;
    t->name = k ? k->name : NULL;
    t->state = k && k->state[0] ? k->state : NULL;
    t->java = k && k->java;
    t->kind = native ? native : t->java ? "java" : k ? "vm" : "-";
  }
  qsort(j->t, n, sizeof(*j->t), by_cpu);
  free(d);
  free(j->prev);
  j->prev = cur;
  j->nprev = j->n = n;
  j->at_ns = now;
  return 0;
}

void top_jvm_free(struct top_jvm *j)
{
  if (j->td) tdump_free(j->td);
  free(j->td);
  free(j->dump);
  free(j->prev);
  free(j->t);
  top_node_free(&j->one);
  if (j->opened) jvm_close(&j->vm);
  memset(j, 0, sizeof(*j));
}

static void cpu_col(struct buf *b, double v)
{
  if (v < 0)
    buf_adds(b, "     -");
  else
    buf_printf(b, "%6.1f", v);
}

/* The thread's name: the dump's, else its native one. */
static const char *name_of(const struct top_thread *t)
{
  return t->name ? t->name : t->task.st.comm;
}

static void line_end(struct buf *b, size_t at, int width)
{
  if (width > 0 && b->len - at > (size_t)width) b->len = at + (size_t)width;
  buf_addc(b, '\n');
}

static void hot(const struct top_jvm *j, struct buf *b, int esc)
{
  size_t stacks = (size_t)j->stacks;

  for (size_t i = 0; i < j->n && i < stacks && j->td; i++) {
    const struct top_thread *t = &j->t[i];
    const struct tdump_thread *k = tdump_find(j->td, t->task.tid);
    struct buf f = {0};

    buf_adds(b, "\n\"");
    top_add_text(b, name_of(t), esc);
    buf_printf(b, "\" tid %d  cpu %.1f%%  %s\n", t->task.tid,
               t->cpu < 0 ? 0 : t->cpu, t->state ? t->state : "-");
    if (!k || !tdump_frames(j->td, k, STACK_FRAMES, &f)) {
      buf_adds(b, "    (no Java stack)\n");
      continue;
    }
    for (char *p = f.p, *nl; *p; p = nl + 1) {
      nl = strchr(p, '\n');
      buf_adds(b, "    at ");
      if (esc)
        term_escape(b, p, (size_t)(nl - p), 0);
      else
        buf_add(b, p, (size_t)(nl - p));
      buf_addc(b, '\n');
    }
    buf_free(&f);
  }
}

void top_jvm_text(const struct top_jvm *j, struct buf *b, size_t rows,
                  int width, int esc)
{
  size_t at;

  top_node_text(&j->one, b, 0, width, esc, -1);
  if (j->why[0]) {
    at = b->len;
    buf_printf(b, "(%s)", j->why);
    line_end(b, at, width);
  }
  at = b->len;
  buf_printf(b, "%7s %6s %6s %6s %-14s %-4s %s", "TID", "%CPU", "%USR", "%SYS",
             "STATE", "KIND", "NAME");
  line_end(b, at, width);
  for (size_t i = 0; i < j->n && (!rows || i < rows); i++) {
    const struct top_thread *t = &j->t[i];
    struct buf s = {0};

    at = b->len;
    buf_printf(b, "%7d ", t->task.tid);
    cpu_col(b, t->cpu);
    buf_addc(b, ' ');
    cpu_col(b, t->usr);
    buf_addc(b, ' ');
    cpu_col(b, t->sys);
    top_add_text(&s, t->state ? t->state : "-", esc);
    buf_printf(b, " %-14.14s %-4s ", s.p, t->kind);
    top_add_text(b, name_of(t), esc);
    line_end(b, at, width);
    buf_free(&s);
  }
  if (!rows) hot(j, b, esc);
}

static void thread_json(const struct top_jvm *j, const struct top_thread *t,
                        size_t rank, struct buf *b)
{
  const struct tdump_thread *k =
      j->td && rank < (size_t)j->stacks ? tdump_find(j->td, t->task.tid) : NULL;
  struct buf f = {0};

  buf_printf(b, "{\"tid\": %d, ", t->task.tid);
  top_json_str(b, "name", name_of(t));
  top_json_str(b, "native_name", t->task.st.comm);
  top_json_str(b, "kind", t->kind);
  top_json_str(b, "state", t->state ? t->state : "");
  buf_printf(b, "\"java\": %s, ", t->java ? "true" : "false");
  top_json_num(b, "cpu_pct", t->cpu, 0);
  top_json_num(b, "user_pct", t->usr, 0);
  top_json_num(b, "sys_pct", t->sys, 1);
  if (k) {
    tdump_frames(j->td, k, STACK_FRAMES, &f);
    buf_adds(b, ", \"stack\": [");
    for (char *p = f.p, *nl; p && *p; p = nl + 1) {
      nl = strchr(p, '\n');
      buf_adds(b, p == f.p ? "" : ", ");
      json_buf(b, p, (size_t)(nl - p));
    }
    buf_addc(b, ']');
  }
  buf_addc(b, '}');
  buf_free(&f);
}

void top_jvm_json(const struct top_jvm *j, struct buf *b)
{
  struct buf one = {0};

  top_node_json(&j->one, "jvm", &one);
  /* the node object without its closing "}\n", then the threads */
  if (one.len >= 2) one.len -= 2;
  buf_add(b, one.p, one.len);
  buf_printf(b, ", \"pid\": %d, \"dumps\": %d, ", j->pid, j->dumps);
  top_json_str(b, "note", j->why);
  buf_adds(b, "\"threads\": [");
  for (size_t i = 0; i < j->n; i++) {
    buf_adds(b, i ? ", " : "");
    thread_json(j, &j->t[i], i, b);
  }
  buf_adds(b, "]}\n");
  buf_free(&one);
}
