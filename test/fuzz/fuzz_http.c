/* fuzz_http.c - serve's request-head parser (core/http.c) on any bytes
 *
 * Invariants: the answer is 0, 1 (more bytes) or one of the statuses the
 * contract names; a parsed head lies inside the input, ends with an empty
 * line, has a token method and a target without spaces or controls; more
 * bytes after a complete head change nothing; a head cut anywhere before
 * its end is never taken as complete. A header's value and a query
 * parameter lie inside the head, the parameter NUL-terminated within its
 * buffer with no control character. HOST:PORT (http_hostport, of the
 * input and of a Host header) splits into a host inside it, without ':'
 * unless bracketed, and a port of 0 to 65535 whose digits end it.
 */
#include "core/jvmtool.h"
#include "core/http.h"
#include "test/fuzz/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hostport(const char *s, size_t n)
{
  struct http_hostport hp;

  if (http_hostport(s, n, &hp)) return;
  INVARIANT(hp.host >= s && hp.host + hp.host_len < s + n);
  INVARIANT(hp.port >= 0 && hp.port <= 65535 && isdigit((uint8_t)s[n - 1]));
  INVARIANT(hp.v6 ? hp.host == s + 1 && hp.host[hp.host_len] == ']'
                  : hp.host == s && !memchr(hp.host, ':', hp.host_len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *s = (const char *)data;
  struct http_req r, r2;
  int st = http_parse(s, size, &r);
  const char *v;
  char q[32];
  long n;

  hostport(s, size);
  INVARIANT(st == 0 || st == 1 || st == 400 || st == 431 || st == 501 ||
            st == 505);
  INVARIANT(st != 1 || size < HTTP_MAX_HEAD);
  if (st) return 0;
  INVARIANT(r.head_len >= 16 && r.head_len <= size &&
            r.head_len <= HTTP_MAX_HEAD);
  INVARIANT(!memcmp(s + r.head_len - 4, "\r\n\r\n", 4));
  INVARIANT(r.method == s && r.method_len > 0 && r.target > s &&
            r.target + r.target_len <= s + r.head_len);
  for (size_t i = 0; i < r.method_len; i++)
    INVARIANT(!isspace((unsigned char)r.method[i]) && r.method[i] > ' ');
  for (size_t i = 0; i < r.target_len; i++)
    INVARIANT((unsigned char)r.target[i] > ' ' && r.target[i] != 0x7f);
  INVARIANT(r.minor >= 0 && r.minor <= 9);
  INVARIANT(r.keep_alive == 0 || r.keep_alive == 1);
  /* only the head counts */
  INVARIANT(http_parse(s, r.head_len, &r2) == 0 && r2.head_len == r.head_len &&
            r2.keep_alive == r.keep_alive);
  if ((n = http_header(s, &r, "Host", &v)) >= 0) {
    INVARIANT(v > s && v + n <= s + r.head_len);
    hostport(v, (size_t)n);
  }
  if ((n = http_query(r.target, r.target_len, "pid", q, sizeof(q))) >= 0) {
    INVARIANT((size_t)n < sizeof(q) && strlen(q) == (size_t)n);
    for (long i = 0; i < n; i++)
      INVARIANT((unsigned char)q[i] >= ' ' && q[i] != 0x7f);
  } else {
    INVARIANT(n == -1 || n == -2);
  }
  /* cut short: never complete */
  for (size_t cut = 0; cut < r.head_len; cut += 1 + cut / 8)
    INVARIANT(http_parse(s, cut, &r2) != 0);
  return 0;
}
