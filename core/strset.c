/* strset.c - a set of byte strings, numbered as they come (strset.h)
 *
 * The hash (strset_hash_in, strset.h) reads the key eight bytes at a
 * time in four independent chains, so a long stack hashes at the speed of
 * memory; the compare goes thirty-two bytes a step. Both stay within the
 * key's bytes.
 */
/* The hot loops of folding: built for speed in a binary otherwise built
 * for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/strset.h"

#include "core/foldvec.h"

int strset_same(const char *a, const char *b, size_t n)
{
  return fv_same(a, b, n);
}

uint64_t strset_hash(const char *s, size_t n, int64_t ctx)
{
  return strset_hash_in(s, n, ctx);
}

struct strset_entry *strset_intern(struct buf *bytes, struct strset *t,
                                   const char *key, size_t len, int64_t ctx,
                                   int64_t init)
{
  return strset_intern_h(bytes, t, key, len, ctx, init,
                         strset_hash(key, len, ctx));
}

struct strset_entry *strset_intern_h(struct buf *bytes, struct strset *t,
                                     const char *key, size_t len, int64_t ctx,
                                     int64_t init, uint64_t h)
{
  uint64_t mask;
  uintptr_t k = (uintptr_t)key, b = (uintptr_t)bytes->p;
  struct strset_entry *e;
  size_t i;

  if (t->used << (1 + !!t->sparse) >= t->icap) { /* grow the index */
    t->icap = t->icap ? t->icap * 2 : 1024;
    free(t->index);
    t->index = xzalloc(t->icap * sizeof(*t->index));
    for (size_t j = 0; j < t->used; j++) {
      for (i = t->e[j].hash & (t->icap - 1); t->index[i];
           i = (i + 1) & (t->icap - 1))
        ;
      t->index[i] = (t->e[j].hash >> 32 << 32) | (j + 1);
    }
  }
  mask = t->icap - 1;
  for (i = h & mask; t->index[i]; i = (i + 1) & mask) {
    if (t->index[i] >> 32 != h >> 32) continue;
    e = &t->e[(uint32_t)t->index[i] - 1];
    if (e->hash != h || e->len != len || e->ctx != ctx) continue;
    /* a long stack is seldom in cache: ask for all of it at once */
    for (size_t o = 0; o < len; o += 64)
      __builtin_prefetch(bytes->p + e->off + o);
    if (fv_same(bytes->p + e->off, key, len)) return e;
  }
  /* the bytes first: a mapped key may fault (SIGBUS) while copied */
  if (k >= b && k + len <= b + bytes->len) {
    k -= b;
  } else {
    k = bytes->len;
    buf_add(bytes, key, len);
  }
  if (t->used == t->cap)
    t->e = xrealloc(t->e, (t->cap = t->cap * 2 + 256) * sizeof(*t->e));
  e = &t->e[t->used++];
  t->index[i] = (h >> 32 << 32) | t->used;
  *e = (struct strset_entry){h, k, len, init, ctx};
  return e;
}

void strset_free(struct strset *t)
{
  free(t->e);
  free(t->index);
}
