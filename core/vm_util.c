/* vm_util.c - what core/vm.h offers beside listing and resolving: the
 * per-JVM budget of node-wide loops (docs/security.md §7.2: the work of
 * one JVM is bounded by the PerfData ceilings of core/perfdata.h, its time
 * checked here) and the main class as jps shows it.
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
