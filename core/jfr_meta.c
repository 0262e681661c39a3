/* jfr_meta.c - a JFR chunk's type system: its metadata record, parsed
 * into types and fields, and the lookups by name over them
 *
 * Facts (docs/jfr.md §5): the metadata record holds a string table, then
 * an element tree (root, metadata, class, field, annotation) whose
 * attributes are indexes into that table. A class has an id and a name, a
 * field a name, a class id, a dimension and whether it is a constant pool
 * key; a Timespan annotation marks a field counted in ticks. Types and
 * fields are looked up by name, per chunk, never by id or position.
 */
#include "core/jvmtool.h"
#include "core/jfr_int.h"
#include "core/strset.h"

static const char *mstr(const struct jfr *j, uint64_t i)
{
  return i < j->nmstr ? j->mstr.p + j->mstr_off[i] : NULL;
}

static int streq(const char *a, const char *b)
{
  return a && !strcmp(a, b);
}

enum ctx { C_ROOT, C_TOP, C_META, C_CLASS, C_FIELD, C_NONE };

struct attrs {
  const char *id, *name, *cls, *pool, *dim, *simple, *value;
};

static void element(struct jfr *j, struct cur *c, enum ctx ctx, int depth)
{
  const char *el = mstr(j, jfr_varint(c));
  struct attrs a = {0};
  uint64_t n = jfr_count(c);
  enum ctx sub = C_NONE;

  if (depth > 2 * JFR_MAX_DEPTH || --j->budget < 0) c->bad = 1;
  for (uint64_t i = 0; i < n && !c->bad; i++) {
    const char *k = mstr(j, jfr_varint(c)), *v = mstr(j, jfr_varint(c));

    if (!k || !v)
      c->bad = 1;
    else if (!strcmp(k, "id"))
      a.id = v;
    else if (!strcmp(k, "name"))
      a.name = v;
    else if (!strcmp(k, "class"))
      a.cls = v;
    else if (!strcmp(k, "constantPool"))
      a.pool = v;
    else if (!strcmp(k, "dimension"))
      a.dim = v;
    else if (!strcmp(k, "simpleType"))
      a.simple = v;
    else if (!strcmp(k, "value"))
      a.value = v;
  }
  if (c->bad || !el) {
    c->bad = 1;
    return;
  }
  if (ctx == C_ROOT) sub = C_TOP;
  if (ctx == C_TOP && !strcmp(el, "metadata")) sub = C_META;
  if (ctx == C_META && !strcmp(el, "class") && a.id && a.name) {
    struct jtype *t;

    if (j->ntypes % 64 == 0)
      j->types = xrealloc(j->types, (j->ntypes + 64) * sizeof(*j->types));
    t = &j->types[j->ntypes++];
    *t =
        (struct jtype){strtoull(a.id, NULL, 10), (uint32_t)(a.name - j->mstr.p),
                       K_STRUCT, (uint32_t)j->nfields, 0};
    sub = C_CLASS;
  }
  if (ctx == C_CLASS && !strcmp(el, "field") && a.name && a.cls) {
    struct jfield *f;

    if (j->nfields % 64 == 0)
      j->fields = xrealloc(j->fields, (j->nfields + 64) * sizeof(*j->fields));
    f = &j->fields[j->nfields++];
    *f = (struct jfield){(uint32_t)(a.name - j->mstr.p),
                         -1,
                         strtoull(a.cls, NULL, 10),
                         0,
                         a.dim && strcmp(a.dim, "0"),
                         streq(a.pool, "true"),
                         0};
    j->types[j->ntypes - 1].nf++;
    sub = C_FIELD;
  }
  if (ctx == C_FIELD && !strcmp(el, "annotation") && streq(a.value, "TICKS") &&
      a.cls)
    j->fields[j->nfields - 1].ann = strtoull(a.cls, NULL, 10);
  n = jfr_count(c);
  for (uint64_t i = 0; i < n && !c->bad; i++) element(j, c, sub, depth + 1);
}

static void meta_reset(struct jfr *j)
{
  j->md_len = 0;
  j->ntypes = j->nfields = j->nmstr = 0;
  j->mstr.len = 0;
  jmap_clear(&j->type_ids);
}

int jfr_metadata(struct jfr *j, char *err, size_t errlen)
{
  static const char *const prims[] = {"boolean", "byte",   "char",
                                      "short",   "int",    "long",
                                      "float",   "double", "java.lang.String"};
  static const char *const pool_names[P_COUNT] = {
      "jdk.types.Symbol", "java.lang.String", "java.lang.Class",
      "jdk.types.Method", "java.lang.Thread", "jdk.types.StackTrace"};
  struct cur c;
  uint64_t size, n, maxf = 0;
  size_t len;

  if (jfr_record(j, j->md_off, &c, &size) || jfr_varint(&c) != 0) {
    meta_reset(j);
    snprintf(err, errlen, "no metadata record at chunk offset %" PRIu64,
             j->md_off);
    return -1;
  }
  jfr_varint(&c); /* start */
  jfr_varint(&c); /* duration */
  jfr_varint(&c); /* metadata id */
  /* every chunk repeats the type system: parse it only when it changed
   * (some 100 KB a chunk: compared sixteen bytes a step, not musl's byte
   * a step) */
  len = c.bad ? 0 : (size_t)(c.end - c.p);
  if (j->ntypes && len && len == j->md_len &&
      strset_same((const char *)c.p, (const char *)j->md_prev, len))
    return 0;
  meta_reset(j);
  n = jfr_count(&c);
  j->mstr_off = xrealloc(j->mstr_off, (n + 1) * sizeof(*j->mstr_off));
  for (uint64_t i = 0; i < n && !c.bad; i++) {
    struct val v = {0};

    jfr_dec_string(&c, &v);
    j->mstr_off[j->nmstr++] = (uint32_t)j->mstr.len;
    if (v.tag == 2) c.bad = 1;
    jfr_str_utf8(&v, &j->mstr);
    buf_addc(&j->mstr, 0);
  }
  if (!c.bad) element(j, &c, C_ROOT, 0);
  if (c.bad || !j->ntypes) {
    snprintf(err, errlen, "bad metadata record at chunk offset %" PRIu64,
             j->md_off);
    return -1;
  }
  memset(j->id_small, 0, sizeof(j->id_small));
  j->md_gen++;
  for (size_t i = 0; i < j->ntypes; i++) {
    const char *name = j->mstr.p + j->types[i].name;

    jmap_put(&j->type_ids, j->types[i].id, (uint32_t)i);
    if (j->types[i].id < JFR_SMALL_IDS)
      j->id_small[j->types[i].id] = (uint32_t)i + 1;
    for (int k = 0; k < 9; k++)
      if (!strcmp(name, prims[k])) j->types[i].kind = (enum jfr_kind)(k + 1);
    if (j->types[i].nf > maxf) maxf = j->types[i].nf;
  }
  for (size_t i = 0; i < j->nfields; i++) {
    struct jfield *f = &j->fields[i];
    uint32_t t = jmap_get(&j->type_ids, f->type_id), a;

    f->type = t == UINT32_MAX ? -1 : (int32_t)t;
    a = f->ann ? jmap_get(&j->type_ids, f->ann) : UINT32_MAX;
    f->ticks = a != UINT32_MAX &&
               !strcmp(j->mstr.p + j->types[a].name, "jdk.jfr.Timespan");
  }
  for (int p = 0; p < P_COUNT; p++)
    j->pool_type[p] = jfr_type(j, pool_names[p]);
  j->vals = xrealloc(j->vals, (maxf + 1) * sizeof(*j->vals));
  j->cap = xrealloc(j->cap, (maxf + 1) * sizeof(*j->cap));
  j->cap_n = maxf + 1;
  j->md_prev = xrealloc(j->md_prev, len ? len : 1);
  memcpy(j->md_prev, c.end - len, len);
  j->md_len = len;
  return 0;
}

/* ---- lookups by name ---- */

int jfr_type(const struct jfr *j, const char *name)
{
  for (size_t i = 0; i < j->ntypes; i++)
    if (!strcmp(j->mstr.p + j->types[i].name, name)) return (int)i;
  return -1;
}

int jfr_ntypes(const struct jfr *j)
{
  return (int)j->ntypes;
}

int jfr_nfields(const struct jfr *j, int t)
{
  return t < 0 || (size_t)t >= j->ntypes ? 0 : (int)j->types[t].nf;
}

int jfr_field(const struct jfr *j, int t, const char *name)
{
  for (int i = 0; i < jfr_nfields(j, t); i++)
    if (!strcmp(j->mstr.p + j->fields[j->types[t].f0 + i].name, name)) return i;
  return -1;
}

int jfr_field_numeric(const struct jfr *j, int t, int i)
{
  const struct jfield *f;
  enum jfr_kind k;

  if (i < 0 || i >= jfr_nfields(j, t)) return 0;
  f = &j->fields[j->types[t].f0 + i];
  if (f->array || f->pool || f->type < 0) return 0;
  k = j->types[f->type].kind;
  if (k < K_BYTE || k > K_LONG) return 0;
  return f->ticks ? 2 : 1;
}
