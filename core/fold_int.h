/* fold_int.h - what core/fold.c (the folding rules and the stack table)
 * and core/foldio.c (reading input: mapped windows, SIGBUS, lines, pipes)
 * share; nothing outside core/fold*.c includes it.
 */
#ifndef FOLD_INT_H
#define FOLD_INT_H

#include "core/fold.h"
#include "core/strset.h"

#include "core/foldvec.h"

struct frame {
  const char *p;
  size_t len;
};

/* A stack as read, in f->bytes (8-byte aligned): this header, then its
 * len bytes. Its lines' values are added here, where the look-up that
 * found it has just been, and moved into its total (f->totals) when the
 * totals are read (fold_flush). */
struct fold_rec {
  uint64_t hash;
  uint32_t len;
  int32_t n;   /* the number of its total, or UNFOLDED, SKIPPED, EMPTY */
  int64_t ctx; /* what else decides how it folds (fold_context) */
  int64_t sum; /* its lines' values not yet in its total, saturated */
};

struct fold {
  struct fold_opts o;
  /* the stacks as read: an index (open addressing, kept three quarters
   * empty: hash high half, record offset / 8 + 1) over records in bytes */
  uint64_t *index;
  size_t icap;
  struct buf recs;            /* each record's offset in bytes (size_t) */
  struct strset totals;       /* the stacks as folded */
  struct buf bytes, key, bad; /* their bytes; a key being built; reports */
  struct bad {
    const char *name;
    uint64_t line;
    const char *why;
  } first_bad[5];
  struct frame *fr; /* the frames of a stack being folded */
  size_t frcap;
  struct fold_stack *sorted;
  struct fold_stats st;
  const char *name;
  uint64_t lineno;
  long gc; /* the current "#GC <n>" section, or -1 */
  /* jstack: the thread being read */
  struct buf thread, frames;
  struct buf fstart, jkey; /* where each frame starts (size_t); the stack */
  int in_thread, nframes;
  char state[32];
  enum fold_format fmt;
  unsigned formats; /* 1 << each format read */
  char **filter_lc; /* the filters in lower case */
  size_t *filter_len;
};

/* ---- core/fold.c, for the reader and core/foldline.c ---- */

enum { UNFOLDED = -1, SKIPPED = -2, EMPTY = -3 }; /* struct fold_rec.n */

/* Count a bad line (the current one of f->name), keep the first five. */
void fold_bad(struct fold *f, const char *why);

/* Fold a stack seen for the first time (its len bytes at off in
 * f->bytes): filter, squash, type leaf. Returns the number of its total,
 * or SKIPPED or EMPTY. */
int32_t fold_new_stack(struct fold *f, size_t off, size_t len, int has_type);

/* The record at offset r of f->bytes, and its stack's bytes. */
static inline struct fold_rec *fold_rec(const struct fold *f, size_t r)
{
  return (struct fold_rec *)(void *)(f->bytes.p + r);
}

static inline const char *fold_rec_key(const struct fold_rec *e)
{
  return (const char *)(e + 1);
}

/* The offset of the record of stack s[0..n) with ctx (h = fv_hash(s, n,
 * ctx)), made when new; FOLD_FULL when there is no room for it (a stack
 * over 4 GiB, or 32 GiB of them). */
#define FOLD_FULL SIZE_MAX
size_t fold_find(struct fold *f, const char *s, size_t n, int64_t ctx,
                 uint64_t h);

/* Move the records' sums into their totals. */
void fold_flush(struct fold *f);

/* Totals saturate instead of wrapping around. */
static inline void fold_add_sat(int64_t *total, int64_t v)
{
  if (__builtin_add_overflow(*total, v, total))
    *total = v > 0 ? INT64_MAX : INT64_MIN;
}

/* Count a line of the stack of record r (FOLD_FULL: none) with value v,
 * the stack folded now if new. */
static inline void fold_tally(struct fold *f, size_t r, int has_type, int64_t v)
{
  struct fold_rec *e;

  if (r == FOLD_FULL) {
    fold_bad(f, "no room for another distinct stack");
    return;
  }
  e = fold_rec(f, r);
  if (e->n == UNFOLDED) {
    int32_t n = fold_new_stack(f, r + sizeof(*e), e->len, has_type);

    e = fold_rec(f, r); /* f->bytes may have moved */
    e->n = n;
  }
  if (e->n == SKIPPED) {
    f->st.skipped++;
  } else if (e->n == EMPTY) {
    fold_bad(f, "empty stack");
  } else {
    f->st.samples++;
    fold_add_sat(&e->sum, f->o.samples ? 1 : v);
  }
}

/* What decides how the stack of a line folds besides its bytes: has_type
 * (its leaf is the allocated type) and, with --gc-frames, its GC section. */
static inline int64_t fold_context(const struct fold *f, int has_type)
{
  return has_type + (f->o.gc_frames ? 2 * ((int64_t)f->gc + 1) : 0);
}

/* ---- core/foldline.c ---- */

/* One line of a line format (stacks, lifetime, folded); nul: it holds a
 * NUL byte. */
void fold_text_line(struct fold *f, const char *s, size_t n, int nul);

/* Fold the whole lines of a line format in p[0..n) that start before
 * stop, and at the end of input (eof) the rest too; returns how many
 * bytes were taken. The same as fold_text_line on each line, in groups
 * whose table look-ups overlap. */
size_t fold_text_lines(struct fold *f, const char *p, size_t n, int eof,
                       size_t stop);

/* ---- core/fold.c ---- */

/* One line of a jstack dump (nul: it holds a NUL byte); fold_jstack_end
 * folds the thread being read (at a blank line, the next header, or the
 * end of input). */
void fold_jstack_line(struct fold *f, const char *line, size_t n, int nul);
void fold_jstack_end(struct fold *f);

/* Add the totals g folded to f's. */
void fold_merge_totals(struct fold *f, struct fold *g);

/* The same, but when f holds no stack yet g's stacks and totals become
 * f's as they are, with no copy (g keeps none). */
void fold_take(struct fold *f, struct fold *g);

/* Add the counts of lineno lines read after f's to f: st, and bad, the
 * first of their bad lines numbered from the first of them. */
void fold_merge_stats(struct fold *f, uint64_t lineno,
                      const struct fold_stats *st, const struct bad *bad);

#endif
