/* proc_maps.c - what a process's maps say of it: the text of
 * /proc/<pid>/maps, or the kernel's answers to PROCMAP_QUERY on it */
#include "core/jvmtool.h"
#include <sys/ioctl.h>
#include <sys/sysmacros.h>

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

  /* the kernel writes each name with its NUL; zeroed first all the same,
   * so that a memory checker that does not know this ioctl (valgrind,
   * test/valgrind.test) sees bytes it can follow */
  if (names) memset(name, 0, sizeof(name));
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
