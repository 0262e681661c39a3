/* serve_route.c - serve's routes: one row each, with its query parameters
 *
 * A route is a path (a prefix when it ends in '/'), the methods it takes,
 * what answers it (serve.c's answer() dispatches on fn) and its query
 * parameters, each a core/opt row (name, kind, range and default as
 * written; help: what it is). A parameter's 400 line, the index page (GET
 * /) and the tests that hold docs/pull.md and docs/serve.md to it are all
 * made from these rows: a new endpoint or parameter is one row here.
 */
#include "core/jvmtool.h"
#include "cmd/serve.h"

/* A query parameter: a core/opt row (its kind, and its range and default
 * as written; help: what it is, and the 400 line's want when it has no
 * default). */
#define PARAM(name, k, l, h, d, what)                                          \
  {                                                                            \
    .lname = name, .kind = k, .lo = l, .hi = h, .def = d, .help = what         \
  }
#define PARAM_WORDS(name, w, d, what)                                          \
  {                                                                            \
    .lname = name, .kind = OPTS_WORD, .words = w, .def = d, .help = what       \
  }
/* /metrics?pid=: a number only (the node's scrape names JVMs by pid) */
static const struct opt jvm_pid = PARAM("pid", OPTS_INT, "1", "2147483647", "-",
                                        "the pid of one JVM (see /sd)");
/* a pull's JVM: a pid or a part of its main class (core/jvm's grammar) */
static const struct opt pull_jvm =
    PARAM("pid", OPTS_TEXT, NULL, NULL, "-",
          "the pid or main class of one JVM (see /sd)");
static const struct opt seconds =
    PARAM("seconds", OPTS_INT, "1", "60", "10", "how long to record");
/* JFR's sampling period (the allocation sampler's rate; /wall's blocking
 * threshold too) */
static const struct opt interval =
    PARAM("interval", OPTS_TIME, "1ms", "1s", "10ms", "JFR's sampling period");
/* a lock wait shorter than this is not recorded (JFR's threshold) */
static const struct opt threshold =
    PARAM("threshold", OPTS_TIME, "0", "1s", "1ms",
          "a shorter lock wait is not recorded");

/* what a pull answers: pprof, or core/flame's SVG of the same profile
 * (the page's flame graphs) */
static const struct opt format =
    PARAM_WORDS("format", "pprof|svg", "pprof", "what to answer");

const struct route routes[] = {
    {"/",
     ROUTE_GET | ROUTE_HEAD,
     ROUTE_INDEX,
     NULL,
     "this list; a browser (Accept: text/html) gets the page",
     {NULL}},
    {"/metrics",
     ROUTE_GET | ROUTE_HEAD,
     ROUTE_METRICS,
     NULL,
     "every JVM's metrics (Prometheus text), or pid='s only",
     {&jvm_pid, NULL}},
    {"/sd",
     ROUTE_GET | ROUTE_HEAD,
     ROUTE_SD,
     NULL,
     "Prometheus HTTP service discovery: a target group per JVM",
     {NULL}},
    {"/debug/pprof/profile",
     ROUTE_GET,
     ROUTE_PULL,
     "cpu",
     "cpu (pprof)",
     {&seconds, &interval, &pull_jvm, &format, NULL}},
    {"/debug/pprof/allocs",
     ROUTE_GET,
     ROUTE_PULL,
     "alloc",
     "allocations, JFR's sampler (pprof)",
     {&seconds, &interval, &pull_jvm, &format, NULL}},
    {"/debug/pprof/mutex",
     ROUTE_GET,
     ROUTE_PULL,
     "lock",
     "monitor enters and parks (pprof)",
     {&seconds, &threshold, &pull_jvm, &format, NULL}},
    {"/debug/pprof/wall",
     ROUTE_GET,
     ROUTE_PULL,
     "wall",
     "wall-clock time (pprof)",
     {&seconds, &interval, &pull_jvm, &format, NULL}},
    {"/api/jvms",
     ROUTE_GET | ROUTE_HEAD,
     ROUTE_API_NODE,
     NULL,
     "every JVM, as top --json's node view (JSON; the page's table)",
     {NULL}},
    {"/api/jvm",
     ROUTE_GET,
     ROUTE_API_JVM,
     NULL,
     "one JVM: top --json's thread view and dump --json's counters (JSON)",
     {&jvm_pid, NULL}},
    {"/page.js", ROUTE_GET | ROUTE_HEAD, ROUTE_FILE, "page.js", NULL, {NULL}},
    {"/page.css", ROUTE_GET | ROUTE_HEAD, ROUTE_FILE, "page.css", NULL, {NULL}},
    {"/flame.js", ROUTE_GET | ROUTE_HEAD, ROUTE_FILE, "flame.js", NULL, {NULL}},
    /* any other path under it: the pulls' 404 (or 403 when they are off) */
    {"/debug/pprof/", ROUTE_GET | ROUTE_HEAD, ROUTE_PULL, NULL, NULL, {NULL}},
    {NULL, 0, 0, NULL, NULL, {NULL}},
};

const struct route *route_find(const char *path, size_t n)
{
  const struct route *r, *prefix = NULL;

  for (r = routes; r->path; r++) {
    size_t k = strlen(r->path);

    if (k == n && !memcmp(r->path, path, n)) return r;
    if (k > 1 && r->path[k - 1] == '/' && n > k && !memcmp(r->path, path, k))
      prefix = r;
  }
  return prefix;
}

/* "want LO to HI (default DEF)", or the row's help when it has no default */
static void want(struct buf *b, const struct opt *p)
{
  if (!strcmp(p->def, "-"))
    buf_printf(b, "%s", p->help);
  else if (p->kind == OPTS_WORD)
    buf_printf(b, "%s (default %s)", p->words, p->def);
  else
    buf_printf(b, "%s to %s (default %s)", p->lo, p->hi, p->def);
}

/* The last part of r's path ("mutex" of /debug/pprof/mutex). */
static const char *leaf(const struct route *r)
{
  return strrchr(r->path, '/') + 1;
}

static int takes(const struct route *r, const char *name)
{
  for (const struct opt *const *p = r->params; *p; p++)
    if (!strcmp((*p)->lname, name)) return 1;
  return 0;
}

int route_foreign(const struct route *r, const char *t, size_t len,
                  struct buf *msg)
{
  char v[8];

  for (const struct route *o = routes; o->path; o++) {
    if (o == r || o->fn != r->fn) continue;
    for (const struct opt *const *p = o->params; *p; p++) {
      if (takes(r, (*p)->lname) ||
          http_query(t, len, (*p)->lname, v, sizeof(v)) == -1)
        continue;
      buf_printf(msg, "%s: not a parameter of /%s", (*p)->lname, leaf(r));
      for (const struct opt *const *q = r->params; *q; q++)
        if ((*q)->kind == (*p)->kind)
          buf_printf(msg, " (it takes %s)", (*q)->lname);
      return -1;
    }
  }
  return 0;
}

int route_param(const struct opt *p, const char *t, size_t len, char *v,
                size_t n, long long *num, struct buf *msg)
{
  long k = http_query(t, len, p->lname, v, n);

  *num = 0;
  if (k == -1) {
    v[0] = 0;
    if (strcmp(p->def, "-")) opt_value(p, p->def, num);
    return 0;
  }
  if (k > 0 && !opt_value(p, v, num)) return 1;
  buf_printf(msg, "%s: want ", p->lname);
  want(msg, p);
  return -1;
}

void route_index(struct buf *b)
{
  buf_adds(b, "jvmtool serve: metrics at /metrics\n\n");
  for (const struct route *r = routes; r->path; r++) {
    if (!r->what) continue;
    buf_printf(b, "%s %s: %s", r->methods & ROUTE_HEAD ? "GET, HEAD" : "GET",
               r->path, r->what);
    if (r->event) buf_printf(b, "; profile --event %s", r->event);
    buf_addc(b, '\n');
    for (const struct opt *const *p = r->params; *p; p++) {
      buf_printf(b, "  %s=: ", (*p)->lname);
      if (strcmp((*p)->def, "-")) buf_printf(b, "%s, ", (*p)->help);
      want(b, *p);
      buf_addc(b, '\n');
    }
  }
}
