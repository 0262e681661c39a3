/* fold.h - fold stack samples into "frame;frame;... value" totals
 *
 * Inputs (docs/flame.md §1, §2, §3.2): the sampler's stacks.txt (root
 * first, the allocated type as the leaf, then the size), its lifetime
 * output ("#GC <n>" sections), already-folded files, and jstack /
 * jcmd Thread.print dumps (one sample per thread stack). Input is read in
 * large blocks and each line is folded in place: memory grows with the
 * number of distinct stacks, not with the input.
 */
#ifndef FOLD_H
#define FOLD_H

#include <stddef.h>
#include <stdint.h>

enum fold_format { FOLD_AUTO, FOLD_STACKS, FOLD_FOLDED, FOLD_JSTACK };

struct fold_opts {
  enum fold_format format;
  const char *const *filters; /* case-insensitive; a stack starts at its */
  int nfilters;               /* first frame that contains any of them */
  int keep_unmatched;         /* keep stacks the filter does not match */
  int no_squash;              /* keep direct recursion (a;a;b) */
  int samples;                /* count lines instead of summing values */
  int type_frames;            /* mark the allocated type "_[i]" */
  int normalize;              /* char -> char[], [Ljava/lang/String; -> ... */
  long gc_lo, gc_hi;          /* lifetime sections to keep; -1: all */
  int gc_frames;              /* "GC <n>" as the root frame */
  const char *state;          /* jstack: only threads in this state */
  int thread_frames;          /* jstack: the thread name as the root frame */
};

struct fold_stack {
  const char *key; /* frames joined by ';', not NUL-terminated */
  uint32_t len;
  int64_t value;
};

struct fold;

/* A new, empty fold with these options (copied). Never NULL. */
struct fold *fold_new(const struct fold_opts *o);

/* Fold everything readable from fd; name is used in bad-line reports.
 * Returns 0, -errno from read(), or FOLD_SHRANK: the file was cut short
 * while it was read, so part of it is missing. Bad lines are counted,
 * never fatal. */
enum { FOLD_SHRANK = -4096 };
int fold_fd(struct fold *f, int fd, const char *name);

/* Fold one line (no newline; a trailing CR is dropped) of a line format
 * (stacks, lifetime or folded). For tests and fuzzing. */
void fold_line(struct fold *f, const char *line, size_t len);

/* Add value v to the stack [s, s+len) (frames root first, joined by ';';
 * with has_type its leaf is the allocated type), as given: --samples is
 * the caller's to apply. For binary inputs (core/jfr). */
void fold_add(struct fold *f, const char *s, size_t len, int64_t v,
              int has_type);

/* qsort comparison of two struct fold_stack by key bytes. */
int fold_stack_cmp(const void *a, const void *b);

/* Each stack's frames in the other order (the leaf first), re-sorted,
 * equal stacks merged. Keys live in arena (the caller frees it with
 * buf_free); returns a malloc'd array and sets *n to its length. */
struct buf;
struct fold_stack *fold_reverse(const struct fold_stack *st, size_t *n,
                                struct buf *arena);

/* The stacks of a or b (both sorted by key bytes) once each, sorted: the
 * value is b's, *before (malloc'd, the caller frees) a's, 0 where a stack
 * is missing. Keys point into a and b. Returns a malloc'd array and sets
 * *n to its length. For differential graphs (before a, after b). */
struct fold_stack *fold_union(const struct fold_stack *a, size_t na,
                              const struct fold_stack *b, size_t nb,
                              int64_t **before, size_t *n);

/* A bit (1 << enum fold_format) for each format fold_fd read (FOLD_AUTO:
 * a file that held no line to tell). */
unsigned fold_formats(const struct fold *f);

/* The totals, sorted by key bytes; valid until fold_free. */
size_t fold_result(struct fold *f, const struct fold_stack **out);

/* Counts, and the first few bad lines as "name:line: reason". */
struct fold_stats {
  uint64_t lines, samples, bad, skipped;
  const char *first_bad[5];
  int nfirst_bad;
};
const struct fold_stats *fold_stats(struct fold *f);

void fold_free(struct fold *f);

/* 1 when the frame s (n bytes, "pkg.Class.method..." or "pkg/Class...")
 * is in the JDK's own packages (java., javax., jdk., sun.), 0 when it is
 * the application's or another (a thread, a VM frame). */
int fold_jdk_frame(const char *s, size_t n);

#endif
