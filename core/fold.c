/* fold.c - fold stack samples into "frame;frame;... value" totals
 *
 * A line's stack is looked up where it lies in the input (core/foldio.c
 * reads the input, core/foldline.c cuts it into lines): each distinct stack is folded once (filter,
 * squash, type leaf) and remembered with the total it adds to, so every
 * line that repeats it costs one hash, one compare and one add (its
 * record: struct fold_rec, found by fold_find; the folded totals in a
 * core/strset.c). No allocation per line; memory grows with the number
 * of distinct stacks, not with the input.
 */
/* The hot loops of folding: built for speed in a binary otherwise built
 * for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/fold_int.h"
#include <pthread.h>
#include "core/cpu.h"
#include <sys/random.h>

void fold_bad(struct fold *f, const char *why)
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
  static const char *const prims[] = {"boolean", "byte", "char",  "short",
                                      "int",     "long", "float", "double"};
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
int32_t fold_new_stack(struct fold *f, size_t off, size_t len, int has_type)
{
  const char *s = f->bytes.p + off;
  size_t n = len, nf = 0, first = 0, type;
  struct buf *k = &f->key;
  struct frame *fr;
  struct strset_entry *e;

  /* a ';' at the end adds no empty leaf (FlameCollapse wrote one), but
   * "[Ljava/lang/String;" as a leaf ends in ';': keep it whole */
  for (size_t blk = 0, b = 0;; blk += 16) { /* the ';' sixteen bytes a step */
    unsigned m = 0;

    if (blk + 16 <= n) {
      m = fv_eq16(s + blk, ';');
    } else {
      for (size_t j = blk; j < n; j++)
        m |= (unsigned)(s[j] == ';') << (j - blk);
    }
    if (nf + 17 > f->frcap)
      f->fr = xrealloc(f->fr, (f->frcap = nf * 2 + 64) * sizeof(*f->fr));
    for (; m; m &= m - 1) {
      size_t i = blk + (size_t)__builtin_ctz(m);

      f->fr[nf++] = (struct frame){s + b, i - b};
      b = i + 1;
    }
    if (blk + 16 >= n) {
      if (b < n || !nf) f->fr[nf++] = (struct frame){s + b, n - b};
      break;
    }
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
  /* frames kept one after the other in s are added as one run */
  for (size_t i = first, run = 0, end = 0, open = 0; i <= nf; i++) {
    if (i < nf && !f->o.no_squash && i > first && fr[i].len == fr[i - 1].len &&
        fv_same(fr[i].p, fr[i - 1].p, fr[i].len))
      continue;
    int special = i == type && (f->o.normalize || f->o.type_frames);

    if (i < nf && !special && open && fr[i].p == s + end + 1) {
      end = (size_t)(fr[i].p - s) + fr[i].len;
      continue;
    }
    if (open) {
      buf_add(k, s + run, end - run);
      buf_addc(k, ';');
      open = 0;
    }
    if (i == nf) break;
    if (special) {
      if (f->o.normalize)
        normalize(k, fr[i].p, fr[i].len);
      else
        buf_add(k, fr[i].p, fr[i].len);
      if (f->o.type_frames) buf_adds(k, "_[i]");
      buf_addc(k, ';');
    } else {
      run = (size_t)(fr[i].p - s);
      end = run + fr[i].len;
      open = 1;
    }
  }
  if (!--k->len) return EMPTY; /* drop the last ';' */
  /* mostly the stack as read, or its end: share those bytes */
  if (k->len <= n && fv_same(s + n - k->len, k->p, k->len))
    e = strset_intern_h(&f->bytes, &f->totals, s + n - k->len, k->len, 0, 0,
                        fv_hash(s + n - k->len, k->len, 0));
  else
    e = strset_intern_h(&f->bytes, &f->totals, k->p, k->len, 0, 0,
                        fv_hash(k->p, k->len, 0));
  return (int32_t)(e - f->totals.e);
}

size_t fold_find(struct fold *f, const char *s, size_t n, int64_t ctx,
                 uint64_t h)
{
  const size_t *recs = (const size_t *)(void *)f->recs.p;
  size_t nrec = f->recs.len / sizeof(size_t), mask, i, r;
  struct fold_rec *e, hdr = {h, (uint32_t)n, UNFOLDED, ctx, 0};
  uint64_t x;

  if (nrec << 2 >= f->icap) { /* grow the index: three quarters empty */
    f->icap = f->icap ? f->icap * 2 : 1024;
    free(f->index);
    f->index = xzalloc(f->icap * sizeof(*f->index));
    for (size_t j = 0; j < nrec; j++) {
      e = fold_rec(f, recs[j]);
      for (i = e->hash & (f->icap - 1); f->index[i];
           i = (i + 1) & (f->icap - 1))
        ;
      f->index[i] = (e->hash >> 32 << 32) | (recs[j] / 8 + 1);
    }
  }
  mask = f->icap - 1;
  for (i = h & mask; (x = f->index[i]); i = (i + 1) & mask) {
    if (x >> 32 != h >> 32) continue;
    e = fold_rec(f, (size_t)((uint32_t)x - 1) * 8);
    if (e->hash != h || e->len != n || e->ctx != ctx) continue;
    /* a long stack is seldom in cache: ask for all of it at once */
    for (size_t o = 0; o < n; o += 64) __builtin_prefetch(fold_rec_key(e) + o);
    if (fv_same(fold_rec_key(e), s, n)) return (size_t)((uint32_t)x - 1) * 8;
  }
  /* 8-byte aligned, numbered by offset / 8 in 32 bits */
  r = (f->bytes.len + 7) & ~(size_t)7;
  if (n > UINT32_MAX || r / 8 + 1 > UINT32_MAX) return FOLD_FULL;
  buf_add(&f->bytes, "\0\0\0\0\0\0\0", r - f->bytes.len);
  buf_add(&f->bytes, &hdr, sizeof(hdr));
  /* then the bytes: a mapped key may fault (SIGBUS) while copied, and
   * leave a record that nothing points to */
  buf_add(&f->bytes, s, n);
  f->index[i] = (h >> 32 << 32) | (r / 8 + 1);
  buf_add(&f->recs, &r, sizeof(r));
  return r;
}

void fold_flush(struct fold *f)
{
  const size_t *recs = (const size_t *)(void *)f->recs.p;

  for (size_t j = 0; j < f->recs.len / sizeof(size_t); j++) {
    struct fold_rec *e = fold_rec(f, recs[j]);

    if (e->n >= 0 && e->sum) {
      fold_add_sat(&f->totals.e[e->n].n, e->sum);
      e->sum = 0;
    }
  }
}

/* Fold the stack [s, s+n) (frames, root first) with value v. How a stack
 * folds depends on its bytes and its context(): those make it one entry. */
static void fold_stack(struct fold *f, const char *s, size_t n, int64_t v,
                       int has_type)
{
  int64_t ctx = fold_context(f, has_type);

  fold_tally(f, fold_find(f, s, n, ctx, fv_hash(s, n, ctx)), has_type, v);
}

void fold_add(struct fold *f, const char *s, size_t n, int64_t v, int has_type)
{
  int samples = f->o.samples;

  f->o.samples = 0;
  fold_stack(f, s, n, v, has_type);
  f->o.samples = samples;
}

/* jstack: "name" header, State line, "\tat frame(...)" lines, blank line. */
void fold_jstack_end(struct fold *f)
{
  struct buf *s = &f->jkey; /* kept from thread to thread: no allocation */
  const size_t *at = (const size_t *)(void *)f->fstart.p;

  if (f->in_thread && f->nframes &&
      (!f->o.state || !strcmp(f->state, f->o.state))) {
    s->len = 0;
    if (f->o.thread_frames) buf_printf(s, "%s;", f->thread.p);
    /* frames were collected leaf first, each ended by '\n' */
    for (size_t i = f->fstart.len / sizeof(*at), end = f->frames.len; i--;) {
      buf_add(s, f->frames.p + at[i], end - 1 - at[i]);
      buf_addc(s, ';');
      end = at[i];
    }
    s->len--;
    fold_stack(f, s->p, s->len, 1, 0);
  }
  f->in_thread = 0;
  f->nframes = 0;
  f->frames.len = 0;
  f->fstart.len = 0;
}

void fold_jstack_line(struct fold *f, const char *line, size_t n, int nul)
{
  const char *p;

  f->lineno++;
  f->st.lines++;
  if (n && line[n - 1] == '\r') n--;
  if (!n) {
    fold_jstack_end(f);
    return;
  }
  if (line[0] == '"') {
    fold_jstack_end(f);
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
  } else if (f->in_thread && n > 3 && !memcmp(line, "at ", 3) && !nul) {
    size_t start = f->frames.len;

    buf_add(&f->fstart, &start, sizeof(start));
    buf_add(&f->frames, line + 3, fv_find(line + 3, n - 3, '('));
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
    if (m && r[m - 1].len == r[i].len &&
        !memcmp(r[m - 1].key, r[i].key, r[i].len))
      r[m - 1].value += r[i].value;
    else
      r[m++] = r[i];
  }
  *n = m;
  return r;
}

/* foldvec.h's NH keys: these until fv_seed draws this run's */
uint32_t fv_hkey[64] __attribute__((aligned(32))) = {
    0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
    0x082efa98, 0xec4e6c89, 0x452821e6, 0x38d01377, 0xbe5466cf, 0x34e90c6c,
    0xc0ac29b7, 0xc97c50dd, 0x3f84d5b5, 0xb5470917, 0x9216d5d9, 0x8979fb1b,
    0xd1310ba6, 0x98dfb5ac, 0x2ffd72db, 0xd01adfb7, 0xb8e1afed, 0x6a267e96,
    0xba7c9045, 0xf12c7f99, 0x24a19947, 0xb3916cf7, 0x0801f2e2, 0x858efc16,
    0x636920d8, 0x71574e69, 0x4abea221, 0x2cb0f69f, 0x23148989, 0x94170347,
    0x609dfe03, 0xdd555950, 0xdeb12800, 0xdbafb150, 0x6c442cb6, 0x7e789b2e,
    0xc7e4f8c4, 0xf41e5636, 0xf8fba7e4, 0x0959d150, 0x3cdb9eea, 0xa97316f1,
    0xf9520068, 0x74cd8258, 0xe116868b, 0x55c74a62, 0xa2023cbd, 0xd2f4c799,
    0xa37b51b9, 0xdf98cb79, 0x524f3905, 0x396f5885, 0x6ca3b276, 0xaf1d5638,
    0x5104e85a, 0xa9ffbe6b, 0x9fd533b3, 0x6bd0c51b};

int fv_avx2;

/* Whether the AVX2 scans may run: built (the SSE2 build on x86-64) and
 * the CPU has them. */
static int has_avx2(void)
{
#if defined(__x86_64__) && defined(FV_SSE2) && !defined(JT_NO_AVX2)
  return cpu_avx2();
#else
  return 0;
#endif
}

static void fv_draw(void)
{
  uint32_t k[64];

  fv_avx2 = has_avx2();

  if (getrandom(k, sizeof(k), GRND_NONBLOCK) == (ssize_t)sizeof(k))
    memcpy(fv_hkey, k, sizeof(k));
  else /* no entropy yet (early boot): at least not a fixed key */
    for (int i = 0; i < 64; i++)
      fv_hkey[i] ^= (uint32_t)fv_mix(now_ms() ^ (uint64_t)getpid() << 32,
                                     0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
}

void fv_seed(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once(&once, fv_draw);
}

struct fold *fold_new(const struct fold_opts *o)
{
  struct fold *f = xzalloc(sizeof(*f));

  fv_seed(); /* before any stack is hashed */
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

/* Add the totals g folded to f's. */
void fold_merge_totals(struct fold *f, struct fold *g)
{
  fold_flush(g);
  for (size_t i = 0; i < g->totals.used; i++) {
    struct strset_entry *e = &g->totals.e[i], *t;

    t = strset_intern_h(&f->bytes, &f->totals, g->bytes.p + e->off, e->len, 0,
                        0, e->hash); /* fv_hash, as fold_new_stack's */
    fold_add_sat(&t->n, e->n);
  }
}

void fold_take(struct fold *f, struct fold *g)
{
  struct fold t;

  if (f->recs.len || f->totals.used || f->bytes.len) {
    fold_merge_totals(f, g);
    return;
  }
  /* f holds nothing yet: g's stacks, records and totals become f's (its
   * records' totals are numbered in its totals, their bytes in its
   * bytes), and f's empty ones g's, freed with it */
  fold_flush(g);
  t = *f;
  f->index = g->index, f->icap = g->icap, f->recs = g->recs;
  f->totals = g->totals, f->bytes = g->bytes;
  g->index = t.index, g->icap = t.icap, g->recs = t.recs;
  g->totals = t.totals, g->bytes = t.bytes;
}

/* Add the counts of lineno lines read after f's to f: st, and bad, the
 * first of their bad lines numbered from the first of them. */
void fold_merge_stats(struct fold *f, uint64_t lineno,
                      const struct fold_stats *st, const struct bad *bad)
{
  for (uint64_t i = 0; i < st->bad && i < 5; i++)
    if (f->st.bad + i < 5)
      f->first_bad[f->st.bad + i] =
          (struct bad){bad[i].name, f->lineno + bad[i].line, bad[i].why};
  f->lineno += lineno;
  f->st.lines += st->lines;
  f->st.samples += st->samples;
  f->st.bad += st->bad;
  f->st.skipped += st->skipped;
}

int fold_stack_cmp(const void *a, const void *b)
{
  const struct fold_stack *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len, i = 0;
  int c;

  /* stacks share long prefixes: sixteen bytes a step to the first byte
   * that differs */
  for (; i + 16 <= n; i += 16) {
    unsigned d = fv_ne16(x->key + i, y->key + i);

    if (d) {
      i += (size_t)__builtin_ctz(d);
      return (unsigned char)x->key[i] - (unsigned char)y->key[i];
    }
  }
  c = memcmp(x->key + i, y->key + i, n - i); /* within 16 bytes */

  return c ? c : (x->len > y->len) - (x->len < y->len);
}

size_t fold_result(struct fold *f, const struct fold_stack **out)
{
  size_t n = f->totals.used;

  fold_flush(f);
  free(f->sorted);
  f->sorted = xmalloc((n + 1) * sizeof(*f->sorted));
  for (size_t i = 0; i < n; i++) {
    struct strset_entry *e = &f->totals.e[i];

    f->sorted[i] =
        (struct fold_stack){f->bytes.p + e->off, (uint32_t)e->len, e->n};
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
    f->st.first_bad[i] = f->bad.p + at[i]; /* now that it no longer moves */
  return &f->st;
}

void fold_free(struct fold *f)
{
  free(f->index);
  buf_free(&f->recs);
  strset_free(&f->totals);
  buf_free(&f->bytes);
  buf_free(&f->key);
  buf_free(&f->bad);
  buf_free(&f->thread);
  buf_free(&f->frames);
  buf_free(&f->fstart);
  buf_free(&f->jkey);
  free(f->fr);
  free(f->sorted);
  for (int i = 0; i < f->o.nfilters; i++) free(f->filter_lc[i]);
  free(f->filter_lc);
  free(f->filter_len);
  free(f);
}

struct fold_stack *fold_union(const struct fold_stack *a, size_t na,
                              const struct fold_stack *b, size_t nb,
                              int64_t **before, size_t *n)
{
  struct fold_stack *u = xmalloc((na + nb + 1) * sizeof(*u));
  int64_t *bv = xmalloc((na + nb + 1) * sizeof(*bv));
  size_t i = 0, j = 0, k = 0;

  while (i < na || j < nb) {
    int c = i == na ? 1 : j == nb ? -1 : fold_stack_cmp(&a[i], &b[j]);

    u[k] = c < 0 ? a[i] : b[j];
    u[k].value = c < 0 ? 0 : b[j].value;
    bv[k++] = c <= 0 ? a[i].value : 0;
    i += c <= 0;
    j += c >= 0;
  }
  *before = bv;
  *n = k;
  return u;
}

unsigned fold_formats(const struct fold *f)
{
  return f->formats;
}

int fold_jdk_frame(const char *s, size_t n)
{
  static const char *const prefixes[] = {"java", "javax", "jdk", "sun"};

  for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
    size_t k = strlen(prefixes[i]);

    if (n > k && !memcmp(s, prefixes[i], k) && (s[k] == '.' || s[k] == '/'))
      return 1;
  }
  return 0;
}
