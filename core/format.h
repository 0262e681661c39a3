/* format.h - jstat's number formatting, column alignment and header cells
 *
 * A subset of java.text.DecimalFormat patterns as jstat uses them (the
 * built-in options only use "0", "0.0", "0.00", "0.000"): digits '0' and
 * '#', one '.', grouping ',', a literal prefix/suffix ('quoted' or plain),
 * '%' (x100). Rounding is HALF_EVEN on the exact binary value, NaN prints
 * as "-", infinity as the locale's rendering of U+221E.
 */
#ifndef FORMAT_H
#define FORMAT_H

#include "core/lib.h"

enum fmt_align { FMT_CENTER, FMT_LEFT, FMT_RIGHT };

struct fmt_pattern {
  int min_int;  /* integer digits always printed ('0's left of '.') */
  int min_frac; /* fraction digits always printed */
  int max_frac; /* fraction digits at most ('0' and '#' right of '.') */
  int group;    /* grouping size, 0 = none */
  int percent;  /* a '%' in the affixes: value x 100 */
  char prefix[16], suffix[16];
};

/* Parse a DecimalFormat pattern. Returns 0, or -EINVAL for what this subset
 * does not support (exponents, per-mille, currency, bad structure). */
int fmt_pattern_parse(const char *pattern, struct fmt_pattern *out);

/* Append v formatted with p to b, as DecimalFormat would: "-" for NaN, a
 * '-' prefix for negatives including -0.0, "∞"/"-∞" for infinities (or "?"
 * when utf8 is 0, as Java encodes it under an ASCII locale). */
void fmt_number(struct buf *b, double v, const struct fmt_pattern *p, int utf8);

/* Append s (n bytes) padded with spaces to width columns per align; text
 * at least as wide is appended whole (jstat never truncates). Centring puts
 * the odd space on the right. Width counts UTF-8 characters, as jstat counts
 * Java chars. */
void fmt_pad(struct buf *b, const char *s, size_t n, int width,
             enum fmt_align align);

/* A column header spec ("^S0^", "^LGCC", "GCT^", "raw"): the effective
 * width from the spec width w0 and the format length flen (jstat's rule),
 * and the padded header cell appended to b (when b is non-NULL). Returns
 * the effective width. */
int fmt_header(struct buf *b, const char *spec, int w0, int flen);

/* The header text without its alignment carets, into b (for --json/--csv). */
void fmt_header_name(struct buf *b, const char *spec);

/* 1 when the locale environment (LC_ALL, LC_CTYPE, LANG, first set wins)
 * names a UTF-8 charset. */
int fmt_locale_utf8(void);

#endif
