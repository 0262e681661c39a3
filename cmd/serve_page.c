/* serve_page.c - serve in a browser: the page, its files, its JSON
 *
 * GET / with Accept: text/html is the page (web/index.html, its script
 * and style at /page.js and /page.css: no inline script, so the
 * Content-Security-Policy every answer carries forbids any); the flame
 * graphs it shows are the pulls' SVG (format=svg), whose script is
 * /flame.js (core/flame's). All of web/ is in the binary (build.d/web.sh).
 *
 * /api/jvms is top --json's node view (top_node_json), one reading kept
 * for every request: read again when a request comes NODE_EVERY_MS after
 * the last, so CPU, GC and allocation rates are over the time between two
 * requests, as top's over its interval, and a request costs at most one
 * reading of every JVM's PerfData (what a /metrics scrape reads).
 *
 * /api/jvm?pid=P is top --json's thread view of that JVM (top_jvm_json)
 * and its PerfData counters as dump --json writes them. Its view is kept
 * (VIEWS at most, dropped VIEW_IDLE_MS after the last request) for rates
 * from one request to the next; the thread dump that names its threads
 * is an attach exchange the poll loop moves on (DUMP_MS at most), never a
 * wait: the request waits for it as state (WAIT_VIEW), and a JVM that
 * does not answer gets its threads by their native names.
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/serve.h"
#include "core/attach.h"
#include "core/flame.h"
#include "core/hprof_in.h" /* hin_gunzip */
#include "core/perfdata.h"
#include "core/vm.h"
#include <poll.h>

/* web/'s files (build.d/web.sh), each gzip'd */
extern const unsigned char jt_web_index_html_gz[], jt_web_page_js_gz[],
    jt_web_page_css_gz[];
extern const uint64_t jt_web_index_html_gz_size, jt_web_page_js_gz_size,
    jt_web_page_css_gz_size;

enum {
  NODE_EVERY_MS = 1000, /* /api/jvms reads again at most this often */
  VIEWS = PAGE_VIEWS,   /* JVM views kept */
  VIEW_IDLE_MS = 60000, /* a view nobody asked for this long is dropped */
  DUMP_MS = 3000,       /* a thread dump's exchange, at most */
  STACKS = 5,           /* hot stacks of the busiest threads */
  DUMP_EVERY_S = 5,     /* a view's dumps, at most this often */
};

struct view {
  int on, pid;
  struct top_jvm *j;
  struct attach_xchg x;
  int asking; /* x is under way */
  uint64_t used;
};

static struct page_conf conf;
static struct top_node *node;
static uint64_t node_ms;
static int *node_only;
static struct view views[VIEWS];

void page_setup(const struct page_conf *pc)
{
  conf = *pc;
}

int page_wants_html(const char *buf, const struct http_req *r)
{
  const char *v;
  long n = http_header(buf, r, "Accept", &v);

  return n > 0 && memmem(v, (size_t)n, "text/html", 9) != NULL;
}

/* /flame.js: core/flame's script, then its call on load (the SVG has no
 * onload handler when its script is a file) */
static const char *flame_file(size_t *n)
{
  static struct buf b;

  if (!b.len) {
    buf_adds(&b, flame_js);
    buf_adds(&b, "window.addEventListener('load', init);\n");
  }
  *n = b.len;
  return b.p;
}

/* One of web/'s files, inflated when first asked for; NULL if it does
 * not inflate (a broken build). */
struct web_file {
  const unsigned char *gz;
  const uint64_t *gzn;
  unsigned char *p;
  size_t n;
};

static const char *web_file(struct web_file *f, size_t *n)
{
  const char *bad = NULL;

  if (!f->p && hin_gunzip(f->gz, (size_t)*f->gzn, 1 << 20, &f->p, &f->n, &bad))
    f->p = NULL;
  *n = f->n;
  return (const char *)f->p;
}

struct resp *page_file(const char *name, int head, int close_after)
{
  static struct web_file index = {.gz = jt_web_index_html_gz,
                                  .gzn = &jt_web_index_html_gz_size},
                         js = {.gz = jt_web_page_js_gz,
                               .gzn = &jt_web_page_js_gz_size},
                         css = {.gz = jt_web_page_css_gz,
                                .gzn = &jt_web_page_css_gz_size};
  const char *type = "text/html; charset=utf-8", *body;
  size_t n = 0;

  if (!strcmp(name, "page.js")) {
    type = "text/javascript; charset=utf-8";
    body = web_file(&js, &n);
  } else if (!strcmp(name, "page.css")) {
    type = "text/css; charset=utf-8";
    body = web_file(&css, &n);
  } else if (!strcmp(name, "flame.js")) {
    type = "text/javascript; charset=utf-8";
    body = flame_file(&n);
  } else {
    body = web_file(&index, &n);
  }
  if (!body)
    return resp_new(500, "text/plain; charset=utf-8",
                    "the page this binary carries does not inflate\n", 46, head,
                    close_after);
  return resp_new(200, type, body, n, head, close_after);
}

/* The node's reading, again when the last is NODE_EVERY_MS old. Without
 * --all-users, the JVMs serve shows are chosen when top would list them
 * again (top_node_read's TOP_RELIST_NS). */
static void node_refresh(void)
{
  uint64_t now = now_ms();

  if (!node) node = top_node_new();
  if (node_ms && now - node_ms < NODE_EVERY_MS) return;
  if (!conf.all_users && top_node_lists_next(node)) {
    struct vm *v;
    size_t n = serve_shown(0, 0, &v);

    free(node_only);
    node_only = xmalloc((n + 1) * sizeof(*node_only));
    for (size_t i = 0; i < n; i++) node_only[i] = v[i].pid;
    vm_list_free(v, n);
    top_node_only(node, node_only, n);
  }
  top_node_read(node);
  node_ms = now_ms();
}

struct resp *page_node(int head, int close_after)
{
  struct buf b = {0};
  struct resp *r;

  node_refresh();
  top_node_json(node, "node", &b);
  r = resp_new(200, "application/json", b.p, b.len, head, close_after);
  buf_free(&b);
  return r;
}

static void view_drop(struct view *v)
{
  if (v->asking) attach_end(&v->x);
  top_jvm_delete(v->j);
  memset(v, 0, sizeof(*v));
}

/* The view's answer: {"top": top's thread view, "counters": dump's}. */
static struct resp *view_resp(struct view *v, int head, int close_after)
{
  const struct perfdata *pd = top_jvm_perfdata(v->j);
  struct buf b = {0};
  struct resp *r;
  size_t n = pd ? pd->n : 0;

  buf_adds(&b, "{\"top\": ");
  top_jvm_json(v->j, &b);
  buf_adds(&b, ", \"counters\": {");
  for (size_t i = 0; i < n; i++)
    dump_json_counter(&b, pd, pd->counters[i], i == 0);
  buf_adds(&b, n ? "\n}}\n" : "}}\n");
  r = resp_new(200, "application/json", b.p, b.len, head, close_after);
  buf_free(&b);
  return r;
}

/* Begin v's thread dump when one is due and the JVM takes attach; else
 * (refused at once) the reason is in v->j.why. */
static void view_ask(struct view *v)
{
  const char *args[3] = {NULL, NULL, NULL};
  char err[256], *reply = NULL;

  if (v->asking || !top_jvm_dump_now(v->j) || !top_jvm_can_dump(v->j)) return;
  args[0] = top_jvm_dump_line(v->j);
  if (!attach_begin(&v->x, top_jvm_target(v->j), "jcmd", args, DUMP_MS)) {
    v->asking = 1;
    return;
  }
  attach_result(&v->x, &reply, err, sizeof(err));
  free(reply);
  top_jvm_no_dump(v->j, err);
}

/* The view of pid: kept, or made for a JVM serve shows; NULL with the
 * answer in c->out when there is none. */
static struct view *view_of(struct conn *c, int pid, int head)
{
  struct view *v = NULL, *idle = NULL;
  struct vm *vms;
  char line[96], err[256];
  size_t n;

  for (int i = 0; i < VIEWS; i++) {
    if (views[i].on && views[i].pid == pid) return &views[i];
    if (!views[i].on && !v) v = &views[i];
    if (views[i].on && !views[i].asking &&
        (!idle || views[i].used < idle->used))
      idle = &views[i];
  }
  n = serve_shown(conf.all_users, pid, &vms);
  vm_list_free(vms, n);
  if (!n) {
    snprintf(line, sizeof(line), "no JVM with pid %d here", pid);
    c->out = resp_line(404, line, NULL, head);
    c->close_after = 1;
    return NULL;
  }
  if (!v && idle) {
    view_drop(idle);
    v = idle;
  }
  if (!v) {
    c->out = resp_line(503, "every JVM view is busy: try again",
                       "Retry-After: 1\r\n", head);
    c->close_after = 1;
    return NULL;
  }
  if (!(v->j = top_jvm_new(pid, STACKS, DUMP_EVERY_S, err, sizeof(err)))) {
    snprintf(line, sizeof(line), "pid %d: %.70s", pid, err);
    c->out = resp_line(404, line, NULL, head);
    c->close_after = 1;
    return NULL;
  }
  v->on = 1;
  v->pid = pid;
  return v;
}

void page_jvm(struct conn *c, const struct route *r, const char *t, size_t len,
              int head)
{
  struct buf msg = {0};
  char val[32], line[96];
  long long pid;
  struct view *v;
  int rc = route_param(r->params[0], t, len, val, sizeof(val), &pid, &msg);

  if (rc <= 0) {
    if (!rc) buf_printf(&msg, "pid: want %s", r->params[0]->help);
    c->out = resp_line(400, msg.p, NULL, head);
    c->close_after = 1;
    buf_free(&msg);
    return;
  }
  if (!(v = view_of(c, (int)pid, head))) return;
  v->used = now_ms();
  if (!v->asking && (top_jvm_read(v->j) || !top_jvm_found(v->j))) {
    view_drop(v);
    snprintf(line, sizeof(line), "pid %lld exited", pid);
    c->out = resp_line(410, line, NULL, head);
    c->close_after = 1;
    return;
  }
  view_ask(v);
  if (!v->asking) {
    c->out = view_resp(v, head, c->close_after);
    return;
  }
  c->waiting = WAIT_VIEW;
  c->view = (int)(v - views);
  c->deadline = now_ms() + DUMP_MS + WRITE_MS;
}

int page_poll(struct pollfd *pfd, uint64_t *next)
{
  int n = 0;

  for (int i = 0; i < VIEWS; i++) {
    if (!views[i].asking) continue;
    attach_want(&views[i].x, &pfd[n], next);
    if (pfd[n].fd >= 0) n++;
  }
  return n;
}

void page_step(struct conn *conns)
{
  uint64_t now = now_ms();

  for (int i = 0; i < VIEWS; i++) {
    struct view *v = &views[i];
    char err[256], *reply = NULL;

    if (v->on && !v->asking && now - v->used > VIEW_IDLE_MS) view_drop(v);
    if (!v->asking || !attach_step(&v->x)) continue;
    v->asking = 0;
    if (attach_result(&v->x, &reply, err, sizeof(err))) {
      free(reply);
      top_jvm_no_dump(v->j, err);
    } else {
      top_jvm_take(v->j, reply);
    }
    for (int k = 0; k < MAX_CONN; k++) {
      struct conn *c = &conns[k];

      if (c->fd < 0 || c->waiting != WAIT_VIEW || c->view != i) continue;
      c->out = view_resp(v, 0, c->close_after);
      c->waiting = WAIT_NONE;
      c->deadline = now_ms() + WRITE_MS;
    }
  }
}

void page_end(void)
{
  for (int i = 0; i < VIEWS; i++)
    if (views[i].on) view_drop(&views[i]);
  top_node_delete(node);
  node = NULL;
  free(node_only);
  node_only = NULL;
}
