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
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/format.h"
#include "core/out.h"
#include "core/perfdata.h"
#include "core/jvm.h"
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
    if (vm_attachable(&vms[i]) != 1) continue;
    vm_java_command(&vms[i], &cmd);
    printf("%d ", vms[i].pid);
    term_write(stdout, cmd.p, cmd.len, 0);
    putchar('\n');
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

  if ((rc = jdk_out_begin(&o, v, r->out,
                          strstr(r->text, " -gz") ? ".hprof.gz" : ".hprof"))) {
    errno_msg(rc, "cannot write '%s'", r->out);
    return 1;
  }
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

static int perf_counters(const struct jvm *j, int *said)
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

/* "<pid>:", then the command, or each line of -f's file (ended by \n, \r
 * or \r\n; the empty ones at its end dropped) until "stop", as jcmd sends
 * them: comments and blank lines too (the JVM skips them). The first
 * failure ends the file, as in jcmd. */
static int run(const struct jvm *v, const struct request *r)
{
  char *line, *next, *text, *end;
  int rc = 0, said = 0;

  if (r->head_first) head(v->pid, &said);
  if (r->counters) return perf_counters(v, &said);
  if (r->out) return heap_dump(v, r, &said);
  if (!r->from_file) return jcmd_line(v, r, r->text, &said);
  text = xstrdup(r->text);
  end = text + strlen(text);
  while (end > text && (end[-1] == '\n' || end[-1] == '\r')) *--end = 0;
  for (line = text; line && !rc; line = next) {
    next = line + strcspn(line, "\r\n");
    if (*next) {
      int cr = *next == '\r';

      *next++ = 0;
      if (cr && *next == '\n') next++;
    } else {
      next = NULL;
    }
    if (is_stop(line)) break;
    rc = jcmd_line(v, r, line, &said);
  }
  free(text);
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

static int run_all(const struct request *r)
{
  struct vm *v;
  size_t n;
  int rc = 0;

  if (targets(r->target, &v, &n)) return 1;
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
  if (command_words(argc - 2, argv + 2, &r, &err)) {
    fputs(jcmd_usage, stdout);
    fflush(stdout);
    fprintf(stderr, "Error parsing arguments: %s\n\n", err.p);
    buf_free(&err);
    return 1;
  }
  rc = run_all(&r);
  free(r.text);
  return rc;
}

/* --out-file takes GC.heap_dump and its options, no file of its own, and
 * one JVM. Returns -1 to go on, or the exit status after a message. */
static int out_file_words(const struct request *r)
{
  const char *w = r->text;
  struct vm *v;
  size_t n;

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
  if (targets(r->target, &v, &n)) return 1;
  vm_list_free(v, n);
  if (n > 1)
    error_msg("'%s' names %zu JVMs: --out-file takes the dump of one",
              r->target, n);
  return n > 1 ? 1 : -1;
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
  rc = run_all(&r);
  free(r.text);
  return rc;
}
