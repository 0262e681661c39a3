/* collapse.c - fold allocation samples or thread dumps; draw flame graphs
 *
 * Reads the sampler's stacks.txt (and its lifetime "#GC <n>" sections),
 * folded files and jstack dumps, and writes sorted "stack value" lines or
 * an interactive SVG (docs/flame.md). Compatible with FlameCollapse's
 * folding (direct recursion squashed, case-insensitive filter that cuts at
 * the first matching frame) without its defects: the value is the last
 * token, so frames may hold spaces; bad lines are reported, not fatal;
 * output is sorted, with no trailing ';' unless --seed-compat. Several
 * filter words are several filters (a stack starts at its first frame
 * matching any); --reverse writes each stack leaf first, as flamegraph.pl's
 * users expect, and draws the reversed graph. An input that gives no stack
 * at all, or only stacks the filters drop, is an error (exit 1).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/wfile.h"
#include "core/flame.h"
#include "core/fold.h"
#include "core/jfr.h"
#include "core/pprof.h"

#define OPTS_FILE "specs/collapse.opts"
#include "core/opt_table.h"

static int gc_range(const char *s, struct fold_opts *o)
{
  char lo[32];
  const char *dash = strchr(s, '-');
  long long a, b;

  snprintf(lo, sizeof(lo), "%.*s", (int)(dash ? dash - s : 31), s);
  if (parse_long(lo, 0, LONG_MAX, &a)) return -1;
  b = a;
  if (dash && parse_long(dash + 1, a, LONG_MAX, &b)) return -1;
  o->gc_lo = (long)a;
  o->gc_hi = (long)b;
  return 0;
}

static int write_folded(const char *path, const struct fold_stack *st, size_t n,
                        int seed)
{
  static char big[1 << 16]; /* stdio's own is 1 KiB: a write per stack */
  struct wfile w;
  FILE *f = stdout;
  int err;

  if (path && (err = wfile_open(&w, path))) {
    errno_msg(err, "cannot write '%s'", path);
    return 1;
  }
  if (path) f = w.f;
  setvbuf(f, big, _IOFBF, sizeof(big));
  for (size_t i = 0; i < n; i++) {
    fwrite(st[i].key, 1, st[i].len, f);
    fprintf(f, "%s %" PRId64 "\n", seed ? ";" : "", st[i].value);
  }
  if (path && (err = wfile_commit(&w))) { /* any failed write */
    errno_msg(err, "cannot write '%s'", path);
    return 1;
  }
  return 0;
}

/* What a graph of f's inputs (jf: its recordings) shows: an event word,
 * "jstack", "alloc" (--type-frames), NULL: not known (folded files or
 * sampler stacks, a mix). flame_title names it. */
static const char *graph_kind(const struct fold *f, struct jfr_fold *jf,
                              const struct args *a)
{
  unsigned fm = fold_formats(f) & ~(1u << FOLD_AUTO);

  if (a->count[OPT_type_frames]) return "alloc";
  if (jf) return fm ? NULL : jfr_fold_word(jf);
  if (fm == 1u << FOLD_JSTACK) return "jstack";
  return NULL; /* stacks and folded lines look alike */
}

static int write_svg(const char *path, const struct fold_stack *st, size_t n,
                     struct args *a, const char *unit, const int64_t *before,
                     const char *kind)
{
  struct flame_opts fo = {a->val[OPT_title],
                          a->count[OPT_samples] ? "samples" : "bytes",
                          1200,
                          0.1,
                          a->count[OPT_reverse],
                          a->count[OPT_inverted],
                          before,
                          NULL};
  struct wfile w;
  int rc;

  if (unit) fo.unit = unit;
  if (!fo.title) fo.title = flame_title(before ? "diff" : kind);
  fo.width = (int)a->num[OPT_width];
  fo.minwidth = a->real[OPT_minwidth];
  if ((rc = wfile_open(&w, path))) {
    errno_msg(rc, "cannot write '%s'", path);
    return 1;
  }
  if ((rc = flame_svg(w.f, st, n, &fo))) {
    wfile_abort(&w);
    perror_msg("cannot write '%s'", path);
    return 1;
  }
  if ((rc = wfile_commit(&w))) {
    errno_msg(rc, "cannot write '%s'", path);
    return 1;
  }
  return 0;
}

/* .jfr inputs: what to fold from them (core/jfr, docs/jfr.md). */
static int jfr_setup(const struct args *a, struct jfr_fold_opts *jo)
{
  *jo = (struct jfr_fold_opts){a->val[OPT_event],
                               a->val[OPT_value],
                               a->count[OPT_lines],
                               a->count[OPT_thread_frames],
                               a->count[OPT_samples],
                               -1,
                               -1,
                               NULL,
                               0,
                               0,
                               1,
                               0,
                               0};
  if (jo->event && !jfr_event_valid(jo->event))
    return jfr_event_error(jo->event);
  if (a->val[OPT_from]) jo->from_ns = a->num[OPT_from];
  if (a->val[OPT_to]) jo->to_ns = a->num[OPT_to];
  return 0;
}

/* Fold a recording; say what was cut short. A recording still being
 * written (a live repository file, a running JVM's dump in progress) is
 * what the user asked to see now: its finished chunks and what the last
 * one has published are folded, one line says so, and the run succeeds. */
static void jfr_file(struct jfr_fold *jf, int fd, const char *path)
{
  const struct jfr_fold_stats *s = jfr_fold_stats(jf);
  char err[256];

  if (jfr_fold_fd(jf, fd, path, err, sizeof(err)))
    error_msg("'%s': %s%s", path, err,
              s->truncated ? "; the complete chunks before it are read" : "");
  else if (s->live)
    warn_msg("'%s': the last chunk is still being written (a live "
             "recording): folded the finished chunks and what it has "
             "published so far",
             path);
}

/* What was folded; alloc: how many threads' bytes came from their
 * allocation statistics, and a warning when none did (raw weights). */
static void jfr_say(struct jfr_fold *jf, const char *chosen)
{
  const struct jfr_fold_stats *s = jfr_fold_stats(jf);

  verbose_msg("%s, %" PRIu64 " events", chosen, s->used);
  if (s->scaled || s->unscaled)
    verbose_msg("%" PRIu64 " threads' bytes from jdk.ThreadAllocationStatistics"
                ", %" PRIu64 " kept raw weights (no pair of them)",
                s->scaled, s->unscaled);
  if (s->unscaled && !s->scaled)
    warn_msg("no jdk.ThreadAllocationStatistics in the recording: values are "
             "JFR's raw weights, which overcount (docs/jfr.md §13)");
}

/* Fold every input file ("-" is stdin) into f; a recording (detected, or
 * --format jfr) through *jf, made on first use (its event counts into
 * counts too, when there is one). */
static void fold_inputs(struct fold *f, struct fold *counts, char **files,
                        int nfiles, const struct args *a,
                        const struct jfr_fold_opts *jo, struct jfr_fold **jf)
{
  const char *fm = a->val[OPT_format];

  for (int i = 0; i < (nfiles ? nfiles : 1); i++) {
    const char *path = nfiles ? files[i] : "-";
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
    int rc;

    if (fd < 0) {
      perror_msg("cannot open '%s'", path);
      continue;
    }
    if (!fd && isatty(0))
      info_msg("reading stacks from the terminal (end with Ctrl-D)");
    if (jfr_detect(fd) || (fm && !strcmp(fm, "jfr"))) {
      if (!*jf && (*jf = jfr_fold_new(f, jo)) && counts)
        jfr_fold_counts(*jf, counts);
      jfr_file(*jf, fd, path);
    } else if ((rc = fold_fd(f, fd, path)) == FOLD_SHRANK) {
      error_msg("'%s' shrank while it was read: its samples are partial", path);
    } else if (rc) {
      errno_msg(rc, "cannot read '%s'", path);
    }
    if (fd) close(fd);
  }
}

/* --diff: BEFORE folded as the input is, and the stacks of both: the
 * folded "stack before after" lines and/or a differential graph. */
static int write_diff(struct args *a, const struct fold_opts *o,
                      const struct jfr_fold_opts *jo,
                      const struct fold_stack *st, size_t n, const char *unit)
{
  struct fold *fb = fold_new(o);
  struct jfr_fold *jf = NULL;
  const struct fold_stack *bst;
  struct fold_stack *u;
  int64_t *before;
  size_t nb, nu;
  int rc = 0;
  char *files[1] = {(char *)a->val[OPT_diff]};

  fold_inputs(fb, NULL, files, 1, a, jo, &jf);
  if (jf && !jfr_fold_finish(jf, &unit))
    warn_msg("no such events in '%s'", a->val[OPT_diff]);
  nb = fold_result(fb, &bst);
  u = fold_union(bst, nb, st, n, &before, &nu);
  if (!a->val[OPT_svg] || a->val[OPT_output]) {
    struct wfile w = {.f = stdout};
    const char *path = a->val[OPT_output];

    if (path && (rc = wfile_open(&w, path))) {
      errno_msg(rc, "cannot write '%s'", path);
      rc = -1;
    }
    for (size_t i = 0; !rc && i < nu; i++) {
      fwrite(u[i].key, 1, u[i].len, w.f);
      fprintf(w.f, " %" PRId64 " %" PRId64 "\n", before[i], u[i].value);
    }
    if (!rc && path && (rc = wfile_commit(&w)))
      errno_msg(rc, "cannot write '%s'", path);
  }
  if (a->val[OPT_svg] &&
      write_svg(a->val[OPT_svg], u, nu, a, unit, before, NULL))
    rc = 1;
  free(u);
  free(before);
  jfr_fold_free(jf);
  fold_free(fb);
  return rc != 0;
}

/* Bad lines are reported, never fatal; no stack at all is. */
static int report(const struct fold_stats *s, const struct fold_opts *o,
                  size_t n, int verbose)
{
  for (int i = 0; i < s->nfirst_bad; i++) warn_msg("%s", s->first_bad[i]);
  if (s->bad)
    warn_msg("%" PRIu64 " bad line%s skipped", s->bad, s->bad == 1 ? "" : "s");
  if (verbose)
    fprintf(stderr, "%" PRIu64 " lines -> %zu stacks\n", s->lines, n);
  if (n || jt_status) return jt_status;
  if (s->skipped && o->nfilters)
    error_msg("no stack goes through a frame matching '%s'%s", o->filters[0],
              o->nfilters > 1 ? " or the other filters" : "");
  else if (s->skipped)
    error_msg("no stack is left after --gc/--state");
  else
    error_msg("no stack in the input (%" PRIu64 " line%s read)", s->lines,
              s->lines == 1 ? "" : "s");
  return 1;
}

/* --format's words, in specs/collapse.opts' order (jfr: read as a recording,
 * whatever it looks like; pprof: detect, write pprof). */
static const enum fold_format formats[] = {FOLD_STACKS, FOLD_FOLDED,
                                           FOLD_JSTACK, FOLD_AUTO, FOLD_AUTO};
enum { FORMAT_PPROF = 4 };

/* --format pprof: a recording's stacks with their lines and threads (a
 * label), and its event counts beside the values. 0, or 2 (usage). */
static int pprof_setup(const struct args *a, struct jfr_fold_opts *jo)
{
  if (a->word[OPT_format] != FORMAT_PPROF) return 0;
  if (a->val[OPT_svg] || a->count[OPT_reverse] || a->count[OPT_seed_compat])
    return usage_error("--format pprof: not with --svg, --reverse or "
                       "--seed-compat");
  if (!a->val[OPT_output] && isatty(1))
    return usage_error("--format pprof writes binary: give -o FILE");
  jo->lines = 1;
  jo->thread_frames = 1;
  return 0;
}

static int counts_wanted(const struct args *a)
{
  return a->word[OPT_format] == FORMAT_PPROF;
}

/* The folded stacks as a gzipped pprof profile (core/pprof). 0 or 1. */
static int write_pprof(const struct args *a, struct fold *f,
                       struct fold *counts, struct jfr_fold *jf)
{
  struct pprof_opts po = {PPROF_VALUE,
                          a->count[OPT_samples] ? "samples" : "bytes",
                          a->num[OPT_interval],
                          0,
                          0,
                          a->count[OPT_thread_frames],
                          NULL,
                          0};
  const char *path = a->val[OPT_output];
  struct wfile w = {.f = stdout};
  int err;

  if (jf) jfr_fold_pprof(jf, &po);
  if (path && (err = wfile_open(&w, path))) {
    errno_msg(err, "cannot write '%s'", path);
    return 1;
  }
  err = pprof_write_folds(w.f, &po, f, jf ? counts : NULL);
  if (path && err)
    wfile_abort(&w);
  else if (path)
    err = wfile_commit(&w);
  if (err) errno_msg(err, "cannot write '%s'", path ? path : "stdout");
  return err != 0;
}

int collapse_main(int argc, char **argv)
{
  struct jfr_fold_opts jo;
  struct jfr_fold *jf = NULL;
  const char *unit = NULL, *chosen, **filters;
  struct args a;
  struct fold_opts o = {.gc_lo = -1, .gc_hi = -1};
  const struct fold_stack *st;
  struct fold_stack *rev = NULL;
  struct buf arena = {0};
  struct fold *f, *counts = NULL;
  struct stat sb;
  int rc, nfiles;
  size_t n, n_rev = 0;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  o.keep_unmatched = a.count[OPT_keep_unmatched] || a.count[OPT_seed_compat];
  o.no_squash = a.count[OPT_no_squash];
  o.samples = a.count[OPT_samples];
  o.type_frames = a.count[OPT_type_frames];
  o.normalize = a.count[OPT_normalize];
  o.gc_frames = a.count[OPT_gc_frames];
  o.state = a.val[OPT_state];
  o.thread_frames = a.count[OPT_thread_frames];
  if (a.val[OPT_gc] && gc_range(a.val[OPT_gc], &o))
    return usage_error("--gc takes N or N-M");
  if (a.word[OPT_format] >= 0) o.format = formats[a.word[OPT_format]];
  if ((rc = jfr_setup(&a, &jo)) || (rc = pprof_setup(&a, &jo))) return rc;
  if (a.val[OPT_diff] && (a.count[OPT_reverse] || counts_wanted(&a)))
    return usage_error("--diff: not with --reverse or --format pprof");
  jt_verbose |= a.count[OPT_verbose] > 0;
  /* "collapse stacks.txt protobuf grpc", as FlameCollapse took its filter:
   * the operands after the files that are no files are filters */
  filters = xzalloc((a.argc + 1) * sizeof(*filters));
  nfiles = a.argc;
  while (nfiles > 1 && strcmp(a.argv[nfiles - 1], "-") &&
         stat(a.argv[nfiles - 1], &sb))
    nfiles--;
  for (int i = nfiles; i < a.argc; i++) filters[o.nfilters++] = a.argv[i];
  if (a.val[OPT_filter]) filters[o.nfilters++] = a.val[OPT_filter];
  o.filters = filters;
  f = fold_new(&o);
  if (a.word[OPT_format] == FORMAT_PPROF) counts = fold_new(&o);
  fold_inputs(f, counts, a.argv, nfiles, &a, &jo, &jf);
  if (jf && !(chosen = jfr_fold_finish(jf, &unit)))
    error_msg("no %s events in the recording",
              jo.event ? jo.event
                       : "profiling (cpu, cputime, alloc, lock, native)");
  else if (jf)
    jfr_say(jf, chosen);
  n = fold_result(f, &st);
  rc = report(fold_stats(f), &o, n, a.count[OPT_verbose]);
  if (counts && (!rc || n)) {
    rc |= write_pprof(&a, f, counts, jf);
  } else if (a.val[OPT_diff] && (!rc || n)) {
    rc |= write_diff(&a, &o, &jo, st, n, unit);
  } else if (!rc || n) {
    if (a.count[OPT_reverse] && (!a.val[OPT_svg] || a.val[OPT_output])) {
      n_rev = n;
      rev = fold_reverse(st, &n_rev, &arena);
    }
    if ((!a.val[OPT_svg] || a.val[OPT_output]) &&
        (rev ? write_folded(a.val[OPT_output], rev, n_rev, 0)
             : write_folded(a.val[OPT_output], st, n,
                            a.count[OPT_seed_compat])))
      rc = 1;
    if (a.val[OPT_svg] &&
        write_svg(a.val[OPT_svg], st, n, &a, unit, NULL, graph_kind(f, jf, &a)))
      rc = 1;
  }
  free(rev);
  free(filters);
  buf_free(&arena);
  jfr_fold_free(jf);
  fold_free(f);
  if (counts) fold_free(counts);
  return rc;
}
