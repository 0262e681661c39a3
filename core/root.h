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
 * Errors are -errno. Besides the kernel's: -EINVAL not the expected type,
 * -EPERM not the expected owner, -EMLINK more than one link, -EFBIG over
 * the size bound, -ESTALE the name leads to another inode now.
 */
#ifndef ROOT_H
#define ROOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct root {
  int fd;       /* O_PATH directory: the process's "/", or -1 */
  int pid;      /* its host pid; 0 for our own root */
  int same;     /* 1 when it is the same directory as our own "/" */
  dev_t dev;    /* the root directory's identity */
  ino_t ino;
};

/* Open the root of process pid (0: our own "/"). Returns 0 and fills *r
 * (release with root_close), or -errno (-ENOENT: no such process, -EACCES:
 * not ours to see). */
int root_open(int pid, struct root *r);
/* The same for any folder taken as a root (clean --root, tests): pid 0,
 * root_cwd then means our own current directory. */
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
int root_read(const struct root *r, int dirfd, const char *path,
              long long uid, size_t max, char **data, size_t *len);

/* The root's /tmp as a directory fd (O_RDONLY, so it can be listed; /tmp
 * itself may be a link inside the root). Sets *sb. Returns 0 or -errno. */
int root_tmp(const struct root *r, int *fd, struct stat *sb);

/* The process's current directory as an O_PATH directory fd (only for
 * creating or opening single names in it). Returns 0 or -errno. */
int root_cwd(const struct root *r, int *fd);

/* Remove name from the folder dirfd if it still leads to the inode
 * described by sb (dev, ino, type); flags as unlinkat's (AT_REMOVEDIR).
 * Returns 0, -ESTALE (replaced since), or -errno. */
int root_unlink(int dirfd, const char *name, const struct stat *sb,
                int flags);

/* Create a new file in dirfd named <prefix><16 random hex digits><suffix>
 * with O_CREAT|O_EXCL|O_NOFOLLOW (never an existing file or link), owned
 * by uid:gid (-1: unchanged) with permissions mode. Writes the name into
 * name (namelen bytes; -ENAMETOOLONG if short) and the open fd (O_RDWR)
 * into *fd. Returns 0 or -errno; on failure nothing is left behind. */
int root_create(int dirfd, const char *prefix, const char *suffix,
                mode_t mode, long long uid, long long gid, char *name,
                size_t namelen, int *fd);

/* root_create, then write len bytes of data and close: "put a file", e.g.
 * the agent into the target's /tmp. On failure the file is removed. */
int root_put(int dirfd, const char *prefix, const char *suffix,
             const void *data, size_t len, mode_t mode, long long uid,
             long long gid, char *name, size_t namelen);

/* The one way a file a JVM wrote for us leaves it: name (one name) in the
 * folder dirfd (the JVM's /tmp, opened inside its root and held from
 * before the JVM could exit), checked (a regular file of uid (-1: any)
 * with one link) and removed by inode at once; *fd (O_RDONLY, caller
 * closes) still reads it. outfd >= 0: also copied there through a fixed
 * buffer (at most max bytes, else -EFBIG after max bytes; *copied when not
 * NULL), and *fd is closed (-1). Returns 0 or -errno; a file that fails
 * the check stays where it is. */
int root_take_at(int dirfd, const char *name, long long uid, int outfd,
                 uint64_t max, uint64_t *copied, int *fd);

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

#endif
