/* heap_strings.c - heap --strings: duplicated String values by wasted bytes
 *
 * Two more passes over the dump after the histogram: the first reads each
 * java.lang.String's value (its array's id) and coder (JDK 9+: 0 Latin-1,
 * 1 UTF-16; JDK 8's Strings hold a char[] and have none), the second each
 * of those arrays' bytes. A value is its UTF-16 code units, whatever the
 * representation: it is hashed (two independent 64-bit hashes and its
 * length) into a table of values, so memory is per String and per
 * distinct value, and the text of a value is kept (its first
 * SAMPLE units) only once a second String has it. Wasted bytes are what
 * all copies but one take: every String of the value and every distinct
 * array they hold (G1's string deduplication makes Strings share one),
 * less one String and one array. UTF-16 arrays are read little-endian,
 * as HotSpot stores them on x86 and arm64.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/out.h"
#include "core/hprof.h"
#include "core/hprof_size.h"
#include "cmd/heap.h"

enum {
  SAMPLE = 1000, /* code units of a value kept for showing (--json) */
  WIDTH = 60,    /* code units shown in the table */
};

/* One array a String holds. */
struct aref {
  uint32_t refs; /* Strings that hold it */
  uint8_t coder; /* the first String's */
};

/* One distinct value. */
struct value {
  uint64_t h1, h2;
  uint32_t len;     /* code units */
  uint32_t strings; /* Strings with this value */
  uint32_t arrays;  /* distinct arrays holding it */
  uint64_t bytes;   /* those Strings' and arrays' shallow bytes */
  uint64_t one;     /* one String's and its array's */
  uint16_t *sample; /* the first units, kept from the second String on */
  uint32_t nsample;
};

struct strings {
  struct hprof *h;
  uint8_t *is_string;            /* per class: a java.lang.String */
  uint32_t value_off, coder_off; /* in a String's field bytes; HP_NONE */
  uint32_t need;                 /* field bytes a String must have */
  uint32_t string_size;          /* a String's shallow bytes */
  struct hp_map arrays;          /* array id -> index in refs */
  struct aref *refs;
  uint32_t nrefs, caprefs;
  struct value *v; /* open addressing on h1 */
  size_t cap, n;
  uint16_t *units; /* decoded units of the array at hand */
  size_t capunits;
  uint64_t total, nulls, big, missing; /* Strings seen; without a value;
                                          whose array is over HIN_SPAN;
                                          whose array the dump lacks */
};

/* The offsets of String's value and coder fields in its field bytes. */
static int layout(struct strings *s, uint32_t c)
{
  const struct hp_class *k = &s->h->cls[c];
  uint32_t off = 0;

  s->value_off = s->coder_off = HP_NONE;
  for (uint32_t i = 0; i < k->nfields; i++) {
    int t = s->h->ftype[k->fields + i];
    uint32_t name = hp_map_get(&s->h->names, s->h->fname[k->fields + i]);
    const char *nm = name == HP_NONE ? "" : s->h->text + name;

    if (t == HP_OBJECT && !strcmp(nm, "value")) s->value_off = off;
    if (t == HP_BYTE && !strcmp(nm, "coder")) s->coder_off = off;
    off += (uint32_t)hp_type_size(t, s->h->idsize);
  }
  s->need = off;
  return s->value_off != HP_NONE;
}

static void on_instance(void *ctx, uint64_t id, uint64_t cls,
                        const unsigned char *v, uint32_t n)
{
  struct strings *s = ctx;
  uint32_t c = hp_map_get(&s->h->classes, cls), at;
  uint64_t arr;

  (void)id;
  if (c == HP_NONE || !s->is_string[c] || n < s->need) return;
  s->total++;
  arr = hp_id(v + s->value_off, s->h->idsize);
  if (!arr) {
    s->nulls++;
    return;
  }
  if ((at = hp_map_get(&s->arrays, arr)) != HP_NONE) {
    s->refs[at].refs++;
    return;
  }
  if (s->nrefs == UINT32_MAX - 1) return;
  if (s->nrefs == s->caprefs) {
    s->caprefs = s->caprefs ? s->caprefs * 2 : 1024;
    s->refs = xrealloc(s->refs, (size_t)s->caprefs * sizeof(*s->refs));
  }
  s->refs[s->nrefs].refs = 1;
  s->refs[s->nrefs].coder = s->coder_off == HP_NONE ? 0 : v[s->coder_off] != 0;
  hp_map_add(&s->arrays, arr, s->nrefs++);
}

static void grow(struct strings *s)
{
  struct value *old = s->v;
  size_t oldcap = s->cap;

  s->cap = oldcap ? oldcap * 2 : 1024;
  s->v = xzalloc(s->cap * sizeof(*s->v));
  for (size_t i = 0; i < oldcap; i++) {
    size_t j;

    if (!old[i].strings) continue;
    for (j = old[i].h1 & (s->cap - 1); s->v[j].strings;
         j = (j + 1) & (s->cap - 1))
      ;
    s->v[j] = old[i];
  }
  free(old);
}

static void on_array(void *ctx, uint64_t id, int type, uint32_t count,
                     const unsigned char *p)
{
  struct strings *s = ctx;
  uint32_t at = hp_map_get(&s->arrays, id), n;
  uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x9e3779b97f4a7c15ULL;
  struct aref *r;
  struct value *v;
  size_t j;

  if (at == HP_NONE) return;
  r = &s->refs[at];
  if (!r->refs) return; /* an id seen twice: the first kept */
  if (type != HP_BYTE && type != HP_CHAR) return; /* counted as missing */
  if (!p) {
    s->big += r->refs;
    r->refs = 0;
    return;
  }
  n = type == HP_CHAR ? count : r->coder ? count / 2 : count;
  if (n > s->capunits) {
    s->capunits = n;
    s->units = xrealloc(s->units, (size_t)n * sizeof(*s->units) + 1);
  }
  for (uint32_t i = 0; i < n; i++) {
    uint16_t u = type == HP_CHAR ? (uint16_t)(p[2 * i] << 8 | p[2 * i + 1])
                 : r->coder      ? (uint16_t)(p[2 * i] | p[2 * i + 1] << 8)
                                 : p[i];

    s->units[i] = u;
    h1 = (h1 ^ u) * 0x100000001b3ULL;
    h2 = hp_mix(h2 + u);
  }
  h1 = hp_mix(h1 ^ n);
  if ((s->n + 1) * 2 > s->cap) grow(s);
  for (j = h1 & (s->cap - 1); s->v[j].strings; j = (j + 1) & (s->cap - 1))
    if (s->v[j].h1 == h1 && s->v[j].h2 == h2 && s->v[j].len == n) break;
  v = &s->v[j];
  if (!v->strings) {
    v->h1 = h1;
    v->h2 = h2;
    v->len = n;
    v->one = s->string_size + hprof_array_size(s->h, type, count);
    s->n++;
  }
  v->strings += r->refs;
  v->arrays++;
  v->bytes +=
      (uint64_t)r->refs * s->string_size + hprof_array_size(s->h, type, count);
  if (v->strings > 1 && !v->sample) { /* a second String: worth showing */
    v->nsample = n < SAMPLE ? n : SAMPLE;
    v->sample = xmalloc((size_t)v->nsample * sizeof(*v->sample) + 1);
    if (v->nsample)
      memcpy(v->sample, s->units, (size_t)v->nsample * sizeof(*v->sample));
  }
  r->refs = 0; /* seen: what is left are arrays the dump lacks */
}

static uint64_t wasted(const struct value *v)
{
  return v->bytes > v->one ? v->bytes - v->one : 0;
}

static int by_waste(const void *a, const void *b)
{
  const struct value *x = *(const struct value *const *)a;
  const struct value *y = *(const struct value *const *)b;
  uint64_t wx = wasted(x), wy = wasted(y);
  uint32_t n = x->nsample < y->nsample ? x->nsample : y->nsample;

  if (wx != wy) return wx > wy ? -1 : 1;
  if (x->strings != y->strings) return x->strings > y->strings ? -1 : 1;
  for (uint32_t i = 0; i < n; i++)
    if (x->sample[i] != y->sample[i])
      return x->sample[i] < y->sample[i] ? -1 : 1;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* Units as a quoted, escaped line for a terminal: printable ASCII as it
 * is, \" \\ \n \r \t, everything else \uXXXX; at most width units. */
static void put_text(struct buf *b, const struct value *v, uint32_t width)
{
  uint32_t n = v->nsample < width ? v->nsample : width;

  buf_addc(b, '"');
  for (uint32_t i = 0; i < n; i++) {
    uint16_t u = v->sample[i];

    if (u == '"' || u == '\\')
      buf_printf(b, "\\%c", u);
    else if (u == '\n')
      buf_adds(b, "\\n");
    else if (u == '\r')
      buf_adds(b, "\\r");
    else if (u == '\t')
      buf_adds(b, "\\t");
    else if (u >= 0x20 && u < 0x7f)
      buf_addc(b, (char)u);
    else
      buf_printf(b, "\\u%04x", u);
  }
  buf_addc(b, '"');
  if (v->len > n) buf_adds(b, "...");
}

/* The kept units as UTF-8 (a lone surrogate as U+FFFD), for JSON. */
static void put_utf8(struct buf *b, const struct value *v)
{
  for (uint32_t i = 0; i < v->nsample; i++) {
    uint32_t c = v->sample[i];
    char o[4];

    if (c >= 0xd800 && c < 0xdc00 && i + 1 < v->nsample &&
        v->sample[i + 1] >= 0xdc00 && v->sample[i + 1] < 0xe000)
      c = 0x10000 + ((c - 0xd800) << 10) + (v->sample[++i] - 0xdc00);
    else if (c >= 0xd800 && c < 0xe000)
      c = 0xfffd;
    if (c < 0x80) {
      buf_addc(b, (char)c);
    } else if (c < 0x800) {
      o[0] = (char)(0xc0 | c >> 6);
      o[1] = (char)(0x80 | (c & 0x3f));
      buf_add(b, o, 2);
    } else if (c < 0x10000) {
      o[0] = (char)(0xe0 | c >> 12);
      o[1] = (char)(0x80 | (c >> 6 & 0x3f));
      o[2] = (char)(0x80 | (c & 0x3f));
      buf_add(b, o, 3);
    } else {
      o[0] = (char)(0xf0 | c >> 18);
      o[1] = (char)(0x80 | (c >> 12 & 0x3f));
      o[2] = (char)(0x80 | (c >> 6 & 0x3f));
      o[3] = (char)(0x80 | (c & 0x3f));
      buf_add(b, o, 4);
    }
  }
}

static void print(struct strings *s, int top, int json)
{
  struct value **row = xmalloc((s->n + 1) * sizeof(*row));
  uint64_t dups = 0, waste = 0;
  size_t n = 0;
  struct buf out = {0}, t = {0};

  for (size_t i = 0; i < s->cap; i++)
    if (s->v[i].strings > 1 && s->v[i].sample) {
      row[n++] = &s->v[i];
      dups += s->v[i].strings;
      waste += wasted(&s->v[i]);
    }
  qsort(row, n, sizeof(*row), by_waste);
  if ((size_t)top < n) n = (size_t)top;
  if (json)
    buf_adds(&out, "{\"strings\": [");
  else
    buf_adds(&out, " num     #instances        #wasted  value\n"
                   "----------------------------------------------\n");
  for (size_t i = 0; i < n; i++) {
    if (json) {
      struct json_obj o;

      t.len = 0;
      put_utf8(&t, row[i]);
      buf_adds(&out, i ? ",\n  " : "\n  ");
      json_open(&o, &out, 1);
      json_str(&o, "value", t.p ? t.p : "", t.len);
      json_int(&o, "length", row[i]->len);
      json_int(&o, "instances", row[i]->strings);
      json_int(&o, "arrays", row[i]->arrays);
      json_int(&o, "wasted", (long long)wasted(row[i]));
      json_close(&o);
    } else {
      buf_printf(&out, "%4zu: %13" PRIu32 " %14" PRIu64 "  ", i + 1,
                 row[i]->strings, wasted(row[i]));
      put_text(&out, row[i], WIDTH);
      buf_addc(&out, '\n');
    }
    if (out.len > 65536) heap_flush(&out);
  }
  if (json)
    buf_printf(&out,
               "\n], \"instances\": %" PRIu64 ", \"wasted\": %" PRIu64
               ", \"all_strings\": %" PRIu64 "}\n",
               dups, waste, s->total);
  else
    buf_printf(&out, "Total%14" PRIu64 "%15" PRIu64 "\n", dups, waste);
  heap_flush(&out);
  buf_free(&out);
  buf_free(&t);
  free(row);
}

/* One pass over fd from its start with visitor v: 0 or hprof_scan's. */
static int pass(struct hprof *h, int fd, const struct hp_visit *v)
{
  struct hin in;
  int rc;

  if (lseek(fd, 0, SEEK_SET) < 0) {
    snprintf(h->why, sizeof(h->why), "cannot read it again: %s",
             strerror(errno));
    h->at = 0;
    return -errno;
  }
  if (!(rc = hin_open(&in, fd))) rc = hprof_scan(h, &in, v);
  hin_close(&in);
  return rc;
}

int heap_strings(struct hprof *h, int fd, int top, int json)
{
  struct strings s = {0};
  struct hp_visit v = {0};
  uint32_t first = HP_NONE;
  char name[64];
  int rc = 0;

  s.h = h;
  s.is_string = xzalloc((size_t)h->ncls + 1);
  for (uint32_t c = 0; c < h->ncls; c++) {
    hprof_class_name(h, c, name, sizeof(name));
    if (strcmp(name, "java.lang.String")) continue;
    s.is_string[c] = 1;
    if (first == HP_NONE) first = c;
  }
  if (first == HP_NONE || !layout(&s, first)) {
    error_msg("the dump has no java.lang.String class with a value field");
    free(s.is_string);
    return 1;
  }
  s.string_size = hprof_instance_size(h, first);
  v.ctx = &s;
  v.instance = on_instance;
  if (!(rc = pass(h, fd, &v))) {
    memset(&v, 0, sizeof(v));
    v.ctx = &s;
    v.primarray = on_array;
    v.want_prim = 1;
    rc = pass(h, fd, &v);
  }
  heap_progress_clear();
  if (rc) {
    error_msg("%s at byte %" PRIu64, h->why, h->at);
  } else {
    for (uint32_t i = 0; i < s.nrefs; i++) s.missing += s.refs[i].refs;
    if (s.missing)
      warn_msg("%" PRIu64 " Strings hold an array the dump does not have "
               "(or not of chars or bytes): left out",
               s.missing);
    if (s.big)
      warn_msg("%" PRIu64 " Strings over %d MiB not compared", s.big,
               HIN_SPAN >> 20);
    print(&s, top, json);
  }
  for (size_t i = 0; i < s.cap; i++) free(s.v[i].sample);
  free(s.v);
  free(s.units);
  free(s.refs);
  hp_map_free(&s.arrays);
  free(s.is_string);
  return rc != 0;
}
