/* jfr_pool.c - JFR constant pools and the names built from them
 *
 * A checkpoint holds pools: "type count (key value)*", each value laid out
 * as its type's fields (docs/jfr.md §4). Entries carry no size, so every
 * pool is decoded by the metadata even when it is not kept. Kept: symbols
 * and strings (as UTF-8), classes, methods, threads and stack traces —
 * what a flame graph names. Key 0 and keys the chunk never defines are
 * "missing", never an error (§4). Names are bound by field name,
 * so field order and extra fields (JDK 25's Thread.virtual) do not matter.
 */
#include "core/jvmtool.h"
#include "core/jfr_int.h"

struct e_str {
  struct jstr s;
};

struct e_class {
  uint64_t name;
  uint8_t hidden;
};

struct e_method {
  uint64_t cls, name;
};

struct e_thread {
  struct jstr java, os;
  int64_t os_id; /* osThreadId: the tid in the JVM's pid namespace */
};

struct e_stack {
  uint32_t f0, n;
  uint8_t truncated;
};

static const size_t esize[P_COUNT] = {
    sizeof(struct e_str),    sizeof(struct e_str),    sizeof(struct e_class),
    sizeof(struct e_method), sizeof(struct e_thread), sizeof(struct e_stack)};

/* Room for one more entry of pool p under key; NULL when the pools are
 * over JFR_POOL_MAX. */
static void *pool_add(struct jfr *j, int p, uint64_t key)
{
  struct jpool *pl = &j->pools[p];

  if (pl->n == pl->cap) {
    size_t more = pl->cap ? pl->cap : 64;

    if (j->pool_bytes + more * (esize[p] + 24) > JFR_POOL_MAX) return NULL;
    j->pool_bytes += more * (esize[p] + 24);
    pl->e = xrealloc(pl->e, (pl->cap += more) * esize[p]);
  }
  jmap_put(&pl->map, key, (uint32_t)pl->n);
  return memset((char *)pl->e + pl->n++ * esize[p], 0, esize[p]);
}

static const void *pool_get(struct jfr *j, int p, uint64_t key)
{
  uint32_t i = key ? jmap_get(&j->pools[p].map, key) : UINT32_MAX;

  if (i == UINT32_MAX) {
    j->st.missing++;
    return NULL;
  }
  return (const char *)j->pools[p].e + (size_t)i * esize[p];
}

/* Keep a captured string. Returns -1 when the pools are full. */
static int keep_str(struct jfr *j, const struct val *v, struct jstr *s)
{
  size_t before = j->arena.len;

  memset(s, 0, sizeof(*s));
  if (v->tag == 2) {
    s->kind = 2;
    s->ref = v->u;
    return 0;
  }
  if (v->tag != 1 && v->tag != 3 && v->tag != 4 && v->tag != 5) return 0;
  jfr_str_utf8(v, &j->arena);
  if (j->arena.len > JFR_POOL_MAX / 2) {
    j->arena.len = before;
    return -1;
  }
  s->kind = 1;
  s->off = (uint32_t)before;
  s->len = (uint32_t)(j->arena.len - before);
  return 0;
}

/* The field indexes a pool kind binds, by name; -1 when absent. */
static void bind(const struct jfr *j, int t, const char *const *names, int *idx,
                 int n)
{
  for (int i = 0; i < n; i++) idx[i] = jfr_field(j, t, names[i]);
}

static const struct val nothing;

static const struct val *field_val(const struct jfr *j, int i)
{
  return i >= 0 ? &j->cap[i] : &nothing;
}

/* The frames of a captured StackFrame[] (count v->u, bytes from v->s). */
static int keep_frames(struct jfr *j, const struct jfield *f,
                       const struct val *v, const uint8_t *end,
                       struct e_stack *e)
{
  static const char *const names[] = {"method", "lineNumber"};
  struct val arr = *v; /* j->cap is reused for each frame */
  struct cur c = {arr.s, end, 0};
  int idx[2];

  if (f->pool || f->type < 0 || j->types[f->type].kind != K_STRUCT) return 0;
  bind(j, f->type, names, idx, 2);
  e->f0 = (uint32_t)j->nframes;
  for (uint64_t i = 0; i < arr.u && !c.bad; i++) {
    const struct jtype *ft = &j->types[f->type];

    if (j->nframes == j->frames_cap) {
      size_t more = j->frames_cap ? j->frames_cap : 256;

      if (j->pool_bytes + more * sizeof(*j->frames) > JFR_POOL_MAX) return -1;
      j->pool_bytes += more * sizeof(*j->frames);
      j->frames =
          xrealloc(j->frames, (j->frames_cap += more) * sizeof(*j->frames));
    }
    for (uint32_t k = 0; k < ft->nf && !c.bad; k++) {
      memset(&j->cap[k], 0, sizeof(j->cap[k]));
      jfr_dec_field(j, &c, &j->fields[ft->f0 + k], &j->cap[k], 2);
    }
    j->frames[j->nframes++] =
        (struct jfr_frame){field_val(j, idx[0])->u,
                           idx[1] >= 0 ? (int32_t)field_val(j, idx[1])->u : -1};
  }
  if (c.bad) return -1;
  e->n = (uint32_t)(j->nframes - e->f0);
  return 0;
}

/* One entry of pool kind p (type t) at c, kept under key. */
static int keep(struct jfr *j, struct cur *c, int p, int t, uint64_t key)
{
  static const char *const names[P_COUNT][3] = {
      {"string"},
      {NULL},
      {"name", "hidden"},
      {"type", "name"},
      {"javaName", "osName", "osThreadId"},
      {"truncated", "frames"}};
  static const int nbind[P_COUNT] = {1, 0, 2, 2, 3, 2};
  const struct jtype *ty = &j->types[t];
  int idx[3] = {-1, -1, -1};
  void *e;

  if (ty->kind == K_STRING) { /* java.lang.String: the value itself */
    memset(&j->cap[0], 0, sizeof(j->cap[0]));
    jfr_dec_type(j, c, t, &j->cap[0], 1);
    idx[0] = 0;
  } else {
    for (uint32_t i = 0; i < ty->nf && !c->bad; i++) {
      memset(&j->cap[i], 0, sizeof(j->cap[i]));
      jfr_dec_field(j, c, &j->fields[ty->f0 + i], &j->cap[i], 1);
    }
    bind(j, t, names[p], idx, nbind[p]);
  }
  if (c->bad) return -1;
  if (!(e = pool_add(j, p, key))) return -1;
  switch (p) {
  case P_SYM:
  case P_STR:
    return keep_str(j, field_val(j, idx[0]), &((struct e_str *)e)->s);
  case P_CLASS:
    ((struct e_class *)e)->name = field_val(j, idx[0])->u;
    ((struct e_class *)e)->hidden = field_val(j, idx[1])->u != 0;
    return 0;
  case P_METHOD:
    ((struct e_method *)e)->cls = field_val(j, idx[0])->u;
    ((struct e_method *)e)->name = field_val(j, idx[1])->u;
    return 0;
  case P_THREAD:
    ((struct e_thread *)e)->os_id =
        idx[2] >= 0 ? (int64_t)field_val(j, idx[2])->u : -1;
    return keep_str(j, field_val(j, idx[0]), &((struct e_thread *)e)->java) |
           keep_str(j, field_val(j, idx[1]), &((struct e_thread *)e)->os);
  default:
    ((struct e_stack *)e)->truncated = field_val(j, idx[0])->u != 0;
    if (idx[1] < 0) return 0;
    return keep_frames(j, &j->fields[ty->f0 + (uint32_t)idx[1]],
                       field_val(j, idx[1]), c->p, e);
  }
}

int jfr_pool_checkpoint(struct jfr *j, struct cur *c)
{
  uint64_t npools = jfr_count(c);

  for (uint64_t i = 0; i < npools && !c->bad; i++) {
    uint32_t t = jmap_get(&j->type_ids, jfr_varint(c));
    uint64_t n = jfr_count(c);
    int p = -1;

    if (t == UINT32_MAX || c->bad) return -1; /* cannot be skipped */
    for (int k = 0; k < P_COUNT; k++)
      if (j->pool_type[k] == (int)t) p = k;
    for (uint64_t e = 0; e < n && !c->bad; e++) {
      uint64_t key = jfr_varint(c);

      if (p < 0)
        jfr_dec_type(j, c, (int32_t)t, NULL, 1);
      else if (keep(j, c, p, (int)t, key))
        return -1;
    }
  }
  return c->bad ? -1 : 0;
}

void jfr_pool_reset(struct jfr *j)
{
  for (int p = 0; p < P_COUNT; p++) {
    j->pools[p].n = 0;
    jmap_clear(&j->pools[p].map);
  }
  j->arena.len = 0;
  j->names.len = 0;
  j->nframes = 0;
  jmap_clear(&j->name_map);
}

void jfr_pool_free(struct jfr *j)
{
  for (int p = 0; p < P_COUNT; p++) {
    free(j->pools[p].e);
    jmap_free(&j->pools[p].map);
  }
  free(j->frames);
  buf_free(&j->arena);
  buf_free(&j->names);
  jmap_free(&j->name_map);
}

/* ---- names ---- */

/* The bytes of a kept string (a String-pool reference followed once). */
static const char *str_bytes(struct jfr *j, const struct jstr *s, size_t *n)
{
  if (s->kind == 2) {
    const struct e_str *r = pool_get(j, P_STR, s->ref);

    s = r && r->s.kind == 1 ? &r->s : NULL;
  }
  if (!s || s->kind != 1) return NULL;
  *n = s->len;
  return s->len ? j->arena.p + s->off : "";
}

int jfr_event_str(struct jfr *j, int i, size_t max, struct buf *out)
{
  const struct val *v;

  if (i < 0 || !j->cap) return -1;
  v = &j->cap[i];
  if (v->tag == 2) {
    const struct e_str *r = pool_get(j, P_STR, v->u);
    size_t n;
    const char *p = r ? str_bytes(j, &r->s, &n) : NULL;

    if (!p) return -1;
    buf_add(out, p, n < max ? n : max);
    return 0;
  }
  if (v->tag == 1) return 0; /* "" */
  if (v->tag != 3 && v->tag != 4 && v->tag != 5) return -1;
  jfr_str_utf8_max(v, out, max);
  return 0;
}

static const char *symbol(struct jfr *j, uint64_t key, size_t *n)
{
  const struct e_str *e = pool_get(j, P_SYM, key);

  return e ? str_bytes(j, &e->s, n) : NULL;
}

int jfr_stack(struct jfr *j, uint64_t key, const struct jfr_frame **frames,
              int *truncated)
{
  const struct e_stack *e = pool_get(j, P_STACK, key);

  if (!e) return -1;
  *frames = e->n ? j->frames + e->f0 : NULL;
  *truncated = e->truncated;
  return (int)e->n;
}

static int unknown(struct buf *out)
{
  buf_adds(out, "[unknown]");
  return -1;
}

/* A class name of n bytes at s, appended to out as Class.getName() and a
 * thread dump spell it: internal names dotted ("java/util/ArrayList");
 * a hidden class's name is dotted already, and JDK 17's form of it,
 * "Burn$$Lambda$3+0x00007fb798000a08/1252169911" (the VM's name, then '/'
 * and the mirror's identity hash), becomes "Burn$$Lambda$3/0x00007fb798000a08"
 * as JDK 25 writes it and jstack prints it (docs/jfr.md §6): one spelling
 * in JFR's folds and thread dumps' folds. */
static void add_class_name(struct buf *out, const char *s, size_t n, int hidden)
{
  size_t at = out->len, slash = n, plus;

  if (!hidden) {
    buf_add(out, s, n);
    for (char *p = out->p + at; p < out->p + out->len; p++)
      if (*p == '/') *p = '.';
    return;
  }
  while (slash && s[slash - 1] >= '0' && s[slash - 1] <= '9') slash--;
  if (slash && slash < n && s[slash - 1] == '/') {
    for (plus = slash - 1; plus && s[plus] != '+'; plus--) {
    }
    if (s[plus] == '+' && plus + 2 < slash && !memcmp(s + plus, "+0x", 3)) {
      buf_add(out, s, plus);
      buf_addc(out, '/');
      buf_add(out, s + plus + 1, slash - 2 - plus);
      return;
    }
  }
  buf_add(out, s, n);
}

/* The class cls's name as add_class_name spells it. */
static int class_dotted(struct jfr *j, uint64_t cls, struct buf *out)
{
  const struct e_class *c = pool_get(j, P_CLASS, cls);
  const char *s;
  size_t n;

  if (!c || !(s = symbol(j, c->name, &n))) return unknown(out);
  add_class_name(out, s, n, c->hidden);
  return 0;
}

int jfr_method_name(struct jfr *j, uint64_t method, struct buf *out)
{
  uint32_t at = jmap_get(&j->name_map, method);
  const struct e_method *m;
  const char *s;
  size_t n, start;
  uint32_t len;
  int rc = -1;

  if (at == UINT32_MAX) {
    start = j->names.len;
    buf_add(&j->names, "\0\0\0\0", 5); /* length, then rc */
    if ((m = pool_get(j, P_METHOD, method)) &&
        !class_dotted(j, m->cls, &j->names) && (s = symbol(j, m->name, &n))) {
      buf_addc(&j->names, '.');
      buf_add(&j->names, s, n);
      rc = 0;
    } else {
      j->names.len = start + 5;
      unknown(&j->names);
    }
    n = j->names.len - start - 5;
    memcpy(j->names.p + start, &(uint32_t){(uint32_t)n}, 4);
    j->names.p[start + 4] = (char)(rc == 0);
    at = (uint32_t)start;
    jmap_put(&j->name_map, method, at);
  }
  memcpy(&len, j->names.p + at, 4);
  buf_add(out, j->names.p + at + 5, len);
  return j->names.p[at + 4] ? 0 : -1;
}

int jfr_class_name(struct jfr *j, uint64_t cls, struct buf *out)
{
  static const char codes[] = "ZBCSIJFD";
  static const char *const prims[] = {"boolean", "byte", "char",  "short",
                                      "int",     "long", "float", "double"};
  const struct e_class *c = pool_get(j, P_CLASS, cls);
  const char *s, *code;
  size_t n, dims = 0;

  if (!c || !(s = symbol(j, c->name, &n))) return unknown(out);
  while (dims < n && s[dims] == '[') dims++;
  if (!dims) return class_dotted(j, cls, out);
  s += dims, n -= dims;
  if (n == 1 && (code = memchr(codes, *s, 8))) {
    buf_adds(out, prims[code - codes]);
  } else {
    if (n && *s == 'L') s++, n--;
    if (n && s[n - 1] == ';') n--;
    add_class_name(out, s, n, c->hidden);
  }
  while (dims--) buf_adds(out, "[]");
  return 0;
}

int jfr_thread_name(struct jfr *j, uint64_t thread, struct buf *out)
{
  const struct e_thread *t = pool_get(j, P_THREAD, thread);
  const char *s = NULL;
  size_t n = 0;

  if (t && (!(s = str_bytes(j, &t->java, &n)) || !n))
    s = str_bytes(j, &t->os, &n);
  if (!s || !n) return unknown(out);
  buf_add(out, s, n);
  return 0;
}

int64_t jfr_thread_os_id(struct jfr *j, uint64_t thread)
{
  const struct e_thread *t = pool_get(j, P_THREAD, thread);

  return t && t->os_id > 0 ? t->os_id : -1;
}
