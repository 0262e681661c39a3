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

/* A file's identity: the key of a lock in /proc/locks. */
struct file_key {
  dev_t dev;
  ino_t ino;
};

struct list {
  struct vm *v;
  struct file_key *key; /* v[i]'s file */
  size_t n, cap;
};

static int by_key(const void *a, const void *b)
{
  const struct file_key *x = a, *y = b;

  if (x->dev != y->dev) return (x->dev > y->dev) - (x->dev < y->dev);
  return (x->ino > y->ino) - (x->ino < y->ino);
}

/* Every flock held on the machine, per /proc/locks (sorted by key, caller
 * frees), or -errno. "1: FLOCK  ADVISORY  WRITE 24134 fe:00:10960948 0
 * EOF"; a waiter's line has "->" before FLOCK and is skipped: it holds
 * nothing. */
static int flocks(struct file_key **out, size_t *n)
{
  char *data, *line, *next;
  size_t len, cap = 0;
  int rc;

  *out = NULL;
  *n = 0;
  if ((rc = read_file(AT_FDCWD, "/proc/locks", 0, 16 << 20, &data, &len)))
    return rc;
  for (line = data; line && *line; line = next) {
    unsigned long long maj, min, inode;
    const char *p;

    if ((next = strchr(line, '\n'))) *next++ = 0;
    /* "1: FLOCK  ADVISORY  WRITE 3431 fe:00:10960899 0 EOF": past the
     * kind, the mode and the pid to the device and inode */
    if (!(p = strstr(line, ": FLOCK "))) continue;
    p += 8;
    for (int f = 0; f < 3 && p; f++) {
      while (*p == ' ') p++;
      p = *p ? strchr(p, ' ') : NULL;
    }
    if (!p || !(p = scan_u64_after_blanks(p, 16, &maj)) || *p != ':' ||
        !(p = scan_u64(p + 1, 16, &min)) || *p != ':' ||
        !scan_u64(p + 1, 10, &inode) || maj > UINT_MAX || min > UINT_MAX)
      continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 64;
      *out = xrealloc(*out, cap * sizeof(**out));
    }
    (*out)[*n].dev = makedev(maj, min);
    (*out)[(*n)++].ino = (ino_t)inode;
  }
  free(data);
  if (*n) qsort(*out, *n, sizeof(**out), by_key);
  return 0;
}

int vm_flock_held(dev_t dev, ino_t ino)
{
  struct file_key k = {dev, ino}, *v;
  size_t n;
  int rc = flocks(&v, &n);

  if (rc) return rc;
  rc = n && bsearch(&k, v, n, sizeof(*v), by_key);
  free(v);
  return rc;
}

/* Each row's locked, from one read of /proc/locks for the whole listing
 * (a list of every lock on the machine: 5-24 ms a read on a busy one).
 * O((rows + locks) log locks). */
static void mark_locks(struct list *l)
{
  struct file_key *v;
  size_t n;
  int rc;

  if (!l->n) return;
  rc = flocks(&v, &n);
  for (size_t i = 0; i < l->n; i++)
    l->v[i].locked =
        rc ? rc : n && bsearch(&l->key[i], v, n, sizeof(*v), by_key) != NULL;
  free(v);
}

/* Add a row for proto, whose file is sb: alive when own > 0 (its
 * process maps it, or cannot be asked), a stale file when own < 0. */
static void add(struct list *l, const struct vm *proto, const struct stat *sb,
                int own)
{
  struct vm *v;

  /* a pid found twice: vm_list keeps the first one found (dedup) */
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
    l->key = xrealloc(l->key, l->cap * sizeof(*l->key));
  }
  l->key[l->n].dev = sb->st_dev;
  l->key[l->n].ino = sb->st_ino;
  v = &l->v[l->n++];
  *v = *proto;
  v->user = xstrdup(proto->user);
  v->path = xstrdup(proto->path);
  v->file = xstrdup(proto->file);
  v->uid = sb->st_uid;
  v->alive = own > 0;
  v->locked = -1; /* mark_locks */
}

/* One PerfData file candidate of a /tmp. */
struct entry {
  char *user;
  int name;
  size_t seq; /* the order it was read in */
  int link;   /* a link (sb is its target's) */
  struct stat sb;
};

struct tmpdir {
  dev_t dev;
  ino_t ino;
  struct entry *e;
  size_t n;
};

/* Whether we may read a file with these owner and mode bits. */
int vm_tmp_served(const char *name, char *why, size_t n);

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
        (!r->pid && vm_tmp_served(e->d_name, NULL, 0)) ||
        root_openat(NULL, tmpfd, e->d_name, O_RDONLY | O_DIRECTORY, 0, &dfd))
      continue;
    if (!(u = fdopendir(dfd))) {
      close(dfd);
      continue;
    }
    while ((f = readdir(u))) {
      struct stat sb;
      mode_t lsb_mode;
      char *file;
      int pid;

      if (parse_pid(f->d_name, &pid) ||
          fstatat(dfd, f->d_name, &sb, AT_SYMLINK_NOFOLLOW))
        continue;
      lsb_mode = sb.st_mode;
      if (S_ISLNK(sb.st_mode)) {
        file = xasprintf("/tmp/%s/%s", e->d_name, f->d_name);
        if (root_stat(r, file, &sb)) sb.st_mode = 0;
        free(file);
      }
      if (!S_ISREG(sb.st_mode) || !readable(&sb)) continue;
      t->e = xrealloc(t->e, (t->n + 1) * sizeof(*t->e));
      t->e[t->n].link = S_ISLNK(lsb_mode);
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

/* Our own namespaces and mounts, read once per command. */
static struct {
  int done;
  uint64_t pidns, mntns;
} self;

static void self_read(void)
{
  if (self.done) return;
  self.done = 1;
  if (proc_self_ns_ino("pid", &self.pidns)) self.pidns = 0;
  if (proc_self_ns_ino("mnt", &self.mntns)) self.mntns = 0;
}

int vm_see(int procfd, int maps_read, struct vm_seen *s)
{
  struct proc_jvm_maps keep;
  struct root_mounts theirs = {0};
  const struct root_mounts *mi = root_mounts_self();
  struct stat sb;
  dev_t dev = 0;
  int rc;

  if (maps_read) keep = s->maps;
  memset(s, 0, sizeof(*s));
  if (maps_read)
    s->maps = keep;
  else if ((rc = proc_jvm_maps(procfd, "maps", &s->maps)))
    return rc;
  self_read();
  if (!fstatat(procfd, "ns/pid", &sb, 0)) s->pidns = sb.st_ino;
  if (!fstatat(procfd, "ns/mnt", &sb, 0))
    s->mntns = sb.st_ino;
  else if (errno == ENOENT)
    return -ESRCH; /* exited since its maps */
  s->other_mnt = !s->mntns || s->mntns != self.mntns;
  if (!s->maps.libjvm && !s->maps.nperf) return 0; /* nothing to judge */
  if (s->other_mnt) {
    if ((rc = root_mounts_read(procfd, "mountinfo", &theirs))) {
      /* an exited process (a zombie) has no namespaces left: its
       * mountinfo says EINVAL; it is gone, not hostile */
      if (fstatat(procfd, "ns/mnt", &sb, 0) && errno == ENOENT) return -ESRCH;
      snprintf(s->hostile, sizeof(s->hostile), "its mounts cannot be read: %s",
               strerror(-rc));
      return 0;
    }
    mi = &theirs;
    /* a process of the host's pid namespace whose "/" is another's: it
     * entered a container's mount namespace (nsenter -m); a PrivateTmp
     * service keeps our "/" */
    s->foreign = s->pidns && s->pidns == self.pidns &&
                 !root_mounts_same_root(&theirs, root_mounts_self());
  }
  /* qemu-user maps an emulated JVM's libjvm.so without exec: taken for
   * the executable mapping only when the host vouches for the emulator
   * (docs/security.md §10), and asked only then */
  if (!s->maps.libjvm && s->maps.libjvm_data && s->maps.nperf && !s->foreign &&
      proc_exe_emulator(procfd))
    s->maps.libjvm = s->emulated = 1;
  if (s->maps.nperf) dev = makedev(s->maps.perf[0].maj, s->maps.perf[0].min);
  /* its /tmp, and the folder its PerfData file lies in as the kernel
   * names it (a /tmp that is a link: /var/tmp) */
  if (!root_mounts_hostile(mi, "/tmp", dev, s->hostile, sizeof(s->hostile)) &&
      s->maps.nperf && s->maps.perf[0].path[0]) {
    char dir[sizeof(s->maps.perf[0].path)], *slash;

    snprintf(dir, sizeof(dir), "%s", s->maps.perf[0].path);
    for (int i = 0; i < 2 && (slash = strrchr(dir, '/')); i++)
      slash[slash == dir] = 0;
    root_mounts_hostile(mi, dir, 0, s->hostile, sizeof(s->hostile));
  }
  root_mounts_free(&theirs);
  return 0;
}

uint64_t vm_self_mntns(void)
{
  self_read();
  return self.mntns;
}

/* What the walk read of every process: its maps, once. */
struct seen_pid {
  int pid;
  int state;                  /* SEEN_* */
  struct proc_jvm_maps *maps; /* SEEN_HOLDER: its PerfData-shaped maps */
  struct vm_seen *seen;       /* SEEN_HOLDER, judged: vm_see's */
  int nspid;                  /* its innermost pid */
  uint64_t start;             /* its start time */
  int procfd; /* judged, a container JVM: its /proc folder until add_other (-1) */
};
enum { SEEN_GONE, SEEN_PLAIN, SEEN_UNREADABLE, SEEN_HOLDER };

struct walk {
  struct list l;
  struct seen_pid *p;
  size_t np;
};

static const struct seen_pid *seen_of(const struct walk *w, int pid)
{
  size_t lo = 0, hi = w->np;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (w->p[mid].pid == pid) return &w->p[mid];
    if (w->p[mid].pid < pid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* The walk's facts of sp's process into v, for jvm_open_row. */
static void facts(struct vm *v, const struct seen_pid *sp,
                  const struct proc_perf_map *p)
{
  if (!sp || !sp->seen || !p) return;
  v->seen = 1;
  v->libjvm = sp->seen->maps.libjvm;
  v->emulated = sp->seen->emulated;
  v->libjvm_data = sp->seen->maps.libjvm_data;
  v->maj = p->maj;
  v->min = p->min;
  v->ino = p->ino;
  v->pidns = sp->seen->pidns;
  v->mntns = sp->seen->mntns;
  v->start = sp->start;
}

int vm_proc_open(const struct vm *v)
{
  char path[32], buf[PROC_STAT_MAX];
  struct proc_stat ps;
  size_t len;
  int fd;

  if (v->pid <= 0) return -1;
  snprintf(path, sizeof(path), "%d", v->pid);
  fd = proc_dirfd() >= 0 ? openat(proc_dirfd(), path,
                                  O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
                         : -1;
  if (fd < 0 || !v->seen) return fd;
  if (proc_read_small(fd, "stat", buf, sizeof(buf), &len) ||
      proc_stat_parse(buf, len, &ps) || ps.starttime != v->start) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Whether the process e names maps e's file under another name (our own
 * /tmp's link to a file elsewhere, as jps lists it): its maps read again,
 * for such a file only. By pid: the walk has not opened this process (it
 * maps no PerfData-shaped file, so it was not judged), and one read of
 * its maps is all it is asked. */
static int mapped_as(const struct entry *e)
{
  char path[32];

  if (!e->link) return 0;
  snprintf(path, sizeof(path), "%d/maps", e->name);
  return proc_maps_has(proc_dirfd(), path, e->sb.st_dev, e->sb.st_ino) > 0;
}

/* Our own /tmp's files: each under the pid it is named by, alive when
 * that process maps that very file (or its maps cannot be read: jps
 * lists such a file too), stale when no such process lives. */
static void add_host(struct walk *w, const struct tmpdir *t,
                     const struct root *r)
{
  for (size_t i = 0; i < t->n; i++) {
    const struct entry *e = &t->e[i];
    const struct seen_pid *p = seen_of(w, e->name);
    const struct proc_perf_map *m = NULL;
    struct vm v = {0};
    int own;

    v.file = xasprintf("/tmp/hsperfdata_%s/%d", e->user, e->name);
    if (!p || p->state == SEEN_GONE)
      /* born since: not its file (a question about the file's name, a
       * number: the process, not seen by the walk, is not opened) */
      own = proc_alive(e->name) ? 0 : -1;
    else if (p->state == SEEN_UNREADABLE)
      own = 1;
    else if (p->state == SEEN_PLAIN)
      own = mapped_as(e); /* a link's target, named otherwise */
    else if (p->seen && p->seen->foreign)
      own = 0; /* a container's files in a host process (core/jvm) */
    else if ((m = proc_jvm_maps_file(p->maps, e->sb.st_dev, e->sb.st_ino,
                                     v.file)))
      own = 1;
    else
      own = mapped_as(e);
    if (own) {
      if (own > 0) facts(&v, p, m);
      v.pid = v.nspid = e->name;
      v.user = e->user;
      v.path = root_name(r, v.file);
      v.root_pid = r->pid;
      add(&w->l, &v, &e->sb, own);
      free(v.path);
    }
    free(v.file);
  }
}

/* The JVMs skipped by the walks of this command (vm_skipped). */
static struct vm_skip *skips;
static size_t nskips;

static void skip(int pid, const char *why, int jvm)
{
  for (size_t i = 0; i < nskips; i++)
    if (skips[i].pid == pid) return;
  skips = xrealloc(skips, (nskips + 1) * sizeof(*skips));
  skips[nskips].pid = pid;
  skips[nskips].said = 0;
  skips[nskips].jvm = jvm;
  snprintf(skips[nskips].why, sizeof(skips[nskips].why), "%s", why);
  nskips++;
}

int vm_tmp_served(const char *name, char *why, size_t n)
{
  char *dir = xasprintf("/tmp/%s", name), w[192];
  int rc = root_mounts_below(root_mounts_self(), dir, w, sizeof(w));

  if (rc) {
    skip(0, w, 0);
    if (why) snprintf(why, n, "%s", w);
  }
  free(dir);
  return rc;
}

struct vm_skip *vm_skipped(size_t *n)
{
  *n = nskips;
  return skips;
}

/* A process in another mount namespace that maps a PerfData-shaped file:
 * judged by what the kernel shows (core/jvm's vm_see: never a container's
 * files in a host process, never a /tmp a process serves), then its file,
 * /tmp/hsperfdata_<user>/<its pid> inside its root, listed when it is the
 * very file it maps. */
static void add_other(struct walk *w, struct seen_pid *sp)
{
  const struct vm_seen *s = sp->seen;
  struct root r = {.fd = -1};

  if (!s || !s->other_mnt || s->foreign) return;
  if (s->hostile[0]) {
    skip(sp->pid, s->hostile, 1);
    return;
  }
  for (int i = 0; i < s->maps.nperf; i++) {
    const struct proc_perf_map *p = &s->maps.perf[i], *m;
    struct vm v = {0};
    struct stat sb;
    int fd;

    if (p->name != sp->nspid && p->name != sp->pid) continue;
    if (r.fd < 0 && root_open_at(sp->procfd, sp->pid, &r)) break;
    v.file = xasprintf("/tmp/hsperfdata_%s/%d", p->user, p->name);
    if (!root_openat(&r, -1, v.file, O_PATH, 0, &fd)) {
      if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && readable(&sb) &&
          (m = proc_jvm_maps_file(&s->maps, sb.st_dev, sb.st_ino, v.file))) {
        v.pid = sp->pid;
        v.nspid = p->name;
        v.user = (char *)p->user;
        v.path = root_name(&r, v.file);
        v.root_pid = sp->pid;
        v.other_ns = 1;
        facts(&v, sp, m);
        add(&w->l, &v, &sb, 1);
        free(v.path);
      }
      close(fd);
    }
    free(v.file);
  }
  root_close(&r);
  close(sp->procfd); /* used: not held to the walk's end */
  sp->procfd = -1;
}

/* Judge a process that maps a PerfData-shaped file (core/jvm's vm_see,
 * on the maps already read): its namespaces, mounts, innermost pid and
 * start time, through its own /proc folder. */
static void judge(int procdir, struct seen_pid *sp)
{
  struct proc_status st;
  struct proc_stat ps;
  char name[16], buf[PROC_STAT_MAX];
  size_t len;
  int procfd;

  snprintf(name, sizeof(name), "%d", sp->pid);
  if ((procfd = openat(procdir, name, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
    return;
  sp->seen = xzalloc(sizeof(*sp->seen));
  sp->seen->maps = *sp->maps;
  if (vm_see(procfd, 1, sp->seen) || proc_status_at(procfd, &st) ||
      proc_read_small(procfd, "stat", buf, sizeof(buf), &len) ||
      proc_stat_parse(buf, len, &ps)) {
    free(sp->seen);
    sp->seen = NULL;
    close(procfd);
  } else {
    sp->nspid = proc_innermost(&st, sp->pid);
    sp->start = ps.starttime;
    /* kept only for add_other, which opens a container JVM's root through
     * it: one descriptor per container JVM until then, not per JVM */
    if (sp->seen->other_mnt && !sp->seen->foreign && !sp->seen->hostile[0]) {
      sp->procfd = procfd;
    } else {
      sp->procfd = -1;
      close(procfd);
    }
  }
}

/* The /tmp of each distinct mount namespace and root, judged once. */
struct tmp_key {
  uint64_t mntns;
  char root[256]; /* its root's link text ("/" for a namespace's own) */
  int rc;         /* 0: sb is its /tmp; -EREMOTE: a served file system */
  int given;      /* handed to a caller that opens it (vm_each_tmp) */
  struct stat sb;
};
static struct tmp_key *keys;
static size_t nkeys;

/* The /tmp procfd's process (host pid pid) sees, judged without asking a
 * file system first: its mount namespace and root tell which /tmp it is;
 * its mounts whether opening it may wait on a process that serves it
 * (then -EREMOTE, why noted). When r is not NULL and this /tmp was not
 * handed out yet, r and *tmpfd are left open for the caller (*first
 * set). */
static int tmp_of(int procfd, int pid, struct stat *sb, struct root *r,
                  int *tmpfd, int *first)
{
  char why[192];
  struct tmp_key k = {0}, *hit = NULL;
  struct root_mounts mi;
  struct stat ns;
  ssize_t len;

  *first = 0;
  if (fstatat(procfd, "ns/mnt", &ns, 0)) return -errno;
  k.mntns = ns.st_ino;
  if ((len = root_link(procfd, k.root, sizeof(k.root))) < 0) return (int)len;
  for (size_t i = 0; i < nkeys && !hit; i++)
    if (keys[i].mntns == k.mntns && !strcmp(keys[i].root, k.root))
      hit = &keys[i];
  if (!hit) {
    if ((k.rc = root_mounts_read(procfd, "mountinfo", &mi))) return k.rc;
    if (root_mounts_hostile(&mi, "/tmp", 0, why, sizeof(why))) {
      k.rc = -EREMOTE;
      skip(pid, why, 0);
    }
    root_mounts_free(&mi);
    keys = xrealloc(keys, (nkeys + 1) * sizeof(*keys));
    hit = &keys[nkeys++];
    *hit = k;
    if (!hit->rc) hit->rc = 1; /* judged safe, not opened yet */
  }
  if (hit->rc == 1 || (r && !hit->given && !hit->rc)) {
    struct root tr;
    int fd = -1, rc;

    if (!(rc = root_open_at(procfd, pid, &tr)))
      rc = root_tmp(&tr, &fd, &hit->sb);
    hit->rc = rc;
    if (!rc && r) {
      hit->given = 1;
      *r = tr;
      *tmpfd = fd;
      *first = 1;
    } else {
      if (fd >= 0) close(fd);
      root_close(&tr);
    }
  }
  *sb = hit->sb;
  return hit->rc;
}

int vm_tmp_of(int procfd, int pid, struct stat *sb)
{
  int first;

  return tmp_of(procfd, pid, sb, NULL, NULL, &first);
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
  if (proc_dirfd() < 0) return -ENOENT;
  if ((rc = proc_pids(&pids, &npids))) return rc;
  for (size_t i = 0; i < npids; i++) {
    struct root r = {.fd = -1};
    struct stat sb;
    int first = 0, dup = 0, procfd = proc_open(pids[i]);

    tmpfd = -1;
    if (procfd < 0) continue;
    rc = tmp_of(procfd, pids[i], &sb, &r, &tmpfd, &first);
    close(procfd);
    if (rc || !first) continue;
    dup = sb.st_dev == tsb.st_dev && sb.st_ino == tsb.st_ino;
    for (size_t k = 0; k < nseen && !dup; k++)
      dup = seen[k].st_dev == sb.st_dev && seen[k].st_ino == sb.st_ino;
    if (!dup) {
      seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
      seen[nseen++] = sb;
      cb(arg, pids[i], &r, tmpfd, &sb, 1);
    }
    close(tmpfd);
    root_close(&r);
  }
  free(seen);
  free(pids);
  return 0;
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

/* The one walk of /proc: every process's maps read once (a few system
 * calls each, no file system asked), kept for those that map a
 * PerfData-shaped file. The maps are read by pid ("<pid>/maps" at /proc):
 * the walk has not opened any process yet, and opening every process's
 * folder first would cost a system call per process for nothing; those
 * worth judging are opened then (judge), once, and read through that. */
static int read_all(struct walk *w, int procdir)
{
  int *pids, rc;
  size_t n;

  if ((rc = proc_pids(&pids, &n))) return rc;
  w->p = xzalloc((n ? n : 1) * sizeof(*w->p));
  for (size_t i = 0; i < n; i++) {
    struct seen_pid *p = &w->p[w->np++];
    struct proc_jvm_maps m;
    char path[32];

    p->pid = pids[i];
    snprintf(path, sizeof(path), "%d/maps", pids[i]);
    rc = proc_perf_maps(procdir, path, &m);
    if (rc == -ENOENT || rc == -ESRCH)
      p->state = SEEN_GONE;
    else if (rc)
      p->state = SEEN_UNREADABLE;
    else if (!m.nperf)
      p->state = SEEN_PLAIN;
    else {
      p->state = SEEN_HOLDER;
      p->maps = xmalloc(sizeof(*p->maps));
      *p->maps = m;
    }
  }
  free(pids);
  return 0;
}

int vm_list(struct vm **out, size_t *n)
{
  struct walk w = {0};
  struct root ours;
  struct tmpdir host = {0};
  struct stat tsb;
  int tmpfd, rc, procdir;

  if ((rc = root_open(0, &ours)) || (rc = root_tmp(&ours, &tmpfd, &tsb))) {
    root_close(&ours);
    return rc;
  }
  scan_tmp(&ours, tmpfd, &host);
  close(tmpfd);
  if ((procdir = proc_dirfd()) >= 0 && !read_all(&w, procdir)) {
    for (size_t i = 0; i < w.np; i++)
      if (w.p[i].state == SEEN_HOLDER) judge(procdir, &w.p[i]);
    add_host(&w, &host, &ours);
    for (size_t i = 0; i < w.np; i++)
      if (w.p[i].state == SEEN_HOLDER) add_other(&w, &w.p[i]);
  } else {
    for (size_t i = 0; i < host.n; i++) /* no /proc: by name, as jps (no
                                           process can be opened) */
      if (proc_alive(host.e[i].name)) {
        struct vm v = {0};

        v.pid = v.nspid = host.e[i].name;
        v.user = host.e[i].user;
        v.file = xasprintf("/tmp/hsperfdata_%s/%d", v.user, v.pid);
        v.path = xstrdup(v.file);
        add(&w.l, &v, &host.e[i].sb, 1);
        free(v.file);
        free(v.path);
      }
  }
  root_close(&ours);
  for (size_t i = 0; i < w.np; i++) {
    if (w.p[i].seen && w.p[i].procfd >= 0) close(w.p[i].procfd);
    free(w.p[i].maps);
    free(w.p[i].seen);
  }
  free(w.p);
  free_tmp(&host);
  mark_locks(&w.l);
  free(w.l.key);
  sort_unique(&w.l);
  *out = w.l.v;
  *n = w.l.n;
  return 0;
}

void vm_free(struct vm *v)
{
  if (v->pd) pd_close(v->pd);
  free(v->pd);
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
