/* vm_open.c - open one listed JVM's PerfData file, safely and within the
 * per-JVM budget of node-wide loops (docs/security.md §7.2: the work of
 * one JVM is bounded by the PerfData ceilings of core/perfdata.h, its time
 * checked here).
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "core/root.h"
#include "core/vm.h"

int vm_open(const struct vm *v, struct perfdata *pd)
{
  struct root r = {.fd = -1};
  struct stat sb;
  int fd, rc, procfd;

  if (v->root_pid < 0) return pd_open(pd, v->file, 0);
  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  /* a container's file: through the root of the very process the walk
   * listed it under (its folder, checked by its start time) */
  if (!v->root_pid) {
    rc = root_open(0, &r);
  } else if (v->root_pid != v->pid || (procfd = vm_proc_open(v)) < 0) {
    rc = -ESRCH;
  } else {
    rc = root_open_at(procfd, v->pid, &r);
    close(procfd);
  }
  if (!rc)
    rc = root_open_checked(&r, -1, v->file, O_RDONLY, S_IFREG,
                           (long long)v->uid, &fd, &sb);
  root_close(&r);
  if (!rc) return pd_open_stat(pd, fd, v->path, &sb);
  snprintf(pd->err, sizeof(pd->err), "%s", root_check_msg(rc, S_IFREG));
  return rc;
}

int vm_open_budget(const struct vm *v, struct perfdata *pd)
{
  uint64_t t0 = now_ms();

  return vm_budget_end(pd, t0, vm_open(v, pd));
}

int vm_budget_end(struct perfdata *pd, uint64_t t0, int rc)
{
  uint64_t took;

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
