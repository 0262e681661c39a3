/* wfile.c - output files that replace their name (wfile.h) */
#include "core/jvmtool.h"
#include "core/wfile.h"
#include <sys/fsuid.h>

/* The files a stop signal removes (the temporary files being written now,
 * and the ones wfile_note names), for the signal handler: a fixed table
 * (the handler may not allocate), names copied in, with the file system
 * identity each is removed as and what it must still be (a regular file
 * of uid, that inode) for a noted file we did not make ourselves. */
enum { LIVE_MAX = 64, LIVE_NAME = 256 };
static struct {
  volatile sig_atomic_t on;
  int dirfd;
  uid_t fsuid;
  gid_t fsgid;
  int check;     /* remove only a regular file of uid (ino: that inode) */
  long long uid; /* -1: any */
  dev_t dev;
  ino_t ino; /* 0: any */
  char name[LIVE_NAME];
} live[LIVE_MAX];
static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};

/* Whether the handler may remove slot i's name as it is now. */
static int live_removable(int i)
{
  struct stat sb;

  if (!live[i].check) return 1;
  if (fstatat(live[i].dirfd, live[i].name, &sb, AT_SYMLINK_NOFOLLOW) ||
      !S_ISREG(sb.st_mode))
    return 0;
  if (live[i].uid >= 0 && sb.st_uid != (uid_t)live[i].uid) return 0;
  return !live[i].ino || (sb.st_ino == live[i].ino && sb.st_dev == live[i].dev);
}

/* Remove every noted file, then die of sig as if never caught (the
 * shell sees 128 + sig). Only async-signal-safe calls. A signal may come
 * while root acts as a JVM's user (core/attach's become, core/root_change's
 * file system ids), who may not remove our file: the handler takes back
 * the identity the file was noted with first (setfsuid, a system call of
 * this thread's alone; the process dies next). */
static void on_signal(int sig)
{
  struct sigaction dfl = {.sa_handler = SIG_DFL};

  for (int i = 0; i < LIVE_MAX; i++)
    if (live[i].on) {
      setfsuid(live[i].fsuid);
      setfsgid(live[i].fsgid);
      if (live_removable(i)) unlinkat(live[i].dirfd, live[i].name, 0);
    }
  sigaction(sig, &dfl, NULL);
  raise(sig);
}

/* Note name in dirfd for on_signal; the handler goes where the default
 * action (death) stood, never over a command's own handler or an ignored
 * signal. Returns the slot, or -1 (a table full, a name too long: the
 * file is only not noted). */
static int live_add(int dirfd, const char *name, int check, long long uid,
                    dev_t dev, ino_t ino)
{
  struct sigaction sa = {.sa_handler = on_signal}, old;
  int slot = -1;

  if (strlen(name) >= LIVE_NAME) return -1;
  for (int i = 0; i < LIVE_MAX && slot < 0; i++) {
    if (live[i].on) continue;
    live[i].dirfd = dirfd;
    live[i].fsuid = (uid_t)setfsuid((uid_t)-1); /* -1: only asks */
    live[i].fsgid = (gid_t)setfsgid((gid_t)-1);
    live[i].check = check;
    live[i].uid = uid;
    live[i].dev = dev;
    live[i].ino = ino;
    memcpy(live[i].name, name, strlen(name) + 1);
    live[i].on = 1;
    slot = i;
  }
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(*stop_sigs); i++) {
    sigaddset(&sa.sa_mask, stop_sigs[i]);
  }
  for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(*stop_sigs); i++)
    if (!sigaction(stop_sigs[i], NULL, &old) && old.sa_handler == SIG_DFL &&
        !(old.sa_flags & SA_SIGINFO))
      sigaction(stop_sigs[i], &sa, NULL);
  return slot;
}

/* w's file is renamed or removed: no longer the handler's. */
static void live_drop(const struct wfile *w)
{
  for (int i = 0; i < LIVE_MAX; i++)
    if (live[i].on && !live[i].check && live[i].dirfd == w->dirfd &&
        !strcmp(live[i].name, w->tmp))
      live[i].on = 0;
}

int wfile_note(int dirfd, const char *name, long long uid,
               const struct stat *sb)
{
  return live_add(dirfd, name, 1, uid, sb ? sb->st_dev : 0,
                  sb ? sb->st_ino : 0);
}

void wfile_unnote(int slot)
{
  if (slot >= 0 && slot < LIVE_MAX) live[slot].on = 0;
}

void wfile_defer(sigset_t *old)
{
  sigset_t stop;

  sigemptyset(&stop);
  for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(*stop_sigs); i++)
    sigaddset(&stop, stop_sigs[i]);
  sigprocmask(SIG_BLOCK, &stop, old);
}

void wfile_undefer(const sigset_t *old)
{
  sigprocmask(SIG_SETMASK, old, NULL);
}

/* Write through path itself (no rename at commit). */
static int direct(struct wfile *w, const char *path, mode_t mode)
{
  int fd =
          open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, mode),
      err;

  close(w->dirfd);
  free(w->name);
  w->dirfd = -1;
  w->name = NULL;
  if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
    err = -errno;
    if (fd >= 0) close(fd);
    return err;
  }
  w->fd = fd;
  w->direct = 1;
  return 0;
}

int wfile_open(struct wfile *w, const char *path)
{
  return wfile_open_mode(w, path, 0666);
}

int wfile_open_mode(struct wfile *w, const char *path, mode_t mode)
{
  const char *slash = strrchr(path, '/');
  char *dir, hex[17];
  sigset_t mask;
  struct stat sb;
  int fd = -1, err = 0;

  memset(w, 0, sizeof(*w));
  w->fd = w->dirfd = -1;
  if (!strcmp(path, "-")) {
    w->f = stdout;
    w->fd = 1;
    return 0;
  }
  if (!*path || (slash && !slash[1])) return -EISDIR;
  dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
              : xstrdup(".");
  w->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (w->dirfd < 0) return -errno;
  w->name = xstrdup(slash ? slash + 1 : path);
  /* What is not a regular file and belongs to us or root (a device such
   * as /dev/null, our own FIFO, /dev/stdout's link) was put there for
   * writing through; another user's link or FIFO is replaced. */
  if (!fstatat(w->dirfd, w->name, &sb, AT_SYMLINK_NOFOLLOW)) {
    if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode) &&
        (sb.st_uid == geteuid() || sb.st_uid == 0))
      return direct(w, path, mode);
    /* A folder there would refuse the rename, after all the work. */
    if (S_ISDIR(sb.st_mode)) err = -EISDIR;
  }
  /* from the file's making to its noting, a stop signal waits: else one
   * between them leaves the file (seen under ASan, where that is slow) */
  wfile_defer(&mask);
  for (int i = 0; i < 8 && fd < 0 && err != -EISDIR; i++) {
    random_hex(hex);
    free(w->tmp);
    w->tmp = xasprintf(".%.200s.%s.tmp", w->name, hex);
    fd = openat(w->dirfd, w->tmp,
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
                    O_NOCTTY | O_CLOEXEC,
                mode);
    err = fd < 0 ? -errno : 0;
    if (err != -EEXIST) break;
  }
  if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
    if (!err) err = -errno;
    if (fd >= 0) {
      unlinkat(w->dirfd, w->tmp, 0);
      close(fd);
    }
    close(w->dirfd);
    free(w->name);
    free(w->tmp);
    memset(w, 0, sizeof(*w));
    w->fd = w->dirfd = -1;
    wfile_undefer(&mask);
    return err;
  }
  w->fd = fd;
  live_add(w->dirfd, w->tmp, 0, -1, 0, 0);
  wfile_undefer(&mask);
  return 0;
}

int wfile_commit(struct wfile *w)
{
  int err = 0;

  if (w->direct) {
    if (ferror(w->f)) err = -EIO;
    if (fclose(w->f) && !err) err = -errno;
    w->f = NULL;
    w->direct = 0;
    return err;
  }
  if (w->dirfd < 0) {
    if (w->f && (fflush(w->f) || ferror(w->f))) err = -errno;
    return err ? err : 0;
  }
  /* ferror: a write that failed earlier; fclose: the last one. */
  if (ferror(w->f)) err = -EIO;
  if (fclose(w->f) && !err) err = -errno;
  w->f = NULL;
  if (!err && renameat(w->dirfd, w->tmp, w->dirfd, w->name)) err = -errno;
  if (err) unlinkat(w->dirfd, w->tmp, 0);
  live_drop(w);
  close(w->dirfd);
  w->dirfd = -1;
  free(w->name);
  free(w->tmp);
  w->name = w->tmp = NULL;
  return err;
}

void wfile_abort(struct wfile *w)
{
  if (w->direct && w->f) fclose(w->f);
  if (w->direct) w->f = NULL;
  w->direct = 0;
  if (w->dirfd < 0) return;
  if (w->f) fclose(w->f);
  w->f = NULL;
  unlinkat(w->dirfd, w->tmp, 0);
  live_drop(w);
  close(w->dirfd);
  w->dirfd = -1;
  free(w->name);
  free(w->tmp);
  w->name = w->tmp = NULL;
}
