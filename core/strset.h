/* strset.h - a set of byte strings, numbered as they come
 *
 * For the stack folder (core/fold.c): the keys' bytes live in one buffer
 * of the caller's, and a key that already lies in it is not copied again,
 * so a stack read from a mapped file costs no copy until it is new. A key
 * is its bytes and a number (ctx); each entry carries a number of the
 * caller's (n). Open addressing over a 64-bit hash, kept half empty.
 */
#ifndef STRSET_H
#define STRSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct buf;

struct strset_entry {
  uint64_t hash;
  size_t off, len;
  int64_t n;   /* stacks: the number of their total; totals: the value */
  int64_t ctx; /* stacks: what else decides how they fold */
};

struct strset {
  struct strset_entry *e;
  size_t used, cap;
  uint64_t *index; /* open addressing: hash high half, entry number + 1 */
  size_t icap;
  int sparse; /* the index kept three quarters empty, not half: a look-up
                 finds its slot first more often (no branch mispredicted) */
};

/* Eight bytes at p, unaligned. */
static inline uint64_t load64(const char *p)
{
  uint64_t w;

  memcpy(&w, p, 8);
  return w;
}

/* Four bytes at p, unaligned. */
static inline uint64_t load32(const char *p)
{
  uint32_t w;

  memcpy(&w, p, 4);
  return w;
}

static inline uint64_t strset_mix(uint64_t a, uint64_t b)
{
  __uint128_t m = (__uint128_t)a * b;

  return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* The hash strset_intern files key s[0..n) and ctx under, inline for
 * the fold's hot loop. Up to 64 bytes: four sixteens multiplied side by
 * side, at 16 * j or as far as the key lets them (overlapping then): no
 * branch on n; longer: four chains of sixteen bytes a multiply (they run
 * side by side), then one on the rest. The last sixteen bytes (or fewer)
 * are read as overlapping words, never past s. */
static inline __attribute__((always_inline)) uint64_t
strset_hash_in(const char *s, size_t n, int64_t ctx)
{
  const uint64_t k1 = 0x13198a2e03707344ULL, k2 = 0xa4093822299f31d0ULL;
  const uint64_t k3 = 0x082efa98ec4e6c89ULL, k4 = 0x452821e638d01377ULL;
  uint64_t h = 0x243f6a8885a308d3ULL, a, b;
  size_t i = 0;

  if (n <= 16) {
    if (n >= 8) {
      a = load64(s), b = load64(s + n - 8);
    } else if (n >= 4) {
      a = load32(s), b = load32(s + n - 4);
    } else {
      a = n ? (uint64_t)(unsigned char)s[0] << 16 |
                  (uint64_t)(unsigned char)s[n / 2] << 8 |
                  (unsigned char)s[n - 1]
            : 0;
      b = 0;
    }
    h = strset_mix(a ^ k1, b ^ h);
  } else if (n <= 64) {
    size_t b2 = n - 16 < 16 ? n - 16 : 16, b3 = n - 16 < 32 ? n - 16 : 32;

    h = strset_mix(load64(s) ^ k1, load64(s + 8) ^ h) ^
        strset_mix(load64(s + b2) ^ k2, load64(s + b2 + 8) ^ k3) ^
        strset_mix(load64(s + b3) ^ k3, load64(s + b3 + 8) ^ k4) ^
        strset_mix(load64(s + n - 16) ^ k4, load64(s + n - 8) ^ k1);
  } else {
    uint64_t g = k3, u = k4, w = 0xbe5466cf34e90c6cULL;

    for (; i + 64 < n; i += 64) {
      h = strset_mix(load64(s + i) ^ k1, load64(s + i + 8) ^ h);
      g = strset_mix(load64(s + i + 16) ^ k2, load64(s + i + 24) ^ g);
      u = strset_mix(load64(s + i + 32) ^ k1, load64(s + i + 40) ^ u);
      w = strset_mix(load64(s + i + 48) ^ k2, load64(s + i + 56) ^ w);
    }
    for (h ^= g ^ strset_mix(u, w); i + 16 < n; i += 16)
      h = strset_mix(load64(s + i) ^ k1, load64(s + i + 8) ^ h);
    h = strset_mix(load64(s + n - 16) ^ k1, load64(s + n - 8) ^ h);
  }
  return strset_mix(h ^ n, k2 ^ (uint64_t)ctx);
}

/* memcmp(a, b, n) == 0, thirty-two bytes a step (musl's goes by bytes). */
int strset_same(const char *a, const char *b, size_t n);

/* The entry of key[0..len) and ctx in set t, made with n = init when
 * new; its bytes are bytes->p[off .. off + len). A key that already lies
 * in bytes is not copied again. Valid until the next strset_intern. */
struct strset_entry *strset_intern(struct buf *bytes, struct strset *t,
                                   const char *key, size_t len, int64_t ctx,
                                   int64_t init);

/* The hash strset_intern files key[0..len) and ctx under. */
uint64_t strset_hash(const char *key, size_t len, int64_t ctx);

/* strset_intern with h = strset_hash(key, len, ctx) known. */
struct strset_entry *strset_intern_h(struct buf *bytes, struct strset *t,
                                     const char *key, size_t len, int64_t ctx,
                                     int64_t init, uint64_t h);

void strset_free(struct strset *t);

#endif
