/* heap_take.c - jvmtool heap PID: a live dump of a running JVM, read
 *
 * The dump is GC.heap_dump's (live objects only, plain HPROF), taken as
 * jcmd --out-file takes one (cmd/jdk_out.c): a JVM of another user or in
 * a container writes it into its own /tmp under a random name, which is
 * taken out with its users' rights, bounded by what was written, and
 * copied to our side; a JVM of ours that sees our folder writes it there
 * itself. -o FILE keeps it at FILE. Without -o the file goes to a new
 * name in $TMPDIR (else /var/tmp, else /tmp: a dump can be as big as the
 * heap, and /tmp is often memory), which a stop signal removes from the
 * moment the JVM is asked (core/wfile), and which is unlinked as soon as
 * it is opened: the analysis reads it through its descriptor, so nothing
 * is left in the JVM's /tmp nor ours, whatever ends the run.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/jvm.h"
#include "core/out.h"
#include "core/root.h"
#include "core/vm.h"
#include "core/wfile.h"
#include "cmd/heap.h"

/* How long the JVM may take to answer: its attach listener to start,
 * then the dump to be written (a full GC and the whole heap: as the JDK
 * tools wait, an hour). */
enum { FIND_MS = 10000, REPLY_MS = 3600 * 1000 };

/* The folder a dump we do not keep goes to (a path; static or env). */
static const char *tmp_folder(void)
{
  const char *t = getenv("TMPDIR");
  struct stat sb;

  if (t && t[0] == '/' && !stat(t, &sb) && S_ISDIR(sb.st_mode)) return t;
  if (!stat("/var/tmp", &sb) && S_ISDIR(sb.st_mode) &&
      !access("/var/tmp", W_OK | X_OK))
    return "/var/tmp";
  return "/tmp";
}

/* Does arg name a JVM (a pid, or a main class that is no file) rather
 * than a dump? A pid in any form the other commands take is a JVM; a
 * name that is a file, holds a '/' or ends in .hprof or .gz is a dump. */
int heap_is_target(const char *arg)
{
  char err[256], *path = NULL;
  size_t n = strlen(arg);
  struct stat sb;
  int pid = 0;

  if (vm_pod_target(arg)) return 1; /* found once, by the open (core/jvm) */
  if (!vm_parse_target(arg, 0, &pid, &path, err, sizeof(err)) && pid > 0) {
    free(path);
    return 1;
  }
  free(path);
  if (!stat(arg, &sb) || strchr(arg, '/')) return 0;
  if ((n > 6 && !strcmp(arg + n - 6, ".hprof")) ||
      (n > 3 && !strcmp(arg + n - 3, ".gz")))
    return 0;
  return 1;
}

/* GC.heap_dump to o's path; 1 when the JVM said it wrote it whole. The
 * reply goes to stderr when it says anything else. */
static int ask(const struct jvm *j, struct jdk_out *o)
{
  const char *args[3] = {NULL, NULL, NULL}, *body;
  struct buf line = {0};
  char *reply = NULL, err[512];
  int written = 0;

  buf_printf(&line, "GC.heap_dump %s", o->jvm_path);
  args[0] = line.p;
  if (attach_ask_long(j, "jcmd", args, FIND_MS, REPLY_MS, &reply, err,
                      sizeof(err))) {
    error_msg("%s", err);
  } else if (!(written = jdk_out_written(reply))) {
    int status = attach_status(reply, &body);

    if (*body) {
      error_msg("pid %d did not write the dump:", j->pid);
      term_write(stderr, body, strlen(body), 1);
      if (body[strlen(body) - 1] != '\n') fputc('\n', stderr);
    } else {
      error_msg("pid %d did not write the dump (status %d)", j->pid, status);
    }
  }
  free(reply);
  buf_free(&line);
  return written;
}

int heap_take(const char *target, const char *keep, int *fd, char *what,
              size_t whatlen)
{
  struct jvm j;
  struct jdk_out o;
  struct stat sb;
  char err[512], hex[17], name[64], *out = NULL;
  int rc, dirfd = -1, slot = -1, written;
  sigset_t old;

  *fd = -1;
  if ((rc = jvm_open(&j, target, JVM_PROCESS, err, sizeof(err)))) {
    if (rc == -EPERM || rc == -E2BIG)
      error_msg("%s", err);
    else
      error_msg("cannot find '%s': %s", target, err);
    return 1;
  }
  if (jvm_check_jvm(&j, err, sizeof(err))) {
    error_msg("%s", err);
    jvm_close(&j);
    return 1;
  }
  if (!keep) { /* a new name of ours, noted before the JVM is asked */
    const char *dir = tmp_folder();

    random_hex(hex);
    snprintf(name, sizeof(name), "jvmtool-heap-%s.hprof", hex);
    out = xasprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
    dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
      perror_msg("cannot open '%s'", dir);
      free(out);
      jvm_close(&j);
      return 1;
    }
    slot = wfile_note(dirfd, name, (long long)geteuid(), NULL);
  }
  if (jdk_out_begin(&o, &j, keep ? keep : out, ".hprof")) {
    rc = 1;
    goto done;
  }
  o.quiet = keep ? 1 : 2;
  written = ask(&j, &o);
  rc = jdk_out_end(&o, written);
  if (rc || !written) {
    rc = 1;
    goto done;
  }
  if (keep) {
    *fd = open(keep, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (*fd < 0) perror_msg("cannot open '%s'", keep);
    snprintf(what, whatlen, "%s", keep);
    rc = *fd < 0;
    goto done;
  }
  /* ours: opened, checked and unlinked before the note is dropped, so a
   * signal at any point leaves nothing */
  *fd = openat(dirfd, name,
               O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
  if (*fd < 0 || fstat(*fd, &sb) || !S_ISREG(sb.st_mode) ||
      sb.st_uid != geteuid()) {
    error_msg("pid %d's dump at '%s' is not a regular file of ours", j.pid,
              out);
    if (*fd >= 0) close(*fd);
    *fd = -1;
    rc = 1;
  }
  snprintf(what, whatlen, "pid %d's live dump", j.pid);
done:
  if (!keep) {
    wfile_defer(&old);
    /* gone whatever happened (a half-written one too), while it is a
     * regular file of ours */
    if (!fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) &&
        S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
      unlinkat(dirfd, name, 0);
    wfile_unnote(slot);
    wfile_undefer(&old);
    close(dirfd);
  }
  free(out);
  jvm_close(&j);
  return rc;
}
