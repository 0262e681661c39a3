/* jinfo.c - the jinfo link: a JVM's flags and system properties
 *
 * The jinfo link (jinfo_link_main, a row of specs/dropins.def): jinfo 17's
 * command line, help text, output and exit codes, through the same attach
 * requests jinfo sends. Its options, what each sends and -flag NAME's
 * forms are rows of specs/jinfo.def: -flag NAME is "printflag NAME";
 * -flag +NAME, -NAME and NAME=VALUE are "setflag NAME 1|0|VALUE"; -flags
 * and -sysprops are the jcmd lines VM.flags and VM.system_properties under
 * a heading; no option prints both, then VM.command_line. Targets and the
 * "Pid:<pid>" line before each of several JVMs are jstack's.
 * Deviations: where jinfo throws, one line: the exception's first line
 * (no stack trace under it), jstack's "<pid>: <why>" for a failure to
 * attach.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/out.h"
#include "core/jvm.h"
#include "core/vm.h"
#include "cmd/jdk.h"
#include "jinfo_usage.inc" /* jinfo_usage[]: jinfo's help, byte for byte */

/* The rows of specs/jinfo.def, one kind at a time (the others' macros
 * empty). */
#define MODE(id, option, takes)
#define ASK(id, line, heading)
#define FLAG(form, request, value)

enum jinfo_mode {
#undef MODE
#define MODE(id, option, takes) MODE_##id,
#include "specs/jinfo.def"
#undef MODE
#define MODE(id, option, takes)
};

static const struct jinfo_opt {
  const char *option;
  int takes_name;
} jinfo_opts[] = {
#undef MODE
#define MODE(id, option, takes) {option, takes},
#include "specs/jinfo.def"
#undef MODE
#define MODE(id, option, takes)
};

static const struct jinfo_ask {
  enum jinfo_mode mode;
  const char *line, *heading;
} jinfo_asks[] = {
#undef ASK
#define ASK(id, line, heading) {MODE_##id, line, heading},
#include "specs/jinfo.def"
#undef ASK
#define ASK(id, line, heading)
};

enum flag_form { FORM_EQ, FORM_EMPTY, FORM_PLUS, FORM_MINUS, FORM_NAME };
static const struct jinfo_flag {
  enum flag_form form;
  const char *request, *value;
} jinfo_flags[] = {
#undef FLAG
#define FLAG(form, request, value) {FORM_##form, request, value},
#include "specs/jinfo.def"
};
#undef MODE
#undef ASK
#undef FLAG

/* What jinfo prints when the JVM answers a request with a failure. */
#define REFUSED                                                                \
  "Exception in thread \"main\" "                                              \
  "com.sun.tools.attach.AttachOperationFailedException: "

/* How long an answer is waited for once connected: the links' hour for
 * one JVM; for a main class of several, JDK_FAN_REPLY_MS each (they are
 * asked one after another, so a JVM that never answers costs the others
 * that, not an hour). */
static int reply_ms = JDK_REPLY_MS;

/* One request to v; its body on stdout under heading (NULL: none).
 * Returns 0, or 1 after jinfo's line on stderr. */
static int ask(const struct jvm *v, const char *cmd, const char *const args[3],
               const char *heading)
{
  char *reply, err[512];
  const char *body;
  size_t n;
  int why;

  if ((why = attach_ask_long(v, cmd, args, JDK_TIMEOUT_MS, reply_ms, &reply,
                             err, sizeof(err)))) {
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

/* The row of -flag's argument arg's form. */
static const struct jinfo_flag *flag_row(const char *arg)
{
  size_t i = 0;

  for (; i < sizeof(jinfo_flags) / sizeof(*jinfo_flags) - 1; i++) {
    const struct jinfo_flag *f = &jinfo_flags[i];

    if ((f->form == FORM_EQ && strchr(arg, '=')) ||
        (f->form == FORM_EMPTY && !*arg) ||
        (f->form == FORM_PLUS && *arg == '+') ||
        (f->form == FORM_MINUS && *arg == '-') || f->form == FORM_NAME)
      break;
  }
  return &jinfo_flags[i];
}

/* -flag's argument arg: its row's request with the name and value.
 * Returns 0, 1 after jinfo's line, or -1 after the line jinfo dies with. */
static int flag(const struct jvm *v, const char *arg)
{
  const struct jinfo_flag *f = flag_row(arg);
  const char *args[3] = {NULL, f->value, NULL};
  char *name = NULL;
  int rc;

  if (f->form == FORM_EMPTY) {
    fflush(stdout);
    fputs("Exception in thread \"main\" java.lang."
          "StringIndexOutOfBoundsException: String index out of range: 0\n",
          stderr);
    return -1;
  }
  if (f->form == FORM_EQ) {
    const char *eq = strchr(arg, '=');

    args[0] = name = xstrndup(arg, (size_t)(eq - arg));
    args[1] = eq + 1;
  } else {
    args[0] = arg + (f->form == FORM_PLUS || f->form == FORM_MINUS);
  }
  rc = ask(v, f->request, args, NULL);
  free(name);
  return rc;
}

/* Mode m's requests to v (-flag's: its NAME's row). Returns 0, 1, or -1
 * when jinfo would die there. */
static int one(const struct jvm *v, enum jinfo_mode m, const char *name)
{
  if (m == MODE_FLAG) return flag(v, name);
  for (size_t i = 0; i < sizeof(jinfo_asks) / sizeof(*jinfo_asks); i++) {
    const char *args[3] = {jinfo_asks[i].line, NULL, NULL};

    if (jinfo_asks[i].mode == m && ask(v, "jcmd", args, jinfo_asks[i].heading))
      return 1;
  }
  return 0;
}

static int usage(int rc)
{
  fputs(jinfo_usage, stderr);
  return rc;
}

/* jinfo's words: more non-option words than the form takes is refused
 * first; among the leading words that start with "-" a help word is help
 * (exit 0), the first option row ends them (-flag taking the next word,
 * whatever it is), the others are skipped; then exactly one target. */
int jinfo_link_main(int argc, char **argv)
{
  const char *name = NULL, *target;
  enum jinfo_mode m = MODE_ALL;
  struct vm *v;
  size_t n;
  int i, words = 0, most = 1, rc = 0;

  if ((argc = jdk_args(argc, argv, NULL)) < 0) return 1;
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
    if (jdk_is_help(argv[i])) return usage(0);
    for (int k = 0; k < (int)(sizeof(jinfo_opts) / sizeof(*jinfo_opts)); k++)
      if (jinfo_opts[k].option && !strcmp(argv[i], jinfo_opts[k].option))
        m = (enum jinfo_mode)k;
  }
  if (jinfo_opts[m].takes_name) {
    if (i == argc) return usage(1);
    name = argv[i++];
  }
  if (argc - i != 1) return usage(1);
  target = argv[i];
  if (jdk_find(target, &v, &n)) return 1;
  if (n > 1) reply_ms = JDK_FAN_REPLY_MS;
  for (size_t k = 0; k < n; k++) {
    struct jvm j;
    int e;

    if (n > 1) printf("Pid:%d\n", v[k].pid);
    if (jdk_open(&j, &v[k])) {
      rc = 1;
      continue;
    }
    e = one(&j, m, name);
    jvm_close(&j);
    rc |= e != 0;
    if (e < 0) break;
  }
  vm_list_free(v, n);
  return rc;
}
