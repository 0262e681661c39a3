/* heap_graph.c - jvmtool heap's views of the object graph: --retained,
 * --path, --folded and --svg (cmd/heap.h)
 *
 * Retained sizes follow VisualVM's and Eclipse MAT's dominator tree (a
 * super-root over every GC root; unreachable objects left out and
 * counted). A class's retained size counts each instance not dominated
 * by another instance of that class, so nothing counts twice.
 */
#include "core/jvmtool.h"
#include "cmd/heap.h"

static const struct hp_graph *sort_g;
static const uint64_t *sort_v;

static int by_value(const void *a, const void *b)
{
  uint64_t x = sort_v[*(const uint32_t *)a], y = sort_v[*(const uint32_t *)b];

  if (x != y) return x > y ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The top n objects by retained size (a bounded insertion: n is small
 * next to the objects). */
static uint32_t top_objects(const struct hp_graph *g, uint32_t n,
                            uint32_t *best)
{
  uint32_t have = 0;

  for (uint32_t i = 1; i < g->n; i++) {
    uint32_t at;

    if (g->idom[i] == HP_NONE) continue;
    if (have == n && g->retained[i] <= g->retained[best[n - 1]]) continue;
    at = have < n ? have++ : n - 1;
    while (at && g->retained[best[at - 1]] < g->retained[i]) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = i;
  }
  return have;
}

static void class_of(struct buf *b, const struct hprof *h,
                     const struct hp_graph *g, uint32_t i, int json)
{
  if (g->kind[i] == 0x20) {
    buf_adds(b, "class ");
    heap_put_name(b, h, g->cls[i], json);
  } else if (g->cls[i] == HP_NONE) {
    buf_adds(b, "<unknown class>");
  } else {
    heap_put_name(b, h, g->cls[i], json);
  }
}

void heap_retained(const struct hprof *h, const struct hp_graph *g, int top,
                   int json)
{
  uint64_t *ret = xmalloc(((size_t)h->ncls + 1) * sizeof(*ret));
  uint32_t *row = xmalloc(((size_t)h->ncls + 1) * sizeof(*row)), n = 0;
  uint32_t *best = xmalloc((size_t)top * sizeof(*best)), nbest;
  struct buf b = {0};

  hprof_class_retained(g, h, ret);
  for (uint32_t c = 0; c < h->ncls; c++)
    if (h->cls[c].count) row[n++] = c;
  sort_g = g;
  sort_v = ret;
  qsort(row, n, sizeof(*row), by_value);
  nbest = top_objects(g, (uint32_t)top, best);
  if (json)
    buf_adds(&b, "{\"classes\": [");
  else
    buf_adds(&b,
             " num     #instances         #bytes      #retained  class name\n"
             "-------------------------------------------------------------\n");
  for (uint32_t i = 0; i < n; i++) {
    const struct hp_class *k = &h->cls[row[i]];

    if (json) {
      buf_adds(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
      heap_put_name(&b, h, row[i], 1);
      buf_printf(&b,
                 ", \"instances\": %" PRId64 ", \"bytes\": %" PRId64
                 ", \"retained\": %" PRIu64 "}",
                 k->count, k->bytes, ret[row[i]]);
    } else {
      buf_printf(&b,
                 "%4" PRIu32 ": %13" PRId64 " %14" PRId64 " %14" PRIu64 "  ",
                 i + 1, k->count, k->bytes, ret[row[i]]);
      heap_put_name(&b, h, row[i], 0);
      buf_addc(&b, '\n');
    }
    if (b.len > 65536) heap_flush(&b);
  }
  if (json)
    buf_adds(&b, "\n], \"objects\": [");
  else
    buf_adds(&b, "\n num                 object       #shallow      #retained  "
                 "class name\n"
                 "-------------------------------------------------------------"
                 "--------\n");
  for (uint32_t i = 0; i < nbest; i++) {
    uint32_t o = best[i];

    if (json) {
      buf_printf(&b, "%s{\"id\": \"0x%" PRIx64 "\", \"class\": ",
                 i ? ",\n  " : "\n  ", g->id[o]);
      if (g->kind[o] == 0x20 || g->cls[o] == HP_NONE) {
        struct buf t = {0};

        class_of(&t, h, g, o, 1);
        json_buf(&b, t.p, t.len);
        buf_free(&t);
      } else {
        heap_put_name(&b, h, g->cls[o], 1);
      }
      buf_printf(&b, ", \"shallow\": %" PRIu64 ", \"retained\": %" PRIu64 "}",
                 g->shallow[o], g->retained[o]);
    } else {
      buf_printf(&b,
                 "%4" PRIu32 ":  %#20" PRIx64 " %14" PRIu64 " %14" PRIu64 "  ",
                 i + 1, g->id[o], g->shallow[o], g->retained[o]);
      class_of(&b, h, g, o, 0);
      buf_addc(&b, '\n');
    }
  }
  if (json)
    buf_printf(&b,
               "\n], \"unreachable\": {\"objects\": %" PRIu64
               ", \"bytes\": %" PRIu64 "}}\n",
               g->unreachable, g->unreachable_bytes);
  heap_flush(&b);
  buf_free(&b);
  if (g->unreachable)
    info_msg("%" PRIu64 " unreachable objects (%" PRIu64
             " bytes) left out: no GC root reaches them",
             g->unreachable, g->unreachable_bytes);
  free(ret);
  free(row);
  free(best);
}
