/* jdk_out.c - a file a JVM writes for us lands where we asked, on the host
 *
 * A heap dump (jmap -dump, jvmtool jcmd --out-file ... GC.heap_dump) names
 * a path the JVM opens itself, in its own mount namespace and as its own
 * user. A JVM that runs as our user and in whose mount namespace the
 * path's folder is the very folder it is here (core/jvm's jvm_same_path)
 * is given the host path, made absolute, as jmap gives it; the file is
 * then looked for on the host before success is said. Any other (a container, another
 * user's JVM) writes into its own /tmp under a random name; the file is
 * then taken out through core/root (root_take_at: a regular file of the
 * JVM's user with one link, removed by inode with its users' rights
 * whatever happens; root_copy_out: the size it had when the JVM said it
 * was done, no holes, at most a bound from the kernel's view of the JVM,
 * a time budget, the destination's free space) and written to the host
 * path as every -o is (core/wfile: a new file renamed over the name, gone
 * again when a signal stops us). What would refuse the file afterwards is
 * asked before the JVM is (root_take_ready, the destination), and the
 * JVM's own file is noted for a stop signal from then on: a refusal or a
 * SIGINT leaves no dump anywhere (docs/security.md §5.2).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/root.h"
#include "core/jvm.h"
#include "core/wfile.h"
#include "cmd/jdk.h"

/* How big a heap dump of j may be, from what the kernel says of it (the
 * container's own PerfData could claim any heap): twice its resident
 * memory (an hprof names each object with 8 bytes where a compressed heap
 * spends 4, so a heap of reference arrays dumps to about twice its size)
 * plus 1 GiB for class, thread and string records. 0: cannot tell. */
static uint64_t dump_bound(const struct jvm *j)
{
  struct proc_stat st;

  if (proc_stat_at(j->procfd, 0, &st)) return 0;
  return 2 * st.rss * (uint64_t)proc_page() + (1ULL << 30);
}

/* The time a copy of size bytes may take: a minute, and a second for every
 * 32 MiB (a slow disk's pace). */
static int copy_ms(uint64_t size)
{
  uint64_t ms = 60000 + (size >> 25) * 1000;

  return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Have a stop signal remove the file the JVM is asked to write (name in
 * dirfd), as r's users would (core/root's rights), and only while it is a
 * regular file of the JVM's user. */
static void note_jvm_file(struct jdk_out *o, const struct root *r, int dirfd,
                          const char *name)
{
  struct root_as as;

  if (root_as_begin(r, dirfd, -1, -1, &as)) return;
  o->slot = wfile_note(dirfd, name, o->uid, NULL);
  root_as_end(&as);
}

/* The path handed to the JVM as it is: the JVM's user (ours) must be able
 * to create it; a name not there yet is noted for a stop signal. */
static int begin_direct(struct jdk_out *o, const char *out)
{
  char cwd[PATH_MAX], *dir, *slash;
  struct stat sb;
  int n;

  if (out[0] == '/' || !getcwd(cwd, sizeof(cwd))) *cwd = 0;
  n = snprintf(o->jvm_path, sizeof(o->jvm_path), "%s%s%s", cwd,
               *cwd && strcmp(cwd, "/") ? "/" : "", out);
  if (n >= (int)sizeof(o->jvm_path)) {
    errno_msg(-ENAMETOOLONG, "cannot write '%s'", out);
    return 1;
  }
  dir = xstrdup(o->jvm_path);
  slash = strrchr(dir, '/');
  slash[slash == dir] = 0;
  o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (o->dirfd < 0 || faccessat(o->dirfd, ".", W_OK | X_OK, AT_EACCESS)) {
    errno_msg(-errno, "cannot write '%s'", out);
    if (o->dirfd >= 0) close(o->dirfd);
    o->dirfd = -1;
    return 1;
  }
  if (fstatat(o->dirfd, strrchr(o->jvm_path, '/') + 1, &sb,
              AT_SYMLINK_NOFOLLOW) &&
      errno == ENOENT)
    o->slot = wfile_note(o->dirfd, strrchr(o->jvm_path, '/') + 1, o->uid, NULL);
  return 0;
}

int jdk_out_begin(struct jdk_out *o, const struct jvm *j, const char *out,
                  const char *suffix)
{
  char hex[17];
  int rc;

  memset(o, 0, sizeof(*o));
  o->j = j;
  o->pid = j->pid;
  o->out = out;
  o->bound = dump_bound(j);
  o->uid = j->st.euid;
  o->dirfd = o->slot = -1;
  /* the path means the same folder where the JVM opens it (a PrivateTmp
   * JVM shares our "/" but not our /tmp) */
  if (j->st.euid == geteuid() && jvm_same_path(j, out))
    return begin_direct(o, out);
  /* Everything that could refuse the take-out is asked before the JVM
   * is: a dump the JVM wrote and we then refused stayed in its /tmp. */
  if (j->tmpfd < 0) {
    error_msg("pid %d: cannot open its /tmp: nothing asked", j->pid);
    return 1;
  }
  if ((rc = root_take_ready(&j->root, j->tmpfd, j->st.euid, j->st.egid))) {
    if (rc == -EXDEV)
      error_msg("pid %d: its /tmp is a folder none of its container's users "
                "own: a dump there could not be taken out (nothing asked)",
                j->pid);
    else
      errno_msg(rc, "pid %d: its user cannot write its /tmp (nothing asked)",
                j->pid);
    return 1;
  }
  /* a heap dump holds the JVM's secrets: only we read it, as the JVM's
   * own dump is only its user's; opened now, so a folder that cannot be
   * written fails before the JVM works */
  if ((rc = wfile_open_mode(&o->w, out, 0600)) ||
      (rc = root_room(o->w.fd, 1))) {
    if (rc == -ENOSPC)
      error_msg("cannot write '%s': its file system is full", out);
    else
      errno_msg(rc, "cannot write '%s'", out);
    wfile_abort(&o->w);
    return 1;
  }
  random_hex(hex);
  o->taken = 1;
  snprintf(o->jvm_path, sizeof(o->jvm_path), "/tmp/jvmtool-dump-%s%s", hex,
           suffix);
  note_jvm_file(o, &j->root, j->tmpfd, o->jvm_path + 5);
  return 0;
}

/* Did the JVM say it wrote the dump? JDK 17 and 25 answer status 0 also
 * for "Unable to create ...", and "Heap dump file created [...]" only when
 * the file is whole. */
int jdk_out_written(const char *reply)
{
  return reply && strstr(reply, "\nHeap dump file created [") != NULL;
}

int jdk_out_end(struct jdk_out *o, int written)
{
  uint64_t copied = 0, size = 0, max, now;
  int fd, rc;

  if (!o->taken) {
    struct stat sb;

    wfile_unnote(o->slot);
    if (o->dirfd >= 0) close(o->dirfd);
    o->dirfd = o->slot = -1;
    if (!written) return 1;
    /* what the JVM says it wrote must be there, on this host */
    if (stat(o->jvm_path, &sb) || !S_ISREG(sb.st_mode)) {
      error_msg("pid %d said it wrote '%s', but this host has no such file",
                o->pid, o->jvm_path);
      return 1;
    }
    return 0;
  }
  if (!written) { /* a half-written file goes too */
    wfile_abort(&o->w);
    if (!root_take_at(&o->j->root, o->j->tmpfd, o->jvm_path + 5, o->uid, &fd))
      close(fd);
    wfile_unnote(o->slot);
    return 1;
  }
  /* the JVM is larger now than before, if anything: the larger bound */
  max = o->bound;
  if ((now = dump_bound(o->j)) > max) max = now;
  rc = root_take_at(&o->j->root, o->j->tmpfd,
                    o->jvm_path + 5 /* after "/tmp/" */, o->uid, &fd);
  wfile_unnote(o->slot); /* taken: gone from its /tmp (or refused) */
  if (!rc) {
    struct stat sb;

    rc = fstat(fd, &sb)
             ? -errno
             : root_copy_out(fd, o->w.fd, max, copy_ms((uint64_t)sb.st_size),
                             &size, &copied);
    close(fd);
  }
  if (rc) {
    wfile_abort(&o->w);
    if (rc == -EFBIG)
      error_msg("pid %d: its '%s' has %" PRIu64 " bytes, over %" PRIu64
                " (twice its resident memory and 1 GiB): not copied",
                o->pid, o->jvm_path, size, max);
    else if (rc == -ENOSPC)
      error_msg("cannot write '%s': not enough free space for %" PRIu64
                " bytes (%" PRIu64 " copied, removed)",
                o->out, size, copied);
    else if (rc == -ETIMEDOUT)
      error_msg("pid %d: copying its '%s' took too long (%" PRIu64
                " of %" PRIu64 " bytes): stopped",
                o->pid, o->jvm_path, copied, size);
    else
      error_msg("pid %d: cannot take its '%s': %s", o->pid, o->jvm_path,
                root_check_msg(rc, S_IFREG));
    return 1;
  }
  if ((rc = wfile_commit(&o->w))) {
    errno_msg(rc, "cannot write '%s'", o->out);
    return 1;
  }
  if (o->quiet < 2)
    fprintf(o->quiet ? stderr : stdout,
            "Heap dump moved from pid %d's %s to %s [%" PRIu64 " bytes]\n",
            o->pid, o->jvm_path, o->out, copied);
  return 0;
}
