/* serve_query.c - what a profile pull asks: its route, its parameters,
 * its JVM; and the JVMs serve shows (serve_shown: every route's)
 *
 * GET /debug/pprof/<route>?pid=...&seconds=... and the route's one time
 * parameter, read through the route's rows (serve_route.c: the path,
 * profile's --event word, each parameter's kind, range and default). Each
 * refusal is a status and one line, with X-Go-Pprof: 1 so go tool pprof
 * shows it.
 */
#include "core/jvmtool.h"
#include "cmd/serve.h"
#include "cmd/cmd.h"
#include "core/jvm.h"
#include "core/vm.h"

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

/* r's parameters (a parameter of another pull is refused, not ignored):
 * its seconds (INT), its time parameter (TIME, ns) and the JVM its TEXT
 * row names (name, n bytes) into *a and name; 0, or a 400 said. */
static int params(struct conn *c, const struct route *r, const char *t,
                  size_t len, int head, struct pull_ask *a, char *name,
                  size_t n)
{
  struct buf msg = {0};
  char v[32] = "";
  long long x;

  if (route_foreign(r, t, len, &msg)) goto bad;
  for (const struct opt *const *p = r->params; *p; p++) {
    int text = (*p)->kind == OPTS_TEXT;

    if (route_param(*p, t, len, text ? name : v, text ? n : sizeof(v), &x,
                    &msg) < 0 ||
        (text && (!name[0] || !strcmp(name, "0"))))
      goto bad;
    if ((*p)->kind == OPTS_TIME)
      a->interval = x;
    else if ((*p)->kind == OPTS_INT)
      a->secs = (long)x;
    else if ((*p)->kind == OPTS_WORD)
      a->svg = x == 1;
  }
  return 0;
bad:
  if (!msg.len) { /* no JVM named: the TEXT row's line */
    for (const struct opt *const *p = r->params; *p; p++)
      if ((*p)->kind == OPTS_TEXT)
        buf_printf(&msg, "%s: want %s", (*p)->lname, (*p)->help);
  }
  pull_fail(c, 400, msg.p, 0, head);
  buf_free(&msg);
  return -1;
}

/* The JVM name names, opened and verified: 0 and *j (jvm_close it), or
 * an answer given (404 for a process that is not a JVM: nothing is sent
 * to it). */
static int which(struct conn *c, const char *name, int head, struct jvm *j)
{
  char err[512];
  int rc;

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

int pull_ask(struct conn *c, const struct route *r, const char *t, size_t len,
             int head, struct pull_ask *a)
{
  char name[256] = "";

  if (!r->event) { /* the prefix row: no such pull */
    struct buf b = {0};
    int k = 0, n = 0;

    for (const struct route *o = routes; o->path; o++)
      n += o->fn == ROUTE_PULL && o->event;
    buf_adds(&b, "no such profile:");
    for (const struct route *o = routes; o->path; o++)
      if (o->fn == ROUTE_PULL && o->event)
        buf_printf(&b, "%s %s", k++ ? (k < n ? "," : " or") : "",
                   strrchr(o->path, '/') + 1);
    pull_fail(c, 404, b.p, 0, head);
    buf_free(&b);
    return -1;
  }
  if (head && !(r->methods & ROUTE_HEAD)) {
    pull_fail(c, 405, "a profile is pulled with GET", 0, head);
    return -1;
  }
  a->event = r->event;
  return params(c, r, t, len, head, a, name, sizeof(name)) ||
                 which(c, name, head, &a->j)
             ? -1
             : 0;
}

size_t serve_shown(int all_users, int pid, struct vm **v)
{
  size_t n, k = 0;

  if (vm_list(v, &n)) n = 0;
  say_skipped();
  for (size_t i = 0; i < n; i++) {
    if (!(*v)[i].alive || (!all_users && (*v)[i].uid != geteuid()) ||
        (pid > 0 && (*v)[i].pid != pid))
      vm_free(&(*v)[i]);
    else
      (*v)[k++] = (*v)[i];
  }
  return k;
}
