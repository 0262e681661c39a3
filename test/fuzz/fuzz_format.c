/* fuzz_format.c - DecimalFormat patterns and half-even number formatting
 *
 * Input: 8 bytes of a double, then a pattern. Invariants for plain patterns
 * (digits and one '.', no grouping, affixes or percent): the text reads
 * back within half a unit of the last printed digit of the value, and a
 * negative value prints as '-' followed by the text of its magnitude.
 */
#include "core/jvmtool.h"
#include "core/format.h"
#include "test/fuzz/check.h"
#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fmt_pattern p;
  struct buf pos = {0}, neg = {0};
  char *pattern;
  double v;

  if (size < 8) return 0;
  memcpy(&v, data, 8);
  pattern = xstrndup((const char *)data + 8, size - 8);
  if (fmt_pattern_parse(pattern, &p)) {
    free(pattern);
    return 0;
  }
  fmt_number(&pos, fabs(v), &p, 1);
  fmt_number(&neg, -fabs(v), &p, 1);
  INVARIANT(pos.len > 0 && neg.len > 0);
  if (isnan(v)) {
    INVARIANT(!strcmp(pos.p, "-") && !strcmp(neg.p, "-"));
  } else if (!p.group && !p.percent && !p.prefix[0] && !p.suffix[0]) {
    INVARIANT(neg.p[0] == '-' && !strcmp(neg.p + 1, pos.p));
    if (isfinite(v) && fabs(v) < 1e15 && p.max_frac <= 15) {
      double back = strtod(pos.p, NULL);
      double unit = pow(10, -p.max_frac);

      INVARIANT(fabs(back - fabs(v)) <=
                unit / 2 * (1 + 1e-9) + fabs(v) * 1e-15);
    }
  }
  buf_free(&pos);
  buf_free(&neg);
  free(pattern);
  return 0;
}
