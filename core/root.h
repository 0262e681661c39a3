/* root.h - a process's filesystem seen from outside, safely
 *
 * Everything under /proc/<pid>/root, and everything in a /tmp that others
 * can write, is controlled by someone else. A path there is resolved the
 * way the process itself would resolve it: absolute symlinks and ".." stay
 * inside its root (openat2 RESOLVE_IN_ROOT, or an equivalent walk one
 * component at a time on kernels without openat2). The last component is
 * never followed, opens never block (O_NONBLOCK), never take a terminal
 * (O_NOCTTY), and what was opened is checked with fstat before use. Files
 * are removed only relative to their folder's fd, and only while the name
 * still leads to the inode that was checked. Nothing here builds a
 * "/proc/<pid>/root/..." string.
 *
 * Every change inside a root (a file created, removed, its owner set) is
 * made with the rights the root's own users have there, never more: in a
 * root whose processes live in another user namespace (a rootless or
 * userns container), as the owner of the folder changed, and only when
 * that owner is one of the namespace's users; host root's capabilities
 * are set aside meanwhile (root_as_begin). In our own user namespace the
 * container's root is our root: changes are made as we are.
 *
 * Errors are -errno. Besides the kernel's: -EINVAL not the expected type,
 * -EPERM not the expected owner, -EMLINK more than one link, -EFBIG over
 * the size bound, -ESTALE the name leads to another inode now, -EXDEV a
 * folder whose owner is no user of the root's user namespace, -ENOSPC not
 * enough free space, -ETIMEDOUT over the time budget, -ENODATA a file
 * with holes (not written from start to end).
 */
#ifndef ROOT_H
#define ROOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum { ROOT_IDMAP_MAX = 5 };

/* One line of a user namespace's uid_map or gid_map: ids in..in+count-1
 * there are out..out+count-1 here. */
struct root_idmap {
  uint32_t in, out, count;
};

struct root {
  int fd;    /* O_PATH directory: the process's "/", or -1 */
  int pid;   /* its host pid; 0 for our own root */
  int same;  /* 1 when it is the same directory as our own "/" */
  dev_t dev; /* the root directory's identity */
  ino_t ino;
  int other;      /* its user namespace is not ours: changes in it are made
                   as one of its users (root_as_begin) */
  int nuid, ngid; /* that namespace's maps (their first lines) */
  struct root_idmap uid[ROOT_IDMAP_MAX], gid[ROOT_IDMAP_MAX];
};

/* Open the root of process pid (0: our own "/"). Returns 0 and fills *r
 * (release with root_close), or -errno (-ENOENT: no such process, -EACCES:
 * not ours to see). For our own root; a process's is opened through its
 * /proc folder (root_open_at), a pid is looked up once (core/proc). */
int root_open(int pid, struct root *r);
/* The root of the process whose /proc/<pid> folder procfd is (host pid
 * pid, kept for names: root_name). Same returns. */
int root_open_at(int procfd, int pid, struct root *r);
/* The same for any folder taken as a root (clean --root, tests): pid 0. */
int root_open_dir(const char *dir, struct root *r);
/* Close r's fd; r may be closed twice. */
void root_close(struct root *r);

/* Open path as the root's processes would. dirfd -1: path is taken from
 * the root (leading "/" or not); dirfd >= 0 (a folder opened through this
 * API; r may then be NULL): path must be one name, no "/", "." or "..",
 * or -EINVAL. flags are
 * open(2)'s; O_NOFOLLOW (the last component is never a symlink: -ELOOP),
 * O_NONBLOCK, O_NOCTTY and O_CLOEXEC are added (only O_DIRECTORY,
 * O_NOFOLLOW and O_CLOEXEC with O_PATH). A trailing "/." follows a link in
 * the last real component (e.g. "/tmp/." where /tmp is a link to
 * /var/tmp). mode counts with O_CREAT only. Returns 0 and *fd, or -errno. */
int root_openat(const struct root *r, int dirfd, const char *path, int flags,
                mode_t mode, int *fd);

/* How root_openat resolves: ROOT_AUTO (openat2 when the kernel has it, the
 * walk otherwise; JVMTOOL_NO_OPENAT2=1 in the environment forces the walk,
 * for tests), or one of them forced (tests and the fuzz target only).
 * Returns the method root_openat will use next (never ROOT_AUTO). */
enum root_method { ROOT_AUTO, ROOT_OPENAT2, ROOT_WALK };
enum root_method root_method(enum root_method force);

/* stat path inside r, following links in the last component too (inside
 * the root): for listing only, nothing is opened for reading. Returns 0
 * or -errno. */
int root_stat(const struct root *r, const char *path, struct stat *sb);

/* Check an open fd: type is S_IFREG, S_IFDIR or S_IFSOCK (0: any); uid
 * the owner (-1: any); a regular file must have exactly one link. Fills
 * *sb when not NULL. Returns 0, -EINVAL, -EPERM or -EMLINK. */
int root_check(int fd, mode_t type, long long uid, struct stat *sb);
/* root_check's or root_open_checked's failure rc in words ("a symbolic
 * link", "not a regular file", ...; strerror for the others). */
const char *root_check_msg(int rc, mode_t type);

/* root_openat (flags O_RDONLY, or with O_PATH for a socket) followed by
 * root_check; on failure nothing stays open. */
int root_open_checked(const struct root *r, int dirfd, const char *path,
                      int flags, mode_t type, long long uid, int *fd,
                      struct stat *sb);

/* Read a whole regular file (dirfd/path as root_openat), checked as
 * root_check(S_IFREG, uid) before the first byte, at most max bytes. Sets
 * *data (malloc'd, NUL-terminated; caller frees) and *len. Never blocks:
 * FIFOs and devices are refused (-EINVAL) without reading. */
int root_read(const struct root *r, int dirfd, const char *path, long long uid,
              size_t max, char **data, size_t *len);

/* The root's /tmp as a directory fd (O_RDONLY, so it can be listed; /tmp
 * itself may be a link inside the root). Sets *sb. Returns 0 or -errno. */
int root_tmp(const struct root *r, int *fd, struct stat *sb);

/* Whether r's users own a folder with sb's owner and group: 0 when r
 * shares our user namespace or both ids are mapped into r's, else -EXDEV
 * (a host folder mounted or linked into a container). */
int root_theirs(const struct root *r, const struct stat *sb);

enum { ROOT_AS_GROUPS = 64 };

/* What root_as_begin changed, for root_as_end. */
struct root_as {
  int on;
  uid_t fsuid;
  gid_t fsgid;
  int ngroups;
  gid_t groups[ROOT_AS_GROUPS];
};

/* Act in the folder dirfd of r as r's users could: when r is in another
 * user namespace and we are root, the file system ids become uid:gid (a
 * file made for a JVM's user) or, uid < 0, the folder's owner and group,
 * without supplementary groups or root's file capabilities. -EXDEV when
 * the folder's owner or uid:gid are not r's users (root_theirs). r NULL
 * (our own files), our user namespace, or not root: as we are. Returns 0
 * (then root_as_end(as) is owed) or -errno. */
int root_as_begin(const struct root *r, int dirfd, long long uid, long long gid,
                  struct root_as *as);
void root_as_end(struct root_as *as);

/* The root's /tmp for removing files in it (clean): as root_tmp, but
 * -ELOOP when /tmp is a link and -EXDEV when its owner is not one of r's
 * users (root_theirs). */
int root_tmp_own(const struct root *r, int *fd, struct stat *sb);

/* Remove name from the folder dirfd of r (root_as_begin's rights) if it
 * still leads to the inode described by sb (dev, ino, type); flags as
 * unlinkat's (AT_REMOVEDIR). Returns 0, -ESTALE (replaced since), -EXDEV,
 * or -errno. */
int root_unlink(const struct root *r, int dirfd, const char *name,
                const struct stat *sb, int flags);

/* Create a new file in the folder dirfd of r named <prefix><16 random hex
 * digits><suffix> with O_CREAT|O_EXCL|O_NOFOLLOW (never an existing file
 * or link), owned by uid:gid (-1: unchanged; in another user namespace
 * made as uid:gid, root_as_begin) with permissions mode. Writes the name
 * into name (namelen bytes; -ENAMETOOLONG if short) and the open fd
 * (O_RDWR) into *fd. Returns 0 or -errno; on failure nothing is left. */
int root_create(const struct root *r, int dirfd, const char *prefix,
                const char *suffix, mode_t mode, long long uid, long long gid,
                char *name, size_t namelen, int *fd);

/* root_create, then write len bytes of data and close: "put a file", e.g.
 * the agent into the target's /tmp. On failure the file is removed. */
int root_put(const struct root *r, int dirfd, const char *prefix,
             const char *suffix, const void *data, size_t len, mode_t mode,
             long long uid, long long gid, char *name, size_t namelen);

/* The one way a file a JVM wrote for us leaves it: name (one name) in the
 * folder dirfd of r (the JVM's /tmp, opened inside its root and held from
 * before the JVM could exit),
 * checked (a regular file of uid (-1: any) with one link) and removed by
 * inode at once (root_unlink); *fd (O_RDONLY, caller closes) still reads
 * it. Returns 0 or -errno; a file that fails the check stays where it is. */
int root_take_at(const struct root *r, int dirfd, const char *name,
                 long long uid, int *fd);

/* Before a JVM is asked to write a file for us into the folder dirfd of
 * r (its /tmp): will root_take_at be able to take it, and may the JVM's
 * user (uid:gid, the host's view; -1: not checked) create it there?
 * Returns 0, -EXDEV (a folder none of r's users own: the file could not be
 * removed with their rights, so it would stay), -EACCES (the JVM cannot
 * create it) or -errno. Asked first, so a refusal leaves nothing behind. */
int root_take_ready(const struct root *r, int dirfd, long long uid,
                    long long gid);

/* Has the file system of fd need bytes free for unprivileged use (root's
 * reserve aside)? 0, -ENOSPC or -errno: root_copy_out's check, for a
 * caller that asks before the work. */
int root_room(int fd, uint64_t need);

/* Copy a taken file (fd, from its start) to outfd, bounded by what was
 * really written: its size now (when the JVM said it was done), refused
 * over max (-EFBIG, our bound, before a byte is copied) or with holes
 * (-ENODATA: SEEK_HOLE before its end); outfd's file system must have the
 * size free for unprivileged use before and all along (-ENOSPC); at most
 * timeout_ms (-ETIMEDOUT); a file that shrinks meanwhile: -EIO. Sets
 * *size (the size taken) and *copied. Returns 0 or -errno. */
int root_copy_out(int fd, int outfd, uint64_t max, int timeout_ms,
                  uint64_t *size, uint64_t *copied);

/* The release file of the Java home that holds exe (the process's
 * /proc/<pid>/exe target, a path inside the root: <home>/bin/java or
 * <home>/jre/bin/java), at most 64 KiB. Sets *data (caller frees) and
 * *len. Returns 0 or -errno (-ENOENT when neither place has one). */
int root_release(const struct root *r, const char *exe, char **data,
                 size_t *len);

/* A path inside r as a person on the host would name it, for messages
 * only (never opened): "/proc/<pid>/root<path>" for a process's root, path
 * itself for root_open(0) and root_open_dir. Caller frees. */
char *root_name(const struct root *r, const char *path);

/* n when path names a place inside another process's root as
 * root_name spells it ("/proc/<n>/root/..."), else 0. */
int root_pid_of(const char *path);

/* The path that reaches an open fd through /proc/self/fd (for connect(2)
 * on a socket opened with O_PATH). Writes it into buf. */
void root_fd_path(int fd, char *buf, size_t n);

/* The text of the root link of procfd's process: "/" for the root of
 * its mount namespace, the folder it chrooted into otherwise; read
 * through procfs, no file system asked. Tells roots apart without opening
 * them. Its length, or -errno. */
ssize_t root_link(int procfd, char *buf, size_t n);

/* A process's mounts as the kernel lists them (its mountinfo, read
 * through procfs: no file system is asked). Finding JVMs decides from it
 * which folders are worth opening: a file system a process or a remote
 * server answers for (FUSE in all its types, 9p, NFS, CIFS, Ceph, AFS) may
 * never answer, and a node-wide command never waits on one. */
enum { ROOT_MOUNTS_MAX = 4 << 20 };
struct root_mounts {
  char *text;
  size_t len;
};

/* Read path at dirfd ("mountinfo" in a /proc/<pid> folder, or
 * "/proc/self/mountinfo") into m, at most ROOT_MOUNTS_MAX bytes. 0 or
 * -errno. */
int root_mounts_read(int dirfd, const char *path, struct root_mounts *m);
void root_mounts_free(struct root_mounts *m);

/* 1 when reaching dir (a folder in the process's root, as its mountinfo
 * names places) or anything under it crosses such a served file system,
 * or a file on device dev (0: none) lies on one: why says which, as "a
 * fuse mount in its /tmp (/tmp/x)" (its mount point is the process's
 * text). 0 when every mount on the way and below is the kernel's own. */
int root_mounts_hostile(const struct root_mounts *m, const char *dir, dev_t dev,
                        char *why, size_t n);

/* 1 when a served file system is mounted at dir or anywhere under it
 * (why: "a fuse mount at /tmp/hsperfdata_x"); the mounts on the way to
 * dir are not asked (our own /tmp: we are in it already). */
int root_mounts_below(const struct root_mounts *m, const char *dir, char *why,
                      size_t n);

/* Our own mounts (/proc/self/mountinfo), read once per run; empty when
 * they cannot be read. */
const struct root_mounts *root_mounts_self(void);

/* 1 when the mount on top of "/" in a and in b is the same folder (device
 * and the folder within it); 0 when not, or when one has no "/" (a
 * chroot below its mounts). */
int root_mounts_same_root(const struct root_mounts *a,
                          const struct root_mounts *b);

#endif
