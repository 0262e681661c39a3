/* stat_jstat.c - stat's command lines: ours (specs/stat.opts, jstat's
 * -<option> words read by opt_parse), and jstat's own with its texts (for
 * the jstat link, a row of specs/dropins.def whose main is cmd/stat.c's);
 * the option language, interval and count they share
 *
 * Compatible with jstat of JDK 17 and 25: -<option>, -t, -h<lines>,
 * <vmid> <interval>[ms|s] <count>; errors are jstat's line followed by its
 * usage on stderr; -J flags are dropped as jstat's launcher takes them,
 * except -J-Duser.home, which says where ~/.jvmstat/jstat_options is.
 * Facts used: docs/jvmstat.md §4.1 (the command line), §4.4 (options).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/vm.h"
#include "core/pod.h"
#include "cmd/stat.h"
#include "cmd/jdk.h"

#include "core/hprof_in.h" /* hin_gunzip */
#include "jstat_usage.inc" /* jstat_usage[]: jstat's help */

#define OPTS_FILE "specs/stat.opts"
#include "core/opt_table.h"

/* Java's Integer.parseInt: optional sign, decimal digits, 32-bit range. */
static int java_int(const char *s, long long *out)
{
  const char *p = s + (*s == '+' || *s == '-');

  if (!*p || strspn(p, "0123456789") != strlen(p)) return -1;
  return parse_long(s + (*s == '+'), INT32_MIN, INT32_MAX, out) ? -1 : 0;
}

/* jstat's interval: "<n>", "<n>ms" or "<n>s" (core's time grammar; jstat
 * knows no minutes). Returns 0 or sets *why to jstat's message (caller
 * frees). */
static int parse_interval(const char *arg, long long *ms, char **why)
{
  long long unit_ms;
  const char *u;
  int rc = parse_time(arg, ms, &unit_ms, &u);

  if ((rc && !u) || unit_ms == 60000) {
    *why = xasprintf("Could not convert interval: %s", arg);
    return -1;
  }
  if (rc) {
    *why = xasprintf("Unknown time unit: %s", u);
    return -1;
  }
  if (unit_ms == 1000) *ms = (int32_t)((uint32_t)*ms * 1000u);
  return 0;
}

/* interval and count operands, jstat's sentinels: -1 = not given. */
int stat_timing(struct run *r, char **ops, int n, char **why)
{
  if (n >= 2 && java_int(ops[1], &r->count)) {
    *why = xasprintf("illegal count value: %s", ops[1]);
    return -1;
  }
  if (n >= 1 && parse_interval(ops[0], &r->interval, why)) return -1;
  if (r->count == -1 && r->interval == -1) {
    r->count = 1;
    r->interval = 0;
  }
  return 0;
}

/* Java's String.compareTo is strcmp for the ASCII names options have. */
static int by_name(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int stat_list_options(struct run *r)
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

/* The JDK whose jstat layout is printed: --layout's, else the first open
 * target's own (jstat inside its container prints that one); INT_MAX, the
 * newest, when it says no version. */
int stat_layout_jdk(const struct run *r)
{
  int jdk = r->layout;

  for (int i = 0; !jdk && i < r->ntg; i++)
    if (r->tg[i].opened) jdk = vm_java_feature(&r->tg[i].pd);
  return jdk ? jdk : INT_MAX;
}

/* name's option for that layout: its variant "option name jdk N" with the
 * least N >= jdk (specs/jstat.spec), else the first of the name. */
const struct expr_option *stat_layout_option(const struct run *r,
                                             const char *name, int jdk)
{
  const struct expr_option *o = expr_spec_find_jdk(&r->spec, name, jdk);

  return o ? o : expr_spec_find(&r->spec, name);
}

/* specs/jstat.spec as build.d/stat.sh embeds it: gzip'd text */
extern const unsigned char jt_jstat_spec_gz[];
extern const uint64_t jt_jstat_spec_gz_size;

/* Append the built-in options (after any user file: the first wins):
 * all of them, or (all 0, r->option set) only r->option's and -t's
 * (parsing all 40 was most of a run's instructions). */
void stat_load_builtin(struct run *r, int all)
{
  const char *only[] = {r->option, "timestamp", NULL};
  unsigned char *text = NULL;
  size_t len = 0;
  const char *bad = NULL;
  char *err = NULL;

  /* test/unit/expr.c parses specs/jstat.spec itself */
  if (hin_gunzip(jt_jstat_spec_gz, (size_t)jt_jstat_spec_gz_size, 1 << 20,
                 &text, &len, &bad))
    error_msg("built-in spec: does not inflate (%s)", bad ? bad : "too big");
  else if (expr_spec_parse_only(&r->spec, (const char *)text, len,
                                all || !r->option ? NULL : only, &err))
    error_msg("built-in spec: %s", err);
  free(err);
  free(text);
}

int stat_load_spec(struct run *r, const char *path)
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

/* The user's options file (~/.jvmstat/jstat_options, ~ being user.home:
 * HOME, or the launcher's -J-Duser.home=), loaded before the built-in
 * options: the first of a name wins. */
static void user_options(struct run *r, const char *home)
{
  char *path = home ? xasprintf("%s/.jvmstat/jstat_options", home) : NULL;

  if (path && !access(path, R_OK)) stat_load_spec(r, path);
  free(path);
}

/* One -word before the vmid: -t, -h<n>, the raw modes, or the option. */
static int jstat_word(struct run *r, int argc, char **argv, int *i)
{
  const char *a = argv[*i];
  long long v;

  if (!strcmp(a, "-t")) {
    r->timestamp = 1;
  } else if (starts_with(a, "-h")) {
    const char *val = a + 2;

    if (!*val && ++*i >= argc)
      return jstat_error("-h requires an integer argument");
    if (!*val) val = argv[*i];
    if (java_int(val, &v) || v < 0)
      return jstat_error("illegal -h argument: %s", val);
    r->header_every = (int)v;
  } else if (starts_with(a, "-name") || !strcmp(a, "-list") ||
             (*i == 1 && !strcmp(a, "-snap"))) {
    error_msg("jstat's %s mode is not supported (see 'jvmtool dump')", a);
    return 1;
  } else if (a[1] && strchr("adv", a[1]) && !a[2]) {
    /* -a -d -v only change the raw modes */
  } else {
    if (*i != 1) return jstat_error("illegal argument: %s", a);
    r->option = a + 1;
  }
  return -1;
}

/* A word that starts the operands: an lvmid (digits, perhaps @host). */
static int is_vmid(const char *a)
{
  char *lvmid = xstrndup(a, strcspn(a, "@"));
  long long v;
  int num = !java_int(lvmid, &v);

  free(lvmid);
  return num;
}

static void add_target(struct run *r, const struct stat_jvm *t)
{
  r->tg = xrealloc(r->tg, (r->ntg + 1) * sizeof(*r->tg));
  r->tg[r->ntg] = *t;
  jvm_init(&r->tg[r->ntg++].j);
}

static int add_pid_or_file(struct run *r, const char *s, int flags, char *why,
                           size_t whylen)
{
  struct stat_jvm t = {0};
  int rc;

  if (!starts_with(s, "file:") && vm_pod_target(s)) { /* its row (core/pod) */
    t.row = xmalloc(sizeof(*t.row));
    if ((rc = pod_find(s, t.row, why, whylen))) {
      vm_free(t.row);
      free(t.row);
      return rc;
    }
    t.pid = t.row->pid;
  } else if ((rc = vm_parse_target(s, flags, &t.pid, &t.path, why, whylen))) {
    return rc;
  }
  t.name = t.path ? xstrdup(t.path) : xasprintf("%d", t.pid);
  add_target(r, &t);
  return 0;
}

/* "all": every JVM core/vm finds whose process is alive, by host pid,
 * ascending. The set is fixed at the start of the run. */
static int add_all(struct run *r)
{
  struct vm *v;
  size_t n;
  int rc = vm_list(&v, &n);

  say_skipped();
  if (rc) {
    errno_msg(rc, "cannot list JVMs");
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    struct stat_jvm t = {0};

    if (!v[i].alive) continue;
    t.pid = v[i].pid;
    t.name = xasprintf("%d", v[i].pid);
    t.row = xmalloc(sizeof(*t.row)); /* opened as the walk found it */
    *t.row = v[i];
    vm_init(&v[i]);
    add_target(r, &t);
  }
  vm_list_free(v, n);
  if (!r->ntg)
    error_msg("no JVMs found (none running, or none this user "
              "may read)");
  return r->ntg ? 0 : -1;
}

/* The help words count first on the line only (else -h is jstat's
 * -h<lines>); none at all is help too. */
int stat_jstat_args(struct run *r, int argc, char **argv)
{
  const char *a, *home = getenv("HOME");
  char why[512], *msg = NULL;
  int i, rc;

  if ((argc = jdk_args(argc, argv, &home)) < 0) return 1;
  user_options(r, home);
  a = argc > 1 ? argv[1] : "-?";
  if (jdk_is_help(a)) {
    fputs(jstat_usage, stdout);
    return 0;
  }
  if (!strcmp(a, "-options")) {
    stat_load_builtin(r, 1);
    return stat_list_options(r);
  }
  for (i = 1; i < argc && argv[i][0] == '-' && !is_vmid(argv[i]); i++)
    if ((rc = jstat_word(r, argc, argv, &i)) >= 0) return rc;
  if (!r->option) return jstat_error("-<option> required");
  if (argc - i < 1 || argc - i > 3)
    return jstat_error("invalid argument count");
  if (stat_timing(r, argv + i + 1, argc - i - 1, &msg)) {
    jstat_error("%s", msg);
    free(msg);
    return 1;
  }
  stat_load_builtin(r, 0);
  if (!expr_spec_find(&r->spec, r->option))
    return jstat_error("Unknown option: -%s", r->option);
  if (add_pid_or_file(r, argv[i], VM_TARGET_JSTAT, why, sizeof(why)))
    return jstat_error("%s", why);
  return -1;
}

/* Comma-separated targets, unless the whole operand names a file. */
static int take_targets(struct run *r, const char *list)
{
  char *copy = xstrdup(list), why[512];
  int rc = 0;

  for (char *tok = copy, *end; tok && !rc; tok = end) {
    int bad;

    end = access(list, F_OK) ? strchr(tok, ',') : NULL;
    if (end) *end++ = 0;
    bad = add_pid_or_file(r, tok, 0, why, sizeof(why));
    /* a pod that names no JVM, or several: no usage error */
    if (bad == -ESRCH || bad == -E2BIG) {
      error_msg("%s", why);
      rc = 1;
    } else if (bad) {
      rc = usage_error("bad target '%s': %s", tok, why);
    }
  }
  free(copy);
  r->pid_column = r->ntg > 1;
  return rc;
}

/* -<option> is none of the spec's: name the nearest one. Returns 2. */
static int unknown_option(const struct run *r)
{
  const char **names = xzalloc((r->spec.nopts + 1) * sizeof(*names));
  int at, rc;

  for (int i = 0; i < r->spec.nopts; i++) names[i] = r->spec.opts[i].name;
  at = nearest_name(r->option, names, r->spec.nopts);
  if (at >= 0)
    rc = usage_error("unknown option '-%s': did you mean '-%s'?", r->option,
                     names[at]);
  else
    rc = usage_error("unknown option '-%s'; -options lists them", r->option);
  free(names);
  return rc;
}

/* --layout's words (specs/stat.opts) as JDK versions; 0: auto */
static const int layouts[] = {0, 8, 11, 17};

/* jvmtool's command line: specs/stat.opts, where jstat's -<option> is a
 * dash word. Returns -1 to go on, or a status. */
int stat_args(struct run *r, int argc, char **argv)
{
  struct args a;
  char *why = NULL;
  int rc = opt_parse(opt_rows, opt_usage, OPTS_DASH_WORDS, argc, argv, &a);

  if (rc >= 0) return rc;
  if (a.nwords > 1)
    return usage_error("one option at a time: -%s or -%s", a.words[0],
                       a.words[1]);
  r->header_every = (int)a.num[OPT_header_every];
  r->timestamp = a.count[OPT_timestamp] > 0;
  r->layout = layouts[a.word[OPT_layout] > 0 ? a.word[OPT_layout] : 0];
  r->option = a.nwords ? a.words[0] : NULL;
  r->mode = a.count[OPT_json]  ? OUT_JSON
            : a.count[OPT_csv] ? OUT_CSV
                               : OUT_TEXT;
  if (a.val[OPT_spec] && stat_load_spec(r, a.val[OPT_spec])) return 1;
  stat_load_builtin(r, a.count[OPT_options] > 0);
  if (a.count[OPT_options]) return stat_list_options(r);
  if (!r->option)
    return usage_error("which option? -gcutil, -gc, ...; -options lists "
                       "them");
  if (!expr_spec_find(&r->spec, r->option)) {
    stat_load_builtin(r, 1); /* all of them, to name the nearest */
    return unknown_option(r);
  }
  if (a.argc < 1 || a.argc > 3)
    return usage_error(a.argc ? "too many operands" : "no target given");
  if (stat_timing(r, a.argv + 1, a.argc - 1, &why)) {
    rc = usage_error("%s", why);
    free(why);
    return rc;
  }
  if (strcmp(a.argv[0], "all")) {
    rc = take_targets(r, a.argv[0]);
    return rc ? rc : -1;
  }
  r->pid_column = 1;
  return add_all(r) ? 1 : -1;
}
