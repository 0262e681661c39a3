/* jcmd.c - send a diagnostic command to a JVM, like jcmd, without a JDK
 *
 * "<pid>:" and then the JVM's reply, as jcmd prints them; a failure's text
 * goes to stderr and the exit status is 1. The target is a pid, or, as in
 * jcmd, a part of the main class (every JVM whose sun.rt.javaCommand
 * contains it). PerfCounter.print is answered from the PerfData file, as
 * jcmd itself does. Deviations: no -f file; errors are one line, not a Java
 * stack trace; jvmtool never lists itself in -l.
 */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "core/format.h"
#include "core/perfdata.h"
#include "core/vm.h"

#define OPTS_FILE "specs/jcmd.opts"
#include "core/opt_table.h"

/* The JVM's sun.rt.javaCommand, or "" when it cannot be read. */
static void java_command(const struct vm *v, struct buf *b)
{
  struct perfdata pd;
  const struct pd_counter *c;
  const char *s;
  size_t n;

  b->len = 0;
  buf_add(b, "", 0);
  if (vm_open(v, &pd)) return;
  if ((c = pd_find(&pd, "sun.rt.javaCommand"))) {
    n = pd_string(&pd, c, &s);
    out_java_text(b, s, n, fmt_locale_utf8());
  }
  pd_close(&pd);
}

static int list(void)
{
  struct vm *vms;
  struct buf cmd = {0};
  size_t n;

  if (vm_list(&vms, &n)) return 1;
  for (size_t i = 0; i < n; i++) {
    java_command(&vms[i], &cmd);
    printf("%d %s\n", vms[i].pid, cmd.p);
  }
  buf_free(&cmd);
  vm_list_free(vms, n);
  return 0;
}

static int perf_counters(int pid)
{
  struct vm v;
  struct perfdata pd;
  struct buf out = {0};
  char err[256], arg[16];

  snprintf(arg, sizeof(arg), "%d", pid);
  if (vm_resolve(arg, &v, err, sizeof(err))) {
    error_msg("pid %d: %s", pid, err);
    return 1;
  }
  if (vm_open(&v, &pd)) {
    error_msg("cannot read '%s': %s", v.path, pd.err);
    vm_free(&v);
    return 1;
  }
  for (size_t i = 0; i < pd.n; i++)
    pd_snap_line(&pd, pd.counters[i], 0, fmt_locale_utf8(), &out);
  fwrite(out.p, 1, out.len, stdout);
  buf_free(&out);
  pd_close(&pd);
  vm_free(&v);
  return 0;
}

/* One command to one JVM: "<pid>:", then the reply. */
static int run(int pid, const char *line, int timeout_ms)
{
  struct attach_target t;
  const char *args[3] = {line, NULL, NULL}, *body;
  char *reply, err[512];
  int status;

  printf("%d:\n", pid);
  fflush(stdout);
  if (starts_with(line, "PerfCounter.print")) return perf_counters(pid);
  if (attach_target(&t, pid)) {
    error_msg("no process %d", pid);
    return 1;
  }
  if (attach_send(&t, "jcmd", args, timeout_ms, &reply, err, sizeof(err))) {
    error_msg("%s", err);
    return 1;
  }
  status = attach_status(reply, &body);
  if (status == 0) fputs(body, stdout);
  else if (*body) fprintf(stderr, "%s%s", body,
                          body[strlen(body) - 1] == '\n' ? "" : "\n");
  else error_msg("pid %d answered status %d", pid, status);
  free(reply);
  return status != 0;
}

/* The JVMs a target names: a pid, or every JVM whose command contains it. */
static int targets(const char *target, int **pids)
{
  struct vm *vms;
  struct buf cmd = {0};
  size_t n;
  int pid, count = 0;

  *pids = NULL;
  if (!parse_pid(target, &pid)) {
    *pids = xmalloc(sizeof(int));
    (*pids)[0] = pid;
    return 1;
  }
  if (vm_list(&vms, &n)) return 0;
  *pids = xmalloc((n + 1) * sizeof(int));
  for (size_t i = 0; i < n; i++) {
    java_command(&vms[i], &cmd);
    if (*cmd.p && strstr(cmd.p, target)) (*pids)[count++] = vms[i].pid;
  }
  buf_free(&cmd);
  vm_list_free(vms, n);
  return count;
}

int jcmd_main(int argc, char **argv)
{
  struct args a;
  struct buf line = {0};
  long long secs = 10;
  int rc, n, *pids;

  /* jcmd's own help words, when run as "jcmd" */
  if (jt_alias && argc == 2 && (!strcmp(argv[1], "-h") ||
                                !strcmp(argv[1], "-help"))) {
    opt_help(opt_rows, opt_usage, stdout);
    return 0;
  }
  if ((rc = opt_parse(opt_rows, opt_usage, OPTS_IN_ORDER, argc, argv, &a)) >= 0)
    return rc;
  if (a.val[OPT_timeout] && parse_long(a.val[OPT_timeout], 1, 86400, &secs))
    return usage_error("--timeout takes seconds from 1 to 86400");
  if (a.count[OPT_list] || !a.argc) {
    return list();
  }
  /* jcmd joins the words of the command into one line for the JVM. */
  for (int i = 1; i < a.argc; i++)
    buf_printf(&line, "%s%s", i > 1 ? " " : "", a.argv[i]);
  if (a.argc < 2) buf_adds(&line, "help");
  n = targets(a.argv[0], &pids);
  if (!n) {
    if (parse_pid(a.argv[0], &rc)) {
      fprintf(stderr, "Could not find any processes matching : '%s'\n",
              a.argv[0]);
    }
    rc = 1;
  } else {
    rc = 0;
    for (int i = 0; i < n; i++) rc |= run(pids[i], line.p, (int)secs * 1000);
  }
  free(pids);
  buf_free(&line);
  return rc;
}
