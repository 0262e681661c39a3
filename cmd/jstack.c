/* jstack.c - the jstack and jmap -histo links, through jcmd's attach path
 *
 * Run as "jstack": jstack 17's command line ([-l] [-e] <pid|main class>),
 * help text and argument messages; it sends jstack's own "threaddump"
 * request (docs/attach-agent.md §1.8) and prints the dump as jstack does,
 * without jcmd's "<pid>:" line. Run as "jmap": -histo[:live|all] only, as
 * jmap's "inspectheap". Targets and the reply's printing are
 * cmd/jcmd.c's, the attach-off refusal core/attach's. Deviations: a
 * failure to attach is one line, "<pid>: <why>", in jvmtool's words;
 * jmap's other modes are not there.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/jcmd.h"
#include "jstack_usage.inc" /* jstack_usage[]: jstack's help, byte for byte */

/* What jstack says of the options that need the serviceability agent. */
#define JHSDB "Cannot connect to core dump or remote debug server. Use " \
              "jhsdb jstack instead\n"

/* jstack's and jmap's request to each JVM the target names, their reply
 * as they print it: no "<pid>:" line, but "Pid:<pid>" before each when
 * there are several; errors as "<pid>: <why>". */
static int jdk_request(const char *target, const char *cmd,
                       const char *const args[3], int timeout_ms)
{
  int n, rc = 0, *pids;

  if (!(n = jcmd_targets(target, &pids)))
    fprintf(stderr, "Could not find any processes matching : '%s'\n", target);
  for (int i = 0; i < n; i++) {
    char *reply, err[512];

    if (n > 1) printf("Pid:%d\n", pids[i]);
    fflush(stdout);
    switch (jcmd_ask(pids[i], cmd, args, timeout_ms, &reply, err,
                     sizeof(err))) {
    case JCMD_SENT:
      rc |= jcmd_print_reply(pids[i], reply, NULL);
      free(reply);
      continue;
    case JCMD_ATTACH_OFF:
      fprintf(stderr, "%d: The VM does not support the attach mechanism\n",
              pids[i]);
      break;
    case JCMD_NO_PROCESS:
      fprintf(stderr, "%d: No such process\n", pids[i]);
      break;
    case JCMD_FAILED: fprintf(stderr, "%d: %s\n", pids[i], err); break;
    }
    rc = 1;
  }
  free(pids);
  return n > 0 ? rc : 1;
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

/* jmap -histo[:live|all] <pid>: jmap's "inspectheap" request ("-live" or
 * "-all", no file, the JVM's choice of threads); nothing else of jmap. */
int jmap_main(int argc, char **argv)
{
  const char *args[3] = {NULL, "", ""}, *opt;

  argc = jcmd_drop_j(argc, argv);
  opt = argc > 1 ? argv[1] : "";
  if (argc != 3 || (strcmp(opt, "-histo") && !starts_with(opt, "-histo:"))) {
    fputs("Usage:\n    jmap -histo[:live|all] <pid>\n        to connect to "
          "running process and print histogram of java object heap\n"
          "(jvmtool's jmap link knows only -histo)\n",
          stderr);
    return jcmd_is_help(opt) ? 0 : 1;
  }
  if (!(args[0] = histo_mode(opt))) return 1;
  return jdk_request(argv[2], "inspectheap", args, 60000);
}
