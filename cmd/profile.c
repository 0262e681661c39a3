/* profile.c - a CPU, allocation or lock profile of a running JVM through
 * its own Flight Recorder, with no JDK on the box
 *
 * Over the attach protocol (core/attach): JFR.start with only the events
 * asked for (settings=none and "+event#setting=value" options, or on JDK
 * 11-16 a .jfc put into the target's /tmp: core/jfr_start), a wait (Ctrl-C ends it early and still collects), JFR.stop with a
 * file name in the target's own /tmp that nobody can guess; the file is
 * opened inside the target's root (core/root), checked (a regular file of
 * the JVM's user, one link), removed at once and read from the open
 * descriptor by core/jfr, then folded like `collapse` folds a .jfr.
 * Nothing is left: no recording (a failed stop is followed by a plain
 * stop), no file. Allocations are sampled by our agent where it loads
 * (--sampler jvmti, profile_alloc.c), else by JFR with its bytes per
 * thread from jdk.ThreadAllocationStatistics (core/jfr_alloc.c). The
 * recording ends itself should we be killed (its duration= and maxsize=,
 * below). A stop signal ends the wait early; the profile is still written
 * and the exit status is 128 + the signal.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/profile.h"
#include "core/attach.h"
#include "core/flame.h"
#include "core/fold.h"
#include "core/jfr.h"
#include "core/jfr_rec.h"
#include "core/pprof.h"
#include "core/root.h"
#include "core/vm.h"
#include "core/wfile.h"

#define OPTS_FILE "specs/profile.opts"
#include "core/opt_table.h"

/* Start the recording (core/jfr_rec: it ends itself at the end of the
 * profile plus our stop's bound), its warnings said. 0, or 1 after saying
 * why. */
static int start(struct jfr_rec *p, const char *event, int64_t interval,
                 int64_t ns)
{
  char err[512], *warn;

  if (jfr_rec_start(p, event, interval, ns, &warn, err, sizeof(err))) {
    error_msg("%s", err);
    return 1;
  }
  for (char *l = warn; *l; l += strcspn(l, "\n") + 1)
    error_msg("pid %d: JFR.start: %.*s", p->j->pid, (int)strcspn(l, "\n"), l);
  free(warn);
  return 0;
}

/* Stop the recording into p->file. 0, or 1 after saying why. */
static int stop(struct jfr_rec *p)
{
  char err[512];

  if (!jfr_rec_stop(p, err, sizeof(err))) return 0;
  error_msg("%s", err);
  return 1;
}

/* The recording file, taken out (core/jfr_rec). The descriptor, or -1
 * after saying why (not when quiet and it is not there). */
static int take_file(struct jfr_rec *p, int quiet)
{
  char err[512];
  int fd, rc = jfr_rec_take(p, &fd, err, sizeof(err));

  if (rc && (!quiet || rc != -ENOENT)) error_msg("%s", err);
  return rc ? -1 : fd;
}

/* The outputs asked for, opened before the recording starts (a folder
 * that cannot be written fails first) and renamed into place at the end
 * (core/wfile). */
enum { OUT_FOLDED, OUT_SVG, OUT_JFR, NOUT };

struct outs {
  struct wfile w[NOUT];
  const char *path[NOUT];
  struct pprof_opts pprof; /* -o is pprof when its period is set */
  struct fold *counts;     /* pprof: the events per stack */
  char why[600];           /* alloc: why JFR samples, "" when ours does */
};

static int outs_open(struct outs *o, struct args *a)
{
  o->path[OUT_FOLDED] = a->val[OPT_output];
  o->path[OUT_SVG] = a->val[OPT_svg];
  o->path[OUT_JFR] = a->val[OPT_jfr];
  if (!o->path[OUT_SVG] && !o->path[OUT_JFR] && !o->path[OUT_FOLDED])
    o->path[OUT_FOLDED] = "-";
  for (int i = 0; i < NOUT; i++) {
    int rc;

    if (o->path[i] && (rc = wfile_open(&o->w[i], o->path[i]))) {
      errno_msg(rc, "cannot write '%s'", o->path[i]);
      o->path[i] = NULL;
      for (int k = 0; k < i; k++)
        if (o->path[k]) wfile_abort(&o->w[k]);
      return 1;
    }
  }
  return 0;
}

/* Commit the outputs (failed: drop them). Returns 0 or 1. */
static int outs_close(struct outs *o, int failed)
{
  int rc = failed;

  for (int i = 0; i < NOUT; i++) {
    int err;

    if (!o->path[i]) continue;
    if (failed) {
      wfile_abort(&o->w[i]);
    } else if ((err = wfile_commit(&o->w[i]))) {
      errno_msg(err, "cannot write '%s'", o->path[i]);
      rc = 1;
    }
  }
  return rc;
}

/* Copy the recording (--jfr): its first len bytes, the chunks the fold
 * read whole. The target still holds the file and may change it: what
 * grew after is not copied, a file that shrank fails. Returns 0 or 1. */
static int keep_jfr(int fd, uint64_t len, FILE *out)
{
  char b[1 << 16];
  uint64_t at = 0;
  ssize_t n = 1;

  while (at < len &&
         (n = pread(fd, b, len - at < sizeof(b) ? len - at : sizeof(b),
                    (off_t)at)) > 0) {
    fwrite(b, 1, (size_t)n, out);
    at += (uint64_t)n;
  }
  if (n < 0)
    perror_msg("cannot read the recording");
  else if (at < len)
    error_msg("the recording shrank while it was copied");
  return at < len;
}

static void write_result(struct outs *o, struct args *a, struct fold *f,
                         const char *unit, const char *title)
{
  const struct fold_stack *st;
  size_t n = fold_result(f, &st);
  struct flame_opts fo = {.title =
                              a->val[OPT_title] ? a->val[OPT_title] : title,
                          .unit = unit,
                          .width = 1200,
                          .minwidth = 0.1};

  if (o->path[OUT_FOLDED] && o->pprof.period) {
    pprof_write_folds(o->w[OUT_FOLDED].f, &o->pprof, f, o->counts);
  } else if (o->path[OUT_FOLDED]) {
    for (size_t i = 0; i < n; i++) {
      fwrite(st[i].key, 1, st[i].len, o->w[OUT_FOLDED].f);
      fprintf(o->w[OUT_FOLDED].f, " %" PRId64 "\n", st[i].value);
    }
  }
  if (o->path[OUT_SVG]) flame_svg(o->w[OUT_SVG].f, st, n, &fo);
}

/* alloc: why JFR samples rather than our agent, or NULL. */
static const char *jfr_only(const struct args *a)
{
  const char *v = a->val[OPT_value];

  if (a->val[OPT_interval]) return "--interval sets JFR's sampling rate";
  if (a->val[OPT_jfr]) return "--jfr keeps a JFR recording";
  if (a->count[OPT_thread_frames]) return "--thread-frames needs JFR's threads";
  if (v && strcmp(v, "samples")) return "--value names a field of JFR's events";
  return NULL;
}

/* Record until the duration is over, a signal comes or the JVM exits. */
static void wait_for(const struct jvm *j, int64_t ns);

/* --sampler jvmti: our agent samples for the duration. 0 or 1 (said). */
static int agent_profile(struct palloc *pa, struct args *a, struct outs *o,
                         int64_t duration)
{
  int samples = a->val[OPT_value] != NULL; /* jfr_only: "samples" */
  int pp = a->word[OPT_format] == 1;
  /* type names as JFR's: byte[], java.lang.String[] */
  struct fold_opts fo = {.format = FOLD_STACKS,
                         .samples = samples,
                         .normalize = 1,
                         .gc_lo = -1,
                         .gc_hi = -1};
  struct fold *f = fold_new(&fo), *counts = NULL;
  struct buf title = {0};
  int pid = pa->t->pid, rc;
  int64_t t0 = (int64_t)wall_ms() * 1000000;

  fo.samples = 1;
  if (pp && !samples) o->counts = counts = fold_new(&fo);
  wait_for(pa->t, duration);
  if (!jvm_alive(pa->t)) {
    error_msg("pid %d exited during the profile: nothing to collect", pid);
    palloc_abort(pa);
    rc = 1;
  } else if (!(rc = palloc_collect(pa, f, counts))) {
    buf_printf(&title, "%s (jvmti), pid %d", flame_title("alloc"), pid);
    if (pp) {
      o->pprof = (struct pprof_opts){
          .kind = samples ? PPROF_VALUE : PPROF_ALLOC,
          .unit = samples ? "samples" : "bytes",
          .period = a->num[OPT_interval],
          .time_ns = t0,
          .duration_ns = (int64_t)wall_ms() * 1000000 - t0,
          .comment = "alloc: JVMTI's sampler (jvmtool's agent): samples at "
                     "random byte offsets, each weighted by the bytes it "
                     "stands for"};
    }
    write_result(o, a, f, samples ? "samples" : "bytes", title.p);
  }
  buf_free(&title);
  fold_free(f);
  if (counts) fold_free(counts);
  o->counts = NULL;
  return rc;
}

/* JFR's own code left out of the profile, said. */
static void say_own(int pid, const struct jfr_fold_stats *js)
{
  if (!js->own) return;
  if (js->accounted)
    info_msg("pid %d: left out: %" PRIu64 " samples in JFR's own code "
             "(jdk.jfr.internal), %.3f s of CPU",
             pid, js->own, js->own_ns / 1e9);
  else
    info_msg("pid %d: left out: %" PRIu64 " events in JFR's own code "
             "(jdk.jfr.internal)",
             pid, js->own);
}

/* Read the recording back and write what was asked for. */
static int collect(struct jfr_rec *p, struct args *a, struct outs *o,
                   const char *event)
{
  int pp = a->word[OPT_format] == 1; /* pprof: threads, lines, counts */
  struct jfr_fold_opts jo = jfr_rec_fold_opts(p, event);
  const struct jfr_fold_stats *js;
  struct fold_opts fo = {.gc_lo = -1, .gc_hi = -1};
  struct fold *f = fold_new(&fo);
  struct jfr_fold *jf;
  const char *unit, *chosen;
  struct buf title = {0}, comment = {0};
  char err[256];
  int fd = take_file(p, 0), rc = fd < 0;

  jo.value = a->val[OPT_value];
  jo.lines = a->count[OPT_lines] || pp;
  jo.thread_frames = a->count[OPT_thread_frames] || pp;
  jf = jfr_fold_new(f, &jo);
  if (pp) jfr_fold_counts(jf, o->counts = fold_new(&fo));
  if (fd >= 0) {
    if (jfr_fold_fd(jf, fd, p->file, err, sizeof(err))) {
      error_msg("pid %d: its recording: %s", p->j->pid, err);
      rc = 1;
    } else if (o->path[OUT_JFR]) {
      rc = keep_jfr(fd, jfr_fold_stats(jf)->end, o->w[OUT_JFR].f);
    }
    close(fd);
    if (!(chosen = jfr_fold_finish(jf, &unit))) {
      /* an idle JVM's empty profile is an answer, not a failure */
      warn_msg("pid %d: the recording holds no %s events", p->j->pid, event);
      chosen = event;
    }
    buf_printf(&title, "%s (%s), pid %d",
               flame_title(jfr_fold_word(jf) ? jfr_fold_word(jf) : event),
               chosen, p->j->pid);
    js = jfr_fold_stats(jf);
    if (!rc) say_own(p->j->pid, js);
    if (!rc && js->accounted)
      info_msg("pid %d: cpu: %.3f s of CPU accounted from /proc (the "
               "process used %.3f s), %.3f s in threads JFR does not sample",
               p->j->pid, js->cpu_ns / 1e9, js->process_ns / 1e9,
               js->unsampled_ns / 1e9);
    if (!rc && js->accounted && !strcmp(event, "wall") && js->no_dump)
      warn_msg("pid %d: wall: the recording holds no thread dump at its "
               "stop: waits still going on at the window's end are "
               "[unrecorded]",
               p->j->pid);
    else if (!rc && js->accounted && !strcmp(event, "wall"))
      info_msg("pid %d: wall: %" PRIu64 " threads waited with no JFR event "
               "(JFR writes one when a wait ends): %.3f s from JFR's thread "
               "dumps at the start and stop (jdk.ThreadDump)",
               p->j->pid, js->dump_threads, js->dump_ns / 1e9);
    if (pp) {
      jfr_fold_pprof(jf, &o->pprof);
      jfr_rec_comment(p, event, a->num[OPT_interval],
                      o->why[0] ? o->why : o->pprof.comment, &comment);
      o->pprof.comment = comment.p;
    }
    o->pprof.period = pp ? a->num[OPT_interval] : 0;
    verbose_msg("pid %d: %s, %" PRIu64 " events", p->j->pid, chosen,
                jfr_fold_stats(jf)->used);
    write_result(o, a, f, unit, title.p);
  }
  buf_free(&title);
  buf_free(&comment);
  jfr_fold_free(jf);
  fold_free(f);
  if (o->counts) fold_free(o->counts);
  return rc;
}

static void wait_for(const struct jvm *j, int64_t ns)
{
  uint64_t end = now_ms() + (uint64_t)(ns / 1000000);

  while (!jt_stop_signal && now_ms() < end && jvm_alive(j)) usleep(50000);
  if (jt_stop_signal) verbose_msg("interrupted: collecting what was recorded");
}

/* Start, wait, stop, collect, with our agent (agent set) or JFR; a JVM
 * that exits mid-profile takes its recording with it (its file, if it
 * wrote one, is removed). Returns 0 or 1, after saying why. */
static int record(struct jfr_rec *p, struct args *a, const char *event,
                  int agent)
{
  int64_t duration = a->num[OPT_duration];
  struct outs outs = {0};
  struct palloc pa;
  char why[512];
  int fd;

  if (outs_open(&outs, a)) return 1;
  if (!strcmp(event, "alloc") && !agent && !a->val[OPT_sampler] && jfr_only(a))
    snprintf(outs.why, sizeof(outs.why), "alloc: JFR's sampler: %s",
             jfr_only(a));
  if (agent &&
      palloc_start(&pa, p->j, a->count[OPT_lines] || a->word[OPT_format] == 1,
                   p->timeout_ms, why, sizeof(why))) {
    if (a->val[OPT_sampler]) {
      error_msg("pid %d: %s", p->j->pid, why);
      return outs_close(&outs, 1);
    }
    info_msg("pid %d: sampler jfr: the agent cannot sample there: %s",
             p->j->pid, why);
    snprintf(outs.why, sizeof(outs.why),
             "alloc: JFR's sampler, not jvmtool's agent: %s", why);
    agent = 0;
  }
  if (agent) return outs_close(&outs, agent_profile(&pa, a, &outs, duration));
  if (start(p, event, a->num[OPT_interval], duration)) {
    if ((fd = take_file(p, 1)) >= 0) close(fd);
    return outs_close(&outs, 1);
  }
  wait_for(p->j, duration);
  if (!jvm_alive(p->j)) {
    error_msg("pid %d exited during the profile: nothing to collect",
              p->j->pid);
    if ((fd = take_file(p, 1)) >= 0) close(fd);
    return outs_close(&outs, 1);
  }
  if (stop(p)) { /* a file half written goes too */
    if ((fd = take_file(p, 1)) >= 0) close(fd);
    return outs_close(&outs, 1);
  }
  return outs_close(&outs, collect(p, a, &outs, event));
}

/* alloc: which sampler. 0 (*agent: ours), or 2 after a usage error. */
static int sampler(const struct args *a, const char *event, int *agent)
{
  const char *s = a->val[OPT_sampler], *why = jfr_only(a);

  *agent = 0;
  if (s && strcmp(event, "alloc"))
    return usage_error("--sampler goes with --event alloc");
  if (strcmp(event, "alloc") || (s && !strcmp(s, "jfr"))) return 0;
  if (s && why) return usage_error("%s: not with --sampler jvmti", why);
  if (why) info_msg("sampler jfr: %s", why);
  *agent = !why;
  return 0;
}

int profile_main(int argc, char **argv)
{
  struct jfr_rec p;
  const char *event;
  struct args a;
  struct jvm j;
  char err[512];
  int rc, agent, since;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  jt_verbose |= a.count[OPT_verbose] > 0;
  event = a.val[OPT_event] ? a.val[OPT_event] : "cpu";
  if (a.argc != 1) return usage_error("give the pid or main class of one JVM");
  if (!jfr_event_valid(event)) return jfr_event_error(event);
  if ((rc = sampler(&a, event, &agent))) return rc;
  if (jvm_open(&j, a.argv[0], JVM_PROCESS, err, sizeof(err))) {
    error_msg("%s", err);
    return 1;
  }
  if (jfr_rec_open(&p, &j, -1, (int)(a.num[OPT_timeout] / 1000000), err,
                   sizeof(err))) {
    error_msg("%s", err);
    jfr_rec_close(&p);
    jvm_close(&j);
    return 1;
  }
  if ((since = jfr_start_since(event, p.jdk))) { /* before any recording */
    rc = usage_error("--event %s: pid %d runs JDK %d, that event needs "
                     "JDK %d or later",
                     event, j.pid, p.jdk, since);
    jfr_rec_close(&p);
    jvm_close(&j);
    return rc;
  }
  stop_signals(1);
  rc = record(&p, &a, event, agent);
  jfr_rec_close(&p);
  jvm_close(&j);
  return stop_status(rc);
}
