/* jfr_wire.c - the bytes of a JFR recording: varints, strings, values
 *
 * Facts (docs/jfr.md §2): integers are LEB128-style varints of at most
 * nine bytes, the ninth holding eight bits, padded forms legal; int fields
 * are 32-bit patterns, no zig-zag. Strings start with an encoding tag
 * (null, empty, pool key, UTF-8, UTF-16 units as varints, Latin-1). A value
 * is decoded by its type in the metadata: primitives, strings, pool keys,
 * arrays (a count, never more than the bytes left) or inline structs
 * (nesting bounded by JFR_MAX_DEPTH, every step paid from a budget).
 */
/* The record walk and value decoding are the hot loops of reading a
 * recording: built for speed in a binary otherwise built for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/jfr_int.h"

uint64_t jfr_varint_long(struct cur *c)
{
  uint64_t v = 0;

  for (int i = 0; i < 8; i++) {
    if (c->p >= c->end) {
      c->bad = 1;
      return 0;
    }
    v |= (uint64_t)(*c->p & 0x7f) << (7 * i);
    if (!(*c->p++ & 0x80)) return v;
  }
  if (c->p >= c->end) {
    c->bad = 1;
    return 0;
  }
  return v | (uint64_t)*c->p++ << 56;
}

uint8_t jfr_u8(struct cur *c)
{
  if (c->p >= c->end) {
    c->bad = 1;
    return 0;
  }
  return *c->p++;
}

static void skip(struct cur *c, uint64_t n)
{
  if (n > (uint64_t)(c->end - c->p)) {
    c->bad = 1;
    c->p = c->end;
  } else {
    c->p += n;
  }
}

/* A count read from the file, no more than the bytes left (each element
 * takes one byte at least, as the JDK's reader requires too). */
uint64_t jfr_count(struct cur *c)
{
  uint64_t n = jfr_varint(c);

  if (n > (uint64_t)(c->end - c->p)) c->bad = 1;
  return c->bad ? 0 : n;
}

static size_t jhash(uint64_t k, size_t cap)
{
  return (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

uint32_t jmap_get(const struct jmap *m, uint64_t key)
{
  if (!m->cap) return UINT32_MAX;
  for (size_t i = jhash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (!m->vals[i]) return UINT32_MAX;
    if (m->keys[i] == key) return m->vals[i] - 1;
  }
}

void jmap_put(struct jmap *m, uint64_t key, uint32_t v)
{
  size_t i;

  if (m->used * 2 >= m->cap) {
    struct jmap o = *m;

    m->cap = m->cap ? m->cap * 2 : 64;
    m->keys = xmalloc(m->cap * sizeof(*m->keys));
    m->vals = xzalloc(m->cap * sizeof(*m->vals));
    m->used = 0;
    for (i = 0; i < o.cap; i++)
      if (o.vals[i]) jmap_put(m, o.keys[i], o.vals[i] - 1);
    jmap_free(&o);
  }
  for (i = jhash(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
    if (m->keys[i] == key) {
      m->vals[i] = v + 1; /* a repeated key: the later entry wins */
      return;
    }
  m->keys[i] = key;
  m->vals[i] = v + 1;
  m->used++;
}

void jmap_free(struct jmap *m)
{
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof(*m));
}

void jmap_clear(struct jmap *m)
{
  if (m->cap) memset(m->vals, 0, m->cap * sizeof(*m->vals));
  m->used = 0;
}

/* A string: tag, then nothing (null, empty), a pool key, bytes (UTF-8,
 * Latin-1) or UTF-16 units as varints. */
void jfr_dec_string(struct cur *c, struct val *v)
{
  uint8_t tag = jfr_u8(c);
  uint64_t n = 0;
  const uint8_t *s;

  switch (tag) {
  case 0:
  case 1:
    break;
  case 2:
    n = jfr_varint(c);
    break;
  case 3:
  case 5:
    n = jfr_count(c);
    s = c->p;
    skip(c, n);
    if (v) v->s = s;
    break;
  case 4:
    n = jfr_count(c);
    s = c->p;
    for (uint64_t i = 0; i < n && !c->bad; i++) jfr_varint(c);
    if (v) {
      v->s = s;
      v->bytes = (uint32_t)(c->p - s);
    }
    break;
  default:
    c->bad = 1;
  }
  if (v) {
    v->tag = tag;
    if (tag == 2)
      v->u = n;
    else
      v->n = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
  }
}

static void utf8(struct buf *out, uint32_t cp)
{
  char b[4];
  size_t n;

  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xc0 | cp >> 6);
    b[1] = (char)(0x80 | (cp & 0x3f));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xe0 | cp >> 12);
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    b[2] = (char)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    b[0] = (char)(0xf0 | cp >> 18);
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  buf_add(out, b, n);
}

void jfr_str_utf8(const struct val *v, struct buf *out)
{
  jfr_str_utf8_max(v, out, 1 << 16);
}

void jfr_str_utf8_max(const struct val *v, struct buf *out, size_t max)
{
  size_t start = out->len;

  buf_add(out, "", 0);
  if (v->tag == 3) {
    buf_add(out, v->s, v->n < max ? v->n : max);
  } else if (v->tag == 5) {
    for (uint32_t i = 0; i < v->n && out->len - start < max; i++)
      utf8(out, v->s[i]);
  } else if (v->tag == 4) {
    struct cur c = {v->s, v->s + v->bytes, 0};
    uint32_t hi = 0;

    /* surrogate pairs joined; a lone half becomes U+FFFD */
    for (uint32_t i = 0; i < v->n && !c.bad && out->len - start < max; i++) {
      uint32_t u = (uint32_t)jfr_varint(&c) & 0xffff;

      if (u >= 0xdc00 && u < 0xe000) {
        utf8(out, hi ? 0x10000 + ((hi - 0xd800) << 10) + (u - 0xdc00) : 0xfffd);
        hi = 0;
        continue;
      }
      if (hi) utf8(out, 0xfffd);
      hi = 0;
      if (u >= 0xd800 && u < 0xdc00)
        hi = u;
      else
        utf8(out, u);
    }
    if (hi) utf8(out, 0xfffd);
  }
}

void jfr_dec_type(struct jfr *j, struct cur *c, int32_t t, struct val *v,
                  int depth)
{
  const struct jtype *ty;
  uint64_t u = 0;

  if (--j->budget < 0 || depth > JFR_MAX_DEPTH || t < 0 ||
      (size_t)t >= j->ntypes) {
    c->bad = 1;
    return;
  }
  ty = &j->types[t];
  switch (ty->kind) {
  case K_BOOL:
    u = jfr_u8(c) != 0;
    break;
  case K_BYTE:
    u = (uint64_t)(int64_t)(int8_t)jfr_u8(c);
    break;
  case K_CHAR:
    u = jfr_varint(c) & 0xffff;
    break;
  case K_SHORT:
    u = (uint64_t)(int64_t)(int16_t)jfr_varint(c);
    break;
  case K_INT:
    u = (uint64_t)(int64_t)(int32_t)jfr_varint(c);
    break;
  case K_LONG:
    u = jfr_varint(c);
    break;
  case K_FLOAT:
    for (int i = 0; i < 4; i++) u = u << 8 | jfr_u8(c);
    break;
  case K_DOUBLE:
    for (int i = 0; i < 8; i++) u = u << 8 | jfr_u8(c);
    break;
  case K_STRING:
    jfr_dec_string(c, v);
    return;
  case K_STRUCT:
    if (v) v->s = c->p;
    for (uint32_t i = 0; i < ty->nf && !c->bad; i++)
      jfr_dec_field(j, c, &j->fields[ty->f0 + i], NULL, depth + 1);
    return;
  }
  if (v) v->u = u;
}

void jfr_dec_field(struct jfr *j, struct cur *c, const struct jfield *f,
                   struct val *v, int depth)
{
  if (f->array) {
    uint64_t n = jfr_count(c);

    if (v) {
      v->u = n;
      v->s = c->p;
    }
    for (uint64_t i = 0; i < n && !c->bad; i++) {
      if (f->pool)
        jfr_varint(c);
      else
        jfr_dec_type(j, c, f->type, NULL, depth + 1);
    }
  } else if (f->pool) {
    uint64_t k = jfr_varint(c);

    if (v) v->u = k;
  } else {
    jfr_dec_type(j, c, f->type, v, depth);
  }
}
