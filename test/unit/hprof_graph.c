/* hprof_graph.c - unit tests of core/hprof_graph: immediate dominators
 * and retained sizes against the definition
 *
 * The oracle is the definition itself: d dominates w when no path from
 * the super-root reaches w once d is taken out (a walk per node, fine for
 * small graphs). Named graphs where a plausible wrong answer differs (the
 * DFS parent, the first predecessor, a tree that ignores the edges
 * outside the DFS tree), then random graphs of every shape.
 */
#include "core/jvmtool.h"
#include "core/hprof_graph.h"
#include "check.h"

enum { MAXN = 48 };

struct tg {
  uint32_t n; /* nodes 0..n-1, 0 the super-root */
  uint32_t nedge[MAXN], edge[MAXN][2 * MAXN];
};

static void add(struct tg *t, uint32_t from, uint32_t to)
{
  t->edge[from][t->nedge[from]++] = to;
}

/* t: n nodes and the edges e[0..ne). */
static void make(struct tg *t, uint32_t n, const uint32_t (*e)[2], size_t ne)
{
  memset(t, 0, sizeof(*t));
  t->n = n;
  for (size_t k = 0; k < ne; k++) add(t, e[k][0], e[k][1]);
}
#define MAKE(t, n, e) make(t, n, e, sizeof(e) / sizeof(e[0]))

/* The nodes reachable from 0 without passing through cut (HP_NONE:
 * none) into seen. */
static void reach(const struct tg *t, uint32_t cut, char *seen)
{
  uint32_t q[MAXN], nq = 0;

  memset(seen, 0, MAXN);
  if (cut == 0) return;
  seen[0] = 1;
  q[nq++] = 0;
  while (nq) {
    uint32_t v = q[--nq];

    for (uint32_t k = 0; k < t->nedge[v]; k++) {
      uint32_t w = t->edge[v][k];

      if (w != cut && !seen[w]) {
        seen[w] = 1;
        q[nq++] = w;
      }
    }
  }
}

/* idom[] and retained[] (shallow of node i: 8 * (i % 5 + 1)) by the
 * definition; idom HP_NONE for the unreachable and the super-root. */
static void oracle(const struct tg *t, uint32_t *idom, uint64_t *retained)
{
  char all[MAXN], without[MAXN][MAXN];
  uint64_t dom[MAXN] = {0}; /* dom[w]: bit d when d dominates w */

  reach(t, HP_NONE, all);
  for (uint32_t d = 0; d < t->n; d++) reach(t, d, without[d]);
  for (uint32_t w = 0; w < t->n; w++)
    for (uint32_t d = 0; d < t->n; d++)
      if (all[w] && (d == w || !without[d][w])) dom[w] |= 1ull << d;
  for (uint32_t w = 0; w < t->n; w++) {
    idom[w] = HP_NONE;
    retained[w] = 0;
    if (!all[w] || !w) continue;
    /* the strict dominator that all the others dominate */
    for (uint32_t d = 0; d < t->n; d++)
      if (d != w && dom[w] >> d & 1 && dom[d] == (dom[w] & ~(1ull << w)))
        idom[w] = d;
  }
  for (uint32_t v = 0; v < t->n; v++)
    for (uint32_t w = 1; w < t->n; w++)
      if (all[w] && dom[w] >> v & 1) retained[v] += 8 * (w % 5 + 1);
}

/* t as an hp_graph: the super-root's edges are its roots. */
static void to_graph(const struct tg *t, struct hp_graph *g, int keep)
{
  uint32_t e = 0;

  memset(g, 0, sizeof(*g));
  g->n = t->n;
  g->off = xmalloc((t->n + 1) * sizeof(*g->off));
  g->edge = xmalloc((2 * MAXN * MAXN + 1) * sizeof(*g->edge));
  g->shallow = xmalloc(t->n * sizeof(*g->shallow));
  g->kind = xmalloc(t->n);
  g->cls = xmalloc(t->n * sizeof(*g->cls));
  g->roots = xmalloc((t->nedge[0] + 1) * sizeof(*g->roots));
  for (uint32_t k = 0; k < t->nedge[0]; k++) {
    memset(&g->roots[k], 0, sizeof(g->roots[k]));
    g->roots[k].obj = t->edge[0][k];
    g->roots[k].kind = 0xFF;
  }
  g->nroots = t->nedge[0];
  for (uint32_t v = 0; v < t->n; v++) {
    g->off[v] = e;
    g->shallow[v] = v ? v % 5 + 1 : 0;
    g->kind[v] = v ? 0x21 : 0;
    g->cls[v] = v ? 0 : HP_NONE;
    for (uint32_t k = 0; v && k < t->nedge[v]; k++)
      g->edge[e++] = t->edge[v][k];
  }
  g->off[t->n] = e;
  g->nedges = e;
  g->keep_edges = keep;
}

/* 1 when hprof_dominators agrees with the oracle on t. */
static int agrees(const struct tg *t, int keep)
{
  struct hp_graph g;
  uint32_t idom[MAXN];
  uint64_t retained[MAXN];
  int ok = 1;

  oracle(t, idom, retained);
  to_graph(t, &g, keep);
  hprof_dominators(&g);
  for (uint32_t w = 1; w < t->n; w++) {
    uint32_t want = idom[w] == 0 ? 0 : idom[w];

    if (g.idom[w] != want || (want != HP_NONE && g.retained[w] != retained[w]))
      ok = 0;
  }
  if (g.retained[0] != retained[0]) ok = 0;
  if (keep && (!g.off || g.off[t->n] != g.nedges)) ok = 0;
  hprof_graph_free(&g);
  return ok;
}

static uint64_t rnd_state = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return (uint32_t)(rnd_state % n);
}

int main(void)
{
  struct tg t;
  struct hp_graph g;
  int bad = 0, bad_keep = 0;

  /* A diamond: 1 -> 2 -> 4, 1 -> 3 -> 4. The DFS parent of 4 is 2 (or
   * 3); its dominator is 1. */
  {
    static const uint32_t diamond[][2] = {
        {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}};

    MAKE(&t, 5, diamond);
  }
  to_graph(&t, &g, 0);
  hprof_dominators(&g);
  CHECK(g.idom[4] == 1 && g.idom[2] == 1 && g.idom[3] == 1,
        "hprof-graph-1.1 a diamond: the join's dominator is the fork, not "
        "its DFS parent");
  CHECK(g.retained[1] == 8 * (2 + 3 + 4 + 5) && g.retained[2] == 8 * 3 &&
            g.retained[4] == 8 * 5,
        "hprof-graph-1.2 a diamond: the fork retains all four, each side "
        "only itself");
  hprof_graph_free(&g);
  /* A cycle back to an ancestor: 1 -> 2 -> 3 -> 4 -> 2, and 1 -> 4. The
   * tree says idom(4) = 3; the edge 1 -> 4 makes it 1, and 2's too. */
  {
    static const uint32_t cycle[][2] = {{0, 1}, {1, 2}, {2, 3},
                                        {3, 4}, {4, 2}, {1, 4}};

    MAKE(&t, 5, cycle);
  }
  to_graph(&t, &g, 0);
  hprof_dominators(&g);
  CHECK(g.idom[4] == 1 && g.idom[2] == 1 && g.idom[3] == 2,
        "hprof-graph-1.3 a cycle back to an ancestor, entered twice: 1 "
        "dominates 2 and 4, 2 dominates 3");
  hprof_graph_free(&g);
  /* An irreducible loop: 2 <-> 3, entered from 1 at both; 4 under 3.
   * Iterating from the tree would keep 2 as 3's dominator. */
  {
    static const uint32_t irreducible[][2] = {{0, 1}, {1, 2}, {2, 3},
                                              {3, 2}, {1, 3}, {3, 4}};

    MAKE(&t, 5, irreducible);
  }
  to_graph(&t, &g, 0);
  hprof_dominators(&g);
  CHECK(g.idom[2] == 1 && g.idom[3] == 1 && g.idom[4] == 3,
        "hprof-graph-1.4 an irreducible loop: both entries dominated by the "
        "fork only");
  hprof_graph_free(&g);
  /* A path that leaves and comes back deep: the later the cross edge in
   * the DFS, the longer the walk up (path compression). */
  {
    static const uint32_t chain[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5},
                                        {5, 6}, {6, 7}, {1, 8}, {8, 7}, {7, 3}};

    MAKE(&t, 9, chain);
  }
  CHECK(agrees(&t, 0),
        "hprof-graph-1.5 a chain with a way round it and an edge back "
        "into it: as the definition says");
  /* Two roots on one object, an unreachable node, a self loop, the same
   * edge twice. */
  {
    static const uint32_t odd[][2] = {{0, 1}, {0, 1}, {0, 2}, {1, 1},
                                      {1, 3}, {1, 3}, {2, 3}, {5, 4}};

    MAKE(&t, 6, odd);
  }
  CHECK(agrees(&t, 0) && agrees(&t, 1),
        "hprof-graph-1.6 roots twice, a self loop, an edge twice, two "
        "unreachable: as the definition says");
  /* Random graphs: mostly trees with a few more edges (as heaps are),
   * and dense ones. */
  for (int r = 0; r < 3000; r++) {
    uint32_t extra;

    memset(&t, 0, sizeof(t));
    t.n = 2 + rnd(MAXN - 2);
    for (uint32_t k = 0, m = 1 + rnd(3); k < m; k++)
      add(&t, 0, 1 + rnd(t.n - 1));
    for (uint32_t v = 2; v < t.n; v++)
      if (rnd(8)) add(&t, rnd(v), v); /* a tree, some left out */
    extra = r % 3 == 0 ? rnd(t.n * 3) : rnd(4);
    for (uint32_t k = 0; k < extra; k++) {
      uint32_t from = 1 + rnd(t.n - 1);

      if (t.nedge[from] < 2 * MAXN) add(&t, from, 1 + rnd(t.n - 1));
    }
    bad += !agrees(&t, 0);
    bad_keep += !agrees(&t, 1);
  }
  CHECK(!bad,
        "hprof-graph-1.7 3000 random graphs: dominators and retained "
        "sizes as the definition says (%d differ)",
        bad);
  CHECK(!bad_keep,
        "hprof-graph-1.8 the same with the edges kept for --path (%d differ)",
        bad_keep);
  return check_failures != 0;
}
