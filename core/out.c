/* out.c - output escaping shared by commands */
#include "core/jvmtool.h"
#include <math.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
  size_t len;
  uint32_t cp;

  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    len = 2, cp = s[0] & 0x1f;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    len = 3, cp = s[0] & 0x0f;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    len = 4, cp = s[0] & 0x07;
  else
    return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return len;
}

void json_buf(struct buf *b, const char *str, size_t n)
{
  const unsigned char *s = (const unsigned char *)str;

  buf_addc(b, '"');
  for (size_t i = 0; i < n;) {
    size_t len = utf8_len(s + i, n - i);

    if (!len) {
      buf_adds(b, "\xef\xbf\xbd");
      i++;
      continue;
    }
    if (len == 1) {
      unsigned char c = s[i];

      if (c == '"' || c == '\\')
        buf_printf(b, "\\%c", c);
      else if (c == '\n')
        buf_adds(b, "\\n");
      else if (c == '\t')
        buf_adds(b, "\\t");
      else if (c == '\r')
        buf_adds(b, "\\r");
      else if (c < 0x20 || c == 0x7f)
        buf_printf(b, "\\u%04x", c);
      else
        buf_addc(b, (char)c);
    } else {
      buf_add(b, s + i, len);
    }
    i += len;
  }
  buf_addc(b, '"');
}

void json_open(struct json_obj *o, struct buf *b, int spaced)
{
  o->b = b;
  o->fields = 0;
  o->spaced = spaced;
  buf_addc(b, '{');
}

void json_close(struct json_obj *o)
{
  buf_addc(o->b, '}');
}

void json_key(struct json_obj *o, const char *key)
{
  if (o->fields++) buf_adds(o->b, o->spaced ? ", " : ",");
  json_buf(o->b, key, strlen(key));
  buf_adds(o->b, o->spaced ? ": " : ":");
}

void json_str(struct json_obj *o, const char *key, const char *s, size_t n)
{
  json_key(o, key);
  if (s)
    json_buf(o->b, s, n);
  else
    buf_adds(o->b, "null");
}

void json_strz(struct json_obj *o, const char *key, const char *s)
{
  json_str(o, key, s, s ? strlen(s) : 0);
}

void json_int(struct json_obj *o, const char *key, long long v)
{
  json_key(o, key);
  buf_printf(o->b, "%lld", v);
}

void json_num(struct json_obj *o, const char *key, double v)
{
  json_key(o, key);
  if (isfinite(v))
    out_num(o->b, v);
  else
    buf_adds(o->b, "null");
}

void json_bool(struct json_obj *o, const char *key, int v)
{
  json_key(o, key);
  buf_adds(o->b, v < 0 ? "null" : v ? "true" : "false");
}

void out_java_text(struct buf *b, const char *str, size_t n, int utf8)
{
  const unsigned char *s = (const unsigned char *)str;

  for (size_t i = 0; i < n;) {
    size_t len = utf8 ? utf8_len(s + i, n - i) : s[i] < 0x80;

    if (len)
      buf_add(b, s + i, len), i += len;
    else
      buf_adds(b, utf8 ? "\xef\xbf\xbd" : "?"), i++;
  }
}

void xml_buf(struct buf *b, const char *str, size_t n)
{
  const unsigned char *s = (const unsigned char *)str;
  size_t run = 0; /* where the bytes not yet added start */

  for (size_t i = 0; i < n;) {
    size_t len = utf8_len(s + i, n - i);
    const char *esc = NULL;

    if (!len || (len == 1 && s[i] < 0x20 && s[i] != '\t'))
      esc = "\xef\xbf\xbd", len = 1;
    else if (len == 1)
      esc = s[i] == '&'    ? "&amp;"
            : s[i] == '<'  ? "&lt;"
            : s[i] == '>'  ? "&gt;"
            : s[i] == '"'  ? "&quot;"
            : s[i] == '\'' ? "&apos;"
                           : NULL;
    if (esc) { /* names are mostly plain: add them in one piece */
      buf_add(b, s + run, i - run);
      buf_adds(b, esc);
      run = i + len;
    }
    i += len;
  }
  buf_add(b, s + run, n - run);
}

void xml_string(FILE *f, const char *s, size_t n)
{
  struct buf b = {0};

  xml_buf(&b, s, n);
  fwrite(b.p, 1, b.len, f);
  buf_free(&b);
}

void term_buf(struct buf *b, const char *s, size_t n, int keep_nl)
{
  if (term_escaping(-1))
    term_escape(b, s, n, keep_nl);
  else
    buf_add(b, s, n);
}

void term_write(FILE *f, const char *s, size_t n, int keep_nl)
{
  struct buf b = {0};

  if (!term_is_tty(fileno(f))) {
    fwrite(s, 1, n, f);
    return;
  }
  term_escape(&b, s, n, keep_nl);
  fwrite(b.p, 1, b.len, f);
  buf_free(&b);
}

/* A label value (quote escaped) or HELP text / a comment (quote as it
 * is; any other control character as U+FFFD: one line whatever came). */
static void prom_escape(struct buf *b, const char *str, size_t n, int label)
{
  const unsigned char *s = (const unsigned char *)str;

  for (size_t i = 0; i < n;) {
    size_t len = utf8_len(s + i, n - i);

    if (!len)
      buf_adds(b, "\xef\xbf\xbd"), i++;
    else if (len > 1)
      buf_add(b, s + i, len), i += len;
    else if (s[i] == '\\' || (label && s[i] == '"'))
      buf_addc(b, '\\'), buf_addc(b, s[i++]);
    else if (s[i] == '\n')
      buf_adds(b, "\\n"), i++;
    else if (!s[i] || (!label && (s[i] < ' ' || s[i] == 0x7f)))
      buf_adds(b, "\xef\xbf\xbd"), i++;
    else
      buf_addc(b, s[i++]);
  }
}

void prom_label_buf(struct buf *b, const char *s, size_t n)
{
  prom_escape(b, s, n, 1);
}

void prom_help_buf(struct buf *b, const char *s, size_t n)
{
  prom_escape(b, s, n, 0);
}

void out_num(struct buf *b, double v)
{
  char t[32];

  if (isnan(v)) {
    buf_adds(b, "NaN");
    return;
  }
  if (isinf(v)) {
    buf_adds(b, v > 0 ? "+Inf" : "-Inf");
    return;
  }
  if (v == floor(v) && fabs(v) < 1e16) {
    buf_printf(b, "%.0f", v == 0 ? 0.0 : v); /* no "-0" */
    return;
  }
  /* 17 significant digits always read back; the first fewer that do */
  for (int p = 1; p <= 17; p++) {
    snprintf(t, sizeof(t), "%.*g", p, v);
    if (strtod(t, NULL) == v) break;
  }
  buf_adds(b, t);
}
