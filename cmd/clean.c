/* clean.c - remove stale PerfData files, never a live JVM's
 *
 * The JVM cleans only its own user's folder, at its start, in its own pid
 * namespace (docs/jvmstat.md §2.2). This does it for any folder we may, in
 * any container: a file goes only when its name is a pid, nobody holds its
 * flock (every JDK with JDK-8286030 holds it for life), and no process
 * with that pid exists in the pid namespace the file belongs to. What
 * cannot be told is kept and reported. A container's /tmp is resolved
 * inside its root (core/root.h); folders are opened once, without
 * following links, and everything after is relative to their fds; a file's
 * type is looked at before it is opened (a device is never opened), and it
 * is removed only if the name still leads to the very inode we locked.
 * /proc is read once per run. The summary counts the lines printed.
 * Deviation from the JVM: other files in the folder are left alone.
 * jvmtool's own agent and recording files in a /tmp (core/agent.h) go by
 * the same rules when no process maps or holds them open.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/agent.h"
#include "core/root.h"
#include "core/vm.h"

#define OPTS_FILE "specs/clean.opts"
#include "core/opt_table.h"

/* One process as clean needs it, read once per run. */
struct proc_view {
  int pid;
  int nspid; /* innermost pid, 0 when unknown */
  uint64_t pidns;
  int ns_err;  /* proc_ns_ino_at's error, 0 when pidns is known */
  int has_tmp; /* tdev, tino: its /tmp, inside its root */
  dev_t tdev;
  ino_t tino;
};

/* A /tmp being cleaned. */
struct place {
  struct root root; /* the root it lies in (for its /etc/passwd) */
  char *name;       /* "/tmp", or "/proc/<pid>/root/tmp", for output */
  int fd;           /* the folder */
  struct stat st;
  uint64_t *pidns; /* the pid namespaces of the processes that see it */
  size_t npidns;
};

static struct args a;
static int removed, kept, failed;
static uint64_t own_pidns;
static struct proc_view *view;
static size_t nview;
static struct agent_in_use use; /* for our own files, read on first need */
static int use_read;

static void build_view(void)
{
  int *pids;
  size_t n;

  if (proc_pids(&pids, &n)) return;
  view = xzalloc((n ? n : 1) * sizeof(*view));
  for (size_t i = 0; i < n; i++) {
    struct proc_view *p = &view[nview];
    struct proc_status st;
    struct stat sb;
    int procfd = proc_open(pids[i]); /* read through it, once */

    if (procfd < 0) continue; /* gone */
    p->pid = pids[i];
    if (!proc_status_at(procfd, &st) && st.nnspid)
      p->nspid = proc_innermost(&st, p->pid);
    p->ns_err = proc_ns_ino_at(procfd, "pid", &p->pidns);
    /* judged by what the kernel shows: a /tmp a process serves is not
     * opened (core/vm) */
    if (!vm_tmp_of(procfd, p->pid, &sb)) {
      p->has_tmp = 1;
      p->tdev = sb.st_dev;
      p->tino = sb.st_ino;
    }
    close(procfd);
    nview++;
  }
  free(pids);
}

/* The pid namespaces whose processes see pl's folder as their /tmp: a file
 * there may belong to any of them. */
static void find_pidns(struct place *pl)
{
  for (size_t k = 0; k < nview; k++) {
    const struct proc_view *p = &view[k];
    size_t i;

    if (!p->has_tmp || p->ns_err || p->tdev != pl->st.st_dev ||
        p->tino != pl->st.st_ino)
      continue;
    for (i = 0; i < pl->npidns && pl->pidns[i] != p->pidns; i++)
      ;
    if (i == pl->npidns) {
      pl->pidns = xrealloc(pl->pidns, (i + 1) * sizeof(*pl->pidns));
      pl->pidns[pl->npidns++] = p->pidns;
    }
  }
}

/* Is a process with this pid alive in a pid namespace the file may belong
 * to? 1 yes, 0 no, -1 cannot tell. Ours is asked with kill(); the others
 * through the innermost NSpid of their processes. */
static int alive_in(const struct place *pl, int pid)
{
  int found = 0, unknown = 0, others = 0;

  for (size_t i = 0; i < pl->npidns; i++) {
    if (pl->pidns[i] != own_pidns)
      others = 1;
    else if (proc_alive(pid)) /* a file's name: no process to open */
      return 1;
  }
  if (!others) return 0;
  for (size_t k = 0; k < nview && !found; k++) {
    const struct proc_view *p = &view[k];
    size_t i;

    /* Only a process with that innermost pid matters; its namespace may
     * be hidden (an outer init): then we cannot tell. */
    if (p->nspid != pid) continue;
    if (p->ns_err) {
      unknown += p->ns_err != -ENOENT;
      continue;
    }
    for (i = 0; i < pl->npidns && pl->pidns[i] != p->pidns; i++)
      ;
    if (i < pl->npidns && p->pidns != own_pidns) found = 1;
  }
  return found ? 1 : unknown ? -1 : 0;
}

/* CLEAN_QUIET: kept, and said only with -v (the summary counts it either
 * way). */
enum clean_kind { CLEAN_REMOVED, CLEAN_KEPT, CLEAN_QUIET, CLEAN_FAILED };

/* Print one line "<what> <dir>[/<name>] (<why>)" and count it: the summary
 * counts the same with or without -v, which only adds the CLEAN_QUIET lines.
 * Names come from containers: escaped for a terminal. */
static void report(enum clean_kind kind, const char *what, const char *dir,
                   const char *name, const char *fmt, ...) PRINTF(5, 6);
static void report(enum clean_kind kind, const char *what, const char *dir,
                   const char *name, const char *fmt, ...)
{
  struct buf line = {0};
  char why[512];
  va_list ap;

  removed += kind == CLEAN_REMOVED;
  kept += kind == CLEAN_KEPT || kind == CLEAN_QUIET;
  failed += kind == CLEAN_FAILED;
  if (kind == CLEAN_QUIET && !jt_verbose) return;
  va_start(ap, fmt);
  vsnprintf(why, sizeof(why), fmt, ap);
  va_end(ap);
  buf_printf(&line, "%s %s%s%s (%s)", what, dir, name ? "/" : "",
             name ? name : "", why);
  term_write(stdout, line.p, line.len, 0);
  fputc('\n', stdout);
  buf_free(&line);
}

/* Open name in dfd only if it is (still) the regular file lstat saw: a
 * device or FIFO named like a pid is never opened. */
static int open_file(int dfd, const char *name, struct stat *sb)
{
  struct stat now;
  int fd, rc;

  if (fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW)) return -errno;
  if (!S_ISREG(sb->st_mode)) return -EINVAL;
  if ((rc = root_openat(NULL, dfd, name, O_RDONLY, 0, &fd))) return rc;
  if (fstat(fd, &now) || now.st_dev != sb->st_dev || now.st_ino != sb->st_ino) {
    close(fd);
    return -EINVAL;
  }
  *sb = now;
  return fd;
}

/* Does name in dfd still lead to the inode sb describes? */
static int same_inode(int dfd, const char *name, const struct stat *sb)
{
  struct stat now;

  return !fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) &&
         now.st_dev == sb->st_dev && now.st_ino == sb->st_ino;
}

static void clean_file(const struct place *pl, int dfd, const char *dir,
                       const char *name)
{
  struct stat sb;
  int fd, pid, live, rc;

  if (parse_pid(name, &pid)) {
    report(CLEAN_QUIET, "kept", dir, name, "not a pid");
    return;
  }
  if ((fd = open_file(dfd, name, &sb)) < 0) {
    if (fd == -EINVAL || fd == -ELOOP) {
      report(CLEAN_QUIET, "kept", dir, name, "not a regular file");
    } else if (fd != -ENOENT) {
      report(CLEAN_FAILED, "failed", dir, name, "%s", strerror(-fd));
    }
    return;
  }
  /* HotSpot never trusts a file with other names (§2.3): nor do we. */
  if (sb.st_nlink > 1) {
    report(CLEAN_KEPT, "kept", dir, name, "has %lu links",
           (unsigned long)sb.st_nlink);
    close(fd);
    return;
  }
  /* A live JVM holds the lock for its whole life; we hold it until the
   * file is gone, so a JVM starting with this pid cannot race us. */
  if (flock(fd, LOCK_EX | LOCK_NB)) {
    report(CLEAN_QUIET, "kept", dir, name, "locked by a live JVM");
    close(fd);
    return;
  }
  live = alive_in(pl, pid);
  if (live < 0) {
    report(CLEAN_FAILED, "failed", dir, name, "cannot tell if pid %d lives",
           pid);
  } else if (live) {
    report(CLEAN_QUIET, "kept", dir, name, "process %d exists", pid);
  } else if (a.count[OPT_dry_run] && !same_inode(dfd, name, &sb)) {
    report(CLEAN_KEPT, "kept", dir, name, "replaced while we looked");
  } else if (a.count[OPT_dry_run]) {
    report(CLEAN_REMOVED, "would remove", dir, name, "no process %d", pid);
  } else if ((rc = root_unlink(&pl->root, dfd, name, &sb, 0)) == -ESTALE) {
    report(CLEAN_KEPT, "kept", dir, name, "replaced while we looked");
  } else if (rc) {
    report(CLEAN_FAILED, "failed", dir, name, "%s", strerror(-rc));
  } else {
    report(CLEAN_REMOVED, "removed", dir, name, "no process %d", pid);
  }
  close(fd);
}

/* The uid of user in the passwd file of the place's system, or -1. The
 * file is the container's: read checked and bounded (a FIFO there is
 * refused, not waited on). */
static long long passwd_uid(const struct place *pl, const char *user)
{
  char *data, *line, *next;
  size_t len;
  long long uid = -1;

  if (root_read(&pl->root, -1, "/etc/passwd", -1, 1 << 22, &data, &len))
    return -1;
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

/* With --prune-empty: remove the folder when it is empty and owned by the
 * user it names. */
static void prune(const struct place *pl, const char *name,
                  const struct stat *sb, int entries)
{
  int rc;

  if (!a.count[OPT_prune_empty] || entries ||
      passwd_uid(pl, name + 11) != (long long)sb->st_uid)
    return;
  if (a.count[OPT_dry_run])
    report(CLEAN_REMOVED, "would remove", pl->name, name, "empty");
  else if ((rc = root_unlink(&pl->root, pl->fd, name, sb, AT_REMOVEDIR)))
    report(CLEAN_FAILED, "failed", pl->name, name, "%s", strerror(-rc));
  else
    report(CLEAN_REMOVED, "removed", pl->name, name, "empty");
}

static void clean_folder(const struct place *pl, const char *name)
{
  char *dir = xasprintf("%s/%s", pl->name, name);
  struct stat sb;
  struct dirent *e;
  DIR *d;
  int dfd, rc, entries = 0;

  if ((rc = root_openat(NULL, pl->fd, name, O_RDONLY | O_DIRECTORY, 0, &dfd)) ||
      fstat(dfd, &sb)) {
    if (!rc) rc = -errno;
    if (rc == -ELOOP || rc == -ENOTDIR) {
      report(CLEAN_QUIET, "skipped", dir, NULL, "not a folder: a link?");
    } else {
      report(CLEAN_KEPT, "skipped", dir, NULL, "%s", strerror(-rc));
    }
    if (dfd >= 0) close(dfd);
    free(dir);
    return;
  }
  if (root_theirs(&pl->root, &sb)) {
    report(CLEAN_KEPT, "skipped", dir, NULL, "uid %d's: %s", (int)sb.st_uid,
           "none of the container's users own it");
  } else if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
    report(CLEAN_KEPT, "skipped", dir, NULL,
           "writable by others: not the JVM's");
  } else if (sb.st_uid != geteuid() && (geteuid() || !a.count[OPT_all_users])) {
    report(CLEAN_KEPT, "skipped", dir, NULL, "uid %d's; %s", (int)sb.st_uid,
           geteuid() ? "run as that user or root" : "see --all-users");
  } else if ((d = fdopendir(dfd))) {
    dfd = -1;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      clean_file(pl, dirfd(d), dir, e->d_name);
    }
    rewinddir(d);
    while ((e = readdir(d)))
      entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    prune(pl, name, &sb, entries);
  }
  if (dfd >= 0) close(dfd);
  free(dir);
}

/* A file we may have just written (an agent-install or profile loading
 * or reading it) is younger than this. */
enum { OURS_NEW_SECS = 600 };

/* jvmtool's agent or recording file name in pl: removed when it is a
 * regular file with one link, ours to remove (as PerfData folders are),
 * older than OURS_NEW_SECS, and no process maps or holds it. */
static void clean_ours(const struct place *pl, const char *name)
{
  struct stat sb;
  const char *keep = NULL;
  int rc, used = 0;

  if (fstatat(pl->fd, name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
    keep = "not a regular file";
  else if (sb.st_nlink > 1)
    keep = "more than one link";
  else if (sb.st_uid != geteuid() && (geteuid() || !a.count[OPT_all_users]))
    keep = geteuid() ? "another user's" : "another user's; see --all-users";
  else if (time(NULL) - sb.st_mtime < OURS_NEW_SECS)
    keep = "new: a run of jvmtool may be using it";
  if (!keep && !use_read && (rc = agent_in_use_read(&use))) {
    report(CLEAN_FAILED, "failed", pl->name, name, "cannot read /proc: %s",
           strerror(-rc));
    return;
  }
  use_read |= !keep;
  if (keep || (used = agent_in_use_by(&use, sb.st_ino, sb.st_uid)) > 0) {
    if (jt_verbose)
      report(CLEAN_KEPT, "kept", pl->name, name, "%s", keep ? keep : "in use");
  } else if (used < 0) {
    report(CLEAN_KEPT, "kept", pl->name, name,
           "cannot tell if a process of uid "
           "%d maps it",
           (int)sb.st_uid);
  } else if (a.count[OPT_dry_run]) {
    report(CLEAN_REMOVED, "would remove", pl->name, name, "used by no process");
  } else if ((rc = root_unlink(&pl->root, pl->fd, name, &sb, 0)) == -ESTALE) {
    report(CLEAN_KEPT, "kept", pl->name, name, "replaced while we looked");
  } else if (rc) {
    report(CLEAN_FAILED, "failed", pl->name, name, "%s", strerror(-rc));
  } else {
    report(CLEAN_REMOVED, "removed", pl->name, name, "used by no process");
  }
}

/* Clean the hsperfdata_* folders of pl (its fd and root open). */
static void clean_place(struct place *pl)
{
  char why[192];
  struct dirent *e;
  DIR *d;
  int fd;

  /* A shared tmp must be sticky, or anyone could swap our folders. */
  if (fstat(pl->fd, &pl->st) ||
      ((pl->st.st_mode & S_IWOTH) && !(pl->st.st_mode & S_ISVTX))) {
    report(CLEAN_FAILED, "failed", pl->name, NULL, "%s",
           "world-writable without the sticky bit");
    return;
  }
  if ((fd = fcntl(pl->fd, F_DUPFD_CLOEXEC, 0)) < 0 || !(d = fdopendir(fd))) {
    report(CLEAN_FAILED, "failed", pl->name, NULL, "%s", strerror(errno));
    if (fd >= 0) close(fd);
    return;
  }
  find_pidns(pl);
  if (!pl->npidns) { /* nobody lives there (a volume): our namespace */
    pl->pidns = xmalloc(sizeof(*pl->pidns));
    pl->pidns[pl->npidns++] = own_pidns;
  }
  while ((e = readdir(d))) {
    enum agent_file k = agent_file_kind(e->d_name);

    if (starts_with(e->d_name, "hsperfdata_") && !pl->root.pid &&
        !a.val[OPT_root] && vm_tmp_served(e->d_name, why, sizeof(why)))
      report(CLEAN_KEPT, "skipped", pl->name, e->d_name, "%s", why);
    else if (starts_with(e->d_name, "hsperfdata_"))
      clean_folder(pl, e->d_name);
    else if (k == AGENT_FILE_SO || k == AGENT_FILE_RECORDING)
      clean_ours(pl, e->d_name);
  }
  closedir(d);
  free(pl->pidns);
  pl->pidns = NULL;
  pl->npidns = 0;
}

/* Every container /tmp once, by device and inode, skipping ours: resolved
 * inside the container's root, never through our own. */
/* Every container /tmp once (core/vm's walk), resolved inside the
 * container's root, never through our own. */
static int clean_namespace(void *arg, int pid, const struct root *r, int tmpfd,
                           const struct stat *sb, int first)
{
  struct place pl = {.fd = -1};
  int rc;

  if (!first) return 0;
  pl.root = *r; /* the walk's: closed by it */
  pl.name = root_name(&pl.root, "/tmp");
  /* Only a /tmp that is the container's own folder: removing through a
   * link, or in a host folder mounted there, would use our rights where
   * the container has none (core/root: root_theirs). */
  rc = root_tmp_own(&pl.root, &pl.fd, &pl.st);
  if (rc == -ELOOP)
    report(CLEAN_KEPT, "skipped", pl.name, NULL,
           "a link: a container's /tmp is cleaned only where it is");
  else if (rc == -EXDEV)
    report(CLEAN_KEPT, "skipped", pl.name, NULL, "uid %d's: %s",
           (int)pl.st.st_uid, "none of the container's users own it");
  else if (!rc && pl.st.st_dev == sb->st_dev && pl.st.st_ino == sb->st_ino)
    clean_place(&pl);
  free(pl.name);
  if (pl.fd >= 0) close(pl.fd);
  return 0;
}

int clean_main(int argc, char **argv)
{
  struct place host = {.fd = -1};
  int rc;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc) return usage_error("unexpected argument '%s'", a.argv[0]);
  jt_verbose = a.count[OPT_verbose];
  if ((rc = proc_self_ns_ino("pid", &own_pidns))) {
    errno_msg(rc, "cannot read '/proc/self/ns/pid'");
    return 1;
  }
  build_view();
  say_skipped();
  /* --root names a folder on this host, opened as named. */
  host.name = (char *)(a.val[OPT_root] ? a.val[OPT_root] : "/tmp");
  rc = root_open(0, &host.root);
  if (!rc && a.val[OPT_root]) {
    host.fd = open(host.name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (host.fd < 0) rc = -errno;
  } else if (!rc) {
    rc = root_tmp(&host.root, &host.fd, &host.st);
  }
  if (rc)
    report(CLEAN_FAILED, "failed", host.name, NULL, "%s", strerror(-rc));
  else
    clean_place(&host);
  if (a.count[OPT_all_namespaces]) vm_each_tmp(clean_namespace, NULL);
  say_skipped();
  if (host.fd >= 0) close(host.fd);
  root_close(&host.root);
  free(view);
  agent_in_use_free(&use);
  printf("%d %s, %d kept, %d failed\n", removed,
         a.count[OPT_dry_run] ? "removable" : "removed", kept, failed);
  return failed ? 1 : 0;
}
