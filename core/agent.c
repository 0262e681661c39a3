/* agent.c - our allocation agent in a running JVM (agent.h)
 *
 * Everything here reaches into a process another user (or a container)
 * controls: its /tmp is opened inside its own root (core/root.h), files
 * are created O_EXCL under random names, a copy the JVM maps is reused
 * only when its name, owner, link count, inode and every byte say it is
 * ours, and files are removed only while their name still leads to the
 * inode that was checked. /proc/<pid>/maps (kernel text, but as long as
 * the process has mappings) is read through a fixed buffer.
 */
#include "core/jvmtool.h"
#include "core/agent.h"
#include "core/attach.h"
#include "core/jvm.h"
#include "agent/protocol.h"

/* Does s[0..n) name one of our files in a /tmp: "<prefix><hex or
 * nspid-hex><suffix>", with "/tmp/" in front when dir is set? */
static int our_name(const char *s, size_t n, int dir, const char *prefix,
                    const char *suffix)
{
  size_t d = dir ? 5 : 0, pl = d + strlen(prefix), sl = strlen(suffix), i;

  if (n <= pl + sl || n >= AGENT_PATH_MAX || (dir && memcmp(s, "/tmp/", 5)) ||
      memcmp(s + d, prefix, pl - d) || memcmp(s + n - sl, suffix, sl))
    return 0;
  for (i = pl; i < n - sl; i++)
    if (!isxdigit((unsigned char)s[i]) && s[i] != '-') return 0;
  return 1;
}

enum agent_file agent_file_kind(const char *name)
{
  size_t n = strlen(name), i;

  if (our_name(name, n, 0, AGENT_SO_PREFIX, ".so")) return AGENT_FILE_SO;
  if (our_name(name, n, 0, AGENT_SAMPLES_PREFIX, ".txt"))
    return AGENT_FILE_SAMPLES;
  if (n != 8 + 16 + 4 || !starts_with(name, "jvmtool-") ||
      strcmp(name + 24, ".jfr"))
    return AGENT_FILE_NONE;
  for (i = 8; i < 24; i++)
    if (!isxdigit((unsigned char)name[i])) return AGENT_FILE_NONE;
  return AGENT_FILE_RECORDING;
}

void agent_recording_name(const char *hex, char *path, size_t n)
{
  snprintf(path, n, "/tmp/jvmtool-%s.jfr", hex);
}

int agent_samples_open(const struct jvm *t, const char *path, int take, int *fd,
                       struct stat *sb)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  int rc = root_open_checked(NULL, t->tmpfd, name, O_RDONLY, S_IFREG,
                             t->st.euid, fd, sb);

  if (!rc && take) root_unlink(&t->root, t->tmpfd, name, sb, 0);
  return rc;
}

void agent_samples_name(const struct jvm *t, char *path, size_t n)
{
  char hex[17];

  random_hex(hex);
  snprintf(path, n, "/tmp/%s%d-%s.txt", AGENT_SAMPLES_PREFIX, t->nspid, hex);
}

struct mapped {
  char (*paths)[AGENT_PATH_MAX];
  uint64_t *ino;
  int n, max;
};

static int mapped_line(void *arg, const struct proc_map *l)
{
  struct mapped *m = arg;
  const char *path = l->path;
  int i;

  if (!path || !our_name(path, strlen(path), 1, AGENT_SO_PREFIX, ".so"))
    return 0;
  for (i = 0; i < m->n && strcmp(m->paths[i], path); i++)
    ;
  if (i == m->n) {
    snprintf(m->paths[m->n], AGENT_PATH_MAX, "%s", path);
    if (m->ino) m->ino[m->n] = l->ino;
    m->n++;
  }
  return m->n == m->max;
}

int agent_mapped(const struct jvm *j, char paths[][AGENT_PATH_MAX],
                 uint64_t *ino, int max)
{
  struct mapped m = {paths, ino, 0, max};

  if (max > 0) jvm_maps(j, mapped_line, &m);
  return m.n;
}

int agent_load(const struct jvm *t, const char *lib, int absolute,
               const char *opts, int *rc, int timeout_ms, char *why, size_t n)
{
  const char *args[3] = {lib, absolute ? "true" : "false", opts}, *body;
  uint64_t end = now_ms() + (uint64_t)timeout_ms;
  char *reply = NULL;
  int e;

  /* a JVM still starting catches SIGQUIT a little later: asked again
   * (not one that is no JVM at all) */
  while ((e = attach_send(t, "load", args, timeout_ms, &reply, why, n)) ==
             ATTACH_NOTJVM &&
         t->is_jvm == JVM_IS && now_ms() < end)
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  if (e) {
    free(reply);
    return -EIO;
  }
  if (attach_load_code(reply, rc)) {
    attach_status(reply, &body);
    snprintf(why, n, "pid %d: load failed: %.*s", t->pid,
             (int)strcspn(body, "\n"), body);
    free(reply);
    return -ENOEXEC;
  }
  free(reply);
  return 0;
}

/* Is the file name in the target's /tmp exactly so[0..len), the JVM's
 * user's, one link, inode ino? */
static int same_agent(const struct jvm *t, const char *name, uint64_t ino,
                      const void *so, size_t len)
{
  char b[8192];
  struct stat sb;
  size_t at = 0;
  ssize_t r = 0;
  int fd, same;

  if (root_open_checked(NULL, t->tmpfd, name, O_RDONLY, S_IFREG, t->st.euid,
                        &fd, &sb))
    return 0;
  same = (uint64_t)sb.st_ino == ino && (uint64_t)sb.st_size == len;
  while (same && at < len && (r = read(fd, b, sizeof(b))) > 0) {
    same =
        (size_t)r <= len - at && !memcmp(b, (const char *)so + at, (size_t)r);
    at += (size_t)r;
  }
  close(fd);
  return same && at == len && r >= 0;
}

/* The mapped copy of so: 0 and its path, or -ENOENT. */
static int find_agent(const struct jvm *t, const void *so, size_t len,
                      char *lib, size_t libn)
{
  char paths[AGENT_MAX_LOADED][AGENT_PATH_MAX];
  uint64_t ino[AGENT_MAX_LOADED];
  int k = agent_mapped(t, paths, ino, AGENT_MAX_LOADED);

  for (int i = 0; i < k; i++)
    if (same_agent(t, paths[i] + 5, ino[i], so, len)) {
      snprintf(lib, libn, "%s", paths[i]);
      return 0;
    }
  return -ENOENT;
}

int agent_start(const struct jvm *t, const void *so, size_t len,
                const char *opts, int timeout_ms, char *lib, size_t libn,
                int *reused, int *rc, char *why, size_t n)
{
  long long uid, gid;
  char name[AGENT_PATH_MAX];
  int err;

  jvm_file_owner(t, &uid, &gid);
  snprintf(lib, libn, "(none)");
  *rc = 0;
  /* nothing is put into a JVM that takes no attach requests: the load
   * would be refused (core/attach's preconditions, asked early) */
  if (attach_check(t, why, n)) return -EPERM;
  *reused = !find_agent(t, so, len, lib, libn);
  if (!*reused) {
    if ((err = root_put(&t->root, t->tmpfd, AGENT_SO_PREFIX, ".so", so, len,
                        0644, uid, gid, name, sizeof(name)))) {
      snprintf(why, n, "cannot write the agent into the /tmp of pid %d: %s",
               t->pid, strerror(-err));
      return err;
    }
    snprintf(lib, libn, "/tmp/%s", name);
  }
  err = agent_load(t, lib, 1, opts, rc, timeout_ms, why, n);
  if (!*reused && (err || *rc)) agent_drop(t, lib);
  return err;
}

void agent_drop(const struct jvm *t, const char *path)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char paths[AGENT_MAX_LOADED][AGENT_PATH_MAX];
  int k = agent_mapped(t, paths, NULL, AGENT_MAX_LOADED);
  struct stat sb;

  for (int i = 0; i < k; i++)
    if (!strcmp(paths[i], path)) return; /* the JVM has it: it stays */
  if (!fstatat(t->tmpfd, name, &sb, AT_SYMLINK_NOFOLLOW) && S_ISREG(sb.st_mode))
    root_unlink(&t->root, t->tmpfd, name, &sb, 0);
}

/* ---- for clean: what is in use ---------------------------------------- */

struct inodes {
  uint64_t *v;
  size_t n, cap;
};

static void add_ino(struct inodes *s, uint64_t ino)
{
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 1024;
    s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
  }
  s->v[s->n++] = ino;
}

static int ino_line(void *arg, const struct proc_map *l)
{
  if (l->ino) add_ino(arg, l->ino);
  return 0;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

  return x < y ? -1 : x > y;
}

/* A process whose maps or fds we cannot read: its euid, once. One whose
 * root we cannot open either is left out: through that root our agent
 * was never put, nor a recording taken (its /tmp is out of our reach). */
static void unread(struct agent_in_use *u, int procfd, int pid)
{
  struct proc_status st;
  uid_t uid = proc_status_at(procfd, &st) ? 0 : st.euid; /* unknown: root's */
  struct root r;

  if (root_open_at(procfd, pid, &r)) return;
  root_close(&r);

  for (size_t i = 0; i < u->nunread; i++)
    if (u->unread[i] == uid) return;
  u->unread = xrealloc(u->unread, (u->nunread + 1) * sizeof(*u->unread));
  u->unread[u->nunread++] = uid;
}

/* Add the inode of open file fd (a name in the fd folder dfd of procfd's
 * process) when its path names one of our files. Nothing is opened or
 * stat'ed through the link (a file on a hung FUSE mount would block us):
 * the link's text, then the inode in its fdinfo/<fd> (Linux 5.14+).
 * Returns 0, or -1 when it cannot tell (an fdinfo without "ino:"). */
static int fd_ino(int procfd, int dfd, const char *fd, struct inodes *s)
{
  char link[PATH_MAX], path[64], text[1024], *ino;
  const char *base;
  ssize_t n = readlinkat(dfd, fd, link, sizeof(link) - 1);
  size_t len;
  unsigned long long v;

  if (n <= 0 || link[0] != '/') return 0; /* gone, a socket or a pipe */
  link[n] = 0;
  base = strrchr(link, '/') + 1;
  if (agent_file_kind(base) == AGENT_FILE_NONE) return 0; /* or deleted */
  snprintf(path, sizeof(path), "fdinfo/%s", fd);
  if (proc_read_small(procfd, path, text, sizeof(text), &len) || !len) return 0;
  if (!(ino = strstr(text, "\nino:")) ||
      !scan_u64_after_blanks(ino + 5, 10, &v))
    return -1;
  add_ino(s, v);
  return 0;
}

int agent_in_use_read(struct agent_in_use *u)
{
  struct inodes s = {0};
  size_t np;
  int *pids, err;

  memset(u, 0, sizeof(*u));
  if ((err = proc_pids(&pids, &np))) return err;
  for (size_t i = 0; i < np; i++) {
    struct dirent *e;
    DIR *d;
    int fd, procfd = proc_open(pids[i]); /* each process read through it */

    if (procfd < 0) continue; /* gone */
    if ((fd = openat(procfd, "maps", O_RDONLY | O_CLOEXEC)) < 0) {
      if (errno != ENOENT && errno != ESRCH) unread(u, procfd, pids[i]);
      close(procfd);
      continue;
    }
    proc_maps_fd(fd, ino_line, &s);
    close(fd);
    fd = openat(procfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !(d = fdopendir(fd))) {
      if (errno != ENOENT && errno != ESRCH) unread(u, procfd, pids[i]);
      if (fd >= 0) close(fd);
      close(procfd);
      continue;
    }
    while ((e = readdir(d)))
      if (e->d_name[0] != '.' && fd_ino(procfd, dirfd(d), e->d_name, &s))
        unread(u, procfd, pids[i]);
    closedir(d);
    close(procfd);
  }
  free(pids);
  if (s.n) qsort(s.v, s.n, sizeof(*s.v), cmp_u64);
  u->ino = s.v;
  u->n = s.n;
  return 0;
}

int agent_in_use_by(const struct agent_in_use *u, uint64_t ino, uid_t uid)
{
  if (u->n && bsearch(&ino, u->ino, u->n, sizeof(*u->ino), cmp_u64)) return 1;
  for (size_t i = 0; i < u->nunread; i++)
    if (u->unread[i] == uid) return -1;
  return 0;
}

void agent_in_use_free(struct agent_in_use *u)
{
  free(u->ino);
  free(u->unread);
  memset(u, 0, sizeof(*u));
}
