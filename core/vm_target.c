/* vm_target.c - what a target on the command line names: the one target
 * grammar (a pid, a file: URI, a pod's NAMESPACE/POD[/CONTAINER], a
 * path), the JVMs an attaching command's
 * target names (jcmd's: a pid, 0, part of a main class), and the process
 * whose PerfData file a path is.
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "core/pod.h"
#include "core/root.h"
#include "core/vm.h"

static int hex_digit(char c)
{
  return isdigit((unsigned char)c) ? c - '0' : (c | 32) - 'a' + 10;
}

/* "file:" URI to a path: "//" must start an empty authority; the path is
 * absolute; %XX escapes are decoded. */
static int parse_file_uri(const char *s, int flags, char **path, char *err,
                          size_t errlen)
{
  const char *p = s + 5, *why = NULL;
  struct buf b = {0};

  if (starts_with(p, "//") && p[2] != '/')
    why = "URI has an authority component";
  else if (starts_with(p, "//"))
    p += 2;
  if (!why && *p != '/')
    why = "URI is not absolute";
  else if (!why && strpbrk(p, "?#"))
    why = "URI has a query or fragment";
  else if (!why && (flags & VM_TARGET_JSTAT) && strchr(p, ' '))
    why = "Malformed VM Identifier";
  if (why) {
    snprintf(err, errlen, "%s: %s", why, s);
    return -EINVAL;
  }
  for (; *p; p++) {
    if (*p == '%' && isxdigit((unsigned char)p[1]) &&
        isxdigit((unsigned char)p[2])) {
      buf_addc(&b, (char)(hex_digit(p[1]) * 16 + hex_digit(p[2])));
      p += 2;
    } else {
      buf_addc(&b, *p);
    }
  }
  *path = b.p;
  return 0;
}

int vm_pod_target(const char *s)
{
  /* NAMESPACE/POD[/CONTAINER], unless a file of that name is there */
  return pod_is_target(s) && access(s, F_OK);
}

int vm_parse_target(const char *s, int flags, int *pid, char **path, char *err,
                    size_t errlen)
{
  const char *p = s;

  *pid = 0;
  *path = NULL;
  if (starts_with(s, "file:"))
    return parse_file_uri(s, flags, path, err, errlen);
  if (starts_with(p, "local://"))
    p += 8;
  else if (starts_with(p, "//"))
    p += 2;
  if (!parse_pid(p, pid)) return 0;
  if (vm_pod_target(s)) {
    struct vm row;
    int rc = pod_find(s, &row, err, errlen);

    *pid = row.pid;
    vm_free(&row);
    return rc;
  }
  if (strchr(s, '@') && !strchr(s, '/') && access(s, F_OK)) {
    snprintf(err, errlen, "remote vmids are not supported: %s", s);
    return -EINVAL;
  }
  if ((flags & VM_TARGET_JSTAT) || !*s) {
    snprintf(err, errlen, "Malformed VM Identifier: %s", s);
    return -EINVAL;
  }
  *path = xstrdup(s);
  return 0;
}

/* A pid as attach takes it: its PerfData file is looked for by the open
 * (core/jvm), verified. */
static void bare_pid(int pid, struct vm *v)
{
  memset(v, 0, sizeof(*v));
  v->pid = pid;
  v->root_pid = -1;
  v->locked = -1;
}

/* Whose a listed JVM is: its process's effective user (the file's owner
 * when the process cannot be read) and its mount namespace (a container,
 * a PrivateTmp service); its container id for the message. */
struct owner {
  uid_t uid;
  uint64_t mnt;
  char id[65];
};

static void owner_of(const struct vm *v, struct owner *o)
{
  struct proc_status st;
  struct stat sb;
  int fd = vm_proc_open(v); /* -1: gone, or not the process seen */

  o->uid = fd >= 0 && !proc_status_at(fd, &st) ? st.euid : v->uid;
  o->mnt = fd >= 0 && !fstatat(fd, "ns/mnt", &sb, 0) ? sb.st_ino : 0;
  if (fd < 0 || proc_container_at(fd, o->id, NULL)) o->id[0] = 0;
  if (fd >= 0) close(fd);
}

/* How many owners v[0..n) have (pairwise: n is a main class's matches,
 * the count is only told apart as 1 or more). */
static size_t owners(const struct owner *o, size_t n)
{
  size_t k = n ? 1 : 0;

  for (size_t i = 1; i < n; i++)
    if (o[i].uid != o[0].uid || o[i].mnt != o[0].mnt) k++;
  return k;
}

/* At most this many candidates are named in one line (fewer when err is
 * short). */
enum { NAMES_MAX = 16 };

void vm_names(const char *target, const struct vm *v, size_t n, char *err,
              size_t errlen)
{
  struct owner *o = xmalloc((n ? n : 1) * sizeof(*o));
  struct buf b = {0};
  uint64_t ours = 0;
  size_t k, shown;

  proc_self_ns_ino("mnt", &ours);
  for (size_t i = 0; i < n; i++) owner_of(&v[i], &o[i]);
  k = owners(o, n);
  buf_printf(&b, "'%s' names %zu JVMs", target, n);
  if (k > 1) buf_printf(&b, " of several owners");
  buf_printf(&b, ":");
  /* as many as fit in err, with room for the end */
  for (shown = 0; shown < n && shown < NAMES_MAX; shown++) {
    size_t at = b.len;

    buf_printf(&b, "%s %d (uid %u", shown ? "," : "", v[shown].pid,
               (unsigned)o[shown].uid);
    if (*o[shown].id)
      buf_printf(&b, ", container %.12s", o[shown].id);
    else if (o[shown].mnt && o[shown].mnt != ours)
      buf_printf(&b, ", mnt:[%" PRIu64 "]", o[shown].mnt);
    buf_printf(&b, ")");
    if (b.len + 40 >= errlen) {
      b.len = at;
      b.p[at] = 0;
      break;
    }
  }
  if (shown < n) buf_printf(&b, " and %zu more", n - shown);
  snprintf(err, errlen, "%s: give one pid", b.p);
  buf_free(&b);
  free(o);
}

/* Several matches of a main class across owners: a command line that
 * named "Kafka" meant one owner's JVMs, and which is not ours to guess. */
static int one_owner(const char *target, const struct vm *v, size_t n,
                     char *err, size_t errlen)
{
  struct owner *o;
  size_t k;

  if (n < 2) return 0;
  o = xmalloc(n * sizeof(*o));
  for (size_t i = 0; i < n; i++) owner_of(&v[i], &o[i]);
  k = owners(o, n);
  free(o);
  if (k < 2) return 0;
  vm_names(target, v, n, err, errlen);
  return -E2BIG;
}

int vm_find(const char *target, struct vm **out, size_t *n, char *err,
            size_t errlen)
{
  struct vm *vms;
  struct buf cmd = {0};
  char *path;
  size_t nv, k = 0;
  /* "0", and "" (a part of every main class), name every JVM */
  int pid, rc, all = !target[strspn(target, "0")];

  *out = NULL;
  *n = 0;
  if (!all && vm_pod_target(target)) { /* the walk's row, not its pid */
    struct vm row;

    if ((rc = pod_find(target, &row, err, errlen))) return rc;
    *out = xmalloc(sizeof(**out));
    **out = row;
    *n = 1;
    return 0;
  }
  rc = all ? -EINVAL
           : vm_parse_target(target, VM_TARGET_JSTAT, &pid, &path, err, errlen);
  if (rc && !all && pod_is_target(target) && access(target, F_OK)) return rc;
  if (!rc) {
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
    struct perfdata *pd = xmalloc(sizeof(*pd));
    int keep = vms[i].alive && vms[i].path && !vm_open_budget(&vms[i], pd);

    if (keep) /* read once: the open that follows takes it */
      vms[i].pd = pd;
    else
      free(pd);
    keep = keep && vm_attachable(vms[i].pd) == 1;
    if (keep && !all) {
      vm_java_command(vms[i].pd, &cmd);
      cmd.p[vm_main_class(cmd.p, cmd.len)] = 0;
      keep = *cmd.p && strstr(cmd.p, target);
    }
    if (keep)
      vms[k++] = vms[i];
    else
      vm_free(&vms[i]);
  }
  buf_free(&cmd);
  if (!all && (rc = one_owner(target, vms, k, err, errlen))) {
    vm_list_free(vms, k);
    return rc;
  }
  if (!k) {
    free(vms);
    vms = NULL;
  }
  *out = vms;
  *n = k;
  return 0;
}

/* The process in the pid namespace of host pid n (a number in a path the
 * user typed) whose own pid there is nspid, or 0. Each candidate is
 * opened once and read through its folder: its namespace first (one
 * stat), its status only when that is the one. */
static int pid_in_ns_of(int n, int nspid)
{
  struct proc_status st;
  uint64_t want, ino;
  size_t np;
  int *pids, found = 0, fd = proc_open(n);

  if (fd < 0) return 0;
  if (proc_ns_ino_at(fd, "pid", &want) || proc_pids(&pids, &np)) {
    close(fd);
    return 0;
  }
  close(fd);
  for (size_t i = 0; i < np && !found; i++) {
    if ((fd = proc_open(pids[i])) < 0) continue;
    if (!proc_ns_ino_at(fd, "pid", &ino) && ino == want &&
        !proc_status_at(fd, &st) && proc_innermost(&st, pids[i]) == nspid)
      found = pids[i];
    close(fd);
  }
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
