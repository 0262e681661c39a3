/* serve_query.c - what a profile pull asks: its route, its parameters,
 * its JVM
 *
 * GET /debug/pprof/<route>?pid=<pid or main class part>&seconds=<1..60,
 * default 10> and the route's one time parameter (routes[]: interval=,
 * JFR's sampling period; /mutex's threshold=). Each refusal is a status
 * and one line, with X-Go-Pprof: 1 so go tool pprof shows it.
 */
#include "core/jvmtool.h"
#include "cmd/serve.h"
#include "core/jvm.h"

enum { SECONDS_DEF = 10, SECONDS_MAX = 60 };

/* The pulls, a row each: the path under /debug/pprof/, profile's --event
 * word, and its one time parameter (JFR's sampling period, or the lock
 * threshold: a wait shorter is not recorded) with its default and range. */
#define MS 1000000LL
static const struct route {
  const char *path, *event, *param;
  long long def, lo, hi; /* ns */
} routes[] = {
    {"profile", "cpu", "interval", 10 * MS, 1 * MS, 1000 * MS},
    {"allocs", "alloc", "interval", 10 * MS, 1 * MS, 1000 * MS},
    {"mutex", "lock", "threshold", 1 * MS, 0, 1000 * MS},
    {"wall", "wall", "interval", 10 * MS, 1 * MS, 1000 * MS},
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

void pull_fail(struct conn *c, int status, const char *line, int retry,
               int head)
{
  char extra[64], text[512];
  size_t k = 0;

  for (; line[k] && k + 1 < sizeof(text); k++)
    text[k] = (unsigned char)line[k] < ' ' || line[k] == 0x7f ? ' ' : line[k];
  text[k] = 0;
  if (retry > 0)
    snprintf(extra, sizeof(extra), "Retry-After: %d\r\nX-Go-Pprof: 1\r\n",
             retry);
  else
    snprintf(extra, sizeof(extra), "X-Go-Pprof: 1\r\n");
  c->out = resp_line(status, text, extra, head);
  c->close_after = 1;
}


/* seconds= and the route's time parameter (r->param; the other one is
 * refused, not ignored): 0, or a 400 said. */
static int params(struct conn *c, const char *t, size_t len, int head,
                  const struct route *r, long *secs, int64_t *ns)
{
  static const char *const names[] = {"interval", "threshold"};
  char v[32] = "", msg[160];
  long long x, s = SECONDS_DEF;
  struct buf b = {0};
  long n;

  if ((n = http_query(t, len, "seconds", v, sizeof(v))) != -1) {
    if (n <= 0 || parse_long(v, 1, SECONDS_MAX, &s)) {
      snprintf(msg, sizeof(msg), "seconds: want 1 to %d (default %d)",
               SECONDS_MAX, SECONDS_DEF);
      pull_fail(c, 400, msg, 0, head);
      return -1;
    }
  }
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (strcmp(names[i], r->param) &&
        http_query(t, len, names[i], v, sizeof(v)) != -1) {
      snprintf(msg, sizeof(msg), "%s: not a parameter of /%s (it takes %s)",
               names[i], r->path, r->param);
      pull_fail(c, 400, msg, 0, head);
      return -1;
    }
  x = r->def;
  if ((n = http_query(t, len, r->param, v, sizeof(v))) != -1 &&
      (n <= 0 || parse_span(v, &x) || x < r->lo || x > r->hi)) {
    buf_printf(&b, "%s: want ", r->param);
    if (r->lo)
      span_text(&b, r->lo);
    else
      buf_addc(&b, '0');
    buf_adds(&b, " to ");
    span_text(&b, r->hi);
    buf_adds(&b, " (default ");
    span_text(&b, r->def);
    buf_adds(&b, ")");
    pull_fail(c, 400, b.p, 0, head);
    buf_free(&b);
    return -1;
  }
  *ns = x;
  *secs = (long)s;
  return 0;
}

/* The JVM pid= names, opened and verified: 0 and *j (jvm_close it), or
 * an answer given (404 for a process that is not a JVM: nothing is sent
 * to it). */
static int which(struct conn *c, const char *t, size_t len, int head,
                 struct jvm *j)
{
  char name[256], err[512];
  long n = http_query(t, len, "pid", name, sizeof(name));
  int rc;

  if (n <= 0 || !strcmp(name, "0")) {
    pull_fail(c, 400, "pid: want the pid or main class of one JVM (see /sd)", 0,
         head);
    return -1;
  }
  if (!(rc = jvm_open(j, name, JVM_PROCESS, err, sizeof(err))) &&
      !(rc = jvm_check_jvm(j, err, sizeof(err))))
    return 0;
  jvm_close(j);
  pull_fail(c,
       rc == -ESRCH || rc == -EPERM ? 404
       : rc == -E2BIG               ? 409
                                    : 400,
       err, 0, head);
  return -1;
}

int pull_ask(struct conn *c, const char *t, size_t len, int head,
             struct pull_ask *a)
{
  size_t plen = strcspn(t, "? \r") - 13;
  const struct route *r = NULL;

  for (size_t i = 0; i < NROUTES; i++)
    if (strlen(routes[i].path) == plen && !memcmp(t + 13, routes[i].path, plen))
      r = &routes[i];
  if (!r) {
    struct buf b = {0};

    buf_adds(&b, "no such profile:");
    for (size_t i = 0; i < NROUTES; i++)
      buf_printf(&b, "%s %s", i ? (i + 1 < NROUTES ? "," : " or") : "",
                 routes[i].path);
    pull_fail(c, 404, b.p, 0, head);
    buf_free(&b);
    return -1;
  }
  if (head) {
    pull_fail(c, 405, "a profile is pulled with GET", 0, head);
    return -1;
  }
  a->event = r->event;
  return params(c, t, len, head, r, &a->secs, &a->interval) ||
                 which(c, t, len, head, &a->j)
             ? -1
             : 0;
}
