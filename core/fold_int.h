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
  int in_thread, nframes;
  char state[32];
  enum fold_format fmt;
  unsigned formats; /* 1 << each format read */
  char **filter_lc; /* the filters in lower case */
  size_t *filter_len;
};

/* ---- core/fold.c, for the reader ---- */

/* One line of a line format (stacks, lifetime, folded); nul: it holds a
 * NUL byte. */
void fold_text_line(struct fold *f, const char *s, size_t n, int nul);

/* Fold the whole lines of a line format in p[0..n) that start before
 * stop, and at the end of input (eof) the rest too; returns how many
 * bytes were taken. The same as fold_text_line on each line, in a batch
 * whose table look-ups overlap. */
size_t fold_text_lines(struct fold *f, const char *p, size_t n, int eof,
                       size_t stop);

/* One line of a jstack dump; fold_jstack_end folds the thread being read
 * (at a blank line, the next header, or the end of input). */
void fold_jstack_line(struct fold *f, const char *line, size_t n);
void fold_jstack_end(struct fold *f);

/* Count a bad line (the current one of f->name), keep the first five. */
void fold_bad(struct fold *f, const char *why);

/* Add the totals g folded to f's. */
void fold_merge_totals(struct fold *f, struct fold *g);

/* Add the counts of lineno lines read after f's to f: st, and bad, the
 * first of their bad lines numbered from the first of them. */
void fold_merge_stats(struct fold *f, uint64_t lineno,
                      const struct fold_stats *st, const struct bad *bad);

#endif
