/* vm.c - unit tests of core/vm: lock state, target resolution, listing,
 * the attach capability, the main class */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "core/jvm.h"
#include "core/perfdata.h"
#include "core/vm.h"
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include "check.h"
#include "pdwriter.h"

static void test_flock(const char *dir)
{
  char *path = xasprintf("%s/locked", dir);
  int fd = open(path, O_RDWR | O_CREAT, 0600);
  struct stat sb;

  fstat(fd, &sb);
  CHECK_INT(vm_flock_held(sb.st_dev, sb.st_ino), 0, "vm-1.1 no lock yet");
  flock(fd, LOCK_EX);
  CHECK_INT(vm_flock_held(sb.st_dev, sb.st_ino), 1, "vm-1.2 LOCK_EX seen");
  flock(fd, LOCK_UN);
  flock(fd, LOCK_SH);
  CHECK_INT(vm_flock_held(sb.st_dev, sb.st_ino), 1, "vm-1.3 LOCK_SH seen");
  close(fd);
  CHECK_INT(vm_flock_held(sb.st_dev, sb.st_ino), 0, "vm-1.4 gone on close");
  unlink(path);
  free(path);
}

static void test_open(const char *dir)
{
  char err[256] = "", *path = xasprintf("%s/hsperfdata_u/4242", dir);
  char *uri = xasprintf("file://%s", path),
       *sub = xasprintf("%s/hsperfdata_u", dir);
  struct jvm j;
  int fd;

  mkdir(sub, 0700);
  fd = open(path, O_WRONLY | O_CREAT, 0600);
  (void)!write(fd, "x", 1);
  close(fd);
  CHECK_INT(jvm_open(&j, path, 0, err, sizeof(err)), 0, "vm-2.1 a path");
  CHECK_STR(j.vm.path, path, "vm-2.2 the path itself");
  CHECK_INT(j.pid, 0, "vm-2.2b a file alone: no process");
  jvm_close(&j);
  CHECK_INT(jvm_open(&j, uri, 0, err, sizeof(err)), 0, "vm-2.3 file:// URI");
  CHECK_STR(j.vm.path, path, "vm-2.4 URI to path");
  jvm_close(&j);
  CHECK_INT(jvm_open(&j, "/nonexistent/x", 0, err, sizeof(err)), -ENOENT,
            "vm-2.5 missing file");
  CHECK(*err, "vm-2.6 says why: %s", err);
  CHECK_INT(jvm_open(&j, "2147483", 0, err, sizeof(err)), -ESRCH,
            "vm-2.7 no such process");
  CHECK_INT(jvm_open(&j, path, JVM_PROCESS, err, sizeof(err)), -ESRCH,
            "vm-2.7b a file for a command that needs its process: whose?");
  CHECK_INT(jvm_open(&j, "NoSuchMainClassAnywhere", 0, err, sizeof(err)),
            -ESRCH, "vm-2.7c a main class that names no JVM");
  CHECK_STR(err, "no JVM matches 'NoSuchMainClassAnywhere'", "vm-2.7d says so");
  /* we are no JVM: a live pid, no PerfData, nothing may be aimed at us */
  char me[16];

  snprintf(me, sizeof(me), "%d", (int)getpid());
  CHECK_INT(jvm_open(&j, me, JVM_PROCESS, err, sizeof(err)), 0,
            "vm-2.8 a live pid opens");
  CHECK_INT(j.is_jvm, JVM_NOT, "vm-2.9 ... and is no JVM (no libjvm.so)");
  CHECK(!j.vm.path, "vm-2.10 ... with no PerfData file");
  CHECK_INT(jvm_check_jvm(&j, err, sizeof(err)), -EPERM,
            "vm-2.11 nothing may be aimed at it");
  CHECK(strstr(err, "is not a JVM (it maps no libjvm.so): nothing sent") !=
            NULL,
        "vm-2.12 one line: %s", err);
  CHECK_INT(jvm_signal(&j, SIGQUIT), -EPERM, "vm-2.13 no signal sent");
  CHECK_INT(attach_check(&j, err, sizeof(err)), ATTACH_NOTJVM,
            "vm-2.14 attach refuses it before anything");
  CHECK(jvm_alive(&j), "vm-2.15 alive");
  jvm_close(&j);
  unlink(path);
  rmdir(sub);
  free(uri);
  free(path);
  free(sub);
}

/* proc_jvm_maps: a PerfData-shaped file we map shared is ours by inode
 * (or, another device, by its name: an overlay); one we do not map, or
 * whose inode differs, is not; a libjvm.so counts when executable only. */
static void test_maps_file(const char *dir)
{
  char *d = xasprintf("%s/hsperfdata_unit", dir),
       *path = xasprintf("%s/4242", d), *other = xasprintf("%s/4243", d),
       *lib = xasprintf("%s/libjvm.so", dir);
  struct proc_jvm_maps m;
  struct stat sb, osb;
  int fd, ofd, lfd, self;
  void *p, *l;

  mkdir(d, 0700);
  fd = open(path, O_RDWR | O_CREAT, 0600);
  (void)!ftruncate(fd, 4096);
  fstat(fd, &sb);
  ofd = open(other, O_RDWR | O_CREAT, 0600);
  fstat(ofd, &osb);
  lfd = open(lib, O_RDWR | O_CREAT, 0700);
  (void)!ftruncate(lfd, 4096);
  self = open("/proc/self", O_PATH | O_DIRECTORY);
  CHECK_INT(proc_jvm_maps(self, "maps", &m), 0, "vm-5.1 our maps read");
  CHECK(!proc_jvm_maps_file(&m, sb.st_dev, sb.st_ino, path),
        "vm-5.2 not mapped yet: not ours");
  CHECK_INT(m.libjvm, 0, "vm-5.3 no libjvm.so in a unit test");
  p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  l = mmap(NULL, 4096, PROT_READ, MAP_SHARED, lfd, 0);
  proc_jvm_maps(self, "maps", &m);
  CHECK_INT(m.nperf, 1, "vm-5.4 one PerfData-shaped mapping");
  CHECK_INT(m.perf[0].name, 4242, "vm-5.5 ... named by its pid");
  CHECK_STR(m.perf[0].user, "unit", "vm-5.6 ... and its user");
  CHECK(proc_jvm_maps_file(&m, sb.st_dev, sb.st_ino, path) != NULL,
        "vm-5.7 mapped: ours");
  CHECK(!proc_jvm_maps_file(&m, osb.st_dev, osb.st_ino, other),
        "vm-5.8 another file of the same folder: not ours");
  CHECK(proc_jvm_maps_file(&m, sb.st_dev + 1, sb.st_ino, path) != NULL,
        "vm-5.9 another device, same inode and path (an overlay): ours");
  CHECK(!proc_jvm_maps_file(&m, sb.st_dev + 1, sb.st_ino, other),
        "vm-5.10 another device, same inode, another path: not ours");
  CHECK_INT(m.libjvm, 0,
            "vm-5.11 a libjvm.so mapped shared, not executable: "
            "no JVM (a renamed file)");
  munmap(l, 4096);
  l = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, lfd, 0);
  proc_jvm_maps(self, "maps", &m);
  CHECK_INT(m.libjvm, l != MAP_FAILED, "vm-5.12 mapped executable: a libjvm");
  if (l != MAP_FAILED) munmap(l, 4096);
  munmap(p, 4096);
  close(self);
  close(fd);
  close(ofd);
  close(lfd);
  unlink(path);
  unlink(other);
  unlink(lib);
  rmdir(d);
  free(d);
  free(path);
  free(other);
  free(lib);
}

/* root_mounts_hostile on a mountinfo text: a served file system on the way
 * to /tmp, below it, or holding a device, is hostile; the kernel's own
 * are not; optional fields and escaped mount points parse. */
static void test_mounts(void)
{
  static const char text[] =
      "20 1 0:20 / / rw shared:1 master:2 - overlay overlay rw\n"
      "21 20 0:21 / /tmp rw - tmpfs tmpfs rw\n"
      "22 21 0:55 / /tmp/a\\040b rw shared:9 - fuse.sshfs host:/x rw\n"
      "23 20 0:56 / /srv rw - fuse hang rw\n"
      "24 20 8:1 /var/lib /data rw - ext4 /dev/sda1 rw\n";
  struct root_mounts m = {(char *)text, sizeof(text) - 1}, n;
  char why[192];

  CHECK_INT(root_mounts_hostile(&m, "/tmp", 0, why, sizeof(why)), 1,
            "vm-6.1 a fuse.sshfs mount below /tmp: hostile");
  CHECK_STR(why, "a fuse.sshfs mount in its /tmp (/tmp/a b)",
            "vm-6.2 ... said with its type and (unescaped) mount point");
  CHECK_INT(root_mounts_hostile(&m, "/data/tmp", 0, why, sizeof(why)), 0,
            "vm-6.3 ext4 and overlay: the kernel's own");
  CHECK_INT(root_mounts_hostile(&m, "/srv/tmp", 0, why, sizeof(why)), 1,
            "vm-6.4 a /tmp on a fuse mount: hostile");
  CHECK_INT(root_mounts_hostile(&m, "/data", makedev(0, 56), why, sizeof(why)),
            1, "vm-6.5 a file on the fuse mount's device: hostile");
  CHECK_INT(root_mounts_hostile(&m, "/srvx", 0, why, sizeof(why)), 0,
            "vm-6.6 /srvx is not under /srv");
  n = m;
  CHECK_INT(root_mounts_same_root(&m, &n), 1, "vm-6.7 the same / is the same");
  n.len = 0;
  CHECK_INT(root_mounts_same_root(&m, &n), 0, "vm-6.8 no / (a chroot): not");
}

/* A process that exits between the walk's read of its maps and its
 * mounts (a zombie: no namespaces, its mountinfo says EINVAL) is gone,
 * not a process whose mounts are hostile (ps printed "its mounts cannot
 * be read: Invalid argument" for one). */
static void test_exited(void)
{
  struct vm_seen seen = {0};
  siginfo_t si;
  pid_t pid = fork();
  int procfd;

  if (pid == 0) _exit(0);
  CHECK(pid > 0 && !waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT),
        "vm-7.0 a zombie to look at");
  procfd = proc_open(pid);
  seen.maps.nperf = 1; /* what the walk saw before it exited */
  CHECK_INT(vm_see(procfd, 1, &seen), -ESRCH,
            "vm-7.1 a process that exited after its maps were read: gone");
  CHECK_STR(seen.hostile, "", "vm-7.2 ... and not said to be hostile");
  if (procfd >= 0) close(procfd);
  waitpid(pid, NULL, 0);
}

static void test_list(void)
{
  struct vm *v;
  size_t n;
  int sorted = 1, self = 0;

  CHECK_INT(vm_list(&v, &n), 0, "vm-3.1 list");
  for (size_t i = 1; i < n; i++) sorted &= v[i - 1].pid < v[i].pid;
  CHECK(sorted, "vm-3.2 sorted by pid, each once (%zu JVMs)", n);
  for (size_t i = 0; i < n; i++) self |= v[i].pid == getpid();
  CHECK(!self, "vm-3.3 never ourselves");
  vm_list_free(v, n);
}

/* A PerfData file with this sun.rt.jvmCapabilities (NULL: none), as the
 * user names it (a path). */
static int attachable(const char *dir, const char *caps)
{
  char *path = xasprintf("%s/caps", dir), err[256];
  struct pdw w;
  struct jvm j;
  int rc;

  pdw_init(&w, 4096, 0);
  pdw_long(&w, "sun.os.hrt.frequency", 6, 1, 1000000000);
  if (caps) pdw_string(&w, "sun.rt.jvmCapabilities", 1, caps, 65);
  pdw_finish(&w);
  pdw_save(&w, path);
  free(w.p);
  rc = jvm_open(&j, path, 0, err, sizeof(err));
  if (!rc) rc = vm_attachable(j.pd);
  if (!rc) CHECK_INT(j.off, 1, "vm-4.0 jvm_open read it too");
  jvm_close(&j);
  unlink(path);
  free(path);
  return rc;
}

static void test_attachable(const char *dir)
{
  char on[65], off[65];

  memset(on, '0', 64);
  on[64] = 0;
  memcpy(off, on, sizeof(on));
  on[0] = on[1] = '1';
  off[1] = '1';
  CHECK_INT(attachable(dir, on), 1, "vm-4.1 '1100...': attach on");
  CHECK_INT(attachable(dir, off), 0,
            "vm-4.2 '0100...': -XX:+DisableAttachMechanism");
  CHECK_INT(attachable(dir, NULL), -ENOENT, "vm-4.3 no counter: cannot tell");
  CHECK_INT(attachable(dir, ""), -ENOENT, "vm-4.4 an empty one neither");
}

/* A row opened as listed (jvm_open_listed): a stale file under a pid
 * that is alive again (ours) is a file alone, its pid's /proc folder not
 * opened; it is read, its row taken, and nothing may be aimed at it. */
static void test_listed(const char *dir)
{
  char *path = xasprintf("%s/listed", dir), err[256];
  struct pdw w;
  struct vm row;
  struct jvm j;

  pdw_init(&w, 4096, 0);
  pdw_long(&w, "sun.os.hrt.frequency", 6, 1, 1000000000);
  pdw_finish(&w);
  pdw_save(&w, path);
  free(w.p);
  vm_init(&row);
  row.pid = getpid(); /* a reused pid: the file is no longer its */
  row.alive = 0;
  row.path = xstrdup(path);
  row.file = xstrdup(path);
  jvm_open_listed(&j, &row);
  CHECK(!row.path && !row.file, "vm-8.1 the row is taken");
  CHECK_INT(j.procfd, -1, "vm-8.2 a stale file: no /proc folder opened");
  CHECK_INT(j.pid, (int)getpid(), "vm-8.3 ... named by its file's pid");
  CHECK_INT(jvm_read(&j, err, sizeof(err)), 0, "vm-8.4 its PerfData read");
  CHECK(j.pd && pd_find(j.pd, "sun.os.hrt.frequency"),
        "vm-8.5 ... and kept in j->pd");
  CHECK_INT(jvm_check_jvm(&j, err, sizeof(err)), -EPERM,
            "vm-8.6 nothing may be aimed at a listed JVM");
  CHECK(strstr(err, "was listed, not opened: nothing sent") != NULL,
        "vm-8.7 says so: %s", err);
  CHECK_INT(jvm_signal(&j, SIGQUIT), -EPERM, "vm-8.8 no signal sent");
  jvm_close(&j);
  unlink(path);
  free(path);
}

static void test_main_class(void)
{
  static const char *const cases[][3] = {
      /* sun.rt.javaCommand, jps's, jps -l's (docs/jvmstat.md §3.3) */
      {"com.example.Main a1 b 2", "Main", "com.example.Main"},
      {"/srv/app.jar x y", "app.jar", "/srv/app.jar"},
      {"hello/com.ex.M m1", "M", "hello/com.ex.M"},
      {"/app.jar x", "/app.jar", "/app.jar"},
      {" lead", " lead", " lead"},
      {"", "", ""},
      {"C:\\app\\run.jar a", "run.jar", "C:\\app\\run.jar"},
      {"x.jarx", "jarx", "x.jarx"},
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const char *cmd = cases[i][0];
    size_t n = vm_main_class(cmd, strlen(cmd)), at, m;
    char *cls = xstrndup(cmd, n), *main;

    /* main: the short form, computed from the main class alone */
    m = vm_main(cls, n, &at);
    main = xstrndup(cls + at, m);
    CHECK_STR(main, cases[i][1], "vm-5.%zu main of '%s'", 2 * i + 1, cmd);
    CHECK_STR(cls, cases[i][2], "vm-5.%zu main_class of '%s'", 2 * i + 2, cmd);
    free(main);
    free(cls);
  }
}

int main(void)
{
  char dir[] = "/tmp/jvmtool-vm.XXXXXX";

  if (!mkdtemp(dir)) return 1;
  test_flock(dir);
  test_open(dir);
  test_maps_file(dir);
  test_mounts();
  test_exited();
  test_list();
  test_attachable(dir);
  test_listed(dir);
  test_main_class();
  rmdir(dir);
  return check_failures != 0;
}
