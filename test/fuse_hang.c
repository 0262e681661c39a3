/* fuse_hang.c - a FUSE file system that never answers (tests only)
 *
 *   fuse_hang MOUNTPOINT READY-FILE
 *
 * Mounts a file system of type "fuse" on MOUNTPOINT over /dev/fuse's raw
 * protocol (no libfuse), answers the kernel's FUSE_INIT, writes READY-FILE,
 * then reads every later request and answers none: whoever opens, stats or
 * lists anything there waits in the kernel (request_wait_answer) until this
 * process dies, when its /dev/fuse closing aborts the connection and every
 * waiter gets ENOTCONN. A container that can mount FUSE can do this to its
 * /tmp (issue 40); test/walk.test mounts it so.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

enum { FUSE_INIT = 26 };

struct in_header { /* struct fuse_in_header */
  uint32_t len, opcode;
  uint64_t unique, nodeid;
  uint32_t uid, gid, pid;
  uint16_t total_extlen, padding;
};

struct init_in { /* the start of struct fuse_init_in */
  uint32_t major, minor, max_readahead, flags;
};

struct out_header { /* struct fuse_out_header */
  uint32_t len;
  int32_t error;
  uint64_t unique;
};

struct init_out { /* struct fuse_init_out, protocol 7.23 and later: 64 bytes */
  uint32_t major, minor, max_readahead, flags;
  uint16_t max_background, congestion_threshold;
  uint32_t max_write, time_gran;
  uint16_t max_pages, map_alignment;
  uint32_t flags2, unused[7];
};

static char buf[(1 << 20) + 4096];

int main(int argc, char **argv)
{
  char opts[128];
  int fd, answered = 0;

  if (argc != 3) {
    fprintf(stderr, "usage: fuse_hang MOUNTPOINT READY-FILE\n");
    return 2;
  }
  /* the test ends us with SIGTERM: closing /dev/fuse frees every waiter */
  signal(SIGTERM, SIG_DFL);
  if ((fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0) {
    perror("fuse_hang: /dev/fuse");
    return 1;
  }
  snprintf(opts, sizeof(opts),
           "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
  if (mount("hang", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts)) {
    perror("fuse_hang: mount");
    return 1;
  }
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    struct in_header h;

    if (n < 0 && errno == EINTR) continue;
    if (n < (ssize_t)sizeof(h)) return n < 0 ? 1 : 0; /* unmounted */
    memcpy(&h, buf, sizeof(h));
    if (h.opcode == FUSE_INIT && !answered) {
      struct init_in in;
      struct {
        struct out_header h;
        struct init_out o;
      } out;
      FILE *f;

      memcpy(&in, buf + sizeof(h), sizeof(in));
      memset(&out, 0, sizeof(out));
      out.h.len = sizeof(out);
      out.h.unique = h.unique;
      out.o.major = 7;
      out.o.minor = in.minor < 31 ? in.minor : 31;
      out.o.max_readahead = in.max_readahead;
      out.o.max_background = 16;
      out.o.congestion_threshold = 12;
      out.o.max_write = 4096;
      out.o.time_gran = 1;
      if (write(fd, &out, sizeof(out)) != (ssize_t)sizeof(out)) {
        perror("fuse_hang: INIT reply");
        return 1;
      }
      answered = 1;
      if ((f = fopen(argv[2], "w"))) fclose(f);
    }
    /* anything else: read and never answered */
  }
}
