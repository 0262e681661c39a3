/* proc.c - unit tests of core/proc's fd count and limit: against this
 * process's own descriptors and rlimit, and children holding as many
 * descriptors as proc_open_fds_at is let count, and one more */
#include "core/jvmtool.h"
#include "check.h"
#include <sys/resource.h>
#include <sys/wait.h>

/* A child with want open descriptors (0, 1, 2 among them); -1 when it
 * could not make them. Tells through a pipe when it holds them. */
/* More than one getdents64 buffer of entries */
enum { CAP = 5000 };

static pid_t holder(size_t want)
{
  int p[2];
  char ok = 0;
  pid_t pid;

  if (pipe(p)) return -1;
  if (!(pid = fork())) {
    struct rlimit r = {want + 16, want + 16}; /* below the hard limit */
    int null = open("/dev/null", O_RDONLY);
    char yes = 1;

    /* descriptors 0 to want - 1, the pipe's among them, and no other */
    if (setrlimit(RLIMIT_NOFILE, &r) || null < 0 || p[1] >= (int)want) _exit(1);
    close(p[0]);
    for (int k = 0; k < (int)want; k++)
      if (k != p[1] && dup2(null, k) != k) _exit(1);
    if (write(p[1], &yes, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  close(p[1]);
  if (pid < 0 || read(p[0], &ok, 1) != 1 || !ok) {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
    }
    pid = -1;
  }
  close(p[0]);
  return pid;
}

static void stop(pid_t pid)
{
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* The _at forms on pid's /proc folder, opened here (-errno when it
 * cannot be). */
static int open_fds(int pid, size_t max, size_t *n)
{
  char path[32];
  int fd, rc;

  snprintf(path, sizeof(path), "/proc/%d", pid);
  if ((fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -errno;
  rc = proc_open_fds_at(fd, max, n);
  close(fd);
  return rc;
}

static int max_fds(int pid, uint64_t *soft)
{
  char path[32];
  int fd, rc;

  snprintf(path, sizeof(path), "/proc/%d", pid);
  if ((fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -errno;
  rc = proc_max_fds_at(fd, soft);
  close(fd);
  return rc;
}

int main(void)
{
  struct rlimit r;
  uint64_t soft = 0;
  size_t n = 0, want = 0;
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  pid_t pid;
  int rc;

  int self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);

  /* each count holds the descriptor it reads /proc/self/fd with */
  while (d && (e = readdir(d))) want += e->d_name[0] != '.';
  if (d) closedir(d);
  rc = proc_open_fds_at(self, PROC_MAX_FDS, &n); /* its fd for d's */
  CHECK(rc == 0 && n == want,
        "proc-1.1 open fds of this process: readdir's count (%zu, %zu)", n,
        want);
  getrlimit(RLIMIT_NOFILE, &r);
  rc = proc_max_fds_at(self, &soft);
  close(self);
  CHECK(rc == 0 && soft == r.rlim_cur,
        "proc-1.2 max fds: getrlimit's soft limit (%llu)",
        (unsigned long long)soft);
  CHECK_INT(open_fds(999999999, PROC_MAX_FDS, &n), -ENOENT,
            "proc-1.3 no such process: -ENOENT");
  if (r.rlim_max < CAP + 1 + 16) {
    printf("SKIP: proc-1.4 a child holding %d fds (needs a hard limit of "
           "%d open files)\n",
           CAP, CAP + 17);
    return check_failures != 0;
  }
  if ((pid = holder(CAP)) > 0) {
    rc = open_fds(pid, CAP, &n);
    CHECK(rc == 0 && n == CAP, "proc-1.4 exactly max fds: counted (%d, %zu)",
          rc, n);
    stop(pid);
  } else {
    CHECK(0, "proc-1.4 a child holding %d fds", CAP);
  }
  if ((pid = holder(CAP + 1)) > 0) {
    rc = open_fds(pid, CAP, &n);
    CHECK(rc == -E2BIG && n == CAP,
          "proc-1.5 one more: -E2BIG, counting stopped at max (%d, %zu)", rc,
          n);
    rc = max_fds(pid, &soft);
    CHECK(rc == 0 && soft == CAP + 1 + 16,
          "proc-1.6 its lowered soft limit read from /proc/P/limits");
    stop(pid);
  } else {
    CHECK(0, "proc-1.5 a child holding %d fds", CAP + 1);
  }
  return check_failures != 0;
}
