/* attach.c - the HotSpot dynamic-attach client
 *
 * Facts used (docs/attach-agent.md): the JVM looks for .attach_pid<N> in its
 * cwd, then its /tmp, when SIGQUIT arrives, and starts a listener on
 * /tmp/.java_pid<N> (N = its own pid, inside its namespace). It accepts a
 * peer whose uid and gid are its own (or root), checked at connect time.
 */
#include "core/jvmtool.h"
#include "core/attach.h"
#include <sys/socket.h>
#include <sys/un.h>

static int fail(char *err, size_t n, int code, const char *fmt, ...)
  PRINTF(4, 5);
static int fail(char *err, size_t n, int code, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return code;
}

int attach_target(struct attach_target *t, int pid)
{
  memset(t, 0, sizeof(*t));
  t->pid = pid;
  if (proc_status(pid, &t->st)) return ATTACH_NOPROC;
  t->nspid = t->st.nnspid ? t->st.nspid[t->st.nnspid - 1] : pid;
  return 0;
}

/* Become the target's effective gid, then uid (root only; a user can only
 * attach to itself anyway). Returns 0 or -errno; undo with become(0, ..). */
static int become(uid_t uid, gid_t gid)
{
  if (setegid(gid)) return -errno;
  if (seteuid(uid)) {
    int err = -errno;

    if (setegid(0)) return err;
    return err;
  }
  return 0;
}

/* Create the trigger file (cwd first, then /tmp); returns its path or NULL. */
static char *trigger(const struct attach_target *t)
{
  const char *where[] = {"cwd", "root/tmp"};

  for (int i = 0; i < 2; i++) {
    char *path = xasprintf("/proc/%d/%s/.attach_pid%d", t->pid, where[i],
                           t->nspid);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);

    if (fd >= 0) {
      close(fd);
      return path;
    }
    free(path);
  }
  return NULL;
}

/* Wait for the listener, starting it if needed; connect. Runs as the
 * target's user. Returns the socket or an attach_error. */
static int connect_jvm(const struct attach_target *t, int timeout_ms,
                       char *err, size_t errlen)
{
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  uint64_t end = now_ms() + (uint64_t)timeout_ms;
  char *trig = NULL;
  struct stat sb;
  int fd, delay = 10, rc = 0;

  snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/%d/root/tmp/.java_pid%d",
           t->pid, t->nspid);
  while (stat(sa.sun_path, &sb) || !S_ISSOCK(sb.st_mode)) {
    if (!trig) {
      /* SIGQUIT's default action kills: only a JVM that catches it. */
      if (!(t->st.sigcgt & (1u << (SIGQUIT - 1)))) {
        rc = fail(err, errlen, ATTACH_NOTJVM,
                  "pid %d does not handle SIGQUIT: not a HotSpot JVM, or "
                  "still starting", t->pid);
        break;
      }
      if (!(trig = trigger(t))) {
        rc = fail(err, errlen, ATTACH_PERM,
                  "cannot create the trigger file of pid %d: %s", t->pid,
                  strerror(errno));
        break;
      }
      kill(t->pid, SIGQUIT);
    }
    if (!proc_alive(t->pid)) {
      rc = fail(err, errlen, ATTACH_NOPROC, "pid %d exited", t->pid);
      break;
    }
    if (now_ms() >= end) {
      rc = fail(err, errlen, ATTACH_TIMEOUT,
                "pid %d started no attach listener in %d ms (not a HotSpot "
                "JVM, or -XX:+DisableAttachMechanism?)", t->pid, timeout_ms);
      break;
    }
    usleep(delay * 1000);
    if (delay < 200) delay *= 2;
  }
  if (trig) unlink(trig);
  free(trig);
  if (rc) return rc;
  /* A socket planted by someone else must not receive our request. */
  if (sb.st_uid != t->st.euid)
    return fail(err, errlen, ATTACH_PERM, "'%s' is owned by uid %d, not %d",
                sa.sun_path, (int)sb.st_uid, (int)t->st.euid);
  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
    rc = fail(err, errlen, errno == EACCES ? ATTACH_PERM : ATTACH_IO,
              "cannot connect to pid %d: %s", t->pid, strerror(errno));
    if (fd >= 0) close(fd);
    return rc;
  }
  return fd;
}

int attach_send(const struct attach_target *t, const char *cmd,
                const char *const args[3], int timeout_ms, char **reply,
                char *err, size_t errlen)
{
  struct buf req = {0}, rep = {0};
  uid_t uid = geteuid();
  gid_t gid = getegid();
  int fd, rc = 0, late = 0, sw = uid == 0 && (t->st.euid || t->st.egid);
  struct timeval tv = {timeout_ms / 1000, timeout_ms % 1000 * 1000};
  char chunk[65536];
  ssize_t n;

  *reply = NULL;
  /* Protocol 1: five NUL-terminated strings; the JVM drops a request whose
   * command exceeds 16 bytes or an argument 1024, without a reply. */
  if (strlen(cmd) > 16)
    return fail(err, errlen, ATTACH_TOOLONG, "command '%s' too long", cmd);
  buf_add(&req, "1", 2);
  buf_add(&req, cmd, strlen(cmd) + 1);
  for (int i = 0; i < 3; i++) {
    const char *a = args && args[i] ? args[i] : "";

    if (strlen(a) > 1024) {
      buf_free(&req);
      return fail(err, errlen, ATTACH_TOOLONG,
                  "argument longer than the 1024 bytes the JVM reads");
    }
    buf_add(&req, a, strlen(a) + 1);
  }
  if (sw && (rc = become(t->st.euid, t->st.egid))) {
    buf_free(&req);
    return fail(err, errlen, ATTACH_PERM, "cannot become uid %d gid %d: %s",
                (int)t->st.euid, (int)t->st.egid, strerror(-rc));
  }
  if (!sw && uid && uid != t->st.euid) {
    buf_free(&req);
    return fail(err, errlen, ATTACH_PERM,
                "pid %d belongs to uid %d: run as that user or root", t->pid,
                (int)t->st.euid);
  }
  fd = connect_jvm(t, timeout_ms, err, errlen);
  if (sw && (seteuid(uid) || setegid(gid))) {
    if (fd >= 0) close(fd);
    buf_free(&req);
    return fail(err, errlen, ATTACH_PERM, "cannot switch back to uid %d",
                (int)uid);
  }
  if (fd < 0) {
    buf_free(&req);
    return fd;
  }
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  for (size_t off = 0; off < req.len && !rc; off += (size_t)n) {
    n = send(fd, req.p + off, req.len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) n = 0;
    else if (n < 0) rc = ATTACH_IO;
  }
  shutdown(fd, SHUT_WR);  /* the request is complete */
  while (!rc && ((n = read(fd, chunk, sizeof(chunk))) > 0 ||
                 (n < 0 && errno == EINTR)))
    if (n > 0) buf_add(&rep, chunk, (size_t)n);
  if (!rc && n < 0) rc = ATTACH_IO, late = errno == EAGAIN;
  close(fd);
  buf_free(&req);
  if (rc || !rep.len) {
    buf_free(&rep);
    if (late)  /* SO_RCVTIMEO ran out */
      return fail(err, errlen, ATTACH_IO, "pid %d sent no reply within %d s",
                  t->pid, timeout_ms / 1000);
    /* The JVM closes silently on a credential mismatch or bad request. */
    return fail(err, errlen, ATTACH_IO, "pid %d closed the connection "
                "without a reply", t->pid);
  }
  *reply = rep.p;
  return 0;
}

int attach_status(const char *reply, const char **body)
{
  const char *nl = strchr(reply, '\n');
  char *end;
  long v;

  *body = nl ? nl + 1 : reply + strlen(reply);
  errno = 0;
  v = strtol(reply, &end, 10);
  if (end == reply || (*end && *end != '\n') || errno || v < INT_MIN + 1 ||
      v > INT_MAX)
    return INT_MIN;
  return (int)v;
}

int attach_load_code(const char *reply, int *rc)
{
  const char *body, *p;
  int status = attach_status(reply, &body);
  long long v;
  char line[32];

  if ((p = strstr(body, "return code: "))) {
    snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + 13, "\n"), p + 13);
    if (!parse_long(line, INT_MIN, INT_MAX, &v)) return *rc = (int)v, 0;
  }
  /* JDK 8: the status line is 0 and the body the bare return code. */
  snprintf(line, sizeof(line), "%.*s", (int)strcspn(body, "\n"), body);
  if (status == 0 && !parse_long(line, INT_MIN, INT_MAX, &v))
    return *rc = (int)v, 0;
  return -1;
}
