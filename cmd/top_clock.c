/* top_clock.c - jvmtool top's clock and its wait between refreshes (cut
 * short by a signal or a key). It calls no other part of top.
 */
#include "core/jvmtool.h"
#include "cmd/top.h"
#include <poll.h>

uint64_t top_now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int top_wait(uint64_t until_ns, int fd)
{
  for (;;) {
    uint64_t now = top_now_ns();
    struct pollfd p = {fd, POLLIN, 0};
    int ms, rc;

    if (jt_stop_signal || now >= until_ns) return 0;
    ms = (int)((until_ns - now + 999999) / 1000000);
    rc = poll(&p, fd >= 0, ms);
    if (rc > 0 && (p.revents & POLLIN)) return 1;
    if (rc < 0 || (fd >= 0 && p.revents & (POLLHUP | POLLERR))) return 0;
  }
}
