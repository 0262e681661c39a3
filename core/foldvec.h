/* foldvec.h - the byte scans of the stack folder (core/fold*.c) at
 * vector speed: SSE2 on x86-64 and NEON on aarch64 (both part of every
 * such machine), portable C elsewhere or when built with -DJT_PORTABLE
 * (the unit tests build both and compare them; `CFLAGS=-DJT_PORTABLE
 * ./build.sh test collapse` runs the command tests on the portable path).
 *
 * A mask has one bit per byte, bit i for byte i. Loads stay within the
 * bytes named.
 */
#ifndef FOLDVEC_H
#define FOLDVEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(JT_PORTABLE)
#define FV_PORTABLE 1
#elif defined(__SSE2__)
#define FV_SSE2 1
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define FV_NEON 1
#include <arm_neon.h>
#else
#define FV_PORTABLE 1
#endif

#define FV_INLINE __attribute__((always_inline))

/* FV_AVX2 (with FV_SSE2, defined by the includer with an FV_NAME of its
 * own): the scans, the hash and the compare 32 bytes a step, in
 * functions built for AVX2, which the includer calls only where the CPU
 * has it (fv_avx2). The same numbers as the SSE2 and portable paths. */
#undef FV_TARGET
#if defined(FV_AVX2) && defined(FV_SSE2)
#include <immintrin.h>
#define FV_TARGET __attribute__((target("avx2")))
#else
#undef FV_AVX2
#define FV_TARGET
#endif

#ifndef FV_NAME /* the unit tests build the portable path under other names */
#define FV_NAME(x) x
#endif

#ifdef FV_NEON
/* The byte mask of a compare result (bytes 0xff or 0): weigh each byte
 * by its bit, then add neighbours three times. */
static inline FV_INLINE uint64_t fv_neon_mask64(uint8x16_t a, uint8x16_t b,
                                                uint8x16_t c, uint8x16_t d)
{
  static const uint8_t w[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t wt = vld1q_u8(w), s, t;

  s = vpaddq_u8(vandq_u8(a, wt), vandq_u8(b, wt));
  t = vpaddq_u8(vandq_u8(c, wt), vandq_u8(d, wt));
  s = vpaddq_u8(s, t);
  s = vpaddq_u8(s, s);
  return vgetq_lane_u64(vreinterpretq_u64_u8(s), 0);
}
#endif

/* The mask of the bytes of p[0..16) equal to c. */
static inline FV_INLINE FV_TARGET unsigned FV_NAME(fv_eq16)(const char *p,
                                                            char c)
{
#if defined(FV_SSE2)
  return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
      _mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8(c)));
#elif defined(FV_NEON)
  uint8x16_t z = vdupq_n_u8(0);

  return (unsigned)fv_neon_mask64(
      vceqq_u8(vld1q_u8((const uint8_t *)p), vdupq_n_u8((uint8_t)c)), z, z, z);
#else
  unsigned m = 0;

  for (int i = 0; i < 16; i++) m |= (unsigned)(p[i] == c) << i;
  return m;
#endif
}

/* The mask of the bytes of p[0..64) that are '\n': where lines end. */
static inline FV_INLINE FV_TARGET uint64_t FV_NAME(fv_nl64)(const char *p)
{
#if defined(FV_AVX2)
  const __m256i nl = _mm256_set1_epi8('\n');
#define FV_NL(o)                                                               \
  (uint64_t)(uint32_t) _mm256_movemask_epi8(_mm256_cmpeq_epi8(                 \
      _mm256_loadu_si256((const __m256i *)(const void *)(p + (o))), nl))
  return FV_NL(0) | FV_NL(32) << 32;
#undef FV_NL
#elif defined(FV_SSE2)
  const __m128i nl = _mm_set1_epi8('\n');
#define FV_NL(o)                                                               \
  (uint64_t)(unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(                       \
      _mm_loadu_si128((const __m128i *)(const void *)(p + (o))), nl))
  return FV_NL(0) | FV_NL(16) << 16 | FV_NL(32) << 32 | FV_NL(48) << 48;
#undef FV_NL
#elif defined(FV_NEON)
  const uint8_t *u = (const uint8_t *)p;
  uint8x16_t nl = vdupq_n_u8('\n');

  return fv_neon_mask64(
      vceqq_u8(vld1q_u8(u), nl), vceqq_u8(vld1q_u8(u + 16), nl),
      vceqq_u8(vld1q_u8(u + 32), nl), vceqq_u8(vld1q_u8(u + 48), nl));
#else
  uint64_t m = 0;

  for (int i = 0; i < 64; i++) m |= (uint64_t)(p[i] == '\n') << i;
  return m;
#endif
}

/* The offset of the first c in p[0..n), or n: sixteen bytes a step (32
 * with AVX2) while they last. */
static inline FV_TARGET size_t FV_NAME(fv_find)(const char *p, size_t n, char c)
{
  size_t i = 0;

#if defined(FV_AVX2)
  const __m256i v = _mm256_set1_epi8(c);

  for (; i + 32 <= n; i += 32) {
    unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
        _mm256_loadu_si256((const __m256i *)(const void *)(p + i)), v));

    if (m) return i + (size_t)__builtin_ctz(m);
  }
#endif
  for (; i + 16 <= n; i += 16) {
    unsigned m = FV_NAME(fv_eq16)(p + i, c);

    if (m) return i + (size_t)__builtin_ctz(m);
  }
  while (i < n && p[i] != c) i++;
  return i;
}

/* The offset of the first '\n' in p[0..n), or n. */
static inline FV_TARGET size_t FV_NAME(fv_find_nl)(const char *p, size_t n)
{
  return FV_NAME(fv_find)(p, n, '\n');
}

/* The mask of the bytes of a[0..16) that differ from b's. */
static inline FV_INLINE FV_TARGET unsigned FV_NAME(fv_ne16)(const char *a,
                                                            const char *b)
{
#if defined(FV_SSE2)
  return 0xffffu ^ (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
                       _mm_loadu_si128((const __m128i *)(const void *)a),
                       _mm_loadu_si128((const __m128i *)(const void *)b)));
#elif defined(FV_NEON)
  uint8x16_t z = vdupq_n_u8(0);

  return 0xffffu ^
         (unsigned)fv_neon_mask64(vceqq_u8(vld1q_u8((const uint8_t *)a),
                                           vld1q_u8((const uint8_t *)b)),
                                  z, z, z);
#else
  unsigned m = 0;

  for (int i = 0; i < 16; i++) m |= (unsigned)(a[i] != b[i]) << i;
  return m;
#endif
}

/* The fold's hash of a stack: NH over 32-bit words (each pair of words
 * plus a key of its position multiplied to 64 bits, the products
 * summed; two 16-byte chunks of different bytes at one place collide
 * with a chance of 2^-32), sixteen bytes a vector multiply (32 with
 * AVX2), then one 64-bit multiply that folds the sums, the length and
 * ctx together. Up to 128 bytes the 32-byte chunks lie at 32 * j or as
 * far as the stack lets them (overlapping then), each with its own key:
 * no branch on the length within 33 to 128 bytes, the stacks of method
 * names only; 129 to 256 bytes: the first 128 and the last 128
 * (overlapping), again with no branch. Longer: 128 bytes a step into a
 * chain of multiplies (so that the order of the steps counts), then the
 * last 128 bytes. Loads stay within s[0..n). The same numbers on every
 * path: NH is a sum, whatever the width that adds it. */
#ifndef FV_ONCE /* what the paths share (the unit tests include this twice) */
#define FV_ONCE
/* NH's keys: random for each run (core/fold.c's fv_seed, before the first
 * fold), so that no file can be made whose stacks collide in the table
 * (a quadratic look-up); the same in every thread and path of a run. */
extern uint32_t fv_hkey[64] __attribute__((aligned(32)));
void fv_seed(void);
/* Whether this CPU runs the AVX2 path (set by fv_seed; 0 elsewhere). */
extern int fv_avx2;

static inline FV_INLINE uint64_t fv_mix(uint64_t a, uint64_t b)
{
  __uint128_t m = (__uint128_t)a * b;

  return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* One word pair of NH: (x + k0) * (y + k1), 32-bit sums, 64-bit product. */
static inline FV_INLINE uint64_t fv_nh2(uint32_t x, uint32_t y,
                                        const uint32_t *k)
{
  return (uint64_t)(uint32_t)(x + k[0]) * (uint32_t)(y + k[1]);
}
#endif

/* fv_acc: two 64-bit sums (lo, hi); FV_NH adds the NH of 16 bytes p
 * with the key k[0..4). fv_wacc: the same sums, maybe wider; FV_WNH adds
 * the NH of 32 bytes with k[0..8); FV_WLO, FV_WHI read them. */
#if defined(FV_SSE2)
#define fv_acc __m128i
#define FV_ACC0() _mm_setzero_si128()
/* acc + NH of p[0..16) with key k[0..4) */
#define FV_NH(acc, p, k)                                                       \
  do {                                                                         \
    __m128i x_ =                                                               \
        _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)),     \
                      _mm_load_si128((const __m128i *)(const void *)(k)));     \
    acc = _mm_add_epi64(acc, _mm_mul_epu32(x_, _mm_shuffle_epi32(x_, 0xf5)));  \
  } while (0)
#define FV_ADD(a, b) _mm_add_epi64(a, b)
#define FV_LO(acc) ((uint64_t)_mm_cvtsi128_si64(acc))
#define FV_HI(acc) ((uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc)))
#elif defined(FV_NEON)
#define fv_acc uint64x2_t
#define FV_ACC0() vdupq_n_u64(0)
#define FV_NH(acc, p, k)                                                       \
  do {                                                                         \
    uint64x2_t x_ = vreinterpretq_u64_u32(vaddq_u32(                           \
        vreinterpretq_u32_u8(vld1q_u8((const uint8_t *)(p))), vld1q_u32(k)));  \
    acc = vmlal_u32(acc, vmovn_u64(x_), vshrn_n_u64(x_, 32));                  \
  } while (0)
#define FV_ADD(a, b) vaddq_u64(a, b)
#define FV_LO(acc) vgetq_lane_u64(acc, 0)
#define FV_HI(acc) vgetq_lane_u64(acc, 1)
#else
#define fv_acc struct fv_acc2
#ifndef FV_ACC2
#define FV_ACC2
struct fv_acc2 {
  uint64_t lo, hi;
};
#endif
#define FV_ACC0() ((fv_acc){0, 0})
#define FV_NH(acc, p, k)                                                       \
  do {                                                                         \
    uint32_t w_[4];                                                            \
    memcpy(w_, (p), 16);                                                       \
    (acc).lo += fv_nh2(w_[0], w_[1], (k));                                     \
    (acc).hi += fv_nh2(w_[2], w_[3], (k) + 2);                                 \
  } while (0)
#define FV_ADD(a, b) ((fv_acc){(a).lo + (b).lo, (a).hi + (b).hi})
#define FV_LO(acc) ((acc).lo)
#define FV_HI(acc) ((acc).hi)
#endif

#if defined(FV_AVX2)
#define fv_wacc __m256i
#define FV_WACC0() _mm256_setzero_si256()
#define FV_WNH(acc, p, k)                                                      \
  do {                                                                         \
    __m256i x_ = _mm256_add_epi32(                                             \
        _mm256_loadu_si256((const __m256i *)(const void *)(p)),                \
        _mm256_load_si256((const __m256i *)(const void *)(k)));                \
    acc = _mm256_add_epi64(                                                    \
        acc, _mm256_mul_epu32(x_, _mm256_shuffle_epi32(x_, 0xf5)));            \
  } while (0)
#define FV_WADD(a, b) _mm256_add_epi64(a, b)
/* the two halves' sums added: lanes 0 + 2 and 1 + 3 */
#define FV_WNARROW(acc)                                                        \
  _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1))
#define FV_WLO(acc) FV_LO(FV_WNARROW(acc))
#define FV_WHI(acc) FV_HI(FV_WNARROW(acc))
#else
#define fv_wacc fv_acc
#define FV_WACC0() FV_ACC0()
#define FV_WNH(acc, p, k)                                                      \
  do {                                                                         \
    FV_NH(acc, (p), (k));                                                      \
    FV_NH(acc, (p) + 16, (k) + 4);                                             \
  } while (0)
#define FV_WADD(a, b) FV_ADD(a, b)
#define FV_WLO(acc) FV_LO(acc)
#define FV_WHI(acc) FV_HI(acc)
#endif

/* a, b + NH of p[0..128) with keys k[0..32), 32-byte chunks in turn */
#define FV_NH128(a, b, p, k)                                                   \
  do {                                                                         \
    FV_WNH(a, (p), (k));                                                       \
    FV_WNH(b, (p) + 32, (k) + 8);                                              \
    FV_WNH(a, (p) + 64, (k) + 16);                                             \
    FV_WNH(b, (p) + 96, (k) + 24);                                             \
  } while (0)

static inline FV_INLINE FV_TARGET uint64_t FV_NAME(fv_hash)(const char *s,
                                                            size_t n,
                                                            int64_t ctx)
{
  const uint32_t *k = fv_hkey;
  uint64_t lo, hi;

  if (n < 16) {
    uint32_t w[4];

    if (n >= 8) {
      memcpy(w, s, 8), memcpy(w + 2, s + n - 8, 8);
    } else if (n >= 4) {
      memcpy(w, s, 4), memcpy(w + 1, s + n - 4, 4), w[2] = w[3] = 0;
    } else {
      w[0] = n ? (uint32_t)(unsigned char)s[0] << 16 |
                     (uint32_t)(unsigned char)s[n / 2] << 8 |
                     (unsigned char)s[n - 1]
               : 0;
      w[1] = w[2] = w[3] = 0;
    }
    lo = fv_nh2(w[0], w[1], k), hi = fv_nh2(w[2], w[3], k + 2);
  } else if (n <= 32) {
    fv_acc a = FV_ACC0();

    FV_NH(a, s, k);
    FV_NH(a, s + n - 16, k + 4);
    lo = FV_LO(a), hi = FV_HI(a);
  } else if (n <= 128) {
    fv_wacc a = FV_WACC0(), b = FV_WACC0();
    size_t l = n - 32;

    FV_WNH(a, s, k);
    FV_WNH(b, s + (l < 32 ? l : 32), k + 8);
    FV_WNH(a, s + (l < 64 ? l : 64), k + 16);
    FV_WNH(b, s + l, k + 24);
    a = FV_WADD(a, b);
    lo = FV_WLO(a), hi = FV_WHI(a);
  } else if (n <= 256) {
    fv_wacc a = FV_WACC0(), b = FV_WACC0();

    FV_NH128(a, b, s, k);
    FV_NH128(a, b, s + n - 128, k + 32);
    a = FV_WADD(a, b);
    lo = FV_WLO(a), hi = FV_WHI(a);
  } else {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    size_t i = 0;

    for (; i + 128 < n; i += 128) {
      fv_wacc a = FV_WACC0(), b = FV_WACC0();

      FV_NH128(a, b, s + i, k);
      a = FV_WADD(a, b);
      h = fv_mix(h ^ FV_WLO(a), FV_WHI(a) + k[0]);
    }
    {
      fv_wacc a = FV_WACC0(), b = FV_WACC0();

      FV_NH128(a, b, s + n - 128, k + 32);
      a = FV_WADD(a, b);
      lo = FV_WLO(a) ^ h, hi = FV_WHI(a);
    }
  }
  return fv_mix(lo ^ 0xa4093822299f31d0ULL ^ n,
                hi ^ 0x452821e638d01377ULL ^ (uint64_t)ctx << 17);
}
#undef FV_NH128
#undef FV_NH
#undef FV_LO
#undef FV_HI
#undef FV_ADD
#undef FV_ACC0
#undef fv_acc
#undef FV_WNH
#undef FV_WNARROW
#undef FV_WLO
#undef FV_WHI
#undef FV_WADD
#undef FV_WACC0
#undef fv_wacc

/* memcmp(a, b, n) == 0, sixteen bytes a load (32 with AVX2); within 33
 * to 128 bytes no branch on n. */
static inline FV_INLINE FV_TARGET int FV_NAME(fv_same)(const char *a,
                                                       const char *b, size_t n)
{
  uint64_t x, y;

#if defined(FV_AVX2)
#define FV_EQ(o)                                                               \
  _mm256_cmpeq_epi8(                                                           \
      _mm256_loadu_si256((const __m256i *)(const void *)(a + (o))),            \
      _mm256_loadu_si256((const __m256i *)(const void *)(b + (o))))
#define FV_AND(x, y) _mm256_and_si256(x, y)
#define FV_ALL(x) (_mm256_movemask_epi8(x) == -1)
#define FV_EQ128(o)                                                            \
  FV_AND(FV_AND(FV_EQ(o), FV_EQ((o) + 32)),                                    \
         FV_AND(FV_EQ((o) + 64), FV_EQ((o) + 96)))
  if (n > 32 && n <= 128) { /* no branch on n: four 32s at 32 * j or as
                               far as n lets them (overlapping then) */
    size_t l = n - 32;

    return FV_ALL(FV_AND(FV_AND(FV_EQ(0), FV_EQ(l < 32 ? l : 32)),
                         FV_AND(FV_EQ(l < 64 ? l : 64), FV_EQ(l))));
  }
  if (n > 128 && n <= 256) /* the first 128 and the last 128 bytes */
    return FV_ALL(FV_AND(FV_EQ128(0), FV_EQ128(n - 128)));
  if (n > 256) { /* 128 a step, then the last 128 bytes */
    for (; n > 128; a += 128, b += 128, n -= 128)
      if (!FV_ALL(FV_EQ128(0))) return 0;
    a -= 128 - n, b -= 128 - n; /* back, within the key */
    return FV_ALL(FV_EQ128(0));
  }
#undef FV_EQ128
#undef FV_EQ
#undef FV_AND
#undef FV_ALL
#endif
#if defined(FV_SSE2) || defined(FV_NEON)
#if defined(FV_SSE2)
#define FV_EQ(o)                                                               \
  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + (o))),    \
                 _mm_loadu_si128((const __m128i *)(const void *)(b + (o))))
#define FV_AND(x, y) _mm_and_si128(x, y)
#define FV_ALL(x) (_mm_movemask_epi8(x) == 0xffff)
#else
#define FV_EQ(o)                                                               \
  vceqq_u8(vld1q_u8((const uint8_t *)a + (o)),                                 \
           vld1q_u8((const uint8_t *)b + (o)))
#define FV_AND(x, y) vandq_u8(x, y)
#define FV_ALL(x) (vminvq_u8(x) == 0xff)
#endif
  if (n >= 16 && n <= 32) /* two sixteens, overlapping when n < 32 */
    return FV_ALL(FV_AND(FV_EQ(0), FV_EQ(n - 16)));
  if (n > 32 && n <= 128) { /* no branch on n: eight sixteens at 16 * j or
                               as far as n lets them (overlapping then) */
    size_t l = n - 16;

    return FV_ALL(
        FV_AND(FV_AND(FV_AND(FV_EQ(0), FV_EQ(16)),
                      FV_AND(FV_EQ(l < 32 ? l : 32), FV_EQ(l < 48 ? l : 48))),
               FV_AND(FV_AND(FV_EQ(l < 64 ? l : 64), FV_EQ(l < 80 ? l : 80)),
                      FV_AND(FV_EQ(l < 96 ? l : 96), FV_EQ(l)))));
  }
  if (n > 128 && n <= 256) { /* the first 128 and the last 128 bytes */
    const char *c = a + n - 128, *d = b + n - 128;

#define FV_EQ2(x, y, o)                                                        \
  FV_AND(FV_AND(FV_EQ(o), FV_EQ((o) + 16)),                                    \
         FV_AND(FV_EQ((o) + 32), FV_EQ((o) + 48)))
    if (!FV_ALL(FV_AND(FV_EQ2(a, b, 0), FV_EQ2(a, b, 64)))) return 0;
    a = c, b = d;
    return FV_ALL(FV_AND(FV_EQ2(a, b, 0), FV_EQ2(a, b, 64)));
#undef FV_EQ2
  }
  if (n > 256) { /* sixty-four a step, then the last 64 bytes (which may
                    overlap the bytes already compared) */
    for (; n > 64; a += 64, b += 64, n -= 64)
      if (!FV_ALL(FV_AND(FV_AND(FV_EQ(0), FV_EQ(16)),
                         FV_AND(FV_EQ(32), FV_EQ(48)))))
        return 0;
    a -= 64 - n, b -= 64 - n; /* back, within the key */
    return FV_ALL(
        FV_AND(FV_AND(FV_EQ(0), FV_EQ(16)), FV_AND(FV_EQ(32), FV_EQ(48))));
  }
#undef FV_EQ
#undef FV_AND
#undef FV_ALL
#endif
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    memcpy(&x, a, 8), memcpy(&y, b, 8);
    if (x != y) return 0;
  }
  if (n >= 4) { /* the last four to seven bytes as two words */
    uint32_t c, d, e, g;

    memcpy(&c, a, 4), memcpy(&d, b, 4);
    memcpy(&e, a + n - 4, 4), memcpy(&g, b + n - 4, 4);
    return c == d && e == g;
  }
  while (n--)
    if (*a++ != *b++) return 0;
  return 1;
}

#endif
