/* http.h - the HTTP/1.x request head, parsed from bytes a client sent
 *
 * serve's only parser of untrusted network input, and a fuzz target
 * (test/fuzz/fuzz_http.c). No allocation: the result points into the
 * caller's buffer.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>

enum {
  HTTP_MAX_HEAD = 8192, /* request line and headers, bytes */
  HTTP_MAX_HEADERS = 64,
};

struct http_req {
  const char *method, *target; /* not NUL-terminated */
  size_t method_len, target_len;
  size_t head_len; /* bytes of the head, final CRLF included */
  int minor;       /* HTTP/1.<minor> */
  int keep_alive;  /* the connection may serve another */
};

/* Parse the request head at buf (len bytes received so far). Returns 0
 * with *r filled when the head is complete; 1 when more bytes are needed
 * (len < HTTP_MAX_HEAD); or the HTTP status to answer with: 400 malformed,
 * 431 head too large or too many headers, 505 not HTTP/1.x, 501 a body
 * (Content-Length other than 0, Transfer-Encoding). */
int http_parse(const char *buf, size_t len, struct http_req *r);

/* The reason phrase of an HTTP status serve answers with ("Not Found"),
 * "Error" for any other. */
const char *http_reason(int status);

/* What every response says a browser may do with it: load nothing but
 * the server's own files (no remote loads), run no inline script and no
 * inline event handler (styles may be inline: the flame graph's), be
 * framed only by the server's own pages. */
#define HTTP_CSP                                                               \
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "  \
  "img-src 'self' data:; object-src 'none'; base-uri 'none'; "                 \
  "form-action 'none'; frame-ancestors 'self'"

/* Append a whole response head to b: status line, Content-Type (none when
 * type is NULL), Content-Length, Connection: close when close_after, the
 * Content-Security-Policy (HTTP_CSP) and X-Content-Type-Options: nosniff
 * headers, and the empty line that ends the head. */
struct buf;
void http_head(struct buf *b, int status, const char *type, size_t length,
               int close_after);
/* The same with more header lines (extra: "Name: value\r\n" each; NULL
 * or "" for none) before the empty line. */
void http_head_x(struct buf *b, int status, const char *type, size_t length,
                 int close_after, const char *extra);

/* The value of the first header named name (case-insensitive) in r's
 * head (buf: what http_parse parsed), without its surrounding blanks:
 * its length, *val pointing into buf; -1 when there is none. */
long http_header(const char *buf, const struct http_req *r, const char *name,
                 const char **val);

/* The first value of query parameter name in target (a request target:
 * "/path?a=1&b=2"), %XX and '+' decoded into out (n bytes, NUL-terminated):
 * its length, or -1 when there is none, -2 when it does not fit or decodes
 * to a control character. */
long http_query(const char *target, size_t len, const char *name, char *out,
                size_t n);

/* HOST:PORT split, the one grammar of an address serve is given or sent
 * (--listen, --advertise, a Host header): HOST is "[" V6 "]" (v6 set,
 * host the text between the brackets) or text without ':' (possibly
 * empty), PORT 1 to 5 digits, 0 to 65535. What the host may be, and
 * whether port 0 is taken, is each use's own check. */
struct http_hostport {
  const char *host; /* into s, host_len bytes */
  size_t host_len;
  int v6;
  int port;
};
/* s (n bytes) split into *hp: 0, or -1 when it is not HOST:PORT. */
int http_hostport(const char *s, size_t n, struct http_hostport *hp);

#endif
