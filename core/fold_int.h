/* fold_int.h - what core/fold.c (the folding rules and the stack table)
 * and core/foldio.c (reading input: mapped windows, SIGBUS, lines, pipes)
 * share; nothing outside core/fold*.c includes it.
 */
#ifndef FOLD_INT_H
#define FOLD_INT_H

#include "core/fold.h"
#include "core/strset.h"

#ifdef __SSE2__
#include <emmintrin.h> /* part of every x86-64 */
#endif

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

/* A bit for each byte of p[0..16) equal to c. */
static inline unsigned eq16(const char *p, char c)
{
#ifdef __SSE2__
  return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
      _mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8(c)));
#else
  unsigned m = 0;

  for (int i = 0; i < 16; i++) m |= (unsigned)(p[i] == c) << i;
  return m;
#endif
}

/* ---- core/fold.c, for the reader ---- */

/* One line of a line format (stacks, lifetime, folded); nul: it holds a
 * NUL byte. */
void fold_text_line(struct fold *f, const char *s, size_t n, int nul);

/* One line of a jstack dump; fold_jstack_end folds the thread being read
 * (at a blank line, the next header, or the end of input). */
void fold_jstack_line(struct fold *f, const char *line, size_t n);
void fold_jstack_end(struct fold *f);

/* Count a bad line (the current one of f->name), keep the first five. */
void fold_bad(struct fold *f, const char *why);

/* Add what g folded (the lines after f's) to f. */
void fold_merge(struct fold *f, struct fold *g);

#endif
