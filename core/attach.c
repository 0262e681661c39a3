/* attach.c - the HotSpot dynamic-attach client
 *
 * Facts used (docs/attach-agent.md): the JVM looks for .attach_pid<N> in its
 * cwd, then its /tmp, when SIGQUIT arrives, and starts a listener on
 * /tmp/.java_pid<N> (N = its own pid, inside its namespace), created by
 * bind + listen + chown + rename, so the socket's owner and the listener's
 * credentials are the JVM's. It accepts a peer whose uid and gid are its
 * own (or root), checked at connect time.
 *
 * What a container controls (its /tmp, its cwd) is met through fds: the
 * target's root and cwd are opened once, paths are resolved inside the
 * root, the socket inode that was checked is the one connected to, and
 * the listener must be the target process (SO_PEERCRED) before a byte is
 * sent.
 */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "core/perfdata.h"
#include "core/root.h"
#include "core/jvm.h"
#include <grp.h>
#include <poll.h>
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

int attach_ask(const struct jvm *j, const char *cmd, const char *const args[3],
               int timeout_ms, char **reply, char *err, size_t errlen)
{
  int rc;

  if ((rc = attach_send(j, cmd, args, timeout_ms, reply, err, errlen))) {
    free(*reply);
    *reply = NULL;
  }
  return rc;
}

int attach_check(const struct jvm *t, char *err, size_t errlen)
{
  if (jvm_check_jvm(t, err, errlen)) return ATTACH_NOTJVM;
  /* docs/attach-agent.md §1.3: no PerfData to ask (-XX:-UsePerfData) is
   * no refusal; jcmd tries too */
  if (t->off == 1)
    return fail(err, errlen, ATTACH_OFF,
                "pid %d takes no attach requests "
                "(started with -XX:+DisableAttachMechanism)",
                t->pid);
  return 0;
}

/* ---- acting as the target's user ------------------------------------- */

struct saved_ids {
  int switched, ngroups;
  gid_t groups[256];
};

/* Root becomes the target's effective gid, then uid, with no supplementary
 * group (root's groups must not open what the JVM's user cannot). Returns
 * 0 or -errno; undo with restore_ids. */
static int become(const struct jvm *t, struct saved_ids *s)
{
  int err;

  s->switched = 0;
  if (geteuid() != 0 || (!t->st.euid && !t->st.egid)) return 0;
  if ((s->ngroups = getgroups(256, s->groups)) < 0) return -errno;
  if (setgroups(0, NULL)) return -errno;
  s->switched = 1;
  if (setegid(t->st.egid) || seteuid(t->st.euid)) {
    err = -errno;
    if (seteuid(0) || setegid(0)) return err;
    if (setgroups((size_t)s->ngroups, s->groups)) return err;
    s->switched = 0;
    return err;
  }
  return 0;
}

static int restore_ids(struct saved_ids *s)
{
  if (!s->switched) return 0;
  if (seteuid(0) || setegid(0) ||
      setgroups((size_t)s->ngroups, s->groups))
    return -errno;
  s->switched = 0;
  return 0;
}

/* ---- the trigger file -------------------------------------------------- */

struct trigger {
  int dirfd;               /* the folder it was made in, or -1 */
  struct stat sb;          /* what was made, for its removal */
  char name[32];
};

/* Make .attach_pid<N> in dirfd (O_EXCL, never through a link or into a
 * FIFO) owned by us. Returns 0, or -errno. */
static int make_trigger(struct trigger *tr, int dirfd)
{
  struct stat sb = {0};
  int fd, rc = root_openat(NULL, dirfd, tr->name, O_WRONLY | O_CREAT | O_EXCL,
                           0600, &fd);

  if (rc) return rc;
  rc = root_check(fd, S_IFREG, geteuid(), &sb);
  close(fd);
  /* Some file systems map owners: the JVM ignores a trigger not its own. */
  if (rc) {
    if (sb.st_ino) root_unlink(dirfd, tr->name, &sb, 0);
    return rc;
  }
  tr->dirfd = dirfd;
  tr->sb = sb;
  return 0;
}

/* Remove the trigger if the name still leads to the file we made. */
static void drop_trigger(struct trigger *tr)
{
  if (tr->dirfd < 0) return;
  root_unlink(tr->dirfd, tr->name, &tr->sb, 0);
  tr->dirfd = -1;
}

/* The trigger in the JVM's cwd, else in its /tmp. Returns 0 or -errno. */
static int trigger(const struct jvm *t, int cwdfd, int tmpfd,
                   struct trigger *tr)
{
  int err = -ENOENT;

  snprintf(tr->name, sizeof(tr->name), ".attach_pid%d", t->nspid);
  tr->dirfd = -1;
  if (cwdfd >= 0 && !(err = make_trigger(tr, cwdfd))) return 0;
  if (tmpfd >= 0) err = make_trigger(tr, tmpfd);
  return err;
}

/* ---- finding and connecting the listener -------------------------------- */

/* The socket /tmp/.java_pid<N> inside the root as an O_PATH fd: returns
 * the fd, 0 while it does not exist, or an attach_error. */
static int find_socket(const struct jvm *t, const struct root *r, char *err,
                       size_t errlen)
{
  char path[40];
  int fd, rc;

  snprintf(path, sizeof(path), "/tmp/.java_pid%d", t->nspid);
  rc = root_open_checked(r, -1, path, O_PATH, S_IFSOCK, t->st.euid, &fd, NULL);
  if (rc == -ENOENT) return 0;
  if (rc == -EINVAL || rc == -EPERM || rc == -ELOOP)
    return fail(err, errlen, ATTACH_UNSAFE, "'%s' of pid %d is not a socket "
                "owned by uid %d (a link, or planted): refused", path, t->pid,
                (int)t->st.euid);
  if (rc)
    return fail(err, errlen, ATTACH_PERM, "cannot open '%s' of pid %d: %s",
                path, t->pid, strerror(-rc));
  return fd;
}

/* Connect to the socket inode behind pathfd (through /proc/self/fd, so the
 * name is not looked up again) and check that the listener is the target
 * process. Returns the connected non-blocking socket or an attach_error. */
static int connect_inode(const struct jvm *t, int pathfd, uint64_t end,
                         char *err, size_t errlen)
{
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  struct ucred cred;
  socklen_t len = sizeof(cred);
  int fd, rc;

  root_fd_path(pathfd, sa.sun_path, sizeof(sa.sun_path));
  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return fail(err, errlen, ATTACH_IO, "socket: %s", strerror(errno));
  /* A full backlog says EAGAIN to a non-blocking connect: try again. */
  while ((rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa))) &&
         (errno == EAGAIN || errno == EINTR) && now_ms() < end)
    usleep(10000);
  if (rc) {
    rc = fail(err, errlen, errno == EACCES ? ATTACH_PERM : ATTACH_IO,
              "cannot connect to pid %d: %s", t->pid, strerror(errno));
    close(fd);
    return rc;
  }
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
      cred.pid != t->pid || cred.uid != t->st.euid) {
    rc = fail(err, errlen, ATTACH_UNSAFE, "the socket '/tmp/.java_pid%d' of "
              "pid %d is served by pid %d uid %d, not by the JVM: refused",
              t->nspid, t->pid, (int)cred.pid, (int)cred.uid);
    close(fd);
    return rc;
  }
  return fd;
}

/* Wait for the listener, starting it if needed; connect. Runs as the
 * target's user. Returns the socket or an attach_error. */
static int connect_jvm(const struct jvm *t, const struct root *r, int cwdfd,
                       uint64_t end, int timeout_ms, char *err, size_t errlen)
{
  struct trigger tr = {.dirfd = -1};
  struct proc_status st;
  struct stat sb;
  int tmpfd = -1, sock, fd, delay = 10;

  while (!(sock = find_socket(t, r, err, errlen))) {
    if (tr.dirfd < 0) {
      /* SIGQUIT's default action kills: only a JVM that catches it (its
       * status read now: a JVM still starting catches it later) */
      if (proc_status_at(t->procfd, &st) ||
          !(st.sigcgt & (1u << (SIGQUIT - 1)))) {
        sock = fail(err, errlen, ATTACH_NOTJVM,
                    "pid %d does not handle SIGQUIT: not a HotSpot JVM, or "
                    "still starting", t->pid);
        break;
      }
      if (root_tmp(r, &tmpfd, &sb)) tmpfd = -1;
      if ((fd = trigger(t, cwdfd, tmpfd, &tr))) {
        sock = fail(err, errlen, ATTACH_PERM, "cannot create the trigger "
                    "file of pid %d: %s", t->pid, strerror(-fd));
        break;
      }
      if ((fd = jvm_signal(t, SIGQUIT))) {
        sock = fail(err, errlen, fd == -ESRCH ? ATTACH_NOPROC : ATTACH_PERM,
                    "cannot signal pid %d: %s", t->pid, strerror(-fd));
        break;
      }
    }
    if (!jvm_alive(t)) {
      sock = fail(err, errlen, ATTACH_NOPROC, "pid %d exited", t->pid);
      break;
    }
    if (now_ms() >= end) {
      sock = fail(err, errlen, ATTACH_TIMEOUT, "pid %d started no attach "
                  "listener in %d ms (not a HotSpot JVM, or "
                  "-XX:+DisableAttachMechanism?)", t->pid, timeout_ms);
      break;
    }
    usleep(delay * 1000);
    if (delay < 200) delay *= 2;
  }
  drop_trigger(&tr);
  if (tmpfd >= 0) close(tmpfd);
  if (sock < 0) return sock;
  fd = connect_inode(t, sock, end, err, errlen);
  close(sock);
  return fd;
}

/* ---- the exchange ------------------------------------------------------ */

/* Wait until fd is ready for events or end passes: 1 ready, 0 timed out. */
static int wait_fd(int fd, short events, uint64_t end)
{
  struct pollfd p = {.fd = fd, .events = events};
  uint64_t now;
  int rc;

  while ((now = now_ms()) < end) {
    rc = poll(&p, 1, (int)(end - now > 1000 ? 1000 : end - now));
    if (rc > 0) return 1;
    if (rc < 0 && errno != EINTR) return 1;  /* the read/write says why */
  }
  return 0;
}

/* Send req, read the reply to EOF into rep, all before end. Returns 0,
 * ATTACH_CUT, ATTACH_TIMEOUT or ATTACH_IO (errno kept). */
static int exchange(int fd, const struct buf *req, uint64_t end,
                    struct buf *rep)
{
  char chunk[65536];
  ssize_t n;

  for (size_t off = 0; off < req->len; off += (size_t)n) {
    if (!wait_fd(fd, POLLOUT, end)) return ATTACH_TIMEOUT;
    n = send(fd, req->p + off, req->len - off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) n = 0;
    else if (n < 0) return ATTACH_IO;
  }
  shutdown(fd, SHUT_WR);  /* the request is complete */
  for (;;) {
    if (!wait_fd(fd, POLLIN, end)) return ATTACH_TIMEOUT;
    n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return ATTACH_IO;
    if (!n) return 0;
    if (rep->len + (size_t)n > ATTACH_REPLY_MAX) {
      buf_add(rep, chunk, ATTACH_REPLY_MAX - rep->len);
      return ATTACH_CUT;
    }
    buf_add(rep, chunk, (size_t)n);
  }
}

int attach_send(const struct jvm *t, const char *cmd, const char *const args[3],
                int timeout_ms, char **reply, char *err, size_t errlen)
{
  struct buf req = {0}, rep = {0};
  struct saved_ids ids;
  uint64_t end = now_ms() + (uint64_t)timeout_ms;
  int fd, rc, cwdfd;

  *reply = NULL;
  if ((rc = attach_check(t, err, errlen))) return rc;
  /* Protocol 1: five NUL-terminated strings; the JVM drops a request whose
   * command exceeds 16 bytes or an argument 1024, without a reply. */
  if (strlen(cmd) > 16)
    return fail(err, errlen, ATTACH_TOOLONG, "command '%s' too long", cmd);
  for (int i = 0; i < 3; i++)
    if (args && args[i] && strlen(args[i]) > 1024)
      return fail(err, errlen, ATTACH_TOOLONG,
                  "argument longer than the 1024 bytes the JVM reads");
  /* Opened with our own rights at jvm_open; what they lead to is checked
   * later. */
  if (t->root.fd < 0)
    return fail(err, errlen, ATTACH_PERM, "cannot open the root of pid %d",
                t->pid);
  cwdfd = openat(t->procfd, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if ((rc = become(t, &ids))) {
    if (cwdfd >= 0) close(cwdfd);
    return fail(err, errlen, ATTACH_PERM, "cannot become uid %d gid %d: %s",
                (int)t->st.euid, (int)t->st.egid, strerror(-rc));
  }
  fd = connect_jvm(t, &t->root, cwdfd, end, timeout_ms, err, errlen);
  if (cwdfd >= 0) close(cwdfd);
  if (restore_ids(&ids)) {
    if (fd >= 0) close(fd);
    return fail(err, errlen, ATTACH_PERM, "cannot switch back to root");
  }
  if (fd < 0) return fd;
  buf_add(&req, "1", 2);
  buf_add(&req, cmd, strlen(cmd) + 1);
  for (int i = 0; i < 3; i++) {
    const char *a = args && args[i] ? args[i] : "";

    buf_add(&req, a, strlen(a) + 1);
  }
  rc = exchange(fd, &req, end, &rep);
  if (rc == ATTACH_IO) rc = fail(err, errlen, ATTACH_IO, "pid %d: %s",
                                 t->pid, strerror(errno));
  close(fd);
  buf_free(&req);
  if (rc == ATTACH_CUT) {
    *reply = rep.p;
    return fail(err, errlen, ATTACH_CUT, "pid %d: reply cut at %d MiB",
                t->pid, ATTACH_REPLY_MAX >> 20);
  }
  if (rc == ATTACH_TIMEOUT)
    rc = fail(err, errlen, ATTACH_TIMEOUT, rep.len ? "pid %d: reply not "
              "complete within %d ms" : "pid %d sent no reply within %d ms",
              t->pid, timeout_ms);
  else if (!rc && !rep.len)
    /* The JVM closes silently on a credential mismatch or bad request. */
    rc = fail(err, errlen, ATTACH_IO, "pid %d closed the connection "
              "without a reply", t->pid);
  if (rc) {
    buf_free(&rep);
    return rc;
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
