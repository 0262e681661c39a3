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
#include "core/format.h"
#include "core/perfdata.h"
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

static void json(const struct perfdata *pd, const struct pd_counter *c,
                 int first)
{
  const char *s;
  size_t n;

  printf("%s\n  ", first ? "" : ",");
  json_string(stdout, c->name, strlen(c->name));
  fputs(": {\"value\": ", stdout);
  if (c->type == 'J') {
    printf("%" PRId64, pd_long(pd, c));
  } else {
    n = pd_string(pd, c, &s);
    json_string(stdout, s, n);
  }
  printf(", \"units\": \"%s\", \"variability\": \"%s\"}",
         pd_units_name(c->units), pd_var_name(c->var));
}

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
  size_t len = s[0] < 0xc2 || s[0] > 0xf4 ? 0 : s[0] < 0xe0 ? 2
               : s[0] < 0xf0 ? 3 : 4;

  if (!len || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return len;
}

/* A Prometheus label value: backslash, quote and newline escaped; the
 * format wants UTF-8, so a byte that is not becomes U+FFFD. */
static void label(struct buf *b, const char *s, size_t n)
{
  for (size_t i = 0, k; i < n; i++) {
    if (s[i] == '\\' || s[i] == '"') buf_addc(b, '\\'), buf_addc(b, s[i]);
    else if (s[i] == '\n') buf_adds(b, "\\n");
    else if (!(s[i] & 0x80)) buf_addc(b, s[i]);
    else if ((k = utf8_seq((const unsigned char *)s + i, n - i)))
      buf_add(b, s + i, k), i += k - 1;
    else buf_adds(b, "\xef\xbf\xbd");
  }
}

/* Long counters only: a metric name is [a-zA-Z_:][a-zA-Z0-9_:]*, Monotonic
 * counters are counters, the rest gauges; Ticks become seconds. */
static void prometheus(const struct perfdata *pd, const struct pd_counter *c,
                       const char *labels, double hz)
{
  struct buf name = {0};
  int64_t v = pd_long(pd, c);

  if (c->type != 'J') return;
  if (!isalpha((unsigned char)c->name[0])) buf_addc(&name, '_');
  for (const char *p = c->name; *p; p++)
    buf_addc(&name, isalnum((unsigned char)*p) || *p == ':' ? *p : '_');
  if (c->units == PD_U_BYTES) buf_adds(&name, "_bytes");
  if (c->units == PD_U_TICKS && hz > 0) buf_adds(&name, "_seconds");
  printf("# TYPE %s %s\n%s{%s} ", name.p,
         c->var == PD_V_MONOTONIC ? "counter" : "gauge", name.p, labels);
  if (c->units == PD_U_TICKS && hz > 0) printf("%.15g\n", (double)v / hz);
  else printf("%" PRId64 "\n", v);
  buf_free(&name);
}

int dump_main(int argc, char **argv)
{
  struct args a;
  struct perfdata pd;
  struct vm vm;
  struct buf out = {0}, labels = {0};
  char err[256];
  int rc, utf8 = fmt_locale_utf8(), first = 1;
  double hz = 0;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc < 1) return usage_error("no target given");
  if (a.count[OPT_json] && a.count[OPT_prometheus])
    return usage_error("--json and --prometheus exclude each other");
  if ((rc = vm_resolve(a.argv[0], &vm, err, sizeof(err)))) {
    if (rc == -EPERM) error_msg("%s", err);
    else error_msg("cannot find '%s': %s", a.argv[0], err);
    return 1;
  }
  if ((rc = vm_open(&vm, &pd))) {
    error_msg("cannot read '%s': %s", vm.path, pd.err);
    vm_free(&vm);
    return 1;
  }
  if (a.count[OPT_prometheus]) {
    const struct pd_counter *c = pd_find(&pd, "sun.os.hrt.frequency");
    const struct pd_counter *cmd = pd_find(&pd, "sun.rt.javaCommand");
    const char *s = "";
    size_t n = cmd ? pd_string(&pd, cmd, &s) : 0;

    hz = c ? (double)pd_long(&pd, c) : 0;
    if (vm.pid) buf_printf(&labels, "pid=\"%d\",", vm.pid);
    buf_adds(&labels, "main_class=\"");
    label(&labels, s, strcspn(s, " ") < n ? strcspn(s, " ") : n);
    buf_addc(&labels, '"');
  }
  if (a.count[OPT_json]) fputs("{", stdout);
  for (size_t i = 0; i < pd.n; i++) {
    const struct pd_counter *c = pd.counters[i];

    if (!selected(c->name, a.argv + 1, a.argc - 1)) continue;
    if (a.count[OPT_json]) json(&pd, c, first);
    else if (a.count[OPT_prometheus]) prometheus(&pd, c, labels.p, hz);
    else {
      out.len = 0;
      pd_snap_line(&pd, c, a.count[OPT_verbose], utf8, &out);
      fwrite(out.p, 1, out.len, stdout);
    }
    first = 0;
  }
  if (a.count[OPT_json]) fputs(first ? "}\n" : "\n}\n", stdout);
  buf_free(&out);
  buf_free(&labels);
  pd_close(&pd);
  vm_free(&vm);
  return 0;
}
