/* jvm.c - an opened JVM (jvm.h)
 *
 * The PerfData file of a pid is found as the JVM's own tools find it
 * (docs/jvmstat.md §2.4: in its /tmp, resolved inside its root, secure
 * folders only, the newest wins), then kept only when the process maps it.
 * Everything after the open goes through the fds the open made: the
 * process's /proc folder and pidfd, its root and its /tmp.
 */
#include "core/jvmtool.h"
#include "core/jvm.h"
#include "core/perfdata.h"
#include "core/pod.h"
#include <poll.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

void jvm_init(struct jvm *j)
{
  memset(j, 0, sizeof(*j));
  j->procfd = j->pidfd = j->tmpfd = -1;
  j->root.fd = -1;
  j->is_jvm = JVM_NOT;
  j->off = -1;
  vm_init(&j->vm);
}

void jvm_close(struct jvm *j)
{
  if (j->procfd >= 0) close(j->procfd);
  if (j->pidfd >= 0) close(j->pidfd);
  if (j->tmpfd >= 0) close(j->tmpfd);
  root_close(&j->root);
  vm_free(&j->vm);
  if (j->pd) pd_close(j->pd);
  free(j->pd);
  jvm_init(j);
}

static int fail(struct jvm *j, int rc, char *err, size_t n, const char *fmt,
                ...) PRINTF(5, 6);
static int fail(struct jvm *j, int rc, char *err, size_t n, const char *fmt,
                ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  jvm_close(j);
  return rc;
}

/* What j's PerfData pd says of it: its Java version and whether it takes
 * attach requests (sun.rt.jvmCapabilities' first character, as the JDK's
 * attach client reads it). pd is kept for the command (jvm_perfdata). */
static void take_counters(struct jvm *j, struct perfdata *pd)
{
  int on = vm_attachable(pd);

  j->jdk = vm_java_feature(pd);
  j->off = on < 0 ? -1 : !on;
  j->pd = pd;
}

/* read_counters for a file j names: its PerfData opened afresh. */
static void read_counters(struct jvm *j)
{
  struct perfdata *pd = xmalloc(sizeof(*pd));

  if (jvm_perfdata(j, pd)) {
    free(pd);
    return;
  }
  take_counters(j, pd);
}

/* The folder /tmp/hsperfdata_<user> of p in r, as the JVM's own tools take
 * it (docs/jvmstat.md §2.3-2.4): a real directory, not writable by group
 * or others, ours unless we are root, never through a link; and in it the
 * file named p->name: a regular file with bytes in it, not a link (its
 * stat in *sb, nothing opened). 1 and *dfd (O_PATH) when it is. */
static int secure_file(const struct root *r, const struct proc_perf_map *p,
                       int *dfd, struct stat *sb)
{
  char *dir = xasprintf("/tmp/hsperfdata_%s", p->user), name[16];
  struct stat dsb;
  int ok = 0;

  if (!root_openat(r, -1, dir, O_PATH | O_DIRECTORY, 0, dfd)) {
    snprintf(name, sizeof(name), "%d", p->name);
    ok = !fstat(*dfd, &dsb) && S_ISDIR(dsb.st_mode) &&
         !(dsb.st_mode & (S_IWGRP | S_IWOTH)) &&
         (!geteuid() || dsb.st_uid == geteuid()) &&
         !fstatat(*dfd, name, sb, AT_SYMLINK_NOFOLLOW) &&
         S_ISREG(sb->st_mode) && sb->st_size > 0;
    if (!ok) close(*dfd);
  }
  free(dir);
  return ok;
}

/* Open the file sb describes, p->name in dfd, for j: checked as any
 * PerfData file (a regular file of its owner, one link), the very inode
 * seen. The PerfData read, into j->pd. */
static void open_counters(struct jvm *j, int dfd, const struct proc_perf_map *p,
                          const struct stat *sb)
{
  struct perfdata *pd;
  struct stat now;
  char name[16];
  int fd;

  snprintf(name, sizeof(name), "%d", p->name);
  if (root_open_checked(NULL, dfd, name, O_RDONLY, S_IFREG,
                        (long long)sb->st_uid, &fd, &now))
    return;
  if (now.st_dev != sb->st_dev || now.st_ino != sb->st_ino) {
    close(fd);
    return;
  }
  pd = xmalloc(sizeof(*pd));
  if (pd_open_stat(pd, fd, j->vm.path, &now)) {
    free(pd);
    return;
  }
  take_counters(j, pd);
}

/* j's PerfData file: the one its process maps shared under the name of
 * its own pid (innermost, else host), /tmp/hsperfdata_<user>/<pid> in its
 * root, kept when that file is the very one mapped (device and inode).
 * Read once: row's PerfData when the row read this very file (vm_find),
 * else opened through the folder just checked. */
static void find_perfdata(struct jvm *j, struct vm *row)
{
  const struct proc_jvm_maps *m = &j->seen.maps;
  const struct proc_perf_map *p = NULL;
  struct root ours, *r = &j->root;
  struct stat sb, rsb;
  char *file;
  int dfd;

  j->vm.pid = j->pid;
  j->vm.nspid = j->nspid;
  for (int i = 0; i < m->nperf && !p; i++)
    if (m->perf[i].name == j->nspid) p = &m->perf[i];
  for (int i = 0; i < m->nperf && !p; i++)
    if (m->perf[i].name == j->pid) p = &m->perf[i];
  if (!p || j->seen.foreign || j->seen.hostile[0]) return;
  file = xasprintf("/tmp/hsperfdata_%s/%d", p->user, p->name);
  if (!j->other_ns && !(j->root.fd >= 0 && j->root.same && j->seen.mntns &&
                        j->seen.mntns == vm_self_mntns())) {
    if (root_open(0, &ours)) {
      free(file);
      return;
    }
    r = &ours;
  }
  if (!secure_file(r, p, &dfd, &sb) ||
      !proc_jvm_maps_file(m, sb.st_dev, sb.st_ino, file)) {
    if (r == &ours) root_close(&ours);
    free(file);
    return;
  }
  if (r == &ours) root_close(&ours);
  j->vm.nspid = p->name;
  j->vm.user = xstrdup(p->user);
  j->vm.file = file;
  j->vm.root_pid = j->other_ns ? j->root.pid : 0;
  j->vm.path =
      j->other_ns ? root_name(&j->root, j->vm.file) : xstrdup(j->vm.file);
  j->vm.uid = sb.st_uid;
  j->vm.alive = 1;
  j->vm.other_ns = j->other_ns;
  /* the walk's answer for this very file; else not read: /proc/locks, a
   * list of every lock on the machine (5-24 ms a read on a busy one), is
   * the listing's to read (ps --json) */
  j->vm.locked = row && row->ino == (uint64_t)sb.st_ino ? row->locked : -1;
  if (row && row->pd && row->pd->fd >= 0 && !fstat(row->pd->fd, &rsb) &&
      rsb.st_dev == sb.st_dev && rsb.st_ino == sb.st_ino) {
    take_counters(j, row->pd); /* vm_find's read of this very file */
    row->pd = NULL;
  } else {
    open_counters(j, dfd, p, &sb);
  }
  close(dfd);
}

static int open_pid(struct jvm *j, int pid, struct vm *row, char *err,
                    size_t n);

/* What the walk saw of row's process (vm_list's facts) as vm_see's
 * value, when procfd's process is the one seen (its start time): the
 * maps are not read again. 1 when taken. */
static int seen_of_row(struct jvm *j, const struct vm *row)
{
  char buf[PROC_STAT_MAX];
  struct proc_stat ps;
  struct proc_perf_map *p = &j->seen.maps.perf[0];
  size_t len;

  if (!row || !row->seen || !row->user || !row->file ||
      proc_read_small(j->procfd, "stat", buf, sizeof(buf), &len) ||
      proc_stat_parse(buf, len, &ps) || ps.starttime != row->start)
    return 0;
  memset(&j->seen, 0, sizeof(j->seen));
  j->seen.maps.libjvm = row->libjvm;
  j->seen.emulated = row->emulated;
  j->seen.maps.libjvm_data = row->libjvm_data;
  j->seen.maps.nperf = 1;
  p->maj = row->maj;
  p->min = row->min;
  p->ino = row->ino;
  p->name = row->nspid;
  snprintf(p->user, sizeof(p->user), "%s", row->user);
  if (strlen(row->file) < sizeof(p->path))
    snprintf(p->path, sizeof(p->path), "%s", row->file);
  j->seen.pidns = row->pidns;
  j->seen.mntns = row->mntns;
  j->seen.other_mnt = !row->mntns || row->mntns != vm_self_mntns();
  j->seen.row = 1;
  return 1;
}

/* j's /tmp as it sees it (j->tmpfd, j->root, j->other_ns); ours when its
 * root cannot be opened (or it is a container's files in a host process:
 * those are not opened). 0 or -errno (our own /tmp cannot be opened). */
static int open_tmp(struct jvm *j, int pid)
{
  struct root ours;
  struct stat tsb, osb;
  int ourtmp = -1, rc;

  root_close(&j->root);
  if (j->tmpfd >= 0) close(j->tmpfd);
  j->tmpfd = -1;
  if ((rc = root_open(0, &ours)) || (rc = root_tmp(&ours, &ourtmp, &osb))) {
    root_close(&ours);
    return rc;
  }
  root_close(&ours);
  if (!j->seen.foreign && !root_open_at(j->procfd, pid, &j->root) &&
      !root_tmp(&j->root, &j->tmpfd, &tsb)) {
    j->other_ns = tsb.st_dev != osb.st_dev || tsb.st_ino != osb.st_ino;
    close(ourtmp);
  } else {
    j->tmpfd = ourtmp;
  }
  return 0;
}

int jvm_open_pid(struct jvm *j, int pid, char *err, size_t n)
{
  return open_pid(j, pid, NULL, err, n);
}

static int open_pid(struct jvm *j, int pid, struct vm *row, char *err, size_t n)
{
  struct stat tsb;
  int rc;

  jvm_init(j);
  j->pid = pid;
  if ((j->procfd = proc_open(pid)) < 0 || proc_status_at(j->procfd, &j->st))
    return fail(j, -ESRCH, err, n, "no process %d", pid);
  if ((rc = proc_foreign_user(pid, &j->st, err, n))) {
    jvm_close(j);
    return rc;
  }
  j->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  j->nspid = proc_innermost(&j->st, pid);
  /* what the kernel shows decides before any file system is asked */
  if (seen_of_row(j, row)) {
    j->is_jvm = j->seen.maps.libjvm ? JVM_IS : JVM_NOT;
  } else if ((rc = vm_see(j->procfd, 0, &j->seen))) {
    if (rc == -ENOENT || rc == -ESRCH)
      return fail(j, -ESRCH, err, n, "no process %d", pid);
    j->is_jvm = JVM_UNKNOWN; /* its maps cannot be read: nothing aimed */
  } else {
    j->is_jvm = j->seen.maps.libjvm && !j->seen.foreign ? JVM_IS : JVM_NOT;
  }
  j->pidns = j->seen.pidns;
  if (j->seen.hostile[0])
    return fail(j, -EREMOTE, err, n, "pid %d: %s: not looked at", pid,
                j->seen.hostile);
  /* our mount namespace and our "/": its /tmp is ours, opened once */
  if (!j->seen.foreign && j->seen.mntns && j->seen.mntns == vm_self_mntns() &&
      !root_open_at(j->procfd, pid, &j->root) && j->root.same &&
      !root_tmp(&j->root, &j->tmpfd, &tsb)) {
    j->other_ns = 0;
  } else if ((rc = open_tmp(j, pid))) {
    return fail(j, rc, err, n, "cannot open /tmp: %s", strerror(-rc));
  }
  find_perfdata(j, j->seen.row ? row : NULL);
  /* an emulated JVM is one only with the PerfData file it maps */
  if (j->seen.emulated && !j->vm.file && j->is_jvm == JVM_IS)
    j->is_jvm = JVM_NOT;
  return 0;
}

/* A PerfData file the user named (by path or URI): a file alone. */
static int open_file(struct jvm *j, char *path, char *err, size_t n)
{
  struct stat sb;

  jvm_init(j);
  if (stat(path, &sb)) {
    int rc = -errno;

    free(path);
    return fail(j, rc, err, n, "%s", strerror(-rc));
  }
  j->vm.path = path;
  j->vm.file = xstrdup(path);
  j->vm.uid = sb.st_uid;
  read_counters(j);
  return 0;
}

void jvm_open_listed(struct jvm *j, struct vm *row)
{
  jvm_init(j);
  j->listed = 1;
  j->pid = row->pid;
  j->nspid = row->nspid;
  j->pidns = row->pidns;
  j->other_ns = row->other_ns;
  j->procfd = row->alive ? vm_proc_open(row) : -1;
  /* the walk's verdict, kept for what is shown; nothing is aimed at j */
  j->is_jvm = row->alive && row->seen && row->libjvm ? JVM_IS : JVM_UNKNOWN;
  j->vm = *row;
  j->pd = row->pd;
  j->vm.pd = NULL;
  vm_init(row);
}

int jvm_read(struct jvm *j, char *err, size_t n)
{
  uint64_t t0 = now_ms();
  struct perfdata *pd;
  int rc;

  if (j->pd) return 0;
  pd = xmalloc(sizeof(*pd));
  if ((rc = vm_budget_end(pd, t0, jvm_perfdata(j, pd)))) {
    snprintf(err, n, "%s", pd->err);
    free(pd);
    return rc;
  }
  j->pd = pd;
  return 0;
}

int jvm_open_row(struct jvm *j, struct vm *row, char *err, size_t n)
{
  if (row->pid) return open_pid(j, row->pid, row, err, n);
  return open_file(j, xstrdup(row->path), err, n);
}

/* A target that is neither a pid nor a file: the one JVM whose main class
 * it is part of (vm_find's rule). */
static int open_class(struct jvm *j, const char *target, char *err, size_t n)
{
  struct vm *v = NULL;
  size_t k = 0;
  int rc;

  jvm_init(j);
  if ((rc = vm_find(target, &v, &k, err, n))) return rc;
  if (k == 1) {
    rc = jvm_open_row(j, &v[0], err, n);
  } else if (k) {
    vm_names(target, v, k, err, n);
    rc = -E2BIG;
  } else {
    snprintf(err, n, "no JVM matches '%s'", target);
    rc = -ESRCH;
  }
  vm_list_free(v, k);
  return rc;
}

int jvm_open(struct jvm *j, const char *target, int flags, char *err, size_t n)
{
  char *path;
  int pid, rc, owner;

  jvm_init(j);
  if (*target && !target[strspn(target, "0")]) {
    snprintf(err, n, "no JVM matches '%s'", target);
    return -ESRCH;
  }
  if (vm_pod_target(target)) { /* its row: opened without a second lookup */
    struct vm row;

    if ((rc = pod_find(target, &row, err, n))) return rc;
    rc = jvm_open_row(j, &row, err, n);
    vm_free(&row);
    return rc;
  }
  rc = vm_parse_target(target, flags & JVM_JSTAT ? VM_TARGET_JSTAT : 0, &pid,
                       &path, err, n);
  if (rc) return rc;
  if (!path) return jvm_open_pid(j, pid, err, n);
  /* not a pid: a file when it names one (a path or a URI), else a part of
   * a main class */
  if (!starts_with(target, "file:") && !strchr(target, '/') &&
      access(path, F_OK)) {
    free(path);
    return open_class(j, target, err, n);
  }
  if (!(flags & JVM_PROCESS)) return open_file(j, path, err, n);
  if ((rc = open_file(j, path, err, n))) return rc;
  /* a PerfData file for a command that needs its process: the process
   * whose file it is, which must map it */
  if (!(owner = vm_owner(&j->vm))) {
    jvm_close(j);
    snprintf(err, n, "cannot tell which process '%s' belongs to", target);
    return -ESRCH;
  }
  jvm_close(j);
  return jvm_open_pid(j, owner, err, n);
}

int jvm_check_jvm(const struct jvm *j, char *err, size_t n)
{
  if (!j->pid) {
    snprintf(err, n, "'%s' is a PerfData file, not a process",
             j->vm.path ? j->vm.path : "");
    return -EPERM;
  }
  if (j->listed) {
    snprintf(err, n, "pid %d was listed, not opened: nothing sent", j->pid);
    return -EPERM;
  }
  if (j->is_jvm == JVM_IS) return 0;
  snprintf(err, n, "pid %d is not a JVM (%s): nothing sent", j->pid,
           j->is_jvm == JVM_UNKNOWN ? "its maps cannot be read"
           : j->seen.emulated && !j->vm.file
               ? "an emulated JVM without its PerfData file"
           : !j->seen.maps.libjvm
               ? (j->seen.maps.libjvm_data
                      ? "its libjvm.so is not executable, and no emulator "
                        "the host holds runs it"
                      : "it maps no libjvm.so")
               : "a container's files in the host's pid namespace");
  return -EPERM;
}

int jvm_signal(const struct jvm *j, int sig)
{
  char err[8];

  if (jvm_check_jvm(j, err, sizeof(err))) return -EPERM;
  if (j->pidfd >= 0) {
    if (!syscall(SYS_pidfd_send_signal, j->pidfd, sig, NULL, 0)) return 0;
    if (errno != ENOSYS) return -errno;
  }
  return kill(j->pid, sig) ? -errno : 0;
}

int jvm_alive(const struct jvm *j)
{
  struct pollfd p = {.fd = j->pidfd, .events = POLLIN};
  struct stat sb;

  if (!j->pid) return 0;
  if (j->pidfd >= 0) return poll(&p, 1, 0) == 0;
  /* a /proc folder whose process is gone answers nothing */
  return !fstatat(j->procfd, "stat", &sb, 0);
}

int jvm_maps(const struct jvm *j, int (*cb)(void *, const struct proc_map *),
             void *arg)
{
  int fd, rc;

  if (j->procfd < 0) return -ESRCH;
  if ((fd = openat(j->procfd, "maps", O_RDONLY | O_CLOEXEC)) < 0) return -errno;
  rc = proc_maps_fd(fd, cb, arg);
  close(fd);
  return rc;
}

int jvm_perfdata(struct jvm *j, struct perfdata *pd)
{
  struct root ours;
  struct stat sb;
  int fd, rc;

  if (j->pd) { /* the open's, handed over */
    *pd = *j->pd;
    free(j->pd);
    j->pd = NULL;
    return 0;
  }
  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  if (!j->vm.file) {
    snprintf(pd->err, sizeof(pd->err),
             "no PerfData file for pid %d (not a JVM, started with "
             "-XX:-UsePerfData, or another user's JVM?)",
             j->pid);
    return -ENOENT;
  }
  if (j->listed) return vm_open(&j->vm, pd); /* as the walk listed it */
  if (!j->pid) return pd_open(pd, j->vm.file, 0);
  if (j->other_ns) {
    rc = root_open_checked(&j->root, -1, j->vm.file, O_RDONLY, S_IFREG,
                           (long long)j->vm.uid, &fd, &sb);
  } else if (!(rc = root_open(0, &ours))) { /* our own /tmp */
    rc = root_open_checked(&ours, -1, j->vm.file, O_RDONLY, S_IFREG,
                           (long long)j->vm.uid, &fd, &sb);
    root_close(&ours);
  }
  if (!rc) return pd_open_stat(pd, fd, j->vm.path, &sb);
  snprintf(pd->err, sizeof(pd->err), "%s", root_check_msg(rc, S_IFREG));
  return rc;
}

int jvm_same_path(const struct jvm *j, const char *host_path)
{
  struct stat here, there;
  char cwd[PATH_MAX], *dir, *slash;
  int same = 0;

  if (j->root.fd < 0) return 0;
  if (host_path[0] == '/' || !getcwd(cwd, sizeof(cwd))) *cwd = 0;
  dir =
      xasprintf("%s%s%s", cwd, *cwd && strcmp(cwd, "/") ? "/" : "", host_path);
  slash = strrchr(dir, '/');
  slash[slash == dir] = 0; /* "/x" -> "/" */
  if (!stat(dir, &here) && !root_stat(&j->root, dir, &there))
    same = here.st_dev == there.st_dev && here.st_ino == there.st_ino;
  free(dir);
  return same;
}

void jvm_file_owner(const struct jvm *j, long long *uid, long long *gid)
{
  *uid = geteuid() ? -1 : (long long)j->st.euid;
  *gid = geteuid() ? -1 : (long long)j->st.egid;
}

/* The inode of our own namespace of kind; 0 when it cannot be read. */
static uint64_t own_ns(const char *kind)
{
  uint64_t ino;

  return proc_self_ns_ino(kind, &ino) ? 0 : ino;
}

void jvm_owner(const struct jvm *j, struct jvm_owner *o)
{
  static uint64_t pidns, mntns;
  struct stat sb;

  if (!pidns) pidns = own_ns("pid");
  if (!mntns) mntns = own_ns("mnt");
  memset(o, 0, sizeof(*o));
  if (j->pidns && pidns && j->pidns != pidns) {
    o->kind = JVM_OWNER_PIDNS;
    o->id = j->pidns;
  } else if (j->procfd >= 0 && mntns && !fstatat(j->procfd, "ns/mnt", &sb, 0) &&
             sb.st_ino != mntns) {
    o->kind = JVM_OWNER_MNTNS;
    o->id = sb.st_ino;
  } else {
    o->kind = JVM_OWNER_USER;
    o->id = j->st.euid;
  }
}

int jvm_owner_same(const struct jvm_owner *a, const struct jvm_owner *b)
{
  return a->kind == b->kind && a->id == b->id;
}

void jvm_owner_name(const struct jvm_owner *o, char *s, size_t n)
{
  if (o->kind == JVM_OWNER_PIDNS)
    snprintf(s, n, "the container of pid namespace %llu",
             (unsigned long long)o->id);
  else if (o->kind == JVM_OWNER_MNTNS)
    snprintf(s, n, "the container of mount namespace %llu",
             (unsigned long long)o->id);
  else
    snprintf(s, n, "user %llu", (unsigned long long)o->id);
}
