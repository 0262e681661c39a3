/* top_cols.c - how every part of jvmtool top writes a line: sizes, JVM
 * text, the columns that fit a width and their titles, JSON values. It
 * calls no other part of top, so the parts call downwards only:
 * top.c -> top_tty.c -> top_jvm.c -> top_node.c -> here (and top_clock.c).
 */
#include "core/jvmtool.h"
#include "cmd/top.h"
#include "core/out.h"
#include <math.h>

void top_size(struct buf *b, double v)
{
  static const char unit[] = "BKMGTP";
  int u = 0;

  if (v < 0) {
    buf_adds(b, "-");
    return;
  }
  /* always a fraction and a unit: 0.0K, 512.0K, 1.5G */
  v /= 1024;
  u = 1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    u++;
  }
  buf_printf(b, "%.1f%c", v, unit[u]);
}

void top_add_text(struct buf *b, const char *s, size_t n, int esc)
{
  if (esc)
    term_escape(b, s, n, 0);
  else
    buf_add(b, s, n);
}

unsigned top_fit(const struct top_col *c, size_t n, unsigned have, int width,
                 int last_min)
{
  unsigned mask = have;
  int used = last_min;

  if (width < 0) width = -width; /* fitted to W, and not cut */

  for (size_t i = 0; i < n; i++)
    if (mask & 1u << i) used += c[i].width;
  while (width > 0 && used > width) {
    size_t drop = n;

    for (size_t i = 0; i < n; i++)
      if (mask & 1u << i && c[i].drop &&
          (drop == n || c[i].drop < c[drop].drop))
        drop = i;
    if (drop == n) break;
    mask &= ~(1u << drop);
    used -= c[drop].width;
  }
  return mask;
}

void top_titles(struct buf *b, const struct top_col *c, size_t n, unsigned mask,
                const char *last)
{
  for (size_t i = 0; i < n; i++) {
    if (!(mask & 1u << i)) continue;
    if (c[i].left)
      buf_printf(b, " %-*s", c[i].width - 1, c[i].title);
    else
      buf_printf(b, "%*s", c[i].width, c[i].title);
  }
  buf_printf(b, " %s", last);
}

double top_json_val(double v)
{
  return v < 0 ? NAN : round(v * 1000) / 1000;
}
