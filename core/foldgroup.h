/* foldgroup.h - the hot loops of core/foldline.c, which includes this
 * once for each path of core/foldvec.h it builds (SSE2, NEON or portable
 * as the build has it; on x86-64 AVX2 too): FL(name) is each copy's name
 * for a function, FV_TARGET the machine it is built for (foldvec.h sets
 * it as it was included last). Nothing else includes it.
 */
/* Look up and count the n lines of group g, the n lines after
 * f->lineno, hashed (g->h) as they were found. */
static FV_TARGET void FL(group_fold)(struct fold *f, struct group *g, int n,
                                     const struct common *c)
{
  uint64_t line, x, samples = 0;
  size_t mask = f->icap - 1, j;
  int i;

  f->lineno += (uint64_t)n;
  f->st.lines += (uint64_t)n;
  line = f->lineno;
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
          !FL(fv_same)(fold_rec_key(e), g->s[i], k)) {
        r = FOLD_FULL;        /* not it: fold_find looks further */
      } else if (e->n >= 0) { /* a stack known and kept: the common case */
        samples++;
        fold_add_sat(&e->sum, g->v[i]);
        continue;
      }
    }
    f->lineno = line - (uint64_t)(n - 1 - i); /* for the reports */
    if (r == FOLD_FULL) {
      if (FL(fv_find)(g->s[i], k, 0) < k) { /* a stack kept has none */
        fold_bad(f, "NUL byte (binary data?)");
        continue;
      }
      r = fold_find(f, g->s[i], k, c->ctx, g->h[i]);
    }
    fold_tally(f, r, c->has_type, g->v[i]);
    mask = f->icap - 1; /* the index may have grown */
  }
  f->lineno = line;
  f->st.samples += samples;
}

static FV_TARGET size_t FL(text_lines)(struct fold *f, const char *p, size_t n,
                                       int eof, size_t stop)
{
  size_t at = 0, e, blk = 0, whole = n & ~(size_t)63; /* of 64-byte blocks */
  uint64_t m = whole ? FL(fv_nl64)(p) : 0; /* its line ends not yet taken */
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
      m = FL(fv_nl64)(p + (blk += 64));
    }
    if (m) {
      e = blk + (size_t)__builtin_ctzll(m);
      m &= m - 1;
    } else {
      e = at > whole ? at : whole;
      e += FL(fv_find_nl)(p + e, n - e);
      blk = whole;
    }
    if (e == n && !eof) {
      more = 0;
      goto flush;
    }
    l = e - at;
    /* the common line: no comment, " <1 to 7 digits>" at its end (a NUL
     * in its stack is found when the stack is new: no stack kept has
     * one), in a --gc section asked for; hashed while it is in the L1
     * cache, its index slot asked for */
    if (l >= 9 && p[at] != '#' && !c.out && value8(p + at, l, &k, &v)) {
      uint64_t h = FL(fv_hash)(p + at, k, c.ctx);

      if (f->icap) __builtin_prefetch(&f->index[h & (f->icap - 1)]);
      g.s[cnt] = p + at, g.k[cnt] = (uint32_t)k, g.h[cnt] = h;
      g.v[cnt] = c.one ? 1 : v;
      bytes += l;
      at = e + (e < n);
      if (++cnt < GROUP && bytes < GROUP_BYTES) continue;
    } else {
      /* the lines before it first, then it on its own */
      if (cnt) {
        FL(group_fold)(f, &g, cnt, &c);
        cnt = 0, bytes = 0;
      }
      text_line(f, p + at, l, FL(fv_find)(p + at, l, 0) < l);
      common(f, &c);
      at = e + (e < n);
      continue;
    }
  flush:
    if (cnt) FL(group_fold)(f, &g, cnt, &c);
    cnt = 0, bytes = 0;
  }
  return at;
}
