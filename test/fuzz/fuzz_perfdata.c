/* fuzz_perfdata.c - the PerfData parser, whole file and live re-read
 *
 * The input is split at its middle byte's value: the first part is parsed
 * as a file, then the file (a memfd) is overwritten by the second part and
 * re-read with pd_refresh, as when a JVM or an attacker rewrites it while
 * stat samples. Invariants: every counter lies inside the file, names are
 * sorted and unique, strings stay within their vector, and a failure
 * always says why.
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"
#include "test/fuzz/check.h"
#include <sys/mman.h>

static void invariants(const struct perfdata *pd)
{
  for (size_t i = 0; i < pd->n; i++) {
    const struct pd_counter *c = pd->counters[i];
    const char *s;
    struct buf b = {0};

    if (i) INVARIANT(strcmp(pd->counters[i - 1]->name, c->name) < 0);
    INVARIANT(pd_find(pd, c->name) == c);
    if (!c->pseudo)
      INVARIANT((size_t)c->off + (c->type == 'J' ? 8 : c->len) <= pd->len);
    INVARIANT(pd_string(pd, c, &s) <= c->len);
    pd_value_text(pd, c, &b);
    buf_free(&b);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct perfdata pd;
  size_t cut = size ? (size_t)data[size / 2] * size / 256 : 0;
  char path[64];
  int fd, rc;

  if ((rc = pd_parse(&pd, data, size, "fuzz"))) {
    INVARIANT(rc < 0 && pd.err[0]);
  } else {
    invariants(&pd);
    pd_close(&pd);
  }

  fd = memfd_create("fuzz", 0);
  if (fd < 0) return 0;
  if (write(fd, data, cut) == (ssize_t)cut) {
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (!pd_open(&pd, path, 0)) {
      if (pwrite(fd, data + cut, size - cut, 0) == (ssize_t)(size - cut) &&
          !ftruncate(fd, (off_t)(size - cut))) {
        if ((rc = pd_refresh(&pd))) INVARIANT(pd.err[0]);
        invariants(&pd);
      }
      pd_close(&pd);
    }
  }
  close(fd);
  return 0;
}
