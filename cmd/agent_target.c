/* agent_target.c - agent-install's view of its target (agent_install.h)
 *
 * Everything here reaches into a process another user (or a container)
 * controls: its /tmp is opened inside its own root (core/root.h), files
 * are created O_EXCL under random names, opened without following links
 * or blocking, checked (regular, the JVM's user, one link) before use,
 * copied through a fixed buffer and removed only while their name still
 * leads to the file that was read.
 */
#include "core/jvmtool.h"
#include "core/root.h"
#include "core/vm.h"
#include "agent/protocol.h"
#include "cmd/agent_install.h"
#include "core/attach.h"
#include "core/agent.h"
#include "core/hprof_in.h"
#include "cmd/cmd.h"

int target_open(struct jvm *t, const char *arg)
{
  char why[256];

  int rc = jvm_open(t, arg, JVM_PROCESS, why, sizeof(why));

  if (rc == -EPERM) { /* another user's: the one wording, core/proc's */
    error_msg("%s", why);
    return -1;
  }
  if (rc) {
    error_msg("cannot find '%s': %s", arg, why);
    return -1;
  }
  /* whatever is asked (even --status) ends in an attach: none to a
   * process that is no JVM */
  if (jvm_check_jvm(t, why, sizeof(why))) {
    error_msg("%s", why);
    jvm_close(t);
    return -1;
  }
  return 0;
}

int target_load(struct jvm *t, const char *lib, int absolute, const char *opts,
                int *rc, int timeout_ms)
{
  char why[512];

  if (agent_load(t, lib, absolute, opts, rc, timeout_ms, why, sizeof(why))) {
    error_msg("%s", why);
    return -1;
  }
  return 0;
}

int target_put(struct jvm *t, const char *prefix, const char *suffix,
               const void *data, size_t n, char *path, size_t pathlen)
{
  char name[AGENT_PATH_MAX], why[256];
  long long uid, gid;
  int err;

  jvm_file_owner(t, &uid, &gid);
  /* What is put is for a load: none for a JVM that attach would refuse
   * (not a verified JVM, or one that takes no attach requests). */
  if (attach_check(t, why, sizeof(why))) {
    error_msg("%s", why);
    return -1;
  }
  err = root_put(&t->root, t->tmpfd, prefix, suffix, data, n, 0644, uid, gid,
                 name, sizeof(name));
  if (err) {
    errno_msg(err, "cannot write a file '%s...%s' into the /tmp of pid %d",
              prefix, suffix, t->pid);
    return -1;
  }
  snprintf(path, pathlen, "/tmp/%s", name);
  return 0;
}

int target_open_samples(struct jvm *t, char *path, size_t n)
{
  char link[AGENT_PATH_MAX + 1];
  struct dirent *e;
  ssize_t len;
  DIR *d;
  int dfd, found = -1;

  if ((dfd = openat(t->procfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return -1;
  if (!(d = fdopendir(dfd))) {
    close(dfd);
    return -1;
  }
  dfd = dirfd(d);
  while (found < 0 && (e = readdir(d))) {
    len = readlinkat(dfd, e->d_name, link, sizeof(link) - 1);
    if (len <= 0) continue;
    link[len] = 0;
    if (starts_with(link, "/tmp/") &&
        agent_file_kind(link + 5) == AGENT_FILE_SAMPLES) {
      snprintf(path, n, "%s", link);
      found = 0;
    }
  }
  closedir(d);
  return found;
}

/* Count sample lines and find the end line in data[0..n); state carries
 * "at the start of a line" and the current line's first bytes. */
struct scan {
  int bol, comment, endline;
  char head[256];
  size_t hlen;
};

static void scan(struct scan *sc, struct samples *s, const char *p, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (sc->bol) {
      sc->bol = 0;
      sc->comment = p[i] == '#';
      sc->hlen = 0;
      if (!sc->comment) s->lines++;
    }
    if (sc->comment && sc->hlen < sizeof(sc->head) - 1 && p[i] != '\n')
      sc->head[sc->hlen++] = p[i];
    if (p[i] == '\n') {
      sc->head[sc->hlen] = 0;
      if (sc->comment && starts_with(sc->head, AGENT_HEADER))
        s->lifetime = strstr(sc->head, " recorder=lifetime ") != NULL;
      if (sc->comment && starts_with(sc->head, "#GC ")) s->gcs++;
      if (sc->comment && starts_with(sc->head, AGENT_TRAILER)) {
        unsigned long long v;

        if (scan_u64_after_blanks(sc->head + strlen(AGENT_TRAILER), 10, &v)) {
          s->samples = v;
          s->complete = 1;
        }
      }
      sc->bol = 1;
    }
  }
}

int target_samples(struct jvm *t, const char *path, struct wfile *out, int take,
                   struct samples *s)
{
  static char chunk[65536];
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  struct scan sc = {.bol = 1};
  struct stat sb;
  ssize_t n;
  int fd = -1, err;

  memset(s, 0, sizeof(*s));
  err = agent_samples_open(t, path, 0, &fd, &sb);
  /* up to the size it had when opened (the JVM's side may still write);
   * text only: a NUL is not the agent's (a sparse file, planted) */
  for (off_t left = err ? 0 : sb.st_size; left > 0 && !err;) {
    n = read(fd, chunk,
             left < (off_t)sizeof(chunk) ? (size_t)left : sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { /* shrank: what there is */
      err = n ? -errno : 0;
      break;
    }
    if (memchr(chunk, 0, (size_t)n)) {
      err = -EILSEQ;
      break;
    }
    scan(&sc, s, chunk, (size_t)n);
    if (out && fwrite(chunk, 1, (size_t)n, out->f) != (size_t)n) err = -EIO;
    left -= n;
  }
  if (fd >= 0) close(fd);
  if (err == -EIO) {
    error_msg("cannot write the samples: %s", strerror(errno));
    return -1;
  }
  if (err) {
    error_msg("cannot read the samples '%s' of pid %d: %s", path, t->pid,
              err == -EILSEQ ? "a NUL byte: not a samples file"
                             : root_check_msg(err, S_IFREG));
    return -1;
  }
  if (take) root_unlink(&t->root, t->tmpfd, name, &sb, 0);
  return 0;
}

void target_java_version(struct jvm *t, char *out, size_t n)
{
  char exe[PATH_MAX], *data, *p, *e;
  size_t dlen;
  ssize_t len;

  snprintf(out, n, "?");
  if ((len = readlinkat(t->procfd, "exe", exe, sizeof(exe) - 1)) <= 0) return;
  exe[len] = 0;
  if (root_release(&t->root, exe, &data, &dlen)) return;
  if ((p = strstr(data, "JAVA_VERSION=\"")) && (e = strchr(p + 14, '"')))
    snprintf(out, n, "%.*s", (int)(e - p - 14), p + 14);
  free(data);
}

int target_load_other(struct jvm *t, const char *path, const char *args,
                      int timeout_ms)
{
  int jar = strlen(path) > 4 && !strcmp(path + strlen(path) - 4, ".jar");
  char *abs = realpath(path, NULL), *data, *opts, lib[AGENT_PATH_MAX * 2];
  size_t len;
  int err, rc = 0;

  if (!abs) {
    perror_msg("cannot find '%s'", path);
    return -1;
  }
  snprintf(lib, sizeof(lib), "%s", abs);
  if (!jvm_same_path(t, abs)) { /* the JVM would not find it there */
    const char *base = strrchr(abs, '/') + 1;
    char prefix[64];

    if ((err = read_file(AT_FDCWD, abs, O_NONBLOCK, (size_t)1 << 30, &data,
                         &len))) {
      errno_msg(err, "cannot read '%s'", abs);
      free(abs);
      return -1;
    }
    snprintf(prefix, sizeof(prefix), "jvmtool-%.40s-", base);
    err = target_put(t, prefix, jar ? ".jar" : ".so", data, len, lib,
                     sizeof(lib));
    free(data);
    if (err) {
      free(abs);
      return -1;
    }
  }
  opts = jar ? xasprintf("%s%s%s", lib, args ? "=" : "", args ? args : "")
             : xstrdup(args ? args : "");
  if (target_load(t, jar ? "instrument" : lib, !jar, opts, &rc, timeout_ms))
    rc = -1;
  else if (rc)
    error_msg("pid %d: agent '%s' returned %d", t->pid, path, rc);
  else
    verbose_msg("pid %d: loaded '%s'", t->pid, lib);
  free(abs);
  free(opts);
  return rc ? -1 : 0;
}

/* The binary carries the agent gzip'd (build.d/agent.sh): inflated on the
 * first use, kept for the run. A .so is far below AGENT_IMAGE_MAX. */
enum { AGENT_IMAGE_MAX = 16 << 20 };

int agent_image(const unsigned char **p, size_t *n, char *why, size_t whylen)
{
  static unsigned char *image;
  static size_t len;
  const char *bad = NULL;
  int rc;

  if (!image && (rc = hin_gunzip(jt_agent_gz, (size_t)jt_agent_gz_size,
                                 AGENT_IMAGE_MAX, &image, &len, &bad))) {
    snprintf(why, whylen, "the agent this binary carries does not inflate (%s)",
             bad            ? bad
             : rc == -EFBIG ? "too big"
                            : "cut short");
    image = NULL;
    return -1;
  }
  *p = image;
  *n = len;
  return 0;
}
