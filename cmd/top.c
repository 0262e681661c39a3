/* top.c - which JVM, which thread, which stack is burning the CPU, live
 *
 * The node view: every JVM this user sees (core/vm's list, containers and
 * other users too as root), one line each, refreshed every -d: CPU % over
 * the interval from /proc/<pid>/stat (all threads), RSS, threads and
 * uptime from /proc, heap, GC time % and allocation rate from PerfData
 * (core/heap). It never attaches. A pid or a main class opens one JVM's
 * threads (cmd/top_jvm.c). Like top -b -n, -b prints plain refreshes and
 * -n ends them; on a terminal without -b, a full-screen display
 * (cmd/top_tty.c). The first refresh comes one interval after the start:
 * every CPU % is over a whole interval, never since boot.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/top.h"
#include "core/vm.h"

#define OPTS_FILE "specs/top.opts"
#include "core/opt_table.h"

/* Batch and JSON: a refresh every delay, count of them (0: until a stop
 * signal). */
static int batch(struct top_node *node, struct top_jvm *j, enum top_sort by,
                 int json, int width, uint64_t delay, long long count)
{
  struct buf b = {0};
  uint64_t next = top_now_ns();

  for (long long i = 0; !count || i < count; i++) {
    next += delay;
    while (!jt_stop_signal && top_now_ns() < next) top_wait(next, -1);
    if (jt_stop_signal) break;
    b.len = 0;
    if (j) {
      if (top_jvm_read(j)) {
        error_msg("pid %d: the process ended", j->pid);
        break;
      }
      if (json)
        top_jvm_json(j, &b);
      else
        top_jvm_text(j, &b, 0, width, term_escaping(-1), -1);
    } else {
      top_node_read(node);
      top_node_sort(node, by);
      if (json)
        top_node_json(node, "node", &b);
      else
        top_node_text(node, &b, 0, width, term_escaping(-1), -1);
    }
    if (!json && i) fputc('\n', stdout);
    fwrite(b.p, 1, b.len, stdout);
    if (fflush(stdout)) break;
  }
  buf_free(&b);
  return stop_status(jt_status);
}

/* The target: "all" or none (0, the node view), a pid, or a main class
 * (jcmd's matching): one match, or a pid, is opened into j->jvm (core/jvm:
 * verified once; a process that is no JVM shows its threads and is sent
 * nothing), several are a node view of them (*only). Returns the pid, 0,
 * or -1 after a message. */
static int target(const char *s, struct top_jvm *j, int **only, size_t *nonly)
{
  struct vm *v;
  char err[256];
  size_t n;
  int pid;

  *only = NULL;
  *nonly = 0;
  if (!s || !strcmp(s, "all")) return 0;
  if (!parse_pid(s, &pid)) {
    if (top_jvm_open(j, pid, NULL, err, sizeof(err))) {
      error_msg("%s", err);
      return -1;
    }
    return pid;
  }
  if (vm_find(s, &v, &n, err, sizeof(err))) {
    error_msg("%s", err);
    return -1;
  }
  if (n == 0) error_msg("no JVM's main class matches '%s'", s);
  if (n == 1) {
    pid = v[0].pid;
    if (jvm_open_row(&j->jvm, &v[0], err, sizeof(err))) {
      error_msg("%s", err);
      n = 0;
    } else {
      j->opened = 1;
    }
  }
  if (n > 1) {
    *only = xmalloc(n * sizeof(**only));
    for (size_t i = 0; i < n; i++) (*only)[i] = v[i].pid;
    *nonly = n;
    pid = 0;
  }
  vm_list_free(v, n);
  return n ? pid : -1;
}

int top_main(int argc, char **argv)
{
  struct args a;
  struct top_node node = {0};
  struct top_jvm j = {0};
  int rc, pid, *only;
  size_t nonly;
  uint64_t delay;
  enum top_sort by;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc > 1) return usage_error("unexpected argument '%s'", a.argv[1]);
  if ((pid = target(a.argc ? a.argv[0] : NULL, &j, &only, &nonly)) < 0) {
    top_jvm_free(&j);
    return 1;
  }
  node.only = only;
  node.nonly = nonly;
  delay = (uint64_t)a.num[OPT_delay];
  by = (enum top_sort)a.word[OPT_sort];
  stop_signals(1);
  j.pid = pid;
  j.stacks = (int)a.num[OPT_stacks];
  j.alloc = a.count[OPT_alloc] > 0;
  j.dump_every_ns = (uint64_t)a.num[OPT_dump_every];
  if (!a.count[OPT_batch] && !a.count[OPT_wide] && !a.count[OPT_json] &&
      isatty(0) && isatty(1))
    rc = top_tty(&node, &j, by, delay, a.num[OPT_count]);
  else {
    if (pid)
      top_jvm_read(&j); /* the baseline of the first interval */
    else
      top_node_read(&node);
    rc = batch(&node, pid ? &j : NULL, by, a.count[OPT_json] > 0,
               a.count[OPT_wide] ? 0 : -TOP_BATCH_WIDTH, delay,
               a.num[OPT_count]);
  }
  top_jvm_free(&j);
  top_node_free(&node);
  free(only);
  return rc;
}
