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

/* One request of jinfo's: what it sends and the heading it prints. */
struct jinfo_req {
  const char *cmd, *args[3], *heading;
};

/* Print v's answer a to a request: its body under heading on stdout.
 * Returns 0, or 1 after jinfo's line on stderr. */
static int show(int pid, const struct attach_answer *a, const char *heading)
{
  const char *body;
  size_t n;

  if (a->rc) {
    jdk_refusal(pid, a->rc, a->err);
    return 1;
  }
  if (attach_status(a->reply, &body)) {
    n = strlen(body);
    while (n && body[n - 1] == '\n') n--;
    fflush(stdout);
    fputs(REFUSED, stderr);
    term_write(stderr, body, n, 1);
    fputc('\n', stderr);
    return 1;
  }
  if (heading) fputs(heading, stdout);
  term_write(stdout, body, strlen(body), 1);
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

/* Mode m's requests into r (-flag's: its NAME's row, the name in *held,
 * freed by the caller). Returns how many, or -1 when jinfo dies there:
 * -flag "". */
static int requests(enum jinfo_mode m, const char *name, struct jinfo_req *r,
                    size_t max, char **held)
{
  size_t k = 0;

  if (m == MODE_FLAG) {
    const struct jinfo_flag *f = flag_row(name);

    if (f->form == FORM_EMPTY) return -1;
    r[0] = (struct jinfo_req){f->request, {NULL, f->value, NULL}, NULL};
    if (f->form == FORM_EQ) {
      const char *eq = strchr(name, '=');

      r[0].args[0] = *held = xstrndup(name, (size_t)(eq - name));
      r[0].args[1] = eq + 1;
    } else {
      r[0].args[0] = name + (f->form == FORM_PLUS || f->form == FORM_MINUS);
    }
    return 1;
  }
  for (size_t i = 0; i < sizeof(jinfo_asks) / sizeof(*jinfo_asks); i++)
    if (jinfo_asks[i].mode == m && k < max)
      r[k++] = (struct jinfo_req){
          "jcmd", {jinfo_asks[i].line, NULL, NULL}, jinfo_asks[i].heading};
  return (int)k;
}

/* Ask the n JVMs v the nr requests r, each request to all of them at once
 * (attach_ask_all: a JVM that never answers delays no other), then print
 * each JVM's answers in order ("Pid:<pid>" before each of several), up to
 * its first failure, as jinfo does one JVM after another. One JVM waits
 * the links' hour for an answer, several JDK_FAN_REPLY_MS each. */
static int ask_all(struct vm *v, size_t n, const struct jinfo_req *r, size_t nr)
{
  struct attach_answer *ans = xzalloc(nr * n * sizeof(*ans));
  struct jvm *j = xmalloc(n * sizeof(*j));
  const struct jvm **js = xmalloc(n * sizeof(*js));
  int *open = xmalloc(n * sizeof(*open)), rc = 0;
  char(*err)[256] = xmalloc(n * sizeof(*err));

  for (size_t k = 0; k < n; k++)
    open[k] = jvm_open_row(&j[k], &v[k], err[k], sizeof(err[k]));
  for (size_t q = 0; q < nr; q++) {
    const char *body;

    for (size_t k = 0; k < n; k++) /* the JVMs that answered all before */
      js[k] = !open[k] && (q == 0 ||
                           (!ans[(q - 1) * n + k].rc &&
                            !attach_status(ans[(q - 1) * n + k].reply, &body)))
                  ? &j[k]
                  : NULL;
    attach_ask_all(js, n, r[q].cmd, r[q].args, JDK_TIMEOUT_MS,
                   n > 1 ? JDK_FAN_REPLY_MS : JDK_REPLY_MS, &ans[q * n]);
    for (size_t k = 0; k < n; k++)
      if (!js[k]) ans[q * n + k].rc = -1; /* not asked */
  }
  for (size_t k = 0; k < n; k++) {
    if (n > 1) printf("Pid:%d\n", v[k].pid);
    if (open[k]) {
      fflush(stdout);
      jdk_refusal(v[k].pid, open[k] == -ESRCH ? ATTACH_NOPROC : ATTACH_PERM,
                  err[k]);
      rc = 1;
      continue;
    }
    for (size_t q = 0; q < nr; q++)
      if (show(v[k].pid, &ans[q * n + k], r[q].heading)) {
        rc = 1;
        break;
      }
    jvm_close(&j[k]);
  }
  for (size_t i = 0; i < nr * n; i++) free(ans[i].reply);
  free(ans);
  free(j);
  free(js);
  free(open);
  free(err);
  return rc;
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
  struct jinfo_req r[sizeof(jinfo_asks) / sizeof(*jinfo_asks)];
  struct vm *v;
  char *held = NULL;
  size_t n;
  int i, nr, words = 0, most = 1, rc = 0;

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
  nr = requests(m, name, r, sizeof(r) / sizeof(*r), &held);
  if (nr < 0) { /* jinfo dies there, after the first JVM's "Pid:" */
    if (n > 1) printf("Pid:%d\n", v[0].pid);
    fflush(stdout);
    fputs("Exception in thread \"main\" java.lang."
          "StringIndexOutOfBoundsException: String index out of range: 0\n",
          stderr);
    rc = 1;
  } else {
    rc = ask_all(v, n, r, (size_t)nr);
  }
  free(held);
  vm_list_free(v, n);
  return rc;
}
