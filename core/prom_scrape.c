/* prom_scrape.c - the JVMs of one exposition (prom.h's struct prom_scrape)
 *
 * dump --prometheus and serve list, open and render JVMs the same way:
 * each row is opened as the walk saw it (core/jvm's jvm_open_listed), its
 * PerfData read within its budget (jvm_read: the PerfData ceilings and
 * VM_BUDGET_MS), rendered and closed before the next, so a hostile file
 * costs its own budget only; the whole scrape has
 * PROM_SCRAPE_BUDGET_MS. A JVM still starting (its data not yet marked
 * accessible) is left out without a word.
 */
#include "core/jvmtool.h"
#include "core/jvm.h"
#include "core/perfdata.h"
#include "core/prom.h"
#include "core/vm.h"

static void begin(struct prom_scrape *s, size_t n, int flags)
{
  s->n = n;
  s->flags = flags;
  jvm_init(&s->j);
  s->start = now_ms();
  prom_init(&s->p, flags & (PROM_RAW | PROM_SIMPLECLIENT));
}

void prom_scrape_begin(struct prom_scrape *s, struct vm *v, size_t n, int flags)
{
  memset(s, 0, sizeof(*s));
  s->v = v;
  begin(s, n, flags);
}

void prom_scrape_begin_jvms(struct prom_scrape *s, struct jvm *jv, size_t n,
                            int flags)
{
  memset(s, 0, sizeof(*s));
  s->jv = jv;
  begin(s, n, flags);
}

/* With PROM_SCRAPE_SELF, each JVM's own families: whether it failed, and
 * how long it took, with the labels of its other series (j->pd NULL: it
 * was not read, main_class ""). */
static void self(struct prom_scrape *s, const struct jvm *j, int failed,
                 uint64_t t0)
{
  struct buf lb = {0};
  const char *labels;

  if (!(s->flags & PROM_SCRAPE_SELF)) return;
  prom_jvm_label_text(j, &lb);
  labels = lb.p ? lb.p : "";
  if (failed) {
    char *text =
        xasprintf("pid %d (%s): skipped: %s", j->pid, j->vm.path, s->why);

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

/* What the step read of j, let go as soon as it is rendered (its file
 * names stay for *which until the next step); a PerfData its open read
 * (a JVM the caller opened) too. */
static int done(struct jvm *j, int rc)
{
  if (j->pd) {
    pd_close(j->pd);
    free(j->pd);
    j->pd = NULL;
  }
  if (j->procfd >= 0) close(j->procfd);
  j->procfd = -1;
  return rc;
}

int prom_scrape_step(struct prom_scrape *s, const struct vm **which)
{
  struct jvm *j = &s->j; /* a row's, opened here */
  uint64_t t0 = now_ms();
  /* read here when its open did not (a row's: always), on the stack: a
   * heap block a JVM costs musl's allocator a page mapped and unmapped */
  struct perfdata pd = {.fd = -1};
  int rc;

  *s->why = 0;
  jvm_close(s->jv && s->i ? &s->jv[s->i - 1] : &s->j); /* the last step's */
  if (s->i >= s->n) return 0;
  if (s->jv) {
    j = &s->jv[s->i++];
  } else {
    jvm_open_listed(j, &s->v[s->i++]);
  }
  *which = &j->vm;
  if (t0 - s->start >= PROM_SCRAPE_BUDGET_MS) {
    snprintf(s->why, sizeof(s->why), "the scrape's %d ms were spent",
             PROM_SCRAPE_BUDGET_MS);
    rc = -ETIME;
  } else if (!j->pd && (rc = vm_budget_end(&pd, t0, jvm_perfdata(j, &pd)))) {
    snprintf(s->why, sizeof(s->why), "%s", pd.err); /* core/vm's reasons */
  } else {
    int ours = !j->pd;

    if (ours) j->pd = &pd;
    rc = pd_accessible(j->pd) ? 1 : -EAGAIN;
    if (rc > 0) {
      prom_add_jvm(&s->p, j, NULL);
      self(s, j, 0, t0);
    }
    if (ours) {
      pd_close(&pd);
      j->pd = NULL;
    }
    return done(j, rc);
  }
  self(s, j, 1, t0);
  return done(j, rc);
}

void prom_scrape_end(struct prom_scrape *s, struct buf *out)
{
  jvm_close(&s->j);
  prom_finish(&s->p, out);
  vm_list_free(s->v, s->v ? s->n : 0);
  for (size_t i = 0; s->jv && i < s->n; i++) jvm_close(&s->jv[i]);
  free(s->jv);
  s->v = NULL;
  s->jv = NULL;
  s->n = s->i = 0;
}
