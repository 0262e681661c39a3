/* root.c - unit tests of core/root: in-root resolution (openat2 and the
 * walk give the same answers), checked opens, create/put/take, release.
 * A temp folder plays the container's root; a canary outside it plays the
 * host file that must never be reached. */
#include "core/jvmtool.h"
#include "core/root.h"
#include "check.h"
#include <sys/fsuid.h>

static char top[PATH_MAX], rootdir[PATH_MAX];

static void sh(const char *fmt, ...) PRINTF(1, 2);
static void sh(const char *fmt, ...)
{
  char cmd[4096];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  if (system(cmd)) printf("FAIL: setup: %s\n", cmd);
}

static ino_t ino_of(const char *rel)
{
  char *p = xasprintf("%s/%s", rootdir, rel);
  struct stat sb;
  ino_t ino = stat(p, &sb) ? 0 : sb.st_ino;

  free(p);
  return ino;
}

/* Open path in r; the inode opened, or -errno. */
static long long resolve(const struct root *r, const char *path, int flags)
{
  struct stat sb;
  int fd, rc = root_openat(r, -1, path, flags, 0, &fd);

  if (rc) return rc;
  fstat(fd, &sb);
  close(fd);
  return (long long)sb.st_ino;
}

static void test_resolve(const struct root *r, const char *how)
{
  long long inside = (long long)ino_of("etc/hostname");

  CHECK_INT(resolve(r, "/tmp/f", O_RDONLY), (long long)ino_of("var/tmp/f"),
            "root-1.1 %s: /tmp a link to /var/tmp inside the root", how);
  CHECK_INT(resolve(r, "/abs/hostname", O_RDONLY), inside,
            "root-1.2 %s: an absolute link to /etc stays inside", how);
  CHECK_INT(resolve(r, "/var/tmp/up/etc/hostname", O_RDONLY), inside,
            "root-1.3 %s: a ../../../.. link stops at the root", how);
  CHECK_INT(resolve(r, "/../../../etc/hostname", O_RDONLY), inside,
            "root-1.4 %s: .. above the root is the root", how);
  CHECK_INT(resolve(r, "/abs/canary", O_RDONLY), -ENOENT,
            "root-1.5 %s: the host's file is not there", how);
  CHECK_INT(resolve(r, "/etc/up2/canary", O_RDONLY), -ENOENT,
            "root-1.5b %s: nor through a ../.. link", how);
  CHECK_INT(resolve(r, "/tmp", O_RDONLY), -ELOOP,
            "root-1.6 %s: the last component is never followed", how);
  CHECK_INT(resolve(r, "/tmp", O_PATH), -ELOOP,
            "root-1.7 %s: not even with O_PATH", how);
  CHECK_INT(resolve(r, "/tmp/.", O_RDONLY | O_DIRECTORY),
            (long long)ino_of("var/tmp"),
            "root-1.8 %s: a trailing /. follows it", how);
  CHECK_INT(resolve(r, "/loop/x", O_RDONLY), -ELOOP,
            "root-1.9 %s: a link loop ends", how);
  CHECK_INT(resolve(r, "/var/tmp/f/x", O_RDONLY), -ENOTDIR,
            "root-1.10 %s: a file is no folder", how);
  CHECK_INT(resolve(r, "/", O_RDONLY | O_DIRECTORY), (long long)r->ino,
            "root-1.11 %s: / is the root", how);
  CHECK_INT(resolve(r, "rel/x/../../etc/hostname", O_RDONLY),
            (long long)ino_of("jdk/etc/hostname"),
            "root-1.12 %s: .. after a link goes back along the link", how);
  CHECK_INT(resolve(r, "", O_RDONLY), -ENOENT, "root-1.13 %s: empty", how);
  {
    uint64_t t0 = now_ms();
    int fd, rc = root_openat(r, -1, "/var/tmp/fifo", O_RDONLY, 0, &fd);

    CHECK(rc == 0 && now_ms() - t0 < 5000,
          "root-1.14 %s: a FIFO opens without blocking", how);
    if (!rc) {
      CHECK_INT(root_check(fd, S_IFREG, -1, NULL), -EINVAL,
                "root-1.15 %s: and is refused as a file", how);
      close(fd);
    }
  }
}

static void test_checks(const struct root *r)
{
  char *data = NULL;
  size_t len;
  int fd, dfd;

  CHECK_INT(root_read(r, -1, "/var/tmp/fifo", -1, 100, &data, &len), -EINVAL,
            "root-2.1 a FIFO is not read");
  CHECK_INT(root_read(r, -1, "/var/tmp/two", -1, 100, &data, &len), -EMLINK,
            "root-2.2 a file with two links is refused");
  CHECK_INT(root_read(r, -1, "/var/tmp/f", 12345, 100, &data, &len), -EPERM,
            "root-2.3 another owner is refused");
  CHECK_INT(root_read(r, -1, "/var/tmp/f", -1, 2, &data, &len), -EFBIG,
            "root-2.4 over the size bound");
  CHECK_INT(
      root_read(r, -1, "/var/tmp/f", (long long)getuid(), 100, &data, &len), 0,
      "root-2.5 a checked read");
  CHECK_STR(data, "hello\n", "root-2.6 its bytes");
  free(data);
  CHECK_INT(root_open_checked(r, -1, "/var/tmp/sock", O_PATH, S_IFSOCK, -1, &fd,
                              NULL),
            0, "root-2.7 a socket with O_PATH");
  if (fd >= 0) close(fd);
  CHECK_INT(root_openat(r, -1, "/var/tmp", O_RDONLY | O_DIRECTORY, 0, &dfd), 0,
            "root-2.8 a folder fd");
  CHECK_INT(root_openat(r, dfd, "a/b", O_RDONLY, 0, &fd), -EINVAL,
            "root-2.9 one name only below a folder fd");
  CHECK_INT(root_openat(r, dfd, "..", O_RDONLY, 0, &fd), -EINVAL,
            "root-2.10 not ..");
  CHECK_INT(root_openat(r, dfd, "f", O_RDONLY, 0, &fd), 0,
            "root-2.11 a name below a folder fd");
  if (fd >= 0) close(fd);
  close(dfd);
}

static void test_files(const struct root *r)
{
  char name[64], *data;
  struct stat sb, tsb;
  size_t len;
  uint64_t copied, size;
  int dfd, fd, out, rc;

  root_tmp(r, &dfd, &tsb);
  CHECK_INT(tsb.st_ino, ino_of("var/tmp"), "root-3.1 the root's /tmp");
  CHECK_INT(root_put(NULL, dfd, "agent-", ".so", "ELF!", 4, 0644, -1, -1, name,
                     sizeof(name)),
            0, "root-3.2 put a file");
  CHECK(strlen(name) == 6 + 16 + 3 && starts_with(name, "agent-"),
        "root-3.3 under a random name: %s", name);
  fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW);
  CHECK_INT(sb.st_mode & 07777, 0644, "root-3.4 with its mode");
  out = open("/dev/null", O_WRONLY);
  CHECK_INT(root_take_at(NULL, dfd, name, (long long)getuid(), &fd), 0,
            "root-3.5 take it back");
  CHECK_INT(root_copy_out(fd, out, 1 << 20, 60000, &size, &copied), 0,
            "root-3.6 copy it out");
  CHECK_INT(copied, 4, "root-3.6 all of it");
  close(fd);
  CHECK(fstatat(dfd, name, &sb, 0) && errno == ENOENT,
        "root-3.7 and it is gone");
  root_put(NULL, dfd, "big-", "", "0123456789", 10, 0600, -1, -1, name,
           sizeof(name));
  root_take_at(NULL, dfd, name, -1, &fd);
  CHECK_INT(root_copy_out(fd, out, 4, 60000, &size, &copied), -EFBIG,
            "root-3.8 a file over the bound");
  CHECK_INT(copied, 0, "root-3.9 is not copied at all");
  CHECK_INT(size, 10, "root-3.9 its size is said");
  close(fd);
  /* a file with a hole (a truncate past what was written) */
  root_create(NULL, dfd, "holes-", "", 0600, -1, -1, name, sizeof(name), &fd);
  CHECK_INT(write(fd, "JAVA PROFILE", 12), 12, "root-3.9 write");
  CHECK_INT(ftruncate(fd, 1LL << 30), 0, "root-3.9 truncate to 1 GiB");
  close(fd);
  root_take_at(NULL, dfd, name, -1, &fd);
  CHECK_INT(root_copy_out(fd, out, 4ULL << 30, 60000, &size, &copied), -ENODATA,
            "root-3.9 a file with holes is refused");
  CHECK_INT(copied, 0, "root-3.9 before a byte is copied");
  close(fd);
  CHECK_INT(root_take_at(NULL, dfd, "fifo", -1, &fd), -EINVAL,
            "root-3.10 a FIFO is not taken");
  CHECK(!fstatat(dfd, "fifo", &sb, AT_SYMLINK_NOFOLLOW),
        "root-3.11 nor removed");
  /* a name that leads elsewhere since it was checked is kept */
  root_create(NULL, dfd, "x-", "", 0600, -1, -1, name, sizeof(name), &fd);
  fstat(fd, &sb);
  unlinkat(dfd, name, 0);
  close(openat(dfd, name, O_CREAT | O_WRONLY, 0600));
  close(fd);
  CHECK_INT(root_unlink(NULL, dfd, name, &sb, 0), -ESTALE,
            "root-3.12 a replaced name is not removed");
  CHECK_INT(fstatat(dfd, name, &tsb, 0), 0, "root-3.13 still there");
  unlinkat(dfd, name, 0);
  close(out);
  close(dfd);
  rc = root_release(r, "/jdk/bin/java", &data, &len);
  CHECK_INT(rc, 0, "root-3.14 the release file next to bin");
  if (!rc) {
    CHECK(strstr(data, "JAVA_VERSION=\"17") != NULL, "root-3.15 its text");
    free(data);
  }
  rc = root_release(r, "/jdk/jre/bin/java", &data, &len);
  CHECK_INT(rc, 0, "root-3.16 next to jre (JDK 8)");
  if (!rc) free(data);
  CHECK_INT(root_release(r, "/abs/x/java", &data, &len), -ENOENT,
            "root-3.17 none");
}

/* Changes in a root of another user namespace: made as the folder's
 * owner when that owner is one of its users, refused elsewhere (a host
 * folder mounted or linked in). As root only: the ids are switched. */
static void test_rights(const struct root *dir)
{
  struct root r = *dir;
  struct stat sb;
  char name[64];
  int dfd, fd;

  r.other = 1;
  r.nuid = r.ngid = 1;
  r.uid[0] = (struct root_idmap){0, 100000, 65536};
  r.gid[0] = r.uid[0];
  sb.st_uid = 100000;
  sb.st_gid = 165535;
  CHECK_INT(root_theirs(&r, &sb), 0, "root-4.1 ids in the map are theirs");
  sb.st_gid = 165536;
  CHECK_INT(root_theirs(&r, &sb), -EXDEV, "root-4.2 past its end are not");
  sb.st_uid = sb.st_gid = 0;
  CHECK_INT(root_theirs(&r, &sb), -EXDEV, "root-4.3 nor is host root");
  if (geteuid()) return;
  /* host root's folder, 0755, in the container: a container's root could
   * not remove from it, nor may we for it */
  sh("cd %s && mkdir -p root/host root/own && echo x > root/host/f && "
     "chown 100000:100000 root/own && chmod 1777 root/own",
     top);
  root_openat(&r, -1, "/host", O_PATH | O_DIRECTORY, 0, &dfd);
  fstatat(dfd, "f", &sb, AT_SYMLINK_NOFOLLOW);
  CHECK_INT(root_unlink(&r, dfd, "f", &sb, 0), -EXDEV,
            "root-4.4 no removal in a folder none of its users own");
  CHECK_INT(root_create(&r, dfd, "n-", "", 0600, 100000, 100000, name,
                        sizeof(name), &fd),
            -EXDEV, "root-4.5 nor a new file there");
  close(dfd);
  root_openat(&r, -1, "/own", O_PATH | O_DIRECTORY, 0, &dfd);
  CHECK_INT(root_create(&r, dfd, "n-", "", 0644, 101000, 101000, name,
                        sizeof(name), &fd),
            0, "root-4.6 a file made for its user 1000 in its own /tmp");
  fstat(fd, &sb);
  close(fd);
  CHECK(sb.st_uid == 101000 && sb.st_gid == 101000 &&
            (sb.st_mode & 07777) == 0644,
        "root-4.7 is that user's, 0644");
  CHECK_INT(root_unlink(&r, dfd, name, &sb, 0), 0,
            "root-4.8 and is removed as the folder's owner");
  CHECK_INT((int)setfsuid((uid_t)-1), 0, "root-4.9 our own rights after");
  close(dfd);
  /* with root's rights this would go; as the container's it does not */
  sh("cd %s && chown 100000:100000 root/host && chmod 0755 root/host && "
     "chown 0:0 root/host/f && chmod 1777 root/host",
     top);
  root_openat(&r, -1, "/host", O_PATH | O_DIRECTORY, 0, &dfd);
  fstatat(dfd, "f", &sb, AT_SYMLINK_NOFOLLOW);
  CHECK_INT(root_unlink(&r, dfd, "f", &sb, 0), 0,
            "root-4.10 the folder's owner removes any file in it");
  close(dfd);
}

int main(void)
{
  const char *tmp = getenv("JT_TMP") ? getenv("JT_TMP") : "/tmp";
  struct root r, self;

  /* root_pid_of: a path through a process's root, and the pid in it */
  {
    static const struct {
      const char *path;
      int pid;
    } t[] = {{"/proc/12/root", 12},
             {"/proc/12/root/tmp/x", 12},
             {"/proc/12/rootx", 0},
             {"/proc/0/root", 0},
             {"/proc//root", 0},
             {"/proc/+12/root", 0},
             {"/proc/ 12/root", 0},
             {"/proc/2147483648/root", 0},
             {"/proc/2147483647/root", 2147483647},
             {"/tmp/proc/1/root", 0}};

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
      CHECK_INT(root_pid_of(t[i].path), t[i].pid, "root-5.%zu root_pid_of %s",
                1 + i, t[i].path);
  }
  snprintf(top, sizeof(top), "%s/rootXXXXXX", tmp);
  if (!mkdtemp(top)) return 1;
  snprintf(rootdir, sizeof(rootdir), "%s/root", top);
  sh("cd %s && mkdir -p root/etc root/var/tmp root/jdk/bin root/jdk/jre/bin "
     "root/rel/x root/jdk/jre && echo inside > root/etc/hostname && echo host "
     "> canary && "
     "ln -s /var/tmp root/tmp && ln -s /etc root/abs && "
     "ln -s ../../../../../../.. root/var/tmp/up && "
     "ln -s loop root/loop && echo hello > root/var/tmp/f && "
     "echo 2 > root/var/tmp/two && ln root/var/tmp/two root/var/tmp/two2 && "
     "mkfifo root/var/tmp/fifo && "
     "rmdir root/rel/x && ln -s /jdk/jre/bin root/rel/x && "
     "mkdir root/jdk/etc && echo jdk > root/jdk/etc/hostname && "
     "echo 'JAVA_VERSION=\"17.0.2\"' > root/jdk/release && "
     "cp root/jdk/release root/jdk/jre/release && "
     "python3 -c \"import socket; socket.socket(socket.AF_UNIX)"
     ".bind('root/var/tmp/sock')\" && "
     "ln -s ../.. root/etc/up2",
     top);
  if (root_open_dir(rootdir, &r)) return 1;
  CHECK(!r.same, "root-0.1 a folder is not our own root");
  CHECK_INT(root_open(0, &self), 0, "root-0.2 our own root");
  CHECK(self.same, "root-0.3 is the same as ours");
  root_close(&self);
  CHECK_INT(root_open(getpid(), &self), 0, "root-0.4 our pid's root");
  CHECK(self.same, "root-0.5 is ours too");
  root_close(&self);
  CHECK_INT(root_open(INT_MAX, &self), -ENOENT, "root-0.6 no such process");
  CHECK_INT(root_method(ROOT_OPENAT2), ROOT_OPENAT2, "root-0.7 openat2");
  test_resolve(&r, "openat2");
  CHECK_INT(root_method(ROOT_WALK), ROOT_WALK, "root-0.8 the walk");
  test_resolve(&r, "walk");
  test_checks(&r);
  root_method(ROOT_OPENAT2);
  test_checks(&r);
  test_files(&r);
  test_rights(&r);
  root_close(&r);
  sh("rm -rf %s", top);
  return check_failures != 0;
}
