/* foldline.c - the lines of the line formats (stacks.txt, its lifetime
 * output, folded files): each line's value read from its end, its stack
 * hashed where it lies, and the look-ups of a batch of lines overlapped
 * (core/fold.c folds a stack seen for the first time; core/foldio.c
 * reads the input).
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
  if (at == 7 || s[n - 8 + at] != ' ' || s[n - 9 + at] == ' ') return 0;
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

/* Stack lines read and waiting for their look-up: their hashes first,
 * then the index slots, then the records, then the compares, each step
 * over the batch, so that the cache misses of one line overlap those of
 * the next instead of following them. */
enum { BATCH = 16 };

struct batch {
  struct pend {
    const char *s;
    size_t k;
    int64_t v, ctx;
    uint64_t h, line;
    size_t cand; /* the record offset + 1 the hash points to, or 0 */
    int has_type;
  } p[BATCH];
  int n;
};

/* Look the batch's stacks up and count them, in the order read. */
static void resolve(struct fold *f, struct batch *b)
{
  uint64_t line = f->lineno, x;
  int n = b->n;

  b->n = 0;
  for (int i = 0; i < n; i++) {
    struct pend *q = &b->p[i];
    size_t mask = f->icap - 1, j;

    q->cand = 0;
    if (!f->icap) continue;
    for (j = q->h & mask; (x = f->index[j]); j = (j + 1) & mask)
      if (x >> 32 == q->h >> 32) {
        const char *r;

        q->cand = (size_t)((uint32_t)x - 1) * 8 + 1;
        r = f->bytes.p + q->cand - 1;
        for (size_t o = 0; o < q->k + sizeof(struct fold_rec) && o < 1024;
             o += 64)
          __builtin_prefetch(r + o);
        break;
      }
  }
  for (int i = 0; i < n; i++) {
    struct pend *q = &b->p[i];
    struct fold_rec *e = q->cand ? fold_rec(f, q->cand - 1) : NULL;
    size_t r = q->cand - 1;

    if (!e || e->hash != q->h || e->len != q->k || e->ctx != q->ctx ||
        !fv_same(fold_rec_key(e), q->s, q->k))
      r = fold_find(f, q->s, q->k, q->ctx, q->h);
    f->lineno = q->line; /* for an "empty stack" report */
    fold_tally(f, r, q->has_type, q->v);
  }
  f->lineno = line;
}

/* One line of a line format; nul: it holds a NUL byte. A stack to fold
 * joins batch b; anything that must come after the stacks before it
 * (a bad-line report, a "#GC <n>" section) resolves the batch first. */
static void text_line(struct fold *f, struct batch *b, const char *s, size_t n,
                      int nul)
{
  const char *why;
  long long g;
  char num[32];
  struct pend *q;
  int64_t v;
  size_t k;

  f->lineno++;
  f->st.lines++;
  if (n && s[n - 1] == '\r') n--;
  if (!n) return;
  if (s[0] == '#') {
    /* "#GC <n>" opens a lifetime section; other comments are skipped */
    if (n > 4 && !memcmp(s, "#GC ", 4)) {
      resolve(f, b);
      snprintf(num, sizeof(num), "%.*s", (int)(n - 4 < 31 ? n - 4 : 31), s + 4);
      f->gc = parse_long(num, 0, LONG_MAX, &g) ? -1 : (long)g;
    }
    return;
  }
  if (nul || (why = value(s, n, &k, &v))) {
    resolve(f, b);
    fold_bad(f, nul ? "NUL byte (binary data?)" : why);
    return;
  }
  if (f->o.gc_lo >= 0 && (f->gc < f->o.gc_lo || f->gc > f->o.gc_hi)) {
    f->st.skipped++;
    return;
  }
  q = &b->p[b->n++];
  q->s = s, q->k = k, q->v = v, q->line = f->lineno;
  q->has_type = f->fmt != FOLD_FOLDED;
  q->ctx = fold_context(f, q->has_type);
  q->h = fv_hash(s, k, q->ctx);
  if (f->icap) __builtin_prefetch(&f->index[q->h & (f->icap - 1)]);
  if (b->n == BATCH) resolve(f, b);
}

/* Look stack s[0..k) up and count it at once, with no batch: when the
 * stacks known so far fit in the cache, a batch only costs. The record
 * holds its hash, length, context, the stack and the sum: one place to
 * wait for after the index. */
static inline FV_INLINE void direct(struct fold *f, const char *s, size_t k,
                                    int64_t ctx, uint64_t h, int has_type,
                                    int64_t v)
{
  size_t mask = f->icap - 1, j;
  uint64_t x;

  if (f->icap)
    for (j = h & mask; (x = f->index[j]); j = (j + 1) & mask)
      if (x >> 32 == h >> 32) {
        size_t r = (size_t)((uint32_t)x - 1) * 8;
        struct fold_rec *e = fold_rec(f, r);

        if (e->hash == h && e->len == k && e->ctx == ctx &&
            fv_same(fold_rec_key(e), s, k)) {
          if (e->n >= 0) { /* a stack known and kept: the common case */
            f->st.samples++;
            fold_add_sat(&e->sum, f->o.samples ? 1 : v);
            return;
          }
          fold_tally(f, r, has_type, v);
          return;
        }
        break; /* fold_find looks further */
      }
  fold_tally(f, fold_find(f, s, k, ctx, h), has_type, v);
}

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

/* A line of a line format the common way: n >= 9, no NUL, not a
 * comment, its value of 1 to 7 digits after a space. Returns 0 for any
 * other, which text_line takes. In batch b unless now. */
static inline FV_INLINE int fast_line(struct fold *f, struct batch *b,
                                      const struct common *c, const char *s,
                                      size_t n, int now)
{
  struct pend *q;
  int64_t v;
  uint64_t h;
  size_t k;

  if (n < 9 || s[0] == '#' || !value8(s, n, &k, &v)) return 0;
  f->lineno++;
  f->st.lines++;
  if (c->out) {
    f->st.skipped++;
    return 1;
  }
  h = fv_hash(s, k, c->ctx);
  if (now) {
    direct(f, s, k, c->ctx, h, c->has_type, v);
    return 1;
  }
  q = &b->p[b->n++];
  q->s = s, q->k = k, q->v = v, q->line = f->lineno;
  q->has_type = c->has_type;
  q->ctx = c->ctx;
  q->h = h;
  if (f->icap) __builtin_prefetch(&f->index[h & (f->icap - 1)]);
  if (b->n == BATCH) resolve(f, b);
  return 1;
}

void fold_text_line(struct fold *f, const char *s, size_t n, int nul)
{
  struct batch b;

  b.n = 0;
  text_line(f, &b, s, n, nul);
  resolve(f, &b);
}

/* Below this many bytes of stacks known, a line is looked up at once;
 * above, the look-ups of a batch overlap their cache misses. */
enum { DIRECT_MAX = 1 << 20 };

size_t fold_text_lines(struct fold *f, const char *p, size_t n, int eof,
                       size_t stop)
{
  size_t at = 0, e, blk = 0, whole = n & ~(size_t)63; /* of 64-byte blocks */
  uint64_t m = whole ? fv_eol64(p) : 0; /* its line ends not yet taken */
  struct batch b;
  struct common c;
  int nul, now = f->bytes.len < DIRECT_MAX;

  b.n = 0;
  common(f, &c);
  while (at < n && at < stop) {
    /* the end of the line at at, and whether a NUL came before it */
    for (nul = 0;; m &= m - 1) {
      while (!m && blk + 64 < whole) {
        __builtin_prefetch(p + blk + 1024); /* past a page: not foreseen */
        m = fv_eol64(p + (blk += 64));
      }
      if (!m) {
        for (e = at > whole ? at : whole; e < n && p[e] != '\n'; e++)
          nul |= !p[e];
        blk = whole;
        break;
      }
      e = blk + (size_t)__builtin_ctzll(m);
      if (p[e] == '\n') {
        m &= m - 1;
        break;
      }
      nul = 1;
    }
    if (e == n && !eof) break;
    if (nul || !fast_line(f, &b, &c, p + at, e - at, now)) {
      text_line(f, &b, p + at, e - at, nul);
      if (now) resolve(f, &b); /* before the lines after it */
      common(f, &c);
    }
    at = e + (e < n);
  }
  resolve(f, &b);
  return at;
}

void fold_line(struct fold *f, const char *s, size_t n)
{
  fold_text_line(f, s, n, memchr(s, 0, n) != NULL);
}
