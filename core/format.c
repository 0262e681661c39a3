/* format.c - DecimalFormat-compatible numbers, padding and header cells
 *
 * Java's DecimalFormat rounds HALF_EVEN on the exact binary value, like
 * printf("%.Nf") in the default rounding mode, except that when a pattern
 * asks for more digits than Double.toString's shortest round-trip digits, it
 * prints those digits padded with zeros (1e15+0.1 with "0.00" gives
 * "1000000000000000.10"; printf gives ".12"). Below 10^15 in the last printed
 * digit's units the two agree (the grid is coarser than an ulp), so printf
 * alone does the common case.
 * Known deviations: JDK 17 prints the double nearest 0.0005 as "0.000" with
 * "0.000" (we print "0.001", as JDK 25 does); JDK 17's digit generator is not
 * always shortest for values >= 2^53 (2^60 with "0": Java 17 ends in ...980,
 * we print ...847000 like the shortest digits); the decimal separator is
 * always '.' (jstat follows a non-English LC_CTYPE locale).
 */
#include "core/jvmtool.h"
#include "core/format.h"

#include <math.h>

enum { MAX_FRAC = 340 }; /* DecimalFormat's limit for doubles */

static int take_affix(const char **pp, char *out, size_t cap, int *percent)
{
  const char *p = *pp;
  size_t n = 0;

  while (*p && !strchr("0#,.;", *p)) {
    char c = *p++;

    if (c == '\'') {
      if (*p == '\'')
        c = *p++; /* '' is a literal quote */
      else {
        while (*p && *p != '\'') {
          if (n + 1 >= cap) return -EINVAL;
          out[n++] = *p++;
        }
        if (!*p++) return -EINVAL;
        continue;
      }
    } else if (c == '%') {
      *percent = 1;
    } else if (c == 'E' || c == '@' || (unsigned char)c >= 0x80) {
      return -EINVAL; /* exponent, significant digits, */
    }                 /* per-mille/currency: unsupported */
    if (n + 1 >= cap) return -EINVAL;
    out[n++] = c;
  }
  out[n] = 0;
  *pp = p;
  return 0;
}

int fmt_pattern_parse(const char *pattern, struct fmt_pattern *out)
{
  const char *p = pattern;
  int last_comma = -1, ndig = 0, seen_zero = 0, in_frac = 0;

  memset(out, 0, sizeof(*out));
  if (take_affix(&p, out->prefix, sizeof(out->prefix), &out->percent))
    return -EINVAL;
  for (; *p && strchr("0#,.", *p); p++) {
    if (*p == '.') {
      if (in_frac) return -EINVAL;
      in_frac = 1;
    } else if (*p == ',') {
      if (in_frac) return -EINVAL;
      last_comma = ndig;
    } else if (in_frac) {
      if (*p == '0') {
        if (out->max_frac != out->min_frac) return -EINVAL; /* "#0" */
        out->min_frac++;
      }
      if (++out->max_frac > MAX_FRAC) return -EINVAL;
    } else {
      if (*p == '0')
        seen_zero = 1, out->min_int++;
      else if (seen_zero)
        return -EINVAL; /* "0#" */
      ndig++;
    }
  }
  if (last_comma >= 0) out->group = ndig - last_comma;
  if (take_affix(&p, out->suffix, sizeof(out->suffix), &out->percent))
    return -EINVAL;
  /* A ";negative" subpattern only changes affixes; we keep the '-' prefix. */
  if (*p && *p != ';') return -EINVAL;
  if (!out->min_int && !out->max_frac) out->min_int = 1;
  return 0;
}

/* Digits of a >= 0 with exactly frac fraction digits, into out. */
static void fixed(double a, int frac, char *out, size_t cap)
{
  char sci[40], d[24];
  int prec, exp, nd = 0, intd, k = 0;
  double ten = 1; /* 10^frac: exact to 10^22; past it only a < 1e-8 can
                   * pass the test below, and such a value takes the
                   * same "%.*f" on either path */

  for (int i = 0; i < frac && ten < 1e300; i++) ten *= 10;
  if (a * ten < 1e15) {
    snprintf(out, cap, "%.*f", frac, a);
    return;
  }
  for (prec = 1; prec <= 17; prec++) {
    snprintf(sci, sizeof(sci), "%.*e", prec - 1, a);
    if (strtod(sci, NULL) == a) break;
  }
  for (const char *s = sci; *s && *s != 'e'; s++)
    if (isdigit((unsigned char)*s)) d[nd++] = *s;
  exp = (int)strtol(strchr(sci, 'e') + 1, NULL, 10);
  intd = exp + 1;                     /* digits left of the point */
  if (intd < 1 || nd - intd > frac) { /* rounding needed: exact wins */
    snprintf(out, cap, "%.*f", frac, a);
    return;
  }
  for (int i = 0; i < intd; i++) out[k++] = i < nd ? d[i] : '0';
  if (frac) out[k++] = '.';
  for (int i = 0; i < frac; i++) out[k++] = intd + i < nd ? d[intd + i] : '0';
  out[k] = 0;
}

static void add_grouped(struct buf *b, const char *ip, size_t n, int group)
{
  for (size_t i = 0; i < n; i++) {
    if (group && i && (n - i) % group == 0) buf_addc(b, ',');
    buf_addc(b, ip[i]);
  }
}

void fmt_number(struct buf *b, double v, const struct fmt_pattern *p, int utf8)
{
  char num[MAX_FRAC + 400], *dot, *ip;
  size_t il, fl;

  if (isnan(v)) { /* jstat sets the NaN symbol to "-" */
    buf_addc(b, '-');
    return;
  }
  if (signbit(v)) buf_addc(b, '-');
  buf_adds(b, p->prefix);
  v = fabs(v);
  if (p->percent) v *= 100;
  if (isinf(v)) {
    buf_adds(b, utf8 ? "\xe2\x88\x9e" : "?");
    buf_adds(b, p->suffix);
    return;
  }
  fixed(v, p->max_frac, num, sizeof(num));
  ip = num;
  dot = strchr(num, '.');
  il = dot ? (size_t)(dot - num) : strlen(num);
  fl = dot ? strlen(dot + 1) : 0;
  while (fl > (size_t)p->min_frac && dot[fl] == '0') fl--;
  /* Leading zeros: printf gives one "0" for |v| < 1; DecimalFormat prints
   * as many integer digits as the pattern has '0's (none for "#.##"). */
  if (il == 1 && ip[0] == '0') il = 0;
  for (int z = (int)il; z < p->min_int; z++) buf_addc(b, '0');
  if (il == 0 && p->min_int == 0 && fl == 0) buf_addc(b, '0');
  add_grouped(b, ip, il, p->group);
  if (fl) {
    buf_addc(b, '.');
    buf_add(b, dot + 1, fl);
  }
  buf_adds(b, p->suffix);
}

static size_t width_of(const char *s, size_t n)
{
  size_t w = 0;

  for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xc0) != 0x80;
  return w;
}

static void spaces(struct buf *b, size_t n)
{
  while (n--) buf_addc(b, ' ');
}

void fmt_pad(struct buf *b, const char *s, size_t n, int width,
             enum fmt_align align)
{
  size_t w = width_of(s, n),
         pad = width > 0 && (size_t)width > w ? (size_t)width - w : 0;

  if (align == FMT_RIGHT)
    spaces(b, pad);
  else if (align == FMT_CENTER)
    spaces(b, pad / 2);
  buf_add(b, s, n);
  if (align == FMT_LEFT)
    spaces(b, pad);
  else if (align == FMT_CENTER)
    spaces(b, pad - pad / 2);
}

static int max3(int a, int b, int c)
{
  return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

int fmt_header(struct buf *b, const char *spec, int w0, int flen)
{
  size_t l = strlen(spec);
  int first = l > 0 && spec[0] == '^', last = l > 1 && spec[l - 1] == '^';
  int w = w0;

  /* jstat: carets at the ends say where the text sits; the cell widens to
   * the text and to the format pattern's length. Inner carets are text. */
  if (first && last) {
    w = max3(w0, flen, (int)l - 2);
    if (b) fmt_pad(b, spec + 1, l - 2, w, FMT_CENTER);
  } else if (first || last) {
    w = max3(w0, flen, (int)l - 1);
    if (b) fmt_pad(b, spec + first, l - 1, w, first ? FMT_LEFT : FMT_RIGHT);
  } else if (b) {
    buf_add(b, spec, l);
  }
  return w;
}

void fmt_header_name(struct buf *b, const char *spec)
{
  size_t l = strlen(spec);
  int first = l > 0 && spec[0] == '^', last = l > 1 && spec[l - 1] == '^';

  buf_add(b, spec + first, l - first - last);
}

int fmt_locale_utf8(void)
{
  const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};

  for (int i = 0; i < 3; i++) {
    const char *v = getenv(names[i]);

    if (v && *v) return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
  }
  return 0;
}
