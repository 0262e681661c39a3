/* measure.c - run a command N times; print median wall ms and peak RSS KiB
 *
 *   measure N cmd [args...]   ->  "<median_ms> <max_rss_kib>"
 * With MEASURE_CPU set in the environment the median is of the child's
 * CPU time (user + system) instead of wall time: what a loaded machine
 * does not change much.
 * Output of the command goes to /dev/null. Wall time from CLOCK_MONOTONIC,
 * RSS from wait4's ru_maxrss, so no external time(1) is needed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  int n = argc > 2 ? (int)strtol(argv[1], NULL, 10) : 0;
  double *ms;
  long rss = 0;
  int cpu = getenv("MEASURE_CPU") != NULL;

  if (n < 1) {
    fprintf(stderr, "usage: measure N cmd [args...]\n");
    return 2;
  }
  ms = calloc(n, sizeof(*ms));
  for (int i = 0; i < n; i++) {
    struct timespec a, b;
    struct rusage ru;
    int st;
    pid_t pid;

    clock_gettime(CLOCK_MONOTONIC, &a);
    if (!(pid = fork())) {
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 1);
      dup2(fd, 2);
      execvp(argv[2], argv + 2);
      _exit(127);
    }
    if (wait4(pid, &st, 0, &ru) < 0) return 1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!WIFEXITED(st) || WEXITSTATUS(st) == 127) {
      fprintf(stderr, "measure: '%s' failed\n", argv[2]);
      return 1;
    }
    ms[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
    if (cpu) /* the child's CPU instead: user + system */
      ms[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
              (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    if (ru.ru_maxrss > rss) rss = ru.ru_maxrss;
  }
  qsort(ms, n, sizeof(*ms), cmp);
  printf("%.3f %ld\n", n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2,
         rss);
  return 0;
}
