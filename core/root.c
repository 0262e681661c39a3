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
#include <sys/sysmacros.h>

#ifndef SYS_openat2
#define SYS_openat2 437 /* the same number on every architecture */
#endif

/* linux/openat2.h, spelled out: musl's headers need not have it. */
struct open_how_ {
  uint64_t flags, mode, resolve;
};
enum { RESOLVE_NO_MAGICLINKS_ = 0x02, RESOLVE_IN_ROOT_ = 0x10 };
enum { MAX_LINKS = 40, MAX_DEPTH = 256 };

static enum root_method method = ROOT_AUTO;
static int tried; /* openat2 answered once: method is what the kernel has */

enum root_method root_method(enum root_method force)
{
  if (force != ROOT_AUTO) {
    method = force;
    tried = 1;
  }
  if (method == ROOT_AUTO) {
    const char *e = getenv("JVMTOOL_NO_OPENAT2");

    /* openat2 until its first call says the kernel has none (by_openat2):
     * no call spent asking */
    method = e && *e && strcmp(e, "0") ? ROOT_WALK : ROOT_OPENAT2;
    tried = method == ROOT_WALK;
  }
  return method;
}

/* The first lines of <file> (uid_map, gid_map) in procfd's process into
 * map; returns how many (0: none read: no id is theirs). */
static int read_idmap(int procfd, const char *file, struct root_idmap *map)
{
  char text[512];
  size_t len;
  int n = 0;

  if (proc_read_small(procfd, file, text, sizeof(text), &len) || !len) return 0;
  for (char *line = text, *next; *line && n < ROOT_IDMAP_MAX; line = next) {
    unsigned long long in, out, count;

    if ((next = strchr(line, '\n')))
      *next++ = 0;
    else
      next = line + strlen(line);
    const char *p = scan_u64_after_blanks(line, 10, &in);

    if (p && (p = scan_u64_after_blanks(p, 10, &out)) &&
        scan_u64_after_blanks(p, 10, &count) && in <= UINT32_MAX &&
        out <= UINT32_MAX && count <= UINT32_MAX) {
      map[n].in = (uint32_t)in;
      map[n].out = (uint32_t)out;
      map[n].count = (uint32_t)count;
      n++;
    }
  }
  return n;
}

int root_open(int pid, struct root *r)
{
  int procfd, rc;

  if (!pid) return root_open_dir("/", r);
  if ((procfd = proc_open(pid)) < 0) {
    memset(r, 0, sizeof(*r));
    r->fd = -1;
    return procfd;
  }
  rc = root_open_at(procfd, pid, r);
  close(procfd);
  return rc;
}

/* Our own "/" (dev, ino), stat'ed once per run: 1 when sb is it. */
static int our_root(const struct stat *sb)
{
  static struct stat ours;
  static int known;

  if (!known) known = !stat("/", &ours) ? 1 : -1;
  return known > 0 && ours.st_dev == sb->st_dev && ours.st_ino == sb->st_ino;
}

int root_open_at(int procfd, int pid, struct root *r)
{
  uint64_t theirs;
  static uint64_t ours;
  struct stat sb;
  int rc = 0;

  memset(r, 0, sizeof(*r));
  r->fd = openat(procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (r->fd < 0 || fstat(r->fd, &sb)) {
    rc = errno == ESRCH ? -ENOENT : -errno;
    root_close(r);
    return rc;
  }
  r->dev = sb.st_dev;
  r->ino = sb.st_ino;
  r->same = our_root(&sb);
  r->pid = pid;
  /* Another user namespace, or one we cannot tell: its maps say whose
   * folders are its users' (none, when they cannot be read). */
  if ((!ours && proc_self_ns_ino("user", &ours)) ||
      proc_ns_ino_at(procfd, "user", &theirs) || ours != theirs) {
    r->other = 1;
    r->nuid = read_idmap(procfd, "uid_map", r->uid);
    r->ngid = read_idmap(procfd, "gid_map", r->gid);
  }
  return 0;
}

int root_open_dir(const char *dir, struct root *r)
{
  struct stat sb;

  memset(r, 0, sizeof(*r));
  /* openat: musl's open adds an fcntl for O_CLOEXEC */
  r->fd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (r->fd < 0 || fstat(r->fd, &sb)) {
    int err = -errno;

    root_close(r);
    return err;
  }
  r->dev = sb.st_dev;
  r->ino = sb.st_ino;
  r->same = our_root(&sb);
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
  struct open_how_ how = {(uint64_t)(unsigned)flags, flags & O_CREAT ? mode : 0,
                          RESOLVE_IN_ROOT_ | RESOLVE_NO_MAGICLINKS_};
  long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

  /* Missing (ENOSYS) or filtered by a seccomp profile (EPERM) at the first
   * call: the walk from then on (-ENOSYS tells the caller to take it). */
  if (fd < 0 && !tried && (errno == ENOSYS || errno == EPERM)) {
    method = ROOT_WALK;
    tried = 1;
    return -ENOSYS;
  }
  tried = 1;
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
      rc = fd; /* root_stat's answer */
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

/* root_openat, and when sb is not NULL the opened file's fstat in *sb
 * (one fstat serves the link check and the caller's). */
static int open_in(const struct root *r, int dirfd, const char *path, int flags,
                   mode_t mode, int *fd, struct stat *sb)
{
  int base = dirfd >= 0 ? dirfd : r ? r->fd : -1, rc;
  struct stat st;

  if (!sb) sb = &st;
  *fd = -1;
  if (base < 0) return -EBADF;
  if (dirfd >= 0 && (strchr(path, '/') || !*path || !strcmp(path, ".") ||
                     !strcmp(path, "..")))
    return -EINVAL;
  flags = open_flags(flags);
  if (!(flags & O_CREAT)) mode = 0;
  rc = root_method(ROOT_AUTO) == ROOT_OPENAT2
           ? by_openat2(base, path, flags, mode)
           : -ENOSYS;
  if (rc == -ENOSYS && root_method(ROOT_AUTO) == ROOT_WALK) {
    if (dirfd < 0)
      rc = by_walk(base, path, flags, mode, 0);
    else if ((rc = openat(base, path, flags, mode)) < 0)
      rc = -errno;
  }
  if (rc < 0) return rc;
  /* O_PATH|O_NOFOLLOW opens a link itself: never the answer (with
   * O_DIRECTORY the kernel already refused it: ENOTDIR). */
  if (((flags & O_PATH) && !(flags & O_DIRECTORY)) || sb != &st) {
    if (fstat(rc, sb)) {
      int err = -errno;

      close(rc);
      return err;
    }
  }
  if ((flags & O_PATH) && !(flags & O_DIRECTORY) && S_ISLNK(sb->st_mode)) {
    close(rc);
    return -ELOOP;
  }
  *fd = rc;
  return 0;
}

int root_openat(const struct root *r, int dirfd, const char *path, int flags,
                mode_t mode, int *fd)
{
  return open_in(r, dirfd, path, flags, mode, fd, NULL);
}

int root_stat(const struct root *r, const char *path, struct stat *sb)
{
  int fd, rc;

  fd = root_method(ROOT_AUTO) == ROOT_OPENAT2
           ? by_openat2(r->fd, path, O_PATH | O_CLOEXEC, 0)
           : -ENOSYS;
  if (fd == -ENOSYS && root_method(ROOT_AUTO) == ROOT_WALK)
    fd = by_walk(r->fd, path, O_PATH | O_CLOEXEC, 0, 1);
  if (fd < 0) return fd;
  rc = fstat(fd, sb) ? -errno : 0;
  close(fd);
  return rc;
}

/* root_check's rule on a stat already taken. */
static int check_sb(const struct stat *sb, mode_t type, long long uid)
{
  if (type && (sb->st_mode & S_IFMT) != type) return -EINVAL;
  if (uid >= 0 && sb->st_uid != (uid_t)uid) return -EPERM;
  if (S_ISREG(sb->st_mode) && sb->st_nlink != 1) return -EMLINK;
  return 0;
}

int root_check(int fd, mode_t type, long long uid, struct stat *sb)
{
  struct stat st;

  if (!sb) sb = &st;
  if (fstat(fd, sb)) return -errno;
  return check_sb(sb, type, uid);
}

const char *root_check_msg(int rc, mode_t type)
{
  switch (rc) {
  case -ELOOP:
    return "a symbolic link"; /* the last name: not followed */
  case -EINVAL:
    return type == S_IFSOCK  ? "not a socket"
           : type == S_IFDIR ? "not a folder"
                             : "not a regular file";
  case -EPERM:
    return "owned by another user";
  case -EMLINK:
    return "a file with a second hard link";
  case -EXDEV:
    return "a folder none of the container's users own";
  case -ENODATA:
    return "a file with holes: not written from start to end";
  default:
    return strerror(-rc);
  }
}

int root_open_checked(const struct root *r, int dirfd, const char *path,
                      int flags, mode_t type, long long uid, int *fd,
                      struct stat *sb)
{
  struct stat st;
  int rc = open_in(r, dirfd, path, flags, 0, fd, sb ? sb : &st);

  if (rc) return rc;
  if ((rc = check_sb(sb ? sb : &st, type, uid))) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int root_read(const struct root *r, int dirfd, const char *path, long long uid,
              size_t max, char **data, size_t *len)
{
  struct stat sb;
  int fd,
      rc = root_open_checked(r, dirfd, path, O_RDONLY, S_IFREG, uid, &fd, &sb);

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
  unsigned long long n;
  const char *p;

  if (!starts_with(path, "/proc/") || !(p = scan_u64(path + 6, 10, &n)) ||
      !starts_with(p, "/root") || n < 1 || n > INT_MAX || (p[5] && p[5] != '/'))
    return 0;
  return (int)n;
}

int root_mounts_read(int dirfd, const char *path, struct root_mounts *m)
{
  memset(m, 0, sizeof(*m));
  return read_file(dirfd, path, 0, ROOT_MOUNTS_MAX, &m->text, &m->len);
}

void root_mounts_free(struct root_mounts *m)
{
  free(m->text);
  memset(m, 0, sizeof(*m));
}

/* File systems a process (or a remote server) answers for, not the
 * kernel: a request there waits as long as the server wants. */
static int served(const char *type)
{
  static const char *const types[] = {"fuse", "fuseblk", "9p",   "nfs", "nfs4",
                                      "cifs", "smb3",    "ceph", "afs"};

  if (starts_with(type, "fuse.")) return 1;
  for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
    if (!strcmp(type, types[i])) return 1;
  return 0;
}

/* One mountinfo line: "36 35 98:0 /root /mnt/point opts [tags] - type
 * source superopts", the mount point octal-escaped. */
struct mount_line {
  unsigned maj, min;
  char root[PATH_MAX], point[PATH_MAX], type[64];
};

static void unescape(const char *s, size_t n, char *out, size_t max)
{
  size_t k = 0;

  for (size_t i = 0; i < n && k + 1 < max; i++) {
    if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3') {
      out[k++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
                        (s[i + 3] - '0'));
      i += 3;
    } else {
      out[k++] = s[i];
    }
  }
  out[k] = 0;
}

static int mount_line(const char *line, size_t n, struct mount_line *l)
{
  const char *f[5], *p = line, *end = line + n, *sep;
  size_t k;

  for (int i = 0; i < 5; i++) {
    f[i] = p;
    if (!(p = memchr(p, ' ', (size_t)(end - p)))) return -1;
    p++;
  }
  {
    unsigned long long maj, min;
    const char *q = scan_u64(f[2], 10, &maj);

    if (!q || *q != ':' || !(q = scan_u64(q + 1, 10, &min)) || *q != ' ' ||
        maj > UINT_MAX || min > UINT_MAX)
      return -1;
    l->maj = (unsigned)maj;
    l->min = (unsigned)min;
  }
  unescape(f[3], (size_t)(f[4] - f[3] - 1), l->root, sizeof(l->root));
  unescape(f[4], (size_t)(p - f[4] - 1), l->point, sizeof(l->point));
  for (sep = p; sep + 3 <= end && memcmp(sep, " - ", 3); sep++)
    ;
  if (sep + 3 > end) return -1;
  sep += 3;
  k = strcspn(sep, " \n");
  if (sep + k > end) k = (size_t)(end - sep);
  if (k >= sizeof(l->type)) k = sizeof(l->type) - 1;
  memcpy(l->type, sep, k);
  l->type[k] = 0;
  return 0;
}

/* Calls cb for each line of m; stops at a nonzero return (returned). */
static int each_mount(const struct root_mounts *m,
                      int (*cb)(void *, const struct mount_line *), void *arg)
{
  struct mount_line l; /* 8 KB on the stack: a heap block this size
                          went back to the kernel at each call */
  const char *p = m->text, *end = m->text + m->len;
  int rc = 0;

  while (p && p < end && !rc) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

    if (!mount_line(p, n, &l)) rc = cb(arg, &l);
    p = nl ? nl + 1 : NULL;
  }
  return rc;
}

struct hostile {
  const char *dir;
  size_t dlen;
  dev_t dev;
  char *why;
  size_t n;
  int below; /* mounts at dir or under it only */
};

static int hostile_line(void *arg, const struct mount_line *l)
{
  struct hostile *h = arg;
  size_t plen = strlen(l->point);
  int on_way =
          !strcmp(l->point, "/") || (!strncmp(h->dir, l->point, plen) &&
                                     (h->dir[plen] == '/' || !h->dir[plen])),
      under = plen > h->dlen && !strncmp(l->point, h->dir, h->dlen) &&
              l->point[h->dlen] == '/';

  if (!served(l->type)) return 0;
  if (h->below) {
    if (!under && (strncmp(h->dir, l->point, plen) || plen != h->dlen))
      return 0;
    snprintf(h->why, h->n, "a %s mount at %s", l->type, l->point);
    return 1;
  }
  if (!on_way && !under && (!h->dev || makedev(l->maj, l->min) != h->dev))
    return 0;
  snprintf(h->why, h->n,
           under ? "a %s mount in its /tmp (%s)"
                 : "its /tmp lies on a %s mount (%s)",
           l->type, l->point);
  return 1;
}

int root_mounts_hostile(const struct root_mounts *m, const char *dir, dev_t dev,
                        char *why, size_t n)
{
  struct hostile h = {dir, strlen(dir), dev, why, n, 0};

  while (h.dlen > 1 && dir[h.dlen - 1] == '/') h.dlen--;
  return each_mount(m, hostile_line, &h);
}

int root_mounts_below(const struct root_mounts *m, const char *dir, char *why,
                      size_t n)
{
  struct hostile h = {dir, strlen(dir), 0, why, n, 1};

  while (h.dlen > 1 && dir[h.dlen - 1] == '/') h.dlen--;
  return each_mount(m, hostile_line, &h);
}

const struct root_mounts *root_mounts_self(void)
{
  static struct root_mounts self;
  static int done;

  if (!done) {
    done = 1;
    root_mounts_read(AT_FDCWD, "/proc/self/mountinfo", &self);
  }
  return &self;
}

struct top {
  int found;
  unsigned maj, min;
  char root[PATH_MAX];
};

static int top_line(void *arg, const struct mount_line *l)
{
  struct top *t = arg;

  if (strcmp(l->point, "/")) return 0;
  t->found = 1; /* the last one is on top */
  t->maj = l->maj;
  t->min = l->min;
  snprintf(t->root, sizeof(t->root), "%s", l->root);
  return 0;
}

int root_mounts_same_root(const struct root_mounts *a,
                          const struct root_mounts *b)
{
  struct top *x = xzalloc(2 * sizeof(*x)), *y = x + 1;
  int same;

  each_mount(a, top_line, x);
  each_mount(b, top_line, y);
  same = x->found && y->found && x->maj == y->maj && x->min == y->min &&
         !strcmp(x->root, y->root);
  free(x);
  return same;
}

ssize_t root_link(int procfd, char *buf, size_t n)
{
  ssize_t len;

  if ((len = readlinkat(procfd, "root", buf, n - 1)) < 0) return -errno;
  buf[len] = 0;
  return len;
}
