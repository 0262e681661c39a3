/* vm.c - unit tests of core/vm: lock state, target resolution, listing,
 * the attach capability, the main class */
#include "core/jvmtool.h"
#include "core/attach.h"
#include "core/vm.h"
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

static void test_resolve(const char *dir)
{
  char err[256] = "", *path = xasprintf("%s/hsperfdata_u/4242", dir);
  char *uri = xasprintf("file://%s", path), *sub = xasprintf("%s/hsperfdata_u",
                                                             dir);
  struct vm v;
  int fd;

  mkdir(sub, 0700);
  fd = open(path, O_WRONLY | O_CREAT, 0600);
  (void)!write(fd, "x", 1);
  close(fd);
  CHECK_INT(vm_resolve(path, &v, err, sizeof(err)), 0, "vm-2.1 a path");
  CHECK_STR(v.path, path, "vm-2.2 the path itself");
  vm_free(&v);
  CHECK_INT(vm_resolve(uri, &v, err, sizeof(err)), 0, "vm-2.3 file:// URI");
  CHECK_STR(v.path, path, "vm-2.4 URI to path");
  vm_free(&v);
  CHECK_INT(vm_resolve("/nonexistent/x", &v, err, sizeof(err)), -ENOENT,
            "vm-2.5 missing file");
  CHECK(*err, "vm-2.6 says why: %s", err);
  CHECK_INT(vm_resolve("2147483", &v, err, sizeof(err)), -ESRCH,
            "vm-2.7 no such process");
  /* we are no JVM: a live pid without PerfData */
  char me[16];

  snprintf(me, sizeof(me), "%d", (int)getpid());
  CHECK_INT(vm_resolve(me, &v, err, sizeof(err)), -ENOENT,
            "vm-2.8 live non-JVM pid");
  CHECK(strstr(err, "no PerfData") != NULL, "vm-2.9 hint: %s", err);
  unlink(path);
  rmdir(sub);
  free(uri);
  free(path);
  free(sub);
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
  struct vm v;
  int rc;

  pdw_init(&w, 4096, 0);
  pdw_long(&w, "sun.os.hrt.frequency", 6, 1, 1000000000);
  if (caps) pdw_string(&w, "sun.rt.jvmCapabilities", 1, caps, 65);
  pdw_finish(&w);
  pdw_save(&w, path);
  free(w.p);
  rc = vm_resolve(path, &v, err, sizeof(err));
  if (!rc) rc = vm_attachable(&v);
  vm_free(&v);
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
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct buf b = {0};

    buf_add(&b, "", 0);
    vm_main_class(cases[i][0], 0, &b);
    CHECK_STR(b.p, cases[i][1], "vm-5.%zu main class of '%s'", 2 * i + 1,
              cases[i][0]);
    b.len = 0;
    vm_main_class(cases[i][0], 1, &b);
    CHECK_STR(b.p, cases[i][2], "vm-5.%zu full main class of '%s'", 2 * i + 2,
              cases[i][0]);
    buf_free(&b);
  }
}

int main(void)
{
  char dir[] = "/tmp/jvmtool-vm.XXXXXX";

  if (!mkdtemp(dir)) return 1;
  test_flock(dir);
  test_resolve(dir);
  test_list();
  test_attachable(dir);
  test_main_class();
  rmdir(dir);
  return check_failures != 0;
}
