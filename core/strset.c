/* strset.c - a set of byte strings, numbered as they come (strset.h)
 *
 * The hash reads the key eight bytes at a time in four independent
 * chains, so a long stack hashes at the speed of memory; the compare goes
 * thirty-two bytes a step. Both stay within the key's bytes.
 */
/* The hot loops of folding: built for speed in a binary otherwise built
 * for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/strset.h"

#include "core/foldvec.h"

static inline uint64_t mix(uint64_t a, uint64_t b)
{
  __uint128_t m = (__uint128_t)a * b;

  return (uint64_t)m ^ (uint64_t)(m >> 64);
}

static inline uint64_t load32(const char *p)
{
  uint32_t w;

  memcpy(&w, p, 4);
  return w;
}

int strset_same(const char *a, const char *b, size_t n)
{
  return fv_same(a, b, n);
}

/* A 64-bit hash of s[0..n) and ctx: four chains of sixteen bytes a
 * multiply (they run side by side), then one; the last sixteen bytes (or
 * fewer) are read as overlapping words, never past s. */
uint64_t strset_hash(const char *s, size_t n, int64_t ctx)
{
  const uint64_t k1 = 0x13198a2e03707344ULL, k2 = 0xa4093822299f31d0ULL;
  uint64_t h = 0x243f6a8885a308d3ULL, g = 0x082efa98ec4e6c89ULL, a, b;
  uint64_t u = 0x452821e638d01377ULL, w = 0xbe5466cf34e90c6cULL;
  size_t i = 0;

  for (; i + 64 < n; i += 64) {
    h = mix(load64(s + i) ^ k1, load64(s + i + 8) ^ h);
    g = mix(load64(s + i + 16) ^ k2, load64(s + i + 24) ^ g);
    u = mix(load64(s + i + 32) ^ k1, load64(s + i + 40) ^ u);
    w = mix(load64(s + i + 48) ^ k2, load64(s + i + 56) ^ w);
  }
  for (h ^= g ^ mix(u, w); i + 16 < n; i += 16)
    h = mix(load64(s + i) ^ k1, load64(s + i + 8) ^ h);
  if (n >= 8) {
    a = load64(s + (n >= 16 ? n - 16 : 0)), b = load64(s + n - 8);
  } else if (n >= 4) {
    a = load32(s), b = load32(s + n - 4);
  } else {
    a = n ? (uint64_t)(unsigned char)s[0] << 16 |
                (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1]
          : 0;
    b = 0;
  }
  h = mix(a ^ k1, b ^ h);
  return mix(h ^ n, k2 ^ (uint64_t)ctx);
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

  if (t->used * 2 >= t->icap) { /* grow the index, keep it half empty */
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
