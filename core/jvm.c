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
#include <poll.h>
#include <sys/syscall.h>

/* A folder the JVM would trust (§2.3): a real directory, not writable by
 * group or others, ours unless we are root. */
static int secure_dir(int dirfd, const char *name, struct stat *sb)
{
  if (fstatat(dirfd, name, sb, AT_SYMLINK_NOFOLLOW)) return 0;
  if (!S_ISDIR(sb->st_mode)) return 0;
  if (sb->st_mode & (S_IWGRP | S_IWOTH)) return 0;
  return geteuid() == 0 || sb->st_uid == geteuid();
}

/* The newest (by ctime) regular file <name> in a secure folder
 * hsperfdata_<user> of tmpfd; sets *user and *out. Returns 1 if found. */
static int find_file(int tmpfd, int name, char **user, struct stat *out)
{
  int fd = fcntl(tmpfd, F_DUPFD_CLOEXEC, 0), found = 0, dfd;
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  struct dirent *e;
  struct stat dsb, fsb;
  char file[16];

  if (!d) {
    if (fd >= 0) close(fd);
    return 0;
  }
  snprintf(file, sizeof(file), "%d", name);
  while ((e = readdir(d))) {
    if (!starts_with(e->d_name, "hsperfdata_") ||
        !secure_dir(tmpfd, e->d_name, &dsb) ||
        root_openat(NULL, tmpfd, e->d_name, O_PATH | O_DIRECTORY, 0, &dfd))
      continue;
    if (!fstatat(dfd, file, &fsb, AT_SYMLINK_NOFOLLOW) &&
        S_ISREG(fsb.st_mode) && fsb.st_size > 0 &&
        (!found || fsb.st_ctime > out->st_ctime)) {
      free(*user);
      *user = xstrdup(e->d_name + 11);
      *out = fsb;
      found = 1;
    }
    close(dfd);
  }
  closedir(d);
  return found;
}

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

/* What j's PerfData says of it: its Java version and whether it takes
 * attach requests (sun.rt.jvmCapabilities' first character, as the JDK's
 * attach client reads it). */
static void read_counters(struct jvm *j)
{
  struct perfdata pd;
  const struct pd_counter *c;
  const char *s;

  if (jvm_perfdata(j, &pd)) return;
  j->jdk = vm_java_feature(&pd);
  if ((c = pd_find(&pd, "sun.rt.jvmCapabilities")) && c->type == 'B' &&
      pd_string(&pd, c, &s))
    j->off = s[0] != '1';
  pd_close(&pd);
}

/* j's PerfData file, found by its pid as its own tools would in its
 * /tmp, kept when j's process maps it. */
static void find_perfdata(struct jvm *j)
{
  struct stat sb;
  int name = j->nspid, libjvm = 0, mapped;
  char *user = NULL;

  if (j->tmpfd >= 0 && !find_file(j->tmpfd, name, &user, &sb) &&
      j->nspid != j->pid && find_file(j->tmpfd, j->pid, &user, &sb))
    name = j->pid;
  j->vm.pid = j->pid;
  j->vm.nspid = name;
  if (user) {
    j->vm.user = user;
    j->vm.file = xasprintf("/tmp/hsperfdata_%s/%d", user, name);
  }
  mapped = proc_maps_file(j->procfd, user ? sb.st_dev : 0, user ? sb.st_ino : 0,
                          j->vm.file, &libjvm);
  if (mapped < 0) {
    j->is_jvm = JVM_UNKNOWN;
    mapped = 1; /* the file stays, as jps shows it; nothing is aimed */
  } else {
    j->is_jvm = libjvm || (user && mapped) ? JVM_IS : JVM_NOT;
  }
  if (!user || !mapped) { /* none, or planted/stale: not this process's */
    free(j->vm.file);
    j->vm.file = NULL;
    return;
  }
  j->vm.root_pid = j->other_ns ? j->root.pid : 0;
  j->vm.path =
      j->other_ns ? root_name(&j->root, j->vm.file) : xstrdup(j->vm.file);
  j->vm.uid = sb.st_uid;
  j->vm.alive = 1;
  j->vm.other_ns = j->other_ns;
  j->vm.locked = vm_flock_held(sb.st_dev, sb.st_ino);
  read_counters(j);
}

int jvm_open_pid(struct jvm *j, int pid, char *err, size_t n)
{
  struct root ours;
  struct stat tsb, osb;
  char path[32];
  int ourtmp = -1, rc;

  jvm_init(j);
  j->pid = pid;
  snprintf(path, sizeof(path), "/proc/%d", pid);
  if (pid <= 0 ||
      (j->procfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
      proc_status_at(j->procfd, &j->st))
    return fail(j, -ESRCH, err, n, "no process %d", pid);
  if ((rc = proc_foreign_user(pid, err, n))) {
    jvm_close(j);
    return rc;
  }
  j->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  j->nspid = proc_innermost(&j->st, pid);
  if (proc_ns_ino(pid, "pid", &j->pidns)) j->pidns = 0;
  if ((rc = root_open(0, &ours)) || (rc = root_tmp(&ours, &ourtmp, &osb))) {
    root_close(&ours);
    return fail(j, rc, err, n, "cannot open /tmp: %s", strerror(-rc));
  }
  root_close(&ours);
  /* its /tmp as it sees it; ours when its root cannot be opened */
  if (!root_open(pid, &j->root) && !root_tmp(&j->root, &j->tmpfd, &tsb)) {
    j->other_ns = tsb.st_dev != osb.st_dev || tsb.st_ino != osb.st_ino;
    close(ourtmp);
  } else {
    j->tmpfd = ourtmp;
  }
  find_perfdata(j);
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

int jvm_open_row(struct jvm *j, const struct vm *row, char *err, size_t n)
{
  if (row->pid) return jvm_open_pid(j, row->pid, err, n);
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
  if (j->is_jvm == JVM_IS) return 0;
  snprintf(err, n, "pid %d is not a JVM (%s): nothing sent", j->pid,
           j->is_jvm == JVM_UNKNOWN ? "its maps cannot be read"
                                    : "it maps no libjvm.so");
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

int jvm_perfdata(const struct jvm *j, struct perfdata *pd)
{
  struct root ours;
  int fd, rc;

  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  if (!j->vm.file) {
    snprintf(pd->err, sizeof(pd->err),
             "no PerfData file for pid %d (not a JVM, started with "
             "-XX:-UsePerfData, or another user's JVM?)",
             j->pid);
    return -ENOENT;
  }
  if (!j->pid) return pd_open(pd, j->vm.file, 0);
  if (j->other_ns) {
    rc = root_open_checked(&j->root, -1, j->vm.file, O_RDONLY, S_IFREG,
                           (long long)j->vm.uid, &fd, NULL);
  } else if (!(rc = root_open(0, &ours))) { /* our own /tmp */
    rc = root_open_checked(&ours, -1, j->vm.file, O_RDONLY, S_IFREG,
                           (long long)j->vm.uid, &fd, NULL);
    root_close(&ours);
  }
  if (!rc) return pd_open_fd(pd, fd, j->vm.path);
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

  return proc_ns_ino(0, kind, &ino) ? 0 : ino;
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
