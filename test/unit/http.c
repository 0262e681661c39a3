/* http.c - unit tests of core/http's header and query look-ups (serve's
 * Host for /sd, the pid/seconds of a profile pull) */
#include "core/jvmtool.h"
#include "core/http.h"
#include "check.h"

static void test_query(void)
{
  static const struct {
    const char *target, *name;
    long rc;
    const char *want;
  } t[] = {
      {"/p?pid=42&seconds=3", "pid", 2, "42"},
      {"/p?pid=42&seconds=3", "seconds", 1, "3"},
      {"/p?seconds=3&seconds=9", "seconds", 1, "3"}, /* the first counts */
      {"/p?xpid=1&pid=2", "pid", 1, "2"},            /* whole names only */
      {"/p?pid", "pid", 0, ""},
      {"/p?pid=", "pid", 0, ""},
      {"/p", "pid", -1, NULL},
      {"/p?a=1", "pid", -1, NULL},
      {"/p?pid=org.ex%2FMain+x", "pid", 13, "org.ex/Main x"},
      {"/p?pid=%4", "pid", -2, NULL},               /* cut escape */
      {"/p?pid=%zz", "pid", -2, NULL},              /* not hex */
      {"/p?pid=a%0Ab", "pid", -2, NULL},            /* a control character */
      {"/p?pid=0123456789abcdef", "pid", -2, NULL}, /* over out's 16 bytes */
  };
  char out[16];

  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    long rc = http_query(t[i].target, strlen(t[i].target), t[i].name, out,
                         sizeof(out));

    CHECK_INT(rc, t[i].rc, "http-1.%zu query %s in %s", i + 1, t[i].name,
              t[i].target);
    if (t[i].want && rc >= 0)
      CHECK_STR(out, t[i].want, "http-1.%zu value", i + 1);
  }
}

static void test_header(void)
{
  static const char head[] = "GET /sd HTTP/1.1\r\nAccept: x\r\n"
                             "hOsT:  node-1:9404 \r\nHost: second:1\r\n\r\n";
  struct http_req r;
  const char *v = NULL;
  long n;

  CHECK_INT(http_parse(head, sizeof(head) - 1, &r), 0, "http-2.1 parsed");
  n = http_header(head, &r, "Host", &v);
  CHECK_INT(n, 11, "http-2.2 the first Host, blanks trimmed");
  CHECK(n == 11 && !memcmp(v, "node-1:9404", 11), "http-2.3 its value");
  CHECK_INT(http_header(head, &r, "Hos", &v), -1,
            "http-2.4 a prefix is not it");
  CHECK_INT(http_header(head, &r, "Cookie", &v), -1, "http-2.5 none");
}

int main(void)
{
  test_query();
  test_header();
  return check_failures != 0;
}
