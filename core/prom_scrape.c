/* prom_scrape.c - the JVMs of one exposition (prom.h's struct prom_scrape)
 *
 * dump --prometheus and serve list, open and render JVMs the same way:
 * each is opened within its budget (core/vm's vm_open_budget: the
 * PerfData ceilings and VM_BUDGET_MS), rendered and closed before the
 * next, so a hostile file costs its own budget only; the whole scrape has
 * PROM_SCRAPE_BUDGET_MS. A JVM still starting (its data not yet marked
 * accessible) is left out without a word.
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "core/prom.h"
#include "core/vm.h"

void prom_scrape_begin(struct prom_scrape *s, struct vm *v, size_t n, int flags)
{
  memset(s, 0, sizeof(*s));
  s->v = v;
  s->n = n;
  s->flags = flags;
  s->procfd = -1;
  s->start = now_ms();
  prom_init(&s->p, flags & (PROM_RAW | PROM_SIMPLECLIENT));
}

static void close_procfd(struct prom_scrape *s)
{
  if (s->procfd >= 0) close(s->procfd);
  s->procfd = -1;
}

/* With PROM_SCRAPE_SELF, each JVM's own families: whether it failed, and
 * how long it took, with the labels of its other series (pd NULL: it was
 * not read, main_class ""). */
static void self(struct prom_scrape *s, const struct vm *v,
                 const struct perfdata *pd, int failed, uint64_t t0)
{
  struct prom_jvm j = {v->pid, s->procfd, pd};
  struct buf lb = {0};
  const char *labels;

  if (!(s->flags & PROM_SCRAPE_SELF)) return;
  prom_jvm_label_text(&j, &lb);
  labels = lb.p ? lb.p : "";
  if (failed) {
    char *text = xasprintf("pid %d (%s): skipped: %s", v->pid, v->path, s->why);

    prom_comment(&s->p, text);
    free(text);
  }
  prom_sample(&s->p, "jvmtool_scrape_error", "gauge",
              "1 when the JVM's PerfData could not be read within budget", "",
              labels, "", failed);
  prom_sample(&s->p, "jvmtool_scrape_duration_seconds", "gauge",
              "Time spent reading and rendering the JVM", "", labels, "",
              (double)(now_ms() - t0) / 1000);
  buf_free(&lb);
}

int prom_scrape_step(struct prom_scrape *s, const struct vm **which)
{
  const struct vm *v;
  struct perfdata pd;
  struct prom_jvm j = {0, -1, &pd};
  uint64_t t0 = now_ms();
  int rc;

  *s->why = 0;
  if (s->i >= s->n) return 0;
  *which = v = &s->v[s->i++];
  j.pid = v->pid;
  j.procfd = s->procfd = vm_proc_open(v);
  if (t0 - s->start >= PROM_SCRAPE_BUDGET_MS) {
    snprintf(s->why, sizeof(s->why), "the scrape's %d ms were spent",
             PROM_SCRAPE_BUDGET_MS);
    rc = -ETIME;
  } else if ((rc = vm_open_budget(v, &pd))) {
    snprintf(s->why, sizeof(s->why), "%s", pd.err);
  } else if (!pd_accessible(&pd)) {
    pd_close(&pd);
    close_procfd(s);
    return -EAGAIN;
  } else {
    prom_add_jvm(&s->p, &j, NULL);
    self(s, v, &pd, 0, t0);
    pd_close(&pd);
    close_procfd(s);
    return 1;
  }
  self(s, v, NULL, rc != 0, t0);
  close_procfd(s);
  return rc ? rc : 1;
}

void prom_scrape_end(struct prom_scrape *s, struct buf *out)
{
  prom_finish(&s->p, out);
  vm_list_free(s->v, s->n);
  s->v = NULL;
  s->n = s->i = 0;
}
