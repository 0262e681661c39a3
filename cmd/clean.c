/* clean.c - remove stale PerfData files, never a live JVM's
 *
 * The JVM cleans only its own user's folder, at its start, in its own pid
 * namespace (docs/jvmstat.md §2.2). This does it for any folder we may, in
 * any container: a file goes only when its name is a pid, nobody holds its
 * flock (every JDK with JDK-8286030 holds it for life), and no process
 * with that pid exists in the pid namespace the file belongs to. What
 * cannot be told is kept and reported. Folders are opened once, without
 * following links, and everything after is relative to their fds; a file is
 * removed only if the name still leads to the very inode we locked.
 * Deviation from the JVM: other files in the folder are left alone.
 */
#include "core/jvmtool.h"
#include "core/vm.h"

#define OPTS_FILE "specs/clean.opts"
#include "core/opt_table.h"

struct root {
  char *path;         /* "/tmp", or "/proc/<pid>/root/tmp" */
  struct stat st;     /* that folder */
  uint64_t *pidns;    /* the pid namespaces of the processes that see it */
  size_t npidns;
};

static struct args a;
static int removed, kept, failed;
static uint64_t own_pidns;

/* The pid namespaces whose processes see r's folder as their /tmp: a file
 * there may belong to any of them. */
static void find_pidns(struct root *r)
{
  DIR *proc = opendir("/proc");
  struct dirent *e;

  while (proc && (e = readdir(proc))) {
    char path[64];
    struct stat sb;
    uint64_t ns;
    size_t i;
    int q;

    if (parse_pid(e->d_name, &q)) continue;
    snprintf(path, sizeof(path), "/proc/%d/root/tmp", q);
    if (stat(path, &sb) || sb.st_dev != r->st.st_dev ||
        sb.st_ino != r->st.st_ino || proc_ns_ino(q, "pid", &ns))
      continue;
    for (i = 0; i < r->npidns && r->pidns[i] != ns; i++) ;
    if (i == r->npidns) {
      r->pidns = xrealloc(r->pidns, (i + 1) * sizeof(*r->pidns));
      r->pidns[r->npidns++] = ns;
    }
  }
  if (proc) closedir(proc);
}

/* Is a process with this pid alive in a pid namespace the file may belong
 * to? 1 yes, 0 no, -1 cannot tell. Ours is asked with kill(); the others
 * through the innermost NSpid of their processes. */
static int alive_in(const struct root *r, int pid)
{
  DIR *proc;
  struct dirent *e;
  int found = 0, unknown = 0, others = 0;

  for (size_t i = 0; i < r->npidns; i++) {
    if (r->pidns[i] != own_pidns) others = 1;
    else if (proc_alive(pid)) return 1;
  }
  if (!others) return 0;
  if (!(proc = opendir("/proc"))) return -1;
  while ((e = readdir(proc)) && !found) {
    struct proc_status st;
    uint64_t ns;
    size_t i;
    int q;

    /* Only a process with that innermost pid matters; its namespace is
     * asked only then (some, like an outer init, hide it). */
    if (parse_pid(e->d_name, &q) || proc_status(q, &st) || !st.nnspid ||
        st.nspid[st.nnspid - 1] != pid)
      continue;
    if (proc_ns_ino(q, "pid", &ns)) {
      unknown += errno != ENOENT;
      continue;
    }
    for (i = 0; i < r->npidns && r->pidns[i] != ns; i++) ;
    if (i < r->npidns && ns != own_pidns) found = 1;
  }
  closedir(proc);
  return found ? 1 : unknown ? -1 : 0;
}

static void report(const char *what, const char *dir, const char *name,
                   const char *fmt, ...) PRINTF(4, 5);
static void report(const char *what, const char *dir, const char *name,
                   const char *fmt, ...)
{
  va_list ap;

  printf("%s %s/%s (", what, dir, name);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  puts(")");
}

static void clean_file(const struct root *r, int dfd, const char *dir,
                       const char *name)
{
  struct stat sb, now;
  int fd, pid, live;

  if (parse_pid(name, &pid)) {
    if (jt_verbose) report("kept", dir, name, "not a pid");
    return;
  }
  fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
    int err = fd < 0 ? errno : EINVAL;

    if (fd >= 0) close(fd);
    if (err == ELOOP || err == EINVAL) {
      if (jt_verbose) report("kept", dir, name, "not a regular file");
      kept++;
    } else {
      report("failed", dir, name, "%s", strerror(err));
      failed++;
    }
    return;
  }
  /* HotSpot never trusts a file with other names (§2.3): nor do we. */
  if (sb.st_nlink > 1) {
    report("kept", dir, name, "has %lu links", (unsigned long)sb.st_nlink);
    kept++;
    close(fd);
    return;
  }
  /* A live JVM holds the lock for its whole life; we hold it until the
   * file is gone, so a JVM starting with this pid cannot race us. */
  if (flock(fd, LOCK_EX | LOCK_NB)) {
    if (jt_verbose) report("kept", dir, name, "locked by a live JVM");
    kept++;
    close(fd);
    return;
  }
  live = alive_in(r, pid);
  if (live) {
    if (live < 0) report("kept", dir, name, "cannot tell if pid %d lives", pid);
    else if (jt_verbose) report("kept", dir, name, "process %d exists", pid);
    failed += live < 0;
    kept += live > 0;
    close(fd);
    return;
  }
  if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) || now.st_dev != sb.st_dev ||
      now.st_ino != sb.st_ino) {
    report("kept", dir, name, "replaced while we looked");
    kept++;
  } else if (a.count[OPT_n]) {
    report("would remove", dir, name, "no process %d", pid);
    removed++;
  } else if (unlinkat(dfd, name, 0)) {
    report("failed", dir, name, "%s", strerror(errno));
    failed++;
  } else {
    report("removed", dir, name, "no process %d", pid);
    removed++;
  }
  close(fd);
}

/* The uid of user in the passwd file of the root's system, or -1. */
static long long passwd_uid(const struct root *r, const char *user)
{
  char path[64], *data, *line, *next;
  size_t len;
  long long uid = -1;

  /* The folder's system: the root of <root>/tmp's owner namespace. */
  if (starts_with(r->path, "/proc/"))
    snprintf(path, sizeof(path), "%.*s/etc/passwd",
             (int)(strlen(r->path) - 4), r->path);
  else snprintf(path, sizeof(path), "/etc/passwd");
  if (read_file(AT_FDCWD, path, O_NOFOLLOW, 1 << 22, &data, &len)) return -1;
  for (line = data; line && *line && uid < 0; line = next) {
    char *f[4] = {line};

    if ((next = strchr(line, '\n'))) *next++ = 0;
    for (int i = 1; i < 4 && f[i - 1]; i++)
      if ((f[i] = strchr(f[i - 1], ':'))) *f[i]++ = 0;
    if (f[3] && !strcmp(f[0], user) && parse_long(f[2], 0, UINT32_MAX, &uid))
      uid = -1;
  }
  free(data);
  return uid;
}

static void clean_folder(const struct root *r, int rootfd, const char *name)
{
  char *dir = xasprintf("%s/%s", r->path, name);
  struct stat sb;
  struct dirent *e;
  DIR *d;
  int dfd, entries = 0;
  long long owner;

  dfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0 || fstat(dfd, &sb)) {
    if (errno == ELOOP || errno == ENOTDIR) {
      if (jt_verbose) printf("skipped %s (not a folder: a link?)\n", dir);
    } else {
      printf("skipped %s (%s)\n", dir, strerror(errno));
    }
    if (dfd >= 0) close(dfd);
    free(dir);
    return;
  }
  if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
    printf("skipped %s (writable by others: not the JVM's)\n", dir);
  } else if (sb.st_uid != geteuid() && (geteuid() || !a.count[OPT_all_users])) {
    printf("skipped %s (uid %d's; %s)\n", dir, (int)sb.st_uid,
           geteuid() ? "run as that user or root" : "see --all-users");
  } else if ((d = fdopendir(dfd))) {
    dfd = -1;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      clean_file(r, dirfd(d), dir, e->d_name);
    }
    rewinddir(d);
    while ((e = readdir(d)))
      entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    owner = passwd_uid(r, name + 11);
    if (a.count[OPT_prune_empty] && !entries && !a.count[OPT_n] &&
        owner == (long long)sb.st_uid) {
      if (unlinkat(rootfd, name, AT_REMOVEDIR)) {
        printf("failed %s (%s)\n", dir, strerror(errno));
        failed++;
      } else {
        printf("removed %s (empty)\n", dir);
      }
    } else if (a.count[OPT_prune_empty] && !entries && a.count[OPT_n] &&
               owner == (long long)sb.st_uid) {
      printf("would remove %s (empty)\n", dir);
    }
  }
  if (dfd >= 0) close(dfd);
  free(dir);
}

static void clean_root(struct root *r)
{
  int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat sb;
  struct dirent *e;
  DIR *d;

  /* A shared tmp must be sticky, or anyone could swap our folders. */
  if (fd < 0 || fstat(fd, &sb) ||
      ((sb.st_mode & S_IWOTH) && !(sb.st_mode & S_ISVTX))) {
    printf("skipped %s (%s)\n", r->path,
           fd < 0 ? strerror(errno) : "world-writable without the sticky bit");
    failed++;
    if (fd >= 0) close(fd);
    return;
  }
  if (!(d = opendir(r->path))) {
    close(fd);
    return;
  }
  r->st = sb;
  find_pidns(r);
  if (!r->npidns) {   /* nobody lives there (a volume): our namespace */
    r->pidns = xmalloc(sizeof(*r->pidns));
    r->pidns[r->npidns++] = own_pidns;
  }
  while ((e = readdir(d)))
    if (starts_with(e->d_name, "hsperfdata_")) clean_folder(r, fd, e->d_name);
  closedir(d);
  close(fd);
  free(r->pidns);
}

/* Every container /tmp once, by device and inode, skipping ours. */
static void clean_namespaces(const struct stat *ours)
{
  struct stat *seen = NULL;
  size_t n = 0;
  DIR *proc = opendir("/proc");
  struct dirent *e;

  while (proc && (e = readdir(proc))) {
    struct root r = {0};
    struct stat sb;
    char path[64];
    int pid, dup = 0;

    if (parse_pid(e->d_name, &pid)) continue;
    snprintf(path, sizeof(path), "/proc/%d/root/tmp", pid);
    if (stat(path, &sb) || !S_ISDIR(sb.st_mode) ||
        (sb.st_dev == ours->st_dev && sb.st_ino == ours->st_ino))
      continue;
    for (size_t i = 0; i < n; i++)
      dup |= seen[i].st_dev == sb.st_dev && seen[i].st_ino == sb.st_ino;
    if (dup) continue;
    seen = xrealloc(seen, (n + 1) * sizeof(*seen));
    seen[n++] = sb;
    r.path = path;
    clean_root(&r);
  }
  if (proc) closedir(proc);
  free(seen);
}

int clean_main(int argc, char **argv)
{
  struct root host = {0};
  struct stat sb;
  int rc;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc) return usage_error("unexpected argument '%s'", a.argv[0]);
  jt_verbose = a.count[OPT_v];
  if ((rc = proc_ns_ino(0, "pid", &own_pidns))) {
    errno_msg(rc, "cannot read '/proc/self/ns/pid'");
    return 1;
  }
  host.path = (char *)(a.val[OPT_root] ? a.val[OPT_root] : "/tmp");
  clean_root(&host);
  if (a.count[OPT_all_namespaces] && !stat("/tmp", &sb)) clean_namespaces(&sb);
  printf("%d %s, %d kept, %d failed\n", removed,
         a.count[OPT_n] ? "removable" : "removed", kept, failed);
  return failed ? 1 : 0;
}
