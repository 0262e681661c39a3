/* fuzz_fold.c - the stack folder on any lines, in every mode
 *
 * Invariants: folding the same line twice doubles its total; no folded
 * key is empty, has a NUL or a newline; the totals do not depend on the
 * order of the lines (each distinct stack is folded once and remembered:
 * what is remembered must not depend on which line came first); the
 * input folded as a file by fold_fd (lines found 64 bytes a step,
 * look-ups in batches) gives what fold_line gives line by line: the same
 * totals, counts and bad lines.
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "test/fuzz/check.h"

#include <sys/mman.h>

/* fold_fd on a file holding text[0..n) against fold_line on its lines. */
static void as_file(const struct fold_opts *o, const char *text, size_t n)
{
  int fd = memfd_create("fuzz_fold", 0);
  struct fold *a, *b;
  const struct fold_stack *x, *y;
  const struct fold_stats *sa, *sb;
  size_t nx, ny;

  if (fd < 0) return;
  if (write(fd, text, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET)) {
    close(fd);
    return;
  }
  a = fold_new(o);
  b = fold_new(o);
  INVARIANT(fold_fd(a, fd, "f") == 0);
  for (size_t at = 0; at < n;) {
    const char *e = memchr(text + at, '\n', n - at);
    size_t end = e ? (size_t)(e - text) : n;

    fold_line(b, text + at, end - at);
    at = end + 1;
  }
  nx = fold_result(a, &x);
  ny = fold_result(b, &y);
  INVARIANT(nx == ny);
  for (size_t i = 0; i < nx; i++)
    INVARIANT(x[i].len == y[i].len && !memcmp(x[i].key, y[i].key, x[i].len) &&
              x[i].value == y[i].value);
  sa = fold_stats(a);
  sb = fold_stats(b);
  INVARIANT(sa->lines == sb->lines && sa->samples == sb->samples &&
            sa->bad == sb->bad && sa->skipped == sb->skipped &&
            sa->nfirst_bad == sb->nfirst_bad);
  for (int i = 0; i < sa->nfirst_bad; i++) /* "f:N: why" and "-:N: why" */
    INVARIANT(!strcmp(sa->first_bad[i] + 1, sb->first_bad[i] + 1));
  fold_free(a);
  fold_free(b);
  close(fd);
}

static void fold_lines(struct fold *f, const char *p, size_t n, int backward)
{
  const char *end = p + n;

  while (p < end) {
    const char *e = backward ? memrchr(p, '\n', (size_t)(end - p))
                             : memchr(p, '\n', (size_t)(end - p));

    if (backward) {
      const char *s = e ? e + 1 : p;

      if (s == end || *s != '#') fold_line(f, s, (size_t)(end - s));
      end = e ? e : p;
    } else {
      if (!e) e = end;
      if (*p != '#') fold_line(f, p, (size_t)(e - p));
      p = e + 1;
    }
  }
}

/* Whether some sum of the lines' values could saturate a total: then
 * the order of the lines may show. */
static int may_saturate(const char *text, size_t n)
{
  char *p = xmalloc(n + 1);
  __int128 sum = 0;

  memcpy(p, text, n);
  p[n] = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i] == ' ' || p[i] == '-' || p[i] == '+') {
      long long v = strtoll(p + i + 1, NULL, 10);

      sum += v < 0 ? -(__int128)v : v;
    }
  free(p);
  return sum >= (__int128)1 << 62;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fold_opts o = {.gc_lo = -1, .gc_hi = -1};
  const struct fold_stack *once, *twice, *fwd, *bwd;
  struct fold *a, *b;
  const char *text = (const char *)data + (size ? 1 : 0);
  size_t len = size ? size - 1 : 0, n1, n2;

  if (size) {
    o.no_squash = data[0] & 1;
    o.type_frames = data[0] & 2;
    o.normalize = data[0] & 4;
    static const char *const a[] = {"a", "zq"};

    o.filters = a;
    o.nfilters = data[0] & 8 ? 1 + !!(data[0] & 64) : 0;
    o.keep_unmatched = data[0] & 16;
    o.samples = data[0] & 32;
    o.format = data[0] & 64 ? FOLD_FOLDED : FOLD_STACKS;
  }
  if (!memchr(text, '\n', len)) {
    a = fold_new(&o);
    b = fold_new(&o);
    fold_line(a, text, len);
    fold_line(b, text, len);
    fold_line(b, text, len);
    n1 = fold_result(a, &once);
    n2 = fold_result(b, &twice);
    INVARIANT(n1 == n2 && n1 <= 1);
    if (n1) {
      if (once[0].value < (INT64_C(1) << 61) &&
          once[0].value > -(INT64_C(1) << 61))
        INVARIANT(twice[0].value == 2 * once[0].value);
      INVARIANT(once[0].len && !memchr(once[0].key, 0, once[0].len) &&
                !memchr(once[0].key, '\n', once[0].len));
    }
    fold_free(a);
    fold_free(b);
  }
  a = fold_new(&o);
  b = fold_new(&o);
  fold_lines(a, text, len, 0);
  fold_lines(b, text, len, 1);
  n1 = fold_result(a, &fwd);
  n2 = fold_result(b, &bwd);
  INVARIANT(n1 == n2);
  for (size_t i = 0; i < n1; i++) {
    INVARIANT(fwd[i].len == bwd[i].len &&
              !memcmp(fwd[i].key, bwd[i].key, fwd[i].len));
    INVARIANT(fwd[i].value == bwd[i].value || may_saturate(text, len));
    INVARIANT(!memchr(fwd[i].key, '\n', fwd[i].len));
  }
  fold_free(a);
  fold_free(b);
  as_file(&o, text, len);
  return 0;
}
