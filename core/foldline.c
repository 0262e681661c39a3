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
  unsigned at; /* the last byte that is no digit, 0 to 7 */

  if (!nd) return 0;
  at = (unsigned)(63 - __builtin_clzll(nd)) / 8;
  /* that byte is the space, the one before it is not (from x, but for
   * the byte before the eight, which is read anyway) */
  if (at == 7 || (uint8_t)(x >> (8 * at)) != (' ' ^ '0') ||
      (at ? (uint8_t)(x >> (8 * at - 8)) : (uint8_t)(s[n - 9] ^ '0')) ==
          (' ' ^ '0'))
    return 0;
  /* the digits in the high bytes, zeros below: eight digits, the first
   * in the lowest byte; pairs, then fours, then all eight */
  d = x & ~0ULL << (8 * (at + 1));
  d = d * 10 + (d >> 8);
  d = ((d & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
       ((d >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >>
      32;
  *v = (int64_t)d;
  *k = n - 8 + at;
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
};

static void common(const struct fold *f, struct common *c)
{
  c->has_type = f->fmt != FOLD_FOLDED;
  c->ctx = fold_context(f, c->has_type);
  c->out = f->o.gc_lo >= 0 && (f->gc < f->o.gc_lo || f->gc > f->o.gc_hi);
}

/* Look up and count the n lines of group g (f->lineno is the last's). */
static void group_fold(struct fold *f, struct group *g, int n,
                       const struct common *c)
{
  uint64_t line = f->lineno, x;
  size_t mask = f->icap - 1, j;
  int i;

  for (i = 0; i < n; i++) {
    g->h[i] = fv_hash(g->s[i], g->k[i], c->ctx);
    if (f->icap) __builtin_prefetch(&f->index[g->h[i] & mask]);
  }
  for (i = 0; i < n; i++) {
    uint64_t h = g->h[i];

    g->r[i] = 0;
    if (f->icap)
      for (j = h & mask; (x = f->index[j]); j = (j + 1) & mask)
        if (x >> 32 == h >> 32) {
          const char *r = f->bytes.p + (size_t)((uint32_t)x - 1) * 8;

          g->r[i] = (size_t)((uint32_t)x - 1) * 8 + 1;
          /* its first two cache lines and its last: the rest of a long
           * stack comes in behind them as the compare walks it */
          __builtin_prefetch(r);
          __builtin_prefetch(r + 64);
          __builtin_prefetch(r + sizeof(struct fold_rec) + g->k[i] - 1);
          break;
        }
  }
  for (i = 0; i < n; i++) {
    size_t r = g->r[i] - 1, k = g->k[i];
    struct fold_rec *e;

    if (g->r[i]) {
      e = fold_rec(f, r);
      if (((e->hash ^ g->h[i]) | (e->len ^ k) | (uint64_t)(e->ctx ^ c->ctx)) ||
          !fv_same(fold_rec_key(e), g->s[i], k)) {
        r = FOLD_FULL;        /* not it: fold_find looks further */
      } else if (e->n >= 0) { /* a stack known and kept: the common case */
        f->st.samples++;
        fold_add_sat(&e->sum, f->o.samples ? 1 : g->v[i]);
        continue;
      }
    }
    f->lineno = line - (uint64_t)(n - 1 - i); /* for the reports */
    if (r == FOLD_FULL) {
      if (memchr(g->s[i], 0, k)) { /* a stack kept has none */
        fold_bad(f, "NUL byte (binary data?)");
        continue;
      }
      r = fold_find(f, g->s[i], k, c->ctx, g->h[i]);
    }
    fold_tally(f, r, c->has_type, g->v[i]);
    mask = f->icap - 1; /* the index may have grown */
  }
  f->lineno = line;
}

size_t fold_text_lines(struct fold *f, const char *p, size_t n, int eof,
                       size_t stop)
{
  size_t at = 0, e, blk = 0, whole = n & ~(size_t)63; /* of 64-byte blocks */
  uint64_t m = whole ? fv_nl64(p) : 0; /* its line ends not yet taken */
  struct group g;
  struct common c;
  int cnt = 0, more = 1;
  size_t bytes = 0;

  common(f, &c);
  while (more) {
    size_t l, k;
    int64_t v;

    if (at >= n || at >= stop) {
      more = 0;
      goto flush;
    }
    /* the end of the line at at */
    while (!m && blk + 64 < whole) {
      __builtin_prefetch(p + blk + 1024); /* past a page: not foreseen */
      m = fv_nl64(p + (blk += 64));
    }
    if (m) {
      e = blk + (size_t)__builtin_ctzll(m);
      m &= m - 1;
    } else {
      e = at > whole ? at : whole;
      e += fv_find_nl(p + e, n - e);
      blk = whole;
    }
    if (e == n && !eof) {
      more = 0;
      goto flush;
    }
    l = e - at;
    /* the common line: no comment, " <1 to 7 digits>" at its end (a NUL
     * in its stack is found when the stack is new: no stack kept has
     * one), in a --gc section asked for */
    if (l >= 9 && p[at] != '#' && !c.out && value8(p + at, l, &k, &v)) {
      f->lineno++;
      f->st.lines++;
      g.s[cnt] = p + at, g.k[cnt] = (uint32_t)k, g.v[cnt] = v;
      bytes += l;
      at = e + (e < n);
      if (++cnt < GROUP && bytes < GROUP_BYTES) continue;
    } else {
      /* the lines before it first, then it on its own */
      if (cnt) {
        group_fold(f, &g, cnt, &c);
        cnt = 0, bytes = 0;
      }
      text_line(f, p + at, l, memchr(p + at, 0, l) != NULL);
      common(f, &c);
      at = e + (e < n);
      continue;
    }
  flush:
    if (cnt) group_fold(f, &g, cnt, &c);
    cnt = 0, bytes = 0;
  }
  return at;
}

void fold_line(struct fold *f, const char *s, size_t n)
{
  fold_text_line(f, s, n, memchr(s, 0, n) != NULL);
}
