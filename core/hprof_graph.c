/* hprof_graph.c - the object graph and its dominators (hprof_graph.h)
 *
 * References are what keeps an object alive in HotSpot's sense and what
 * VisualVM's and Eclipse MAT's dominator trees follow: instance fields of
 * object type (the whole superclass chain), object array elements, and a
 * class's static fields, super class and class loader.
 *
 * Memory is what --retained's peak is made of, so each phase keeps only
 * what the next needs: ids in 32 bits when the dump's fit (HotSpot's are
 * aligned addresses in one heap), the id -> index table is 32-bit indexes
 * (the ids themselves are the keys) and lives while the dump is read,
 * references wait there as ids and become 32-bit indexes in place,
 * shallow sizes in 8-byte units, edge offsets in 32 bits; the
 * dominators turn the references into predecessors by DFS number and free
 * them, and a node's DFS parent is its first predecessor, not an array.
 */
/* The per-object loops: built for speed in a binary otherwise built for
 * size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/hprof_graph.h"
#include "core/hprof_size.h"

/* Edges and roots are counted in 32 bits: offsets into edge[]. */
#define HP_MAX_EDGES ((uint64_t)UINT32_MAX - 1)

struct build {
  struct hp_graph *g;
  struct hprof *h;
  uint32_t cur; /* the current record's index, 0: not indexed */
  int too_many; /* more than HP_MAX_EDGES references and roots */
  uint64_t cap; /* of g's per-object arrays */
  /* object id -> index: open addressing over indexes (0: empty), the ids
   * in g the keys; mask + 1 slots, a power of two */
  uint32_t *slot;
  size_t mask;
  /* the references as read (ids, non-null), object i's from off[i]: made
   * indexes in place once every id has one */
  uint64_t *raw, nraw, capraw;
  uint64_t *rootid; /* each root's object id, until then */
  /* per class, where its instances' references are (byte offsets into
   * the field values, its own fields first, then each super's), for
   * instances of the class's field bytes: rlen[c] of them from
   * roff[rstart[c]]; rstart[c] HP_NONE: walk the chain (a class of no
   * instances, or past the budget: memory follows what was read). */
  uint32_t *rstart, *rlen, *roff, nroff, caproff;
  /* the last class id an instance named and its index */
  uint64_t last_id;
  uint32_t last_c;
};

static void *grow_to(void *p, uint64_t n, uint64_t *cap, size_t elem)
{
  if (n < *cap) return p;
  *cap = *cap ? *cap * 2 : 1024;
  return xrealloc(p, (size_t)*cap * elem);
}

/* Room for want objects (the histogram's count made it once). */
static void reserve(struct build *b, uint64_t want)
{
  struct hp_graph *g = b->g;

  if (want <= b->cap) return;
  b->cap = want;
  g->id64 = xrealloc(g->id64, (size_t)b->cap * sizeof(*g->id64));
  g->cls = xrealloc(g->cls, (size_t)b->cap * sizeof(*g->cls));
  g->kind = xrealloc(g->kind, (size_t)b->cap);
  g->shallow = xrealloc(g->shallow, (size_t)b->cap * sizeof(*g->shallow));
  g->off = xrealloc(g->off, ((size_t)b->cap + 1) * sizeof(*g->off));
}

/* The table's slot for id: where it is, or the empty one it would take. */
static HP_INLINE size_t probe(const struct build *b, uint64_t id)
{
  size_t s = (size_t)hp_mix(id) & b->mask;

  while (b->slot[s] && hp_graph_id(b->g, b->slot[s]) != id)
    s = (s + 1) & b->mask;
  return s;
}

/* A table of at least 4/3 slots per object; (re)filled from g's ids. */
static void table(struct build *b, uint64_t objects)
{
  size_t cap = 1024;

  while (cap < objects + objects / 3 + 2 && cap < ((size_t)1 << 40)) cap *= 2;
  free(b->slot);
  b->slot = xzalloc(cap * sizeof(*b->slot));
  b->mask = cap - 1;
  for (uint32_t i = 1; i < b->g->n; i++) b->slot[probe(b, b->g->id64[i])] = i;
}

static HP_INLINE uint32_t lookup(const struct build *b, uint64_t id)
{
  uint32_t i;

  if (!id) return HP_NONE;
  i = b->slot[probe(b, id)];
  return i ? i : HP_NONE;
}

/* Give id the next index, its references starting here; 0 for a
 * duplicate (the first one kept: its references are not read). */
static uint32_t add_object(struct build *b, uint64_t id, int kind)
{
  struct hp_graph *g = b->g;
  size_t s;

  b->cur = 0;
  if (!id || g->n == UINT32_MAX - 1) {
    g->dup_ids += !!id;
    return 0;
  }
  if (((uint64_t)g->n + 1) * 4 > (b->mask + 1) * 3)
    table(b, 2 * (uint64_t)g->n);
  if (b->slot[s = probe(b, id)]) {
    g->dup_ids++;
    return 0;
  }
  if (g->n >= b->cap) reserve(b, b->cap * 2);
  b->slot[s] = g->n;
  g->id64[g->n] = id;
  g->kind[g->n] = (uint8_t)kind;
  g->cls[g->n] = HP_NONE;
  g->shallow[g->n] = 0;
  g->off[g->n] = (uint32_t)b->nraw;
  b->cur = g->n;
  return g->n++;
}

/* Ids as base + (id32 << shift) when they all fit: packed in place (a
 * 32-bit value written where a 64-bit one was read, never ahead). */
static void pack_ids(struct hp_graph *g)
{
  uint64_t lo = UINT64_MAX, hi = 0, bits = 0;
  unsigned char *p = (unsigned char *)g->id64;
  int shift = 0;

  if (g->n < 2) return;
  for (uint32_t i = 1; i < g->n; i++) {
    if (g->id64[i] < lo) lo = g->id64[i];
    if (g->id64[i] > hi) hi = g->id64[i];
  }
  for (uint32_t i = 1; i < g->n; i++) bits |= g->id64[i] - lo;
  if (bits) shift = __builtin_ctzll(bits);
  if ((hi - lo) >> shift > UINT32_MAX) return;
  for (uint32_t i = 0; i < g->n; i++) {
    uint64_t id;
    uint32_t v;

    memcpy(&id, p + (size_t)i * 8, 8);
    v = i ? (uint32_t)((id - lo) >> shift) : 0;
    memcpy(p + (size_t)i * 4, &v, 4);
  }
  g->id32 = xrealloc(g->id64, (size_t)g->n * sizeof(*g->id32));
  g->id64 = NULL;
  g->base = lo;
  g->shift = shift;
}

/* A reference of the current object, kept as its id until every id has
 * an index. */
static HP_INLINE void add_ref(struct build *b, uint64_t to)
{
  if (!to) return;
  if (b->nraw + b->g->nroots >= HP_MAX_EDGES) {
    b->too_many = 1;
    return;
  }
  if (b->nraw == b->capraw) b->raw = grow_to(b->raw, b->nraw, &b->capraw, 8);
  b->raw[b->nraw++] = to;
}

static void on_root(void *ctx, int kind, uint64_t id, uint32_t thread,
                    uint32_t frame)
{
  struct build *b = ctx;
  struct hp_graph *g = b->g;

  if (b->nraw + g->nroots >= HP_MAX_EDGES) {
    b->too_many = 1;
    return;
  }
  if (g->nroots == g->caproots) {
    g->caproots = g->caproots ? g->caproots * 2 : 256;
    g->roots = xrealloc(g->roots, (size_t)g->caproots * sizeof(*g->roots));
    b->rootid = xrealloc(b->rootid, (size_t)g->caproots * sizeof(*b->rootid));
  }
  b->rootid[g->nroots] = id;
  g->roots[g->nroots].obj = HP_NONE;
  g->roots[g->nroots].kind = (uint8_t)kind;
  g->roots[g->nroots].thread = thread;
  g->roots[g->nroots++].frame = frame;
}

static void on_class(void *ctx, uint32_t c)
{
  struct build *b = ctx;
  const struct hp_class *k = &b->h->cls[c];
  uint32_t i;

  if (!(i = add_object(b, k->id, 0x20))) return;
  b->g->cls[i] = c;
  add_ref(b, k->super);
  add_ref(b, k->loader);
  for (uint32_t s = 0; s < k->nstatics; s++)
    add_ref(b, b->h->sref[k->statics + s]);
}

/* The class index of class id cls (HP_NONE): instances of one class
 * often come in a run. */
static HP_INLINE uint32_t class_of_id(struct build *b, uint64_t cls)
{
  if (cls != b->last_id) {
    b->last_id = cls;
    b->last_c = hp_map_get(&b->h->classes, cls);
  }
  return b->last_c;
}

/* The reference offsets of each class with instances (the histogram
 * counted them) whose instances hold chain_fbytes, in the order
 * on_instance walks them; at most about a reference per 8 bytes read. */
static void ref_offsets(struct build *b)
{
  struct hprof *h = b->h;
  uint64_t budget = h->end / 8 + 4096;

  b->rstart = xmalloc(((size_t)h->ncls + 1) * sizeof(*b->rstart));
  b->rlen = xzalloc(((size_t)h->ncls + 1) * sizeof(*b->rlen));
  for (uint32_t c = 0; c < h->ncls; c++) b->rstart[c] = HP_NONE;
  for (uint32_t c = 0; c < h->ncls; c++) {
    uint32_t n = h->cls[c].chain_fbytes, at, steps = 0, pos = 0, from;
    int ok = 1;

    if (!h->cls[c].count || n > HIN_SPAN) continue;
    from = b->nroff;
    for (at = c; ok && at != HP_NONE && steps++ <= h->ncls;
         at = hp_super(h, at)) {
      const struct hp_class *k = &h->cls[at];

      for (uint32_t f = 0; ok && f < k->nfields; f++) {
        int t = h->ftype[k->fields + f], sz = hp_type_size(t, h->idsize);

        if (pos + (uint32_t)sz > n) {
          ok = 2;
          break;
        }
        if (t == HP_OBJECT) {
          if (b->nroff >= budget) {
            ok = 0;
            break;
          }
          if (b->nroff == b->caproff) {
            b->caproff = b->caproff ? b->caproff * 2 : 1024;
            b->roff = xrealloc(b->roff, (size_t)b->caproff * sizeof(*b->roff));
          }
          b->roff[b->nroff++] = pos;
        }
        pos += (uint32_t)sz;
      }
      if (ok == 2) break;
    }
    if (!ok) {
      b->nroff = from;
      break;
    }
    b->rstart[c] = from;
    b->rlen[c] = b->nroff - from;
  }
}

static void on_instance(void *ctx, uint64_t id, uint64_t cls,
                        const unsigned char *v, uint32_t n)
{
  struct build *b = ctx;
  struct hprof *h = b->h;
  uint32_t i, c = class_of_id(b, cls), at, steps = 0, pos = 0;

  if (!(i = add_object(b, id, 0x21)) || c == HP_NONE) return;
  b->g->cls[i] = c;
  b->g->shallow[i] = h->cls[c].size >> 3;
  if (h->cls[c].chain_fbytes != n) {
    b->g->bad_fields++;
  } else if (b->rstart[c] != HP_NONE) {
    const uint32_t *o = b->roff + b->rstart[c];

    for (uint32_t k = 0; k < b->rlen[c]; k++)
      add_ref(b, hp_id(v + o[k], h->idsize));
    return;
  }
  /* This class's fields first, then each super's. */
  for (at = c; at != HP_NONE && steps++ <= h->ncls; at = hp_super(h, at)) {
    const struct hp_class *k = &h->cls[at];

    for (uint32_t f = 0; f < k->nfields; f++) {
      int t = h->ftype[k->fields + f], sz = hp_type_size(t, h->idsize);

      if (pos + (uint32_t)sz > n) return;
      if (t == HP_OBJECT) add_ref(b, hp_id(v + pos, h->idsize));
      pos += (uint32_t)sz;
    }
  }
}

static void on_objarray(void *ctx, uint64_t id, uint64_t cls, uint32_t count)
{
  struct build *b = ctx;
  uint32_t i;

  if (!(i = add_object(b, id, 0x22))) return;
  b->g->cls[i] = hp_map_get(&b->h->classes, cls);
  b->g->shallow[i] = (uint32_t)(hprof_array_size(b->h, HP_OBJECT, count) >> 3);
}

static void on_elements(void *ctx, const unsigned char *ids, uint32_t first,
                        uint32_t n)
{
  struct build *b = ctx;
  int idsize = b->h->idsize;

  /* Elements of a duplicate array follow a record add_object refused. */
  if (!b->cur) return;
  for (uint32_t k = 0; k < n; k++)
    add_ref(b, hp_id(ids + (size_t)k * idsize, idsize));
}

static void on_primarray(void *ctx, uint64_t id, int t, uint32_t count,
                         const unsigned char *v)
{
  struct build *b = ctx;
  uint32_t i;

  if (!(i = add_object(b, id, 0x23))) return;
  b->g->cls[i] = b->h->prim_class[t];
  b->g->shallow[i] = (uint32_t)(hprof_array_size(b->h, t, count) >> 3);
}

/* Every id has its index: the references become indexes in place (a
 * 32-bit index written where a 64-bit id was read, never ahead of the
 * reading), those to ids no object has dropped; the same for roots. */
static void resolve(struct build *b)
{
  struct hp_graph *g = b->g;
  unsigned char *e = (unsigned char *)b->raw;
  uint64_t out = 0, r = 0;
  uint32_t nr = 0;

  for (uint32_t i = 1; i < g->n; i++) {
    uint64_t end = i + 1 < g->n ? g->off[i + 1] : b->nraw;

    g->off[i] = (uint32_t)out;
    for (; r < end; r++) {
      uint32_t t = lookup(b, b->raw[r]);

      if (t == HP_NONE) {
        g->dangling++;
        continue;
      }
      memcpy(e + out++ * 4, &t, 4);
    }
  }
  g->off[0] = 0;
  g->off[g->n] = (uint32_t)out;
  g->nedges = g->capedges = out;
  g->edge = xrealloc(b->raw, (size_t)(out ? out : 1) * 4);
  b->raw = NULL;
  for (uint32_t k = 0; k < g->nroots; k++) {
    uint32_t t = lookup(b, b->rootid[k]);

    if (t == HP_NONE) {
      g->dangling++;
      continue;
    }
    g->roots[nr] = g->roots[k];
    g->roots[nr++].obj = t;
  }
  g->nroots = nr;
}

int hprof_graph_build(struct hp_graph *g, struct hprof *h, int fd,
                      struct hp_histo *histo)
{
  struct build b = {0};
  struct hin in;
  struct hp_visit v = {0};
  int rc;

  (void)histo;
  memset(g, 0, sizeof(*g));
  b.g = g;
  b.h = h;
  /* the histogram pass counted the objects it read: the arrays and the
   * table are made that big at once (growing them copied every id) */
  reserve(&b, h->objects + 2 < HP_NONE ? h->objects + 2 : HP_NONE);
  table(&b, h->objects);
  g->n = 1; /* index 0: the super-root */
  g->id64[0] = 0;
  g->cls[0] = HP_NONE;
  g->kind[0] = 0;
  g->shallow[0] = 0;
  g->off[0] = 0;
  ref_offsets(&b);
  v.ctx = &b;
  v.root = on_root;
  v.klass = on_class;
  v.instance = on_instance;
  v.objarray = on_objarray;
  v.elements = on_elements;
  v.primarray = on_primarray;
  if (lseek(fd, 0, SEEK_SET) < 0) {
    rc = -errno;
  } else {
    if (!(rc = hin_open(&in, fd))) rc = hprof_scan(h, &in, &v);
    hin_close(&in);
  }
  free(b.rstart);
  free(b.rlen);
  free(b.roff);
  if (!rc || rc == HP_ESHORT) {
    int cut = rc;

    pack_ids(g);
    resolve(&b);
    rc = cut;
    if (!rc && b.too_many) {
      snprintf(h->why, sizeof(h->why),
               "more than %" PRIu64
               " references and GC roots (the graph's limit)",
               HP_MAX_EDGES);
      h->at = h->end;
      rc = HP_EFORMAT;
    }
  }
  free(b.slot);
  free(b.raw);
  free(b.rootid);
  return rc;
}

uint32_t hprof_graph_index(const struct hp_graph *g, uint64_t id)
{
  for (uint32_t i = 1; id && i < g->n; i++)
    if (hp_graph_id(g, i) == id) return i;
  return HP_NONE;
}

void hprof_dominators(struct hp_graph *g)
{
  uint32_t n = g->n, cnt = 0;
  uint32_t *rootobj = xmalloc(((size_t)g->nroots + 1) * sizeof(*rootobj));
  uint32_t *dfn = xmalloc((size_t)n * sizeof(*dfn));       /* index -> number */
  uint32_t *parent = xmalloc((size_t)n * sizeof(*parent)); /* by number */
  uint32_t *semi, *label, *anc, *idom, *vertex, *poff, *pred, *stack, *stpos;

  for (uint32_t r = 0; r < g->nroots; r++) rootobj[r] = g->roots[r].obj;
  for (uint32_t i = 0; i < n; i++) dfn[i] = HP_NONE;
  /* Depth-first numbering with an explicit stack (node, next edge); a
   * stack's pages are touched only as deep as the graph goes. */
  stack = xmalloc((size_t)n * sizeof(*stack));
  stpos = xmalloc((size_t)n * sizeof(*stpos));
  {
    uint32_t sp = 0;

    dfn[0] = cnt;
    parent[cnt++] = 0;
    stack[sp] = 0;
    stpos[sp++] = 0;
    while (sp) {
      uint32_t v = stack[sp - 1];
      uint64_t m;
      const uint32_t *s = hp_graph_succ(g, rootobj, v, &m);

      if (stpos[sp - 1] == m) {
        sp--;
        continue;
      }
      {
        uint32_t w = s[stpos[sp - 1]++];

        if (dfn[w] != HP_NONE) continue;
        dfn[w] = cnt;
        parent[cnt++] = dfn[v];
        stack[sp] = w;
        stpos[sp++] = 0;
      }
    }
  }
  free(stpos);
  /* Predecessors by number (of reachable sources only): counted, placed
   * (each start moves to the next one's), shifted back. */
  poff = xzalloc(((size_t)cnt + 1) * sizeof(*poff));
  for (uint32_t v = 0; v < n; v++) {
    uint64_t m;
    const uint32_t *s;

    if (dfn[v] == HP_NONE) continue;
    s = hp_graph_succ(g, rootobj, v, &m);
    for (uint64_t k = 0; k < m; k++) poff[dfn[s[k]] + 1]++;
  }
  for (uint32_t a = 0; a < cnt; a++) poff[a + 1] += poff[a];
  pred = xmalloc((size_t)(poff[cnt] ? poff[cnt] : 1) * sizeof(*pred));
  for (uint32_t v = 0; v < n; v++) {
    uint64_t m;
    const uint32_t *s;

    if (dfn[v] == HP_NONE) continue;
    s = hp_graph_succ(g, rootobj, v, &m);
    for (uint64_t k = 0; k < m; k++) pred[poff[dfn[s[k]]]++] = dfn[v];
  }
  memmove(poff + 1, poff, (size_t)cnt * sizeof(*poff));
  poff[0] = 0;
  /* The DFS parent first among each node's predecessors: parent[] goes. */
  for (uint32_t w = 1; w < cnt; w++) {
    uint32_t k = poff[w], t;

    while (pred[k] != parent[w]) k++;
    t = pred[poff[w]];
    pred[poff[w]] = pred[k];
    pred[k] = t;
  }
  free(parent);
  free(rootobj);
  if (!g->keep_edges) {
    free(g->off);
    free(g->edge);
    g->off = g->edge = NULL;
  }
  /* Semi-dominators, in reverse number order. */
  semi = xmalloc((size_t)cnt * sizeof(*semi));
  label = xmalloc((size_t)cnt * sizeof(*label));
  anc = xmalloc((size_t)cnt * sizeof(*anc));
  for (uint32_t a = 0; a < cnt; a++) {
    semi[a] = label[a] = a;
    anc[a] = HP_NONE;
  }
  for (uint32_t w = cnt - 1; w > 0; w--) {
    for (uint32_t k = poff[w]; k < poff[w + 1]; k++) {
      uint32_t v = pred[k], u = v, sp = 0;

      if (anc[v] != HP_NONE) {
        /* eval(v): compress the path to the forest root, top first. */
        for (uint32_t x = v; anc[anc[x]] != HP_NONE; x = anc[x])
          stack[sp++] = x;
        while (sp) {
          uint32_t x = stack[--sp];

          if (semi[label[anc[x]]] < semi[label[x]]) label[x] = label[anc[x]];
          anc[x] = anc[anc[x]];
        }
        u = label[v];
      }
      if (semi[u] < semi[w]) semi[w] = semi[u];
    }
    anc[w] = pred[poff[w]];
  }
  free(label);
  free(anc);
  free(stack);
  /* Immediate dominators: the nearest common ancestor walk from each
   * parent, in place of semi (idom[d] for d < w is final). */
  idom = semi;
  for (uint32_t w = 1; w < cnt; w++) {
    uint32_t s = semi[w], d = pred[poff[w]];

    while (d > s) d = idom[d];
    idom[w] = d;
  }
  free(pred);
  free(poff);
  vertex = xmalloc((size_t)cnt * sizeof(*vertex));
  for (uint32_t i = 0; i < n; i++)
    if (dfn[i] != HP_NONE) vertex[dfn[i]] = i;
  free(dfn);
  /* Retained sizes: children before their dominator. */
  g->retained = xzalloc((size_t)n * sizeof(*g->retained));
  g->idom = xmalloc((size_t)n * sizeof(*g->idom));
  for (uint32_t i = 0; i < n; i++) g->idom[i] = HP_NONE;
  for (uint32_t w = cnt - 1; w > 0; w--) {
    uint32_t v = vertex[w];

    g->retained[v] += hp_graph_shallow(g, v);
    g->retained[vertex[idom[w]]] += g->retained[v];
    g->idom[v] = vertex[idom[w]];
  }
  g->reachable = cnt - 1;
  g->unreachable = 0;
  g->unreachable_bytes = 0;
  for (uint32_t i = 1; i < n; i++)
    if (g->idom[i] == HP_NONE) {
      g->unreachable++;
      g->unreachable_bytes += hp_graph_shallow(g, i);
    }
  free(idom);
  free(vertex);
}

void hprof_dom_children(const struct hp_graph *g, uint32_t **coff,
                        uint32_t **child)
{
  uint32_t n = g->n;
  uint32_t *o = xzalloc(((size_t)n + 2) * sizeof(*o));
  uint32_t *c = xmalloc((size_t)n * sizeof(*c) + 1);

  /* counted, placed (each start moves to the next one's), shifted back */
  for (uint32_t i = 1; i < n; i++)
    if (g->idom[i] != HP_NONE) o[g->idom[i] + 1]++;
  for (uint32_t i = 0; i <= n; i++) o[i + 1] += o[i];
  for (uint32_t i = 1; i < n; i++)
    if (g->idom[i] != HP_NONE) c[o[g->idom[i]]++] = i;
  memmove(o + 1, o, ((size_t)n + 1) * sizeof(*o));
  o[0] = 0;
  *coff = o;
  *child = c;
}

void hprof_class_retained(const struct hp_graph *g, const struct hprof *h,
                          uint64_t *out)
{
  /* Walk the dominator tree depth first (children lists from idom),
   * counting per class the instances on the path: an instance adds its
   * retained size when no instance of its class dominates it. */
  uint32_t n = g->n;
  uint32_t *coff, *child;
  uint32_t *onpath = xzalloc(((size_t)h->ncls + 1) * sizeof(*onpath));
  uint32_t *stack = xmalloc(((size_t)n + 1) * sizeof(*stack));
  uint32_t *it = xmalloc(((size_t)n + 1) * sizeof(*it)); /* by depth */
  uint32_t sp = 0;

  memset(out, 0, (size_t)h->ncls * sizeof(*out));
  hprof_dom_children(g, &coff, &child);
  stack[sp] = 0;
  it[sp++] = coff[0];
  while (sp) {
    uint32_t v = stack[sp - 1], c;

    if (it[sp - 1] < coff[v + 1]) {
      uint32_t w = child[it[sp - 1]++];

      c = g->kind[w] == 0x20 ? HP_NONE : g->cls[w];
      if (c != HP_NONE && c < h->ncls && !onpath[c]++) out[c] += g->retained[w];
      stack[sp] = w;
      it[sp++] = coff[w];
      continue;
    }
    sp--;
    c = g->kind[v] == 0x20 ? HP_NONE : g->cls[v];
    if (v && c != HP_NONE && c < h->ncls) onpath[c]--;
  }
  free(coff);
  free(child);
  free(onpath);
  free(stack);
  free(it);
}

void hprof_graph_free(struct hp_graph *g)
{
  free(g->id32);
  free(g->id64);
  free(g->cls);
  free(g->kind);
  free(g->shallow);
  free(g->off);
  free(g->edge);
  free(g->roots);
  free(g->idom);
  free(g->retained);
  memset(g, 0, sizeof(*g));
}
