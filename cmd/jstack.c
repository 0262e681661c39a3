/* jstack.c - the jstack and jmap -histo links, through jcmd's attach path
 *
 * Run as "jstack": jstack 17's command line ([-l] [-e] <pid|main class>),
 * help text and argument messages; it sends jstack's own "threaddump"
 * request (docs/attach-agent.md §1.8) and prints the dump as jstack does,
 * without jcmd's "<pid>:" line. Run as "jmap": -histo[:live|all] only, as
 * jmap's "inspectheap", and -dump:... as jmap's "dumpheap": the file
 * lands at the path on this host, also for a JVM in a container or of
 * another user (cmd/jdk_out.c); their sub-options are specs/jmap.def's
 * rows, read and refused as jmap does. Targets and the reply's printing are
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
#include "cmd/jdk.h"
#include "jstack_usage.inc" /* jstack_usage[]: jstack's help, byte for byte */
#include "jmap_usage.inc"   /* jmap_usage[]: the jmap link's help */

/* What jstack says of the options that need the serviceability agent. */
#define JHSDB                                                                  \
  "Cannot connect to core dump or remote debug server. Use "                   \
  "jhsdb jstack instead\n"

/* jstack's and jmap's request to each JVM the target names, their reply
 * as they print it: no "<pid>:" line, but "Pid:<pid>" before each when
 * there are several; errors as "<pid>: <why>". Several are asked at once
 * (attach_ask_all), each answer waited for JDK_FAN_REPLY_MS, and printed
 * by pid: a JVM that never answers delays only its own; one named JVM
 * gets the links' hour. */
static int jdk_request(const char *target, const char *cmd,
                       const char *const args[3])
{
  struct attach_answer *ans;
  const struct jvm **js;
  struct jvm *j;
  struct vm *v;
  size_t n;
  int rc = 0;

  if (jdk_find(target, &v, &n)) return 1;
  j = xmalloc(n * sizeof(*j));
  js = xmalloc(n * sizeof(*js));
  ans = xmalloc(n * sizeof(*ans));
  for (size_t i = 0; i < n; i++) {
    ans[i].rc = jvm_open_row(&j[i], &v[i], ans[i].err, sizeof(ans[i].err));
    ans[i].reply = NULL;
    js[i] = ans[i].rc ? NULL : &j[i];
  }
  if (n == 1 && js[0])
    ans[0].rc = jdk_ask(js[0], cmd, args, &ans[0].reply, ans[0].err,
                        sizeof(ans[0].err));
  else
    attach_ask_all(js, n, cmd, args, JDK_TIMEOUT_MS, JDK_FAN_REPLY_MS, ans);
  for (size_t i = 0; i < n; i++) {
    if (n > 1) printf("Pid:%d\n", v[i].pid);
    fflush(stdout);
    if (!js[i])
      jdk_refusal(v[i].pid, ans[i].rc == -ESRCH ? ATTACH_NOPROC : ATTACH_PERM,
                  ans[i].err);
    else if (ans[i].rc)
      jdk_refusal(v[i].pid, ans[i].rc, ans[i].err);
    else
      rc |= jdk_print_reply(v[i].pid, ans[i].reply, NULL);
    rc |= ans[i].rc != 0;
    free(ans[i].reply);
    if (js[i]) jvm_close(&j[i]);
  }
  free(ans);
  free(js);
  free(j);
  vm_list_free(v, n);
  return rc;
}

/* jstack [-l] [-e] <pid>: jstack's "threaddump" request, its flags as one
 * argument ("-e -l", "-e ", "-l"), the dump without a "<pid>:" line;
 * "Pid:<pid>" before each when the target names several JVMs. A help word
 * is help among the options before the pid (exit 0), a bad option after
 * it, as in jstack. */
int jstack_link_main(int argc, char **argv)
{
  const char *target = NULL, *args[3] = {NULL, NULL, NULL};
  int locks = 0, extended = 0, bad = 0;

  if ((argc = jdk_args(argc, argv, NULL)) < 0) return 1;
  for (int i = 1; i < argc && !bad; i++) {
    const char *a = argv[i];

    if (a[0] != '-') {
      if (target) {
        fputs("Error: More than one non-option argument\n" JHSDB, stderr);
        return 1;
      }
      target = a;
    } else if (target) {
      bad = 1; /* options come before the pid */
    } else if (jdk_is_help(a)) {
      fputs(jstack_usage, stderr);
      return 0;
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
  return jdk_request(target, "threaddump", args);
}

/* jmap's sub-options, rows of specs/jmap.def. */
enum jmap_mode { JMAP_DUMP, JMAP_HISTO };
enum jmap_kind { SUB_SKIP, SUB_LIVE, SUB_FILE, SUB_LEVEL };
static const struct jmap_sub {
  enum jmap_mode mode;
  const char *name;
  enum jmap_kind kind;
  int here; /* the link takes it (else jmap's own, refused) */
} jmap_subs[] = {
#define SUB(mode, name, kind, here) {JMAP_##mode, name, SUB_##kind, here},
#include "specs/jmap.def"
#undef SUB
};

/* What -dump: or -histo: asked for: "-live" or "-all", the file (NULL
 * when none), the gz level ("" when none). */
struct jmap_opts {
  const char *mode, *file, *gz;
};

/* The row of mode that the sub-option p names, or NULL. */
static const struct jmap_sub *jmap_sub_find(enum jmap_mode mode, const char *p)
{
  for (size_t i = 0; i < sizeof(jmap_subs) / sizeof(*jmap_subs); i++) {
    const struct jmap_sub *r = &jmap_subs[i];
    size_t n = strlen(r->name);

    if (r->mode != mode) continue;
    if (r->name[n - 1] == '=' ? !strncmp(p, r->name, n) : !strcmp(p, r->name))
      return r;
  }
  return NULL;
}

/* Read jmap's comma-separated sub-options of mode from opt (changed: cut
 * at the commas) into o, as jmap does. Returns 0, or 1 after jmap's
 * "Fail:" line. */
static int jmap_subopts(enum jmap_mode mode, char *opt, struct jmap_opts *o)
{
  *o = (struct jmap_opts){"-all", NULL, ""};
  for (char *p = opt, *next; *p; p = next) {
    size_t n = strcspn(p, ",");
    const struct jmap_sub *r;
    const char *v;

    next = p + n + (p[n] == ',');
    p[n] = 0;
    if (!*p) continue;
    if (!(r = jmap_sub_find(mode, p))) {
      fprintf(stderr, "Fail: invalid option: '%s'\n", p);
      return 1;
    }
    v = p + strlen(r->name);
    if (r->kind == SUB_FILE && !*v) {
      fprintf(stderr, "Fail: invalid option or no file name '%s'\n", p);
      return 1;
    }
    if (r->kind == SUB_LEVEL && !*v) {
      fprintf(stderr, "Fail: no number provided in option: '%s'\n", p);
      return 1;
    }
    if (!r->here) {
      fprintf(stderr,
              "Fail: invalid option: '%s' (jmap's, not the "
              "jvmtool jmap link's)\n",
              p);
      return 1;
    }
    if (r->kind == SUB_LIVE)
      o->mode = "-live";
    else if (r->kind == SUB_FILE)
      o->file = v;
    else if (r->kind == SUB_LEVEL)
      o->gz = v;
  }
  if (mode == JMAP_DUMP && !o->file) {
    fputs("Fail: invalid option or no file name\n", stderr);
    return 1;
  }
  return 0;
}

/* jmap -dump:...: jmap's "dumpheap" request (path, -live or -all, gz
 * level) to the one JVM the target names; the file lands at the host path
 * (cmd/jdk_out.c). jmap's lines, then one naming where a file taken out
 * of a container went. */
static int jmap_dump(const char *target, const struct jmap_opts *jo)
{
  struct jdk_out o;
  struct jvm j;
  const char *args[3] = {NULL, jo->mode, jo->gz}, *file = jo->file;
  char *reply = NULL, err[512];
  struct vm *v;
  size_t n;
  int why, rc;

  if (jdk_find(target, &v, &n)) return 1;
  if (n > 1) {
    vm_names(target, v, n, err, sizeof(err));
    error_msg("%s (a heap dump is of one)", err);
    vm_list_free(v, n);
    return 1;
  }
  if (jdk_open(&j, v)) {
    vm_list_free(v, n);
    return 1;
  }
  if (jdk_out_begin(&o, &j, file, *jo->gz ? ".hprof.gz" : ".hprof")) {
    rc = 1;
  } else {
    args[0] = o.jvm_path;
    why = jdk_ask(&j, "dumpheap", args, &reply, err, sizeof(err));
    rc = 1;
    if (!why)
      rc = jdk_print_reply(v->pid, reply, NULL);
    else
      jdk_refusal(v->pid, why, err);
    fflush(stdout);
    rc = jdk_out_end(&o, !rc && jdk_out_written(reply));
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

static int jmap_usage_rc(int rc)
{
  fputs(jmap_usage, stderr);
  return rc;
}

/* jmap -histo[:live|all] <pid>: jmap's "inspectheap" request ("-live" or
 * "-all", no file, the JVM's choice of threads); jmap -dump:...; nothing
 * else of jmap. jmap's checks first: more than one word that is no option
 * is jhsdb's; among the options before the pid a help word is help (exit
 * 0) and a second option is not; no option at all is help too (exit 0); a
 * pid must follow (exit 1 with the help). */
int jmap_link_main(int argc, char **argv)
{
  const char *args[3] = {NULL, "", ""};
  char *opt = NULL;
  struct jmap_opts jo;
  int i, words = 0;

  if ((argc = jdk_args(argc, argv, NULL)) < 0) return 1;
  if (argc < 2) return jmap_usage_rc(1);
  for (i = 1; i < argc; i++) words += argv[i][0] != '-';
  if (words > 1) {
    fputs("Error: More than one non-option argument\nCannot connect to core "
          "dump or remote debug server. Use jhsdb jmap instead\n",
          stderr);
    return 1;
  }
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    if (jdk_is_help(argv[i])) return jmap_usage_rc(0);
    if (opt) return jmap_usage_rc(1);
    opt = argv[i];
  }
  if (!opt) return jmap_usage_rc(0);
  if (argc - i != 1) return jmap_usage_rc(1);
  if (starts_with(opt, "-dump:")) {
    if (jmap_subopts(JMAP_DUMP, opt + 6, &jo)) return jmap_other("");
    return jmap_dump(argv[i], &jo);
  }
  if (strcmp(opt, "-histo") && !starts_with(opt, "-histo:"))
    return jmap_other(opt);
  if (jmap_subopts(JMAP_HISTO, opt + 6 + (opt[6] == ':'), &jo))
    return jmap_other("");
  args[0] = jo.mode;
  return jdk_request(argv[i], "inspectheap", args);
}
