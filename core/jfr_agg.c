/* jfr_agg.c - a chunk's events summed by what names their stack
 *
 * Events of a chunk that fold to the same stack are summed first (a table
 * keyed by the stack, thread and class keys, the selected row and which of
 * them the event has), so each distinct stack is named and handed to the
 * fold once per chunk (core/jfr_events.c). Open addressing, grown at half
 * full: linear in the events.
 */
#include "core/jvmtool.h"
#include "core/jfr_int.h"

static uint64_t agg_hash(const struct jfr_agg *a)
{
  uint64_t h = a->stack * 0x9e3779b97f4a7c15ULL;

  h = (h ^ (h >> 29) ^ a->thread) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 31) ^ a->cls) * 0x94d049bb133111ebULL;
  return h ^ (h >> 32) ^ (uint64_t)a->sel ^ (uint64_t)a->has << 40;
}

void jfr_agg_add(struct jfr_aggs *t, const struct jfr_agg *a)
{
  size_t i;

  if (t->n * 2 >= t->cap) {
    struct jfr_agg *old = t->e;
    size_t n = t->cap;

    t->cap = n ? n * 2 : 1024;
    t->e = xmalloc(t->cap * sizeof(*t->e));
    for (i = 0; i < t->cap; i++) t->e[i].sel = -1;
    t->n = 0;
    for (i = 0; i < n; i++)
      if (old[i].sel >= 0) jfr_agg_add(t, &old[i]);
    free(old);
  }
  for (i = agg_hash(a) & (t->cap - 1); t->e[i].sel >= 0;
       i = (i + 1) & (t->cap - 1)) {
    struct jfr_agg *e = &t->e[i];

    if (e->stack == a->stack && e->thread == a->thread && e->cls == a->cls &&
        e->sel == a->sel && e->has == a->has) {
      if (__builtin_add_overflow(e->value, a->value, &e->value))
        e->value = a->value > 0 ? INT64_MAX : INT64_MIN;
      e->count += a->count;
      return;
    }
  }
  t->e[i] = *a;
  t->n++;
}
