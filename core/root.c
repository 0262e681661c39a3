/* root.c - a process's filesystem seen from outside, safely
 *
 * Why: a path walked through /proc/<pid>/root is resolved by the kernel
 * against *our* root once it meets an absolute symlink or climbs with "..",
 * so a container could point its /tmp at any host folder. openat2() with
 * RESOLVE_IN_ROOT (Linux 5.6) makes the opened root act as "/" for the
 * whole walk, as chroot would. Older kernels (RHEL 8 is 4.18) get the same
 * answer from a walk here: one component at a time with O_PATH|O_NOFOLLOW,
 * each symlink read and its text resolved again inside the root, ".."
 * taken back along the folders walked (never above the root), at most 40
 * links, as the kernel's own MAXSYMLINKS.
 */
#include "core/jvmtool.h"
#include "core/root.h"
#include <sys/syscall.h>

#ifndef SYS_openat2
#define SYS_openat2 437  /* the same number on every architecture */
#endif

/* linux/openat2.h, spelled out: musl's headers need not have it. */
struct open_how_ {
  uint64_t flags, mode, resolve;
};
enum { RESOLVE_NO_MAGICLINKS_ = 0x02, RESOLVE_IN_ROOT_ = 0x10 };
enum { MAX_LINKS = 40, MAX_DEPTH = 256, TAKE_BUF = 65536 };

static enum root_method method = ROOT_AUTO;

enum root_method root_method(enum root_method force)
{
  if (force != ROOT_AUTO) method = force;
  if (method == ROOT_AUTO) {
    const char *e = getenv("JVMTOOL_NO_OPENAT2");
    struct open_how_ how = {O_PATH | O_CLOEXEC, 0, 0};
    long fd;

    if (e && *e && strcmp(e, "0")) {
      method = ROOT_WALK;
    } else {
      /* Missing (ENOSYS) or filtered by a seccomp profile (EPERM). */
      fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
      method = fd < 0 && (errno == ENOSYS || errno == EPERM) ? ROOT_WALK
               : ROOT_OPENAT2;
      if (fd >= 0) close((int)fd);
    }
  }
  return method;
}

int root_open(int pid, struct root *r)
{
  char path[64];
  int rc;

  if (pid) snprintf(path, sizeof(path), "/proc/%d/root", pid);
  else snprintf(path, sizeof(path), "/");
  rc = root_open_dir(path, r);
  r->pid = pid;
  return rc;
}

int root_open_dir(const char *dir, struct root *r)
{
  struct stat sb, ours;

  memset(r, 0, sizeof(*r));
  r->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (r->fd < 0 || fstat(r->fd, &sb)) {
    int err = -errno;

    root_close(r);
    return err;
  }
  r->dev = sb.st_dev;
  r->ino = sb.st_ino;
  r->same = !stat("/", &ours) && ours.st_dev == sb.st_dev &&
            ours.st_ino == sb.st_ino;
  return 0;
}

void root_close(struct root *r)
{
  if (r->fd >= 0) close(r->fd);
  r->fd = -1;
}

static int open_flags(int flags)
{
  if (flags & O_PATH)
    return (flags & (O_PATH | O_DIRECTORY)) | O_NOFOLLOW | O_CLOEXEC;
  return flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
}

static int by_openat2(int dirfd, const char *path, int flags, mode_t mode)
{
  struct open_how_ how = {
    (uint64_t)(unsigned)flags, flags & O_CREAT ? mode : 0,
    RESOLVE_IN_ROOT_ | RESOLVE_NO_MAGICLINKS_
  };
  long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

  return fd < 0 ? -errno : (int)fd;
}

/* The walk's state: the folders entered, root first; the text still to
 * resolve. */
struct walk {
  int dirs[MAX_DEPTH];
  int depth;
  struct buf rest;
  size_t pos;
};

static void walk_pop_to(struct walk *w, int depth)
{
  while (w->depth > depth) close(w->dirs[--w->depth]);
}

/* Replace the rest of the walk with target + "/" + the part not yet
 * walked; an absolute target starts again at the root. */
static void walk_link(struct walk *w, const char *target)
{
  struct buf b = {0};

  buf_adds(&b, target);
  buf_addc(&b, '/');
  buf_adds(&b, w->rest.p + w->pos);
  buf_free(&w->rest);
  w->rest = b;
  w->pos = 0;
  if (target[0] == '/') walk_pop_to(w, 1);
}

static int by_walk(int rootfd, const char *path, int flags, mode_t mode,
                   int follow)
{
  struct walk w = {.depth = 1};
  int links = 0, rc = -ENOENT;

  if (!*path) return -ENOENT;
  if ((w.dirs[0] = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0) return -errno;
  buf_adds(&w.rest, path);
  /* A trailing "/" means "a folder": walked as a trailing "/.". */
  if (w.rest.p[w.rest.len - 1] == '/') buf_addc(&w.rest, '.');
  for (;;) {
    char *name = w.rest.p + w.pos, *end, target[PATH_MAX];
    int cur = w.dirs[w.depth - 1], fd, last;
    struct stat sb;
    ssize_t n;

    while (*name == '/') name++;
    end = name + strcspn(name, "/");
    last = !end[strspn(end, "/")];
    w.pos = (size_t)(end - w.rest.p) + (*end ? 1 : 0);
    if (*end) *end = 0;
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
      if (!strcmp(name, "..")) walk_pop_to(&w, w.depth > 1 ? w.depth - 1 : 1);
      if (!last) continue;
      /* the folder reached is the answer */
      fd = openat(w.dirs[w.depth - 1], ".", flags, mode);
      rc = fd < 0 ? -errno : fd;
      break;
    }
    if (strlen(name) > NAME_MAX) {
      rc = -ENAMETOOLONG;
      break;
    }
    if (last && !follow) {
      fd = openat(cur, name, flags, mode);
      rc = fd < 0 ? -errno : fd;
      break;
    }
    if ((fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        fstat(fd, &sb)) {
      rc = -errno;
      if (fd >= 0) close(fd);
      break;
    }
    if (last && !S_ISLNK(sb.st_mode)) {
      rc = fd;  /* root_stat's answer */
      break;
    }
    if (S_ISDIR(sb.st_mode)) {
      if (w.depth == MAX_DEPTH) {
        close(fd);
        rc = -ENAMETOOLONG;
        break;
      }
      w.dirs[w.depth++] = fd;
      continue;
    }
    if (!S_ISLNK(sb.st_mode)) {
      close(fd);
      rc = -ENOTDIR;
      break;
    }
    n = readlinkat(fd, "", target, sizeof(target) - 1);
    close(fd);
    if (n <= 0 || ++links > MAX_LINKS) {
      rc = n < 0 ? -errno : n == 0 ? -ENOENT : -ELOOP;
      break;
    }
    target[n] = 0;
    walk_link(&w, target);
  }
  walk_pop_to(&w, 0);
  buf_free(&w.rest);
  return rc;
}

int root_openat(const struct root *r, int dirfd, const char *path, int flags,
                mode_t mode, int *fd)
{
  int base = dirfd >= 0 ? dirfd : r ? r->fd : -1, rc;
  struct stat sb;

  *fd = -1;
  if (base < 0) return -EBADF;
  if (dirfd >= 0 && (strchr(path, '/') || !*path || !strcmp(path, ".") ||
                     !strcmp(path, "..")))
    return -EINVAL;
  flags = open_flags(flags);
  if (!(flags & O_CREAT)) mode = 0;
  if (root_method(ROOT_AUTO) == ROOT_OPENAT2)
    rc = by_openat2(base, path, flags, mode);
  else if (dirfd < 0)
    rc = by_walk(base, path, flags, mode, 0);
  else if ((rc = openat(base, path, flags, mode)) < 0)
    rc = -errno;
  if (rc < 0) return rc;
  /* O_PATH|O_NOFOLLOW opens a link itself: never the answer. */
  if ((flags & O_PATH) && (fstat(rc, &sb) || S_ISLNK(sb.st_mode))) {
    close(rc);
    return -ELOOP;
  }
  *fd = rc;
  return 0;
}

int root_stat(const struct root *r, const char *path, struct stat *sb)
{
  int fd, rc;

  if (root_method(ROOT_AUTO) == ROOT_OPENAT2)
    fd = by_openat2(r->fd, path, O_PATH | O_CLOEXEC, 0);
  else
    fd = by_walk(r->fd, path, O_PATH | O_CLOEXEC, 0, 1);
  if (fd < 0) return fd;
  rc = fstat(fd, sb) ? -errno : 0;
  close(fd);
  return rc;
}

int root_check(int fd, mode_t type, long long uid, struct stat *sb)
{
  struct stat st;

  if (!sb) sb = &st;
  if (fstat(fd, sb)) return -errno;
  if (type && (sb->st_mode & S_IFMT) != type) return -EINVAL;
  if (uid >= 0 && sb->st_uid != (uid_t)uid) return -EPERM;
  if (S_ISREG(sb->st_mode) && sb->st_nlink != 1) return -EMLINK;
  return 0;
}

const char *root_check_msg(int rc, mode_t type)
{
  switch (rc) {
  case -ELOOP: return "a symbolic link";  /* the last name: not followed */
  case -EINVAL:
    return type == S_IFSOCK ? "not a socket" : type == S_IFDIR
           ? "not a folder" : "not a regular file";
  case -EPERM: return "owned by another user";
  case -EMLINK: return "a file with a second hard link";
  default: return strerror(-rc);
  }
}

int root_open_checked(const struct root *r, int dirfd, const char *path,
                      int flags, mode_t type, long long uid, int *fd,
                      struct stat *sb)
{
  int rc = root_openat(r, dirfd, path, flags, 0, fd);

  if (rc) return rc;
  if ((rc = root_check(*fd, type, uid, sb))) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int root_read(const struct root *r, int dirfd, const char *path,
              long long uid, size_t max, char **data, size_t *len)
{
  struct stat sb;
  int fd, rc = root_open_checked(r, dirfd, path, O_RDONLY, S_IFREG, uid, &fd,
                                 &sb);

  if (rc) return rc;
  rc = (uint64_t)sb.st_size > max ? -EFBIG : read_fd(fd, max, data, len);
  close(fd);
  return rc;
}

int root_tmp(const struct root *r, int *fd, struct stat *sb)
{
  int rc = root_openat(r, -1, "/tmp/.", O_RDONLY | O_DIRECTORY, 0, fd);

  if (!rc && fstat(*fd, sb)) {
    rc = -errno;
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int root_cwd(const struct root *r, int *fd)
{
  char path[64];

  if (r->pid) snprintf(path, sizeof(path), "/proc/%d/cwd", r->pid);
  else snprintf(path, sizeof(path), ".");
  *fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return *fd < 0 ? -errno : 0;
}

int root_unlink(int dirfd, const char *name, const struct stat *sb, int flags)
{
  struct stat now;

  if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW)) return -errno;
  if (now.st_dev != sb->st_dev || now.st_ino != sb->st_ino ||
      (now.st_mode & S_IFMT) != (sb->st_mode & S_IFMT))
    return -ESTALE;
  return unlinkat(dirfd, name, flags) ? -errno : 0;
}

int root_create(int dirfd, const char *prefix, const char *suffix,
                mode_t mode, long long uid, long long gid, char *name,
                size_t namelen, int *fd)
{
  struct stat sb;
  int rc = -EEXIST;

  *fd = -1;
  for (int tries = 0; tries < 8 && rc == -EEXIST; tries++) {
    char hex[17];

    random_hex(hex);
    if ((size_t)snprintf(name, namelen, "%s%s%s", prefix, hex, suffix) >=
        namelen)
      return -ENAMETOOLONG;
    *fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
                 O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
    rc = *fd < 0 ? -errno : 0;
  }
  if (rc) return rc;
  if ((uid >= 0 || gid >= 0) &&
      fchown(*fd, uid >= 0 ? (uid_t)uid : (uid_t)-1,
             gid >= 0 ? (gid_t)gid : (gid_t)-1))
    rc = -errno;
  if (!rc && fchmod(*fd, mode)) rc = -errno;
  if (!rc && fstat(*fd, &sb)) rc = -errno;
  if (rc) {
    if (!fstat(*fd, &sb)) root_unlink(dirfd, name, &sb, 0);
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int root_put(int dirfd, const char *prefix, const char *suffix,
             const void *data, size_t len, mode_t mode, long long uid,
             long long gid, char *name, size_t namelen)
{
  const char *p = data;
  struct stat sb;
  int fd, rc = root_create(dirfd, prefix, suffix, mode, uid, gid, name,
                           namelen, &fd);

  if (rc) return rc;
  while (len && !rc) {
    ssize_t n = write(fd, p, len);

    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) rc = n < 0 ? -errno : -EIO;
    else p += n, len -= (size_t)n;
  }
  if (!rc && fsync(fd) && errno != EINVAL) rc = -errno;
  if (rc && !fstat(fd, &sb)) root_unlink(dirfd, name, &sb, 0);
  if (close(fd) && !rc) rc = -errno;
  return rc;
}

/* Copy fd to outfd, at most max bytes (-EFBIG after max were written). */
static int copy_bounded(int fd, int outfd, uint64_t max, uint64_t *copied)
{
  uint64_t done = 0;
  char *buf = xmalloc(TAKE_BUF);
  int rc = 0;

  for (;;) {
    ssize_t n = read(fd, buf, TAKE_BUF), w = 0;

    if (n < 0 && errno == EINTR) continue;
    if (n < 0) rc = -errno;
    if (n <= 0) break;
    if (done + (uint64_t)n > max) {
      n = (ssize_t)(max - done);
      rc = -EFBIG;
    }
    while (w < n) {
      ssize_t k = write(outfd, buf + w, (size_t)(n - w));

      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        rc = k < 0 ? -errno : -EIO;
        break;
      }
      w += k;
    }
    done += (uint64_t)w;
    if (rc) break;
  }
  free(buf);
  if (copied) *copied = done;
  return rc;
}

int root_take_at(int dirfd, const char *name, long long uid, int outfd,
                 uint64_t max, uint64_t *copied, int *fd)
{
  struct stat sb;
  int rc;

  *fd = -1;
  if (copied) *copied = 0;
  if ((rc = root_open_checked(NULL, dirfd, name, O_RDONLY, S_IFREG, uid, fd,
                              &sb)))
    return rc;
  rc = root_unlink(dirfd, name, &sb, 0);
  if (!rc && outfd >= 0) rc = copy_bounded(*fd, outfd, max, copied);
  if (rc || outfd >= 0) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int root_release(const struct root *r, const char *exe, char **data,
                 size_t *len)
{
  char *home = xstrdup(exe), *p;
  int rc = -ENOENT;

  /* Drop "/java", then look next to "bin", then next to "jre". */
  for (int i = 0; i < 3 && rc && (p = strrchr(home, '/')); i++) {
    char *path;

    *p = 0;
    if (!i) continue;
    path = xasprintf("%s/release", home);
    rc = root_read(r, -1, path, -1, 65536, data, len);
    free(path);
  }
  free(home);
  return rc;
}

char *root_name(const struct root *r, const char *path)
{
  if (!r->pid) return xstrdup(path);
  return xasprintf("/proc/%d/root%s", r->pid, path);
}

void root_fd_path(int fd, char *buf, size_t n)
{
  snprintf(buf, n, "/proc/self/fd/%d", fd);
}

int root_pid_of(const char *path)
{
  int n, end = 0;

  if (sscanf(path, "/proc/%d/root%n", &n, &end) != 1 || !end || n <= 0 ||
      (path[end] && path[end] != '/'))
    return 0;
  return n;
}
