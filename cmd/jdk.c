/* jdk.c - what the JDK tools do alike, for the drop-in links
 *
 * The launcher's -J options and help words, and the tools' words when a
 * target is bad, not there or refuses (cmd/jdk.h). Facts from JDK 17's
 * tools run beside the links (test/dropins.test, test/jdk_links.test):
 * a bare "-J" is the launcher's error and exit 1 before the tool runs; a
 * target that is empty or starts with "-" is an IllegalArgumentException
 * (where vm_find would take "" as a part of every main class).
 */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "core/jvm.h"
#include "core/vm.h"
#include "cmd/jdk.h"

/* What the JDK tools print for an exception they do not catch: its line,
 * then a stack trace (jvmtool prints the line only). */
#define EXCEPTION "Exception in thread \"main\" "

int jdk_args(int argc, char **argv, const char **user_home)
{
  int k = 1;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-J")) {
      fputs("Error: The -J option should not be followed by a space.\n",
            stderr);
      return -1;
    }
    if (user_home && starts_with(argv[i], "-J-Duser.home="))
      *user_home = argv[i] + 14;
    if (!starts_with(argv[i], "-J")) argv[k++] = argv[i];
  }
  argv[k] = NULL;
  return k;
}

int jdk_is_help(const char *s)
{
  return !strcmp(s, "-h") || !strcmp(s, "-help") || !strcmp(s, "--help") ||
         !strcmp(s, "-?");
}

int jdk_bad_target(const char *target)
{
  if (*target && *target != '-') return 0;
  fputs(EXCEPTION "java.lang.IllegalArgumentException: ", stderr);
  if (*target)
    fprintf(stderr, "Unrecognized %s\n", target);
  else
    fputs("Pid string is invalid\n", stderr);
  return 1;
}

void jdk_none(const char *target, int rc, const char *err)
{
  if (rc)
    error_msg("%s", err);
  else
    fprintf(stderr, "Could not find any processes matching : '%s'\n", target);
}

int jdk_find(const char *target, struct vm **v, size_t *n)
{
  char err[512];
  int rc;

  *v = NULL;
  *n = 0;
  if (jdk_bad_target(target)) return 1;
  if (!(rc = vm_find(target, v, n, err, sizeof(err))) && *n) return 0;
  jdk_none(target, rc, err);
  vm_list_free(*v, *n);
  *v = NULL;
  *n = 0;
  return 1;
}

void jdk_refusal(int pid, int why, const char *err)
{
  if (why == ATTACH_OFF)
    fprintf(stderr, "%d: The VM does not support the attach mechanism\n", pid);
  else if (why == ATTACH_NOPROC)
    fprintf(stderr, "%d: No such process\n", pid);
  else
    fprintf(stderr, "%d: %s\n", pid, err);
}

int jdk_open(struct jvm *j, struct vm *row)
{
  char err[256];
  int rc = jvm_open_row(j, row, err, sizeof(err));

  if (rc)
    jdk_refusal(row->pid, rc == -ESRCH ? ATTACH_NOPROC : ATTACH_PERM, err);
  return rc ? -1 : 0;
}

int jdk_ask(const struct jvm *j, const char *cmd, const char *const args[3],
            char **reply, char *err, size_t errlen)
{
  return attach_ask_long(j, cmd, args, JDK_TIMEOUT_MS, JDK_REPLY_MS, reply, err,
                         errlen);
}

int jdk_print_reply(int pid, const char *reply, const char *empty)
{
  const char *body;
  int status = attach_status(reply, &body);
  size_t n = strlen(body);

  if (status == 0 && n)
    term_write(stdout, body, n, 1);
  else if (status == 0 && empty)
    puts(empty);
  else if (n) {
    term_write(stderr, body, n, 1);
    if (body[n - 1] != '\n') fputc('\n', stderr);
  } else if (status)
    error_msg("pid %d answered status %d", pid, status);
  return status != 0;
}
