/* vm.c - find JVMs: hsperfdata discovery and target resolution
 *
 * See docs/jvmstat.md §2. jvmstat walks /proc/<pid>/root/tmp for every pid
 * and keeps a file only when its name is that pid's own pid or its last
 * NSpid field; here each distinct container /tmp is read once and its
 * files are matched against the pids living in it.
 */
#include "core/jvmtool.h"
#include "core/vm.h"
#include <sys/sysmacros.h>

static int hex_digit(char c)
{
  return isdigit((unsigned char)c) ? c - '0' : (c | 32) - 'a' + 10;
}

/* "file:" URI to a path: "//" must start an empty authority; the path is
 * absolute; %XX escapes are decoded. */
static int parse_file_uri(const char *s, int flags, char **path, char *err,
                          size_t errlen)
{
  const char *p = s + 5, *why = NULL;
  struct buf b = {0};

  if (starts_with(p, "//") && p[2] != '/') why = "URI has an authority component";
  else if (starts_with(p, "//")) p += 2;
  if (!why && *p != '/') why = "URI is not absolute";
  else if (!why && strpbrk(p, "?#")) why = "URI has a query or fragment";
  else if (!why && (flags & VM_TARGET_JSTAT) && strchr(p, ' '))
    why = "Malformed VM Identifier";
  if (why) {
    snprintf(err, errlen, "%s: %s", why, s);
    return -EINVAL;
  }
  for (; *p; p++) {
    if (*p == '%' && isxdigit((unsigned char)p[1]) &&
        isxdigit((unsigned char)p[2])) {
      buf_addc(&b, (char)(hex_digit(p[1]) * 16 + hex_digit(p[2])));
      p += 2;
    } else {
      buf_addc(&b, *p);
    }
  }
  *path = b.p;
  return 0;
}

int vm_parse_target(const char *s, int flags, int *pid, char **path,
                    char *err, size_t errlen)
{
  const char *p = s;

  *pid = 0;
  *path = NULL;
  if (starts_with(s, "file:")) return parse_file_uri(s, flags, path, err, errlen);
  if (starts_with(p, "local://")) p += 8;
  else if (starts_with(p, "//")) p += 2;
  if (!parse_pid(p, pid)) return 0;
  if (strchr(s, '@') && !strchr(s, '/') && access(s, F_OK)) {
    snprintf(err, errlen, "remote vmids are not supported: %s", s);
    return -EINVAL;
  }
  if ((flags & VM_TARGET_JSTAT) || !*s) {
    snprintf(err, errlen, "Malformed VM Identifier: %s", s);
    return -EINVAL;
  }
  *path = xstrdup(s);
  return 0;
}

struct list {
  struct vm *v;
  size_t n, cap;
};

static int all_digits(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

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

/* A folder the JVM would trust (§2.3): a real directory, not writable by
 * group or others, ours unless we are root. */
static int secure_dir(int dirfd, const char *name, struct stat *sb)
{
  if (fstatat(dirfd, name, sb, AT_SYMLINK_NOFOLLOW)) return 0;
  if (!S_ISDIR(sb->st_mode)) return 0;
  if (sb->st_mode & (S_IWGRP | S_IWOTH)) return 0;
  return geteuid() == 0 || sb->st_uid == geteuid();
}

static void add(struct list *l, int pid, int nspid, const char *user,
                const char *path, const struct stat *sb, int other_ns)
{
  struct vm *v;

  for (size_t i = 0; i < l->n; i++)
    if (l->v[i].pid == pid) return;  /* the first one found wins */
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
  }
  v = &l->v[l->n++];
  v->pid = pid;
  v->nspid = nspid;
  v->user = xstrdup(user);
  v->path = xstrdup(path);
  v->uid = sb->st_uid;
  v->other_ns = other_ns;
  v->alive = other_ns ? 1 : proc_alive(pid);
  v->locked = vm_flock_held(sb->st_dev, sb->st_ino);
}

/* Call fn for every readable <digits> file in root/hsperfdata_* folders. */
static void scan_root(const char *root,
                      void (*fn)(void *ctx, const char *user, int nspid,
                                 const char *path, const struct stat *sb),
                      void *ctx)
{
  DIR *d = opendir(root), *u;
  struct dirent *e, *f;

  if (!d) return;
  while ((e = readdir(d))) {
    char *dir;

    if (!starts_with(e->d_name, "hsperfdata_")) continue;
    dir = xasprintf("%s/%s", root, e->d_name);
    if ((u = opendir(dir))) {
      while ((f = readdir(u))) {
        struct stat sb;
        long long pid;
        char *path;

        if (!all_digits(f->d_name) ||
            parse_long(f->d_name, 0, INT_MAX, &pid))
          continue;
        path = xasprintf("%s/%s", dir, f->d_name);
        /* jvmstat: a regular file (after links) that we can read */
        if (!stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, R_OK))
          fn(ctx, e->d_name + 11, (int)pid, path, &sb);
        free(path);
      }
      closedir(u);
    }
    free(dir);
  }
  closedir(d);
}

static void add_host(void *ctx, const char *user, int pid, const char *path,
                     const struct stat *sb)
{
  add(ctx, pid, pid, user, path, sb, 0);
}

struct container {
  struct list *l;
  int hostpid, nspid;
};

static void add_container(void *ctx, const char *user, int pid,
                          const char *path, const struct stat *sb)
{
  struct container *c = ctx;

  if (pid == c->hostpid || pid == c->nspid)
    add(c->l, c->hostpid, pid, user, path, sb, 1);
}

static int by_pid(const void *a, const void *b)
{
  const struct vm *x = a, *y = b;

  return (x->pid > y->pid) - (x->pid < y->pid);
}

int vm_list(struct vm **out, size_t *n)
{
  struct list l = {0};
  struct stat tmp, sb;
  DIR *proc;
  struct dirent *e;

  if (stat("/tmp", &tmp)) return -errno;
  scan_root("/tmp", add_host, &l);
  if ((proc = opendir("/proc"))) {
    while ((e = readdir(proc))) {
      struct container c = {&l, 0, 0};
      char root[64];

      if (!all_digits(e->d_name) || parse_pid(e->d_name, &c.hostpid)) continue;
      snprintf(root, sizeof(root), "/proc/%d/root/tmp", c.hostpid);
      if (stat(root, &sb) || !S_ISDIR(sb.st_mode) || access(root, R_OK) ||
          (sb.st_dev == tmp.st_dev && sb.st_ino == tmp.st_ino))
        continue;
      if ((c.nspid = proc_nspid(c.hostpid)) < 0) c.nspid = c.hostpid;
      scan_root(root, add_container, &c);
    }
    closedir(proc);
  }
  if (l.n) qsort(l.v, l.n, sizeof(*l.v), by_pid);
  *out = l.v;
  *n = l.n;
  return 0;
}

void vm_free(struct vm *v)
{
  free(v->user);
  free(v->path);
  memset(v, 0, sizeof(*v));
}

void vm_list_free(struct vm *v, size_t n)
{
  for (size_t i = 0; i < n; i++) vm_free(&v[i]);
  free(v);
}

/* The newest (by ctime) regular file <name> in a secure folder
 * tmp/hsperfdata_<user>; sets *user and *out. */
static char *find_file(const char *tmp, int name, char **user, struct stat *out)
{
  DIR *d = opendir(tmp);
  struct dirent *e;
  char *best = NULL;
  struct stat dsb, fsb;

  if (!d) return NULL;
  while ((e = readdir(d))) {
    char *path;

    if (!starts_with(e->d_name, "hsperfdata_") ||
        !secure_dir(dirfd(d), e->d_name, &dsb))
      continue;
    path = xasprintf("%s/%s/%d", tmp, e->d_name, name);
    if (!lstat(path, &fsb) && S_ISREG(fsb.st_mode) && fsb.st_size > 0 &&
        (!best || fsb.st_ctime > out->st_ctime)) {
      free(best);
      free(*user);
      best = path;
      *user = xstrdup(e->d_name + 11);
      *out = fsb;
    } else {
      free(path);
    }
  }
  closedir(d);
  return best;
}

int vm_resolve(const char *target, struct vm *out, char *err, size_t errlen)
{
  struct stat sb, tmp, root_sb;
  char root[64];
  int pid, nspid, rc;
  char *path;

  memset(out, 0, sizeof(*out));
  out->locked = -1;
  if ((rc = vm_parse_target(target, 0, &pid, &path, err, errlen))) return rc;
  if (!path) {
    /* A pid: its own /tmp, or its container's through /proc (§2.4). */
    if (!proc_alive(pid)) {
      snprintf(err, errlen, "no such process");
      return -ESRCH;
    }
    if ((nspid = proc_nspid(pid)) < 0) nspid = pid;
    snprintf(root, sizeof(root), "/proc/%d/root/tmp", pid);
    out->other_ns = !stat("/tmp", &tmp) && !stat(root, &root_sb) &&
                    (tmp.st_dev != root_sb.st_dev || tmp.st_ino != root_sb.st_ino);
    out->path = find_file(out->other_ns ? root : "/tmp", nspid, &out->user, &sb);
    if (!out->path && nspid != pid)
      out->path = find_file(out->other_ns ? root : "/tmp", nspid = pid,
                            &out->user, &sb);
    if (!out->path) {
      snprintf(err, errlen,
               "no PerfData file for pid %d (not a JVM, started with "
               "-XX:-UsePerfData, or another user's JVM?)", pid);
      free(out->user);
      out->user = NULL;
      return -ENOENT;
    }
    out->pid = pid;
    out->nspid = nspid;
    out->uid = sb.st_uid;
    out->alive = 1;
    out->locked = vm_flock_held(sb.st_dev, sb.st_ino);
    return 0;
  }
  if (stat(path, &sb)) {
    rc = -errno;
    snprintf(err, errlen, "%s", strerror(errno));
    free(path);
    return rc;
  }
  out->path = path;
  out->uid = sb.st_uid;
  return 0;
}
