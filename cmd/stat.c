/* stat.c - sample a JVM's PerfData counters through jstat's options
 *
 * Compatible with jstat (JDK 17 and 25, docs/jvmstat.md §4, §7, §8): the
 * same bytes for all twelve options, -t (JDK 25's rule: wall clock minus
 * sun.rt.createVmBeginTime), -h<lines>, <interval>[ms|s] and <count>. The
 * options are specs/jstat.spec, embedded as text and parsed at start-up by
 * the parser that reads --spec FILE. Through a link named jstat, jstat's
 * command line, argument errors and help are reproduced (§4.1).
 * Beyond jstat: --json, --csv, several targets (comma-separated) or all,
 * --spec FILE; a closed pipe ends the run at once; the target exiting ends
 * it with status 0 at the next sample (jstat polls once a second).
 * Known deviations: one-line errors instead of Java stack traces; no
 * remote vmids (pid@host), no -snap/-name/-list raw modes (see dump); the
 * decimal separator is always '.'; samples follow a fixed schedule instead
 * of sleeping <interval> after each row (jstat drifts); the JSON/CSV/
 * several-target forms have no jstat equivalent.
 */
#include "core/jvmtool.h"
#include "core/expr.h"
#include "core/format.h"
#include "core/perfdata.h"
#include "core/vm.h"

#include <math.h>
#include <poll.h>

#define OPTS_FILE "specs/stat.opts"
#include "core/opt_table.h"

#include "jstat_spec.inc"  /* jstat_spec_text[], from specs/jstat.spec */
#include "jstat_usage.inc" /* jstat_usage[]: jstat's help, §4.1 */


enum mode { TEXT, JSON, CSV };

struct target {
  char *name;             /* as given, for messages */
  int pid;                /* 0 for files */
  char *path;             /* the PerfData file */
  struct perfdata pd;
  int opened;             /* pd needs pd_close */
  const struct pd_counter **refs;  /* expr handles index this */
  int nrefs;
  struct buf str;         /* the last string read */
  struct expr **exprs;    /* resolved, one per column */
  int gone;
};

struct run {
  const char *option;
  int timestamp, header_every, utf8;
  long long interval;     /* ms, < 0: none */
  long long count;        /* <= 0: forever */
  enum mode mode;
  struct expr_spec spec;
  const struct expr_column **cols;
  int ncols, *widths;
  struct target *tg;
  int ntg, pid_column;
  struct buf line;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* --- counters of one target, for core/expr --- */

static void tg_lookup(void *ctx, const char *name, struct expr_counter *c)
{
  struct target *t = ctx;
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
  struct target *t = ctx;

  return pd_long(&t->pd, t->refs[h]);
}

/* Valid until the next string read: put_row copies it at once. */
static const char *tg_string(void *ctx, int h)
{
  struct target *t = ctx;
  const char *str;
  size_t n = pd_string(&t->pd, t->refs[h], &str);

  t->str.len = 0;
  buf_add(&t->str, str, n);
  return t->str.p;
}

static struct expr_source source(struct target *t)
{
  return (struct expr_source){tg_lookup, tg_long, tg_string, NULL, t};
}

/* --- arguments --- */

/* Java's Integer.parseInt: optional sign, decimal digits, 32-bit range. */
static int java_int(const char *s, long long *out)
{
  const char *p = s + (*s == '+' || *s == '-');

  if (!*p || strspn(p, "0123456789") != strlen(p)) return -1;
  return parse_long(s + (*s == '+'), INT32_MIN, INT32_MAX, out) ? -1 : 0;
}

/* jstat's interval: "<n>", "<n>ms" or "<n>s" (§4.1). Returns 0 or sets
 * *why to jstat's message (caller frees). */
static int parse_interval(const char *arg, long long *ms, char **why)
{
  const char *u = strstr(arg, "ms");
  char *num;
  int rc;

  if (!u || u == arg) u = strchr(arg, 's');
  if (u == arg) u = NULL;
  num = xstrndup(arg, u ? (size_t)(u - arg) : strlen(arg));
  rc = java_int(num, ms);
  free(num);
  if (rc) {
    *why = xasprintf("Could not convert interval: %s", arg);
    return -1;
  }
  if (u && !strcmp(u, "s")) *ms = (int32_t)((uint32_t)*ms * 1000u);
  else if (u && strcmp(u, "ms")) {
    *why = xasprintf("Unknown time unit: %s", u);
    return -1;
  }
  return 0;
}

/* Java's String.compareTo is strcmp for the ASCII names options have. */
static int by_name(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int list_options(struct run *r)
{
  const char **names = xmalloc(r->spec.nopts * sizeof(*names));
  int n = 0;

  for (int i = 0; i < r->spec.nopts; i++) {
    int dup = 0;

    for (int j = 0; j < n; j++) dup |= !strcmp(names[j], r->spec.opts[i].name);
    if (!dup && strcmp(r->spec.opts[i].name, "timestamp"))
      names[n++] = r->spec.opts[i].name;
  }
  qsort(names, n, sizeof(*names), by_name);
  for (int i = 0; i < n; i++) printf("-%s\n", names[i]);
  free(names);
  return 0;
}

/* Append the built-in options (after any user file: the first wins). */
static void load_builtin(struct run *r)
{
  char *err = NULL;

  /* build.d/stat.sh embeds specs/jstat.spec; test/unit/expr.c parses it */
  if (expr_spec_parse(&r->spec, jstat_spec_text,
                      sizeof(jstat_spec_text) - 1, &err))
    error_msg("built-in spec: %s", err);
  free(err);
}

static int load_spec_file(struct run *r, const char *path)
{
  char *text, *err = NULL;
  size_t len;
  int rc = read_file(AT_FDCWD, path, 0, 1 << 20, &text, &len);

  if (rc) {
    errno_msg(rc, "cannot read '%s'", path);
    return -1;
  }
  rc = expr_spec_parse(&r->spec, text, len, &err);
  if (rc) error_msg("'%s': %s", path, err);
  free(err);
  free(text);
  return rc ? -1 : 0;
}

/* A vmid or target: pid, //pid, local://pid, file:///path, file:/path, or
 * (jvmtool only) a plain path. Fills t; returns 0 or sets *why. */
static int parse_target(const char *s, int paths, struct target *t,
                        char **why)
{
  long long pid;
  const char *p = s;

  memset(t, 0, sizeof(*t));
  if (starts_with(s, "file:")) {
    struct buf b = {0};

    p = s + 5;
    if (starts_with(p, "//")) {
      if (p[2] != '/') {
        *why = xasprintf("URI has an authority component: %s", s);
        return -1;
      }
      p += 2;
    }
    if (*p != '/' || strpbrk(p, "?# ")) {
      *why = xasprintf(*p != '/' ? "URI is not absolute: %s"
                       : strchr(p, ' ') ? "Malformed VM Identifier: %s"
                                        : "URI has a query or fragment: %s",
                       s);
      return -1;
    }
    for (; *p; p++) {                       /* percent-escapes */
      int hi, lo;

      if (*p == '%' && isxdigit((unsigned char)p[1]) &&
          isxdigit((unsigned char)p[2])) {
        hi = isdigit((unsigned char)p[1]) ? p[1] - '0' : (p[1] | 32) - 'a' + 10;
        lo = isdigit((unsigned char)p[2]) ? p[2] - '0' : (p[2] | 32) - 'a' + 10;
        buf_addc(&b, (char)(hi * 16 + lo));
        p += 2;
      } else {
        buf_addc(&b, *p);
      }
    }
    t->name = b.p;
    return 0;
  }
  if (starts_with(p, "local://")) p += 8;
  else if (starts_with(p, "//")) p += 2;
  if (!parse_long(p, 1, INT_MAX, &pid)) {
    t->pid = (int)pid;
    t->name = xstrdup(p);
    return 0;
  }
  if (paths && (strchr(s, '/') || access(s, F_OK) == 0)) {
    t->name = xstrdup(s);
    return 0;
  }
  if (strchr(s, '@')) {
    *why = xasprintf("remote vmids are not supported: %s", s);
    return -1;
  }
  *why = xasprintf("Malformed VM Identifier: %s", s);
  return -1;
}

static int jstat_error(const char *fmt, ...) PRINTF(1, 2);
static int jstat_error(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fputs(jstat_usage, stderr);
  return 1;
}

static void add_target(struct run *r, const struct target *t)
{
  r->tg = xrealloc(r->tg, (r->ntg + 1) * sizeof(*r->tg));
  r->tg[r->ntg++] = *t;
}

/* interval and count operands, jstat's sentinels: -1 = not given. */
static int take_timing(struct run *r, char **ops, int n, char **why)
{
  if (n >= 2 && java_int(ops[1], &r->count))
    return *why = xasprintf("illegal count value: %s", ops[1]), -1;
  if (n >= 1 && parse_interval(ops[0], &r->interval, why)) return -1;
  if (r->count == -1 && r->interval == -1) r->count = 1, r->interval = 0;
  return 0;
}

/* jstat's own command line, §4.1 (as a link named jstat). Returns -1 to
 * go on, or the exit status. */
static int jstat_args(struct run *r, int argc, char **argv)
{
  const char *a = argc > 1 ? argv[1] : "-?";
  struct target t;
  char *why = NULL;
  long long v;
  int i;

  load_builtin(r);
  if (!strcmp(a, "-?") || !strcmp(a, "-h") || !strcmp(a, "--help") ||
      !strcmp(a, "-help")) {
    fputs(jstat_usage, stdout);
    return 0;
  }
  if (!strcmp(a, "-options")) return list_options(r);
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    a = argv[i];
    if (!strcmp(a, "-t")) {
      r->timestamp = 1;
    } else if (starts_with(a, "-h")) {
      const char *val = a + 2;

      if (!*val && ++i >= argc)
        return jstat_error("-h requires an integer argument");
      if (!*val) val = argv[i];
      if (java_int(val, &v) || v < 0)
        return jstat_error("illegal -h argument: %s", val);
      r->header_every = (int)v;
    } else if (starts_with(a, "-name") || !strcmp(a, "-list") ||
               (i == 1 && !strcmp(a, "-snap"))) {
      error_msg("jstat's %s mode is not supported (see 'jvmtool dump')", a);
      return 1;
    } else if (strchr("adv", a[1]) && !a[2]) {
      /* -a -d -v only change the raw modes */
    } else {
      char *lvmid = xstrndup(a, strcspn(a, "@"));
      int num = !java_int(lvmid, &v);

      free(lvmid);
      if (num) break;
      if (i != 1) return jstat_error("illegal argument: %s", a);
      r->option = a + 1;
    }
  }
  if (!r->option) return jstat_error("-<option> required");
  if (argc - i < 1 || argc - i > 3)
    return jstat_error("invalid argument count");
  if (take_timing(r, argv + i + 1, argc - i - 1, &why)) {
    jstat_error("%s", why);
    free(why);
    return 1;
  }
  if (!expr_spec_find(&r->spec, r->option))
    return jstat_error("Unknown option: -%s", r->option);
  if (parse_target(argv[i], 0, &t, &why)) {
    jstat_error("%s", why);
    free(why);
    return 1;
  }
  add_target(r, &t);
  return -1;
}

/* "all": every JVM core/vm finds whose process is alive, by host pid,
 * ascending. The set is fixed at the start of the run. */
static int all_targets(struct run *r)
{
  struct vm *v;
  size_t n;
  int rc = vm_list(&v, &n);

  if (rc) {
    errno_msg(rc, "cannot list JVMs");
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    struct target t = {0};

    if (!v[i].alive) continue;
    t.pid = v[i].pid;
    t.name = xasprintf("%d", v[i].pid);
    add_target(r, &t);
  }
  vm_list_free(v, n);
  if (!r->ntg) error_msg("no JVMs found (none running, or none this user "
                         "may read)");
  return r->ntg ? 0 : -1;
}

/* jvmtool's command line: jstat's -<option>, -t, -h<n> and -options (not
 * getopt-shaped, so taken out first), then the long options of
 * specs/stat.opts through opt_parse. Returns -1 to go on, or a status. */
static int stat_args(struct run *r, int argc, char **argv)
{
  char **rest = xzalloc((argc + 1) * sizeof(*rest));
  int nrest = 0, options = 0, rc = -1;
  struct args a = {0};
  char *why = NULL, *list;
  long long v;

  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];

    if (s[0] != '-' || s[1] == '-' || !s[1] || isdigit((unsigned char)s[1])) {
      rest[nrest++] = argv[i];
      if (!strcmp(s, "--spec") && i + 1 < argc) rest[nrest++] = argv[++i];
    } else if (!strcmp(s, "-t")) {
      r->timestamp = 1;
    } else if (!strcmp(s, "-options")) {
      options = 1;
    } else if (!strcmp(s, "-?") || !strcmp(s, "-help")) {
      rest[nrest++] = "--help";
    } else if (starts_with(s, "-h") &&
               strspn(s + 2, "0123456789") == strlen(s + 2)) {
      const char *val = s[2] ? s + 2 : i + 1 < argc ? argv[++i] : "";

      if (parse_long(val, 0, INT_MAX, &v)) {
        rc = usage_error("-h needs a number of rows, not '%s'", val);
        goto out;
      }
      r->header_every = (int)v;
    } else if (r->option) {
      rc = usage_error("one option at a time: -%s or %s", r->option, s);
      goto out;
    } else {
      r->option = s + 1;
    }
  }
  if ((rc = opt_parse(opt_rows, opt_usage, 0, nrest, rest, &a)) >= 0)
    goto out;
  if (a.count[OPT_json] && a.count[OPT_csv]) {
    rc = usage_error("--json or --csv, not both");
    goto out;
  }
  r->mode = a.count[OPT_json] ? JSON : a.count[OPT_csv] ? CSV : TEXT;
  if (a.val[OPT_spec] && load_spec_file(r, a.val[OPT_spec])) {
    rc = 1;
    goto out;
  }
  load_builtin(r);
  if (options) {
    rc = list_options(r);
    goto out;
  }
  if (!r->option) {
    rc = usage_error("which option? -gcutil, -gc, ... (see -options)");
    goto out;
  }
  if (!expr_spec_find(&r->spec, r->option)) {
    rc = usage_error("unknown option '-%s'; -options lists them", r->option);
    goto out;
  }
  if (a.argc < 1 || a.argc > 3) {
    rc = usage_error(a.argc ? "too many operands" : "no target given");
    goto out;
  }
  if (take_timing(r, a.argv + 1, a.argc - 1, &why)) {
    rc = usage_error("%s", why);
    goto out;
  }
  if (!strcmp(a.argv[0], "all")) {
    r->pid_column = 1;
    if (all_targets(r)) rc = 1;
    goto out;
  }
  /* A comma separates targets, unless the whole operand names a file. */
  list = xstrdup(a.argv[0]);
  for (char *tok = list, *end; tok && rc == -1; tok = end) {
    struct target t;

    end = access(list, F_OK) ? strchr(tok, ',') : NULL;
    if (end) *end++ = 0;
    if (parse_target(tok, 1, &t, &why))
      rc = usage_error("bad target '%s': %s", tok, why);
    else
      add_target(r, &t);
  }
  free(list);
  r->pid_column = r->ntg > 1;
out:
  free(why);
  free(rest);
  return rc;
}

/* Open every target and resolve the columns against its counters, once:
 * like jstat, a counter that appears later is never picked up. */
static int open_targets(struct run *r)
{
  int ok = 0;

  for (int i = 0; i < r->ntg; i++) {
    struct target *t = &r->tg[i];
    struct expr_source src = source(t);
    char why[256] = "";
    int rc;

    if (t->pid) {
      char pid[16];
      struct vm vm;

      snprintf(pid, sizeof(pid), "%d", t->pid);
      if (!vm_resolve(pid, &vm, why, sizeof(why))) {
        t->path = xstrdup(vm.path);
        vm_free(&vm);
      }
    } else {
      t->path = xstrdup(t->name);
    }
    rc = t->path ? pd_open(&t->pd, t->path, t->pid ? PD_NOFOLLOW : 0)
                 : -ENOENT;
    if (rc) {
      if (t->pid)
        error_msg("no JVM with pid %d: %s", t->pid, *why ? why
                  : rc == -EINVAL ? t->pd.err : strerror(-rc));
      else
        error_msg("'%s': %s", t->name, rc == -EINVAL ? t->pd.err
                                                      : strerror(-rc));
      t->gone = 1;
      continue;
    }
    t->opened = 1;
    /* jvmstat waits (20 ms polls, 5 s) for a starting JVM to mark its
     * data accessible before it looks counters up; so do we */
    for (int w = 0; t->pid && !pd_accessible(&t->pd) && w < 250; w++) {
      struct timespec ts = {0, 20 * 1000000};

      nanosleep(&ts, NULL);
      if (pd_refresh(&t->pd)) break;
    }
    t->exprs = xmalloc(r->ncols * sizeof(*t->exprs));
    for (int c = 0; c < r->ncols; c++)
      t->exprs[c] = expr_resolve(r->cols[c]->data, r->cols[c]->required,
                                 &src);
    ok++;
  }
  return ok ? 0 : -1;
}

static void pick_columns(struct run *r)
{
  const struct expr_option *o = expr_spec_find(&r->spec, r->option),
                           *ts = expr_spec_find(&r->spec, "timestamp");
  int n = 0;

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
 * (-class has two "Bytes") gets "_2", "_3". */
static char *column_name(struct run *r, int c)
{
  struct buf b = {0};
  int same = 1;

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
  if (r->mode == CSV) {
    if (r->pid_column) buf_adds(l, "PID,");
    for (int c = 0; c < r->ncols; c++) {
      char *n = column_name(r, c);

      buf_printf(l, "%s%s", c ? "," : "", n);
      free(n);
    }
  } else {
    if (r->pid_column) fmt_pad(l, "PID", 3, 7, FMT_RIGHT), buf_addc(l, ' ');
    for (int c = 0; c < r->ncols; c++) {
      if (c) buf_addc(l, ' ');
      fmt_header(l, r->cols[c]->header, r->cols[c]->width,
                 (int)strlen(r->cols[c]->format));
    }
  }
  buf_addc(l, '\n');
  fwrite(l->p, 1, l->len, stdout);
}

/* Shortest digits that read back as v (JSON numbers). */
static void json_number(struct buf *b, double v)
{
  char tmp[32];

  for (int prec = 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
    if (strtod(tmp, NULL) == v) break;
  }
  buf_adds(b, tmp);
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

static void put_row(struct run *r, struct target *t)
{
  struct expr_source src = source(t);
  struct buf *l = &r->line, cell = {0};

  l->len = 0;
  if (r->mode == JSON) {
    buf_printf(l, "{\"timestamp\":%" PRIu64 ",\"pid\":", wall_ms());
    if (t->pid) buf_printf(l, "%d", t->pid);
    else buf_adds(l, "null");
    fwrite(l->p, 1, l->len, stdout);
    fputs(",\"target\":", stdout);
    json_string(stdout, t->name, strlen(t->name));
    l->len = 0;
  } else if (r->pid_column) {
    char pid[16];

    snprintf(pid, sizeof(pid), "%d", t->pid);
    if (r->mode == CSV) buf_printf(l, "%s,", t->pid ? pid : "");
    else fmt_pad(l, t->pid ? pid : "-", strlen(t->pid ? pid : "-"), 7,
                 FMT_RIGHT), buf_addc(l, ' ');
  }
  for (int c = 0; c < r->ncols; c++) {
    const struct expr_column *col = r->cols[c];
    const char *str;
    double v = expr_eval(t->exprs[c], &src, &str);

    /* jstat prints strings as they are; numbers scaled, then formatted */
    cell.len = 0;
    if (!str) v /= col->scale;
    if (str) buf_adds(&cell, str);
    else if (r->mode != JSON || isfinite(v)) fmt_number(&cell, v,
                                                        &col->pattern,
                                                        r->utf8);
    if (!cell.p) buf_adds(&cell, "");
    if (r->mode == JSON) {
      char *name = column_name(r, c);

      fwrite(l->p, 1, l->len, stdout);
      l->len = 0;
      fputc(',', stdout);
      json_string(stdout, name, strlen(name));
      fputc(':', stdout);
      free(name);
      if (str) json_string(stdout, str, strlen(str));
      else if (!isfinite(v)) fputs("null", stdout);
      else {
        json_number(l, v);
        fwrite(l->p, 1, l->len, stdout);
        l->len = 0;
      }
    } else if (r->mode == CSV) {
      if (c) buf_addc(l, ',');
      if (str || !isnan(v)) csv_field(l, cell.p);
    } else {
      if (c) buf_addc(l, ' ');
      fmt_pad(l, cell.p, cell.len, r->widths[c], col->align);
    }
  }
  buf_addc(l, r->mode == JSON ? '}' : '\n');
  if (r->mode == JSON) buf_addc(l, '\n');
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

  while (!stop_signal) {
    uint64_t now = now_ms();
    struct timespec ts;

    if (now >= when) return 0;
    ts.tv_sec = (time_t)((when - now) / 1000);
    ts.tv_nsec = (long)((when - now) % 1000) * 1000000;
    if (ppoll(&out, 1, &ts, NULL) > 0 && (out.revents & (POLLERR | POLLHUP | POLLNVAL)))
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
    struct target *t = &r->tg[i];

    if (t->gone) continue;
    if (t->pid && proc_alive(t->pid) != 1) {
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

  if (r->mode == CSV || (r->mode == TEXT && r->header_every <= 0))
    put_header(r);
  while (!stop_signal && refresh(r)) {
    if (r->mode == TEXT && r->header_every > 0 && --countdown <= 0) {
      countdown = r->header_every;
      put_header(r);
    }
    for (int i = 0; i < r->ntg; i++)
      if (!r->tg[i].gone) put_row(r, &r->tg[i]);
    if (fflush(stdout)) break;            /* a closed pipe ends the run */
    rows++;
    if (r->count > 0 && rows >= r->count) break;
    if (r->interval > 0 && sleep_until(start + rows * r->interval)) break;
  }
  if (stop_signal) return 128 + stop_signal;
  return 0;
}

static void run_free(struct run *r)
{
  for (int i = 0; i < r->ntg; i++) {
    struct target *t = &r->tg[i];

    for (int c = 0; t->exprs && c < r->ncols; c++) expr_free(t->exprs[c]);
    free(t->exprs);
    if (t->opened) pd_close(&t->pd);
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

int stat_main(int argc, char **argv)
{
  struct run r = {.interval = -1, .count = -1, .utf8 = fmt_locale_utf8()};
  struct sigaction sa = {.sa_handler = on_signal};
  int rc;

  /* The built-in options come after --spec files: the first wins, so a
   * user's option of the same name replaces the built-in one, as a
   * ~/.jvmstat/jstat_options does for jstat. */
  if (jt_alias) {
    const char *home = getenv("HOME");
    char *path;
    int n = 1;

    /* jstat's launcher drops -J<flag> anywhere; user.home is the one
     * property that changes what we print (where the options file is). */
    for (int i = 1; i < argc; i++)
      if (starts_with(argv[i], "-J-Duser.home=")) home = argv[i] + 14;
      else if (!starts_with(argv[i], "-J")) argv[n++] = argv[i];
    argc = n;
    path = home ? xasprintf("%s/.jvmstat/jstat_options", home) : NULL;

    if (path && !access(path, R_OK)) load_spec_file(&r, path);
    free(path);
  }
  rc = jt_alias ? jstat_args(&r, argc, argv) : stat_args(&r, argc, argv);
  if (rc < 0) {
    pick_columns(&r);
    if (open_targets(&r)) {
      rc = 1;
    } else {
      sigaction(SIGINT, &sa, NULL);
      sigaction(SIGTERM, &sa, NULL);
      rc = sample(&r);
      if (!rc) rc = jt_status;
    }
  }
  run_free(&r);
  return rc;
}
