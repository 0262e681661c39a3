/* format.c - unit tests of core/format: DecimalFormat-compatible numbers,
 * padding and header cells (cases from docs/jvmstat.md §4.8, §4.9, §4.14) */
#include "core/jvmtool.h"
#include "core/format.h"

#include <math.h>

#include "check.h"

static const char *num(double v, const char *pattern)
{
  static struct buf b;
  struct fmt_pattern p;

  if (fmt_pattern_parse(pattern, &p)) return "(bad pattern)";
  b.len = 0;
  fmt_number(&b, v, &p, 1);
  return b.p;
}

static const char *header(const char *spec, int w0, int flen, int *w)
{
  static struct buf b;

  b.len = 0;
  buf_adds(&b, "");
  *w = fmt_header(&b, spec, w0, flen);
  return b.p;
}

/* jstat's percentage: (1-((c-u)/c))*100, in this order in doubles */
static double pct(double c, double u)
{
  return (1 - ((c - u) / c)) * 100;
}

int main(void)
{
  struct fmt_pattern p;
  struct buf b = {0};
  int w;

  /* HALF_EVEN on the exact binary value */
  CHECK_STR(num(0.125, "0.00"), "0.12", "0.125 is a tie: to even");
  CHECK_STR(num(0.375, "0.00"), "0.38", "0.375 is a tie: to even");
  CHECK_STR(num(2.5, "0"), "2", "2.5 -> 2");
  CHECK_STR(num(3.5, "0"), "4", "3.5 -> 4");
  CHECK_STR(num(0.25, "0.0"), "0.2", "0.25 with 0.0 -> 0.2");
  CHECK_STR(num(8703.95, "0.0"), "8704.0", "8703.95 is above the tie");
  CHECK_STR(num(3803.15625, "0.0"), "3803.2", "3803.15625 (S1U of §4.14)");
  CHECK_STR(num(77.828125, "0.0"), "77.8", "77.828125 (MU of §4.14)");
  /* JDK 17's DecimalFormat prints 0.000 here; JDK 25 and we print 0.001 */
  CHECK_STR(num(500000 / 1e9, "0.000"), "0.001", "0.0005 as JDK 25");
  CHECK_STR(num(0.099053414, "0.000"), "0.099", "YGCT of §4.14");
  CHECK_STR(num(pct(327680, 79696), "0.00"), "24.32", "M of §4.14");
  CHECK_STR(num(pct(4194312, 3894432), "0.00"), "92.85", "S1 of §4.14");
  /* jstat's formula vs u/c*100 differ in the last digit for ~1 in 10,000
   * pairs: this is one of them */
  CHECK_STR(num(pct(160, 7), "0.00"), "4.37", "c=160 u=7 jstat formula");
  CHECK_STR(num(7.0 / 160 * 100, "0.00"), "4.38", "c=160 u=7 as u/c*100");
  CHECK_STR(num(pct(8, 0), "0.00"), "0.00", "empty space");
  CHECK_STR(num(0.5, "0"), "0", "0.5 -> 0 (even)");
  CHECK_STR(num(0.05, "0.0"), "0.1", "0.05 is above the tie");
  CHECK_STR(num(1.0, "0.000"), "1.000", "trailing zeros kept");
  CHECK_STR(num(95, "0"), "95", "integer");
  /* signs */
  CHECK_STR(num(-0.0, "0"), "-0", "negative zero keeps its sign");
  CHECK_STR(num(0 * (0 - 1.0), "0.00"), "-0.00", "0*(0-1) is -0");
  CHECK_STR(num(-0.0001, "0.00"), "-0.00", "tiny negative rounds to -0.00");
  CHECK_STR(num(-12.345, "0.0"), "-12.3", "negative");
  /* NaN and infinities */
  CHECK_STR(num(NAN, "0.00"), "-", "NaN prints as -");
  CHECK_STR(num(INFINITY, "0.0"), "\xe2\x88\x9e", "+inf is U+221E");
  CHECK_STR(num(-INFINITY, "0.0"), "-\xe2\x88\x9e", "-inf");
  fmt_pattern_parse("0", &p);
  b.len = 0;
  fmt_number(&b, INFINITY, &p, 0);
  CHECK_STR(b.p, "?", "inf under an ASCII locale");
  /* huge values: Java pads the shortest digits with zeros */
  CHECK_STR(num(1e15 + 0.1, "0.00"), "1000000000000000.10",
            "1e15+0.1 pads Double.toString digits");
  CHECK_STR(num(1e20, "0"), "100000000000000000000", "1e20");
  CHECK_STR(num(9007199254740993.0, "0"), "9007199254740992", "2^53+1");
  CHECK_STR(num(123456789012.5, "0"), "123456789012", "big tie to even");
  {
    char want[310] = "1";

    memset(want + 1, '0', 300);
    memcpy(want + 301, ".0", 3);
    CHECK_STR(num(1e300, "0.0"), want, "1e300: shortest digits, zeros");
  }
  /* other DecimalFormat patterns */
  CHECK_STR(num(1234567.891, "#,##0.00"), "1,234,567.89", "grouping");
  CHECK_STR(num(0.5, "#.##"), ".5", "no integer digit");
  CHECK_STR(num(0.25, "0.#"), "0.2", "optional fraction digit");
  CHECK_STR(num(3.0, "0.##"), "3", "optional digits dropped");
  CHECK_STR(num(0.1234, "0.0%"), "12.3%", "percent");
  CHECK_STR(num(5, "'x'0' MB'"), "x5 MB", "quoted affixes");
  CHECK(fmt_pattern_parse("0.0E0", &p) != 0, "exponent is rejected");
  CHECK(fmt_pattern_parse("0#", &p) != 0, "0# is rejected");

  /* padding */
  b.len = 0;
  fmt_pad(&b, "0.00", 4, 6, FMT_RIGHT);
  CHECK_STR(b.p, "  0.00", "right");
  b.len = 0;
  fmt_pad(&b, "ab", 2, 5, FMT_CENTER);
  CHECK_STR(b.p, " ab  ", "centre: odd space right");
  b.len = 0;
  fmt_pad(&b, "", 0, 12, FMT_LEFT);
  CHECK_STR(b.p, "            ", "empty left in 12");
  b.len = 0;
  fmt_pad(&b, "java/util/ArrayList clear", 25, 6, FMT_LEFT);
  CHECK_STR(b.p, "java/util/ArrayList clear", "never truncated");
  b.len = 0;
  fmt_pad(&b, "\xe2\x88\x9e", 3, 3, FMT_RIGHT);
  CHECK_STR(b.p, "  \xe2\x88\x9e", "width counts characters");

  /* header cells, §4.8 and §4.14 */
  CHECK_STR(header("^S0^", 6, 4, &w), "  S0  ", "^S0^");
  CHECK_INT(w, 6, "^S0^ width");
  CHECK_STR(header("^E^", 6, 4, &w), "  E   ", "^E^");
  CHECK_STR(header("^CCS^", 6, 4, &w), " CCS  ", "^CCS^");
  CHECK_STR(header("^YGCT^", 9, 5, &w), "  YGCT   ", "^YGCT^");
  CHECK_STR(header("^GCT^", 9, 5, &w), "   GCT   ", "^GCT^");
  CHECK_STR(header("^LGCC", 20, 1, &w), "LGCC                ", "^LGCC");
  CHECK_STR(header("^Timestamp", 15, 3, &w), "Timestamp      ", "^Timestamp");
  CHECK_STR(header("^Method", 6, 1, &w), "Method", "^Method");
  CHECK_INT(w, 6, "^Method width from the text");
  CHECK_STR(header("Size^", 0, 1, &w), "Size", "caret last: right");
  CHECK_STR(header("^Loaded^", 0, 1, &w), "Loaded", "width from the text");
  CHECK_INT(w, 6, "^Loaded^ width");
  CHECK_STR(header("^X^", 0, 5, &w), "  X  ", "width from the format");
  CHECK_STR(header("a^b", 10, 1, &w), "a^b", "no edge caret: verbatim");
  CHECK_INT(w, 10, "no edge caret: spec width");
  b.len = 0;
  fmt_header_name(&b, "^S0C^");
  CHECK_STR(b.p, "S0C", "header name");

  buf_free(&b);
  return check_failures != 0;
}
