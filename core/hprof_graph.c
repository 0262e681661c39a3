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
#include "core/cpu.h"
#include "core/hprof_graph.h"
#include "core/hprof_size.h"
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Edges and roots are counted in 32 bits: offsets into edge[]. */
#define HP_MAX_EDGES ((uint64_t)UINT32_MAX - 1)

struct build {
  struct hp_graph *g;
  struct hprof *h;
  uint32_t cur; /* the current record's index, 0: not indexed */
  int too_many; /* more than HP_MAX_EDGES references and roots */
  uint64_t cap; /* of g's per-object arrays */
  /* object id -> index, made once every object is read: open addressing
   * over indexes (0: empty), g's ids the keys; mask + 1 slots, a power of
   * two, 64 - hshift bits. A lookup touches a slot and the id it holds,
   * two cache misses, which the loops fetch ahead in two steps. */
  uint32_t *slot;
  size_t mask;
  int hshift;
  /* or, when the packed ids are dense enough (bits), a bitmap over
   * their span: bit k set for the object of key k; an object's index is
   * its word's base (the index of the word's lowest key) plus the set
   * bits below its own, when the word's objects came one after another
   * in the file in key order (HotSpot writes a heap in address order,
   * so nearly every word does); else base is BM_SIDE | where side[]
   * holds the word's indexes in key order. No hashing, no probing: the
   * bitmap is an eighth of a byte per 8 bytes of the heap's span. */
  uint64_t *bm, bmkeys;
  uint32_t *bbase, *side;
  int hwpop; /* pop64's hw */
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
  struct hp_ccache cc;
  /* one pass (hprof_graph_start): the histogram counted here too, each
   * class's layout made at its first instance (rstart/rlen/rfb grown to
   * nlay classes: rfb its chain's field bytes); late: an object came
   * before what it needs (its class or a super's dump), so the graph is
   * dropped and built by a pass of its own after the histogram. */
  struct hp_histo *x;
  int one, late;
  uint32_t *rfb, nlay;
};

/* rstart[c] in one pass: not made yet / walk the chain per instance */
#define RS_TODO ((uint32_t)HP_NONE)
#define RS_WALK ((uint32_t)HP_NONE - 1)

/* Blocks a phase is done with, for the next phase's arrays of about the
 * same size (the per-object ones): a fresh page costs a fault (about
 * 2.4 us here, a third of --retained's time on a 25 MB dump before
 * this), a reused one nothing. A few blocks, each given back with its
 * size, only where an array of its size is taken next; drained wherever
 * none is, so what waits here never adds to the peak. */
enum { POOL = 8, POOL_MIN = 1 << 16 };
static struct {
  void *p;
  size_t size;
} pool[POOL];

static void give(void *p, size_t size)
{
  int at = -1;

  if (!p) return;
  if (size < POOL_MIN) {
    free(p);
    return;
  }
  for (int k = 0; k < POOL && at < 0; k++)
    if (!pool[k].p) at = k;
  if (at < 0) { /* full: the smallest goes, unless p is smaller */
    at = 0;
    for (int k = 1; k < POOL; k++)
      if (pool[k].size < pool[at].size) at = k;
    if (pool[at].size >= size) {
      free(p);
      return;
    }
    free(pool[at].p);
  }
  pool[at].p = p;
  pool[at].size = size;
}

/* The pages of p[0..size) faulted in by one call: an array about to be
 * written whole (one fault a page costs about 2.4 us here: a third of
 * --retained's time on a 26 MB dump, 9551 faults, 5410 so). An older
 * kernel says
 * EINVAL: the pages then come one fault at a time, as before. */
static void *whole(void *p, size_t size)
{
  uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
  uintptr_t e = ((uintptr_t)p + size) & ~(uintptr_t)4095;

  if (e > a && e - a >= POOL_MIN)
    (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
  return p;
}

enum { TAKE_ZERO = 1, TAKE_WHOLE = 2 };

/* size bytes: the smallest block given back that holds them and is at
 * most an eighth bigger (its pages are all resident: a bigger one would
 * hold more than the array needs), else new (TAKE_WHOLE: about to be
 * written whole, its pages faulted in at once); zeroed with TAKE_ZERO. */
static void *take(size_t size, int how)
{
  int zero = how & TAKE_ZERO;
  int best = -1;
  void *p;

  for (int k = 0; k < POOL; k++)
    if (pool[k].p && pool[k].size >= size && pool[k].size - size <= size / 8 &&
        (best < 0 || pool[k].size < pool[best].size))
      best = k;
  if (best < 0) {
    p = zero ? xzalloc(size ? size : 1) : xmalloc(size ? size : 1);
    return how & TAKE_WHOLE ? whole(p, size) : p;
  }
  p = pool[best].p;
  pool[best].p = NULL;
  if (zero) memset(p, 0, size);
  return p;
}

static void pool_drain(void)
{
  for (int k = 0; k < POOL; k++) {
    free(pool[k].p);
    pool[k].p = NULL;
  }
}

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

/* Index 0: the super-root, whose references are the GC roots. */
static void super_root(struct hp_graph *g)
{
  g->n = 1;
  g->id64[0] = 0;
  g->cls[0] = HP_NONE;
  g->kind[0] = 0;
  g->shallow[0] = 0;
  g->off[0] = 0;
}

/* Where id's search starts in the table, and its key (its packed 32 bits
 * when the ids pack); SIZE_MAX for an id no object can have (below the
 * packed ids' base, or between them). */
static HP_INLINE size_t home(const struct build *b, uint64_t id, uint32_t *key)
{
  const struct hp_graph *g = b->g;
  uint64_t k;

  *key = 0;
  if (g->id64) {
    *key = (uint32_t)id;
    return (size_t)hp_mix(id) & b->mask;
  }
  k = id - g->base;
  if (id < g->base || k & (((uint64_t)1 << g->shift) - 1) ||
      k >> g->shift > UINT32_MAX)
    return SIZE_MAX;
  *key = (uint32_t)(k >> g->shift);
  /* the packed keys are dense: a multiply's top bits spread them */
  return (size_t)((*key * 0x9e3779b97f4a7c15ull) >> b->hshift);
}

/* Is object i's id id (key: its packed bits)? */
static HP_INLINE int is_id(const struct hp_graph *g, uint32_t i, uint64_t id,
                           uint32_t key)
{
  return g->id64 ? g->id64[i] == id : g->id32[i] == key;
}

/* Lookups fetched ahead: for the AHEAD elements from the current one
 * on, element k's start in the table and key are at k % AHEAD, its slot
 * fetched when it came in (far), the id that slot names at half way
 * (near): both cache misses of a lookup are in cache when it is made. */
enum { AHEAD = 16 };
struct ahead {
  size_t s[AHEAD];
  uint32_t key[AHEAD];
};

static HP_INLINE void ahead_put(struct ahead *a, const struct build *b,
                                uint64_t k, uint64_t id)
{
  size_t s = home(b, id, &a->key[k % AHEAD]);

  a->s[k % AHEAD] = s;
  if (s != SIZE_MAX) __builtin_prefetch(&b->slot[s]);
}

static HP_INLINE void ahead_near(const struct ahead *a, const struct build *b,
                                 uint64_t k)
{
  size_t s = a->s[k % AHEAD];
  uint32_t v;

  if (s == SIZE_MAX || !(v = b->slot[s])) return;
  if (b->g->id64)
    __builtin_prefetch(&b->g->id64[v]);
  else
    __builtin_prefetch(&b->g->id32[v]);
}

/* The index of the id keyed key whose search starts at s, or HP_NONE. */
static HP_INLINE uint32_t find(const struct build *b, size_t s, uint64_t id,
                               uint32_t key)
{
  uint32_t v;

  if (s == SIZE_MAX) return HP_NONE;
  for (; (v = b->slot[s]); s = (s + 1) & b->mask)
    if (is_id(b->g, v, id, key)) return v;
  return HP_NONE;
}

static void table(struct build *b)
{
  struct hp_graph *g = b->g;
  struct ahead a;
  size_t cap = 1024;
  int bits = 10;

  while (cap < g->n + g->n / 3 + 2 && cap < ((size_t)1 << 40)) {
    cap *= 2;
    bits++;
  }
  b->slot = whole(xzalloc(cap * sizeof(*b->slot)), cap * sizeof(*b->slot));
  b->mask = cap - 1;
  b->hshift = 64 - bits;
  for (uint32_t i = 1; i < g->n && i <= AHEAD; i++)
    ahead_put(&a, b, i, hp_graph_id(g, i));
  for (uint32_t i = 1; i < g->n; i++) {
    uint64_t id = hp_graph_id(g, i);
    uint32_t key = a.key[i % AHEAD], v = 0;
    size_t s = a.s[i % AHEAD];

    if (i + AHEAD < g->n)
      ahead_put(&a, b, i + AHEAD, hp_graph_id(g, i + AHEAD));
    if (i + AHEAD / 2 < g->n) ahead_near(&a, b, i + AHEAD / 2);
    if (s == SIZE_MAX) continue; /* not so: an object's own id */
    for (; (v = b->slot[s]); s = (s + 1) & b->mask)
      if (is_id(g, v, id, key)) break;
    if (v) {
      g->dup_ids++;
      g->kind[i] = HP_DEAD;
    } else {
      b->slot[s] = i;
    }
  }
}

/* The bits set in x. The baseline x86-64 has no popcnt instruction:
 * hw (cpu_popcnt(), asked once) says the CPU has it (every x86-64 since
 * 2008), else the bits are summed by halves; arm64's is baseline. */
static HP_INLINE uint32_t pop64(uint64_t x, int hw)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (hw) {
    uint64_t r;

    __asm__("popcnt %1, %0" : "=r"(r) : "r"(x));
    return (uint32_t)r;
  }
#elif defined(__aarch64__)
  (void)hw;
  return (uint32_t)__builtin_popcountll(x);
#endif
  (void)hw;
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

enum { BM_SIDE = 0x80000000u };

/* The key of id in the bitmap's span, or UINT64_MAX. */
static HP_INLINE uint64_t bm_key(const struct build *b, uint64_t id)
{
  const struct hp_graph *g = b->g;
  uint64_t k = id - g->base;

  if (id < g->base || k & (((uint64_t)1 << g->shift) - 1)) return UINT64_MAX;
  k >>= g->shift;
  return k < b->bmkeys ? k : UINT64_MAX;
}

/* The index of the object of key k (bm_key's), or HP_NONE. */
static HP_INLINE uint32_t bm_find(const struct build *b, uint64_t k)
{
  uint64_t w, m;
  uint32_t j, base;

  if (k == UINT64_MAX) return HP_NONE;
  w = b->bm[k >> 6];
  m = (uint64_t)1 << (k & 63);
  if (!(w & m)) return HP_NONE;
  j = pop64(w & (m - 1), b->hwpop);
  base = b->bbase[k >> 6];
  return base & BM_SIDE ? b->side[(base & ~BM_SIDE) + j] : base + j;
}

/* The bitmap instead of the table, when the ids packed into 32 bits and
 * their span takes at most 128 bits an object (16 bytes; the table 5 to
 * 11, but the bitmap's pages are touched only where objects are): 1, or
 * 0 (nothing made). Duplicates: the first in the file kept, as table. */
static int bitmap(struct build *b)
{
  struct hp_graph *g = b->g;
  uint64_t hi = 0, words, prev_w = UINT64_MAX, nside = 0;
  uint32_t prev_j = 0, *odd = NULL, nodd = 0, capodd = 0;

  if (!g->id32 || g->n < 2 || g->n >= BM_SIDE) return 0;
  for (uint32_t i = 1; i < g->n; i++)
    if (g->id32[i] > hi) hi = g->id32[i];
  if (hi + 1 > (uint64_t)g->n * 128) return 0;
  b->bmkeys = hi + 1;
  b->hwpop = cpu_popcnt();
  words = (hi >> 6) + 1;
  b->bm = xzalloc((size_t)words * sizeof(*b->bm));
  b->bbase = xmalloc((size_t)words * sizeof(*b->bbase));
  for (uint32_t i = 1; i < g->n; i++) {
    uint32_t k = g->id32[i];
    uint64_t m = (uint64_t)1 << (k & 63);

    if (b->bm[k >> 6] & m) {
      g->dup_ids++;
      g->kind[i] = HP_DEAD;
    } else {
      b->bm[k >> 6] |= m;
    }
  }
  /* A word's objects in a row in the file, in key order: its base is
   * its first one's index. Any other word is odd: side[] holds it. */
  for (uint32_t i = 1; i < g->n; i++) {
    uint32_t k = g->id32[i], j;
    uint64_t w = k >> 6;

    if (g->kind[i] == HP_DEAD) {
      prev_w = UINT64_MAX;
      continue;
    }
    j = pop64(b->bm[w] & (((uint64_t)1 << (k & 63)) - 1), b->hwpop);
    if (!j) {
      b->bbase[w] = i;
    } else if (prev_w != w || prev_j + 1 != j) {
      if (nodd == capodd) {
        capodd = capodd ? capodd * 2 : 64;
        odd = xrealloc(odd, (size_t)capodd * sizeof(*odd));
      }
      odd[nodd++] = (uint32_t)w; /* maybe twice: made side once below */
    }
    prev_w = w;
    prev_j = j;
  }
  for (uint32_t o = 0; o < nodd; o++) {
    uint64_t w = odd[o];

    if (b->bbase[w] & BM_SIDE) continue; /* an index is below BM_SIDE */
    b->bbase[w] = BM_SIDE | (uint32_t)nside;
    nside += pop64(b->bm[w], b->hwpop);
  }
  if (nodd) {
    b->side = xmalloc((size_t)(nside ? nside : 1) * sizeof(*b->side));
    for (uint32_t i = 1; i < g->n; i++) {
      uint32_t k = g->id32[i], base;

      if (g->kind[i] == HP_DEAD) continue;
      base = b->bbase[k >> 6];
      if (base & BM_SIDE)
        b->side[(base & ~BM_SIDE) +
                pop64(b->bm[k >> 6] & (((uint64_t)1 << (k & 63)) - 1),
                      b->hwpop)] = i;
    }
  }
  free(odd);
  return 1;
}

/* The index of the object of id, or HP_NONE. */
static HP_INLINE uint32_t lookup(const struct build *b, uint64_t id)
{
  uint32_t key, v;
  size_t s;

  if (!id) return HP_NONE;
  if (b->bm) return bm_find(b, bm_key(b, id));
  s = home(b, id, &key);
  if (s == SIZE_MAX) return HP_NONE;
  for (; (v = b->slot[s]); s = (s + 1) & b->mask)
    if (is_id(b->g, v, id, key)) return v;
  return HP_NONE;
}

/* Give id the next index, its references starting here (0: id 0, or
 * past the graph's limit). Ids are looked up only once all are read
 * (table). */
static HP_INLINE uint32_t add_object(struct build *b, uint64_t id, int kind)
{
  struct hp_graph *g = b->g;

  b->cur = 0;
  if (!id || g->n == UINT32_MAX - 1) {
    g->dup_ids += !!id;
    return 0;
  }
  if (g->n >= b->cap) reserve(b, b->cap * 2);
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

/* The class index of class id cls (HP_NONE). */
static HP_INLINE uint32_t class_of_id(struct build *b, uint64_t cls)
{
  return hp_class_cached(b->h, &b->cc, cls);
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

/* Instance i's references by walking its class's chain: this class's
 * fields first, then each super's, as far as its n field bytes go. */
static void refs_walk(struct build *b, uint32_t c, const unsigned char *v,
                      uint32_t n)
{
  struct hprof *h = b->h;
  uint32_t at, steps = 0, pos = 0;

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

/* Instance i's references, its n field bytes against the fbytes its
 * class's chain has (a mismatch is counted, not read): from its class's
 * reference offsets when it has them (rstart[c] not walk), else walked. */
static HP_INLINE void instance_refs(struct build *b, uint32_t c,
                                    const unsigned char *v, uint32_t n,
                                    uint32_t fbytes, uint32_t walk)
{
  if (fbytes != n) {
    b->g->bad_fields++;
  } else if (b->rstart[c] != walk) {
    const uint32_t *o = b->roff + b->rstart[c];
    uint32_t len = b->rlen[c];
    uint64_t at = b->nraw, *raw = b->raw;

    if (at + len > b->capraw || at + len + b->g->nroots >= HP_MAX_EDGES) {
      for (uint32_t k = 0; k < len; k++)
        add_ref(b, hp_id(v + o[k], b->h->idsize));
      return;
    }
    /* room for all: stored, a null one overwritten by the next */
    if (b->h->idsize == 8) {
      for (uint32_t k = 0; k < len; k++) {
        uint64_t to = hp_id(v + o[k], 8);

        raw[at] = to;
        at += to != 0;
      }
    } else {
      for (uint32_t k = 0; k < len; k++) {
        uint64_t to = hp_u4(v + o[k]);

        raw[at] = to;
        at += to != 0;
      }
    }
    b->nraw = at;
  } else {
    refs_walk(b, c, v, n);
  }
}

static void on_instance(void *ctx, uint64_t id, uint64_t cls,
                        const unsigned char *v, uint32_t n)
{
  struct build *b = ctx;
  struct hprof *h = b->h;
  uint32_t i, c = class_of_id(b, cls);

  if (!(i = add_object(b, id, 0x21)) || c == HP_NONE) return;
  b->g->cls[i] = c;
  b->g->shallow[i] = h->cls[c].size >> 3;
  instance_refs(b, c, v, n, h->cls[c].chain_fbytes, HP_NONE);
}

static void on_objarray(void *ctx, uint64_t id, uint64_t cls, uint32_t count)
{
  struct build *b = ctx;
  uint32_t i;

  if (!(i = add_object(b, id, 0x22))) return;
  b->g->cls[i] = class_of_id(b, cls);
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

/* Resolving through the bitmap: objects lo..hi-1, whose references are
 * raw[r0..rend), written as indexes from slot out0 of the same array
 * (4 bytes a slot), each object's first slot into g->off. (Two halves,
 * the second on a thread of its own, measured slower here: 49.7 ms
 * against 46.9 on 26 MB, 1974 against 1731 on 1305 MB.) */
struct rpart {
  const struct build *b;
  uint32_t lo, hi;
  uint64_t r0, rend, out0, out, dangling;
};

static void resolve_part(struct rpart *pt)
{
  const struct build *b = pt->b;
  struct hp_graph *g = b->g;
  unsigned char *e = (unsigned char *)b->raw;
  /* the loop's values in registers, not re-read past e's stores */
  const uint64_t *bm = b->bm, *raw = b->raw;
  const uint32_t *bb = b->bbase, *side = b->side;
  const uint8_t *kind = g->kind;
  uint32_t *off = g->off;
  uint64_t lo = g->base, keys = b->bmkeys, rend = pt->rend;
  uint64_t odd = ((uint64_t)1 << g->shift) - 1, r = pt->r0, out = pt->out0;
  uint64_t dangling = 0;
  int sh = g->shift, far = keys > ((uint64_t)1 << 23); /* 1 MiB */
  int hw = b->hwpop;

  for (uint32_t i = pt->lo; i < pt->hi; i++) {
    uint64_t end = i + 1 < pt->hi ? off[i + 1] : rend;

    off[i] = (uint32_t)out;
    if (kind[i] == HP_DEAD) r = end; /* a duplicate's: not read */
    for (; r < end; r++) {
      uint64_t d = raw[r] - lo, k = d >> sh, w, m;
      uint32_t t;

      if (far && r + AHEAD < rend) { /* not in cache */
        uint64_t f = (raw[r + AHEAD] - lo) >> sh;

        if (f < keys) {
          __builtin_prefetch(&bm[f >> 6]);
          __builtin_prefetch(&bb[f >> 6]);
        }
      }
      /* an id below lo wraps to a k past keys */
      if (d & odd || k >= keys ||
          !((w = bm[k >> 6]) & (m = (uint64_t)1 << (k & 63)))) {
        dangling++;
        continue;
      }
      t = bb[k >> 6];
      t = t & BM_SIDE ? side[(t & ~BM_SIDE) + pop64(w & (m - 1), hw)]
                      : t + pop64(w & (m - 1), hw);
      memcpy(e + out++ * 4, &t, 4);
    }
  }
  pt->out = out;
  pt->dangling = dangling;
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
  struct ahead a;

  for (uint64_t k = 0; !b->bm && k < b->nraw && k < AHEAD; k++)
    ahead_put(&a, b, k, b->raw[k]);
  if (b->bm) {
    struct rpart all = {b, 1, g->n, 0, b->nraw, 0, 0, 0};

    resolve_part(&all);
    out = all.out;
    g->dangling += all.dangling;
    r = b->nraw;
  }
  for (uint32_t i = 1; !b->bm && i < g->n; i++) {
    uint64_t end = i + 1 < g->n ? g->off[i + 1] : b->nraw;

    g->off[i] = (uint32_t)out;
    if (g->kind[i] == HP_DEAD && r < end) { /* a duplicate's: not read */
      r = end;
      for (uint64_t k = r; k < b->nraw && k < r + AHEAD; k++)
        ahead_put(&a, b, k, b->raw[k]);
    }
    for (; r < end; r++) {
      uint64_t id = b->raw[r];
      size_t s = a.s[r % AHEAD];
      uint32_t key = a.key[r % AHEAD], t;

      if (r + AHEAD < b->nraw) ahead_put(&a, b, r + AHEAD, b->raw[r + AHEAD]);
      if (r + AHEAD / 2 < b->nraw) ahead_near(&a, b, r + AHEAD / 2);
      t = find(b, s, id, key);

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

/* One pass: the dump's order did not allow it (a class dump after its
 * instances, a super missing): what was built goes, the histogram goes
 * on, and hprof_graph_finish reads the dump once more. */
static void drop(struct build *b)
{
  struct hp_graph *g = b->g;

  b->late = 1;
  b->cur = 0;
  free(b->slot);
  free(b->raw);
  free(b->rootid);
  free(b->bm);
  free(b->bbase);
  free(b->side);
  b->bm = NULL;
  b->bbase = b->side = NULL;
  b->slot = NULL;
  b->raw = b->rootid = NULL;
  hprof_graph_free(g);
}

/* One pass: class c's layout at its first instance (of n field bytes):
 * its chain's field bytes, and its references' offsets when n is that (so
 * what is kept is at most what this instance took in the dump). 0 when
 * the chain is not all there yet. */
static int layout(struct build *b, uint32_t c, uint32_t n)
{
  struct hprof *h = b->h;
  uint64_t fb = 0;
  uint32_t at = c, steps = 0, from = b->nroff, pos = 0;

  if (c >= b->nlay) {
    uint32_t want = h->ncls > c ? h->ncls : c + 1;

    b->rstart = xrealloc(b->rstart, (size_t)want * sizeof(*b->rstart));
    b->rlen = xrealloc(b->rlen, (size_t)want * sizeof(*b->rlen));
    b->rfb = xrealloc(b->rfb, (size_t)want * sizeof(*b->rfb));
    for (; b->nlay < want; b->nlay++) b->rstart[b->nlay] = RS_TODO;
  }
  for (;;) {
    const struct hp_class *k = &h->cls[at];

    if (!k->dumped || steps++ > h->ncls) return 0;
    for (uint32_t f = 0; f < k->nfields; f++)
      fb += (uint64_t)hp_type_size(h->ftype[k->fields + f], h->idsize);
    if (!k->super) break;
    if ((at = hp_map_get(&h->classes, k->super)) == HP_NONE) return 0;
  }
  b->rfb[c] = fb > UINT32_MAX ? UINT32_MAX : (uint32_t)fb;
  b->rstart[c] = RS_WALK;
  if (fb != n) return 1;
  for (at = c; at != HP_NONE; at = hp_super(h, at)) {
    const struct hp_class *k = &h->cls[at];

    for (uint32_t f = 0; f < k->nfields; f++) {
      int t = h->ftype[k->fields + f];

      if (t == HP_OBJECT) {
        if (b->nroff == b->caproff) {
          b->caproff = b->caproff ? b->caproff * 2 : 1024;
          b->roff = xrealloc(b->roff, (size_t)b->caproff * sizeof(*b->roff));
        }
        b->roff[b->nroff++] = pos;
      }
      pos += (uint32_t)hp_type_size(t, h->idsize);
    }
    if (!h->cls[at].super) break;
  }
  b->rstart[c] = from;
  b->rlen[c] = b->nroff - from;
  return 1;
}

static void one_root(void *ctx, int kind, uint64_t id, uint32_t thread,
                     uint32_t frame)
{
  if (!((struct build *)ctx)->late) on_root(ctx, kind, id, thread, frame);
}

static void one_class(void *ctx, uint32_t c)
{
  if (!((struct build *)ctx)->late) on_class(ctx, c);
}

static void one_instance(void *ctx, uint64_t id, uint64_t cls,
                         const unsigned char *v, uint32_t n)
{
  struct build *b = ctx;
  uint32_t i, c = class_of_id(b, cls);

  hprof_histo_instance(b->x, c);
  if (b->late) return;
  if (c == HP_NONE ||
      ((c >= b->nlay || b->rstart[c] == RS_TODO) && !layout(b, c, n))) {
    drop(b);
    return;
  }
  if (!(i = add_object(b, id, 0x21))) return;
  b->g->cls[i] = c; /* its shallow size once the histogram has it */
  instance_refs(b, c, v, n, b->rfb[c], RS_WALK);
}

static void one_objarray(void *ctx, uint64_t id, uint64_t cls, uint32_t count)
{
  struct build *b = ctx;
  uint32_t i, c = class_of_id(b, cls);

  hprof_histo_objarray(b->x, c, count);
  if (b->late) return;
  if (c == HP_NONE) {
    drop(b);
    return;
  }
  if (!(i = add_object(b, id, 0x22))) return;
  b->g->cls[i] = c;
  b->g->shallow[i] = (uint32_t)(hprof_array_size(b->h, HP_OBJECT, count) >> 3);
}

static void one_elements(void *ctx, const unsigned char *ids, uint32_t first,
                         uint32_t n)
{
  if (!((struct build *)ctx)->late) on_elements(ctx, ids, first, n);
}

static void one_primarray(void *ctx, uint64_t id, int t, uint32_t count,
                          const unsigned char *v)
{
  struct build *b = ctx;
  uint32_t i;

  hprof_histo_primarray(b->x, t, count);
  if (b->late || !(i = add_object(b, id, 0x23))) return;
  b->g->cls[i] = (uint32_t)t; /* its class once the histogram has it */
  b->g->shallow[i] = (uint32_t)(hprof_array_size(b->h, t, count) >> 3);
}

struct hp_gbuild {
  struct build b;
};

struct hp_gbuild *hprof_graph_start(struct hp_graph *g, struct hp_histo *x,
                                    struct hp_visit *v)
{
  struct hp_gbuild *gb = xzalloc(sizeof(*gb));
  struct build *b = &gb->b;

  memset(g, 0, sizeof(*g));
  b->g = g;
  b->h = x->h;
  b->x = x;
  b->one = 1;
  reserve(b, 1024);
  super_root(g);
  memset(v, 0, sizeof(*v));
  v->ctx = b;
  v->root = one_root;
  v->klass = one_class;
  v->instance = one_instance;
  v->objarray = one_objarray;
  v->elements = one_elements;
  v->primarray = one_primarray;
  return gb;
}

static void build_free(struct build *b)
{
  free(b->slot);
  b->slot = NULL;
  free(b->bm);
  free(b->bbase);
  free(b->side);
  b->bm = NULL;
  b->bbase = b->side = NULL;
  free(b->raw);
  free(b->rootid);
  free(b->rstart);
  free(b->rlen);
  free(b->rfb);
  free(b->roff);
}

void hprof_graph_abandon(struct hp_gbuild *gb)
{
  if (!gb) return;
  build_free(&gb->b);
  hprof_graph_free(gb->b.g);
  free(gb);
}

/* Every id has its index: references and roots become indexes, and the
 * limit on references is said. */
static int build_end(struct build *b, int rc)
{
  if (!rc || rc == HP_ESHORT) {
    pack_ids(b->g);
    if (!bitmap(b)) table(b);
    resolve(b);
    if (!rc && b->too_many) {
      snprintf(b->h->why, sizeof(b->h->why),
               "more than %" PRIu64
               " references and GC roots (the graph's limit)",
               HP_MAX_EDGES);
      b->h->at = b->h->end;
      rc = HP_EFORMAT;
    }
  }
  return rc;
}

int hprof_graph_finish(struct hp_gbuild *gb, int fd)
{
  struct build *b = &gb->b;
  struct hp_graph *g = b->g;
  struct hprof *h = b->h;
  int rc;

  if (b->late) {
    build_free(b);
    free(gb);
    return hprof_graph_build(g, h, fd, NULL);
  }
  for (uint32_t i = 1; i < g->n; i++) {
    uint32_t c = g->cls[i];

    if (g->kind[i] == 0x21)
      g->shallow[i] = c < h->ncls ? h->cls[c].size >> 3 : 0;
    else if (g->kind[i] == 0x23)
      g->cls[i] = h->prim_class[c];
  }
  rc = build_end(b, 0);
  build_free(b);
  free(gb);
  return rc;
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
  super_root(g);
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
  rc = build_end(&b, rc);
  build_free(&b);
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
  uint32_t *dfn =
      take((size_t)n * sizeof(*dfn), TAKE_WHOLE);          /* index -> number */
  uint32_t *parent = take((size_t)n * sizeof(*parent), 0); /* by number */
  uint32_t *semi, *label, *anc, *idom, *vertex, *poff, *pred, *stack, *stpos;
  /* the edges that are not the DFS tree's, (target << 32 | source) by
   * number: a heap is mostly a tree, so these are few, and a node
   * without any has its DFS parent as its semi-dominator */
  uint64_t *nt, nnt = 0, capnt = g->nedges / 4 + 1024;

  for (uint32_t r = 0; r < g->nroots; r++) rootobj[r] = g->roots[r].obj;
  for (uint32_t i = 0; i < n; i++) dfn[i] = HP_NONE;
  /* Depth-first numbering with an explicit stack (node, next edge); a
   * stack's pages are touched only as deep as the graph goes. */
  stack = take((size_t)n * sizeof(*stack), 0);
  stpos = take(((size_t)n + 1) * sizeof(*stpos), 0);
  pool_drain(); /* nothing waits through the peak */
  nt = xmalloc((size_t)capnt * sizeof(*nt));
  {
    uint32_t sp = 0;

    dfn[0] = cnt;
    parent[cnt++] = 0;
    stack[sp] = 0;
    stpos[sp++] = 0;
    while (sp) {
      uint32_t v = stack[sp - 1], dv = dfn[v];
      uint64_t m;
      const uint32_t *s = hp_graph_succ(g, rootobj, v, &m);
      uint32_t k = stpos[sp - 1];

      /* the edges to nodes already numbered, up to the next new one */
      for (; k < m; k++) {
        uint32_t dw = dfn[s[k]];

        if (dw == HP_NONE) break;
        if (parent[dw] == dv || dw == dv) continue; /* adds nothing */
        if (nnt == capnt) {
          capnt *= 2;
          nt = xrealloc(nt, (size_t)capnt * sizeof(*nt));
        }
        nt[nnt++] = (uint64_t)dw << 32 | dv;
      }
      if (k == m) {
        sp--;
        continue;
      }
      {
        uint32_t w = s[k];

        stpos[sp - 1] = k + 1;
        dfn[w] = cnt;
        parent[cnt++] = dv;
        stack[sp] = w;
        stpos[sp++] = 0;
      }
    }
  }
  free(rootobj);
  if (!g->keep_edges) {
    give(g->off, ((size_t)n + 1) * sizeof(*g->off));
    free(g->edge);
    g->off = g->edge = NULL;
  }
  /* The other predecessors by number: counted, then placed from each
   * node's end down (poff[w] ends at w's start; poff[cnt]: all). */
  poff = stpos;
  memset(poff, 0, ((size_t)cnt + 1) * sizeof(*poff));
  for (uint64_t k = 0; k < nnt; k++) poff[nt[k] >> 32]++;
  for (uint32_t a = 0; a < cnt; a++) poff[a + 1] += poff[a];
  pred = xmalloc((size_t)(nnt ? nnt : 1) * sizeof(*pred));
  for (uint64_t k = nnt; k-- > 0;) pred[--poff[nt[k] >> 32]] = (uint32_t)nt[k];
  free(nt);
  /* Semi-dominators, in reverse number order: the DFS parent, or a
   * smaller one through another predecessor. */
  semi = take((size_t)cnt * sizeof(*semi), TAKE_WHOLE);
  label = take((size_t)cnt * sizeof(*label), TAKE_WHOLE);
  anc = take((size_t)cnt * sizeof(*anc), TAKE_WHOLE);
  for (uint32_t a = 0; a < cnt; a++) {
    semi[a] = label[a] = a;
    anc[a] = HP_NONE;
  }
  for (uint32_t w = cnt - 1; w > 0; w--) {
    uint32_t sw = parent[w];

    for (uint32_t k = poff[w]; k < poff[w + 1]; k++) {
      uint32_t v = pred[k], u = v, sp = 0;

      if (v < w) { /* not linked yet: itself */
        if (v < sw) sw = v;
        continue;
      }
      /* eval(v): compress the path to the forest root, top first. */
      if (anc[anc[v]] != HP_NONE) {
        for (uint32_t x = v; anc[anc[x]] != HP_NONE; x = anc[x])
          stack[sp++] = x;
        while (sp) {
          uint32_t x = stack[--sp];

          if (semi[label[anc[x]]] < semi[label[x]]) label[x] = label[anc[x]];
          anc[x] = anc[anc[x]];
        }
      }
      u = label[v];
      if (semi[u] < sw) sw = semi[u];
    }
    semi[w] = sw;
    anc[w] = parent[w];
  }
  /* freed, not kept for what comes: the parents and the numbers are
   * the next arrays of their size, the retained sizes are bigger */
  free(label);
  free(anc);
  free(stack);
  free(pred);
  free(poff);
  /* Immediate dominators: the nearest common ancestor walk from each
   * parent, in place of semi (idom[d] for d < w is final). */
  idom = semi;
  for (uint32_t w = 1; w < cnt; w++) {
    uint32_t s = semi[w], d = parent[w];

    while (d > s) d = idom[d];
    idom[w] = d;
  }
  give(parent, (size_t)n * sizeof(*parent));
  vertex = take((size_t)cnt * sizeof(*vertex), TAKE_WHOLE);
  for (uint32_t i = 0; i < n; i++)
    if (dfn[i] != HP_NONE) vertex[dfn[i]] = i;
  give(dfn, (size_t)n * sizeof(*dfn));
  /* Retained sizes: children before their dominator. */
  g->retained = take((size_t)n * sizeof(*g->retained), TAKE_ZERO | TAKE_WHOLE);
  g->idom = take((size_t)n * sizeof(*g->idom), TAKE_WHOLE);
  pool_drain();
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
    if (g->idom[i] == HP_NONE && g->kind[i] != HP_DEAD) {
      g->unreachable++;
      g->unreachable_bytes += hp_graph_shallow(g, i);
    }
  give(idom, (size_t)cnt * sizeof(*idom));
  give(vertex, (size_t)cnt * sizeof(*vertex));
}

void hprof_dom_children(const struct hp_graph *g, uint32_t **coff,
                        uint32_t **child)
{
  uint32_t n = g->n;
  uint32_t *o = take(((size_t)n + 2) * sizeof(*o), TAKE_ZERO | TAKE_WHOLE);
  uint32_t *c = take((size_t)n * sizeof(*c) + 1, TAKE_WHOLE);

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
  uint32_t *coff, *child, *stack, *it;
  uint32_t *onpath = xzalloc(((size_t)h->ncls + 1) * sizeof(*onpath));
  uint32_t sp = 0;

  memset(out, 0, (size_t)h->ncls * sizeof(*out));
  hprof_dom_children(g, &coff, &child); /* the dominators' blocks */
  pool_drain();
  /* touched only as deep as the tree goes: new pages */
  stack = xmalloc(((size_t)n + 1) * sizeof(*stack));
  it = xmalloc(((size_t)n + 1) * sizeof(*it)); /* by depth */
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
  pool_drain();
}
