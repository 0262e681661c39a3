/* stat.c - sample a JVM's PerfData counters through jstat's options
 *
 * Compatible with jstat (JDK 17 and 25): the same bytes for all twelve
 * options, -t (JDK 25's rule: wall clock minus sun.rt.createVmBeginTime),
 * -h<lines>, <interval>[ms|s] and <count>. The options are specs/jstat.spec,
 * parsed at start-up by the parser that reads --spec FILE; both command
 * lines (ours, and jstat's through the jstat link) are in stat_jstat.c.
 * Beyond jstat: --json, --csv (both with the sample's wall-clock time),
 * several targets (comma-separated) or all, --spec FILE; a closed pipe ends
 * the run at once; the target exiting ends it with status 0 at the next
 * sample (jstat polls once a second).
 * Known deviations: one-line errors instead of Java stack traces; no
 * remote vmids (pid@host), no -snap/-name/-list raw modes (see dump); the
 * decimal separator is always '.'; samples follow a fixed schedule instead
 * of sleeping <interval> after each row (jstat drifts).
 * Facts used: docs/jvmstat.md §4 (jstat), §7 (its options), §8 (output).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/format.h"
#include "core/vm.h"
#include "cmd/stat.h"

#include <math.h>
#include <poll.h>

/* --- counters of one target, for core/expr --- */

static void tg_lookup(void *ctx, const char *name, struct expr_counter *c)
{
  struct stat_jvm *t = ctx;
  const struct pd_counter *pc = pd_find(&t->pd, name);
  const char *str;
  size_t n;

  c->kind = EXPR_MISSING;
  if (!pc) return;
  t->refs = xrealloc(t->refs, (t->nrefs + 1) * sizeof(*t->refs));
  t->refs[t->nrefs] = pc;
  c->handle = t->nrefs++;
  if (pc->type == 'B') {
    /* jstat folds constant strings once; variables are re-read per row */
    c->kind = pc->var == PD_V_CONSTANT ? EXPR_CONST_STRING : EXPR_LIVE_STRING;
    n = pd_string(&t->pd, pc, &str);
    t->str.len = 0;
    buf_add(&t->str, str, n);
    c->string = t->str.p;
  } else {
    c->kind = pc->var == PD_V_CONSTANT ? EXPR_CONST_LONG : EXPR_LIVE_LONG;
    c->value = pd_long(&t->pd, pc);
  }
}

static long long tg_long(void *ctx, int h)
{
  struct stat_jvm *t = ctx;

  return pd_long(&t->pd, t->refs[h]);
}

/* Valid until the next string read: put_row copies it at once. */
static const char *tg_string(void *ctx, int h)
{
  struct stat_jvm *t = ctx;
  const char *str;
  size_t n = pd_string(&t->pd, t->refs[h], &str);

  t->str.len = 0;
  buf_add(&t->str, str, n);
  return t->str.p;
}

static struct expr_source source(struct stat_jvm *t)
{
  return (struct expr_source){tg_lookup, tg_long, tg_string, NULL, t};
}

/* -t's column for a saved file: the timestamp option's second column when
 * it has one (specs/jstat.spec: the file's own uptime, as jstat 17 prints),
 * else its only one. */
static const struct expr_column *file_timestamp(const struct run *r)
{
  const struct expr_option *ts =
      stat_layout_option(r, "timestamp", stat_layout_jdk(r));

  return ts->ncols > 1 ? &ts->cols[1] : &ts->cols[0];
}

/* Open every target's PerfData. 0, or -1 when none opens (said). */
static int open_targets(struct run *r)
{
  /* jvmstat waits (core/perfdata.h) for a starting JVM to mark its data
   * accessible before it looks counters up; so do we, once for them all */
  uint64_t until = now_ms() + PD_READY_WAIT_MS;
  int ok = 0;

  for (int i = 0; i < r->ntg; i++) {
    struct stat_jvm *t = &r->tg[i];
    char why[256] = "";
    int rc;

    /* the one grammar (core/jvm): a pid, a file, a part of a main class;
     * a row found already is opened as it is */
    rc = t->row ? jvm_open_row(&t->j, t->row, why, sizeof(why))
                : jvm_open(&t->j, t->name, 0, why, sizeof(why));
    if (t->row) vm_free(t->row);
    free(t->row);
    t->row = NULL;
    if (!rc) {
      uint64_t t0 = now_ms();

      t->pid = t->j.pid;
      free(t->path);
      t->path = t->j.vm.path ? xstrdup(t->j.vm.path) : NULL;
      rc = vm_budget_end(&t->pd, t0, jvm_perfdata(&t->j, &t->pd));
      if (rc && !t->path) snprintf(why, sizeof(why), "%s", t->pd.err);
    }
    if (rc) {
      if ((rc == -EPERM || rc == -E2BIG) && *why)
        error_msg("%s", why);
      else if (t->pid && vm_over_budget(rc)) /* as ps says it */
        error_msg("pid %d: '%s': %s; skipped", t->pid, t->path, t->pd.err);
      else if (t->pid)
        error_msg("no JVM with pid %d: %s", t->pid,
                  *why                                  ? why
                  : rc == -EINVAL || vm_over_budget(rc) ? t->pd.err
                                                        : strerror(-rc));
      else
        error_msg("'%s': %s", t->name,
                  *why            ? why
                  : rc == -EINVAL ? t->pd.err
                                  : strerror(-rc));
      t->gone = 1;
      continue;
    }
    t->opened = 1;
    while (t->pid && !pd_accessible(&t->pd) && now_ms() < until &&
           !jt_stop_signal) {
      struct timespec ts = {0, PD_READY_POLL_MS * 1000000L};

      nanosleep(&ts, NULL);
      if (pd_refresh(&t->pd)) break;
    }
    ok++;
  }
  return ok ? 0 : -1;
}

/* Resolve the columns against each open target's counters, once: like
 * jstat, a counter that appears later is never picked up. */
static void resolve_targets(struct run *r)
{
  for (int i = 0; i < r->ntg; i++) {
    struct stat_jvm *t = &r->tg[i];
    struct expr_source src = source(t);

    if (!t->opened) continue;
    t->exprs = xmalloc(r->ncols * sizeof(*t->exprs));
    for (int c = 0; c < r->ncols; c++) {
      const struct expr_column *col = r->cols[c];

      if (c == 0 && r->timestamp && !t->pid) col = file_timestamp(r);
      t->exprs[c] = expr_resolve(col->data, col->required, &src);
    }
  }
}

static void pick_columns(struct run *r)
{
  int jdk = stat_layout_jdk(r), n = 0;
  const struct expr_option *o = stat_layout_option(r, r->option, jdk),
                           *ts = stat_layout_option(r, "timestamp", jdk);

  r->timestamp = r->timestamp && ts && ts->ncols;
  r->cols = xmalloc((o->ncols + 1) * sizeof(*r->cols));
  r->widths = xmalloc((o->ncols + 1) * sizeof(*r->widths));
  if (r->timestamp) r->cols[n++] = &ts->cols[0];
  for (int c = 0; c < o->ncols; c++) r->cols[n++] = &o->cols[c];
  r->ncols = n;
  for (int c = 0; c < n; c++)
    r->widths[c] = fmt_header(NULL, r->cols[c]->header, r->cols[c]->width,
                              (int)strlen(r->cols[c]->format));
}

/* The header names for JSON keys and CSV: carets dropped; a repeated name
 * (-class has two "Bytes") gets "_2", "_3". -t's column is "uptime": the
 * one key named for time is the sample's wall clock, "timestamp". */
static char *column_name(struct run *r, int c)
{
  struct buf b = {0};
  int same = 1;

  if (r->timestamp && c == 0) return xstrdup("uptime");
  fmt_header_name(&b, r->cols[c]->header);
  for (int i = 0; i < c; i++) {
    struct buf o = {0};

    fmt_header_name(&o, r->cols[i]->header);
    same += !strcmp(o.p ? o.p : "", b.p ? b.p : "");
    buf_free(&o);
  }
  if (same > 1) buf_printf(&b, "_%d", same);
  if (!b.p) buf_adds(&b, "");
  return b.p;
}

static void put_header(struct run *r)
{
  struct buf *l = &r->line;

  l->len = 0;
  if (r->mode == OUT_CSV) {
    buf_adds(l, "timestamp,");
    if (r->pid_column) buf_adds(l, "PID,");
    for (int c = 0; c < r->ncols; c++) {
      char *n = column_name(r, c);

      buf_printf(l, "%s%s", c ? "," : "", n);
      free(n);
    }
  } else {
    if (r->pid_column) {
      fmt_pad(l, "PID", 3, 7, FMT_RIGHT);
      buf_addc(l, ' ');
    }
    for (int c = 0; c < r->ncols; c++) {
      if (c) buf_addc(l, ' ');
      fmt_header(l, r->cols[c]->header, r->cols[c]->width,
                 (int)strlen(r->cols[c]->format));
    }
  }
  buf_addc(l, '\n');
  fwrite(l->p, 1, l->len, stdout);
}

static void csv_field(struct buf *b, const char *s)
{
  if (!strpbrk(s, ",\"\n\r")) {
    buf_adds(b, s);
    return;
  }
  buf_addc(b, '"');
  for (; *s; s++) {
    if (*s == '"') buf_addc(b, '"');
    buf_addc(b, *s);
  }
  buf_addc(b, '"');
}

static void put_row(struct run *r, struct stat_jvm *t)
{
  struct expr_source src = source(t);
  struct buf *l = &r->line, cell = {0};
  struct json_obj o;

  l->len = 0;
  if (r->mode == OUT_JSON) {
    json_open(&o, l, 0);
    json_int(&o, "timestamp", (long long)r->now);
    json_num(&o, "pid", t->pid ? t->pid : NAN);
    json_strz(&o, "target", t->name);
  } else if (r->mode == OUT_CSV) {
    buf_printf(l, "%" PRIu64 ",", r->now);
    if (r->pid_column && t->pid)
      buf_printf(l, "%d,", t->pid);
    else if (r->pid_column)
      buf_addc(l, ',');
  } else if (r->pid_column) {
    char pid[16] = "-";

    if (t->pid) snprintf(pid, sizeof(pid), "%d", t->pid);
    fmt_pad(l, pid, strlen(pid), 7, FMT_RIGHT);
    buf_addc(l, ' ');
  }
  for (int c = 0; c < r->ncols; c++) {
    const struct expr_column *col = r->cols[c];
    const char *str;
    double v = expr_eval(t->exprs[c], &src, &str);

    /* jstat prints strings as they are; numbers scaled, then formatted */
    cell.len = 0;
    if (!str) v /= col->scale;
    if (str)
      term_buf(&cell, str, strlen(str), 0); /* escaped on a tty */
    else if (r->mode != OUT_JSON || isfinite(v))
      fmt_number(&cell, v, &col->pattern, r->utf8);
    if (!cell.p) buf_adds(&cell, "");
    if (r->mode == OUT_JSON) {
      char *name = column_name(r, c);

      if (str)
        json_strz(&o, name, str);
      else
        json_num(&o, name, v); /* null when not finite */
      free(name);
    } else if (r->mode == OUT_CSV) {
      if (c) buf_addc(l, ',');
      if (str || !isnan(v)) csv_field(l, cell.p);
    } else {
      if (c) buf_addc(l, ' ');
      fmt_pad(l, cell.p, cell.len, r->widths[c], col->align);
    }
  }
  if (r->mode == OUT_JSON) json_close(&o);
  buf_addc(l, '\n');
  fwrite(l->p, 1, l->len, stdout);
  buf_free(&cell);
}

/* Wait until ms on the monotonic clock. Returns 0, or -1 when a signal
 * came or stdout is a pipe whose reader has gone: watching fd 1 for
 * POLLERR ends "jvmtool stat ... 1s | head -1" at once, not at the next
 * row's SIGPIPE. */
static int sleep_until(uint64_t when)
{
  struct pollfd out = {.fd = 1, .events = 0};

  while (!jt_stop_signal) {
    uint64_t now = now_ms();
    struct timespec ts;

    if (now >= when) return 0;
    ts.tv_sec = (time_t)((when - now) / 1000);
    ts.tv_nsec = (long)((when - now) % 1000) * 1000000;
    if (ppoll(&out, 1, &ts, NULL) > 0 &&
        (out.revents & (POLLERR | POLLHUP | POLLNVAL)))
      return -1;
  }
  return -1;
}

/* Re-read every live target; 0 when none is left. A pid that is gone ends
 * that target quietly, as jstat ends when its target exits; a file that
 * can no longer be read (truncated, rewritten as something else) ends it
 * with the reason. */
static int refresh(struct run *r)
{
  int live = 0;

  for (int i = 0; i < r->ntg; i++) {
    struct stat_jvm *t = &r->tg[i];

    if (t->gone) continue;
    if (t->pid && !jvm_alive(&t->j)) {
      t->gone = 1;
    } else if (pd_refresh(&t->pd)) {
      error_msg("stopped sampling '%s': %s", t->path, t->pd.err);
      t->gone = 1;
    } else {
      live++;
    }
  }
  return live;
}

static int sample(struct run *r)
{
  uint64_t start = now_ms();
  long long rows = 0;
  int countdown = 0;

  if (r->mode == OUT_CSV || (r->mode == OUT_TEXT && r->header_every <= 0))
    put_header(r);
  while (!jt_stop_signal && refresh(r)) {
    if (r->mode == OUT_TEXT && r->header_every > 0 && --countdown <= 0) {
      countdown = r->header_every;
      put_header(r);
    }
    r->now = wall_ms();
    for (int i = 0; i < r->ntg; i++)
      if (!r->tg[i].gone) put_row(r, &r->tg[i]);
    if (fflush(stdout)) break; /* a closed pipe ends the run */
    rows++;
    if (r->count > 0 && rows >= r->count) break;
    if (r->interval > 0 && sleep_until(start + rows * r->interval)) break;
  }
  return stop_status(0);
}

static void run_free(struct run *r)
{
  for (int i = 0; i < r->ntg; i++) {
    struct stat_jvm *t = &r->tg[i];

    for (int c = 0; t->exprs && c < r->ncols; c++) expr_free(t->exprs[c]);
    free(t->exprs);
    if (t->opened) pd_close(&t->pd);
    jvm_close(&t->j);
    if (t->row) vm_free(t->row);
    free(t->row);
    free(t->name);
    free(t->path);
    free(t->refs);
    buf_free(&t->str);
  }
  free(r->tg);
  free(r->cols);
  free(r->widths);
  buf_free(&r->line);
  expr_spec_free(&r->spec);
}

/* A run whose command line args reads (stat_args, or stat_jstat_args for
 * the jstat link), then its targets opened, sampled and printed. Returns
 * the exit status. */
static int run_with(int (*args)(struct run *r, int argc, char **argv), int argc,
                    char **argv)
{
  struct run r = {.interval = -1, .count = -1, .utf8 = fmt_locale_utf8()};
  int rc;

  /* From the start: a Ctrl-C while a starting JVM is waited for ends the
   * run too, and a SIGINT ignored by a parent shell does not outlive us. */
  stop_signals(1);
  rc = args(&r, argc, argv);
  if (rc < 0) {
    if (open_targets(&r)) {
      rc = stop_status(1);
    } else {
      pick_columns(&r);
      resolve_targets(&r);
      if (!(rc = sample(&r))) rc = jt_status;
    }
  }
  run_free(&r);
  return rc;
}

int stat_main(int argc, char **argv)
{
  return run_with(stat_args, argc, argv);
}

int jstat_link_main(int argc, char **argv)
{
  return run_with(stat_jstat_args, argc, argv);
}
