/* jcmd_out.c - a file a JVM writes for us lands where we asked, on the host
 *
 * A heap dump (jmap -dump, jvmtool jcmd --out-file ... GC.heap_dump) names
 * a path the JVM opens itself, in its own mount namespace and as its own
 * user. A JVM that sees our "/" and runs as our user is given the host
 * path, made absolute, as jmap gives it. Any other (a container, another
 * user's JVM) writes into its own /tmp under a random name; the file is
 * then taken out through core/root (root_take_tmp: a regular file of the
 * JVM's user with one link, removed by inode whatever happens, at most a
 * bound from the heap's size) and written to the host path as every -o is
 * (core/wfile: a new file renamed over the name).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "core/attach.h"
#include "core/perfdata.h"
#include "core/root.h"
#include "core/vm.h"
#include "core/wfile.h"
#include "cmd/jcmd.h"

/* Without PerfData to size the heap, a dump is cut at this many bytes. */
#define DUMP_CAP (64ULL << 30)

/* How big a heap dump of v may be: twice the generations' maximum sizes
 * (an hprof names each object with 8 bytes where a compressed heap spends
 * 4, so a heap of reference arrays dumps to about twice its size; G1 counts
 * its heap in both generations, which only widens the bound) plus 1 GiB
 * for class, thread and string records. DUMP_CAP without PerfData. */
static uint64_t dump_bound(int pid)
{
  char name[64];
  struct perfdata pd;
  struct vm v;
  uint64_t heap = 0;

  if (!vm_resolve_pid(pid, &v, name, sizeof(name)) && !vm_open(&v, &pd)) {
    for (int g = 0; g < 4; g++) {
      const struct pd_counter *c;

      snprintf(name, sizeof(name), "sun.gc.generation.%d.maxCapacity", g);
      if ((c = pd_find(&pd, name)) && pd_long(&pd, c) > 0)
        heap += (uint64_t)pd_long(&pd, c) & ((1ULL << 48) - 1);
    }
    pd_close(&pd);
  }
  vm_free(&v);
  return heap ? 2 * heap + (1ULL << 30) : DUMP_CAP;
}

int jcmd_out_begin(struct jcmd_out *o, const struct vm *v, const char *out,
                   const char *suffix)
{
  struct attach_target t;
  struct root r;
  char hex[17], cwd[PATH_MAX];
  int same, rc;

  memset(o, 0, sizeof(*o));
  o->pid = v->pid;
  o->out = out;
  o->bound = dump_bound(v->pid);
  if (attach_target(&t, v) || root_open(v->pid, &r)) return -ESRCH;
  same = r.same;
  root_close(&r);
  o->uid = t.st.euid;
  if (same && t.st.euid == geteuid()) {
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
int jcmd_out_written(const char *reply)
{
  return reply && strstr(reply, "\nHeap dump file created [") != NULL;
}

int jcmd_out_end(struct jcmd_out *o, int written)
{
  uint64_t copied = 0, max;
  int fd, rc;

  if (!o->taken) return !written;
  if (!written) { /* a half-written file goes too */
    wfile_abort(&o->w);
    if (!root_take_tmp(o->pid, o->jvm_path + 5, o->uid, -1, 0, NULL, &fd))
      close(fd);
    return 1;
  }
  max = o->bound;
  rc = root_take_tmp(o->pid, o->jvm_path + 5 /* after "/tmp/" */, o->uid,
                     o->w.fd, max, &copied, &fd);
  if (rc) {
    wfile_abort(&o->w);
    if (rc == -EFBIG)
      error_msg("pid %d: its '%s' is over %" PRIu64 " bytes (the bound "
                "from its heap's size): not copied",
                o->pid, o->jvm_path, max);
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
