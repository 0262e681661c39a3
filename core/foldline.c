/* foldline.c - the lines of the line formats (stacks.txt, its lifetime
 * output, folded files): each line's value read from its end, its stack
 * hashed where it lies, and the look-ups of a group of lines overlapped
 * (core/fold.c keeps the records of the stacks and folds a stack seen
 * for the first time; core/foldio.c reads the input).
 */
/* The hot loops of folding: built for speed in a binary otherwise built
 * for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/fold_int.h"

/* The value ending a line: the token after its last space, an integer
 * from INT64_MIN + 1 to INT64_MAX, as strtoll would read it. Sets *k to
 * where the frames end; returns NULL or why the line is bad. */
static const char *value(const char *s, size_t n, size_t *k, int64_t *v)
{
  size_t i = n, d;
  uint64_t x = 0, ten = 1;
  int neg;

  /* mostly " <1 to 18 digits>" after a frame: read backwards at once */
  while (i && (unsigned char)(s[i - 1] - '0') < 10 && n - i < 18)
    x += (uint64_t)(s[i - 1] - '0') * ten, ten *= 10, i--;
  if (i > 1 && i < n && s[i - 1] == ' ' && s[i - 2] != ' ') {
    *v = (int64_t)x;
    *k = i - 1;
    return NULL;
  }
  i = n, x = 0;

  while (i && s[i - 1] != ' ' && n - i < 20) i--;
  if (!i || s[i - 1] != ' ') /* no space, or a token over 20 bytes */
    return memrchr(s, ' ', n) ? "value is not an integer"
                              : "no value (want 'frames value')";
  if (i == n) return "value is not an integer";
  neg = s[i] == '-';
  d = i + (s[i] == '-' || s[i] == '+');
  if (d == n) return "value is not an integer";
  for (; d < n; d++) {
    if (s[d] < '0' || s[d] > '9' || __builtin_mul_overflow(x, 10, &x) ||
        __builtin_add_overflow(x, (uint64_t)(s[d] - '0'), &x))
      return "value is not an integer";
  }
  if (x > INT64_MAX) return "value is not an integer";
  *v = neg ? -(int64_t)x : (int64_t)x;
  for (i--; i && s[i - 1] == ' ';) i--;
  *k = i;
  return i ? NULL : "no frames";
}

/* value() for the common line, in one look at its last eight bytes
 * (n >= 9): " <1 to 7 digits>" after a frame. Returns 0 when the line
 * is not that (value() decides then). */
static inline FV_INLINE int value8(const char *s, size_t n, size_t *k,
                                   int64_t *v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* a byte's bit 7 in nd: it is no digit (x > 9; x < 0x80 add without
   * carry, x >= 0x80 has it already) */
  uint64_t x = load64(s + n - 8) ^ 0x3030303030303030ULL, d;
  uint64_t nd = (((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7676767676767676ULL) | x) &
                0x8080808080808080ULL;
  unsigned sh; /* 8 * the last byte that is no digit, 0 to 6 */

  /* some byte is no digit, and not the last */
  if (!nd || (int64_t)nd < 0) return 0;
  sh = (unsigned)(63 - __builtin_clzll(nd)) & ~7u;
  /* that byte is the space, the one before it (the same place eight
   * bytes back by one) is not */
  if ((uint8_t)(x >> sh) != (' ' ^ '0') ||
      (uint8_t)(load64(s + n - 9) >> sh) == ' ')
    return 0;
  /* the digits in the high bytes, zeros below: eight digits, the first
   * in the lowest byte; pairs, then fours, then all eight */
  d = x & ~0ULL << (sh + 8);
  d = d * 10 + (d >> 8);
  d = ((d & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
       ((d >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >>
      32;
  *v = (int64_t)d;
  *k = n - 8 + sh / 8;
  return 1;
#else
  return 0;
#endif
}

/* One line of a line format, the slow way (a comment, "#GC <n>", a bad
 * line, a value not of the common kind, a NUL); nul: it holds a NUL
 * byte. Looked up at once: any line before it is counted already. */
static void text_line(struct fold *f, const char *s, size_t n, int nul)
{
  const char *why;
  long long g;
  char num[32];
  int64_t v, ctx;
  size_t k;
  int has_type;

  f->lineno++;
  f->st.lines++;
  if (n && s[n - 1] == '\r') n--;
  if (!n) return;
  if (s[0] == '#') {
    /* "#GC <n>" opens a lifetime section; other comments are skipped */
    if (n > 4 && !memcmp(s, "#GC ", 4)) {
      snprintf(num, sizeof(num), "%.*s", (int)(n - 4 < 31 ? n - 4 : 31), s + 4);
      f->gc = parse_long(num, 0, LONG_MAX, &g) ? -1 : (long)g;
    }
    return;
  }
  if (nul || (why = value(s, n, &k, &v))) {
    fold_bad(f, nul ? "NUL byte (binary data?)" : why);
    return;
  }
  if (f->o.gc_lo >= 0 && (f->gc < f->o.gc_lo || f->gc > f->o.gc_hi)) {
    f->st.skipped++;
    return;
  }
  has_type = f->fmt != FOLD_FOLDED;
  ctx = fold_context(f, has_type);
  fold_tally(f, fold_find(f, s, k, ctx, fv_hash(s, k, ctx)), has_type, v);
}

void fold_text_line(struct fold *f, const char *s, size_t n, int nul)
{
  text_line(f, s, n, nul);
}

/* The common lines are taken a group at a time, in steps over the whole
 * group: find them and read their values; hash them (the line still in
 * the L1 cache) and ask for their index slots; read the slots and ask
 * for the records they point to; compare and add. Each step is a short
 * loop with no branch to mispredict but on what the data says, and the
 * cache misses of the index and the records of one line overlap those of
 * the others instead of following them. A group ends at GROUP lines,
 * GROUP_BYTES of them (so that they stay in the L1 cache from the first
 * step to the last), or a line that is not common. */
enum { GROUP = 64, GROUP_BYTES = 16 << 10 };

struct group {
  const char *s[GROUP];
  uint32_t k[GROUP];
  int64_t v[GROUP];
  uint64_t h[GROUP];
  size_t r[GROUP]; /* the record a line's hash points to (+ 1), or 0 */
};

/* What the lines of a stretch without comments or bad lines share:
 * taken again after each such line ("#GC <n>" changes them). */
struct common {
  int64_t ctx;  /* fold_context */
  int has_type; /* the leaf is the allocated type */
  int out;      /* outside the --gc sections asked for */
  int one;      /* --samples: each line counts 1 */
};

static void common(const struct fold *f, struct common *c)
{
  c->has_type = f->fmt != FOLD_FOLDED;
  c->ctx = fold_context(f, c->has_type);
  c->out = f->o.gc_lo >= 0 && (f->gc < f->o.gc_lo || f->gc > f->o.gc_hi);
  c->one = f->o.samples;
}

/* The loops as the build has them: SSE2 on x86-64, NEON on aarch64, or
 * portable */
#define FL(x) x
#include "core/foldgroup.h"
#undef FL

#if defined(FV_SSE2) && defined(__x86_64__) && !defined(JT_NO_AVX2)
/* and again for AVX2, taken where the CPU has it (fv_avx2); built with
 * -DJT_NO_AVX2, the SSE2 path runs everywhere (as the tests force it) */
#undef FOLDVEC_H
#undef FV_NAME
#define FV_AVX2 1
#define FV_NAME(x) avx2_##x
#include "core/foldvec.h"
#define FL(x) avx2_##x
#include "core/foldgroup.h"
#undef FL
#define FL_AVX2 1
#endif

size_t fold_text_lines(struct fold *f, const char *p, size_t n, int eof,
                       size_t stop)
{
#ifdef FL_AVX2
  if (fv_avx2) return avx2_text_lines(f, p, n, eof, stop);
#endif
  return text_lines(f, p, n, eof, stop);
}

void fold_line(struct fold *f, const char *s, size_t n)
{
  fold_text_line(f, s, n, memchr(s, 0, n) != NULL);
}
