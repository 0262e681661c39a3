/* vm_list.c - find JVMs: every PerfData file this user can see
 *
 * See docs/jvmstat.md §2. jvmstat walks every pid's root's /tmp and keeps
 * a file only when its name is that pid's own pid or its last NSpid field;
 * here each distinct container /tmp is read once and its files are matched
 * against the pids living in it. Every container path is resolved inside
 * the container's root (core/root.h), never through our own.
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "core/root.h"
#include "core/vm.h"
#include <sys/sysmacros.h>

struct list {
  struct vm *v;
  size_t n, cap;
};

int vm_flock_held(dev_t dev, ino_t ino)
{
  char *data, *line, *next;
  size_t len;
  int rc, held = 0;

  if ((rc = read_file(AT_FDCWD, "/proc/locks", 0, 16 << 20, &data, &len)))
    return rc;
  for (line = data; line && *line && !held; line = next) {
    unsigned maj, min;
    unsigned long long inode;
    char *p;

    if ((next = strchr(line, '\n'))) *next++ = 0;
    /* "1: FLOCK  ADVISORY  WRITE 24134 fe:00:10960948 0 EOF"; a waiter's
     * line has "->" before FLOCK and is skipped: it holds nothing. */
    if (!(p = strstr(line, ": FLOCK "))) continue;
    if (sscanf(p + 8, "%*s %*s %*d %x:%x:%llu", &maj, &min, &inode) == 3 &&
        makedev(maj, min) == dev && inode == (unsigned long long)ino)
      held = 1;
  }
  free(data);
  return held;
}

/* Whether the process proto names maps the file (sb): 1 yes or cannot
 * tell (another user's maps: jps lists such a file too), 0 a live process
 * that does not (a file planted under its pid, or left by a JVM whose pid
 * was reused), -1 no such process (a stale file). */
static int owned(const struct vm *proto, const struct stat *sb)
{
  char path[32];
  int fd, rc;

  snprintf(path, sizeof(path), "/proc/%d", proto->pid);
  if ((fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
  rc = proc_maps_file(fd, sb->st_dev, sb->st_ino, proto->file, NULL);
  close(fd);
  if (rc == -ENOENT || rc == -ESRCH) return -1;
  return rc != 0;
}

static void add(struct list *l, const struct vm *proto, const struct stat *sb)
{
  struct vm *v;
  int own = owned(proto, sb);

  if (!own) return;
  /* a pid found twice: vm_list keeps the first one found (dedup) */
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
  }
  v = &l->v[l->n++];
  *v = *proto;
  v->user = xstrdup(proto->user);
  v->path = xstrdup(proto->path);
  v->file = xstrdup(proto->file);
  v->uid = sb->st_uid;
  v->alive = own > 0;
  v->locked = vm_flock_held(sb->st_dev, sb->st_ino);
}

/* One PerfData file candidate of a /tmp. */
struct entry {
  char *user;
  int name;
  size_t seq; /* the order it was read in */
  struct stat sb;
};

struct tmpdir {
  dev_t dev;
  ino_t ino;
  struct entry *e;
  size_t n;
};

/* Whether we may read a file with these owner and mode bits. */
static int readable(const struct stat *sb)
{
  gid_t groups[256];
  int n;

  if (!geteuid() || (sb->st_uid == geteuid() && (sb->st_mode & S_IRUSR)))
    return 1;
  if (sb->st_uid == geteuid()) return 0;
  if (sb->st_mode & S_IRGRP) {
    if (sb->st_gid == getegid()) return 1;
    n = getgroups(256, groups);
    for (int i = 0; i < n; i++)
      if (groups[i] == sb->st_gid) return 1;
  }
  return (sb->st_mode & S_IROTH) != 0;
}

static int by_name(const void *a, const void *b)
{
  const struct entry *x = a, *y = b;

  if (x->name != y->name) return (x->name > y->name) - (x->name < y->name);
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sort t's candidates by name, keeping the order of equal names (the
 * index breaks ties: it is the order they were read in). */
static void qsort_stable_entries(struct tmpdir *t)
{
  for (size_t i = 0; i < t->n; i++) t->e[i].seq = i;
  qsort(t->e, t->n, sizeof(*t->e), by_name);
}

/* The candidates in the hsperfdata_* folders of r's /tmp (tmpfd, §2.1):
 * <digits> names of regular files (links followed inside the root, as
 * jvmstat lists them) we can read. Nothing is opened: a FIFO or a device
 * named like a pid is passed over by its type. */
static void scan_tmp(const struct root *r, int tmpfd, struct tmpdir *t)
{
  int fd = fcntl(tmpfd, F_DUPFD_CLOEXEC, 0), dfd;
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL, *u;
  struct dirent *e, *f;

  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  while ((e = readdir(d))) {
    if (!starts_with(e->d_name, "hsperfdata_") ||
        root_openat(NULL, tmpfd, e->d_name, O_RDONLY | O_DIRECTORY, 0, &dfd))
      continue;
    if (!(u = fdopendir(dfd))) {
      close(dfd);
      continue;
    }
    while ((f = readdir(u))) {
      struct stat sb;
      char *file;
      int pid;

      if (parse_pid(f->d_name, &pid) ||
          fstatat(dfd, f->d_name, &sb, AT_SYMLINK_NOFOLLOW))
        continue;
      if (S_ISLNK(sb.st_mode)) {
        file = xasprintf("/tmp/%s/%s", e->d_name, f->d_name);
        if (root_stat(r, file, &sb)) sb.st_mode = 0;
        free(file);
      }
      if (!S_ISREG(sb.st_mode) || !readable(&sb)) continue;
      t->e = xrealloc(t->e, (t->n + 1) * sizeof(*t->e));
      t->e[t->n].user = xstrdup(e->d_name + 11);
      t->e[t->n].name = pid;
      t->e[t->n++].sb = sb;
    }
    closedir(u);
  }
  closedir(d);
  /* stable order for equal names: the folder read first stays first */
  if (t->n) qsort_stable_entries(t);
}

static void free_tmp(struct tmpdir *t)
{
  for (size_t i = 0; i < t->n; i++) free(t->e[i].user);
  free(t->e);
}

/* The first of t's candidates (sorted by name) named name or later. */
static size_t first_named(const struct tmpdir *t, int name)
{
  size_t lo = 0, hi = t->n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (t->e[mid].name < name)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Add the candidates of t named hostpid or nspid, found in root r: found
 * by binary search, so a /tmp of many files costs O(log n) per pid. */
static void add_from(struct list *l, const struct tmpdir *t,
                     const struct root *r, int hostpid, int nspid, int other_ns)
{
  for (size_t i = first_named(t, hostpid < nspid ? hostpid : nspid); i < t->n;
       i++) {
    const struct entry *e = &t->e[i];
    struct vm v = {0};

    if (e->name > hostpid && e->name > nspid) break;
    if (e->name != hostpid && e->name != nspid) continue;
    v.pid = hostpid;
    v.nspid = e->name;
    v.user = e->user;
    v.file = xasprintf("/tmp/hsperfdata_%s/%d", e->user, e->name);
    v.path = root_name(r, v.file);
    v.root_pid = r->pid;
    v.other_ns = other_ns;
    add(l, &v, &e->sb);
    free(v.file);
    free(v.path);
  }
}

static int by_pid(const void *a, const void *b)
{
  const struct vm *x = a, *y = b;

  if (x->pid != y->pid) return (x->pid > y->pid) - (x->pid < y->pid);
  return (x->found > y->found) - (x->found < y->found);
}

/* Sort by pid and keep the first found of each pid: O(n log n). */
static void sort_unique(struct list *l)
{
  size_t k = 0;

  for (size_t i = 0; i < l->n; i++) l->v[i].found = i;
  if (l->n) qsort(l->v, l->n, sizeof(*l->v), by_pid);
  for (size_t i = 0; i < l->n; i++) {
    if (k && l->v[k - 1].pid == l->v[i].pid) {
      vm_free(&l->v[i]);
      continue;
    }
    l->v[k++] = l->v[i];
  }
  l->n = k;
}

int vm_each_tmp(int (*cb)(void *arg, int pid, const struct root *r, int tmpfd,
                          const struct stat *sb, int first),
                void *arg)
{
  struct root ours;
  struct stat tsb, *seen = NULL;
  size_t nseen = 0, npids = 0;
  int *pids = NULL, tmpfd, rc;

  if ((rc = root_open(0, &ours)) || (rc = root_tmp(&ours, &tmpfd, &tsb))) {
    root_close(&ours);
    return rc;
  }
  close(tmpfd);
  root_close(&ours);
  if ((rc = proc_pids(&pids, &npids))) return rc;
  for (size_t i = 0; i < npids; i++) {
    struct root r;
    struct stat sb;
    int first = 1;

    if (root_open(pids[i], &r)) continue;
    if (root_tmp(&r, &tmpfd, &sb) ||
        (sb.st_dev == tsb.st_dev && sb.st_ino == tsb.st_ino)) {
      if (tmpfd >= 0) close(tmpfd);
      root_close(&r);
      continue;
    }
    for (size_t k = 0; k < nseen && first; k++)
      first = seen[k].st_dev != sb.st_dev || seen[k].st_ino != sb.st_ino;
    if (first) {
      seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
      seen[nseen++] = sb;
    }
    cb(arg, pids[i], &r, tmpfd, &sb, first);
    close(tmpfd);
    root_close(&r);
  }
  free(seen);
  free(pids);
  return 0;
}

/* vm_list's walk: each container /tmp read once, its files matched
 * against every pid living in it. */
struct walk {
  struct list l;
  struct tmpdir *seen;
  size_t nseen;
};

static int list_tmp(void *arg, int pid, const struct root *r, int tmpfd,
                    const struct stat *sb, int first)
{
  struct walk *w = arg;
  struct tmpdir *t = NULL;
  int nspid;

  for (size_t k = 0; k < w->nseen && !t && !first; k++)
    if (w->seen[k].dev == sb->st_dev && w->seen[k].ino == sb->st_ino)
      t = &w->seen[k];
  if (!t) {
    w->seen = xrealloc(w->seen, (w->nseen + 1) * sizeof(*w->seen));
    t = &w->seen[w->nseen++];
    memset(t, 0, sizeof(*t));
    t->dev = sb->st_dev;
    t->ino = sb->st_ino;
    scan_tmp(r, tmpfd, t);
  }
  if (t->n) {
    if ((nspid = proc_nspid(pid)) < 0) nspid = pid;
    add_from(&w->l, t, r, pid, nspid, 1);
  }
  return 0;
}

int vm_list(struct vm **out, size_t *n)
{
  struct walk w = {0};
  struct root ours;
  struct tmpdir host = {0};
  struct stat tsb;
  int tmpfd, rc;

  if ((rc = root_open(0, &ours)) || (rc = root_tmp(&ours, &tmpfd, &tsb))) {
    root_close(&ours);
    return rc;
  }
  scan_tmp(&ours, tmpfd, &host);
  close(tmpfd);
  for (size_t i = 0; i < host.n; i++)
    add_from(&w.l, &host, &ours, host.e[i].name, host.e[i].name, 0);
  root_close(&ours);
  vm_each_tmp(list_tmp, &w);
  for (size_t k = 0; k < w.nseen; k++) free_tmp(&w.seen[k]);
  free_tmp(&host);
  free(w.seen);
  sort_unique(&w.l);
  *out = w.l.v;
  *n = w.l.n;
  return 0;
}

void vm_free(struct vm *v)
{
  free(v->user);
  free(v->path);
  free(v->file);
  memset(v, 0, sizeof(*v));
}

void vm_list_free(struct vm *v, size_t n)
{
  for (size_t i = 0; i < n; i++) vm_free(&v[i]);
  free(v);
}

void vm_init(struct vm *out)
{
  memset(out, 0, sizeof(*out));
  out->locked = -1;
  out->root_pid = -1;
}
