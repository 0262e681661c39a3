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
 * again when a signal stops us).
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

  if (proc_stat(j->pid, 0, &st)) return 0;
  return 2 * st.rss * (uint64_t)proc_page() + (1ULL << 30);
}

/* The time a copy of size bytes may take: a minute, and a second for every
 * 32 MiB (a slow disk's pace). */
static int copy_ms(uint64_t size)
{
  uint64_t ms = 60000 + (size >> 25) * 1000;

  return ms > INT_MAX ? INT_MAX : (int)ms;
}

int jdk_out_begin(struct jdk_out *o, const struct jvm *j, const char *out,
                  const char *suffix)
{
  char hex[17], cwd[PATH_MAX];
  int rc;

  memset(o, 0, sizeof(*o));
  o->j = j;
  o->pid = j->pid;
  o->out = out;
  o->bound = dump_bound(j);
  o->uid = j->st.euid;
  /* the path means the same folder where the JVM opens it (a PrivateTmp
   * JVM shares our "/" but not our /tmp) */
  if (j->st.euid == geteuid() && jvm_same_path(j, out)) {
    int n;

    if (out[0] == '/' || !getcwd(cwd, sizeof(cwd))) *cwd = 0;
    n = snprintf(o->jvm_path, sizeof(o->jvm_path), "%s%s%s", cwd,
                 *cwd && strcmp(cwd, "/") ? "/" : "", out);
    return n < (int)sizeof(o->jvm_path) ? 0 : -ENAMETOOLONG;
  }
  /* a heap dump holds the JVM's secrets: only we read it, as the JVM's
   * own dump is only its user's; opened now, so a folder that cannot be
   * written fails before the JVM works */
  if ((rc = wfile_open_mode(&o->w, out, 0600))) return rc;
  random_hex(hex);
  o->taken = 1;
  snprintf(o->jvm_path, sizeof(o->jvm_path), "/tmp/jvmtool-dump-%s%s", hex,
           suffix);
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
    return 1;
  }
  /* the JVM is larger now than before, if anything: the larger bound */
  max = o->bound;
  if ((now = dump_bound(o->j)) > max) max = now;
  rc = root_take_at(&o->j->root, o->j->tmpfd,
                    o->jvm_path + 5 /* after "/tmp/" */, o->uid, &fd);
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
  printf("Heap dump moved from pid %d's %s to %s [%" PRIu64 " bytes]\n", o->pid,
         o->jvm_path, o->out, copied);
  return 0;
}
