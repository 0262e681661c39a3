/* fold.c - fold stack samples into "frame;frame;... value" totals
 *
 * Input is mapped (a regular file) or read in large blocks, and cut into
 * lines sixteen bytes at a time. A line's stack is hashed and looked up where it lies in the block:
 * each distinct stack is folded once (filter, squash, type leaf) and
 * remembered with the total it adds to, so every line that repeats it
 * costs one hash, one compare and one add. No allocation per line; memory
 * grows with the number of distinct stacks, not with the input.
 */
#include "core/jvmtool.h"
#include "core/fold.h"

#include <pthread.h>
#include <setjmp.h>
#include <sys/mman.h>

#ifdef __SSE2__
#include <emmintrin.h>  /* part of every x86-64 */
#endif

/* A set of byte strings kept in fold.bytes, numbered as they come. */
struct entry {
  uint64_t hash;
  size_t off, len;
  int64_t n;    /* stacks: the number of their total; totals: the value */
  int64_t ctx;  /* stacks: what else decides how they fold */
};

struct set {
  struct entry *e;
  size_t used, cap;
  uint64_t *index;  /* open addressing: hash high half, entry number + 1 */
  size_t icap;
};

enum { UNFOLDED = -1, SKIPPED = -2, EMPTY = -3 };  /* struct entry.n */

struct frame {
  const char *p;
  size_t len;
};

struct fold {
  struct fold_opts o;
  struct set stacks, totals;    /* as read; as folded */
  struct buf bytes, key, bad;   /* their bytes; a key being built; reports */
  struct bad {
    const char *name;
    uint64_t line;
    const char *why;
  } first_bad[5];
  struct frame *fr;             /* the frames of a stack being folded */
  size_t frcap;
  struct fold_stack *sorted;
  struct fold_stats st;
  const char *name;
  uint64_t lineno;
  long gc;                      /* the current "#GC <n>" section, or -1 */
  /* jstack: the thread being read */
  struct buf thread, frames;
  int in_thread, nframes;
  char state[32];
  enum fold_format fmt;
  char **filter_lc;             /* the filters in lower case */
  size_t *filter_len;
};

/* A bit for each byte of p[0..16) equal to c. */
static inline unsigned eq16(const char *p, char c)
{
#ifdef __SSE2__
  return (unsigned)_mm_movemask_epi8(
      _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                     _mm_set1_epi8(c)));
#else
  unsigned m = 0;

  for (int i = 0; i < 16; i++) m |= (unsigned)(p[i] == c) << i;
  return m;
#endif
}

/* The offset of the first c in p[0..n), or n. */
static size_t find16(const char *p, size_t n, char c)
{
  size_t i = 0;

  for (; i + 16 <= n; i += 16) {
    unsigned m = eq16(p + i, c);

    if (m) return i + (size_t)__builtin_ctz(m);
  }
  while (i < n && p[i] != c) i++;
  return i;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
  __uint128_t m = (__uint128_t)a * b;

  return (uint64_t)m ^ (uint64_t)(m >> 64);
}

static inline uint64_t load64(const char *p)
{
  uint64_t w;

  memcpy(&w, p, 8);
  return w;
}

static inline uint64_t load32(const char *p)
{
  uint32_t w;

  memcpy(&w, p, 4);
  return w;
}

#ifdef __SSE2__
static inline __m128i load128(const char *p)
{
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}
#endif

/* memcmp(a, b, n) == 0, thirty-two bytes a step (musl's goes by bytes). */
static int same(const char *a, const char *b, size_t n)
{
#ifdef __SSE2__
  for (; n >= 32; a += 32, b += 32, n -= 32) {
    __m128i x = _mm_cmpeq_epi8(load128(a), load128(b));
    __m128i y = _mm_cmpeq_epi8(load128(a + 16), load128(b + 16));

    if (_mm_movemask_epi8(_mm_and_si128(x, y)) != 0xffff) return 0;
  }
#endif
  for (; n >= 8; a += 8, b += 8, n -= 8)
    if (load64(a) != load64(b)) return 0;
  while (n--)
    if (*a++ != *b++) return 0;
  return 1;
}

/* A 64-bit hash of s[0..n) and ctx: four chains of sixteen bytes a
 * multiply (they run side by side), then one; the last sixteen bytes (or
 * fewer) are read as overlapping words, never past s. */
static uint64_t hash(const char *s, size_t n, int64_t ctx)
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

/* The entry of key[0..len) and ctx in set t, made with n = init when
 * new. A key that already lies in f->bytes is not copied again. */
static struct entry *intern(struct fold *f, struct set *t, const char *key,
                            size_t len, int64_t ctx, int64_t init)
{
  uint64_t h = hash(key, len, ctx), mask;
  uintptr_t k = (uintptr_t)key, b = (uintptr_t)f->bytes.p;
  struct entry *e;
  size_t i;

  if (t->used * 2 >= t->icap) {  /* grow the index, keep it half empty */
    t->icap = t->icap ? t->icap * 2 : 1024;
    free(t->index);
    t->index = xzalloc(t->icap * sizeof(*t->index));
    for (size_t j = 0; j < t->used; j++) {
      for (i = t->e[j].hash & (t->icap - 1); t->index[i];
           i = (i + 1) & (t->icap - 1)) ;
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
      __builtin_prefetch(f->bytes.p + e->off + o);
    if (same(f->bytes.p + e->off, key, len)) return e;
  }
  /* the bytes first: a mapped key may fault (SIGBUS) while copied */
  if (k >= b && k + len <= b + f->bytes.len) {
    k -= b;
  } else {
    k = f->bytes.len;
    buf_add(&f->bytes, key, len);
  }
  if (t->used == t->cap)
    t->e = xrealloc(t->e, (t->cap = t->cap * 2 + 256) * sizeof(*t->e));
  e = &t->e[t->used++];
  t->index[i] = (h >> 32 << 32) | t->used;
  *e = (struct entry){h, k, len, init, ctx};
  return e;
}

static void bad(struct fold *f, const char *why)
{
  if (f->st.bad++ < 5)
    f->first_bad[f->st.bad - 1] = (struct bad){f->name, f->lineno, why};
}

/* The offset of the first case-insensitive match of lc (m bytes, lower
 * case) in s[0..n), or n. */
static size_t find_ci(const char *s, size_t n, const char *lc, size_t m)
{
  for (size_t i = 0; i + m <= n; i++) {
    size_t j = 0;

    while (j < m && tolower((unsigned char)s[i + j]) == lc[j]) j++;
    if (j == m) return i;
  }
  return n;
}

/* Whether the frame contains one of the filters. */
static int matches(const struct fold *f, const struct frame *fr)
{
  for (int i = 0; i < f->o.nfilters; i++)
    if (find_ci(fr->p, fr->len, f->filter_lc[i], f->filter_len[i]) < fr->len)
      return 1;
  return 0;
}

/* Java's names for an allocated type as the sampler writes them, made
 * uniform: primitive "char" is a char[], descriptors become dotted names
 * with [] and hidden/lambda class suffixes ("/0x..", "$$Lambda$14") go. */
static void normalize(struct buf *k, const char *t, size_t n)
{
  static const char *const prims[] = {"boolean", "byte", "char", "short",
                                      "int", "long", "float", "double"};
  static const char codes[] = "ZBCSIJFD";
  size_t dims = 0, start = k->len;

  for (int i = 0; i < 8; i++)
    if (strlen(prims[i]) == n && !memcmp(t, prims[i], n)) {
      buf_add(k, t, n);
      buf_adds(k, "[]");
      return;
    }
  while (dims < n && t[dims] == '[') dims++;
  t += dims, n -= dims;
  if (dims && n == 1 && strchr(codes, *t)) {
    buf_adds(k, prims[strchr(codes, *t) - codes]);
  } else {
    if (dims && n && *t == 'L') t++, n--;
    if (n && t[n - 1] == ';') n--;
    for (size_t i = 0; i < n; i++) {
      if (t[i] == '/' && i + 2 < n && t[i + 1] == '0' && t[i + 2] == 'x') break;
      buf_addc(k, t[i] == '/' ? '.' : t[i]);
    }
    /* pkg.Foo$$Lambda$14 -> pkg.Foo$$Lambda */
    {
      char *l = memmem(k->p + start, k->len - start, "$$Lambda", 8);

      if (l) k->len = (size_t)(l - k->p) + 8, k->p[k->len] = 0;
    }
  }
  while (dims--) buf_adds(k, "[]");
}

/* Fold a stack seen for the first time: filter, squash, type leaf.
 * Returns the number of its total, or SKIPPED or EMPTY. */
static int64_t fold_new_stack(struct fold *f, const struct entry *st,
                              int has_type)
{
  const char *s = f->bytes.p + st->off;
  size_t n = st->len, nf = 0, first = 0, type;
  struct buf *k = &f->key;
  struct frame *fr;
  struct entry *e;

  /* a ';' at the end adds no empty leaf (FlameCollapse wrote one), but
   * "[Ljava/lang/String;" as a leaf ends in ';': keep it whole */
  for (size_t i = 0, b = 0; b <= n; b = i + 1) {
    i = b + find16(s + b, n - b, ';');
    if (i == n && i == b && nf) break;
    if (nf == f->frcap)
      f->fr = xrealloc(f->fr, (f->frcap = nf * 2 + 64) * sizeof(*f->fr));
    f->fr[nf++] = (struct frame){s + b, i - b};
  }
  fr = f->fr;
  if (nf > 1 && n && s[n - 1] == ';' && fr[nf - 1].len &&
      fr[nf - 1].p[0] == '[')
    fr[nf - 1].len++;
  type = has_type ? nf - 1 : nf;
  if (f->o.nfilters) {
    while (first < nf && !matches(f, &fr[first])) first++;
    if (first == nf) {
      if (!f->o.keep_unmatched) return SKIPPED;
      first = 0;
    }
  }
  k->len = 0;
  buf_add(k, "", 0);
  if (f->o.gc_frames && f->gc >= 0) buf_printf(k, "GC %ld;", f->gc);
  for (size_t i = first; i < nf; i++) {
    if (!f->o.no_squash && i > first && fr[i].len == fr[i - 1].len &&
        same(fr[i].p, fr[i - 1].p, fr[i].len))
      continue;
    if (i == type && (f->o.normalize || f->o.type_frames)) {
      if (f->o.normalize) normalize(k, fr[i].p, fr[i].len);
      else buf_add(k, fr[i].p, fr[i].len);
      if (f->o.type_frames) buf_adds(k, "_[i]");
    } else {
      buf_add(k, fr[i].p, fr[i].len);
    }
    buf_addc(k, ';');
  }
  if (!--k->len) return EMPTY;  /* drop the last ';' */
  /* mostly the stack as read, or its end: share those bytes */
  if (k->len <= n && same(s + n - k->len, k->p, k->len))
    e = intern(f, &f->totals, s + n - k->len, k->len, 0, 0);
  else
    e = intern(f, &f->totals, k->p, k->len, 0, 0);
  return e - f->totals.e;
}

/* Totals saturate instead of wrapping around. */
static void add(int64_t *total, int64_t v)
{
  if (__builtin_add_overflow(*total, v, total))
    *total = v > 0 ? INT64_MAX : INT64_MIN;
}

/* Fold the stack [s, s+n) (frames, root first) with value v. How a stack
 * folds depends on its bytes, on has_type (its leaf is the allocated type)
 * and, with --gc-frames, on its GC section: those make it one entry. */
static void fold_stack(struct fold *f, const char *s, size_t n, int64_t v,
                       int has_type)
{
  int64_t ctx = has_type + (f->o.gc_frames ? 2 * ((int64_t)f->gc + 1) : 0);
  struct entry *e = intern(f, &f->stacks, s, n, ctx, UNFOLDED);

  if (e->n == UNFOLDED) e->n = fold_new_stack(f, e, has_type);
  if (e->n == SKIPPED) {
    f->st.skipped++;
  } else if (e->n == EMPTY) {
    bad(f, "empty stack");
  } else {
    f->st.samples++;
    add(&f->totals.e[e->n].n, f->o.samples ? 1 : v);
  }
}

/* The value ending a line: the token after its last space, an integer
 * from INT64_MIN + 1 to INT64_MAX, as strtoll would read it. Sets *k to
 * where the frames end; returns NULL or why the line is bad. */
static const char *value(const char *s, size_t n, size_t *k, int64_t *v)
{
  size_t i = n, d;
  uint64_t x = 0;
  int neg;

  while (i && s[i - 1] != ' ' && n - i < 20) i--;
  if (!i || s[i - 1] != ' ')  /* no space, or a token over 20 bytes */
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

/* One line of a line format; nul: it holds a NUL byte. */
static void line(struct fold *f, const char *s, size_t n, int nul)
{
  const char *why;
  long long g;
  char num[32];
  int64_t v;
  size_t k;

  f->lineno++;
  f->st.lines++;
  if (n && s[n - 1] == '\r') n--;
  if (!n) return;
  if (s[0] == '#') {
    /* "#GC <n>" opens a lifetime section; other comments are skipped */
    if (n > 4 && !memcmp(s, "#GC ", 4)) {
      snprintf(num, sizeof(num), "%.*s", (int)(n - 4 < 31 ? n - 4 : 31),
               s + 4);
      f->gc = parse_long(num, 0, LONG_MAX, &g) ? -1 : (long)g;
    }
    return;
  }
  if (nul || (why = value(s, n, &k, &v))) {
    bad(f, nul ? "NUL byte (binary data?)" : why);
    return;
  }
  if (f->o.gc_lo >= 0 && (f->gc < f->o.gc_lo || f->gc > f->o.gc_hi)) {
    f->st.skipped++;
    return;
  }
  fold_stack(f, s, k, v, f->fmt != FOLD_FOLDED);
}

void fold_line(struct fold *f, const char *s, size_t n)
{
  line(f, s, n, memchr(s, 0, n) != NULL);
}

void fold_add(struct fold *f, const char *s, size_t n, int64_t v, int has_type)
{
  int samples = f->o.samples;

  f->o.samples = 0;
  fold_stack(f, s, n, v, has_type);
  f->o.samples = samples;
}

/* jstack: "name" header, State line, "\tat frame(...)" lines, blank line. */
static void jstack_end(struct fold *f)
{
  struct buf s = {0};

  if (f->in_thread && f->nframes &&
      (!f->o.state || !strcmp(f->state, f->o.state))) {
    if (f->o.thread_frames) buf_printf(&s, "%s;", f->thread.p);
    /* frames were collected leaf first */
    for (size_t end = f->frames.len; end;) {
      size_t st = end - 1;

      while (st && f->frames.p[st - 1] != '\n') st--;
      buf_add(&s, f->frames.p + st, end - 1 - st);
      buf_addc(&s, ';');
      end = st;
    }
    s.len--;
    fold_stack(f, s.p, s.len, 1, 0);
  }
  buf_free(&s);
  f->in_thread = 0;
  f->nframes = 0;
  f->frames.len = 0;
}

static void jstack_line(struct fold *f, const char *line, size_t n)
{
  const char *p;

  f->lineno++;
  f->st.lines++;
  if (n && line[n - 1] == '\r') n--;
  if (!n) {
    jstack_end(f);
    return;
  }
  if (line[0] == '"') {
    jstack_end(f);
    p = memchr(line + 1, '"', n - 1);
    f->thread.len = 0;
    buf_add(&f->thread, line + 1, p ? (size_t)(p - line - 1) : n - 1);
    f->in_thread = 1;
    f->state[0] = 0;
    return;
  }
  while (n && (*line == ' ' || *line == '\t')) line++, n--;
  if (n > 24 && !memcmp(line, "java.lang.Thread.State: ", 24)) {
    size_t l = strcspn(line + 24, " \r");

    if (l > n - 24) l = n - 24;
    snprintf(f->state, sizeof(f->state), "%.*s", (int)l, line + 24);
  } else if (f->in_thread && n > 3 && !memcmp(line, "at ", 3) &&
             !memchr(line, 0, n)) {
    p = memchr(line, '(', n);
    buf_add(&f->frames, line + 3, (p ? (size_t)(p - line) : n) - 3);
    buf_addc(&f->frames, '\n');
    f->nframes++;
  }
}

struct fold_stack *fold_reverse(const struct fold_stack *st, size_t *n,
                                struct buf *arena)
{
  struct fold_stack *r = xmalloc((*n + 1) * sizeof(*r));
  size_t *off = xmalloc((*n + 1) * sizeof(*off)), m = 0;

  for (size_t i = 0; i < *n; i++) {
    const char *k = st[i].key;
    size_t end = st[i].len;

    off[i] = arena->len;
    while (end) {
      const char *semi = memrchr(k, ';', end);
      size_t b = semi ? (size_t)(semi - k) + 1 : 0;

      buf_add(arena, k + b, end - b);
      if (b) buf_addc(arena, ';');
      end = b ? b - 1 : 0;
    }
    r[i].len = st[i].len;
    r[i].value = st[i].value;
  }
  for (size_t i = 0; i < *n; i++) r[i].key = arena->p + off[i];
  free(off);
  if (*n) qsort(r, *n, sizeof(*r), fold_stack_cmp);
  for (size_t i = 0; i < *n; i++) {
    if (m && r[m - 1].len == r[i].len && !memcmp(r[m - 1].key, r[i].key, r[i].len))
      r[m - 1].value += r[i].value;
    else r[m++] = r[i];
  }
  *n = m;
  return r;
}

struct fold *fold_new(const struct fold_opts *o)
{
  struct fold *f = xzalloc(sizeof(*f));

  f->o = *o;
  f->gc = -1;
  f->o.nfilters = 0;
  f->filter_lc = xzalloc((o->nfilters + 1) * sizeof(*f->filter_lc));
  f->filter_len = xzalloc((o->nfilters + 1) * sizeof(*f->filter_len));
  for (int i = 0; i < o->nfilters; i++) {
    char *lc;

    if (!o->filters[i] || !*o->filters[i]) continue;
    lc = f->filter_lc[f->o.nfilters] = xstrdup(o->filters[i]);
    for (char *p = lc; *p; p++) *p = (char)tolower((unsigned char)*p);
    f->filter_len[f->o.nfilters++] = strlen(lc);
  }
  /* ours, so the caller's array need not outlive this call (and a fold
   * made from f->o, as for the second half of a file, gets them too) */
  f->o.filters = (const char *const *)f->filter_lc;
  f->fmt = o->format;
  f->name = "-";
  return f;
}

/* jstack dumps start with a date, "Full thread dump" or a thread header. */
static enum fold_format detect(const char *p, size_t n)
{
  const char *nl = memchr(p, '\n', n);
  size_t l = nl ? (size_t)(nl - p) : n;

  if ((l >= 16 && !memcmp(p, "Full thread dump", 16)) || (l && *p == '"') ||
      (l >= 5 && isdigit((unsigned char)p[0]) && p[4] == '-') ||
      memmem(p, n, "\nFull thread dump", 17))
    return FOLD_JSTACK;
  return FOLD_STACKS;
}

/* The offset of the first '\n' in p[0..n), or n; *nul: a NUL came first. */
static size_t line_end(const char *p, size_t n, int *nul)
{
  size_t i = 0;

  *nul = 0;
  for (; i + 16 <= n; i += 16)
    for (unsigned m = eq16(p + i, '\n') | eq16(p + i, 0); m; m &= m - 1) {
      size_t at = i + (size_t)__builtin_ctz(m);

      if (p[at] == '\n') return at;
      *nul = 1;
    }
  for (; i < n && p[i] != '\n'; i++) *nul |= !p[i];
  return i;
}

/* Fold the whole lines of p[0..n) that start before stop, and at the end
 * of input the rest too; returns how many bytes were taken. */
static size_t lines(struct fold *f, const char *p, size_t n, int eof,
                    size_t stop)
{
  size_t at = 0, e;
  int nul;

  while (at < n && at < stop) {
    e = at + line_end(p + at, n - at, &nul);
    if (e == n && !eof) break;
    if (f->fmt == FOLD_JSTACK) jstack_line(f, p + at, e - at);
    else line(f, p + at, e - at, nul);
    at = e + (e < n);
  }
  return at;
}

enum {
  BLOCK = 1 << 18, LONGEST_LINE = 64 << 20, SPLIT = 64 << 20,
  WINDOW = 8 << 20
};

/* Where a thread folding a mapped window goes when the file shrinks
 * under it: reading a page past the new end raises SIGBUS. */
static __thread sigjmp_buf *volatile shrank;

static void on_sigbus(int sig)
{
  if (shrank) siglongjmp(*shrank, 1);
  signal(sig, SIG_DFL);  /* not ours: fault again, and die of it */
}

/* Fold the lines of fd's bytes [base, base + len) mapped, from at (a
 * line start in them) to the last whole line, or to the last that starts
 * before stop. Returns how many bytes were taken, 0 when the mapping
 * failed, or -1 when the file shrank while it was read. */
static ssize_t fold_window(struct fold *f, int fd, off_t base, size_t len,
                           size_t at, size_t stop)
{
  char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, base);
  sigjmp_buf jb;
  size_t took;

  if (m == MAP_FAILED) return 0;
  if (sigsetjmp(jb, 1)) {
    shrank = NULL;
    munmap(m, len);
    return -1;
  }
  shrank = &jb;
  if (f->fmt == FOLD_AUTO)  /* on what a first read would see */
    f->fmt = detect(m + at, len - at < BLOCK ? len - at : BLOCK);
  took = lines(f, m + at, len - at, 0, stop);
  shrank = NULL;
  munmap(m, len);
  return (ssize_t)took;
}

/* Fold the lines of a regular file fd from pos (a line start) that start
 * before to (< 0: the end) where the file lies, a mapped window at a
 * time: no copy through read(). Stops before a line that runs past the
 * last window or is longer than one. Returns the offset of the first
 * line not folded, or -1 when the file shrank while it was read. */
static off_t fold_mapped(struct fold *f, int fd, off_t pos, off_t to)
{
  off_t page = sysconf(_SC_PAGESIZE), base, end;
  struct stat sb;
  ssize_t took = 1;

  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) return pos;
  end = to >= 0 && to < sb.st_size ? to : sb.st_size;
  for (; pos < end && took > 0; pos += took) {
    base = pos - pos % page;
    took = fold_window(f, fd, base,
                       (size_t)(sb.st_size - base < WINDOW ? sb.st_size - base
                                                           : WINDOW),
                       (size_t)(pos - base), (size_t)(end - pos));
    if (took < 0) return -1;
  }
  return pos;
}

/* Fold the lines of fd that start in [from, to) (from is a line start;
 * to < 0: the end), reading the last one to its end; from < 0 reads on
 * from where fd is. A regular file is mapped as far as that goes, the
 * rest read. Returns 0 or -errno, FOLD_SHRANK when the file shrank. */
static int fold_range(struct fold *f, int fd, off_t from, off_t to)
{
  size_t cap = BLOCK, have = 0, took, stop;
  off_t pos = from < 0 ? lseek(fd, 0, SEEK_CUR) : from;  /* of b[0] */
  ssize_t r = 1;
  int rc = 0, skip = 0;
  char *b;

  if (pos >= 0 && (pos = fold_mapped(f, fd, pos, to)) < 0) return FOLD_SHRANK;
  if (to >= 0 && pos >= to) return 0;
  if (from < 0) {  /* read on from there, as if all of it had been read */
    if (pos >= 0) lseek(fd, pos, SEEK_SET);
    pos = -1;
  }
  b = xmalloc(cap);
  while (r) {
    r = pos < 0 ? read(fd, b + have, cap - have)
                : pread(fd, b + have, cap - have, pos + (off_t)have);
    if (r < 0 && errno == EINTR) {
      r = 1;
      continue;
    }
    if (r < 0) {
      rc = -errno;
      break;
    }
    have += (size_t)r;
    if (f->fmt == FOLD_AUTO) {
      if (r && have <= 4096) continue;
      f->fmt = detect(b, have);
    }
    took = 0;
    if (skip) {  /* the rest of a line too long to fold */
      char *nl = memchr(b, '\n', have);

      took = nl ? (size_t)(nl + 1 - b) : have;
      skip = !nl;
    }
    stop = to < 0                    ? SIZE_MAX
           : to > pos + (off_t)took ? (size_t)(to - pos) - took
                                    : 0;
    took += lines(f, b + took, have - took, !r, stop);
    if (to >= 0 && pos + (off_t)took >= to) break;
    memmove(b, b + took, have -= took);
    if (pos >= 0) pos += (off_t)took;
    if (have < cap) continue;
    if (cap < LONGEST_LINE) {
      b = xrealloc(b, cap *= 2);
    } else {
      f->lineno++, f->st.lines++;
      bad(f, "line longer than 64 MiB");
      have = 0, skip = 1;
    }
  }
  free(b);
  return rc;
}

/* The first line start after at in fd, or -1. */
static off_t line_start(int fd, off_t at)
{
  char c[4096];
  ssize_t r;

  for (at--; (r = pread(fd, c, sizeof(c), at)) > 0; at += r) {
    char *nl = memchr(c, '\n', (size_t)r);

    if (nl) return at + (nl - c) + 1;
  }
  return -1;
}

struct half {
  struct fold *f;
  int fd, rc;
  off_t from;
};

static void *fold_half(void *arg)
{
  struct half *h = arg;

  h->rc = fold_range(h->f, h->fd, h->from, -1);
  return NULL;
}

/* Add what g folded (the lines after f's) to f. */
static void merge(struct fold *f, struct fold *g)
{
  for (size_t i = 0; i < g->totals.used; i++) {
    struct entry *e = &g->totals.e[i];

    add(&intern(f, &f->totals, g->bytes.p + e->off, e->len, 0, 0)->n, e->n);
  }
  for (uint64_t i = 0; i < g->st.bad && i < 5; i++)
    if (f->st.bad + i < 5)
      f->first_bad[f->st.bad + i] =
          (struct bad){g->first_bad[i].name, f->lineno + g->first_bad[i].line,
                       g->first_bad[i].why};
  f->lineno += g->lineno;
  f->st.lines += g->st.lines;
  f->st.samples += g->st.samples;
  f->st.bad += g->st.bad;
  f->st.skipped += g->st.skipped;
}

/* A large file of lines is read in two halves, by two threads: a fold
 * of its own for the second, added to f at the end. The "#GC <n>"
 * section of a line is known only reading from the top, so not with
 * --gc or --gc-frames. Returns 1 when it did not split. */
static int fold_split(struct fold *f, int fd, int *rc)
{
  struct stat sb;
  off_t at = lseek(fd, 0, SEEK_CUR), mid;
  struct half h = {NULL, fd, 0, 0};
  char head[4096];
  ssize_t r;
  pthread_t t;

  if (at < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
      sb.st_size - at < SPLIT || f->o.gc_lo >= 0 || f->o.gc_frames)
    return 1;
  if (f->fmt == FOLD_AUTO) {
    if ((r = pread(fd, head, sizeof(head), at)) <= 0) return 1;
    f->fmt = detect(head, (size_t)r);
  }
  if (f->fmt == FOLD_JSTACK) return 1;
  if ((mid = line_start(fd, at + (sb.st_size - at) / 2)) < 0) return 1;
  h.f = fold_new(&f->o);
  h.f->fmt = f->fmt;
  h.f->name = f->name;
  h.from = mid;
  if (pthread_create(&t, NULL, fold_half, &h)) {
    fold_free(h.f);
    return 1;
  }
  *rc = fold_range(f, fd, at, mid);
  pthread_join(t, NULL);
  merge(f, h.f);
  if (!*rc) *rc = h.rc;
  fold_free(h.f);
  return 0;
}

int fold_fd(struct fold *f, int fd, const char *name)
{
  enum fold_format keep = f->fmt;
  int rc = 0;

  struct sigaction bus = {.sa_handler = on_sigbus}, was;

  f->name = name;
  f->lineno = 0;
  f->gc = -1;
  sigaction(SIGBUS, &bus, &was);
  if (fold_split(f, fd, &rc)) rc = fold_range(f, fd, -1, -1);
  sigaction(SIGBUS, &was, NULL);
  if (f->fmt == FOLD_JSTACK) jstack_end(f);
  f->fmt = keep;
  return rc;
}

int fold_stack_cmp(const void *a, const void *b)
{
  const struct fold_stack *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len, i = 0;
  int c;

  while (i + 8 <= n && load64(x->key + i) == load64(y->key + i)) i += 8;
  c = memcmp(x->key + i, y->key + i, n - i);  /* differs within 8 bytes */

  return c ? c : (x->len > y->len) - (x->len < y->len);
}

size_t fold_result(struct fold *f, const struct fold_stack **out)
{
  size_t n = f->totals.used;

  free(f->sorted);
  f->sorted = xmalloc((n + 1) * sizeof(*f->sorted));
  for (size_t i = 0; i < n; i++) {
    struct entry *e = &f->totals.e[i];

    f->sorted[i] = (struct fold_stack){f->bytes.p + e->off, (uint32_t)e->len,
                                       e->n};
  }
  if (n) qsort(f->sorted, n, sizeof(*f->sorted), fold_stack_cmp);
  *out = f->sorted;
  return n;
}

const struct fold_stats *fold_stats(struct fold *f)
{
  size_t at[5];

  f->bad.len = 0;
  f->st.nfirst_bad = f->st.bad < 5 ? (int)f->st.bad : 5;
  for (int i = 0; i < f->st.nfirst_bad; i++) {
    at[i] = f->bad.len;
    buf_printf(&f->bad, "%s:%" PRIu64 ": %s", f->first_bad[i].name,
               f->first_bad[i].line, f->first_bad[i].why);
    buf_addc(&f->bad, 0);
  }
  for (int i = 0; i < f->st.nfirst_bad; i++)
    f->st.first_bad[i] = f->bad.p + at[i];  /* now that it no longer moves */
  return &f->st;
}

void fold_free(struct fold *f)
{
  free(f->stacks.e);
  free(f->stacks.index);
  free(f->totals.e);
  free(f->totals.index);
  buf_free(&f->bytes);
  buf_free(&f->key);
  buf_free(&f->bad);
  buf_free(&f->thread);
  buf_free(&f->frames);
  free(f->fr);
  free(f->sorted);
  for (int i = 0; i < f->o.nfilters; i++) free(f->filter_lc[i]);
  free(f->filter_lc);
  free(f->filter_len);
  free(f);
}
