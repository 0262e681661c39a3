/* dump.c - print every PerfData counter of a JVM
 *
 * The default output is byte-identical to
 *   jstat -J-Djstat.showUnsupported=true -snap file:///<the same file>
 * (docs/jvmstat.md §5.1): every counter and the reader's pseudo-counters,
 * sorted by name, "name=value", strings in double quotes with nothing
 * escaped, as the JDK does. Patterns select counters: a prefix, or a glob
 * when it has * ? or [. --json and --prometheus are for machines; they
 * escape everything, so any counter string keeps them well-formed.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/format.h"
#include "core/perfdata.h"
#include "core/prom.h"
#include "core/jvm.h"
#include "core/vm.h"
#include <fnmatch.h>
#include <math.h>

#define OPTS_FILE "specs/dump.opts"
#include "core/opt_table.h"

static int selected(const char *name, char **pats, int npats)
{
  if (!npats) return 1;
  for (int i = 0; i < npats; i++) {
    if (strpbrk(pats[i], "*?[") ? !fnmatch(pats[i], name, 0)
                                : starts_with(name, pats[i]))
      return 1;
  }
  return 0;
}

void dump_json_counter(struct buf *b, const struct perfdata *pd,
                       const struct pd_counter *c, int first)
{
  const char *s;
  size_t n;
  struct json_obj o;

  buf_adds(b, first ? "\n  " : ",\n  ");
  json_buf(b, c->name, strlen(c->name));
  buf_adds(b, ": ");
  json_open(&o, b, 1);
  if (c->type == 'J') {
    json_int(&o, "value", pd_long(pd, c));
  } else {
    n = pd_string(pd, c, &s);
    json_str(&o, "value", s, n);
  }
  json_strz(&o, "units", pd_units_name(c->units));
  json_strz(&o, "variability", pd_var_name(c->var));
  json_close(&o);
}

static void json(const struct perfdata *pd, const struct pd_counter *c,
                 int first)
{
  struct buf b = {0};

  dump_json_counter(&b, pd, c, first);
  fwrite(b.p, 1, b.len, stdout);
  buf_free(&b);
}

/* --prometheus: every target (pids, files, "all") in one exposition,
 * families as Prometheus' Java client names them (core/prom.h), each JVM
 * read within core/vm's budget (core/prom's struct prom_scrape). A JVM
 * that cannot be read is said, unless "all" found it in our own /tmp,
 * alive, and within budget (a file of a JVM we may not read). */
static int prometheus(struct args *a)
{
  int all = a->argc == 1 && !strcmp(a->argv[0], "all"), rc = 0, step;
  struct prom_scrape s;
  struct perfdata pd;
  const struct vm *w;
  struct vm *v = NULL;
  struct jvm *jv = NULL;
  struct buf out = {0};
  size_t n = 0;
  char err[256];
  int flags =
      (a->count[OPT_raw] ? PROM_RAW : 0) | prom_names_flag(a->word[OPT_names]);

  if (all) {
    rc = vm_list(&v, &n);
    say_skipped();
  }
  if (all && rc) {
    errno_msg(rc, "cannot list JVMs");
    return 1;
  }
  if (!all) jv = xzalloc(a->argc * sizeof(*jv));
  for (int i = 0; !all && i < a->argc; i++) {
    struct jvm *j = &jv[n]; /* opened once, rendered as opened */

    if (jvm_open(j, a->argv[i], 0, err, sizeof(err))) {
      error_msg("cannot find '%s': %s", a->argv[i], err);
      rc = 1;
    } else if (!j->vm.path && jvm_perfdata(j, &pd)) {
      error_msg("cannot find '%s': %s", a->argv[i], pd.err);
      jvm_close(j);
      rc = 1;
    } else {
      n++;
    }
  }
  if (all)
    prom_scrape_begin(&s, v, n, flags);
  else
    prom_scrape_begin_jvms(&s, jv, n, flags);
  while ((step = prom_scrape_step(&s, &w))) {
    if (step > 0 || step == -EAGAIN) continue;
    if (!all || w->root_pid || !w->alive || vm_over_budget(step)) {
      error_msg("cannot read '%s': %s", w->path, s.why);
      rc = 1;
    }
  }
  prom_scrape_end(&s, &out);
  fwrite(out.p ? out.p : "", 1, out.len, stdout);
  buf_free(&out);
  return rc;
}

int dump_main(int argc, char **argv)
{
  struct args a;
  struct perfdata pd;
  struct jvm j;
  struct buf out = {0};
  char err[256];
  int rc, utf8 = fmt_locale_utf8(), first = 1;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc < 1) return usage_error("no target given");
  if (a.count[OPT_prometheus]) {
    rc = prometheus(&a);
    return rc;
  }
  if ((rc = jvm_open(&j, a.argv[0], 0, err, sizeof(err)))) {
    if (rc == -EPERM || rc == -E2BIG)
      error_msg("%s", err);
    else
      error_msg("cannot find '%s': %s", a.argv[0], err);
    return 1;
  }
  if ((rc = jvm_perfdata(&j, &pd))) {
    if (j.vm.path)
      error_msg("cannot read '%s': %s", j.vm.path, pd.err);
    else
      error_msg("cannot find '%s': %s", a.argv[0], pd.err);
    jvm_close(&j);
    return 1;
  }
  if (a.count[OPT_json]) fputs("{", stdout);
  for (size_t i = 0; i < pd.n; i++) {
    const struct pd_counter *c = pd.counters[i];

    if (!selected(c->name, a.argv + 1, a.argc - 1)) continue;
    if (a.count[OPT_json])
      json(&pd, c, first);
    else {
      out.len = 0;
      pd_snap_line(&pd, c, a.count[OPT_verbose], utf8, &out);
      term_write(stdout, out.p, out.len - 1, 0); /* escaped on a tty */
      fputc('\n', stdout);
    }
    first = 0;
  }
  if (a.count[OPT_json]) fputs(first ? "}\n" : "\n}\n", stdout);
  buf_free(&out);
  pd_close(&pd);
  jvm_close(&j);
  return 0;
}
