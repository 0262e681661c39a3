/* hprof_size.c - the JVM's object sizes and the class histogram
 * (hprof_size.h)
 *
 * JDK 15+ lays fields out densely (small fields fill the gaps the
 * alignment of longs leaves, also across a class and its supers), so an
 * instance is align8(header + the sum of its fields' sizes); checked
 * against GC.class_histogram on JDK 17, 21 and 25 (test/heap.test). JDK
 * 14 and before gave each class a block of its own (legacy_block),
 * checked on JDK 11.
 */
#include "core/jvmtool.h"
#include "core/hprof_size.h"

static const struct hidden {
  const char *name;
  int bytes;
  const char *field;
} hidden[] = {
#define HIDDEN(name, bytes, field, why) {name, bytes, field},
#include "specs/heap_hidden.def"
#undef HIDDEN
};

static const char *const oops_first[] = {
#define OOPS_FIRST(name) name,
#include "specs/heap_oops_first.def"
#undef OOPS_FIRST
};

/* Does JDK 14 and before lay class at out references first (a row of
 * specs/heap_oops_first.def, defined by the boot loader)? */
static int is_oops_first(const struct hprof *h, uint32_t at)
{
  uint32_t name = h->cls[at].name;

  if (name == HP_NONE || h->cls[at].loader) return 0;
  for (size_t i = 0; i < sizeof(oops_first) / sizeof(*oops_first); i++)
    if (!strcmp(h->text + name, oops_first[i])) return 1;
  return 0;
}

/* Does class at declare an instance field named f? */
static int has_field(const struct hprof *h, uint32_t at, const char *f)
{
  const struct hp_class *k = &h->cls[at];

  for (uint32_t i = 0; i < k->nfields; i++) {
    uint32_t n = hp_map_get(&h->names, h->fname[k->fields + i]);

    if (n != HP_NONE && !strcmp(h->text + n, f)) return 1;
  }
  return 0;
}

/* The bytes HotSpot adds to class at's own fields (specs/heap_hidden.def). */
static int hidden_bytes(const struct hprof *h, uint32_t at)
{
  uint32_t name = h->cls[at].name;

  if (name == HP_NONE || h->dump_sizes) return 0;
  for (size_t i = 0; i < sizeof(hidden) / sizeof(*hidden); i++) {
    const char *f = hidden[i].field;
    int want = *f != '!';

    if (strcmp(h->text + name, hidden[i].name)) continue;
    if (!*f || has_field(h, at, f + !want) == want) return hidden[i].bytes;
  }
  return 0;
}

static uint64_t align8(uint64_t n)
{
  return (n + 7) & ~(uint64_t)7;
}

static int jvm_size(const struct hprof *h, int t)
{
  if (t == HP_OBJECT) return h->compressed ? 4 : 8;
  return hp_type_size(t, h->idsize);
}

static void on_instance(void *ctx, uint64_t id, uint64_t cls,
                        const unsigned char *v, uint32_t n)
{
  struct hp_histo *x = ctx;

  hprof_histo_instance(x, hp_class_cached(x->h, &x->cc, cls));
}

static void on_objarray(void *ctx, uint64_t id, uint64_t cls, uint32_t count)
{
  struct hp_histo *x = ctx;

  hprof_histo_objarray(x, hp_class_cached(x->h, &x->cc, cls), count);
}

static void on_primarray(void *ctx, uint64_t id, int t, uint32_t count,
                         const unsigned char *v)
{
  hprof_histo_primarray(ctx, t, count);
}

void hprof_histo_visit(struct hp_histo *x, struct hp_visit *v)
{
  memset(v, 0, sizeof(*v));
  v->ctx = x;
  v->instance = on_instance;
  v->objarray = on_objarray;
  v->primarray = on_primarray;
}

/* The JVM bytes of class c's own instance fields; -1 for a bad field. */
static uint64_t field_bytes(const struct hprof *h, const struct hp_class *k)
{
  uint64_t n = 0;

  for (uint32_t i = 0; i < k->nfields; i++)
    n += (uint64_t)jvm_size(h, h->ftype[k->fields + i]);
  return n;
}

/* The HPROF bytes of class k's own instance fields (a class dump's
 * "instance size" is the whole chain's in HotSpot's dumps, so it is not
 * used). */
static uint64_t dump_bytes(const struct hprof *h, const struct hp_class *k)
{
  uint64_t n = 0;

  for (uint32_t i = 0; i < k->nfields; i++)
    n += (uint64_t)hp_type_size(h->ftype[k->fields + i], h->idsize);
  return n;
}

/* JDK 14 and before (JDK 11, 8) lay out each class's fields in a block
 * of its own after its super's, which ends aligned to a reference's size:
 * longs and doubles first (the gap before them filled with one int, then
 * shorts, then bytes, then a compressed reference), then ints, shorts,
 * bytes, references last
 * (HotSpot's FieldsAllocationStyle 1 with CompactFields); the classes
 * of specs/heap_oops_first.def put references first and fill no gap. at:
 * the super's end; extra: the bytes HotSpot injects (8: a pointer, 12: a
 * pointer and a reference). Returns this class's end. */
static uint64_t legacy_block(const struct hprof *h, const struct hp_class *k,
                             uint64_t at, int extra, int refs_first)
{
  uint64_t n[9] = {0}; /* by size: 8, 4, 2, 1 and references (n[0]) */
  int ref = h->compressed ? 4 : 8;

  for (uint32_t i = 0; i < k->nfields; i++) {
    int t = h->ftype[k->fields + i];

    if (t == HP_OBJECT)
      n[0]++;
    else
      n[hp_type_size(t, h->idsize)]++;
  }
  if (extra == 8 || extra == 12) n[8]++;
  if (extra == 12) n[0]++;
  if (extra && extra != 8 && extra != 12) n[1] += (uint64_t)extra;
  if (refs_first && n[0]) {
    at = ((at + (uint64_t)ref - 1) & ~((uint64_t)ref - 1)) + ref * n[0];
    n[0] = 0;
  }
  if (n[8] && at % 8 && refs_first) {
    at += 8 - at % 8;
  } else if (n[8] && at % 8) { /* the gap before the longs */
    uint64_t gap = 8 - at % 8;

    if (n[4] && gap >= 4) n[4]--, gap -= 4, at += 4;
    while (n[2] && gap >= 2) n[2]--, gap -= 2, at += 2;
    while (n[1] && gap >= 1) n[1]--, gap -= 1, at += 1;
    if (n[0] && gap >= 4 && ref == 4) n[0]--, gap -= 4, at += 4;
    at += gap;
  }
  at += 8 * n[8];
  at = (at + 3) & ~(uint64_t)3;
  at += 4 * n[4];
  at = (at + 1) & ~(uint64_t)1;
  at += 2 * n[2] + n[1];
  if (n[0]) at = ((at + (uint64_t)ref - 1) & ~((uint64_t)ref - 1)) + ref * n[0];
  return (at + (uint64_t)ref - 1) & ~((uint64_t)ref - 1);
}

/* Whether h is a dump of JDK 14 or before: its String has no hashIsZero
 * (JDK 13 added it; JDK 15 brought the dense layout; 13 and 14 are
 * counted dense, wrongly, as no field tells them apart). */
static int legacy_layout(const struct hprof *h)
{
  uint32_t s = hprof_find_class(h, "java.lang.String");

  return s != HP_NONE && h->cls[s].dumped && !has_field(h, s, "hashIsZero");
}

uint32_t hprof_instance_size(const struct hprof *h, uint32_t c)
{
  return h->cls[c].size;
}

uint32_t hprof_histo_finish(struct hp_histo *x)
{
  static const char *const sig[12] = {0,    0,    0,    0,    "[Z", "[C",
                                      "[F", "[D", "[B", "[S", "[I", "[J"};
  struct hprof *h = x->h;
  uint32_t cut = 0, jlc = hprof_find_class(h, "java.lang.Class");
  int legacy = !h->dump_sizes && legacy_layout(h);

  uint32_t *chain = xmalloc(((size_t)h->ncls + 1) * sizeof(*chain));

  for (uint32_t c = 0; c < h->ncls; c++) {
    struct hp_class *k = &h->cls[c];
    uint64_t bytes = 12, hbytes = 0;
    uint32_t at = c, steps = 0;

    while (at != HP_NONE && h->cls[at].dumped && steps <= h->ncls) {
      chain[steps++] = at;
      if (!h->cls[at].super) break;
      at = hp_map_get(&h->classes, h->cls[at].super);
    }
    if (k->dumped && (at == HP_NONE || !h->cls[at].dumped || steps > h->ncls))
      cut++;
    /* From java.lang.Object down; @Contended padding (an extra of 128 or
     * more) closes its class's block: subclass fields start after it. */
    while (steps--) {
      int extra = hidden_bytes(h, chain[steps]);

      if (legacy && extra < 128)
        bytes = legacy_block(h, &h->cls[chain[steps]], bytes, extra,
                             is_oops_first(h, chain[steps]));
      else
        bytes += field_bytes(h, &h->cls[chain[steps]]) + (uint64_t)extra;
      hbytes += dump_bytes(h, &h->cls[chain[steps]]);
      if (extra >= 128) bytes = align8(bytes);
    }
    bytes = align8(bytes);
    k->size = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
    k->chain_fbytes = hbytes > UINT32_MAX ? UINT32_MAX : (uint32_t)hbytes;
    if (k->dumped && (k->name == HP_NONE || h->text[k->name] != '['))
      k->bytes = k->count * (int64_t)k->size;
  }
  free(chain);
  for (int t = 4; t < 12; t++) {
    uint32_t c = hprof_find_class(h, sig[t]);

    if (c == HP_NONE) {
      if (!x->pcount[t]) continue;
      h->cls = xrealloc(h->cls, (size_t)(h->ncls + 1) * sizeof(*h->cls));
      c = h->ncls++;
      h->capcls = h->ncls;
      memset(&h->cls[c], 0, sizeof(*h->cls));
      h->cls[c].name = HP_NONE;
      h->cls[c].dumped = 1;
    }
    h->prim_class[t] = c;
    h->cls[c].count += (int64_t)x->pcount[t];
    h->cls[c].bytes += (int64_t)x->pbytes[t];
  }
  /* java.lang.Class: the dump has a class dump per loaded class, not a
   * mirror per class the JVM counts (array and hidden classes), nor the
   * mirror's size (statics, injected fields): left out, as no row is
   * better than a wrong one. */
  if (jlc != HP_NONE) h->cls[jlc].count = h->cls[jlc].bytes = 0;
  return cut;
}
