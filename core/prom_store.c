/* prom_store.c - an exposition being built (core/prom.h): families with
 * one TYPE each, series kept once, comments, written grouped and sorted */
#include "core/jvmtool.h"
#include "core/out.h"
#include "core/prom.h"
#include "core/strset.h"
#include <math.h>

/* A family: its samples are lines of p->lines, in arrival order. */
struct prom_family {
  char *name;
  const char *type; /* counter, gauge, summary */
  char *help;       /* escaped */
  size_t *off;      /* where each sample line starts in p->lines */
  size_t n, cap;
};

/* The family called name, made when new; NULL when it exists with
 * another type (the sample is dropped: one TYPE per family). */
static struct prom_family *family(struct prom *p, const char *name,
                                  const char *type, const char *help)
{
  size_t used = p->names.used;
  struct strset_entry *e = strset_intern(&p->name_bytes, &p->names, name,
                                         strlen(name), 0, (int64_t)p->nfam);
  struct prom_family *f;
  struct buf h = {0};

  if (p->names.used != used) {
    if (p->nfam == p->capfam) {
      p->capfam = p->capfam ? 2 * p->capfam : 64;
      p->fam = xrealloc(p->fam, p->capfam * sizeof(*p->fam));
    }
    f = &p->fam[p->nfam++];
    memset(f, 0, sizeof(*f));
    f->name = xstrdup(name);
    f->type = type;
    prom_help_buf(&h, help, strlen(help));
    f->help = h.p ? h.p : xstrdup("");
  }
  f = &p->fam[e->n];
  return strcmp(f->type, type) ? NULL : f;
}

/* One sample line; a series already there (same name and labels) or a
 * family of another type is dropped and counted as a collision. */
void prom_sample(struct prom *p, const char *fam, const char *type,
                 const char *help, const char *suffix, const char *labels,
                 const char *extra, double v)
{
  struct prom_family *f = family(p, fam, type, help);
  size_t start = p->lines.len, used = p->series.used;

  if (!f) {
    p->drops.collision++;
    return;
  }
  buf_printf(&p->lines, "%s%s{%s%s}", fam, suffix, labels, extra);
  strset_intern(&p->lines, &p->series, p->lines.p + start, p->lines.len - start,
                0, 0);
  if (p->series.used == used) {
    p->lines.len = start;
    p->lines.p[start] = 0;
    p->drops.collision++;
    return;
  }
  buf_addc(&p->lines, ' ');
  out_num(&p->lines, v);
  buf_addc(&p->lines, '\n');
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 16;
    f->off = xrealloc(f->off, f->cap * sizeof(*f->off));
  }
  f->off[f->n++] = start;
}

static int by_name(const void *a, const void *b)
{
  const struct prom_family *const *x = a, *const *y = b;

  return strcmp((*x)->name, (*y)->name);
}

void prom_init(struct prom *p, int flags)
{
  memset(p, 0, sizeof(*p));
  p->flags = flags;
}

void prom_comment(struct prom *p, const char *text)
{
  buf_adds(&p->comments, "# ");
  prom_help_buf(&p->comments, text, strlen(text));
  buf_addc(&p->comments, '\n');
}

void prom_finish(struct prom *p, struct buf *b)
{
  struct prom_family **order = xzalloc((p->nfam + 1) * sizeof(*order));

  if (p->comments.len) buf_add(b, p->comments.p, p->comments.len);
  for (size_t i = 0; i < p->nfam; i++) order[i] = &p->fam[i];
  if (p->nfam) qsort(order, p->nfam, sizeof(*order), by_name);
  for (size_t i = 0; i < p->nfam; i++) {
    struct prom_family *f = order[i];

    if (!f->n) continue;
    buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
               f->type);
    for (size_t k = 0; k < f->n; k++) {
      const char *s = p->lines.p + f->off[k];

      buf_add(b, s, (size_t)(strchr(s, '\n') + 1 - s));
    }
  }
  for (size_t i = 0; i < p->nfam; i++) {
    free(p->fam[i].name);
    free(p->fam[i].help);
    free(p->fam[i].off);
  }
  free(order);
  free(p->fam);
  buf_free(&p->lines);
  buf_free(&p->name_bytes);
  buf_free(&p->comments);
  strset_free(&p->series);
  strset_free(&p->names);
  memset(p, 0, sizeof(*p));
}
