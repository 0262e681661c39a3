/* pprof.c - pprof profiles from folded stacks (pprof.h)
 *
 * profile.proto (perftools.profiles, proto3) written from its field
 * numbers: Profile {1 sample_type, 2 sample, 3 mapping, 4 location,
 * 5 function, 6 string_table, 9 time_nanos, 10 duration_nanos,
 * 11 period_type, 12 period, 13 comment}. Varints throughout (no zigzag:
 * int64 fields are two's complement), messages as length-delimited fields,
 * repeated numbers packed. Parca wants the ids 1..N in the order the
 * messages come, so each table is written in the order its entries were
 * made; string 0 is "". One mapping, "[jvm]", says functions and lines are
 * known, so pprof never tries to symbolize the addresses.
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/gz.h"
#include "core/pprof.h"
#include "core/strset.h"

struct loc {
  int64_t fn, line; /* function id, line (0: none) */
  uint64_t addr;
};

struct pprof {
  struct pprof_opts o;
  struct strset strs, fns, locs, addrs;
  struct buf sbytes, fbytes, lbytes, abytes;
  int64_t *fname;  /* function id - 1 -> its name's string */
  struct loc *loc; /* location id - 1 -> what it is */
  size_t nloc, loc_cap, nfn, fn_cap;
  struct buf samples, msg, ids, packed;
  int64_t types[2][2], period_type[2], thread_key, mapping_name;
  int64_t comment[8]; /* string ids, 0 ends */
  int ncols;
};

enum { WT_VARINT = 0, WT_LEN = 2 };

static void varint(struct buf *b, uint64_t v)
{
  char c[10];
  int n = 0;

  while (v >= 0x80) {
    c[n++] = (char)(v | 0x80);
    v >>= 7;
  }
  c[n++] = (char)v;
  buf_add(b, c, (size_t)n);
}

static void field_int(struct buf *b, int field, uint64_t v)
{
  varint(b, (uint64_t)field << 3 | WT_VARINT);
  varint(b, v);
}

static void field_bytes(struct buf *b, int field, const void *p, size_t n)
{
  varint(b, (uint64_t)field << 3 | WT_LEN);
  varint(b, n);
  buf_add(b, p, n);
}

static int64_t str_id(struct pprof *p, const char *s, size_t n)
{
  return strset_intern(&p->sbytes, &p->strs, s, n, 0, (int64_t)p->strs.used)->n;
}

static int64_t cstr_id(struct pprof *p, const char *s)
{
  return str_id(p, s, strlen(s));
}

static const struct {
  const char *word;
  enum pprof_kind kind;
} kinds[] = {{"cpu", PPROF_CPU},    {"cputime", PPROF_CPU},
             {"native", PPROF_CPU}, {"alloc", PPROF_ALLOC},
             {"lock", PPROF_LOCK},  {"wall", PPROF_WALL}};

enum pprof_kind pprof_kind_of(const char *event)
{
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (event && !strcmp(event, kinds[i].word)) return kinds[i].kind;
  return PPROF_VALUE;
}

/* Go's column names per kind (a Go program's own profiles), the period's
 * type; PPROF_VALUE's one column by what its values count. */
static void columns(struct pprof *p)
{
  static const char *const names[][6] = {
      {"samples", "count", "cpu", "nanoseconds", "cpu", "nanoseconds"},
      {"alloc_objects", "count", "alloc_space", "bytes", "space", "bytes"},
      {"contentions", "count", "delay", "nanoseconds", "contentions", "count"},
      {NULL},
      {"samples", "count", "wall", "nanoseconds", "wall", "nanoseconds"}};
  const char *u = p->o.unit ? p->o.unit : "samples";

  if (p->o.kind != PPROF_VALUE) {
    const char *const *n = names[p->o.kind];

    p->ncols = 2;
    for (int i = 0; i < 4; i++) p->types[i / 2][i % 2] = cstr_id(p, n[i]);
    p->period_type[0] = cstr_id(p, n[4]);
    p->period_type[1] = cstr_id(p, n[5]);
    return;
  }
  p->ncols = 1;
  if (!strcmp(u, "bytes")) {
    p->types[0][0] = cstr_id(p, "space");
    p->types[0][1] = cstr_id(p, "bytes");
  } else if (!strcmp(u, "ns")) {
    p->types[0][0] = cstr_id(p, "delay");
    p->types[0][1] = cstr_id(p, "nanoseconds");
  } else {
    p->types[0][0] = cstr_id(p, "samples");
    p->types[0][1] = cstr_id(p, "count");
  }
}

struct pprof *pprof_new(const struct pprof_opts *o)
{
  struct pprof *p = xzalloc(sizeof(*p));

  p->o = *o;
  cstr_id(p, ""); /* string 0 */
  columns(p);
  p->thread_key = cstr_id(p, "thread");
  p->mapping_name = cstr_id(p, "[jvm]");
  for (const char *c = o->comment; c && *c;) {
    size_t n = strcspn(c, "\n"), k = 0;

    while (k < sizeof(p->comment) / sizeof(p->comment[0]) - 1 && p->comment[k])
      k++;
    if (n && k < sizeof(p->comment) / sizeof(p->comment[0]) - 1)
      p->comment[k] = str_id(p, c, n);
    c += n + (c[n] == '\n');
  }
  p->o.comment = NULL;
  p->o.unit = NULL;
  return p;
}

/* A stable non-zero address for a location, distinct from every other
 * one of this profile (FNV-1a of its name and line; taken: the next). */
static uint64_t address(struct pprof *p, const char *s, size_t n, int64_t line)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  char key[8];

  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  h = (h ^ (uint64_t)line) * 0x100000001b3ULL;
  h = (h >> 4 | 1) << 4; /* aligned, never 0 */
  for (;; h += 16) {
    size_t before = p->addrs.used;

    memcpy(key, &h, 8);
    strset_intern(&p->abytes, &p->addrs, key, 8, 0, 0);
    if (p->addrs.used != before) return h;
  }
}

/* "name:42" -> the line 42 and *n cut to "name"; else 0. The agent's
 * "name:-1" (no line table) and "name:-2" (native), Java's numbers for
 * "unknown", are cut to "name" with no line. */
static int64_t split_line(const char *s, size_t *n)
{
  size_t i = *n;
  int64_t line = 0, mul = 1;

  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && *n - i < 9) {
    line += (s[i - 1] - '0') * mul;
    mul *= 10;
    i--;
  }
  if (i == *n || i < 2) return 0;
  if (s[i - 1] == '-' && i >= 3 && s[i - 2] == ':') {
    *n = i - 2;
    return 0;
  }
  if (s[i - 1] != ':') return 0;
  *n = i - 1;
  return line;
}

/* The location id of one frame, made when new. */
static uint64_t location(struct pprof *p, const char *s, size_t n)
{
  int64_t line = split_line(s, &n), fn;
  struct strset_entry *e;
  char key[8];

  e = strset_intern(&p->fbytes, &p->fns, s, n, 0, (int64_t)p->fns.used + 1);
  fn = e->n;
  if ((size_t)fn > p->nfn) {
    if (p->nfn == p->fn_cap) {
      p->fn_cap = p->fn_cap * 2 + 256;
      p->fname = xrealloc(p->fname, p->fn_cap * sizeof(*p->fname));
    }
    p->fname[p->nfn++] = str_id(p, s, n);
  }
  memcpy(key, &fn, 8);
  e = strset_intern(&p->lbytes, &p->locs, key, 8, line, (int64_t)p->nloc + 1);
  if ((size_t)e->n <= p->nloc) return (uint64_t)e->n;
  if (p->nloc == p->loc_cap) {
    p->loc_cap = p->loc_cap * 2 + 256;
    p->loc = xrealloc(p->loc, p->loc_cap * sizeof(*p->loc));
  }
  p->loc[p->nloc].fn = fn;
  p->loc[p->nloc].line = line;
  p->loc[p->nloc].addr = address(p, s, n, line);
  return ++p->nloc;
}

void pprof_add(struct pprof *p, const char *key, size_t len, int64_t count,
               int64_t value)
{
  const char *end = key + len, *s = key;
  int64_t thread = -1, v[2] = {count, value};
  size_t nids;
  uint64_t *ids;

  p->ids.len = 0;
  p->msg.len = 0;
  while (s < end) {
    const char *semi = memchr(s, ';', (size_t)(end - s));
    size_t n = (size_t)((semi ? semi : end) - s);
    uint64_t id;

    if (p->o.thread_root && thread < 0) {
      thread = str_id(p, s, n);
    } else {
      id = location(p, s, n);
      buf_add(&p->ids, &id, sizeof(id));
    }
    s += n + 1;
  }
  if ((p->o.kind == PPROF_CPU && p->o.accounted) || p->o.kind == PPROF_WALL)
    v[1] = value;
  else if (p->o.kind == PPROF_CPU &&
           __builtin_mul_overflow(count, p->o.period, &v[1]))
    v[1] = INT64_MAX;
  if (p->o.kind == PPROF_VALUE) v[0] = value;
  /* the locations leaf first: a packed list of varints */
  ids = (uint64_t *)(void *)p->ids.p;
  nids = p->ids.len / sizeof(*ids);
  p->packed.len = 0;
  for (size_t i = nids; i-- > 0;) varint(&p->packed, ids[i]);
  if (nids) field_bytes(&p->msg, 1, p->packed.p, p->packed.len);
  p->packed.len = 0;
  for (int i = 0; i < p->ncols; i++) varint(&p->packed, (uint64_t)v[i]);
  field_bytes(&p->msg, 2, p->packed.p, p->packed.len);
  if (thread >= 0) {
    p->packed.len = 0;
    field_int(&p->packed, 1, (uint64_t)p->thread_key);
    field_int(&p->packed, 2, (uint64_t)thread);
    field_bytes(&p->msg, 3, p->packed.p, p->packed.len);
  }
  field_bytes(&p->samples, 2, p->msg.p, p->msg.len);
}

void pprof_add_folds(struct pprof *p, const struct fold_stack *v, size_t n,
                     const struct fold_stack *c, size_t m)
{
  size_t j = 0;

  for (size_t i = 0; i < n; i++) {
    int64_t count = v[i].value;
    int cmp = 1;

    if (c) {
      while (j < m && (cmp = fold_stack_cmp(&c[j], &v[i])) < 0) j++;
      count = j < m && !cmp ? c[j].value : 0;
    }
    pprof_add(p, v[i].key, v[i].len, count, v[i].value);
  }
}

/* Flush msg as field f of the profile. */
static void emit(struct gz *z, struct buf *out, int f, const struct buf *msg)
{
  out->len = 0;
  field_bytes(out, f, msg->p, msg->len);
  gz_write(z, out->p, out->len);
}

static void value_type(struct pprof *p, struct gz *z, int f, const int64_t *t)
{
  p->msg.len = 0;
  field_int(&p->msg, 1, (uint64_t)t[0]);
  field_int(&p->msg, 2, (uint64_t)t[1]);
  emit(z, &p->packed, f, &p->msg);
}

static void tables(struct pprof *p, struct gz *z)
{
  struct buf line = {0};

  p->msg.len = 0;
  field_int(&p->msg, 1, 1);
  field_int(&p->msg, 5, (uint64_t)p->mapping_name);
  field_int(&p->msg, 7, 1); /* has_functions */
  field_int(&p->msg, 9, 1); /* has_line_numbers */
  emit(z, &p->packed, 3, &p->msg);
  for (size_t i = 0; i < p->nloc; i++) {
    line.len = 0;
    field_int(&line, 1, (uint64_t)p->loc[i].fn);
    if (p->loc[i].line) field_int(&line, 2, (uint64_t)p->loc[i].line);
    p->msg.len = 0;
    field_int(&p->msg, 1, i + 1);
    field_int(&p->msg, 2, 1);
    field_int(&p->msg, 3, p->loc[i].addr);
    field_bytes(&p->msg, 4, line.p, line.len);
    emit(z, &p->packed, 4, &p->msg);
  }
  for (size_t i = 0; i < p->fns.used; i++) {
    p->msg.len = 0;
    field_int(&p->msg, 1, i + 1);
    field_int(&p->msg, 2, (uint64_t)p->fname[i]);
    field_int(&p->msg, 3, (uint64_t)p->fname[i]);
    emit(z, &p->packed, 5, &p->msg);
  }
  for (size_t i = 0; i < p->strs.used; i++) {
    const struct strset_entry *e = &p->strs.e[i];

    p->msg.len = 0;
    field_bytes(&p->msg, 6, p->sbytes.p + e->off, e->len);
    gz_write(z, p->msg.p, p->msg.len);
  }
  buf_free(&line);
}

int pprof_write(struct pprof *p, FILE *f)
{
  struct gz *z = xmalloc(sizeof(*z));
  int rc;

  gz_start(z, f);
  for (int i = 0; i < p->ncols; i++) value_type(p, z, 1, p->types[i]);
  gz_write(z, p->samples.p, p->samples.len);
  tables(p, z);
  p->msg.len = 0;
  if (p->o.time_ns) field_int(&p->msg, 9, (uint64_t)p->o.time_ns);
  if (p->o.duration_ns) field_int(&p->msg, 10, (uint64_t)p->o.duration_ns);
  gz_write(z, p->msg.p, p->msg.len);
  if (p->o.kind != PPROF_VALUE) value_type(p, z, 11, p->period_type);
  p->msg.len = 0;
  if (p->o.kind == PPROF_CPU) field_int(&p->msg, 12, (uint64_t)p->o.period);
  if (p->o.kind == PPROF_LOCK) field_int(&p->msg, 12, 1);
  for (int k = 0; p->comment[k]; k++)
    field_int(&p->msg, 13, (uint64_t)p->comment[k]);
  gz_write(z, p->msg.p, p->msg.len);
  rc = gz_finish(z);
  free(z);
  return rc;
}

void pprof_free(struct pprof *p)
{
  if (!p) return;
  strset_free(&p->strs);
  strset_free(&p->fns);
  strset_free(&p->locs);
  strset_free(&p->addrs);
  buf_free(&p->sbytes);
  buf_free(&p->fbytes);
  buf_free(&p->lbytes);
  buf_free(&p->abytes);
  buf_free(&p->samples);
  buf_free(&p->msg);
  buf_free(&p->ids);
  buf_free(&p->packed);
  free(p->fname);
  free(p->loc);
  free(p);
}

int pprof_write_folds(FILE *out, const struct pprof_opts *o,
                      struct fold *values, struct fold *counts)
{
  const struct fold_stack *v, *c = NULL;
  size_t n = fold_result(values, &v), m = 0;
  struct pprof *p = pprof_new(o);
  int rc;

  if (counts) m = fold_result(counts, &c);
  pprof_add_folds(p, v, n, c, m);
  rc = pprof_write(p, out);
  pprof_free(p);
  return rc;
}
