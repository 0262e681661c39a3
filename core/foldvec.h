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
static inline FV_INLINE unsigned FV_NAME(fv_eq16)(const char *p, char c)
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

/* The mask of the bytes of p[0..64) that are '\n' or NUL: where lines
 * end, and the bytes that make a line binary. */
static inline FV_INLINE uint64_t FV_NAME(fv_eol64)(const char *p)
{
#if defined(FV_SSE2)
  const __m128i nl = _mm_set1_epi8('\n'), z = _mm_setzero_si128();
  __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
  __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
  __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
  __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));

  /* written out: a loop of four is not unrolled at -O2 */
  a = _mm_or_si128(_mm_cmpeq_epi8(a, nl), _mm_cmpeq_epi8(a, z));
  b = _mm_or_si128(_mm_cmpeq_epi8(b, nl), _mm_cmpeq_epi8(b, z));
  c = _mm_or_si128(_mm_cmpeq_epi8(c, nl), _mm_cmpeq_epi8(c, z));
  d = _mm_or_si128(_mm_cmpeq_epi8(d, nl), _mm_cmpeq_epi8(d, z));
  return (uint64_t)(unsigned)_mm_movemask_epi8(a) |
         (uint64_t)(unsigned)_mm_movemask_epi8(b) << 16 |
         (uint64_t)(unsigned)_mm_movemask_epi8(c) << 32 |
         (uint64_t)(unsigned)_mm_movemask_epi8(d) << 48;
#elif defined(FV_NEON)
  const uint8_t *u = (const uint8_t *)p;
  uint8x16_t nl = vdupq_n_u8('\n'), x[4];

  for (int i = 0; i < 4; i++) {
    uint8x16_t v = vld1q_u8(u + 16 * i);

    x[i] = vorrq_u8(vceqq_u8(v, nl), vceqzq_u8(v));
  }
  return fv_neon_mask64(x[0], x[1], x[2], x[3]);
#else
  uint64_t m = 0;

  for (int i = 0; i < 64; i++) m |= (uint64_t)(p[i] == '\n' || p[i] == 0) << i;
  return m;
#endif
}

/* memcmp(a, b, n) == 0, sixteen bytes a load. */
static inline FV_INLINE int FV_NAME(fv_same)(const char *a, const char *b,
                                             size_t n)
{
  uint64_t x, y;

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
  if (n >= 16 && n <= 64) { /* no branch on n: four sixteens at 16 * j or
                               as far as n lets them (overlapping then) */
    size_t o2 = n - 16 < 16 ? n - 16 : 16, o3 = n > 32 ? n - 32 : 0;

    return FV_ALL(
        FV_AND(FV_AND(FV_EQ(0), FV_EQ(o2)), FV_AND(FV_EQ(o3), FV_EQ(n - 16))));
  }
  if (n >= 16) { /* thirty-two a step, then the rest (1 to 32 bytes) as
                    two sixteens that may overlap each other and the bytes
                    already compared */
    for (; n > 32; a += 32, b += 32, n -= 32)
      if (!FV_ALL(FV_AND(FV_EQ(0), FV_EQ(16)))) return 0;
    if (n < 16) a -= 16 - n, b -= 16 - n, n = 16; /* back, in the key */
    return FV_ALL(FV_AND(FV_EQ(0), FV_EQ(n - 16)));
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
