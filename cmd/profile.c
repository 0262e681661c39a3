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
#include "core/pprof.h"
#include "core/root.h"
#include "core/vm.h"
#include "core/wfile.h"

#define OPTS_FILE "specs/profile.opts"
#include "core/opt_table.h"

struct prof {
  struct attach_target t;
  int timeout_ms;
  int jdk;                 /* its feature version, 0: unknown */
  int tmp;                 /* the target's /tmp, held from before the start */
  char name[64];           /* the recording's name */
  char file[64];           /* its file, in the target's /tmp */
};

/* One JFR command; returns the reply's body (caller frees) or NULL after
 * saying why. Replies have status 0 even on failure (docs/jfr.md §9):
 * the caller reads the text. */
static char *jfr_command(struct prof *p, const char *line)
{
  const char *args[3] = {line, NULL, NULL}, *body;
  char *reply, err[512];
  int status;

  verbose_msg("pid %d: %s", p->t.pid, line);
  if (attach_send(&p->t, "jcmd", args, p->timeout_ms, &reply, err,
                  sizeof(err))) {
    error_msg("%s", err);
    return NULL;
  }
  status = attach_status(reply, &body);
  memmove(reply, body, strlen(body) + 1);
  if (status != 0 || strstr(reply, "Unknown diagnostic command") ||
      strstr(reply, "IllegalArgumentException")) {
    error_msg("pid %d: JFR is not available (JDK 8 before 8u262, or a JVM "
              "without Flight Recorder): %.*s", p->t.pid,
              (int)strcspn(reply, "\n"), *reply ? reply : "no answer");
    free(reply);
    return NULL;
  }
  return reply;
}

/* A recording ends itself (docs/security.md §9): if we die, it stops at
 * the end of the profile plus the bound of our own JFR.stop, so the stop
 * always comes first, and writes at most MAX_MB to p->file (given at the
 * start: JDK 25 would write to the JVM's cwd, and the JVM makes the file
 * at once, so the stop uses the same name). MB_PER_S: twice the densest
 * recording measured, every profile.jfc event (1.2 MB/s). */
enum { MIN_MB = 64, MB_PER_S = 2, MAX_MB = 1024 };

/* Start the recording, to last ns plus our stop's bound. Returns 0, or 1
 * after saying why. The .jfc a JDK before 17 reads its events from goes
 * once JFR.start has answered: the JVM has read it. */
static int start(struct prof *p, const char *event, int64_t interval,
                 int64_t ns)
{
  long long ms = ns / 1000000 + p->timeout_ms, mb = ms / 1000 * MB_PER_S;
  struct jfr_start s = {p->name, p->file, 0, 0, event, interval, p->jdk, NULL};
  char jfc[64], path[80];
  struct buf line = {0};
  char *reply;
  int ok, rc;

  s.ms = ms;
  s.mb = mb < MIN_MB ? MIN_MB : mb > MAX_MB ? MAX_MB : mb;
  if (jfr_start_needs_jfc(p->jdk)) {
    if ((rc = jfr_start_put_jfc(p->tmp, &p->t.st, &s, jfc, sizeof(jfc)))) {
      errno_msg(rc, "pid %d: cannot put the event settings into its /tmp",
                p->t.pid);
      return 1;
    }
    snprintf(path, sizeof(path), "/tmp/%s", jfc);
    s.jfc = path;
  }
  jfr_start_line(&line, &s);
  reply = jfr_command(p, line.p);
  buf_free(&line);
  if (s.jfc) jfr_start_drop_jfc(p->tmp, &p->t.st, jfc);
  if (!reply) return 1;
  ok = strstr(reply, "Started recording") != NULL;
  for (char *l = reply; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
    if (*l != '\n' && (!ok || starts_with(l, "Warning")))
      error_msg("pid %d: JFR.start: %.*s", p->t.pid, (int)strcspn(l, "\n"), l);
  free(reply);
  return !ok;
}

/* Stop the recording, its data written to p->file. Returns 0, or 1 (the
 * recording is stopped all the same when the JVM still answers). */
static int stop(struct prof *p)
{
  struct buf line = {0};
  char *reply;
  int ok;

  buf_printf(&line, "JFR.stop name=%s filename=%s", p->name, p->file);
  reply = jfr_command(p, line.p);
  ok = reply && strstr(reply, "written to") != NULL;
  if (reply && !ok)
    error_msg("pid %d: JFR.stop: %.*s", p->t.pid, (int)strcspn(reply, "\n"),
              reply);
  free(reply);
  if (!ok && proc_alive(p->t.pid)) {  /* whatever happened, end it */
    line.len = 0;
    buf_printf(&line, "JFR.stop name=%s", p->name);
    free(jfr_command(p, line.p));
  }
  buf_free(&line);
  return !ok;
}

/* The recording file in the target's /tmp (p->tmp, resolved inside its
 * root and held from the start, so a JVM that exits is cleaned after too),
 * taken out as every file a JVM writes for us (core/root root_take_at:
 * checked, removed by inode at once; the open descriptor still reads it).
 * Returns the descriptor or -1 after saying why. */
static int take_file(const struct prof *p, int quiet)
{
  int fd, rc = root_take_at(p->tmp, p->file + 5 /* after "/tmp/" */,
                            p->t.st.euid, -1, 0, NULL, &fd);

  if (rc && (!quiet || rc != -ENOENT))
    error_msg("pid %d: cannot take its '%s': %s", p->t.pid, p->file,
              root_check_msg(rc, S_IFREG));
  return rc ? -1 : fd;
}

/* Open the target's /tmp into p->tmp. Returns 0, or 1 after saying why. */
static int open_tmp(struct prof *p)
{
  struct root r;
  struct stat sb;
  int rc;

  if (!(rc = root_open(p->t.pid, &r))) rc = root_tmp(&r, &p->tmp, &sb);
  root_close(&r);
  if (rc) errno_msg(rc, "pid %d: cannot open its /tmp", p->t.pid);
  return rc != 0;
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

  while (at < len && (n = pread(fd, b, len - at < sizeof(b) ? len - at
                                : sizeof(b), (off_t)at)) > 0) {
    fwrite(b, 1, (size_t)n, out);
    at += (uint64_t)n;
  }
  if (n < 0) perror_msg("cannot read the recording");
  else if (at < len) error_msg("the recording shrank while it was copied");
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
  if (a->word[OPT_format] == 1) return "pprof takes JFR's threads and counts";
  if (v && strcmp(v, "samples")) return "--value names a field of JFR's events";
  return NULL;
}

/* Record until the duration is over, a signal comes or the JVM exits. */
static void wait_for(int pid, int64_t ns);

/* --sampler jvmti: our agent samples for the duration. 0 or 1 (said). */
static int agent_profile(struct palloc *pa, struct args *a, struct outs *o,
                         int64_t duration)
{
  int samples = a->val[OPT_value] != NULL; /* jfr_only: "samples" */
  /* type names as JFR's: byte[], java.lang.String[] */
  struct fold_opts fo = {.format = FOLD_STACKS,
                         .samples = samples,
                         .normalize = 1,
                         .gc_lo = -1,
                         .gc_hi = -1};
  struct fold *f = fold_new(&fo);
  struct buf title = {0};
  int pid = pa->t.pid, rc;

  wait_for(pid, duration);
  if (!proc_alive(pid)) {
    error_msg("pid %d exited during the profile: nothing to collect", pid);
    palloc_abort(pa);
    rc = 1;
  } else if (!(rc = palloc_collect(pa, f))) {
    buf_printf(&title, "allocations (jvmti), pid %d", pid);
    write_result(o, a, f, samples ? "samples" : "bytes", title.p);
  }
  buf_free(&title);
  fold_free(f);
  return rc;
}

/* Read the recording back and write what was asked for. */
static int collect(struct prof *p, struct args *a, struct outs *o,
                   const char *event)
{
  int pp = a->word[OPT_format] == 1; /* pprof: threads, lines, counts */
  struct jfr_fold_opts jo = {event,
                             a->val[OPT_value],
                             a->count[OPT_lines] || pp,
                             a->count[OPT_thread_frames] || pp,
                             0,
                             -1,
                             -1};
  struct fold_opts fo = {.gc_lo = -1, .gc_hi = -1};
  struct fold *f = fold_new(&fo);
  struct jfr_fold *jf = jfr_fold_new(f, &jo);
  const char *unit, *chosen;
  struct buf title = {0};
  char err[256];
  int fd = take_file(p, 0), rc = fd < 0;

  if (pp) jfr_fold_counts(jf, o->counts = fold_new(&fo));
  if (fd >= 0) {
    if (jfr_fold_fd(jf, fd, p->file, err, sizeof(err))) {
      error_msg("pid %d: its recording: %s", p->t.pid, err);
      rc = 1;
    } else if (o->path[OUT_JFR]) {
      rc = keep_jfr(fd, jfr_fold_stats(jf)->end, o->w[OUT_JFR].f);
    }
    close(fd);
    if (!(chosen = jfr_fold_finish(jf, &unit))) {
      /* an idle JVM's empty profile is an answer, not a failure */
      warn_msg("pid %d: the recording holds no %s events", p->t.pid, event);
      chosen = event;
    }
    buf_printf(&title, "%s, pid %d", chosen, p->t.pid);
    if (pp) jfr_fold_pprof(jf, &o->pprof);
    o->pprof.period = pp ? a->num[OPT_interval] : 0;
    verbose_msg("pid %d: %s, %" PRIu64 " events", p->t.pid, chosen,
                jfr_fold_stats(jf)->used);
    write_result(o, a, f, unit, title.p);
  }
  buf_free(&title);
  jfr_fold_free(jf);
  fold_free(f);
  if (o->counts) fold_free(o->counts);
  return rc;
}

static void wait_for(int pid, int64_t ns)
{
  uint64_t end = now_ms() + (uint64_t)(ns / 1000000);

  while (!jt_stop_signal && now_ms() < end && proc_alive(pid)) usleep(50000);
  if (jt_stop_signal) verbose_msg("interrupted: collecting what was recorded");
}

/* Start, wait, stop, collect, with our agent (agent set) or JFR; a JVM
 * that exits mid-profile takes its recording with it (its file, if it
 * wrote one, is removed). Returns 0 or 1, after saying why. */
static int record(struct prof *p, struct args *a, const char *event, int agent)
{
  int64_t duration = a->num[OPT_duration];
  struct outs outs = {0};
  struct palloc pa;
  char why[512];
  int fd;

  if (outs_open(&outs, a)) return 1;
  if (agent && palloc_start(&pa, p->t.pid, a->count[OPT_lines], p->timeout_ms,
                            why, sizeof(why))) {
    if (a->val[OPT_sampler]) {
      error_msg("pid %d: %s", p->t.pid, why);
      return outs_close(&outs, 1);
    }
    info_msg("pid %d: sampler jfr: the agent cannot sample there: %s", p->t.pid,
             why);
    agent = 0;
  }
  if (agent) return outs_close(&outs, agent_profile(&pa, a, &outs, duration));
  if (start(p, event, a->num[OPT_interval], duration)) {
    if ((fd = take_file(p, 1)) >= 0) close(fd);
    return outs_close(&outs, 1);
  }
  wait_for(p->t.pid, duration);
  if (!proc_alive(p->t.pid)) {
    error_msg("pid %d exited during the profile: nothing to collect", p->t.pid);
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
  struct prof p = {.tmp = -1};
  const char *event;
  char hex[17];
  struct args a;
  struct vm v;
  char err[256];
  int rc, agent;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  jt_verbose |= a.count[OPT_verbose] > 0;
  event = a.val[OPT_event] ? a.val[OPT_event] : "cpu";
  if (a.argc != 1)
    return usage_error("give the pid or main class of one JVM");
  if (!jfr_event_valid(event)) return jfr_event_error(event);
  if ((rc = sampler(&a, event, &agent))) return rc;
  p.timeout_ms = (int)(a.num[OPT_timeout] / 1000000);
  if (vm_find_one(a.argv[0], &v, err, sizeof(err))) {
    error_msg("%s", err);
    return 1;
  }
  rc = attach_target(&p.t, &v);
  vm_free(&v);
  if (rc) {
    error_msg("no process %d", p.t.pid);
    return 1;
  }
  random_hex(hex);
  snprintf(p.name, sizeof(p.name), "jvmtool-%d-%.8s", (int)getpid(), hex);
  agent_recording_name(hex, p.file, sizeof(p.file));
  if (open_tmp(&p)) return 1;
  p.jdk = jfr_start_jdk(&p.t, p.timeout_ms);
  stop_signals(1);
  rc = record(&p, &a, event, agent);
  close(p.tmp);
  return stop_status(rc);
}
