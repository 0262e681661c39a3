/* jcmd.c - send a diagnostic command to a JVM, like jcmd, without a JDK
 *
 * "<pid>:" and then the JVM's reply, as jcmd prints them ("Command executed
 * successfully" for an empty one); a failure's text goes to stderr and the
 * exit status is 1, and with no reply stdout stays empty (the jcmd link
 * prints "<pid>:" first, as jcmd). The target is a pid, 0 for every JVM,
 * or, as in jcmd, a part of the main class (every JVM whose main class, as
 * jps -l shows it, contains it; not its arguments).
 * After the target, jcmd's words: "-f FILE" runs FILE's lines one by one
 * (until a line "stop"), PerfCounter.print is answered from the PerfData
 * file, as jcmd itself does. A JVM whose sun.rt.jvmCapabilities says it
 * takes no attach requests (-XX:+DisableAttachMechanism) is refused at once
 * by core/attach and left out of -l, 0 and main-class targets, as jcmd
 * does: no SIGQUIT, which would print a thread dump into its log.
 *
 * The jcmd link (jcmd_link_main, a row of specs/dropins.def): jcmd 17's
 * command line, help text and argument messages, -J options taken and
 * ignored (cmd/jdk.c), the help words first on the line (the jstack and
 * jmap links are cmd/jstack.c). Deviations: errors are one line, not a Java stack trace;
 * -l is sorted by pid and jvmtool never lists itself.
 *
 * A fan-out (0, "", a main class that names several JVMs) asks every JVM
 * at once (core/attach's attach_ask_all: the exchanges side by side in one
 * poll loop; -f's lines a round each), so a JVM that never answers delays
 * only its own answer: each is bounded by --timeout, and for the link by
 * JDK_FAN_REPLY_MS (the hour-long wait is for one named JVM). The answers
 * are printed whole, by pid; then one line on stderr says which JVMs
 * answered and which did not (the link says it only when one did not).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/format.h"
#include "core/out.h"
#include "core/perfdata.h"
#include "core/jvm.h"
#include "core/root.h"
#include "core/vm.h"
#include "cmd/jdk.h"
#include "jcmd_usage.inc" /* jcmd_usage[]: jcmd's help, byte for byte */

#define OPTS_FILE "specs/jcmd.opts"
#include "core/opt_table.h"

/* What to send, from either command line. */
struct request {
  const char *target; /* a pid, 0, or a part of a main class */
  char *text;         /* the command, or -f FILE's lines (malloc'd) */
  int from_file;      /* text is a file: each line is one command */
  int counters;       /* PerfCounter.print: read from PerfData */
  int timeout_ms;     /* to reach the JVM, and (reply_ms 0) its answer */
  int reply_ms;       /* the links: its answer from there (cmd/jdk.h) */
  const char *out;    /* --out-file: where the heap dump lands */
  int head_first;     /* "<pid>:" before anything, as jcmd (the link) */
  int fan_reply_ms;   /* a fan-out's bound for each answer (0: timeout_ms) */
};

/* jcmd lists, and picks by main class, only the JVMs that say they take
 * attach requests. */
static int list(void)
{
  struct vm *vms;
  struct buf cmd = {0};
  size_t n;

  if (vm_list(&vms, &n)) return 1;
  say_skipped();
  for (size_t i = 0; i < n; i++) {
    struct perfdata pd;

    if (!vms[i].path || vm_open_budget(&vms[i], &pd)) continue;
    if (vm_attachable(&pd) == 1) {
      vm_java_command(&pd, &cmd);
      printf("%d ", vms[i].pid);
      term_write(stdout, cmd.p, cmd.len, 0);
      putchar('\n');
    }
    pd_close(&pd);
  }
  buf_free(&cmd);
  vm_list_free(vms, n);
  return 0;
}

/* The JVMs r's target names (core/vm's vm_find): 0, or -1 after jcmd's
 * words for none. */
static int targets(const char *target, struct vm **v, size_t *n)
{
  char err[256];
  int rc = vm_find(target, v, n, err, sizeof(err));

  if (rc || !*n) jdk_none(target, rc, err);
  return rc || !*n ? -1 : 0;
}

/* "<pid>:" before what pid answered, once (*said): jvmtool jcmd says it
 * only with an answer, so a failed attach leaves stdout empty; the jcmd
 * link says it first, as jcmd does. */
static void head(int pid, int *said)
{
  if (*said) return;
  printf("%d:\n", pid);
  fflush(stdout);
  *said = 1;
}

/* GC.heap_dump's file (its first word that is no option, or filename=),
 * copied into path; 0 when line is no GC.heap_dump with a file. */
static int dump_file(const char *line, char *path, size_t n)
{
  const char *w = line + strspn(line, " ");
  size_t len;

  if (strncmp(w, "GC.heap_dump", 12) || (w[12] && w[12] != ' ')) return 0;
  for (w += 12; *(w += strspn(w, " ")); w += len) {
    len = strcspn(w, " ");
    if (*w == '-') continue;
    if (!strncmp(w, "filename=", 9)) {
      w += 9;
      len -= 9;
    }
    if (!len || len >= n) return 0;
    memcpy(path, w, len);
    path[len] = 0;
    return 1;
  }
  return 0;
}

/* A JVM writes GC.heap_dump's file where it sees the path (its mount
 * namespace, its working folder): when that is not the same place here
 * (a container, a PrivateTmp service), jcmd's "Heap dump file created"
 * would send the user looking in the wrong /tmp, so one line on stderr
 * says where the file is on this host. */
static void dump_where(const struct jvm *v, const char *line)
{
  char path[PATH_MAX], *where;
  struct stat ours, theirs;
  int same;

  if (!dump_file(line, path, sizeof(path))) return;
  same = jvm_same_path(v, path);
  if (same && path[0] != '/')
    same = v->procfd >= 0 && !stat(".", &ours) &&
           !fstatat(v->procfd, "cwd", &theirs, 0) &&
           ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
  if (same) return;
  where = path[0] == '/' ? root_name(&v->root, path)
                         : xasprintf("/proc/%d/cwd/%s", v->pid, path);
  warn_msg("pid %d wrote '%s' where it sees that path, not here: on this "
           "host it is %s (--out-file takes a dump out)",
           v->pid, path, where);
  free(where);
}

static int jcmd_line(const struct jvm *v, const struct request *r,
                     const char *line, int *said)
{
  const char *args[3] = {line, NULL, NULL};
  char *reply, err[512];
  int pid = v->pid, rc;

  if (attach_ask_long(v, "jcmd", args, r->timeout_ms, r->reply_ms, &reply, err,
                      sizeof(err))) {
    error_msg("%s", err);
    return 1;
  }
  head(pid, said);
  rc = jdk_print_reply(pid, reply, "Command executed successfully");
  fflush(stdout);
  if (!rc && jdk_out_written(reply)) dump_where(v, line);
  free(reply);
  return rc;
}

/* --out-file: GC.heap_dump with the file the JVM is given (cmd/jdk_out.c:
 * the host path, or a name in its /tmp taken out to it). */
static int heap_dump(const struct jvm *v, const struct request *r, int *said)
{
  struct jdk_out o;
  struct buf line = {0};
  const char *args[3] = {NULL, NULL, NULL};
  char *reply = NULL, err[512];
  int pid = v->pid, rc;

  if (jdk_out_begin(&o, v, r->out,
                    strstr(r->text, " -gz") ? ".hprof.gz" : ".hprof"))
    return 1;
  buf_printf(&line, "%s %s", r->text, o.jvm_path);
  args[0] = line.p;
  if (attach_ask_long(v, "jcmd", args, r->timeout_ms, r->reply_ms, &reply, err,
                      sizeof(err))) {
    error_msg("%s", err);
    rc = 1;
  } else {
    head(pid, said);
    rc = jdk_print_reply(pid, reply, NULL);
  }
  fflush(stdout);
  rc = jdk_out_end(&o, !rc && jdk_out_written(reply));
  free(reply);
  buf_free(&line);
  return rc;
}

static int perf_counters(struct jvm *j, int *said)
{
  struct perfdata pd;
  struct buf out = {0};

  if (jvm_perfdata(j, &pd)) {
    if (j->vm.path)
      error_msg("cannot read '%s': %s", j->vm.path, pd.err);
    else
      error_msg("pid %d: %s", j->pid, pd.err);
    return 1;
  }
  for (size_t i = 0; i < pd.n; i++)
    pd_snap_line(&pd, pd.counters[i], 0, fmt_locale_utf8(), &out);
  head(j->pid, said);
  term_write(stdout, out.p, out.len, 1);
  buf_free(&out);
  pd_close(&pd);
  return 0;
}

/* A line that is "stop", blanks aside, ends -f's file, as in jcmd. */
static int is_stop(const char *line)
{
  const char *blank = " \t\r\f\v";

  line += strspn(line, blank);
  return !strncmp(line, "stop", 4) && !line[4 + strspn(line + 4, blank)];
}

/* The commands r sends, in order: its command, or each line of -f's file
 * (ended by \n, \r or \r\n; the empty ones at its end dropped) until
 * "stop", as jcmd sends them: comments and blank lines too (the JVM skips
 * them). *text holds them (free it and *lines). */
static size_t lines_of(const struct request *r, char **text, char ***lines)
{
  char *line, *next, *end;
  size_t n = 0;

  *text = xstrdup(r->text);
  *lines = xmalloc(sizeof(**lines));
  if (!r->from_file) {
    (*lines)[n++] = *text;
    return n;
  }
  end = *text + strlen(*text);
  while (end > *text && (end[-1] == '\n' || end[-1] == '\r')) *--end = 0;
  for (line = *text; line; line = next) {
    next = line + strcspn(line, "\r\n");
    if (*next) {
      int cr = *next == '\r';

      *next++ = 0;
      if (cr && *next == '\n') next++;
    } else {
      next = NULL;
    }
    if (is_stop(line)) break;
    *lines = xrealloc(*lines, (n + 1) * sizeof(**lines));
    (*lines)[n++] = line;
  }
  return n;
}

/* "<pid>:", then each command of r, one by one. The first failure ends
 * them, as in jcmd. */
static int run(struct jvm *v, const struct request *r)
{
  char *text, **lines;
  size_t n;
  int rc = 0, said = 0;

  if (r->head_first) head(v->pid, &said);
  if (r->counters) return perf_counters(v, &said);
  if (r->out) return heap_dump(v, r, &said);
  n = lines_of(r, &text, &lines);
  for (size_t i = 0; i < n && !rc; i++) rc = jcmd_line(v, r, lines[i], &said);
  free(lines);
  free(text);
  return rc;
}

/* ---- a fan-out: every JVM at once ------------------------------------- */

/* One JVM of a fan-out: its commands one after another, as run sends
 * them, each round of them sent to every JVM still going at once
 * (core/attach's attach_ask_all). */
struct fan {
  struct jvm j;
  int open_rc;    /* jvm_open_row's: not opened (err says why) */
  int rc;         /* the attach error that ended it, or 0 */
  int done;       /* nothing more to send */
  char **replies; /* one a command answered */
  size_t nreplies;
  char err[512];
};

/* What f got, as run prints it. */
static int fan_print(struct fan *f, const struct request *r)
{
  int said = 0, rc = 0;

  if (f->open_rc) {
    error_msg("%s", f->err);
    return 1;
  }
  if (r->head_first) head(f->j.pid, &said);
  for (size_t i = 0; i < f->nreplies && !rc; i++) {
    head(f->j.pid, &said);
    rc = jdk_print_reply(f->j.pid, f->replies[i],
                         "Command executed successfully");
  }
  if (f->rc) {
    error_msg("%s", f->err);
    rc = 1;
  }
  fflush(stdout);
  return rc;
}

/* One line on stderr: which of the n JVMs target named answered, which
 * did not (timed out) and which failed otherwise. */
static void fan_say(const char *target, const struct vm *v, const struct fan *f,
                    size_t n, int bound_ms)
{
  struct buf b = {0}, late = {0}, bad = {0};
  size_t ok = 0;

  buf_adds(&b, "'");
  term_escape(&b, target, strlen(target), 0);
  buf_printf(&b, "' names %zu JVMs: answered:", n);
  for (size_t i = 0; i < n; i++) {
    if (f[i].open_rc || (f[i].rc && f[i].rc != ATTACH_TIMEOUT)) {
      buf_printf(&bad, " %d", v[i].pid);
    } else if (f[i].rc) {
      buf_printf(&late, " %d", v[i].pid);
    } else {
      buf_printf(&b, " %d", v[i].pid);
      ok++;
    }
  }
  if (!ok) buf_adds(&b, " none");
  if (late.len) buf_printf(&b, "; no answer within %d ms:%s", bound_ms, late.p);
  if (bad.len) buf_printf(&b, "; failed:%s", bad.p);
  info_msg("%s", b.p);
  buf_free(&b);
  buf_free(&late);
  buf_free(&bad);
}

/* r to every JVM of v at once, a command a round: 0, or 1 when one
 * failed. said: the line on stderr also when every JVM answered. */
static int fan_out(struct vm *v, size_t n, const struct request *r, int said)
{
  struct fan *f = xmalloc(n * sizeof(*f));
  const struct jvm **js = xmalloc(n * sizeof(*js));
  struct attach_answer *ans = xmalloc(n * sizeof(*ans));
  char *text, **lines;
  size_t nl = lines_of(r, &text, &lines);
  int rc = 0, quiet = 1;

  memset(f, 0, n * sizeof(*f));
  for (size_t i = 0; i < n; i++) {
    f[i].open_rc = jvm_open_row(&f[i].j, &v[i], f[i].err, sizeof(f[i].err));
    f[i].done = f[i].open_rc != 0;
  }
  for (size_t k = 0; k < nl; k++) {
    const char *args[3] = {lines[k], NULL, NULL}, *body;
    size_t going = 0;

    for (size_t i = 0; i < n; i++) {
      js[i] = f[i].done ? NULL : &f[i].j;
      going += !f[i].done;
    }
    if (!going) break;
    attach_ask_all(js, n, "jcmd", args, r->timeout_ms, r->fan_reply_ms, ans);
    for (size_t i = 0; i < n; i++) {
      if (!js[i]) continue;
      if ((f[i].rc = ans[i].rc)) {
        snprintf(f[i].err, sizeof(f[i].err), "%s", ans[i].err);
        f[i].done = 1;
        continue;
      }
      f[i].replies =
          xrealloc(f[i].replies, (f[i].nreplies + 1) * sizeof(char *));
      f[i].replies[f[i].nreplies++] = ans[i].reply;
      /* the first failure ends them, as run */
      if (attach_status(ans[i].reply, &body)) f[i].done = 1;
    }
  }
  for (size_t i = 0; i < n; i++) {
    rc |= fan_print(&f[i], r);
    quiet &= !f[i].open_rc && !f[i].rc;
  }
  if (said || !quiet)
    fan_say(r->target, v, f, n,
            r->fan_reply_ms ? r->fan_reply_ms : r->timeout_ms);
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < f[i].nreplies; k++) free(f[i].replies[k]);
    free(f[i].replies);
    jvm_close(&f[i].j);
  }
  free(lines);
  free(text);
  free(ans);
  free(js);
  free(f);
  return rc;
}

/* The words after the target, as jcmd reads them: "-f FILE" (last) takes
 * the commands from FILE, PerfCounter.print anywhere prints the counters,
 * the other words are joined by spaces, none means "help". Returns 0, or
 * -1 with jcmd's message in err. */
static int command_words(int argc, char **argv, struct request *r,
                         struct buf *err)
{
  struct buf line = {0};
  size_t len;

  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-f")) {
      if (i + 1 == argc) {
        buf_adds(err, "No file specified for parameter -f");
      } else if (i + 2 < argc) {
        buf_adds(err, "Options after -f are not allowed");
      } else if (read_file(AT_FDCWD, argv[i + 1], 0, 16 << 20, &r->text,
                           &len)) {
        buf_printf(err,
                   "Could not read from file specified with -f "
                   "option: %s",
                   argv[i + 1]);
      } else {
        r->from_file = 1;
      }
      buf_free(&line);
      return err->len ? -1 : 0;
    }
    if (!strcmp(argv[i], "PerfCounter.print"))
      r->counters = 1;
    else
      buf_printf(&line, "%s%s", line.len ? " " : "", argv[i]);
  }
  if (!line.len) buf_adds(&line, "help");
  r->text = xstrdup(line.p);
  buf_free(&line);
  return 0;
}

/* 1 when target is jcmd's "every JVM": 0 (any number of zeros) or "". */
static int every_jvm(const char *target)
{
  return !target[strspn(target, "0")];
}

/* r to the JVMs its target names: one at a time, or (several, or every
 * JVM; an attach request to send) all at once. said: a fan-out says on
 * stderr which answered also when all did (jvmtool jcmd; the link only
 * when one did not). */
static int run_all(const struct request *r, int said)
{
  struct vm *v;
  size_t n;
  int rc = 0;

  if (targets(r->target, &v, &n)) return 1;
  if (r->out && n > 1) { /* resolved once: the dump of one */
    char err[1024];

    vm_names(r->target, v, n, err, sizeof(err));
    error_msg("%s (--out-file takes the dump of one)", err);
    vm_list_free(v, n);
    return 1;
  }
  if ((n > 1 || every_jvm(r->target)) && !r->counters && !r->out) {
    rc = fan_out(v, n, r, said);
    vm_list_free(v, n);
    return rc;
  }
  for (size_t i = 0; i < n; i++) {
    struct jvm j;
    char err[256];
    int e = jvm_open_row(&j, &v[i], err, sizeof(err));

    if (e) error_msg("%s", err);
    rc |= e ? 1 : run(&j, r);
    jvm_close(&j);
  }
  vm_list_free(v, n);
  return rc;
}

/* jcmd's own command line. */
int jcmd_link_main(int argc, char **argv)
{
  struct request r = {.head_first = 1};
  struct buf err = {0};
  int rc;

  if ((argc = jdk_args(argc, argv, NULL)) < 0) return 1;
  if (argc < 2 || !strcmp(argv[1], "-l")) return list();
  if (jdk_is_help(argv[1])) {
    fputs(jcmd_usage, stdout);
    return 0;
  }
  if (!*argv[1] || argv[1][0] == '-') {
    fprintf(stderr, "Invalid pid '%s' specified\n", argv[1]);
    return 1;
  }
  r.target = argv[1];
  r.timeout_ms = JDK_TIMEOUT_MS;
  r.reply_ms = JDK_REPLY_MS;
  r.fan_reply_ms = JDK_FAN_REPLY_MS;
  if (command_words(argc - 2, argv + 2, &r, &err)) {
    fputs(jcmd_usage, stdout);
    fflush(stdout);
    fprintf(stderr, "Error parsing arguments: %s\n\n", err.p);
    buf_free(&err);
    return 1;
  }
  rc = run_all(&r, 0);
  free(r.text);
  return rc;
}

/* --out-file takes GC.heap_dump and its options, no file of its own (and
 * one JVM: run_all). Returns -1 to go on, or the exit status after a
 * message. */
static int out_file_words(const struct request *r)
{
  const char *w = r->text;

  if (r->from_file || r->counters || strncmp(w, "GC.heap_dump", 12) ||
      (w[12] && w[12] != ' '))
    return usage_error("--out-file goes with GC.heap_dump, its options and "
                       "no file (FILE is the file)");
  for (w += 12; *w; w += strcspn(w, " "))
    if (*(w += strspn(w, " ")) && *w != '-')
      return usage_error("GC.heap_dump's file is --out-file's FILE: give "
                         "only its options");
  if (!*r->out || !strcmp(r->out, "-") || strpbrk(r->out, " \t\"'"))
    return usage_error("--out-file takes a file name without blanks or "
                       "quotes");
  return -1;
}

int jcmd_main(int argc, char **argv)
{
  struct request r = {0};
  struct args a;
  struct buf err = {0};
  int rc;

  if ((rc = opt_parse(opt_rows, opt_usage, OPTS_IN_ORDER, argc, argv, &a)) >= 0)
    return rc;
  if (a.count[OPT_list] || !a.argc) return list();
  r.target = a.argv[0];
  r.timeout_ms = (int)(a.num[OPT_timeout] / 1000000);
  if (command_words(a.argc - 1, a.argv + 1, &r, &err)) {
    rc = usage_error("%s", err.p);
    buf_free(&err);
    return rc;
  }
  if ((r.out = a.val[OPT_out_file]) && (rc = out_file_words(&r)) >= 0) {
    free(r.text);
    return rc;
  }
  rc = run_all(&r, 1);
  free(r.text);
  return rc;
}
