/* http.c - the HTTP/1.x request head (RFC 9112 §2-3, the part serve needs) */
#include "core/jvmtool.h"
#include "core/http.h"

/* tchar (RFC 9110 §5.6.2): the characters of a method or header name. */
static int tchar(unsigned char c)
{
  return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int ieq(const char *a, size_t n, const char *b)
{
  return strlen(b) == n && !strncasecmp(a, b, n);
}

int http_parse(const char *buf, size_t len, struct http_req *r)
{
  const char *p = buf, *end, *eol;
  size_t nh = 0;
  int close = 0, keep = 0;

  memset(r, 0, sizeof(*r));
  if (len > HTTP_MAX_HEAD) len = HTTP_MAX_HEAD;
  end = buf + len;
  /* the head ends at the first empty line */
  for (eol = buf; eol + 3 < end; eol++)
    if (!memcmp(eol, "\r\n\r\n", 4)) break;
  if (eol + 3 >= end) {
    if (memchr(buf, 0, len)) return 400;
    return len < HTTP_MAX_HEAD ? 1 : 431;
  }
  end = eol + 2; /* past the last header line's CRLF */
  r->head_len = (size_t)(eol + 4 - buf);
  /* request line: method SP target SP HTTP/1.x CRLF */
  r->method = p;
  while (p < end && tchar((unsigned char)*p)) p++;
  r->method_len = (size_t)(p - r->method);
  if (!r->method_len || p >= end || *p++ != ' ') return 400;
  r->target = p;
  while (p < end && (unsigned char)*p > ' ' && *p != 0x7f) p++;
  r->target_len = (size_t)(p - r->target);
  if (!r->target_len || p >= end || *p++ != ' ') return 400;
  if (end - p < 10 || memcmp(p, "HTTP/", 5)) return 400;
  if (p[5] != '1' || p[6] != '.' || !isdigit((unsigned char)p[7]))
    return isdigit((unsigned char)p[5]) ? 505 : 400;
  r->minor = p[7] - '0';
  p += 8;
  if (p[0] != '\r' || p[1] != '\n') return 400;
  p += 2;
  /* header lines: name ":" OWS value OWS CRLF */
  while (p < end) {
    const char *name = p, *val, *ve;
    size_t nl;

    if (++nh > HTTP_MAX_HEADERS) return 431;
    while (p < end && tchar((unsigned char)*p)) p++;
    nl = (size_t)(p - name);
    if (!nl || p >= end || *p++ != ':') return 400;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    val = p;
    while (p < end && *p != '\r') {
      unsigned char c = (unsigned char)*p++;

      if ((c < ' ' && c != '\t') || c == 0x7f) return 400;
    }
    if (p + 1 >= end + 1 || p[0] != '\r' || p[1] != '\n') return 400;
    ve = p;
    while (ve > val && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
    p += 2;
    if (ieq(name, nl, "transfer-encoding")) return 501;
    if (ieq(name, nl, "content-length") &&
        !((size_t)(ve - val) == 1 && *val == '0'))
      return 501;
    if (ieq(name, nl, "connection")) {
      for (const char *t = val; t < ve;) {
        size_t k = strcspn(t, ",\r");

        while (k && (t[k - 1] == ' ')) k--;
        if (ieq(t, k, "close")) close = 1;
        if (ieq(t, k, "keep-alive")) keep = 1;
        t += strcspn(t, ",\r");
        if (t < ve && *t == ',') t++;
        while (t < ve && *t == ' ') t++;
      }
    }
  }
  r->keep_alive = !close && (r->minor >= 1 || keep);
  return 0;
}

const char *http_reason(int status)
{
  switch (status) {
  case 200:
    return "OK";
  case 400:
    return "Bad Request";
  case 403:
    return "Forbidden";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 408:
    return "Request Timeout";
  case 409:
    return "Conflict";
  case 410:
    return "Gone";
  case 429:
    return "Too Many Requests";
  case 431:
    return "Request Header Fields Too Large";
  case 500:
    return "Internal Server Error";
  case 501:
    return "Not Implemented";
  case 502:
    return "Bad Gateway";
  case 503:
    return "Service Unavailable";
  case 504:
    return "Gateway Timeout";
  case 505:
    return "HTTP Version Not Supported";
  }
  return "Error";
}

void http_head(struct buf *b, int status, const char *type, size_t length,
               int close_after)
{
  http_head_x(b, status, type, length, close_after, NULL);
}

void http_head_x(struct buf *b, int status, const char *type, size_t length,
                 int close_after, const char *extra)
{
  buf_printf(b, "HTTP/1.1 %d %s\r\n", status, http_reason(status));
  if (type) buf_printf(b, "Content-Type: %s\r\n", type);
  buf_printf(b, "Content-Length: %zu\r\n", length);
  if (close_after) buf_adds(b, "Connection: close\r\n");
  /* every answer, whatever its type: a browser loads only serve's own
   * files and runs no inline script or handler of any (docs/serve.md) */
  buf_adds(b, "Content-Security-Policy: " HTTP_CSP "\r\n"
              "X-Content-Type-Options: nosniff\r\n");
  if (extra) buf_adds(b, extra);
  buf_adds(b, "\r\n");
}

long http_header(const char *buf, const struct http_req *r, const char *name,
                 const char **val)
{
  const char *p = buf, *end = buf + r->head_len - 2;
  size_t nl = strlen(name);

  p += strcspn(p, "\n") + 1; /* past the request line */
  while (p < end) {
    const char *eol = memchr(p, '\r', (size_t)(end - p)), *v, *ve;

    if (!eol) break;
    if ((size_t)(eol - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
      v = p + nl + 1;
      while (v < eol && (*v == ' ' || *v == '\t')) v++;
      ve = eol;
      while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
      *val = v;
      return (long)(ve - v);
    }
    p = eol + 2;
  }
  return -1;
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

long http_query(const char *target, size_t len, const char *name, char *out,
                size_t n)
{
  const char *q = memchr(target, '?', len), *end = target + len;
  size_t nl = strlen(name);

  if (!q) return -1;
  for (q++; q < end;) {
    const char *amp = memchr(q, '&', (size_t)(end - q)), *v;
    size_t k = 0;

    if (!amp) amp = end;
    if ((size_t)(amp - q) >= nl && !memcmp(q, name, nl) &&
        (q + nl == amp || q[nl] == '=')) {
      for (v = q + nl + (q + nl < amp); v < amp; v++) {
        int c = (unsigned char)*v;

        if (c == '+')
          c = ' ';
        else if (c == '%') {
          if (amp - v < 3 || hexval(v[1]) < 0 || hexval(v[2]) < 0) return -2;
          c = hexval(v[1]) * 16 + hexval(v[2]);
          v += 2;
        }
        if (c < ' ' || c == 0x7f || k + 1 >= n) return -2;
        out[k++] = (char)c;
      }
      out[k] = 0;
      return (long)k;
    }
    q = amp + 1;
  }
  return -1;
}

int http_hostport(const char *s, size_t n, struct http_hostport *hp)
{
  const char *colon;
  size_t i;

  memset(hp, 0, sizeof(*hp));
  if (n && s[0] == '[') { /* [V6]: the brackets hold the address */
    const char *rb = memchr(s, ']', n);

    if (!rb || (size_t)(rb - s) + 1 >= n || rb[1] != ':') return -1;
    hp->host = s + 1;
    hp->host_len = (size_t)(rb - s) - 1;
    hp->v6 = 1;
    colon = rb + 1;
  } else {
    if (!(colon = memchr(s, ':', n))) return -1;
    hp->host = s;
    hp->host_len = (size_t)(colon - s);
  }
  if (colon + 1 == s + n || s + n - colon - 1 > 5) return -1;
  for (i = (size_t)(colon + 1 - s); i < n; i++) {
    if (!isdigit((unsigned char)s[i])) return -1;
    hp->port = hp->port * 10 + (s[i] - '0');
  }
  return hp->port > 65535 ? -1 : 0;
}
