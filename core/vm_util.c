/* vm_util.c - what core/vm.h offers beside listing and resolving: the
 * per-JVM budget of node-wide loops (docs/security.md §7.2: the work of
 * one JVM is bounded by the PerfData ceilings of core/perfdata.h, its time
 * checked here), what a JVM says of itself in its counters (its main
 * class as jps shows it, whether it takes attach requests, its Java
 * version: jstat's layout and JFR.start's form depend on it) and the JVMs
 * an attaching command's target names.
 */
#include "core/jvmtool.h"
#include "core/format.h"
#include "core/out.h"
#include "core/perfdata.h"
#include "core/root.h"
#include "core/vm.h"

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

int vm_attachable(const struct vm *v)
{
  struct perfdata pd;
  const struct pd_counter *c;
  const char *s;
  int rc;

  if (!v->path) return -ENOENT;
  if ((rc = vm_open(v, &pd))) return rc;
  /* A string of '0'/'1', one per capability; the first is attach. */
  if (!(c = pd_find(&pd, "sun.rt.jvmCapabilities")) || c->type != 'B' ||
      !pd_string(&pd, c, &s))
    rc = -ENOENT;
  else
    rc = s[0] == '1';
  pd_close(&pd);
  return rc;
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

void vm_java_command(const struct vm *v, struct buf *b)
{
  struct perfdata pd;

  if (!v->path || vm_open(v, &pd)) {
    vm_text(NULL, NULL, "", b);
    return;
  }
  vm_text(&pd, "sun.rt.javaCommand", "", b);
  pd_close(&pd);
}

/* A pid as attach takes it: its PerfData file is looked for only when
 * needed (vm_attachable's caller in core/attach, PerfCounter.print). */
static void bare_pid(int pid, struct vm *v)
{
  memset(v, 0, sizeof(*v));
  v->pid = pid;
  v->root_pid = -1;
  v->locked = -1;
}

int vm_find(const char *target, struct vm **out, size_t *n, char *err,
            size_t errlen)
{
  struct vm *vms;
  struct buf cmd = {0}, cls = {0};
  char *path;
  size_t nv, k = 0;
  int pid, rc, all = *target && !target[strspn(target, "0")];

  *out = NULL;
  *n = 0;
  if (!all &&
      !vm_parse_target(target, VM_TARGET_JSTAT, &pid, &path, err, errlen)) {
    if (path) {
      free(path);
      snprintf(err, errlen, "'%s' is a PerfData file: attach needs a pid",
               target);
      return -EINVAL;
    }
    *out = xmalloc(sizeof(**out));
    bare_pid(pid, *out);
    *n = 1;
    return 0;
  }
  if ((rc = vm_list(&vms, &nv))) {
    snprintf(err, errlen, "cannot list JVMs: %s", strerror(-rc));
    return rc;
  }
  for (size_t i = 0; i < nv; i++) {
    int keep = vms[i].alive && vm_attachable(&vms[i]) == 1;

    if (keep && !all) {
      vm_java_command(&vms[i], &cmd);
      cls.len = 0;
      vm_main_class(cmd.p, 1, &cls);
      keep = *cls.p && strstr(cls.p, target);
    }
    if (keep)
      vms[k++] = vms[i];
    else
      vm_free(&vms[i]);
  }
  buf_free(&cls);
  buf_free(&cmd);
  if (!k) {
    free(vms);
    vms = NULL;
  }
  *out = vms;
  *n = k;
  return 0;
}

/* The process in the pid namespace of host pid n whose own pid there is
 * nspid, or 0. */
static int pid_in_ns_of(int n, int nspid)
{
  uint64_t want, ino;
  size_t np;
  int *pids, found = 0;

  if (proc_ns_ino(n, "pid", &want) || proc_pids(&pids, &np)) return 0;
  for (size_t i = 0; i < np && !found; i++)
    if (proc_nspid(pids[i]) == nspid && !proc_ns_ino(pids[i], "pid", &ino) &&
        ino == want)
      found = pids[i];
  free(pids);
  return found;
}

int vm_owner(const struct vm *v)
{
  const char *base;
  int pid, n;

  if (v->pid) return v->pid;
  base = strrchr(v->path, '/') ? strrchr(v->path, '/') + 1 : v->path;
  if (parse_pid(base, &pid)) return 0;
  /* the file is named by the JVM's pid in its own namespace: that of the
   * root the user named it through, /proc/<n>/root/... */
  if ((n = root_pid_of(v->path))) pid = pid_in_ns_of(n, pid);
  return pid;
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
