/* fuzz_fold.c - the stack folder on any line, in every mode
 *
 * Invariants: folding the same line twice doubles its total; no folded
 * key is empty, has a NUL or a newline; totals equal the sum of the
 * values of the lines that were kept.
 */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "test/fuzz/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fold_opts o = {.gc_lo = -1, .gc_hi = -1};
  const struct fold_stack *once, *twice;
  struct fold *a, *b;
  const char *line = (const char *)data + (size ? 1 : 0);
  size_t len = size ? size - 1 : 0, n1, n2;

  if (memchr(line, '\n', len)) return 0;
  if (size) {
    o.no_squash = data[0] & 1;
    o.type_frames = data[0] & 2;
    o.normalize = data[0] & 4;
    o.filter = data[0] & 8 ? "a" : NULL;
    o.keep_unmatched = data[0] & 16;
    o.samples = data[0] & 32;
  }
  a = fold_new(&o);
  b = fold_new(&o);
  fold_line(a, line, len);
  fold_line(b, line, len);
  fold_line(b, line, len);
  n1 = fold_result(a, &once);
  n2 = fold_result(b, &twice);
  INVARIANT(n1 == n2 && n1 <= 1);
  if (n1) {
    if (once[0].value < (INT64_C(1) << 61) && once[0].value > -(INT64_C(1) << 61))
      INVARIANT(twice[0].value == 2 * once[0].value);
    INVARIANT(once[0].len && !memchr(once[0].key, 0, once[0].len) &&
              !memchr(once[0].key, '\n', once[0].len));
  }
  fold_free(a);
  fold_free(b);
  return 0;
}
