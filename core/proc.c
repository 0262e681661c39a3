/* proc.c - facts about a process from /proc */
#include "core/jvmtool.h"
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

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

/* Fields of a line of n bytes: "start-end perms offset dev inode   path". */
static int maps_line(char *line, struct proc_map *m)
{
  const char *p = strchr(line, ' ');
  unsigned long long v;

  if (!p || strnlen(p, 6) < 6) return -1;
  memcpy(m->perms, p + 1, 4);
  m->perms[4] = 0;
  for (int f = 0; f < 2 && p; f++)
    if ((p = strchr(p + 1, ' '))) p++;
  if (!p || !(p = scan_u64(p, 16, &v)) || *p != ':' || v > UINT_MAX) return -1;
  m->maj = (unsigned)v;
  if (!(p = scan_u64(p + 1, 16, &v)) || *p != ' ' || v > UINT_MAX) return -1;
  m->min = (unsigned)v;
  while (*p == ' ') p++;
  if (!(p = scan_u64(p, 10, &v))) return -1;
  m->ino = v;
  m->path = strchr(p, '/');
  return 0;
}

int proc_maps_fd(int fd, int (*cb)(void *, const struct proc_map *), void *arg)
{
  char b[16384];
  size_t have = 0;
  int skip = 0, stop = 0;
  ssize_t r;

  while (!stop && (r = read(fd, b + have, sizeof(b) - 1 - have)) > 0) {
    char *p = b, *nl, *end = b + have + r;
    struct proc_map m;

    while (!stop && (nl = memchr(p, '\n', (size_t)(end - p)))) {
      /* a line with no path (a thread's stack, the heap: most of a JVM's
       * lines) costs this memchr and no parsing */
      if (!skip && memchr(p, '/', (size_t)(nl - p))) {
        *nl = 0;
        if (!maps_line(p, &m)) stop = cb(arg, &m);
      }
      skip = 0;
      p = nl + 1;
    }
    have = (size_t)(end - p);
    if (have == sizeof(b) - 1) { /* a line longer than the buffer */
      skip = 1;
      have = 0;
    }
    memmove(b, p, have);
  }
  return stop;
}

/* The PerfData shape of a mapped path: ".../hsperfdata_<user>/<digits>";
 * sets user (n bytes) and *name. */
static int perf_name(const char *path, char *user, size_t n, int *name)
{
  const char *base = strrchr(path, '/'), *dir;
  size_t len;

  if (!base || base == path || parse_pid(base + 1, name)) return 0;
  for (dir = base - 1; dir > path && *dir != '/'; dir--)
    ;
  dir++;
  if (!starts_with(dir, "hsperfdata_")) return 0;
  len = (size_t)(base - dir) - 11;
  if (!len || len >= n) return 0;
  memcpy(user, dir + 11, len);
  user[len] = 0;
  return 1;
}

/* A mapping named libjvm.so: executable, or not. */
static void libjvm_seen(struct proc_jvm_maps *j, const struct proc_map *m)
{
  const char *base = strrchr(m->path, '/') + 1;

  if (!strcmp(base, "libjvm.so") || !strcmp(base, "libjvm.so (deleted)")) {
    if (m->perms[2] == 'x')
      j->libjvm = 1;
    else
      j->libjvm_data = 1;
  }
}

static int jvm_line(void *arg, const struct proc_map *m)
{
  struct proc_jvm_maps *j = arg;
  struct proc_perf_map *p;

  libjvm_seen(j, m);
  if (m->perms[3] != 's' || j->nperf == PROC_JVM_PERF) return 0;
  p = &j->perf[j->nperf];
  if (!perf_name(m->path, p->user, sizeof(p->user), &p->name)) return 0;
  p->maj = m->maj;
  p->min = m->min;
  p->ino = m->ino;
  if (strlen(m->path) >= sizeof(p->path))
    p->path[0] = 0;
  else
    snprintf(p->path, sizeof(p->path), "%s", m->path);
  j->nperf++;
  return 0;
}

/* PROCMAP_QUERY (Linux 6.11+; the uapi header linux/fs.h, and
 * Documentation/filesystems/proc.rst): an ioctl on an open
 * /proc/<pid>/maps that answers one mapping, the first at or after an
 * address that has the asked flags, with the facts its maps line shows
 * (range, flags, device, inode, and, when asked, the name as maps prints
 * it) and no text for the rest. The layout is the kernel's ABI, written
 * here from its published definition because the build's headers may
 * predate it: size first (the version), 104 bytes. */
struct maps_query {
  uint64_t size;          /* in: sizeof(struct maps_query) */
  uint64_t query_flags;   /* in: MQ_* */
  uint64_t query_addr;    /* in */
  uint64_t vma_start;     /* out */
  uint64_t vma_end;       /* out */
  uint64_t vma_flags;     /* out: MQ_READ..MQ_SHARED */
  uint64_t vma_page_size; /* out */
  uint64_t vma_offset;    /* out */
  uint64_t inode;         /* out */
  uint32_t dev_major;     /* out */
  uint32_t dev_minor;     /* out */
  uint32_t vma_name_size; /* in: the buffer; out: the name's, NUL counted
                             (0: the mapping has no name) */
  uint32_t build_id_size; /* in/out: 0, not asked */
  uint64_t vma_name_addr; /* in */
  uint64_t build_id_addr; /* in */
};
_Static_assert(sizeof(struct maps_query) == 104, "PROCMAP_QUERY's layout");
enum {
  MQ_EXEC = 0x04,   /* VM_EXEC: maps' 'x' */
  MQ_SHARED = 0x08, /* VM_MAYSHARE: maps' 's' */
  MQ_NEXT = 0x10,   /* the mapping covering the address, or the next one */
  MQ_FILE = 0x20    /* file-backed only */
};
#define MAPS_QUERY _IOWR('f', 17, struct maps_query)

/* Whether the kernel answers the query, found once per command by the
 * first maps file asked: 0 not yet, 1 yes, -1 no (the text is read). */
static int query_state;

/* The kernel says it has no such ioctl here: an old kernel, or a maps
 * file that is not procfs (a copy). */
static int no_query(int e)
{
  return e == ENOTTY || e == EINVAL || e == ENOSYS || e == EOPNOTSUPP;
}

/* One query: the first mapping at or after addr with flags (MQ_*), its
 * name into name (PATH_MAX bytes: the kernel's own limit) when name is not
 * NULL. 0, or -errno (-ENOENT: none left). */
static int query_one(int fd, uint64_t addr, unsigned flags, char *name,
                     struct maps_query *q)
{
  memset(q, 0, sizeof(*q));
  q->size = sizeof(*q);
  q->query_flags = flags | MQ_NEXT;
  q->query_addr = addr;
  if (name) {
    q->vma_name_size = PATH_MAX;
    q->vma_name_addr = (uintptr_t)name;
  }
  if (ioctl(fd, MAPS_QUERY, q)) return -errno;
  return 0;
}

/* maps prints a name with each newline as "\012" (seq_path's escape): the
 * same here, so both ways give one path; into out (4 * PATH_MAX). */
static const char *as_maps_prints(const char *name, char *out)
{
  char *o = out;

  if (!strchr(name, '\n')) return name;
  for (; *name; name++)
    if (*name == '\n') {
      memcpy(o, "\\012", 4);
      o += 4;
    } else {
      *o++ = *name;
    }
  *o = 0;
  return out;
}

/* Hand each mapping with flags (MQ_*) to cb as proc_maps_fd hands its
 * lines, in address order: with names (a mapping whose name has no '/'
 * is skipped, as proc_maps_fd skips such a line), or, when !names, every
 * one with path "". The loop is linear in the mappings the filter keeps:
 * each answer moves the address past its mapping. A name longer than
 * PATH_MAX, which the kernel does not give, skips the mapping (as a
 * line longer than proc_maps_fd's buffer is). An error of the kernel (the
 * process exited: -ESRCH) ends the walk as a failed read ends the text.
 * Returns cb's nonzero, or 0; -ENOTTY (or its kin) when the first query
 * says there is no such ioctl. */
static int query_each(int fd, unsigned flags, int names,
                      int (*cb)(void *, const struct proc_map *), void *arg)
{
  char name[PATH_MAX], esc[4 * PATH_MAX];
  struct maps_query q;
  uint64_t addr = 0;
  int rc, first = 1;

  for (;;) {
    struct proc_map m;

    rc = query_one(fd, addr, flags, names ? name : NULL, &q);
    if (rc == -ENAMETOOLONG && !(rc = query_one(fd, addr, flags, NULL, &q)))
      q.vma_name_size = 0;
    if (rc) return first && no_query(-rc) ? rc : 0;
    first = 0;
    if (q.vma_end <= addr || q.vma_end <= q.vma_start) return 0;
    addr = q.vma_end;
    if (names) {
      if (!q.vma_name_size) continue;
      name[sizeof(name) - 1] = 0;
      if (!(m.path = strchr(as_maps_prints(name, esc), '/'))) continue;
    } else {
      m.path = "";
    }
    m.perms[0] = q.vma_flags & 1 ? 'r' : '-';
    m.perms[1] = q.vma_flags & 2 ? 'w' : '-';
    m.perms[2] = q.vma_flags & MQ_EXEC ? 'x' : '-';
    m.perms[3] = q.vma_flags & MQ_SHARED ? 's' : 'p';
    m.perms[4] = 0;
    m.maj = q.dev_major;
    m.min = q.dev_minor;
    m.ino = q.inode;
    if ((rc = cb(arg, &m))) return rc;
  }
}

/* jvm_line until PROC_JVM_PERF PerfData-shaped mappings are kept (the
 * libjvm.so ones past them are the next queries'). */
static int perf_line(void *arg, const struct proc_map *m)
{
  jvm_line(arg, m);
  return ((struct proc_jvm_maps *)arg)->nperf == PROC_JVM_PERF;
}

/* libjvm_seen until an executable libjvm.so is found. */
static int libjvm_line(void *arg, const struct proc_map *m)
{
  libjvm_seen(arg, m);
  return ((struct proc_jvm_maps *)arg)->libjvm;
}

/* The identity by queries: the shared file mappings (the PerfData files,
 * a few), then, unless holder asks only for a process that has one, the
 * executable file mappings until a libjvm.so (a library's code: tens),
 * and every file mapping only when neither says enough (is a libjvm.so
 * mapped without exec?). -ENOTTY and kin when there is no query. */
static int jvm_query(int fd, int holder, struct proc_jvm_maps *m)
{
  int rc = query_each(fd, MQ_FILE | MQ_SHARED, 1, perf_line, m);

  if (rc < 0) return rc;
  if (holder && !m->nperf) return 0;
  if (!m->libjvm) query_each(fd, MQ_FILE | MQ_EXEC, 1, libjvm_line, m);
  if (!m->libjvm && !m->libjvm_data) query_each(fd, MQ_FILE, 1, libjvm_line, m);
  return 0;
}

/* Whether to query fd (how: PROC_MAPS_*), and what a failed first query
 * teaches about the rest of the command. */
static int want_query(int how)
{
  return how & PROC_MAPS_QUERY || (!(how & PROC_MAPS_TEXT) && query_state >= 0);
}

static void learn(int how, int rc)
{
  if (how & (PROC_MAPS_QUERY | PROC_MAPS_TEXT) || query_state) return;
  query_state = rc < 0 && no_query(-rc) ? -1 : 1;
}

int proc_jvm_maps_fd(int fd, int how, struct proc_jvm_maps *m)
{
  int rc = -ENOTTY;

  memset(m, 0, sizeof(*m));
  if (want_query(how)) {
    rc = jvm_query(fd, how & PROC_MAPS_HOLDER, m);
    learn(how, rc);
    if (rc < 0 && how & PROC_MAPS_QUERY) return rc;
  }
  if (rc < 0) {
    memset(m, 0, sizeof(*m));
    proc_maps_fd(fd, jvm_line, m);
  }
  if (m->libjvm) m->libjvm_data = 0;
  return 0;
}

static int jvm_maps_at(int dirfd, const char *path, int how,
                       struct proc_jvm_maps *m)
{
  int fd, rc;

  memset(m, 0, sizeof(*m));
  if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0) return -errno;
  rc = proc_jvm_maps_fd(fd, how, m);
  close(fd);
  return rc;
}

int proc_jvm_maps(int dirfd, const char *path, struct proc_jvm_maps *m)
{
  return jvm_maps_at(dirfd, path, PROC_MAPS_AUTO, m);
}

int proc_perf_maps(int dirfd, const char *path, struct proc_jvm_maps *m)
{
  return jvm_maps_at(dirfd, path, PROC_MAPS_HOLDER, m);
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

struct any {
  dev_t dev;
  ino_t ino;
};

static int any_line(void *arg, const struct proc_map *m)
{
  const struct any *a = arg;

  return m->ino == (uint64_t)a->ino && makedev(m->maj, m->min) == a->dev;
}

int proc_maps_has_fd(int fd, int how, dev_t dev, ino_t ino)
{
  struct any a = {dev, ino};
  int rc = -ENOTTY;

  /* no names asked: the kernel gives every file mapping's device and
   * inode, whatever it is called */
  if (want_query(how)) {
    rc = query_each(fd, MQ_FILE, 0, any_line, &a);
    learn(how, rc);
    if (rc < 0 && how & PROC_MAPS_QUERY) return rc;
  }
  return rc < 0 ? proc_maps_fd(fd, any_line, &a) : rc;
}

int proc_maps_has(int dirfd, const char *path, dev_t dev, ino_t ino)
{
  int fd, rc;

  if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0) return -errno;
  rc = proc_maps_has_fd(fd, PROC_MAPS_AUTO, dev, ino);
  close(fd);
  return rc;
}

/* "(deleted)" aside, is the mapped path p the file's name? */
static int same_name(const char *p, const char *name)
{
  size_t n = strlen(name);

  return !strncmp(p, name, n) && (!p[n] || !strcmp(p + n, " (deleted)"));
}

const struct proc_perf_map *proc_jvm_maps_file(const struct proc_jvm_maps *m,
                                               dev_t dev, ino_t ino,
                                               const char *name)
{
  for (int i = 0; i < m->nperf; i++) {
    const struct proc_perf_map *p = &m->perf[i];

    if (p->ino == (uint64_t)ino &&
        (makedev(p->maj, p->min) == dev || (name && same_name(p->path, name))))
      return p;
  }
  return NULL;
}

int proc_container_at(int procfd, char id[65], char pod[37])
{
  return container_of(procfd, "", id, pod);
}
