/* vm_counters.c - what a JVM says of itself in its PerfData counters: its
 * command line and main class (as jps shows them), whether it takes attach
 * requests, its Java version (jstat's layout and JFR.start's form depend on
 * it), any string counter as the JDK tools print it.
 */
#include "core/jvmtool.h"
#include "core/format.h"
#include "core/out.h"
#include "core/perfdata.h"
#include "core/vm.h"

int vm_command(const struct perfdata *pd, const char **s, size_t *n)
{
  const struct pd_counter *c = pd ? pd_find(pd, "sun.rt.javaCommand") : NULL;

  *s = "";
  *n = 0;
  if (!c || c->type != 'B') return -ENOENT;
  *n = pd_string(pd, c, s);
  return 0;
}

size_t vm_main_class(const char *cmd, size_t n)
{
  const char *sp = memchr(cmd, ' ', n);

  return sp && sp > cmd ? (size_t)(sp - cmd) : n;
}

size_t vm_main(const char *cls, size_t n, size_t *at)
{
  size_t p = n, d;

  /* after the last '/' or '\\', unless that starts the name */
  while (p > 0 && cls[p - 1] != '/' && cls[p - 1] != '\\') p--;
  if (p == 1) p = 0;
  /* a class's own name after its last dot; a jar keeps its ".jar" */
  for (d = n; d > p && cls[d - 1] != '.'; d--) continue;
  if (d > p + 1 && !(n - d == 3 && !memcmp(cls + d, "jar", 3))) p = d;
  *at = p;
  return n - p;
}

int vm_attachable(const struct perfdata *pd)
{
  const struct pd_counter *c;
  const char *s;

  if (!pd) return -ENOENT;
  /* A string of '0'/'1', one per capability; the first is attach. */
  if (!(c = pd_find(pd, "sun.rt.jvmCapabilities")) || c->type != 'B' ||
      !pd_string(pd, c, &s))
    return -ENOENT;
  return s[0] == '1';
}

void vm_text(const struct perfdata *pd, const char *name, const char *missing,
             struct buf *b)
{
  const struct pd_counter *c = pd ? pd_find(pd, name) : NULL;
  const char *s;
  size_t n;

  b->len = 0;
  buf_add(b, "", 0);
  if (!c) {
    buf_adds(b, missing);
    return;
  }
  n = pd_string(pd, c, &s);
  out_java_text(b, s, n, fmt_locale_utf8());
}

void vm_java_command(const struct perfdata *pd, struct buf *b)
{
  const char *s;
  size_t n;

  b->len = 0;
  buf_add(b, "", 0);
  if (pd && !vm_command(pd, &s, &n)) out_java_text(b, s, n, fmt_locale_utf8());
}
/* The leading decimal number of s[0..n), at most 4 digits; *used its
 * length (0: none). */
static int leading_number(const char *s, size_t n, size_t *used)
{
  int v = 0;

  *used = 0;
  while (*used < n && *used < 4 && s[*used] >= '0' && s[*used] <= '9')
    v = v * 10 + (s[(*used)++] - '0');
  return v;
}

int java_feature(const char *s, size_t n)
{
  size_t used;
  int v = leading_number(s, n, &used);

  if (!used) return 0;
  if (v == 1 && used < n && s[used] == '.') { /* 1.8.0_x: before JDK 9 */
    v = leading_number(s + used + 1, n - used - 1, &used);
    if (!used) return 0;
  }
  return v;
}

int vm_java_feature(const struct perfdata *pd)
{
  static const char *const names[] = {"java.property.java.version",
                                      "java.vm.specification.version"};

  for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
    const struct pd_counter *c = pd_find(pd, names[i]);
    const char *s;
    size_t n;
    int v;

    if (c && (n = pd_string(pd, c, &s)) && (v = java_feature(s, n)) > 0)
      return v;
  }
  return 0;
}

static int long_counter(const struct perfdata *pd, const char *name, double *v)
{
  const struct pd_counter *c = pd ? pd_find(pd, name) : NULL;

  if (!c || c->type != 'J') return -ENOENT;
  *v = (double)pd_long(pd, c);
  return 0;
}

int vm_start_ms(const struct perfdata *pd, double *ms)
{
  return long_counter(pd, "sun.rt.vmInitDoneTime", ms);
}

int vm_uptime(const struct perfdata *pd, uint64_t wall_ms, double *secs)
{
  double begin;

  if (long_counter(pd, "sun.rt.createVmBeginTime", &begin) || begin <= 0)
    return -ENOENT;
  *secs = ((double)wall_ms - begin) / 1000;
  return 0;
}
