/* fuzz_hprof.c - the heap dump reader, histogram, graph and dominators
 *
 * The input is a dump (plain, or gzip when it starts so), read through a
 * memfd as jvmtool heap reads a file: the histogram pass with the graph
 * built in it, the graph built by a pass of its own, dominators, retained
 * sizes per class and a path. Invariants: a failure says why; both ways
 * give the same graph; the super-root retains exactly the reachable
 * objects' shallow bytes; every immediate dominator is reachable; the
 * inflater alone never gives more than its cap.
 */
#include "core/jvmtool.h"
#include "core/hprof.h"
#include "core/hprof_graph.h"
#include "core/hprof_size.h"
#include "test/fuzz/check.h"
#include <sys/mman.h>

/* The graph built in the histogram's pass equals the one built after it. */
static void same_graph(const struct hp_graph *a, const struct hp_graph *b)
{
  INVARIANT(a->n == b->n && a->nedges == b->nedges && a->nroots == b->nroots);
  INVARIANT(a->dangling == b->dangling && a->dup_ids == b->dup_ids &&
            a->bad_fields == b->bad_fields);
  if (a->n != b->n || a->nedges != b->nedges || a->nroots != b->nroots) return;
  for (uint32_t i = 0; i < a->n; i++) {
    INVARIANT(hp_graph_id(a, i) == hp_graph_id(b, i));
    INVARIANT(a->cls[i] == b->cls[i] && a->kind[i] == b->kind[i] &&
              a->shallow[i] == b->shallow[i] && a->off[i] == b->off[i]);
  }
  INVARIANT(!a->nedges ||
            !memcmp(a->edge, b->edge, (size_t)a->nedges * sizeof(*a->edge)));
  for (uint32_t r = 0; r < a->nroots; r++)
    INVARIANT(a->roots[r].obj == b->roots[r].obj &&
              a->roots[r].kind == b->roots[r].kind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct hprof h = {0};
  struct hp_histo x = {0};
  struct hp_visit v;
  struct hp_graph g, g1;
  struct hp_gbuild *gb = NULL;
  struct hin in;
  unsigned char *out;
  size_t outn;
  const char *why = NULL;
  int fd = memfd_create("fuzz", 0), rc;

  if (!hin_gunzip(data, size, 1 << 20, &out, &outn, &why)) {
    INVARIANT(outn <= 1 << 20);
    free(out);
  }
  if (fd < 0) return 0;
  if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
    close(fd);
    return 0;
  }
  x.h = &h;
  h.compressed = 1;
  if ((rc = hin_open(&in, fd)) == 0) {
    gb = hprof_graph_start(&g1, &x, &v);
    rc = hprof_scan(&h, &in, &v);
    INVARIANT(!rc || h.why[0]);
  }
  hin_close(&in);
  hprof_histo_finish(&x);
  if (rc || !gb) {
    hprof_graph_abandon(gb);
  } else if (hprof_graph_finish(gb, fd)) {
    hprof_graph_free(&g1);
  } else {
    if (!hprof_graph_build(&g, &h, fd, NULL)) same_graph(&g1, &g);
    hprof_graph_free(&g);
    hprof_graph_free(&g1);
  }
  if (!rc && !hprof_graph_build(&g, &h, fd, NULL)) {
    uint64_t sum = 0, *ret = xmalloc(((size_t)h.ncls + 1) * sizeof(*ret));
    uint32_t *path, n;

    g.keep_edges = 1;
    hprof_dominators(&g);
    for (uint32_t i = 1; i < g.n; i++) {
      if (g.idom[i] == HP_NONE) continue;
      sum += hp_graph_shallow(&g, i);
      INVARIANT(!g.idom[i] || g.idom[g.idom[i]] != HP_NONE);
    }
    INVARIANT(sum == g.retained[0]);
    hprof_class_retained(&g, &h, ret);
    if (g.n > 1 && !hprof_shortest_path(&g, g.n - 1, &path, &n)) {
      INVARIANT(n >= 2 && path[0] == 0 && path[n - 1] == g.n - 1);
      free(path);
    }
    for (uint32_t r = 0; r < g.nroots && r < 4; r++) {
      char name[64];

      if (!hprof_thread_name(&h, &g, fd, g.roots[r].thread, name, sizeof(name)))
        INVARIANT(strlen(name) < sizeof(name));
    }
    free(ret);
    hprof_graph_free(&g);
  }
  hprof_free(&h);
  close(fd);
  return 0;
}
