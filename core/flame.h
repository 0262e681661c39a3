/* flame.h - render folded stacks as a self-contained interactive SVG
 *
 * In the spirit of flamegraph.pl (docs/flame.md §3.1), with our own
 * drawing and script: hover details, click to zoom, search with the share
 * of the total that matches, icicle (--inverted) and reversed stacks
 * (allocated type at the root). The same input gives the same bytes.
 * A differential graph takes its widths from the stacks' values (after)
 * and colours each frame by its change in share of the total since before:
 * red grew, blue shrank, white kept its share; the hover text gives both
 * values, both shares and the change in percentage points.
 */
#ifndef FLAME_H
#define FLAME_H

#include <stdio.h>
#include "core/fold.h"

struct flame_opts {
  const char *title;
  const char *unit;        /* "bytes" or "samples" */
  int width;               /* pixels */
  double minwidth;         /* frames narrower than this (pixels) are pruned */
  int reverse;             /* leaf first: who allocates byte[]? */
  int inverted;            /* icicle: root at the top */
  const int64_t *before;   /* a differential graph: each stack's value
                            before (fold_union); NULL: a plain one */
  const char *script_href; /* the script as a file of its own at this
                              address (flame_js, then a call of init on
                              load), for a page whose Content-Security-
                              Policy forbids inline script: serve's; NULL:
                              inline, the SVG self-contained */
};

/* The SVG's script (no markup around it): its init(evt) finds the frames
 * and sets up hover, zoom and search. */
extern const char flame_js[];

/* The default title of a graph of kind: an event word (cpu, cputime,
 * native, alloc, lock, wall), "jstack" (thread dumps), "diff"; anything
 * else, NULL included (a folded file of unknown origin), "Flame Graph". */
const char *flame_title(const char *kind);

/* Write the SVG for n stacks (sorted by key, as fold_result gives them).
 * Returns 0, or -EIO when writing failed. */
int flame_svg(FILE *out, const struct fold_stack *st, size_t n,
              const struct flame_opts *o);

#endif
