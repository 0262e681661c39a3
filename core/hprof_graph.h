/* hprof_graph.h - a dump's object graph, dominators and retained sizes
 *
 * Objects are dense indexes 1..n (0 is a super-root whose edges are the
 * GC roots); edges are flat arrays (CSR): an object's references are
 * edge[off[i]..off[i+1]). Memory is per object and per reference read,
 * never per byte of the dump. Dominators are Semi-NCA (Georgiadis): the
 * semi-dominators of Lengauer-Tarjan (eval with path compression, written
 * with an explicit stack) and immediate dominators from the nearest
 * common ancestor walk; no recursion anywhere, so no file can choose the
 * stack's depth.
 */
#ifndef HPROF_GRAPH_H
#define HPROF_GRAPH_H

#include "core/hprof.h"

enum { HP_DEAD = 0xFF };

struct hp_root {
  uint32_t obj; /* index */
  uint8_t kind; /* the sub-record tag: 0xFF, 1..8 */
  uint32_t thread, frame;
};

struct hp_graph {
  uint32_t n; /* indexes 0..n-1; 0: the super-root */
  /* index -> object id: base + (id32 << shift) when every id fits so
   * (HotSpot's are aligned addresses in one heap), else id64 */
  uint32_t *id32;
  uint64_t *id64, base;
  int shift;
  uint32_t *cls;     /* index -> class index; class objects: their class's */
  uint8_t *kind;     /* index -> 0x20 class, 0x21 instance, 0x22, 0x23; HP_DEAD:
                  * an id's second object (no references, unreachable,
                  * not counted) */
  uint32_t *shallow; /* index -> bytes as the JVM counts them, / 8 */
  uint32_t *off;     /* n + 1; NULL once hprof_dominators freed them */
  uint32_t *edge;
  uint64_t nedges, capedges;
  int keep_edges; /* hprof_dominators keeps off/edge (for paths) */
  struct hp_root *roots;
  uint32_t nroots, caproots;
  /* after hprof_dominators */
  uint32_t *idom;     /* index -> immediate dominator, HP_NONE unreachable */
  uint64_t *retained; /* index -> retained bytes */
  uint64_t reachable, unreachable, unreachable_bytes;
  /* what the file claimed and could not have */
  uint64_t dangling;   /* references to ids no record has */
  uint64_t dup_ids;    /* a second object with an id already seen */
  uint64_t bad_fields; /* instances whose field bytes differ from their class */
};

/* Object index i's id (0 for the super-root) and shallow bytes. */
static HP_INLINE uint64_t hp_graph_id(const struct hp_graph *g, uint32_t i)
{
  if (!i) return 0;
  return g->id64 ? g->id64[i] : g->base + ((uint64_t)g->id32[i] << g->shift);
}
static HP_INLINE uint64_t hp_graph_shallow(const struct hp_graph *g, uint32_t i)
{
  return (uint64_t)g->shallow[i] << 3;
}
/* v's successors: the roots (rootobj: each root's object) for the
 * super-root, else its references (g->off kept). */
static HP_INLINE const uint32_t *hp_graph_succ(const struct hp_graph *g,
                                               const uint32_t *rootobj,
                                               uint32_t v, uint64_t *n)
{
  if (!v) {
    *n = g->nroots;
    return rootobj;
  }
  *n = g->off[v + 1] - g->off[v];
  return g->edge + g->off[v];
}
/* The index of the object of id, or HP_NONE (a walk over every index:
 * for a lookup or two after the build). */
uint32_t hprof_graph_index(const struct hp_graph *g, uint64_t id);

/* Build g from the dump behind fd in one pass (hprof_scan with h as the
 * histogram left it: its counts size the tables): objects get indexes in
 * file order, their references and the roots are kept as ids and become
 * indexes once every object has one. histo is not used (may be NULL).
 * fd is read from offset 0. 0, or what hprof_scan returned (h->why). */
struct hp_histo;
int hprof_graph_build(struct hp_graph *g, struct hprof *h, int fd,
                      struct hp_histo *histo);
/* The graph built in the histogram's own pass: g and the histogram x
 * (x->h as hprof_scan will fill it) take their objects from the one
 * visitor v that hprof_graph_start fills. After the scan and
 * hprof_histo_finish, hprof_graph_finish completes g: 0, or an enum
 * hp_err with h->why. A dump whose order does not allow one pass (an
 * object before its class's dump or a super's) is read once more there
 * (hprof_graph_build, from fd). hprof_graph_abandon frees what a failed
 * scan left (g too). */
struct hp_gbuild;
struct hp_gbuild *hprof_graph_start(struct hp_graph *g, struct hp_histo *x,
                                    struct hp_visit *v);
int hprof_graph_finish(struct hp_gbuild *gb, int fd);
void hprof_graph_abandon(struct hp_gbuild *gb);
/* Immediate dominators from the super-root and retained sizes; the
 * references (off, edge) are freed unless g->keep_edges. */
void hprof_dominators(struct hp_graph *g);
/* The dominator tree's children lists, from g->idom: object v's children
 * are (*child)[(*coff)[v] .. (*coff)[v + 1]), in index order. Both are
 * malloc'd (coff n + 2 entries, child n): the caller frees them. */
void hprof_dom_children(const struct hp_graph *g, uint32_t **coff,
                        uint32_t **child);
/* Retained bytes per class: the instances not dominated by another of
 * their class (so nothing is counted twice). out: h->ncls entries. */
void hprof_class_retained(const struct hp_graph *g, const struct hprof *h,
                          uint64_t *out);
/* Shortest path (in references) from the super-root to obj: the indexes
 * root..obj into a malloc'd *path, *n of them (with the super-root
 * first); 0, or -ENOENT when obj is unreachable. */
int hprof_shortest_path(const struct hp_graph *g, uint32_t obj, uint32_t **path,
                        uint32_t *n);
void hprof_graph_free(struct hp_graph *g);

/* How object ids[k] refers to ids[k + 1]: a field (its declaring class
 * and name: offsets in h->text), an array index, a static field, the
 * class's super or loader. */
struct hp_hop {
  uint32_t cls;     /* the class that declares the field; HP_NONE */
  uint32_t name;    /* the field's name in h->text, or HP_NONE */
  int64_t index;    /* an object array's index, or -1 */
  int is_static;    /* a static field of the class object ids[k] */
  const char *what; /* "super", "loader" or NULL */
};
/* Read the dump behind fd once more to name each hop of the path
 * ids[0..n) (out: n - 1 hops). 0, or what hprof_scan returned. */
int hprof_hops(struct hprof *h, int fd, const uint64_t *ids, uint32_t n,
               struct hp_hop *out);
/* The name of the thread of serial (its java.lang.Thread's name String,
 * as the thread object root names it) as UTF-8 into out (n bytes, cut
 * short there), from two more reads of the dump behind fd (g's edges
 * kept). 0, -ENOENT when the dump does not say, or what hprof_scan
 * returned. */
int hprof_thread_name(struct hprof *h, const struct hp_graph *g, int fd,
                      uint32_t serial, char *out, size_t n);
/* A GC root kind's name ("Java frame", "sticky class", ...). */
const char *hprof_root_name(int kind);

#endif
