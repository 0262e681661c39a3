/* sys.h - the few system calls and string helpers the agent needs.
 *
 * The agent links against nothing (no libc, no DT_NEEDED) so the same bytes
 * load into glibc and musl JVMs: system calls are made directly, and the
 * helpers below replace the libc functions it would otherwise import.
 */
#ifndef AGENT_SYS_H
#define AGENT_SYS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
enum {
  NR_read = 0,
  NR_write = 1,
  NR_close = 3,
  NR_getpid = 39,
  NR_openat = 257,
  NR_clock_gettime = 228,
  NR_unlinkat = 263,
  K_O_NOFOLLOW = 0400000
};

static inline long sys_call4(long n, long a, long b, long c, long d)
{
  register long r10 __asm__("r10") = d;
  long r;

  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return r;
}
#elif defined(__aarch64__)
enum {
  NR_read = 63,
  NR_write = 64,
  NR_close = 57,
  NR_getpid = 172,
  NR_openat = 56,
  NR_clock_gettime = 113,
  NR_unlinkat = 35,
  K_O_NOFOLLOW = 0100000 /* arm64's own value, not asm-generic's */
};

static inline long sys_call4(long n, long a, long b, long c, long d)
{
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;

  __asm__ volatile("svc #0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
                   : "memory");
  return x0;
}
#else
#error "the agent knows the system calls of x86_64 and aarch64 only"
#endif

/* Kernel flag values (the same on x86_64 and aarch64). */
enum {
  K_O_RDONLY = 0,
  K_O_WRONLY = 01,
  K_O_CREAT = 0100,
  K_O_EXCL = 0200,
  K_O_NONBLOCK = 04000,
  K_O_CLOEXEC = 02000000,
  K_AT_FDCWD = -100,
  K_EINTR = 4,
  K_EAGAIN = 11,
  K_EEXIST = 17,
  K_CLOCK_REALTIME = 0,
  K_CLOCK_MONOTONIC = 1
};

struct k_timespec {
  long sec, nsec;
};

static inline long sys_write(int fd, const void *p, size_t n)
{
  return sys_call4(NR_write, fd, (long)p, (long)n, 0);
}

static inline long sys_read(int fd, void *p, size_t n)
{
  return sys_call4(NR_read, fd, (long)p, (long)n, 0);
}

static inline long sys_open(const char *path, int flags, int mode)
{
  return sys_call4(NR_openat, K_AT_FDCWD, (long)path, flags, mode);
}

static inline long sys_unlink(const char *path)
{
  return sys_call4(NR_unlinkat, K_AT_FDCWD, (long)path, 0, 0);
}

static inline long sys_close(int fd)
{
  return sys_call4(NR_close, fd, 0, 0, 0);
}

static inline int sys_getpid(void)
{
  return (int)sys_call4(NR_getpid, 0, 0, 0, 0);
}

/* Milliseconds of the given clock. */
static inline int64_t clock_ms(int clock)
{
  struct k_timespec ts = {0, 0};

  sys_call4(NR_clock_gettime, clock, (long)&ts, 0, 0);
  return (int64_t)ts.sec * 1000 + ts.nsec / 1000000;
}

static inline size_t str_len(const char *s)
{
  size_t n = 0;

  while (s[n]) n++;
  return n;
}

static inline int str_eq(const char *a, size_t alen, const char *b)
{
  size_t i;

  for (i = 0; i < alen; i++)
    if (a[i] != b[i] || !b[i]) return 0;
  return b[alen] == 0;
}

#endif
