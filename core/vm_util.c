/* vm_util.c - what core/vm.h offers beside listing and resolving: the
 * per-JVM budget of node-wide loops (docs/security.md §7.2: the work of
 * one JVM is bounded by the PerfData ceilings of core/perfdata.h, its time
 * checked here), the main class as jps shows it, and the Java version a
 * JVM's PerfData says (jstat's layout, JFR.start's form depend on it).
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "core/vm.h"

int vm_open_budget(const struct vm *v, struct perfdata *pd)
{
  uint64_t t0 = now_ms(), took;
  int rc = vm_open(v, pd);

  if (rc) return rc;
  if ((took = now_ms() - t0) > VM_BUDGET_MS) {
    pd_close(pd);
    snprintf(pd->err, sizeof(pd->err),
             "over its budget: %llu ms to read, "
             "more than %d",
             (unsigned long long)took, VM_BUDGET_MS);
    return -ETIME;
  }
  return 0;
}

int vm_over_budget(int rc)
{
  return rc == -EFBIG || rc == -ETIME;
}

void vm_main_class(const char *cmd, int full, struct buf *out)
{
  const char *sp = strchr(cmd, ' ');
  size_t n = sp && sp > cmd ? (size_t)(sp - cmd) : strlen(cmd);
  char *s = xstrndup(cmd, n), *p = s, *slash, *dot;

  if (!full) {
    slash = strrchr(p, '/');
    if (strrchr(p, '\\') > slash) slash = strrchr(p, '\\');
    if (slash && slash > p) p = slash + 1;
    dot = strrchr(p, '.');
    if (dot && dot > p && strcmp(dot + 1, "jar")) p = dot + 1;
  }
  buf_adds(out, p);
  free(s);
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

int vm_pid_java_feature(int pid)
{
  char target[16];
  char why[256];
  struct perfdata pd;
  struct vm v;
  int rc, jdk = 0;

  snprintf(target, sizeof(target), "%d", pid);
  if (vm_resolve(target, &v, why, sizeof(why))) return 0;
  rc = vm_open_budget(&v, &pd);
  vm_free(&v);
  if (rc) return 0;
  jdk = vm_java_feature(&pd);
  pd_close(&pd);
  return jdk;
}
