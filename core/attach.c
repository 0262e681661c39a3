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
#include "core/wfile.h"
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
  if (seteuid(0) || setegid(0) || setgroups((size_t)s->ngroups, s->groups))
    return -errno;
  s->switched = 0;
  return 0;
}

/* ---- the trigger file -------------------------------------------------- */

/* A trigger already there (left by a run killed mid-attach, or made by
 * another attacher at this moment): the JVM only needs one to exist when
 * SIGQUIT comes, so a plain empty file of the JVM's user (uid) is used as
 * it is. It is removed once the listener is up, when nobody needs it,
 * never before (another attacher's SIGQUIT may still be on its way).
 * Anything else (a link, a FIFO, a folder, another user's file, one with
 * bytes) is left alone: -EEXIST. */
static int adopt_trigger(struct attach_trigger *tr, int dirfd, long long uid)
{
  struct stat sb;

  if (fstatat(dirfd, tr->name, &sb, AT_SYMLINK_NOFOLLOW) ||
      !S_ISREG(sb.st_mode) || sb.st_uid != (uid_t)uid || sb.st_nlink != 1 ||
      sb.st_size)
    return -EEXIST;
  tr->dirfd = dirfd;
  tr->sb = sb;
  tr->ours = 0;
  tr->slot = -1;
  return 0;
}

/* Make .attach_pid<N> in dirfd (O_EXCL, never through a link or into a
 * FIFO) owned by us, the JVM's user (uid), noted for removal should a
 * stop signal end us (core/wfile); or adopt one there. Returns 0, or
 * -errno. */
static int make_trigger(struct attach_trigger *tr, int dirfd, long long uid)
{
  struct stat sb = {0};
  sigset_t mask;
  int fd, rc;

  /* no stop signal between the file's making and its noting */
  wfile_defer(&mask);
  rc = root_openat(NULL, dirfd, tr->name, O_WRONLY | O_CREAT | O_EXCL, 0600,
                   &fd);
  if (rc) {
    wfile_undefer(&mask);
    return rc == -EEXIST ? adopt_trigger(tr, dirfd, uid) : rc;
  }
  rc = root_check(fd, S_IFREG, geteuid(), &sb);
  close(fd);
  /* Some file systems map owners: the JVM ignores a trigger not its own. */
  if (rc) {
    if (sb.st_ino) root_unlink(NULL, dirfd, tr->name, &sb, 0);
    wfile_undefer(&mask);
    return rc;
  }
  tr->dirfd = dirfd;
  tr->sb = sb;
  tr->ours = 1;
  tr->slot = wfile_note(dirfd, tr->name, (long long)sb.st_uid, &sb);
  wfile_undefer(&mask);
  return 0;
}

/* Remove the trigger if the name still leads to the file we made, or the
 * one we adopted once the listener is up. */
static void drop_trigger(struct attach_trigger *tr, int up)
{
  if (tr->dirfd < 0) return;
  if (tr->ours || up) root_unlink(NULL, tr->dirfd, tr->name, &tr->sb, 0);
  wfile_unnote(tr->slot);
  tr->slot = -1;
  tr->dirfd = -1;
}

/* The trigger in the JVM's cwd, else in its /tmp. Returns 0 or -errno. */
static int trigger(const struct jvm *t, int cwdfd, int tmpfd,
                   struct attach_trigger *tr)
{
  int err = -ENOENT;

  snprintf(tr->name, sizeof(tr->name), ".attach_pid%d", t->nspid);
  tr->dirfd = tr->slot = -1;
  if (cwdfd >= 0 && !(err = make_trigger(tr, cwdfd, t->st.euid))) return 0;
  if (tmpfd >= 0) err = make_trigger(tr, tmpfd, t->st.euid);
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
    return fail(err, errlen, ATTACH_UNSAFE,
                "'%s' of pid %d is not a socket "
                "owned by uid %d (a link, or planted): refused",
                path, t->pid, (int)t->st.euid);
  if (rc)
    return fail(err, errlen, ATTACH_PERM, "cannot open '%s' of pid %d: %s",
                path, t->pid, strerror(-rc));
  return fd;
}

/* ---- the exchange as state --------------------------------------------- */

/* Everything x holds is let go; x is ATTACH_DONE with rc (err set by the
 * caller when rc is an error). */
static int done(struct attach_xchg *x, int rc)
{
  drop_trigger(&x->tr, 0);
  if (x->tmpfd >= 0) close(x->tmpfd);
  if (x->cwdfd >= 0) close(x->cwdfd);
  if (x->path >= 0) close(x->path);
  if (x->sock >= 0) close(x->sock);
  x->tmpfd = x->cwdfd = x->path = x->sock = -1;
  buf_free(&x->req);
  x->state = ATTACH_DONE;
  x->rc = rc;
  return 1;
}

static int done_err(struct attach_xchg *x, int rc, const char *fmt, ...)
    PRINTF(3, 4);
static int done_err(struct attach_xchg *x, int rc, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(x->err, sizeof(x->err), fmt, ap);
  va_end(ap);
  return done(x, rc);
}

/* The step after now, growing from 10 to 200 ms, never past the end. */
static void later(struct attach_xchg *x, uint64_t now)
{
  x->wake = now + (uint64_t)x->delay;
  if (x->delay < 200) x->delay *= 2;
  if (x->wake > x->end) x->wake = x->end;
}

/* One try at connecting the socket inode behind x->path (through
 * /proc/self/fd, so the name is not looked up again), then the check that
 * the listener is the target process. Runs as the target's user (the JVM
 * checks the credentials of connect). 1 when done (failed), 0 otherwise:
 * ATTACH_SEND when connected, or still ATTACH_CONNECT (a full backlog). */
static int try_connect(struct attach_xchg *x, uint64_t now)
{
  const struct jvm *t = x->t;
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  struct ucred cred;
  socklen_t len = sizeof(cred);

  root_fd_path(x->path, sa.sun_path, sizeof(sa.sun_path));
  if (x->sock < 0 &&
      (x->sock =
           socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
    return done_err(x, ATTACH_IO, "socket: %s", strerror(errno));
  if (connect(x->sock, (struct sockaddr *)&sa, sizeof(sa))) {
    /* A full backlog says EAGAIN to a non-blocking connect: try again. */
    if ((errno == EAGAIN || errno == EINTR) && now < x->end) {
      x->state = ATTACH_CONNECT;
      x->delay = 10;
      later(x, now);
      return 0;
    }
    return done_err(x, errno == EACCES ? ATTACH_PERM : ATTACH_IO,
                    "cannot connect to pid %d: %s", t->pid, strerror(errno));
  }
  if (getsockopt(x->sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
      cred.pid != t->pid || cred.uid != t->st.euid)
    return done_err(x, ATTACH_UNSAFE,
                    "the socket '/tmp/.java_pid%d' of "
                    "pid %d is served by pid %d uid %d, not by the JVM: "
                    "refused",
                    t->nspid, t->pid, (int)cred.pid, (int)cred.uid);
  close(x->path);
  x->path = -1;
  x->state = ATTACH_SEND;
  if (x->reply_ms > 0) x->end = now_ms() + (uint64_t)x->reply_ms;
  return 0;
}

/* Look for the listener once, starting it (trigger file, SIGQUIT) the
 * first time it is not there; connect when it is. Runs as the target's
 * user. 1 when done (failed), else 0. */
static int find(struct attach_xchg *x, uint64_t now)
{
  const struct jvm *t = x->t;
  struct proc_status st;
  struct stat sb;
  int sock, rc;

  if ((sock = find_socket(t, &t->root, x->err, sizeof(x->err))) < 0)
    return done(x, sock);
  if (sock) {
    x->path = sock;
    drop_trigger(&x->tr, 1);
    return try_connect(x, now);
  }
  if (x->tr.dirfd < 0) {
    /* SIGQUIT's default action kills: only a JVM that catches it (its
     * status read now: a JVM still starting catches it later) */
    if (proc_status_at(t->procfd, &st) || !(st.sigcgt & (1u << (SIGQUIT - 1))))
      return done_err(x, ATTACH_NOTJVM,
                      "pid %d does not handle SIGQUIT: not "
                      "a HotSpot JVM, or still starting",
                      t->pid);
    if (x->tmpfd < 0 && root_tmp(&t->root, &x->tmpfd, &sb)) x->tmpfd = -1;
    /* its cwd, opened only when a trigger is needed (a JVM listening
     * already needs none) */
    if (x->cwdfd < 0)
      x->cwdfd = openat(t->procfd, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if ((rc = trigger(t, x->cwdfd, x->tmpfd, &x->tr)))
      return done_err(x, ATTACH_PERM,
                      "cannot create the trigger file of pid "
                      "%d: %s",
                      t->pid, strerror(-rc));
    if ((rc = jvm_signal(t, SIGQUIT)))
      return done_err(x, rc == -ESRCH ? ATTACH_NOPROC : ATTACH_PERM,
                      "cannot signal pid %d: %s", t->pid, strerror(-rc));
  }
  if (!jvm_alive(t)) return done_err(x, ATTACH_NOPROC, "pid %d exited", t->pid);
  if (now >= x->end)
    return done_err(
        x, ATTACH_TIMEOUT,
        "pid %d started no attach listener in "
        "%d ms (not a HotSpot JVM, or -XX:+DisableAttachMechanism?)",
        t->pid, x->timeout_ms);
  later(x, now);
  return 0;
}

/* ATTACH_FIND and ATTACH_CONNECT, as the target's user. 1 when done. */
static int as_target(struct attach_xchg *x, uint64_t now)
{
  struct saved_ids ids;
  int rc, fin;

  if ((rc = become(x->t, &ids)))
    return done_err(x, ATTACH_PERM, "cannot become uid %d gid %d: %s",
                    (int)x->t->st.euid, (int)x->t->st.egid, strerror(-rc));
  fin = x->state == ATTACH_FIND ? find(x, now) : try_connect(x, now);
  if (restore_ids(&ids))
    return done_err(x, ATTACH_PERM, "cannot switch back to root");
  return fin;
}

/* Send what is left of the request; read what the JVM sent (at most 16
 * chunks a step: a loop serving many moves on). 1 when done. */
static int transfer(struct attach_xchg *x)
{
  char chunk[65536];
  ssize_t n;

  while (x->state == ATTACH_SEND) {
    if (x->off == x->req.len) {
      shutdown(x->sock, SHUT_WR); /* the request is complete */
      x->state = ATTACH_READ;
      break;
    }
    n = send(x->sock, x->req.p + x->off, x->req.len - x->off,
             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
    if (n < 0)
      return done_err(x, ATTACH_IO, "pid %d: %s", x->t->pid, strerror(errno));
    x->off += (size_t)n;
  }
  for (int i = 0; i < 16; i++) {
    n = read(x->sock, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n < 0)
      return done_err(x, ATTACH_IO, "pid %d: %s", x->t->pid, strerror(errno));
    /* The JVM closes silently on a credential mismatch or bad request. */
    if (!n && !x->rep.len)
      return done_err(x, ATTACH_IO,
                      "pid %d closed the connection without "
                      "a reply",
                      x->t->pid);
    if (!n) return done(x, 0);
    if (x->rep.len + (size_t)n > ATTACH_REPLY_MAX) {
      buf_add(&x->rep, chunk, ATTACH_REPLY_MAX - x->rep.len);
      return done_err(x, ATTACH_CUT, "pid %d: reply cut at %d MiB", x->t->pid,
                      ATTACH_REPLY_MAX >> 20);
    }
    buf_add(&x->rep, chunk, (size_t)n);
  }
  return 0;
}

int attach_begin(struct attach_xchg *x, const struct jvm *t, const char *cmd,
                 const char *const args[3], int timeout_ms)
{
  int rc;

  memset(x, 0, sizeof(*x));
  x->t = t;
  x->cwdfd = x->tmpfd = x->path = x->sock = x->tr.dirfd = x->tr.slot = -1;
  x->timeout_ms = timeout_ms;
  x->wake = now_ms();
  x->end = x->wake + (uint64_t)timeout_ms;
  x->delay = 10;
  x->state = ATTACH_DONE;
  if ((rc = attach_check(t, x->err, sizeof(x->err)))) return x->rc = rc;
  /* Protocol 1: five NUL-terminated strings; the JVM drops a request whose
   * command exceeds 16 bytes or an argument 1024, without a reply. */
  if (strlen(cmd) > 16)
    return x->rc = fail(x->err, sizeof(x->err), ATTACH_TOOLONG,
                        "command '%s' too long", cmd);
  for (int i = 0; i < 3; i++)
    if (args && args[i] && strlen(args[i]) > 1024)
      return x->rc = fail(x->err, sizeof(x->err), ATTACH_TOOLONG,
                          "argument "
                          "longer than the 1024 bytes the JVM reads");
  /* Opened with our own rights at jvm_open; what they lead to is checked
   * later. */
  if (t->root.fd < 0)
    return x->rc = fail(x->err, sizeof(x->err), ATTACH_PERM,
                        "cannot open the root of pid %d", t->pid);
  buf_add(&x->req, "1", 2);
  buf_add(&x->req, cmd, strlen(cmd) + 1);
  for (int i = 0; i < 3; i++) {
    const char *a = args && args[i] ? args[i] : "";

    buf_add(&x->req, a, strlen(a) + 1);
  }
  x->state = ATTACH_FIND;
  return 0;
}

int attach_step(struct attach_xchg *x)
{
  uint64_t now = now_ms();

  if (x->state == ATTACH_DONE) return 1;
  if (x->state == ATTACH_SEND || x->state == ATTACH_READ) {
    if (transfer(x)) return 1;
    if (now_ms() < x->end) return 0;
    return done_err(x, ATTACH_TIMEOUT,
                    x->rep.len ? "pid %d: reply not "
                                 "complete within %d ms"
                               : "pid %d sent no reply within %d "
                                 "ms",
                    x->t->pid, x->reply_ms > 0 ? x->reply_ms : x->timeout_ms);
  }
  if (now < x->wake) return 0;
  return as_target(x, now);
}

void attach_want(const struct attach_xchg *x, struct pollfd *p, uint64_t *next)
{
  uint64_t at = x->end;

  p->fd = -1;
  p->events = 0;
  p->revents = 0;
  if (x->state == ATTACH_DONE) return;
  if (x->state == ATTACH_SEND || x->state == ATTACH_READ) {
    p->fd = x->sock;
    p->events = x->state == ATTACH_SEND ? POLLOUT : POLLIN;
  } else if (x->wake < at) {
    at = x->wake;
  }
  if (at < *next) *next = at;
}

int attach_result(struct attach_xchg *x, char **reply, char *err, size_t errlen)
{
  int rc = x->rc;

  *reply = NULL;
  if (rc) snprintf(err, errlen, "%s", x->err);
  if (!rc || rc == ATTACH_CUT) {
    *reply = x->rep.p;
    x->rep = (struct buf){0};
  }
  attach_end(x);
  return rc;
}

void attach_end(struct attach_xchg *x)
{
  if (x->state != ATTACH_DONE) done(x, ATTACH_IO);
  buf_free(&x->req);
  buf_free(&x->rep);
}

static int send_for(const struct jvm *t, const char *cmd,
                    const char *const args[3], int timeout_ms, int reply_ms,
                    char **reply, char *err, size_t errlen)
{
  struct attach_xchg x;
  struct pollfd p;
  uint64_t next, now;
  int rc;

  if ((rc = attach_begin(&x, t, cmd, args, timeout_ms)))
    return attach_result(&x, reply, err, errlen);
  x.reply_ms = reply_ms;
  while (!attach_step(&x)) {
    next = x.end;
    attach_want(&x, &p, &next);
    now = now_ms();
    if (next <= now) continue;
    poll(&p, p.fd >= 0, (int)(next - now > 1000 ? 1000 : next - now));
  }
  return attach_result(&x, reply, err, errlen);
}

int attach_send(const struct jvm *t, const char *cmd, const char *const args[3],
                int timeout_ms, char **reply, char *err, size_t errlen)
{
  return send_for(t, cmd, args, timeout_ms, 0, reply, err, errlen);
}

int attach_ask_long(const struct jvm *j, const char *cmd,
                    const char *const args[3], int find_ms, int reply_ms,
                    char **reply, char *err, size_t errlen)
{
  int rc;

  if ((rc = send_for(j, cmd, args, find_ms, reply_ms, reply, err, errlen))) {
    free(*reply);
    *reply = NULL;
  }
  return rc;
}

int attach_ask(const struct jvm *j, const char *cmd, const char *const args[3],
               int timeout_ms, char **reply, char *err, size_t errlen)
{
  return attach_ask_long(j, cmd, args, timeout_ms, 0, reply, err, errlen);
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

void attach_ask_all(const struct jvm *const *js, size_t n, const char *cmd,
                    const char *const args[3], int find_ms, int reply_ms,
                    struct attach_answer *out)
{
  struct attach_xchg *x = xmalloc((n ? n : 1) * sizeof(*x));
  struct pollfd *p = xmalloc((n ? n : 1) * sizeof(*p));
  char *over = xmalloc(n ? n : 1); /* 1: out[i] holds its outcome */
  size_t left = 0;

  for (size_t i = 0; i < n; i++) {
    over[i] = !js[i];
    if (over[i]) continue;
    out[i].reply = NULL;
    if (!attach_begin(&x[i], js[i], cmd, args, find_ms))
      x[i].reply_ms = reply_ms;
    left++;
  }
  while (left) {
    uint64_t now = now_ms(), next = now + 1000;

    for (size_t i = 0; i < n; i++) {
      p[i].fd = -1;
      if (over[i]) continue;
      if (attach_step(&x[i])) {
        out[i].rc =
            attach_result(&x[i], &out[i].reply, out[i].err, sizeof(out[i].err));
        if (out[i].rc) {
          free(out[i].reply);
          out[i].reply = NULL;
        }
        over[i] = 1;
        left--;
        continue;
      }
      attach_want(&x[i], &p[i], &next);
    }
    now = now_ms();
    if (left && next > now)
      poll(p, n, (int)(next - now > 1000 ? 1000 : next - now));
  }
  free(over);
  free(p);
  free(x);
}
