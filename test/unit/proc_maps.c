/* proc_maps.c - unit tests of core/proc's maps readers: the PROCMAP_QUERY
 * ioctl and the text of /proc/<pid>/maps say the same of every process
 *
 * The text way is forced on the same process (PROC_MAPS_TEXT), and taken
 * by itself on a copy of its maps (a regular file: the ioctl says ENOTTY).
 * 1. Our own mappings made to look like a JVM's: a PerfData-shaped file
 *    renamed and one deleted, more of them than PROC_JVM_PERF, a name
 *    longer than the kept path, a newline in a name, a libjvm.so mapped
 *    without exec and with it; proc_maps_has by device and inode.
 * 2. Every process in /proc, and a real JVM started here.
 * 3. A process of 25000 mappings more (a hostile one may have 65530).
 * On a kernel without the ioctl (before 6.11) the query cases say SKIP.
 */
#include "core/jvmtool.h"
#include "check.h"
#include <signal.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

static int have_query;

/* a and b, field by field; the first difference into why */
static int same(const struct proc_jvm_maps *a, const struct proc_jvm_maps *b,
                char *why, size_t n)
{
  if (a->libjvm != b->libjvm || a->libjvm_data != b->libjvm_data ||
      a->nperf != b->nperf) {
    snprintf(why, n, "libjvm %d/%d, data %d/%d, nperf %d/%d", a->libjvm,
             b->libjvm, a->libjvm_data, b->libjvm_data, a->nperf, b->nperf);
    return 0;
  }
  for (int i = 0; i < a->nperf; i++) {
    const struct proc_perf_map *p = &a->perf[i], *q = &b->perf[i];

    if (p->maj != q->maj || p->min != q->min || p->ino != q->ino ||
        p->name != q->name || strcmp(p->user, q->user) ||
        strcmp(p->path, q->path)) {
      snprintf(why, n,
               "perf[%d]: %u:%u %llu %d '%s' '%s' / %u:%u %llu %d "
               "'%s' '%s'",
               i, p->maj, p->min, (unsigned long long)p->ino, p->name, p->user,
               p->path, q->maj, q->min, (unsigned long long)q->ino, q->name,
               q->user, q->path);
      return 0;
    }
  }
  return 1;
}

/* Read the maps at dirfd/path both ways into q and t. 0, or -errno. */
static int both(int dirfd, const char *path, struct proc_jvm_maps *q,
                struct proc_jvm_maps *t)
{
  int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC), rc;

  if (fd < 0) return -errno;
  rc = proc_jvm_maps_fd(fd, PROC_MAPS_QUERY, q);
  close(fd);
  if (rc) return rc;
  if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0) return -errno;
  rc = proc_jvm_maps_fd(fd, PROC_MAPS_TEXT, t);
  close(fd);
  return rc;
}

/* The maps of dirfd/path copied into the regular file copy. 0 or -1. */
static int copy_maps(int dirfd, const char *path, const char *copy)
{
  int in = openat(dirfd, path, O_RDONLY | O_CLOEXEC), out;
  char b[65536];
  ssize_t r;

  if (in < 0) return -1;
  if ((out = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
    close(in);
    return -1;
  }
  while ((r = read(in, b, sizeof(b))) > 0)
    if (write(out, b, (size_t)r) != r) r = -1;
  close(in);
  close(out);
  return r < 0 ? -1 : 0;
}

/* The two ways agree on dirfd/path, asked up to 5 times (a process may
 * map or unmap between the two reads). Sets *m to the query's answer. */
static int agree(int dirfd, const char *path, struct proc_jvm_maps *m,
                 char *why, size_t n)
{
  struct proc_jvm_maps t;
  int rc = 0;

  for (int k = 0; k < 5; k++) {
    if ((rc = both(dirfd, path, m, &t))) {
      snprintf(why, n, "read: %s", strerror(-rc));
      return rc;
    }
    if (same(m, &t, why, n)) return 0;
  }
  return 1;
}

static void *map_file(const char *path, int prot, int flags, size_t len)
{
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0700);
  void *p;

  if (fd < 0) return MAP_FAILED;
  (void)!ftruncate(fd, (off_t)len);
  p = mmap(NULL, len, prot, flags, fd, 0);
  close(fd);
  return p;
}

static void test_self(const char *dir)
{
  char *d = xasprintf("%s/hsperfdata_unit", dir),
       *nl = xasprintf("%s/hsperfdata_a\nb", dir),
       *longd = xasprintf("%s/%0150d", dir, 0),
       *longd2 = xasprintf("%s/%0150d", longd, 1),
       *longp = xasprintf("%s/hsperfdata_unit", longd2),
       *lib = xasprintf("%s/libjvm.so", dir),
       *copy = xasprintf("%s/maps.copy", dir), *f[9], why[512];
  struct proc_jvm_maps m, t;
  struct stat sb, lsb;
  void *p[9], *l;
  int self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

  mkdir(d, 0700);
  mkdir(nl, 0700);
  mkdir(longd, 0700);
  mkdir(longd2, 0700);
  mkdir(longp, 0700);
  /* 0: renamed after it was mapped; 1: deleted; 2-5: four more (one too
   * many); 6: a newline in its user; 7: a path past the kept 256 bytes */
  for (int i = 0; i < 6; i++) f[i] = xasprintf("%s/%d", d, 4240 + i);
  f[6] = xasprintf("%s/77", nl);
  f[7] = xasprintf("%s/78", longp);
  for (int i = 0; i < 8; i++)
    p[i] = map_file(f[i], PROT_READ | PROT_WRITE, MAP_SHARED, 4096);
  stat(f[0], &sb);
  f[8] = xasprintf("%s/5555", d);
  rename(f[0], f[8]);
  unlink(f[1]);

  CHECK_INT(agree(self, "maps", &m, why, sizeof(why)), 0,
            "pm-1.1 our maps: the query says what the text says (%s)", why);
  CHECK_INT(m.nperf, PROC_JVM_PERF,
            "pm-1.2 the first %d PerfData-shaped mappings kept", PROC_JVM_PERF);
  for (int i = 2; i < 6; i++) munmap(p[i], 4096);
  CHECK_INT(agree(self, "maps", &m, why, sizeof(why)), 0,
            "pm-1.3 after unmapping: both agree (%s)", why);
  {
    int renamed = 0, deleted = 0;

    for (int i = 0; i < m.nperf; i++) {
      renamed |= m.perf[i].name == 5555 && m.perf[i].ino == sb.st_ino;
      deleted |= m.perf[i].name == 4241;
    }
    CHECK(renamed, "pm-1.4 a renamed mapping: its current name, its inode");
    CHECK(!deleted, "pm-1.5 a deleted one (\" (deleted)\") is no PerfData "
                    "name");
  }
  {
    int nlseen = 0, longseen = 0;

    for (int i = 0; i < m.nperf; i++) {
      nlseen |= !strcmp(m.perf[i].user, "a\\012b") && m.perf[i].name == 77;
      longseen |= m.perf[i].name == 78 && !m.perf[i].path[0] &&
                  !strcmp(m.perf[i].user, "unit");
    }
    CHECK(nlseen, "pm-1.6 a newline in a name: as maps prints it (\\012)");
    CHECK(longseen, "pm-1.7 a path longer than kept: \"\", its name read");
  }
  CHECK_INT(m.libjvm + m.libjvm_data, 0, "pm-1.8 no libjvm.so yet");

  l = map_file(lib, PROT_READ, MAP_PRIVATE, 4096);
  stat(lib, &lsb);
  CHECK_INT(agree(self, "maps", &m, why, sizeof(why)), 0,
            "pm-1.9 a libjvm.so mapped without exec: both agree (%s)", why);
  CHECK(!m.libjvm && m.libjvm_data,
        "pm-1.10 ... it is libjvm_data, not libjvm");
  munmap(l, 4096);
  l = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
           fd = open(lib, O_RDONLY | O_CLOEXEC), 0);
  close(fd);
  CHECK_INT(agree(self, "maps", &m, why, sizeof(why)), 0,
            "pm-1.11 a libjvm.so mapped with exec: both agree (%s)", why);
  CHECK(l == MAP_FAILED || (m.libjvm && !m.libjvm_data),
        "pm-1.12 ... it is libjvm");

  proc_perf_maps(self, "maps", &t);
  CHECK(same(&m, &t, why, sizeof(why)),
        "pm-1.13 the walk's reader, of a process with PerfData mappings: the "
        "same (%s)",
        why);

  /* the query as the commands take it, against the text */
  CHECK(proc_maps_has(self, "maps", sb.st_dev, sb.st_ino) == 1,
        "pm-1.14 proc_maps_has: a mapped file, by device and inode");
  CHECK(proc_maps_has(self, "maps", lsb.st_dev, lsb.st_ino) ==
            (l != MAP_FAILED),
        "pm-1.15 proc_maps_has: the libjvm.so");
  CHECK(proc_maps_has(self, "maps", sb.st_dev + 1, sb.st_ino) == 0,
        "pm-1.16 proc_maps_has: same inode, another device: no");
  fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  CHECK_INT(proc_maps_has_fd(fd, PROC_MAPS_TEXT, sb.st_dev, sb.st_ino), 1,
            "pm-1.17 proc_maps_has by the text: the same");
  close(fd);

  /* a copy: a regular file, so the ioctl says so and the text is read */
  CHECK_INT(copy_maps(self, "maps", copy), 0, "pm-1.18 our maps copied");
  fd = open(copy, O_RDONLY | O_CLOEXEC);
  CHECK_INT(proc_jvm_maps_fd(fd, PROC_MAPS_QUERY, &t), -ENOTTY,
            "pm-1.19 a copy of maps: no query (ENOTTY)");
  close(fd);
  proc_jvm_maps(AT_FDCWD, copy, &t);
  CHECK(same(&m, &t, why, sizeof(why)),
        "pm-1.20 the copy read the ordinary way: the text's answer (%s)", why);
  CHECK(proc_maps_has(AT_FDCWD, copy, sb.st_dev, sb.st_ino) == 1,
        "pm-1.21 proc_maps_has of the copy: by its text");

  if (l != MAP_FAILED) munmap(l, 4096);
  for (int i = 0; i < 8; i++)
    if (i < 2 || i > 5) munmap(p[i], 4096);
  for (int i = 0; i < 9; i++) {
    unlink(f[i]);
    free(f[i]);
  }
  unlink(lib);
  unlink(copy);
  rmdir(d);
  rmdir(nl);
  rmdir(longp);
  rmdir(longd2);
  rmdir(longd);
  close(self);
  free(d);
  free(nl);
  free(longd);
  free(longp);
  free(longd2);
  free(lib);
  free(copy);
}

/* Many mappings (a hostile process may have 65530): 20000 anonymous ones
 * (one region, every other page's protection changed) and 5000 shared
 * mappings of one PerfData-shaped file: both ways agree, at most
 * PROC_JVM_PERF kept. */
static void test_many(const char *dir)
{
  enum { ANON = 20000, FILES = 5000 };
  char *d = xasprintf("%s/hsperfdata_many", dir), *f = xasprintf("%s/99", d),
       why[512];
  long pg = sysconf(_SC_PAGESIZE);
  char *a = mmap(NULL, (size_t)pg * 2 * ANON, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void **fm = xzalloc(FILES * sizeof(*fm));
  struct proc_jvm_maps m;
  int self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC), made = 0;

  mkdir(d, 0700);
  for (int i = 0; a != MAP_FAILED && i < ANON; i++)
    mprotect(a + (size_t)pg * 2 * i, (size_t)pg, PROT_READ);
  for (int i = 0; i < FILES; i++)
    if ((fm[i] = map_file(f, PROT_READ, MAP_SHARED, 4096)) != MAP_FAILED)
      made++;
  CHECK_INT(agree(self, "maps", &m, why, sizeof(why)), 0,
            "pm-3.1 %d anonymous and %d file mappings more: both agree (%s)",
            a != MAP_FAILED ? ANON : 0, made, why);
  CHECK_INT(m.nperf, PROC_JVM_PERF, "pm-3.2 ... %d of them kept",
            PROC_JVM_PERF);
  for (int i = 0; i < FILES; i++)
    if (fm[i] != MAP_FAILED) munmap(fm[i], 4096);
  if (a != MAP_FAILED) munmap(a, (size_t)pg * 2 * ANON);
  unlink(f);
  rmdir(d);
  close(self);
  free(fm);
  free(f);
  free(d);
}

/* Every process in /proc: the two ways agree; and its copy read the
 * ordinary way gives the text's answer. Returns how many are JVMs. */
static int test_all(const char *dir, const char *id)
{
  int *pids, dirfd = proc_dirfd(), bad = 0, jvms = 0, read = 0;
  char *copy = xasprintf("%s/maps.copy", dir), why[512] = "", first[600] = "";
  size_t n;

  if (proc_pids(&pids, &n)) {
    CHECK(0, "%s /proc read", id);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    struct proc_jvm_maps m, c;
    char path[32];
    int rc;

    snprintf(path, sizeof(path), "%d/maps", pids[i]);
    if ((rc = agree(dirfd, path, &m, why, sizeof(why))) < 0) continue;
    read++;
    if (!rc && !copy_maps(dirfd, path, copy) &&
        !proc_jvm_maps(AT_FDCWD, copy, &c) && !same(&m, &c, why, sizeof(why)))
      rc = 1;
    if (rc && !bad++)
      snprintf(first, sizeof(first), "pid %d: %s", pids[i], why);
    jvms += m.libjvm && m.nperf;
  }
  unlink(copy);
  CHECK(read > 0 && !bad,
        "%s every process in /proc (%d read, %d JVMs): the query, the text "
        "and a copy agree (%d differ; %s)",
        id, read, jvms, bad, first);
  free(pids);
  free(copy);
  return jvms;
}

/* A real JVM, started here from a source file (java's source launcher:
 * no javac step); its pid once its maps show libjvm.so and its PerfData
 * file (within 60 s), else -1. */
static pid_t jvm_start(const char *dir)
{
  char *src = xasprintf("%s/PmSleep.java", dir);
  FILE *f = fopen(src, "w");
  pid_t pid;
  int self;

  if (!f) return -1;
  fputs("public class PmSleep { public static void main(String[] a) "
        "throws Exception { Thread.sleep(120_000); } }\n",
        f);
  fclose(f);
  if (!(pid = fork())) {
    int null = open("/dev/null", O_RDWR);

    dup2(null, 1);
    dup2(null, 2);
    execlp("java", "java", "-XX:+UsePerfData", "-Xshare:auto", src,
           (char *)NULL);
    _exit(127);
  }
  free(src);
  if (pid < 0) return -1;
  self = proc_open(pid);
  for (int k = 0; k < 600 && self >= 0; k++) {
    struct proc_jvm_maps m;

    if (waitpid(pid, NULL, WNOHANG) == pid) break;
    if (!proc_jvm_maps(self, "maps", &m) && m.libjvm && m.nperf) {
      close(self);
      return pid;
    }
    usleep(100000);
  }
  if (self >= 0) close(self);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

int main(void)
{
  char dir[] = "proc_maps.XXXXXX";
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  struct proc_jvm_maps m;
  pid_t jvm;

  if (!mkdtemp(dir)) {
    CHECK(0, "pm-0.1 a temporary folder");
    return 1;
  }
  have_query = proc_jvm_maps_fd(fd, PROC_MAPS_QUERY, &m) == 0;
  close(fd);
  if (!have_query) {
    printf("SKIP: pm-1 pm-2 (this kernel has no PROCMAP_QUERY)\n");
  } else {
    test_self(dir);
    test_many(dir);
    test_all(dir, "pm-2.1");
    if ((jvm = jvm_start(dir)) < 0) {
      printf("SKIP: pm-2.2 a real JVM (java did not start)\n");
    } else {
      CHECK(test_all(dir, "pm-2.2") > 0, "pm-2.3 ... the JVM among them");
      kill(jvm, SIGTERM);
      waitpid(jvm, NULL, 0);
    }
  }
  {
    char *src = xasprintf("%s/PmSleep.java", dir);

    unlink(src);
    free(src);
  }
  rmdir(dir);
  return check_failures != 0;
}
