/* jinfo.c - the jinfo link: a JVM's flags and system properties
 *
 * Run as "jinfo": jinfo 17's command line, help text, output and exit
 * codes, through the same attach requests jinfo sends (seen with strace on
 * JDK 17's jinfo): -flag NAME is "printflag NAME"; -flag +NAME, -NAME and
 * NAME=VALUE are "setflag NAME 1|0|VALUE" (split at the first "="); -flags
 * and -sysprops are the jcmd lines VM.flags and VM.system_properties under
 * a heading; no option prints both, then VM.command_line. Targets and the
 * "Pid:<pid>" line before each of several JVMs are jstack's.
 * Deviations: where jinfo throws, one line: the exception's first line for
 * what the JVM refused (no stack trace under it), jstack's "<pid>: <why>"
 * for a failure to attach; an empty flag name is sent (jinfo crashes).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/out.h"
#include "core/jvm.h"
#include "core/vm.h"
#include "cmd/jcmd.h"
#include "jinfo_usage.inc" /* jinfo_usage[]: jinfo's help, byte for byte */

enum jinfo_mode { MODE_ALL, MODE_FLAG, MODE_FLAGS, MODE_SYSPROPS };

/* What jinfo prints when the JVM answers a request with a failure. */
#define REFUSED                                                                \
  "Exception in thread \"main\" "                                              \
  "com.sun.tools.attach.AttachOperationFailedException: "

/* One request to v; its body on stdout under heading (NULL: none).
 * Returns 0, or 1 after jinfo's line on stderr. */
static int ask(const struct jvm *v, const char *cmd, const char *const args[3],
               const char *heading)
{
  char *reply, err[512];
  const char *body;
  size_t n;
  int why;

  if ((why = attach_ask(v, cmd, args, 10000, &reply, err, sizeof(err)))) {
    jdk_refusal(v->pid, why, err);
    return 1;
  }
  n = strlen(body = "");
  if (attach_status(reply, &body)) {
    n = strlen(body);
    while (n && body[n - 1] == '\n') n--;
    fflush(stdout);
    fputs(REFUSED, stderr);
    term_write(stderr, body, n, 1);
    fputc('\n', stderr);
    free(reply);
    return 1;
  }
  if (heading) fputs(heading, stdout);
  term_write(stdout, body, strlen(body), 1);
  free(reply);
  return 0;
}

static int jcmd_line(const struct jvm *v, const char *line, const char *heading)
{
  const char *args[3] = {line, NULL, NULL};

  return ask(v, "jcmd", args, heading);
}

/* -flag's argument: NAME=VALUE, +NAME, -NAME set it; NAME prints it. */
static int flag(const struct jvm *v, const char *arg)
{
  const char *args[3] = {NULL, NULL, NULL}, *eq = strchr(arg, '=');
  char *name = NULL;
  int rc;

  if (eq) {
    name = xstrndup(arg, (size_t)(eq - arg));
    args[0] = name;
    args[1] = eq + 1;
  } else if (*arg == '+' || *arg == '-') {
    args[0] = arg + 1;
    args[1] = *arg == '+' ? "1" : "0";
  } else {
    args[0] = arg;
    rc = ask(v, "printflag", args, NULL);
    return rc;
  }
  rc = ask(v, "setflag", args, NULL);
  free(name);
  return rc;
}

static int one(const struct jvm *v, enum jinfo_mode m, const char *name)
{
  switch (m) {
  case MODE_FLAG:
    return flag(v, name);
  case MODE_FLAGS:
    return jcmd_line(v, "VM.flags", "VM Flags:\n");
  case MODE_SYSPROPS:
    return jcmd_line(v, "VM.system_properties", "Java System Properties:\n");
  case MODE_ALL:
    break;
  }
  return jcmd_line(v, "VM.system_properties", "Java System Properties:\n") ||
         jcmd_line(v, "VM.flags", "\nVM Flags:\n") ||
         jcmd_line(v, "VM.command_line", "\n");
}

static int usage(int rc)
{
  fputs(jinfo_usage, stderr);
  return rc;
}

/* jinfo's words: more non-option words than the form takes is refused
 * first; leading words that start with "-" and are no option of jinfo's
 * are skipped; then the option, and exactly its operands. */
int jinfo_main(int argc, char **argv)
{
  const char *name = NULL, *target;
  enum jinfo_mode m = MODE_ALL;
  struct vm *v;
  char err[256];
  size_t n;
  int i, words = 0, most = 1, rc;

  argc = jcmd_drop_j(argc, argv);
  for (i = 1; i < argc; i++) {
    words += argv[i][0] != '-';
    if (!strcmp(argv[i], "-flag")) most = 2;
  }
  if (argc < 2) return usage(1);
  if (words > most) {
    fprintf(stderr,
            "Error: More than %d non-option argument\nCannot connect "
            "to core dump or remote debug server. Use jhsdb jinfo instead\n",
            most);
    return 1;
  }
  for (i = 1; i < argc && argv[i][0] == '-' && m == MODE_ALL; i++) {
    if (jcmd_is_help(argv[i])) return usage(0);
    if (!strcmp(argv[i], "-flag"))
      m = MODE_FLAG;
    else if (!strcmp(argv[i], "-flags"))
      m = MODE_FLAGS;
    else if (!strcmp(argv[i], "-sysprops"))
      m = MODE_SYSPROPS;
  }
  if (argc - i != (m == MODE_FLAG ? 2 : 1)) return usage(1);
  if (m == MODE_FLAG) name = argv[i++];
  target = argv[i];
  if (!*target) {
    fputs("Exception in thread \"main\" java.lang.IllegalArgumentException: "
          "Pid string is invalid\n",
          stderr);
    return 1;
  }
  if ((rc = vm_find(target, &v, &n, err, sizeof(err))) || !n) {
    jdk_none(target, rc, err);
    return 1;
  }
  for (size_t k = 0; k < n; k++) {
    struct jvm j;

    if (n > 1) printf("Pid:%d\n", v[k].pid);
    if (jdk_open(&j, &v[k])) {
      rc = 1;
      continue;
    }
    rc |= one(&j, m, name);
    jvm_close(&j);
  }
  vm_list_free(v, n);
  return rc;
}
