/* proc_window.c - the CPU of a process's threads over a window (proc.h):
 * what profile's CPU accounting reads at a recording's start and end.
 */
#include "core/jvmtool.h"

int proc_window_start(struct proc_window *w, int procfd, int wait)
{
  struct proc_stat ps;
  int rc;

  memset(w, 0, sizeof(*w));
  w->procfd = procfd;
  if ((rc = proc_stat_at(procfd, 0, &ps))) return rc;
  if ((rc = proc_tasks_at(procfd, &w->tasks, &w->n, NULL))) return rc;
  w->ticks = ps.utime + ps.stime;
  w->start_ms = now_ms();
  w->start_epoch_ns = (int64_t)wall_ms() * 1000000;
  if (wait) {
    w->wait = xzalloc((w->n ? w->n : 1) * sizeof(*w->wait));
    for (size_t i = 0; i < w->n; i++)
      if (proc_task_sched_at(procfd, w->tasks[i].tid, w->wait[i]))
        w->wait[i][0] = w->wait[i][1] = UINT64_MAX;
  }
  w->on = 1;
  return 0;
}

/* The runqueue wait of cur (a task now) since the window's start, and
 * (*run) its time on a core then, -1 when unknown or it was not there. */
static int64_t waited(const struct proc_window *w, const struct proc_task *cur,
                      int64_t *run)
{
  struct proc_task key = {.tid = cur->tid};
  const struct proc_task *was;
  uint64_t now[2], then[2] = {UINT64_MAX, 0};

  *run = -1;
  was = bsearch(&key, w->tasks, w->n, sizeof(*w->tasks), proc_task_cmp);
  if (!w->wait || proc_task_sched_at(w->procfd, cur->tid, now)) return 0;
  if (was && was->st.starttime == cur->st.starttime)
    memcpy(then, w->wait[was - w->tasks], sizeof(then));
  if (then[0] != UINT64_MAX)
    *run = now[0] > then[0] ? (int64_t)(now[0] - then[0]) : 0;
  if (then[1] == UINT64_MAX) then[1] = 0;
  return now[1] > then[1] ? (int64_t)(now[1] - then[1]) : 0;
}

static int64_t ticks_ns(uint64_t t)
{
  return (int64_t)(t * (1000000000ULL / (uint64_t)proc_hz()));
}

int proc_window_end(struct proc_window *w, struct proc_cpu **out, size_t *n,
                    int64_t *process_ns, int64_t *span_ns)
{
  struct proc_task *cur = NULL;
  struct proc_stat ps;
  uint64_t(*d)[2];
  size_t nc = 0;
  int rc;

  *out = NULL;
  *n = 0;
  *process_ns = 0;
  *span_ns = 0;
  if (!w->on) return -EINVAL;
  *span_ns = (int64_t)(now_ms() - w->start_ms) * 1000000;
  if ((rc = proc_tasks_at(w->procfd, &cur, &nc, NULL)) ||
      (rc = proc_stat_at(w->procfd, 0, &ps))) {
    free(cur);
    proc_window_free(w);
    return rc;
  }
  d = xmalloc((nc ? nc : 1) * sizeof(*d));
  proc_tasks_delta(w->tasks, w->n, cur, nc, d);
  *out = xmalloc((nc ? nc : 1) * sizeof(**out));
  for (size_t i = 0; i < nc; i++) {
    struct proc_cpu *c = &(*out)[*n];
    struct proc_status st;

    struct proc_task key = {.tid = cur[i].tid};
    const struct proc_task *was =
        bsearch(&key, w->tasks, w->n, sizeof(*w->tasks), proc_task_cmp);

    c->whole = was && was->st.starttime == cur[i].st.starttime;
    c->wait_ns = waited(w, &cur[i], &c->run_ns);
    if (!d[i][0] && !d[i][1] && !c->wait_ns && !w->wait) continue;
    c->tid = cur[i].tid;
    c->nstid = proc_task_status_at(w->procfd, cur[i].tid, &st)
                   ? cur[i].tid
                   : proc_innermost(&st, cur[i].tid);
    memcpy(c->comm, cur[i].st.comm, sizeof(c->comm));
    c->ns = ticks_ns(d[i][0] + d[i][1]);
    (*n)++;
  }
  if (ps.utime + ps.stime > w->ticks)
    *process_ns = ticks_ns(ps.utime + ps.stime - w->ticks);
  free(d);
  free(cur);
  proc_window_free(w);
  return 0;
}

void proc_window_free(struct proc_window *w)
{
  free(w->wait);
  w->wait = NULL;
  free(w->tasks);
  w->tasks = NULL;
  w->n = 0;
  w->on = 0;
}
