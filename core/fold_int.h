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

struct fold {
  struct fold_opts o;
  struct strset stacks, totals; /* as read; as folded */
  struct buf bytes, key, bad;   /* their bytes; a key being built; reports */
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

enum { UNFOLDED = -1, SKIPPED = -2, EMPTY = -3 }; /* struct strset_entry.n */

/* Count a bad line (the current one of f->name), keep the first five. */
void fold_bad(struct fold *f, const char *why);

/* Fold a stack seen for the first time: filter, squash, type leaf.
 * Returns the number of its total, or SKIPPED or EMPTY. */
int64_t fold_new_stack(struct fold *f, const struct strset_entry *st,
                       int has_type);

/* Totals saturate instead of wrapping around. */
static inline void fold_add_sat(int64_t *total, int64_t v)
{
  if (__builtin_add_overflow(*total, v, total))
    *total = v > 0 ? INT64_MAX : INT64_MIN;
}

/* Count a line of stack e (its total's number in e->n, folded now if
 * new) with value v. */
static inline void fold_tally(struct fold *f, struct strset_entry *e,
                              int has_type, int64_t v)
{
  if (e->n == UNFOLDED) e->n = fold_new_stack(f, e, has_type);
  if (e->n == SKIPPED) {
    f->st.skipped++;
  } else if (e->n == EMPTY) {
    fold_bad(f, "empty stack");
  } else {
    f->st.samples++;
    fold_add_sat(&f->totals.e[e->n].n, f->o.samples ? 1 : v);
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
 * bytes were taken. The same as fold_text_line on each line, in a batch
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

/* Add the counts of lineno lines read after f's to f: st, and bad, the
 * first of their bad lines numbered from the first of them. */
void fold_merge_stats(struct fold *f, uint64_t lineno,
                      const struct fold_stats *st, const struct bad *bad);

#endif
