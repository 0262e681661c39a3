/* root_change.c - changes inside a root, with its users' rights; files
 * taken out of it, bounded (root.h)
 *
 * Why: host root's capabilities are more than a container has over the
 * folders it shows us. In a root of another user namespace a change is made
 * with the file system ids of the folder's owner, and only when that owner
 * is one of the namespace's users: the kernel then applies the very
 * permission checks the container's own processes meet (a host folder of
 * root's, 0755, mounted or linked in, says "Permission denied" to both).
 * A file taken out is copied to the size the JVM left it at, and no further
 * than our bound, the destination's free space and a time budget allow.
 */
#include "core/jvmtool.h"
#include "core/root.h"
#include <grp.h>
#include <sys/fsuid.h>
#include <sys/statvfs.h>

enum { TAKE_BUF = 65536 };

static int mapped(const struct root_idmap *map, int n, uint32_t id)
{
  for (int i = 0; i < n; i++)
    if (id >= map[i].out && id - map[i].out < map[i].count) return 1;
  return 0;
}

int root_theirs(const struct root *r, const struct stat *sb)
{
  if (!r || !r->other) return 0;
  return mapped(r->uid, r->nuid, sb->st_uid) &&
                 mapped(r->gid, r->ngid, sb->st_gid)
             ? 0
             : -EXDEV;
}

int root_as_begin(const struct root *r, int dirfd, long long uid, long long gid,
                  struct root_as *as)
{
  struct stat dir, who;
  int n;

  as->on = 0;
  if (!r || !r->other || geteuid()) return 0;
  if (fstat(dirfd, &dir)) return -errno;
  if (root_theirs(r, &dir)) return -EXDEV;
  who = dir;
  if (uid >= 0) who.st_uid = (uid_t)uid;
  if (gid >= 0) who.st_gid = (gid_t)gid;
  if (root_theirs(r, &who)) return -EXDEV;
  if ((n = getgroups(ROOT_AS_GROUPS, as->groups)) < 0) return -errno;
  as->ngroups = n;
  as->fsgid = (gid_t)setfsgid((gid_t)-1);
  as->fsuid = (uid_t)setfsuid((uid_t)-1);
  /* Root's supplementary groups would open group-writable folders; a
   * file system uid other than 0 drops CAP_DAC_OVERRIDE, CAP_FOWNER and
   * CAP_CHOWN from the effective set (capabilities(7)). */
  if (setgroups(0, NULL)) return -errno;
  as->on = 1;
  setfsgid(who.st_gid);
  setfsuid(who.st_uid);
  if ((uid_t)setfsuid((uid_t)-1) != who.st_uid ||
      (gid_t)setfsgid((gid_t)-1) != who.st_gid) {
    root_as_end(as);
    return -EPERM;
  }
  return 0;
}

void root_as_end(struct root_as *as)
{
  if (!as->on) return;
  /* uid first: back to 0, the file capabilities come back too */
  setfsuid(as->fsuid);
  setfsgid(as->fsgid);
  setgroups((size_t)as->ngroups, as->groups);
  as->on = 0;
}

int root_tmp_own(const struct root *r, int *fd, struct stat *sb)
{
  /* O_PATH first: a link then says -ELOOP, where O_DIRECTORY would say
   * -ENOTDIR as for a file */
  int rc = root_openat(r, -1, "/tmp", O_PATH, 0, fd);

  if (!rc) {
    close(*fd);
    rc = root_openat(r, -1, "/tmp", O_RDONLY | O_DIRECTORY, 0, fd);
  }

  if (!rc && fstat(*fd, sb)) rc = -errno;
  if (!rc) rc = root_theirs(r, sb);
  if (rc && *fd >= 0) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

/* unlinkat, only while name still leads to sb's inode. */
static int unlink_same(int dirfd, const char *name, const struct stat *sb,
                       int flags)
{
  struct stat now;

  if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW)) return -errno;
  if (now.st_dev != sb->st_dev || now.st_ino != sb->st_ino ||
      (now.st_mode & S_IFMT) != (sb->st_mode & S_IFMT))
    return -ESTALE;
  return unlinkat(dirfd, name, flags) ? -errno : 0;
}

int root_unlink(const struct root *r, int dirfd, const char *name,
                const struct stat *sb, int flags)
{
  struct root_as as;
  int rc;

  if ((rc = root_as_begin(r, dirfd, -1, -1, &as))) return rc;
  rc = unlink_same(dirfd, name, sb, flags);
  root_as_end(&as);
  return rc;
}

int root_create(const struct root *r, int dirfd, const char *prefix,
                const char *suffix, mode_t mode, long long uid, long long gid,
                char *name, size_t namelen, int *fd)
{
  struct root_as as;
  struct stat sb;
  int rc = -EEXIST;

  *fd = -1;
  /* In another user namespace the file is made as its user (no chown:
   * host root's CAP_CHOWN is not the container's). */
  if ((rc = root_as_begin(r, dirfd, uid, gid, &as))) return rc;
  rc = -EEXIST;
  for (int tries = 0; tries < 8 && rc == -EEXIST; tries++) {
    char hex[17];

    random_hex(hex);
    if ((size_t)snprintf(name, namelen, "%s%s%s", prefix, hex, suffix) >=
        namelen) {
      rc = -ENAMETOOLONG;
      break;
    }
    *fd = openat(dirfd, name,
                 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
                     O_NOCTTY | O_CLOEXEC,
                 0600);
    rc = *fd < 0 ? -errno : 0;
  }
  if (rc) {
    root_as_end(&as);
    return rc;
  }
  if (!as.on && (uid >= 0 || gid >= 0) &&
      fchown(*fd, uid >= 0 ? (uid_t)uid : (uid_t)-1,
             gid >= 0 ? (gid_t)gid : (gid_t)-1))
    rc = -errno;
  if (!rc && fchmod(*fd, mode)) rc = -errno;
  if (!rc && fstat(*fd, &sb)) rc = -errno;
  if (rc) {
    if (!fstat(*fd, &sb)) unlink_same(dirfd, name, &sb, 0);
    close(*fd);
    *fd = -1;
  }
  root_as_end(&as);
  return rc;
}

int root_put(const struct root *r, int dirfd, const char *prefix,
             const char *suffix, const void *data, size_t len, mode_t mode,
             long long uid, long long gid, char *name, size_t namelen)
{
  const char *p = data;
  struct stat sb;
  int fd, rc = root_create(r, dirfd, prefix, suffix, mode, uid, gid, name,
                           namelen, &fd);

  if (rc) return rc;
  while (len && !rc) {
    ssize_t n = write(fd, p, len);

    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      rc = n < 0 ? -errno : -EIO;
    else
      p += n, len -= (size_t)n;
  }
  if (!rc && fsync(fd) && errno != EINVAL) rc = -errno;
  if (rc && !fstat(fd, &sb)) root_unlink(r, dirfd, name, &sb, 0);
  if (close(fd) && !rc) rc = -errno;
  return rc;
}

/* Does outfd's file system have need bytes free for unprivileged use (the
 * part root keeps for itself stays free)? 0, -ENOSPC or -errno. */
static int room_for(int outfd, uint64_t need)
{
  struct statvfs vs;

  if (fstatvfs(outfd, &vs)) return errno == ENOSYS ? 0 : -errno;
  return (uint64_t)vs.f_bavail * vs.f_frsize >= need ? 0 : -ENOSPC;
}

/* How often free space is looked at again during a copy. */
#define ROOM_EVERY (64ULL << 20)

int root_copy_out(int fd, int outfd, uint64_t max, int timeout_ms,
                  uint64_t *size, uint64_t *copied)
{
  uint64_t end = now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
  uint64_t done = 0, total, next_room;
  struct stat sb;
  off_t hole;
  char *buf;
  int rc = 0;

  *size = *copied = 0;
  if (fstat(fd, &sb)) return -errno;
  *size = total = (uint64_t)sb.st_size;
  if (total > max) return -EFBIG;
  /* A file written from start to end has no hole before its end; a hole
   * is what a truncate to a size nobody wrote leaves (free on tmpfs). */
  hole = total ? lseek(fd, 0, SEEK_HOLE) : 0;
  if (hole < 0 && errno != EINVAL && errno != ENXIO) return -errno;
  if (hole >= 0 && (uint64_t)hole < total) return -ENODATA;
  if (lseek(fd, 0, SEEK_SET) < 0) return -errno;
  if ((rc = room_for(outfd, total))) return rc;
  next_room = ROOM_EVERY;
  buf = xmalloc(TAKE_BUF);
  while (done < total && !rc) {
    size_t want = total - done < TAKE_BUF ? (size_t)(total - done) : TAKE_BUF;
    ssize_t n = read(fd, buf, want), w = 0;

    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      rc = n < 0 ? -errno : -EIO; /* shrank since */
      break;
    }
    while (w < n && !rc) {
      ssize_t k = write(outfd, buf + w, (size_t)(n - w));

      if (k < 0 && errno == EINTR) continue;
      if (k <= 0)
        rc = k < 0 ? -errno : -EIO;
      else
        w += k;
    }
    done += (uint64_t)w;
    if (!rc && now_ms() > end) rc = -ETIMEDOUT;
    if (!rc && done >= next_room) {
      rc = room_for(outfd, total - done);
      next_room = done + ROOM_EVERY;
    }
  }
  free(buf);
  *copied = done;
  return rc;
}

int root_take_ready(const struct root *r, int dirfd, long long uid,
                    long long gid)
{
  struct root_as as;
  struct stat sb;
  int rc;

  if (fstat(dirfd, &sb)) return -errno;
  /* what root_unlink will need: the folder one of r's users' */
  if ((rc = root_as_begin(r, dirfd, -1, -1, &as))) return rc;
  root_as_end(&as);
  /* the JVM creates the file there as its user */
  if (uid < 0 || (uid_t)uid == 0) return 0;
  if ((sb.st_uid == (uid_t)uid && (sb.st_mode & S_IWUSR)) ||
      (gid >= 0 && sb.st_gid == (gid_t)gid && (sb.st_mode & S_IWGRP)) ||
      (sb.st_mode & S_IWOTH))
    return 0;
  return -EACCES;
}

int root_room(int fd, uint64_t need)
{
  return room_for(fd, need);
}

int root_take_at(const struct root *r, int dirfd, const char *name,
                 long long uid, int *fd)
{
  struct stat sb;
  int rc;

  *fd = -1;
  if ((rc = root_open_checked(NULL, dirfd, name, O_RDONLY, S_IFREG, uid, fd,
                              &sb)))
    return rc;
  if ((rc = root_unlink(r, dirfd, name, &sb, 0))) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}
