/* proc.c - facts about a process from /proc */
#include "core/jvmtool.h"
#include <sys/syscall.h>

/* "Uid:\t<real>\t<effective>..." (or Gid): 1 with both, else 0. */
static int id_pair(const char *line, const char *key, unsigned long long *a,
                   unsigned long long *b)
{
  const char *p;

  if (!starts_with(line, key)) return 0;
  for (p = line + strlen(key); *p == '\t' || *p == ' '; p++)
    ;
  if (!(p = scan_u64(p, 10, a))) return 0;
  while (*p == '\t' || *p == ' ') p++;
  return scan_u64(p, 10, b) != NULL;
}

/* /proc/<pid>/status read as dirfd and path lead to it. */
static int status_at(int dirfd, const char *path, struct proc_status *st)
{
  char small[8192], *data, *line, *next;
  size_t len;
  int rc, seen = 0;

  memset(st, 0, sizeof(*st));
  /* one read into a buffer of the stack (a status is ~1.5 KB); a longer
   * one (thousands of supplementary groups) is read whole */
  if ((rc = proc_read_small(dirfd, path, small, sizeof(small), &len)))
    return rc;
  if (len < sizeof(small) - 1) {
    data = small;
  } else if ((rc = read_file(dirfd, path, 0, 1 << 20, &data, &len))) {
    return rc;
  }
  for (line = data; line && *line; line = next) {
    unsigned long long a, b;
    char *p;

    if ((next = strchr(line, '\n'))) *next++ = 0;
    if (starts_with(line, "Name:")) {
      for (p = line + 5; *p == '\t' || *p == ' '; p++)
        ;
      snprintf(st->name, sizeof(st->name), "%s", p);
    } else if (starts_with(line, "NSpid:")) {
      p = line + 6;
      while (st->nnspid < PROC_MAX_NSPID) {
        char *end;
        long v = strtol(p, &end, 10);

        if (end == p) break;
        st->nspid[st->nnspid++] = (int)v;
        p = end;
      }
    } else if (id_pair(line, "Uid:", &a, &b)) {
      st->ruid = (uid_t)a, st->euid = (uid_t)b, seen |= 1;
    } else if (id_pair(line, "Gid:", &a, &b)) {
      st->rgid = (gid_t)a, st->egid = (gid_t)b, seen |= 2;
    } else if (starts_with(line, "SigCgt:")) {
      for (p = line + 7; *p == '\t' || *p == ' '; p++)
        ;
      if (scan_u64(p, 16, &a)) st->sigcgt = a;
    }
  }
  if (data != small) free(data);
  return seen == 3 ? 0 : -EINVAL;
}

static int task_status(int dirfd, const char *pre, int tid,
                       struct proc_status *st)
{
  char path[80];

  if (tid)
    snprintf(path, sizeof(path), "%stask/%d/status", pre, tid);
  else
    snprintf(path, sizeof(path), "%sstatus", pre);
  return status_at(dirfd, path, st);
}

int proc_task_status_at(int procfd, int tid, struct proc_status *st)
{
  return task_status(procfd, "", tid, st);
}

int proc_status_at(int procfd, struct proc_status *st)
{
  return status_at(procfd, "status", st);
}

int proc_innermost(const struct proc_status *st, int pid)
{
  return st->nnspid ? st->nspid[st->nnspid - 1] : pid;
}

static int by_value(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;

  return (x > y) - (x < y);
}

int proc_dirfd(void)
{
  static int fd = -1;

  if (fd < 0) /* openat: musl's open adds an fcntl for O_CLOEXEC */
    fd = openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return fd;
}

int proc_pids(int **pids, size_t *n)
{
  int fd = proc_dirfd() >= 0 ? fcntl(proc_dirfd(), F_DUPFD_CLOEXEC, 0) : -1;
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  struct dirent *e;
  size_t cap = 0;
  int pid;

  *pids = NULL;
  *n = 0;
  if (!d) {
    int err = fd >= 0 ? -errno : -ENOENT;

    if (fd >= 0) close(fd);
    return err;
  }
  rewinddir(d); /* the shared offset: from the start each time */
  while ((e = readdir(d))) {
    if (parse_pid(e->d_name, &pid)) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 256;
      *pids = xrealloc(*pids, cap * sizeof(**pids));
    }
    (*pids)[(*n)++] = pid;
  }
  closedir(d);
  if (*n) qsort(*pids, *n, sizeof(**pids), by_value);
  return 0;
}

int proc_open(int pid)
{
  char path[32];
  int fd;

  if (pid <= 0) return -ESRCH;
  if (proc_dirfd() < 0) {
    snprintf(path, sizeof(path), "/proc/%d", pid);
    fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  } else {
    snprintf(path, sizeof(path), "%d", pid);
    fd = openat(proc_dirfd(), path,
                O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  }
  return fd < 0 ? -errno : fd;
}

int proc_ns_ino_at(int procfd, const char *kind, uint64_t *ino)
{
  char path[32];
  struct stat sb;

  snprintf(path, sizeof(path), "ns/%s", kind);
  if (fstatat(procfd, path, &sb, 0)) return -errno;
  *ino = sb.st_ino;
  return 0;
}

int proc_self_ns_ino(const char *kind, uint64_t *ino)
{
  char path[32];
  struct stat sb;

  snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
  if (stat(path, &sb)) return -errno;
  *ino = sb.st_ino;
  return 0;
}

int proc_alive(int pid)
{
  return pid > 0 && (!kill(pid, 0) || errno == EPERM);
}

int proc_foreign_user(int pid, const struct proc_status *st, char *err,
                      size_t errlen)
{
  if (!geteuid() || st->euid == geteuid()) return 0;
  snprintf(err, errlen, "pid %d belongs to uid %d: run as that user or root",
           pid, (int)st->euid);
  return -EPERM;
}

int proc_stat_parse(const char *s, size_t n, struct proc_stat *st)
{
  const char *open = memchr(s, '(', n), *close = NULL, *p, *end = s + n;
  uint64_t f[25] = {0};
  int k;

  memset(st, 0, sizeof(*st));
  for (p = s; p < end; p++)
    if (*p == ')') close = p;
  if (!open || !close || close < open || close + 2 >= end) return -EINVAL;
  k = (int)(close - open - 1);
  if (k > 15) k = 15;
  memcpy(st->comm, open + 1, (size_t)k);
  st->state = close[2];
  /* after ')': state is field 3; count fields up to rss (24) */
  p = close + 2;
  for (k = 3; k <= 24 && p < end; k++) {
    uint64_t v = 0;

    while (p < end && *p != ' ' && *p != '\n') {
      if (*p >= '0' && *p <= '9' && v < UINT64_MAX / 10)
        v = v * 10 + (uint64_t)(*p - '0');
      p++;
    }
    f[k] = v;
    if (p < end && *p == ' ') p++;
  }
  if (k <= 24) return -EINVAL;
  st->utime = f[14];
  st->stime = f[15];
  st->threads = (long)f[20];
  st->starttime = f[22];
  st->vsize = f[23];
  st->rss = f[24];
  return 0;
}

/* Read a small /proc file into buf (max bytes), NUL-terminated. */
int proc_read_small(int dirfd, const char *path, char *buf, size_t max,
                    size_t *len)
{
  int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  ssize_t r;

  if (fd < 0) return -errno;
  r = read(fd, buf, max - 1);
  if (r < 0) {
    r = -errno;
    close(fd);
    return (int)r;
  }
  close(fd);
  buf[r] = 0;
  *len = (size_t)r;
  return 0;
}

static int stat_of(int dirfd, const char *pre, int tid, struct proc_stat *st)
{
  char path[80], buf[PROC_STAT_MAX];
  size_t len;
  int rc;

  if (tid)
    snprintf(path, sizeof(path), "%stask/%d/stat", pre, tid);
  else
    snprintf(path, sizeof(path), "%sstat", pre);
  if ((rc = proc_read_small(dirfd, path, buf, sizeof(buf), &len))) return rc;
  return proc_stat_parse(buf, len, st);
}

int proc_stat_at(int procfd, int tid, struct proc_stat *st)
{
  return stat_of(procfd, "", tid, st);
}

int proc_open_fds_at(int procfd, size_t max, size_t *n)
{
  _Alignas(8) char buf[32768];
  long got;
  int fd;

  *n = 0;
  fd = openat(procfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -errno;
  /* linux_dirent64: d_ino 8, d_off 8, d_reclen 2, d_type 1, d_name */
  while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
    for (long off = 0; off + 19 < got;) {
      uint16_t reclen;
      const char *name = buf + off + 19;

      memcpy(&reclen, buf + off + 16, sizeof(reclen));
      if (!reclen) break;
      off += reclen;
      if (name[0] == '.') continue; /* . and .. */
      if (*n == max) {
        close(fd);
        return -E2BIG;
      }
      ++*n;
    }
  }
  got = got < 0 ? -errno : 0;
  close(fd);
  return (int)got;
}

int proc_max_fds_at(int procfd, uint64_t *soft)
{
  char buf[PROC_STAT_MAX], *line, *end;
  size_t len;
  long long v;
  int rc;

  if ((rc = proc_read_small(procfd, "limits", buf, sizeof(buf), &len)))
    return rc;
  if (!(line = strstr(buf, "\nMax open files "))) return -EINVAL;
  line += strlen("\nMax open files ");
  line += strspn(line, " ");
  end = line + strcspn(line, " \n");
  if (end - line == 9 && !memcmp(line, "unlimited", 9)) return -ERANGE;
  *end = 0;
  if (parse_long(line, 0, LLONG_MAX, &v)) return -EINVAL;
  *soft = (uint64_t)v;
  return 0;
}

int proc_task_cmp(const void *a, const void *b)
{
  int x = ((const struct proc_task *)a)->tid;
  int y = ((const struct proc_task *)b)->tid;

  return (x > y) - (x < y);
}

int proc_tasks_at(int procfd, struct proc_task **tasks, size_t *n,
                  size_t *dropped)
{
  char buf[PROC_STAT_MAX], name[32];
  size_t cap = 0, len, over = 0;
  struct dirent *e;
  DIR *d;
  int tid, fd;

  *tasks = NULL;
  *n = 0;
  fd = openat(procfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -errno;
  if (!(d = fdopendir(fd))) {
    int rc = -errno;

    close(fd);
    return rc;
  }
  while ((e = readdir(d))) {
    struct proc_task t;

    if (parse_pid(e->d_name, &tid)) continue;
    snprintf(name, sizeof(name), "%d/stat", tid);
    /* a thread that ended since readdir: left out */
    if (proc_read_small(dirfd(d), name, buf, sizeof(buf), &len)) continue;
    if (proc_stat_parse(buf, len, &t.st)) continue;
    if (*n == PROC_MAX_TASKS) {
      over++;
      continue;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 64;
      *tasks = xrealloc(*tasks, cap * sizeof(**tasks));
    }
    t.tid = tid;
    (*tasks)[(*n)++] = t;
  }
  closedir(d);
  if (*n) qsort(*tasks, *n, sizeof(**tasks), proc_task_cmp);
  if (dropped) *dropped = over;
  return 0;
}

long proc_hz(void)
{
  static long hz;

  if (!hz) hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) hz = 100;
  return hz;
}

long proc_page(void)
{
  static long page;

  if (!page) page = sysconf(_SC_PAGESIZE);
  if (page <= 0) page = 4096;
  return page;
}

int proc_uptime(double *secs)
{
  char buf[128];
  size_t len;
  int rc;

  if ((rc = proc_read_small(AT_FDCWD, "/proc/uptime", buf, sizeof(buf), &len)))
    return rc;
  *secs = strtod(buf, NULL);
  return 0;
}

static int container_of(int dirfd, const char *pre, char id[65], char pod[37])
{
  char path[64], *cg = NULL, *p;
  size_t len;
  int rc;

  id[0] = 0;
  if (pod) pod[0] = 0;
  snprintf(path, sizeof(path), "%scgroup", pre);
  if ((rc = read_file(dirfd, path, 0, 65536, &cg, &len))) return rc;
  for (p = cg; *p; p++) {
    size_t k = strspn(p, "0123456789abcdef");

    if (k == 64) {
      memcpy(id, p, 64);
      id[64] = 0;
      break;
    }
    p += k ? k - 1 : 0;
  }
  if (pod && (p = strstr(cg, "pod")) &&
      strspn(p + 3, "0123456789abcdef-_") >= 36) {
    for (size_t i = 0; i < 36; i++) pod[i] = p[3 + i] == '_' ? '-' : p[3 + i];
    pod[36] = 0;
  }
  free(cg);
  return 0;
}

void proc_tasks_delta(const struct proc_task *prev, size_t np,
                      const struct proc_task *cur, size_t nc, uint64_t (*d)[2])
{
  size_t j = 0;

  for (size_t i = 0; i < nc; i++) {
    uint64_t u = 0, s = 0;

    while (j < np && prev[j].tid < cur[i].tid) j++;
    if (j < np && prev[j].tid == cur[i].tid &&
        prev[j].st.starttime == cur[i].st.starttime) {
      u = prev[j].st.utime;
      s = prev[j].st.stime;
    }
    d[i][0] = cur[i].st.utime > u ? cur[i].st.utime - u : 0;
    d[i][1] = cur[i].st.stime > s ? cur[i].st.stime - s : 0;
  }
}

int proc_task_sched_at(int procfd, int tid, uint64_t ns[2])
{
  char path[64], buf[128];
  unsigned long long run, wait;
  size_t len;
  int rc;

  snprintf(path, sizeof(path), "task/%d/schedstat", tid);
  if ((rc = proc_read_small(procfd, path, buf, sizeof(buf), &len))) return rc;
  {
    const char *p = scan_u64(buf, 10, &run);

    if (!p || !scan_u64_after_blanks(p, 10, &wait)) return -EINVAL;
  }
  ns[0] = run;
  ns[1] = wait;
  return 0;
}

/* A file or folder only root may change: root's, not writable by group
 * or others. */
static int roots_only(const struct stat *sb)
{
  return sb->st_uid == 0 && !(sb->st_mode & (S_IWGRP | S_IWOTH));
}

int proc_exe_emulator(int procfd)
{
  char name[PATH_MAX], *base, *slash;
  struct stat exe, here, dir;
  ssize_t n = readlinkat(procfd, "exe", name, sizeof(name) - 1);

  if (n <= 1 || name[0] != '/') return 0;
  name[n] = 0;
  base = strrchr(name, '/') + 1;
  if (!starts_with(base, "qemu-") || starts_with(base, "qemu-system-"))
    return 0;
  /* the file it runs, and the file that name is in our root: the same,
   * and root's (a path the process's own root gives proves nothing) */
  if (fstatat(procfd, "exe", &exe, 0) || lstat(name, &here) ||
      !S_ISREG(here.st_mode) || here.st_dev != exe.st_dev ||
      here.st_ino != exe.st_ino || !roots_only(&here))
    return 0;
  for (slash = base - 1; slash;
       slash = slash > name ? strrchr(name, '/') : NULL) {
    *slash = 0;
    if (lstat(*name ? name : "/", &dir) || !S_ISDIR(dir.st_mode) ||
        !roots_only(&dir))
      return 0;
  }
  return 1;
}

int proc_container_at(int procfd, char id[65], char pod[37])
{
  return container_of(procfd, "", id, pod);
}
