/* jfr_rec.c - one JFR recording of a running JVM (jfr_rec.h) */
#include "core/jvmtool.h"
#include "core/agent.h"
#include "core/flame.h"
#include "core/fold.h"
#include "core/jfr.h"
#include "core/jfr_rec.h"
#include "core/pprof.h"
#include "core/root.h"
#include "core/jvm.h"

/* A recording's size bound: MIN_MB, else MB_PER_S (twice the densest
 * recording measured, every profile.jfc event: 1.2 MB/s) up to MAX_MB. */
enum { MIN_MB = 64, MB_PER_S = 2, MAX_MB = 1024 };

/* ---- JFR's disk repository ----
 *
 * The first recording of a JVM makes JFR's repository, a folder
 * "<yyyy_MM_dd_HH_mm_ss>_<pid>" (its local time, its own pid) in its
 * java.io.tmpdir, /tmp by default, and JFR keeps it until the JVM exits,
 * empty once no recording runs (docs/jfr.md §2). A folder of that name
 * that was not there before our start, is the JVM user's and is empty
 * once our recording is taken was made for ours: it is removed (JFR
 * makes a new one when a later recording needs it, JDK 11 to 25). One
 * that was there before, or holds another recording's chunks, stays. */
enum {
  REPO_SCAN_MAX = 1 << 16
}; /* /tmp entries read at most (a bigger
                                      /tmp: nothing is removed) */

/* Is s JFR's repository name for a JVM whose own pid is pid? */
static int repo_name(const char *s, int pid)
{
  static const char form[] = "dddd_dd_dd_dd_dd_dd_";
  char tail[16];

  for (size_t i = 0; i < sizeof(form) - 1; i++)
    if (form[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != form[i])
      return 0;
  snprintf(tail, sizeof(tail), "%d", pid);
  return pid > 0 && !strcmp(s + sizeof(form) - 1, tail);
}

/* Call fn for each repository name in the target's /tmp; 0, or -1 when
 * it cannot be listed whole. */
static int repo_each(const struct jfr_rec *r,
                     void (*fn)(struct jfr_rec *r, const char *name),
                     struct jfr_rec *arg)
{
  int fd = openat(r->j->tmpfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *e;
  long seen = 0;
  DIR *d;

  if (fd < 0) return -1;
  if (!(d = fdopendir(fd))) {
    close(fd);
    return -1;
  }
  while ((e = readdir(d)) && ++seen < REPO_SCAN_MAX)
    if (strlen(e->d_name) < sizeof(r->repo[0]) &&
        repo_name(e->d_name, r->j->nspid))
      fn(arg, e->d_name);
  closedir(d);
  return seen < REPO_SCAN_MAX ? 0 : -1;
}

static void repo_keep(struct jfr_rec *r, const char *name)
{
  if (r->nrepo == JFR_REC_REPOS) {
    r->repo_known = 0; /* too many to tell a new one */
    return;
  }
  snprintf(r->repo[r->nrepo++], sizeof(r->repo[0]), "%s", name);
}

static void repo_drop(struct jfr_rec *r, const char *name)
{
  const struct jvm *j = r->j;
  struct stat sb;

  for (int i = 0; i < r->nrepo; i++)
    if (!strcmp(r->repo[i], name)) return; /* there before: not ours */
  if (fstatat(j->tmpfd, name, &sb, AT_SYMLINK_NOFOLLOW) ||
      !S_ISDIR(sb.st_mode) || sb.st_uid != j->st.euid)
    return;
  /* only while empty (rmdir): another recording's chunks keep it */
  if (!root_unlink(&j->root, j->tmpfd, name, &sb, AT_REMOVEDIR))
    verbose_msg("pid %d: removed JFR's repository /tmp/%s (made for our "
                "recording, empty)",
                j->pid, name);
}

/* Before the start: the repositories there already. */
static void repo_before(struct jfr_rec *r)
{
  r->nrepo = 0;
  r->repo_known = 1;
  if (repo_each(r, repo_keep, r)) r->repo_known = 0;
}

/* After the stop: remove the one our recording made, if empty. */
static void repo_clean(struct jfr_rec *r)
{
  if (!r->repo_known) return;
  r->repo_known = 0; /* once */
  repo_each(r, repo_drop, r);
}

int jfr_rec_open(struct jfr_rec *r, const struct jvm *j, long long uid,
                 int timeout_ms, char *err, size_t n)
{
  char hex[17];
  int rc;

  memset(r, 0, sizeof(*r));
  r->j = j;
  r->timeout_ms = timeout_ms;
  if (uid >= 0 && (long long)j->st.euid != uid) {
    snprintf(err, n, "pid %d runs as another user", j->pid);
    return JFR_REC_USER;
  }
  if ((rc = attach_check(j, err, n))) return rc;
  if (j->tmpfd < 0) {
    snprintf(err, n, "pid %d: cannot open its /tmp", j->pid);
    return -ENOENT;
  }
  random_hex(hex);
  snprintf(r->name, sizeof(r->name), "jvmtool-%d-%.8s", (int)getpid(), hex);
  agent_recording_name(hex, r->file, sizeof(r->file));
  r->jdk = jfr_start_jdk(j, timeout_ms);
  r->open = 1;
  return 0;
}

/* A JFR command's outcome (rc and reply as attach_result gives them;
 * reply is taken): 0 and *body (caller frees), or an error. Replies have
 * status 0 even on failure (docs/jfr.md §9): the caller reads the text. */
static int body_of(const struct jfr_rec *r, int rc, char *reply, char **body,
                   char *err, size_t n)
{
  const char *b;
  int status;

  *body = NULL;
  if (rc) {
    free(reply);
    return rc;
  }
  status = attach_status(reply, &b);
  memmove(reply, b, strlen(b) + 1);
  if (status != 0 || strstr(reply, "Unknown diagnostic command") ||
      strstr(reply, "IllegalArgumentException")) {
    snprintf(err, n,
             "pid %d: JFR is not available (JDK 8 before 8u262, or a JVM "
             "without Flight Recorder): %.*s",
             r->j->pid, (int)strcspn(reply, "\n"),
             *reply ? reply : "no answer");
    free(reply);
    return JFR_REC_NOJFR;
  }
  *body = reply;
  return 0;
}

/* One JFR command, blocking: 0 and *body (caller frees), or an error. */
static int command(struct jfr_rec *r, const char *line, char **body, char *err,
                   size_t n)
{
  const char *args[3] = {line, NULL, NULL};
  char *reply;
  int rc;

  verbose_msg("pid %d: %s", r->j->pid, line);
  rc = attach_send(r->j, "jcmd", args, r->timeout_ms, &reply, err, n);
  return body_of(r, rc, reply, body, err, n);
}

int jfr_rec_start_line(struct jfr_rec *r, const char *event, int64_t interval,
                       int64_t ns, struct buf *line, char *err, size_t n)
{
  long long ms = ns / 1000000 + r->timeout_ms, mb = ms / 1000 * MB_PER_S;
  struct jfr_start s = {r->name, r->file, 0, 0, event, interval, r->jdk, NULL};
  char path[80];
  int rc;

  s.ms = ms;
  s.mb = mb < MIN_MB ? MIN_MB : mb > MAX_MB ? MAX_MB : mb;
  r->jfc[0] = 0;
  repo_before(r);
  /* cpu and wall: samples weighted by the threads' CPU (core/jfr_cpu) */
  r->account = !strcmp(event, "cpu") ? 1 : !strcmp(event, "wall") ? 2 : 0;
  if (jfr_start_needs_jfc(r->jdk)) {
    if ((rc = jfr_start_put_jfc(r->j, &s, r->jfc, sizeof(r->jfc)))) {
      r->jfc[0] = 0;
      snprintf(err, n,
               "pid %d: cannot put the event settings into its /tmp: %s",
               r->j->pid, strerror(-rc));
      return rc;
    }
    snprintf(path, sizeof(path), "/tmp/%s", r->jfc);
    s.jfc = path;
  }
  jfr_start_line(line, &s);
  return 0;
}

int jfr_rec_started(struct jfr_rec *r, int rc, char *reply, char **warn,
                    char *err, size_t n)
{
  struct buf w = {0};
  int ok;

  *warn = NULL;
  if (r->jfc[0]) jfr_start_drop_jfc(r->j, r->jfc);
  r->jfc[0] = 0;
  if ((rc = body_of(r, rc, reply, &reply, err, n))) return rc;
  ok = strstr(reply, "Started recording") != NULL;
  for (char *l = reply; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
    if (*l != '\n' && starts_with(l, "Warning"))
      buf_printf(&w, "%.*s\n", (int)strcspn(l, "\n"), l);
  if (!ok)
    snprintf(err, n, "pid %d: JFR.start: %.*s", r->j->pid,
             (int)strcspn(reply, "\n"), reply);
  free(reply);
  if (!ok) {
    buf_free(&w);
    jfr_rec_drop(r);
    return JFR_REC_REFUSED;
  }
  buf_adds(&w, "");
  *warn = w.p;
  /* no window (a process gone): the samples count as recorded */
  if (r->account) proc_window_start(&r->win, r->j->procfd, r->account == 2);
  return 0;
}

int jfr_rec_start(struct jfr_rec *r, const char *event, int64_t interval,
                  int64_t ns, char **warn, char *err, size_t n)
{
  const char *args[3] = {NULL, NULL, NULL};
  struct buf line = {0};
  char *reply;
  int rc;

  *warn = NULL;
  if ((rc = jfr_rec_start_line(r, event, interval, ns, &line, err, n)))
    return rc;
  verbose_msg("pid %d: %s", r->j->pid, line.p);
  args[0] = line.p;
  rc = attach_send(r->j, "jcmd", args, r->timeout_ms, &reply, err, n);
  buf_free(&line);
  return jfr_rec_started(r, rc, reply, warn, err, n);
}

void jfr_rec_stop_line(struct jfr_rec *r, int plain, struct buf *line)
{
  /* the window ends as the stop is asked (no window: counted as recorded) */
  if (!plain && r->win.on) r->win_ns = r->win.start_epoch_ns;
  if (!plain && r->win.on &&
      proc_window_end(&r->win, &r->cpu, &r->ncpu, &r->cpu_ns, &r->span_ns)) {
    free(r->cpu);
    r->cpu = NULL;
  }
  buf_printf(line, "JFR.stop name=%s", r->name);
  if (!plain) buf_printf(line, " filename=%s", r->file);
}

int jfr_rec_stopped(const struct jfr_rec *r, int rc, char *reply, char *err,
                    size_t n)
{
  if ((rc = body_of(r, rc, reply, &reply, err, n))) return rc;
  if (!strstr(reply, "written to")) {
    snprintf(err, n, "pid %d: JFR.stop: %.*s", r->j->pid,
             (int)strcspn(reply, "\n"), reply);
    rc = JFR_REC_REFUSED;
  }
  free(reply);
  return rc;
}

int jfr_rec_stop(struct jfr_rec *r, char *err, size_t n)
{
  const char *args[3] = {NULL, NULL, NULL};
  struct buf line = {0};
  char *reply, e2[64];
  int rc;

  jfr_rec_stop_line(r, 0, &line);
  verbose_msg("pid %d: %s", r->j->pid, line.p);
  args[0] = line.p;
  rc = attach_send(r->j, "jcmd", args, r->timeout_ms, &reply, err, n);
  rc = jfr_rec_stopped(r, rc, reply, err, n);
  if (rc && jvm_alive(r->j)) { /* whatever happened, end it */
    line.len = 0;
    jfr_rec_stop_line(r, 1, &line);
    if (!command(r, line.p, &reply, e2, sizeof(e2))) free(reply);
  }
  buf_free(&line);
  return rc;
}

int jfr_rec_take(struct jfr_rec *r, int *fd, char *err, size_t n)
{
  int rc = root_take_at(&r->j->root, r->j->tmpfd,
                        r->file + 5 /* after "/tmp/" */, r->j->st.euid, fd);

  repo_clean(r); /* the recording is stopped: its chunks are gone */
  if (rc)
    snprintf(err, n, "pid %d: cannot take its '%s': %s", r->j->pid, r->file,
             root_check_msg(rc, S_IFREG));
  return rc;
}

void jfr_rec_drop(struct jfr_rec *r)
{
  char err[8];
  int fd;

  if (r->open && !jfr_rec_take(r, &fd, err, sizeof(err))) close(fd);
  if (r->open && r->jfc[0]) jfr_start_drop_jfc(r->j, r->jfc);
  r->jfc[0] = 0;
}

void jfr_rec_abandon(struct jfr_rec *r, int stop)
{
  char err[256];

  if (stop && jvm_alive(r->j)) jfr_rec_stop(r, err, sizeof(err));
  jfr_rec_drop(r);
}

void jfr_rec_close(struct jfr_rec *r)
{
  r->open = 0;
  proc_window_free(&r->win);
  free(r->cpu);
  r->cpu = NULL;
}

void jfr_rec_comment(const struct jfr_rec *r, const char *event,
                     int64_t interval, const char *more, struct buf *b)
{
  buf_adds(b, "source: ");
  jfr_start_source(b, event, interval, r->jdk);
  if (more && *more) buf_printf(b, "\n%s", more);
}

struct jfr_fold_opts jfr_rec_fold_opts(const struct jfr_rec *r,
                                       const char *event)
{
  struct jfr_fold_opts o = {.event = event,
                            .lines = 1,
                            .thread_frames = 1,
                            .from_ns = -1,
                            .to_ns = -1,
                            .cpu = r->cpu,
                            .ncpu = r->ncpu,
                            .cpu_ns = r->cpu_ns,
                            .span_ns = r->span_ns,
                            .win_ns = r->win_ns};

  return o;
}

int jfr_rec_pprof(const struct jfr_rec *r, int fd, const char *event,
                  int64_t interval, FILE *out, char *err, size_t n)
{
  struct jfr_fold_opts jo = jfr_rec_fold_opts(r, event);
  struct fold_opts fo = {.gc_lo = -1, .gc_hi = -1};
  struct fold *f = fold_new(&fo), *counts = fold_new(&fo);
  struct jfr_fold *jf = jfr_fold_new(f, &jo);
  struct pprof_opts po = {0};
  struct buf cm = {0};
  const char *unit;
  int rc;

  jfr_fold_counts(jf, counts);
  rc = jfr_fold_fd(jf, fd, r->file, err, n) ? -1 : 0;
  if (!rc) {
    jfr_fold_finish(jf, &unit); /* none: an empty profile is an answer */
    jfr_fold_pprof(jf, &po);
    if (!jfr_fold_stats(jf)->used) po.kind = pprof_kind_of(event);
    po.period = interval;
    jfr_rec_comment(r, event, interval, po.comment, &cm);
    po.comment = cm.p;
    if (pprof_write_folds(out, &po, f, counts)) {
      snprintf(err, n, "cannot write the profile");
      rc = -1;
    }
  }
  buf_free(&cm);
  jfr_fold_free(jf);
  fold_free(f);
  fold_free(counts);
  return rc;
}

int jfr_rec_svg(const struct jfr_rec *r, int fd, const char *event,
                const char *script_href, FILE *out, char *err, size_t n)
{
  struct jfr_fold_opts jo = jfr_rec_fold_opts(r, event);
  struct fold_opts fo = {.gc_lo = -1, .gc_hi = -1};
  struct fold *f = fold_new(&fo);
  struct jfr_fold *jf = jfr_fold_new(f, &jo);
  const struct fold_stack *st;
  struct flame_opts fl = {.width = 1200, .minwidth = 0.1};
  struct buf title = {0};
  const char *unit;
  size_t k;
  int rc = jfr_fold_fd(jf, fd, r->file, err, n) ? -1 : 0;

  if (!rc) {
    jfr_fold_finish(jf, &unit); /* none: an empty graph is an answer */
    k = fold_result(f, &st);
    buf_printf(&title, "%s, pid %d", flame_title(event), r->j->pid);
    fl.title = title.p;
    fl.unit = unit ? unit : "samples";
    fl.script_href = script_href;
    if (flame_svg(out, st, k, &fl)) {
      snprintf(err, n, "cannot write the flame graph");
      rc = -1;
    }
  }
  buf_free(&title);
  jfr_fold_free(jf);
  fold_free(f);
  return rc;
}
