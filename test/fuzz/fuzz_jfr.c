/* fuzz_jfr.c - the JFR reader and folder (core/jfr*) on any bytes
 *
 * Invariants: the same input read twice gives the same stacks and totals,
 * and read from a pipe (a chunk in memory) the same as from a file;
 * counting samples, the totals add up to the events used (none lost, no
 * overflow; JFR's own stacks, left out unless kept, are not used); no
 * stack holds a control character; a "[unknown]" frame or "[no stack]"
 * appears only when the reader counted a missing reference
 * (or the input spells that text itself).
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/jfr.h"
#include "test/fuzz/check.h"
#include <sys/mman.h>

struct run {
  struct buf out;
  struct jfr_fold_stats st;
  uint64_t sum;
};

static void run(const uint8_t *data, size_t size, int pipe_in, int samples,
                struct run *r)
{
  static const char *const events[] = {NULL, "lock", "alloc", "jdk.ThreadPark"};
  struct jfr_fold_opts jo = {.event = events[size % 4],
                             .value = size % 4 == 3 ? "duration" : NULL,
                             .lines = (int)(size / 4 % 2),
                             .thread_frames = (int)(size / 8 % 2),
                             .samples = samples,
                             .from_ns = -1,
                             .to_ns = -1,
                             .keep_own = (int)(size / 16 % 2)};
  struct fold_opts o = {.no_squash = 1, .gc_lo = -1, .gc_hi = -1};
  struct fold *f = fold_new(&o);
  struct jfr_fold *jf = jfr_fold_new(f, &jo);
  const struct fold_stack *st;
  const char *unit;
  char err[256];
  int fd, p[2];
  size_t n;

  if (pipe_in) {
    INVARIANT(!pipe(p));
    INVARIANT(write(p[1], data, size) == (ssize_t)size);
    close(p[1]);
    fd = p[0];
  } else {
    fd = memfd_create("jfr", MFD_CLOEXEC);
    INVARIANT(fd >= 0 && write(fd, data, size) == (ssize_t)size);
  }
  jfr_fold_fd(jf, fd, "fuzz", err, sizeof(err));
  close(fd);
  jfr_fold_finish(jf, &unit);
  n = fold_result(f, &st);
  memset(r, 0, sizeof(*r));
  r->st = *jfr_fold_stats(jf);
  for (size_t i = 0; i < n; i++) {
    INVARIANT(st[i].len > 0);
    for (uint32_t k = 0; k < st[i].len; k++)
      INVARIANT((unsigned char)st[i].key[k] >= 0x20 && st[i].key[k] != 0x7f);
    if (samples) INVARIANT(st[i].value >= 1);
    r->sum += (uint64_t)st[i].value;
    buf_add(&r->out, st[i].key, st[i].len);
    buf_printf(&r->out, " %" PRId64 "\n", st[i].value);
  }
  jfr_fold_free(jf);
  fold_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct run a, b, c;

  run(data, size, 0, 0, &a);
  run(data, size, 0, 0, &b);
  INVARIANT(a.out.len == b.out.len &&
            (!a.out.len || !memcmp(a.out.p, b.out.p, a.out.len)));
  INVARIANT(!memcmp(&a.st, &b.st, sizeof(a.st)));
  if (a.out.len && !a.st.unknown_frames && !memmem(data, size, "[unknown]", 9))
    INVARIANT(!memmem(a.out.p, a.out.len, "[unknown]", 9));
  if (a.out.len && !a.st.no_stack && !memmem(data, size, "[no stack]", 10))
    INVARIANT(!memmem(a.out.p, a.out.len, "[no stack]", 10));
  buf_free(&b.out);
  run(data, size, 0, 1, &c);
  INVARIANT(c.sum == c.st.used);
  buf_free(&c.out);
  if (size < 60000) { /* what a pipe holds without a reader */
    run(data, size, 1, 0, &b);
    INVARIANT(a.out.len == b.out.len &&
              (!a.out.len || !memcmp(a.out.p, b.out.p, a.out.len)));
    buf_free(&b.out);
  }
  buf_free(&a.out);
  return 0;
}
