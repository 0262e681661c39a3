/* jstack.c - the jstack and jmap -histo links, through jcmd's attach path
 *
 * Run as "jstack": jstack 17's command line ([-l] [-e] <pid|main class>),
 * help text and argument messages; it sends jstack's own "threaddump"
 * request (docs/attach-agent.md §1.8) and prints the dump as jstack does,
 * without jcmd's "<pid>:" line. Run as "jmap": -histo[:live|all] only, as
 * jmap's "inspectheap", and -dump:... as jmap's "dumpheap": the file
 * lands at the path on this host, also for a JVM in a container or of
 * another user (cmd/jcmd_out.c). Targets and the reply's printing are
 * cmd/jcmd.c's, the attach-off refusal core/attach's. Deviations: a
 * failure to attach is one line, "<pid>: <why>", in jvmtool's words;
 * jmap's other modes are not there (one line says what is and where they
 * went).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/jvm.h"
#include "core/vm.h"
#include "cmd/jcmd.h"
#include "jstack_usage.inc" /* jstack_usage[]: jstack's help, byte for byte */

/* What jstack says of the options that need the serviceability agent. */
#define JHSDB "Cannot connect to core dump or remote debug server. Use " \
              "jhsdb jstack instead\n"

void jdk_refusal(int pid, int why, const char *err)
{
  if (why == ATTACH_OFF)
    fprintf(stderr, "%d: The VM does not support the attach mechanism\n", pid);
  else if (why == ATTACH_NOPROC)
    fprintf(stderr, "%d: No such process\n", pid);
  else
    fprintf(stderr, "%d: %s\n", pid, err);
}

int jdk_open(struct jvm *j, const struct vm *row)
{
  char err[256];
  int rc = jvm_open_row(j, row, err, sizeof(err));

  if (rc)
    jdk_refusal(row->pid, rc == -ESRCH ? ATTACH_NOPROC : ATTACH_PERM, err);
  return rc ? -1 : 0;
}

/* jstack's and jmap's request to each JVM the target names, their reply
 * as they print it: no "<pid>:" line, but "Pid:<pid>" before each when
 * there are several; errors as "<pid>: <why>". */
static int jdk_request(const char *target, const char *cmd,
                       const char *const args[3], int timeout_ms)
{
  struct vm *v;
  char err[512];
  size_t n;
  int rc;

  if ((rc = vm_find(target, &v, &n, err, sizeof(err))) || !n) {
    jdk_none(target, rc, err);
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    struct jvm j;
    char *reply;
    int why;

    if (n > 1) printf("Pid:%d\n", v[i].pid);
    fflush(stdout);
    if (jdk_open(&j, &v[i])) {
      rc = 1;
      continue;
    }
    why = attach_ask(&j, cmd, args, timeout_ms, &reply, err, sizeof(err));
    jvm_close(&j);
    if (!why) {
      rc |= jcmd_print_reply(v[i].pid, reply, NULL);
      free(reply);
      continue;
    }
    jdk_refusal(v[i].pid, why, err);
    rc = 1;
  }
  vm_list_free(v, n);
  return rc;
}

/* jstack [-l] [-e] <pid>: jstack's "threaddump" request, its flags as one
 * argument ("-e -l", "-e ", "-l"), the dump without a "<pid>:" line;
 * "Pid:<pid>" before each when the target names several JVMs. */
int jstack_main(int argc, char **argv)
{
  const char *target = NULL, *args[3] = {NULL, NULL, NULL};
  int locks = 0, extended = 0, bad = 0;

  argc = jcmd_drop_j(argc, argv);
  for (int i = 1; i < argc && !bad; i++) {
    const char *a = argv[i];

    if (jcmd_is_help(a)) {
      fputs(jstack_usage, stderr);
      return 0;
    }
    if (a[0] != '-') {
      if (target) {
        fputs("Error: More than one non-option argument\n" JHSDB, stderr);
        return 1;
      }
      target = a;
    } else if (target) {
      bad = 1;  /* options come before the pid */
    } else if (!strcmp(a, "-l")) {
      locks = 1;
    } else if (!strcmp(a, "-e")) {
      extended = 1;
    } else if (!strcmp(a, "-F") || !strcmp(a, "-m")) {
      fprintf(stderr, "Error: %s option used\n" JHSDB, a);
      return 1;
    } else {
      bad = 1;
    }
  }
  if (bad || !target) {
    fputs(jstack_usage, stderr);
    return 1;
  }
  args[0] = extended ? (locks ? "-e -l" : "-e ") : locks ? "-l" : "";
  return jdk_request(target, "threaddump", args, 10000);
}

/* jmap's -histo options: "live" wins over "all", the default. Returns
 * the request's argument, or NULL after jmap's message. */
static const char *histo_mode(const char *opt)
{
  const char *mode = "-all", *p = opt + strlen("-histo");

  if (*p == ':') p++;
  while (*p) {
    size_t n = strcspn(p, ",");

    if (n == 4 && !strncmp(p, "live", 4)) mode = "-live";
    else if (n != 3 || strncmp(p, "all", 3)) {
      fprintf(stderr, "Fail: invalid option: '%.*s'%s\n", (int)n, p,
              memchr(p, '=', n) ? " (jvmtool's jmap takes live or all)" : "");
      return NULL;
    }
    p += n + (p[n] == ',');
  }
  return mode;
}

/* jmap -dump's options, comma-separated: live, all (live wins), format=b,
 * file=F (the last one), gz=N (the JVM checks the level); empty ones are
 * skipped, as in jmap. opt is changed. Returns 0, or 1 after jmap's
 * "Fail:" line. */
static int dump_opts(char *opt, const char **file, const char **mode,
                     const char **gz)
{
  *file = NULL;
  *mode = "-all";
  *gz = "";
  for (char *p = opt, *next; *p; p = next) {
    size_t n = strcspn(p, ",");

    next = p + n + (p[n] == ',');
    p[n] = 0;
    if (!strcmp(p, "live"))
      *mode = "-live";
    else if (starts_with(p, "file=") && p[5])
      *file = p + 5;
    else if (starts_with(p, "gz="))
      *gz = p + 3;
    else if (*p && strcmp(p, "all") && strcmp(p, "format=b")) {
      fprintf(stderr, "Fail: invalid option%s: '%s'\n",
              !strcmp(p, "file=") ? " or no file name" : "", p);
      return 1;
    }
  }
  if (!*file) fputs("Fail: invalid option or no file name\n", stderr);
  return !*file;
}

/* jmap -dump:...: jmap's "dumpheap" request (path, -live or -all, gz
 * level) to the one JVM the target names; the file lands at the host path
 * (cmd/jcmd_out.c). jmap's lines, then one naming where a file taken out
 * of a container went. */
static int jmap_dump(const char *target, const char *file, const char *mode,
                     const char *gz)
{
  struct jcmd_out o;
  struct jvm j;
  const char *args[3] = {NULL, mode, gz};
  char *reply = NULL, err[512];
  struct vm *v;
  size_t n;
  int why, rc;

  if ((rc = vm_find(target, &v, &n, err, sizeof(err))) || !n)
    jdk_none(target, rc, err);
  else if (n > 1)
    error_msg("'%s' names %zu JVMs: a heap dump is of one (give its pid)",
              target, n);
  if (rc || n != 1) {
    vm_list_free(v, n);
    return 1;
  }
  if (jdk_open(&j, v)) {
    vm_list_free(v, n);
    return 1;
  }
  if ((rc = jcmd_out_begin(&o, &j, file, *gz ? ".hprof.gz" : ".hprof"))) {
    errno_msg(rc, "cannot write '%s'", file);
    rc = 1;
  } else {
    args[0] = o.jvm_path;
    why =
        attach_ask(&j, "dumpheap", args, 3600 * 1000, &reply, err, sizeof(err));
    if (!why)
      rc = jcmd_print_reply(v->pid, reply, NULL);
    else
      jdk_refusal(v->pid, why, err);
    fflush(stdout);
    rc = jcmd_out_end(&o, !rc && jcmd_out_written(reply));
    free(reply);
  }
  jvm_close(&j);
  vm_list_free(v, n);
  return rc;
}

/* What jvmtool's jmap link takes, and where jmap's other modes went. */
#define JMAP_TAKES                                                             \
  "the jmap link takes -histo[:live|all] <pid> and "                           \
  "-dump:[live,][format=b,]file=<file> <pid>"

static int jmap_other(const char *opt)
{
  if (!strcmp(opt, "-clstats"))
    error_msg("-clstats is not there: " JMAP_TAKES "; for class loader "
              "statistics: jvmtool jcmd <pid> VM.classloader_stats");
  else if (!strcmp(opt, "-finalizerinfo"))
    error_msg("-finalizerinfo is not there: " JMAP_TAKES "; for it: "
              "jvmtool jcmd <pid> GC.finalizer_info");
  else if (*opt)
    error_msg("'%s' is not there: " JMAP_TAKES, opt);
  else
    error_msg(JMAP_TAKES);
  return 1;
}

/* jmap -histo[:live|all] <pid>: jmap's "inspectheap" request ("-live" or
 * "-all", no file, the JVM's choice of threads); jmap -dump:...; nothing
 * else of jmap. */
int jmap_main(int argc, char **argv)
{
  const char *args[3] = {NULL, "", ""}, *opt, *file, *mode, *gz;

  argc = jcmd_drop_j(argc, argv);
  opt = argc > 1 ? argv[1] : "";
  if (jcmd_is_help(opt)) {
    fputs("Usage:\n    jmap -histo[:live|all] <pid>\n        to connect to "
          "running process and print histogram of java object heap\n"
          "    jmap -dump:[live,][format=b,]file=<file>[,gz=<level>] <pid>\n"
          "        to connect to running process and dump java heap to "
          "<file>, on this host\n",
          stderr);
    return 0;
  }
  if (argc > 3) {
    fputs("Error: More than one non-option argument\nCannot connect to core "
          "dump or remote debug server. Use jhsdb jmap instead\n",
          stderr);
    return 1;
  }
  if (argc == 3 && starts_with(opt, "-dump:")) {
    if (dump_opts(argv[1] + 6, &file, &mode, &gz)) return jmap_other("");
    return jmap_dump(argv[2], file, mode, gz);
  }
  if (argc != 3 || (strcmp(opt, "-histo") && !starts_with(opt, "-histo:")))
    return jmap_other(opt);
  if (!(args[0] = histo_mode(opt))) return 1;
  return jdk_request(argv[2], "inspectheap", args, 60000);
}
