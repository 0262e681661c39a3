/* ps.c - list running JVMs, like jps, across users and containers
 *
 * Lines are jps's, byte for byte (docs/jvmstat.md §3): the main class rules,
 * the -m/-v/-V parts, "-- process information unavailable". Deviations: the
 * lines are sorted by pid (jps prints Java HashSet order), jvmtool never
 * lists itself (it is no JVM), and JVMs in other containers are listed under
 * their host pid for every user who can read them, not only root. The jps
 * link (jps_link_main, a row of specs/dropins.def) takes jps's command line:
 * -q and clusters of -lmvV, -J options ignored, the help words alone on the
 * line (after -J's are dropped), only the local host. Where a JVM runs in
 * a Kubernetes pod (core/pod: its runtime's state says so), ps adds a
 * column after the pid, NAMESPACE/POD/CONTAINER ("-" for a JVM in none);
 * the jps link never does.
 */
#include "core/jvmtool.h"
#include "core/out.h"
#include <math.h>
#include "cmd/cmd.h"
#include "core/format.h"
#include "core/perfdata.h"
#include "core/pod.h"
#include "core/jvm.h"
#include "core/vm.h"
#include "cmd/jdk.h"
#include "jps_usage.inc" /* jps_usage[]: jps's help, byte for byte */

#define OPTS_FILE "specs/ps.opts"
#include "core/opt_table.h"

struct info {
  struct buf cmd; /* the command line (vm_command), or "Unknown" */
  int has_args;
  const char *args; /* after the first space, or NULL */
};

/* A string counter as jps shows it; "Unknown" when it is absent. */
static void text(const struct perfdata *pd, const char *name, struct buf *b)
{
  vm_text(pd, name, "Unknown", b);
}

/* The command line (core/vm's vm_command) as jps shows it: "Unknown" when
 * it is absent. */
static void command(const struct perfdata *pd, struct buf *b)
{
  const char *s;
  size_t n;

  b->len = 0;
  if (vm_command(pd, &s, &n))
    buf_adds(b, "Unknown");
  else
    out_java_text(b, s, n, fmt_locale_utf8());
  buf_add(b, "", 0);
}

/* The args part (§3.3): what follows the main class (core/vm.h's
 * vm_main_class) and its space, or "Unknown" when the command is unknown,
 * else none. */
static const char *main_args(const char *cmd)
{
  size_t n = vm_main_class(cmd, strlen(cmd));

  if (cmd[n]) return cmd + n + 1;
  return strcmp(cmd, "Unknown") ? NULL : "Unknown";
}

/* jps -v turns line breaks into the two characters \n and \r. */
static void add_escaped(struct buf *line, const char *s)
{
  for (; *s; s++) {
    if (*s == '\n')
      buf_adds(line, "\\n");
    else if (*s == '\r')
      buf_adds(line, "\\r");
    else
      buf_addc(line, *s);
  }
}

/* When waiting for starting JVMs ends: one bound for the whole run, so
 * six JVMs that never become ready cost PD_READY_WAIT_MS once, not six
 * times. */
static uint64_t until;

/* Open a JVM's file the way jps attaches (§2.4): by pid, so the process
 * must exist and the file is the one HotSpot's attach picks (secure folder,
 * newest, no symlink, one link only, resolved inside the JVM's root); it
 * must be page-sized, and a starting JVM gets until the run's bound to
 * become ready. A file over a ceiling or the budget (core/vm.h) is said in
 * one line on stderr; the JVM is still listed, its information
 * unavailable. */
static int attach(struct vm *v, struct perfdata *pd)
{
  char err[256];
  struct jvm j;
  uint64_t t0 = now_ms();
  int rc;

  if (!v->alive) return -1;
  if (!(rc = jvm_open_row(&j, v, err, sizeof(err)))) {
    rc = vm_budget_end(pd, t0, jvm_perfdata(&j, pd));
    if (vm_over_budget(rc))
      error_msg("pid %d: '%s': %s; skipped", v->pid, j.vm.path, pd->err);
  }
  jvm_close(&j);
  if (rc) return -1;
  if (!pd->size || pd->size % 4096) {
    pd_close(pd);
    return -1;
  }
  while (!pd_accessible(pd) && now_ms() < until) {
    usleep(PD_READY_POLL_MS * 1000);
    if (pd_refresh(pd)) break;
  }
  return pd_accessible(pd) ? 0 : 1;
}

/* A JVM's line; pod (not NULL: some JVM listed has pod names) its pod's
 * names after the pid, "-" for none. */
static void line(struct vm *v, const int *flags, const struct pod_names *pod)
{
  struct buf out = {0}, cmd = {0}, s = {0};
  struct perfdata pd;
  const char *args;
  size_t len, at = 0;
  int rc;
  char names[POD_NS_MAX + POD_NAME_MAX + POD_CTR_MAX + 3];

  buf_printf(&out, "%d", v->pid);
  if (flags[OPT_quiet]) goto done;
  if (pod) {
    pod_text(pod, names, sizeof(names));
    buf_printf(&out, " %s", *names ? names : "-");
  }
  if ((rc = attach(v, &pd)) < 0) {
    buf_adds(&out, " -- process information unavailable");
    goto done;
  }
  buf_addc(&out, ' ');
  if (rc) {
    buf_adds(&out, " -- main class information unavailable");
    pd_close(&pd);
    goto done;
  }
  command(&pd, &cmd);
  /* jps -l: main_class; jps: its short form */
  len = vm_main_class(cmd.p, cmd.len);
  if (!flags[OPT_long]) len = vm_main(cmd.p, len, &at);
  buf_add(&out, cmd.p + at, len);
  if (flags[OPT_args] && (args = main_args(cmd.p)) && *args)
    buf_printf(&out, " %s", args);
  if (flags[OPT_jvm_args]) {
    text(&pd, "java.rt.vmArgs", &s);
    if (s.len) {
      buf_addc(&out, ' ');
      add_escaped(&out, s.p);
    }
  }
  if (flags[OPT_jvm_flags]) {
    text(&pd, "java.rt.vmFlags", &s);
    if (s.len) buf_printf(&out, " %s", s.p);
  }
  pd_close(&pd);
done:
  /* all after the pid comes from the JVM */
  term_write(stdout, out.p, out.len, 0);
  fputc('\n', stdout);
  fflush(stdout);
  buf_free(&out);
  buf_free(&cmd);
  buf_free(&s);
}

/* One JVM as a JSON object: main_class is jps -l's (core/vm's
 * vm_main_class, "Unknown" as jps -l when the JVM has no command line),
 * args and the JVM's strings as its PerfData has them. The one rule for
 * empty values: null what its PerfData cannot say (no file, no such
 * counter), "" what it says is empty (no arguments). */
static void json_vm(struct vm *v, const struct pod_names *pod, int first)
{
  struct perfdata pd;
  struct buf out = {0}, cmd = {0}, s = {0};
  struct json_obj o;
  const struct pd_counter *t;
  double up;
  static const char *const strings[][2] = {
      {"jvm_args", "java.rt.vmArgs"},
      {"jvm_flags", "java.rt.vmFlags"},
      {"java_version", "java.property.java.version"},
      {"vm_name", "java.property.java.vm.name"},
      {"vm_vendor", "java.property.java.vm.vendor"},
  };
  int ok = attach(v, &pd) == 0, known;
  const char *cs;
  size_t cn;

  buf_adds(&out, first ? "\n  " : ",\n  ");
  json_open(&o, &out, 1);
  json_int(&o, "pid", v->pid);
  json_int(&o, "nspid", v->nspid);
  json_strz(&o, "user", v->user);
  json_strz(&o, "perfdata", v->path);
  json_bool(&o, "other_namespace", v->other_ns);
  json_bool(&o, "alive", v->alive);
  json_bool(&o, "locked", v->locked < 0 ? -1 : v->locked > 0);
  json_strz(&o, "namespace", *pod->ns ? pod->ns : NULL);
  json_strz(&o, "pod", *pod->ns ? pod->pod : NULL);
  json_strz(&o, "container", *pod->container ? pod->container : NULL);
  if (ok) command(&pd, &cmd);
  known = ok && !vm_command(&pd, &cs, &cn);
  json_str(&o, "main_class", ok ? cmd.p : NULL,
           ok ? vm_main_class(cmd.p, cmd.len) : 0);
  json_strz(&o, "args",
            !known               ? NULL
            : strchr(cmd.p, ' ') ? strchr(cmd.p, ' ') + 1
                                 : "");
  for (size_t i = 0; i < sizeof(strings) / sizeof(*strings); i++) {
    known = ok && pd_find(&pd, strings[i][1]);
    if (known) text(&pd, strings[i][1], &s);
    json_strz(&o, strings[i][0], known ? s.p : NULL);
  }
  t = ok ? pd_find(&pd, "sun.rt.createVmBeginTime") : NULL;
  json_num(&o, "start_time_ms", t ? (double)pd_long(&pd, t) : NAN);
  /* milliseconds, in the fewest digits that read back */
  json_num(&o, "uptime_s",
           ok && !vm_uptime(&pd, wall_ms(), &up) ? round(up * 1000) / 1000
                                                 : NAN);
  json_close(&o);
  fwrite(out.p, 1, out.len, stdout);
  if (ok) pd_close(&pd);
  buf_free(&out);
  buf_free(&cmd);
  buf_free(&s);
}

/* The option row a jps letter (-l -m -v -V, combinable) sets, or -1. */
static int jps_letter(char c)
{
  switch (c) {
  case 'l':
    return OPT_long;
  case 'm':
    return OPT_args;
  case 'v':
    return OPT_jvm_args;
  case 'V':
    return OPT_jvm_flags;
  default:
    return -1;
  }
}

/* jps's own command line (§3.1), -J's dropped; returns -1 to go on, else
 * an exit code. */
static int jps_args(int argc, char **argv, int *flags)
{
  int hosts = 0;
  const char *host = NULL;

  if (argc == 2 && jdk_is_help(argv[1])) {
    fputs(jps_usage, stderr);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];

    if (a[0] == '-' && !hosts) {
      if (!strcmp(a, "-q")) {
        flags[OPT_quiet] = 1;
        continue;
      }
      for (const char *p = a + 1; *p; p++) {
        int id = jps_letter(*p);

        if (id < 0) {
          fprintf(stderr, "illegal argument: %s\n%s", a, jps_usage);
          return 1;
        }
        flags[id] = 1;
      }
      continue;
    }
    if (++hosts > 1) {
      fprintf(stderr, "invalid argument count\n%s", jps_usage);
      return 1;
    }
    host = a;
  }
  if (host && strcmp(host, "localhost") && strcmp(host, "//localhost")) {
    fprintf(stderr, "jps: only the local host is supported, not '%s'\n", host);
    return 1;
  }
  return -1;
}

/* The JVMs, one line each as flags (rows of specs/ps.opts) ask, or JSON;
 * pods: a column of pod names when any JVM has them (not the jps link). */
static int list(const int *flags, int json, int pods)
{
  struct vm *vms;
  struct pod_names *pod;
  size_t n, shown = 0;
  int rc, any = 0;

  until = now_ms() + PD_READY_WAIT_MS;
  rc = vm_list(&vms, &n);
  say_skipped();
  if (rc) {
    errno_msg(rc, "cannot read '/tmp'");
    return 1;
  }
  pod = xzalloc((n ? n : 1) * sizeof(*pod));
  for (size_t i = 0; pods && i < n; i++)
    if (!pod_of_vm(&vms[i], &pod[i])) any = 1;
  if (json) fputs("[", stdout);
  for (size_t i = 0; i < n; i++) {
    /* a file whose process is gone: jps (a JVM) removes those of its own
     * user in its /tmp at its start-up, before it lists, and shows the
     * others as unavailable; so do we, without removing (clean does) */
    if (!vms[i].alive && !flags[OPT_stale] && !vms[i].other_ns &&
        vms[i].uid == geteuid())
      continue;
    if (json)
      json_vm(&vms[i], &pod[i], !shown++);
    else
      line(&vms[i], flags, any ? &pod[i] : NULL);
  }
  if (json) fputs(shown ? "\n]\n" : "]\n", stdout);
  vm_list_free(vms, n);
  free(pod);
  return 0;
}

int ps_main(int argc, char **argv)
{
  struct args a;
  int flags[OPTS_NROWS] = {0}, rc;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc) return usage_error("unexpected argument '%s'", a.argv[0]);
  for (int i = 0; i < OPTS_NROWS; i++) flags[i] = a.count[i] > 0;
  return list(flags, flags[OPT_json], 1);
}

int jps_link_main(int argc, char **argv)
{
  int flags[OPTS_NROWS] = {0}, rc;

  if ((argc = jdk_args(argc, argv, NULL)) < 0) return 1;
  if ((rc = jps_args(argc, argv, flags)) >= 0) return rc;
  return list(flags, 0, 0);
}
