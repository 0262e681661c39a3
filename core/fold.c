/* fold.c - fold stack samples into "frame;frame;... value" totals
 *
 * One pass over the input: each line is split at its last space (frames
 * may contain spaces), cut at the filter's first match, squashed and hashed;
 * the key bytes go once into an arena and an open-addressing table of
 * (hash, offset, length, value) finds them again. No allocation per line.
 */
#include "core/jvmtool.h"
#include "core/fold.h"

struct slot {
  uint64_t hash;
  size_t off;
  uint32_t len;
  int64_t value;
};

struct fold {
  struct fold_opts o;
  struct slot *tab;
  size_t cap, used;
  struct buf arena, key, bad;   /* keys; the key being built; bad reports */
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
  char *filter_lc;
};

static uint64_t hash(const char *p, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ULL;

  /* FNV-1a, eight bytes at a time where it can. */
  while (n >= 8) {
    uint64_t w;

    memcpy(&w, p, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
    p += 8, n -= 8;
  }
  while (n--) h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
  return h ^ (h >> 32);
}

static void add(struct fold *f, const char *key, size_t len, int64_t v)
{
  uint64_t h = hash(key, len);
  size_t i;

  if (f->used * 2 >= f->cap) {
    size_t ncap = f->cap ? f->cap * 2 : 1024;
    struct slot *nt = xzalloc(ncap * sizeof(*nt));

    for (size_t j = 0; j < f->cap; j++) {
      if (!f->tab[j].len) continue;
      for (i = f->tab[j].hash & (ncap - 1); nt[i].len;
           i = (i + 1) & (ncap - 1)) ;
      nt[i] = f->tab[j];
    }
    free(f->tab);
    f->tab = nt;
    f->cap = ncap;
  }
  for (i = h & (f->cap - 1); f->tab[i].len;
       i = (i + 1) & (f->cap - 1)) {
    struct slot *s = &f->tab[i];

    if (s->hash == h && s->len == len && !memcmp(f->arena.p + s->off, key, len)) {
      /* totals saturate instead of wrapping around */
      if (__builtin_add_overflow(s->value, v, &s->value))
        s->value = v > 0 ? INT64_MAX : INT64_MIN;
      return;
    }
  }
  f->tab[i] = (struct slot){h, f->arena.len, (uint32_t)len, v};
  buf_add(&f->arena, key, len);
  f->used++;
}

static void bad(struct fold *f, const char *why)
{
  f->st.bad++;
  if (f->st.nfirst_bad < 5) {
    size_t at = f->bad.len;

    buf_printf(&f->bad, "%s:%" PRIu64 ": %s", f->name, f->lineno, why);
    buf_addc(&f->bad, 0);
    /* offsets now, pointers at the end: the buffer may move */
    f->st.first_bad[f->st.nfirst_bad++] = (const char *)(uintptr_t)at;
  }
}

static int contains_ci(const char *s, size_t n, const char *needle_lc)
{
  size_t m = strlen(needle_lc);

  for (size_t i = 0; i + m <= n; i++) {
    size_t j = 0;

    while (j < m && tolower((unsigned char)s[i + j]) == needle_lc[j]) j++;
    if (j == m) return 1;
  }
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

/* The common case needs no copy: no filter, no type rewriting, and no
 * direct recursion to squash. Returns 1 when it folded the stack. */
static int fold_plain(struct fold *f, const char *s, size_t n, int64_t v)
{
  const char *prev = NULL, *p = s, *end = s + n, *semi;
  size_t plen = 0;

  if (f->filter_lc || f->o.normalize || f->o.type_frames ||
      (f->o.gc_frames && f->gc >= 0) || s[n - 1] == ';')
    return 0;
  for (; !f->o.no_squash && p < end; p = semi + 1) {
    size_t len;

    semi = memchr(p, ';', (size_t)(end - p));
    if (!semi) semi = end;
    len = (size_t)(semi - p);
    if (prev && len == plen && !memcmp(p, prev, len)) return 0;
    prev = p, plen = len;
  }
  f->st.samples++;
  add(f, s, n, f->o.samples ? 1 : v);
  return 1;
}

/* Fold frames [s, s+n) with value v: filter, squash, type leaf. */
static void fold_stack(struct fold *f, const char *s, size_t n, int64_t v,
                       int has_type)
{
  const char *frame[4096];
  size_t flen[4096], nf = 0, first = 0, type = 0;
  struct buf *k = &f->key;

  if (n && fold_plain(f, s, n, v)) return;
  /* "[Ljava/lang/String;" as a leaf ends in ';': keep it whole */
  for (size_t i = 0, st = 0; i <= n && nf < 4096; i++) {
    if (i == n || s[i] == ';') {
      if (i == n && i == st && nf && has_type) break;
      frame[nf] = s + st, flen[nf++] = i - st, st = i + 1;
    }
  }
  if (has_type && nf > 1 && n && s[n - 1] == ';' && flen[nf - 1] &&
      frame[nf - 1][0] == '[')
    flen[nf - 1]++;
  if (!nf) return;
  type = has_type ? nf - 1 : nf;
  if (f->filter_lc) {
    while (first < nf && !contains_ci(frame[first], flen[first], f->filter_lc))
      first++;
    if (first == nf) {
      if (!f->o.keep_unmatched) {
        f->st.skipped++;
        return;
      }
      first = 0;
    }
  }
  k->len = 0;
  buf_add(k, "", 0);
  if (f->o.gc_frames && f->gc >= 0) buf_printf(k, "GC %ld;", f->gc);
  for (size_t i = first; i < nf; i++) {
    if (!f->o.no_squash && i > first && flen[i] == flen[i - 1] &&
        !memcmp(frame[i], frame[i - 1], flen[i]))
      continue;
    if (i == type && (f->o.normalize || f->o.type_frames)) {
      if (f->o.normalize) normalize(k, frame[i], flen[i]);
      else buf_add(k, frame[i], flen[i]);
      if (f->o.type_frames) buf_adds(k, "_[i]");
    } else {
      buf_add(k, frame[i], flen[i]);
    }
    buf_addc(k, ';');
  }
  k->len--;  /* the last ';' */
  if (!k->len) {
    bad(f, "empty stack");
    return;
  }
  f->st.samples++;
  add(f, k->p, k->len, f->o.samples ? 1 : v);
}

void fold_line(struct fold *f, const char *line, size_t n)
{
  const char *sp;
  long long v;
  char num[32];
  size_t vl;

  f->lineno++;
  f->st.lines++;
  if (n && line[n - 1] == '\r') n--;
  if (!n) return;
  if (line[0] == '#') {
    /* "#GC <n>" opens a lifetime section; other comments are skipped */
    if (n > 4 && !memcmp(line, "#GC ", 4)) {
      snprintf(num, sizeof(num), "%.*s", (int)(n - 4 < 31 ? n - 4 : 31),
               line + 4);
      f->gc = parse_long(num, 0, LONG_MAX, &v) ? -1 : (long)v;
    }
    return;
  }
  if (memchr(line, 0, n)) {
    bad(f, "NUL byte (binary data?)");
    return;
  }
  if (f->o.gc_lo >= 0 && (f->gc < f->o.gc_lo || f->gc > f->o.gc_hi)) {
    f->st.skipped++;
    return;
  }
  sp = memrchr(line, ' ', n);
  if (!sp) {
    bad(f, "no value (want 'frames value')");
    return;
  }
  vl = n - (size_t)(sp + 1 - line);
  if (!vl || vl > 20) {
    bad(f, "value is not an integer");
    return;
  }
  memcpy(num, sp + 1, vl);
  num[vl] = 0;
  if (parse_long(num, INT64_MIN + 1, INT64_MAX, &v))
    {
    bad(f, "value is not an integer");
    return;
  }
  while (sp > line && sp[-1] == ' ') sp--;
  if (sp == line) {
    bad(f, "no frames");
    return;
  }
  fold_stack(f, line, (size_t)(sp - line), v, f->fmt != FOLD_FOLDED);
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

struct fold *fold_new(const struct fold_opts *o)
{
  struct fold *f = xzalloc(sizeof(*f));

  f->o = *o;
  f->gc = -1;
  if (o->filter && *o->filter) {
    f->filter_lc = xstrdup(o->filter);
    for (char *p = f->filter_lc; *p; p++) *p = (char)tolower((unsigned char)*p);
  }
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

int fold_fd(struct fold *f, int fd, const char *name)
{
  size_t cap = 1 << 20, have = 0;
  char *b = xmalloc(cap);
  ssize_t r;
  int rc = 0, first = 1;
  enum fold_format keep = f->fmt;

  f->name = name;
  f->lineno = 0;
  f->gc = -1;
  for (;;) {
    char *p, *nl;

    r = read(fd, b + have, cap - have);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      rc = -errno;
      break;
    }
    have += (size_t)r;
    if (first && (r == 0 || have > 4096)) {
      if (f->fmt == FOLD_AUTO) f->fmt = detect(b, have);
      first = 0;
    }
    if (first) continue;
    for (p = b; (nl = memchr(p, '\n', have - (size_t)(p - b))); p = nl + 1) {
      if (f->fmt == FOLD_JSTACK) jstack_line(f, p, (size_t)(nl - p));
      else fold_line(f, p, (size_t)(nl - p));
    }
    have -= (size_t)(p - b);
    memmove(b, p, have);
    if (!r) break;
    if (have == cap) b = xrealloc(b, cap *= 2);  /* a very long line */
  }
  if (have) {
    if (f->fmt == FOLD_JSTACK) jstack_line(f, b, have);
    else fold_line(f, b, have);
  }
  if (f->fmt == FOLD_JSTACK) jstack_end(f);
  f->fmt = keep;
  free(b);
  return rc;
}

int fold_stack_cmp(const void *a, const void *b)
{
  const struct fold_stack *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->key, y->key, n);

  return c ? c : (x->len > y->len) - (x->len < y->len);
}

size_t fold_result(struct fold *f, const struct fold_stack **out)
{
  size_t n = 0;

  free(f->sorted);
  f->sorted = xmalloc((f->used + 1) * sizeof(*f->sorted));
  for (size_t i = 0; i < f->cap; i++) {
    struct slot *s = &f->tab[i];

    if (!s->len) continue;  /* an empty slot: keys are never empty */
    f->sorted[n++] = (struct fold_stack){f->arena.p + s->off, s->len, s->value};
  }
  if (n) qsort(f->sorted, n, sizeof(*f->sorted), fold_stack_cmp);
  *out = f->sorted;
  return n;
}

const struct fold_stats *fold_stats(const struct fold *f)
{
  static struct fold_stats st;

  st = f->st;
  for (int i = 0; i < st.nfirst_bad; i++)
    st.first_bad[i] = f->bad.p + (uintptr_t)f->st.first_bad[i];
  return &st;
}

void fold_free(struct fold *f)
{
  free(f->tab);
  buf_free(&f->arena);
  buf_free(&f->key);
  buf_free(&f->bad);
  buf_free(&f->thread);
  buf_free(&f->frames);
  free(f->sorted);
  free(f->filter_lc);
  free(f);
}
