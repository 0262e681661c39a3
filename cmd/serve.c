/* serve.c - one Prometheus endpoint for every JVM on the host
 *
 * GET /metrics renders every JVM core/vm finds (other users with
 * --all-users, other containers), read fresh at each scrape, through
 * core/prom (the renderer of dump --prometheus). One thread and poll:
 * each connection has a fixed head buffer (HTTP_MAX_HEAD) and a deadline;
 * nothing is done before a whole request head has come; the oldest idle
 * connection makes room when MAX_CONN are open.
 *
 * A scrape goes one JVM a step between two polls (core/prom's struct
 * prom_scrape: open, render, close before the next), so other requests
 * are answered between JVMs and memory holds one JVM's file and the
 * exposition being built. A JVM whose file cannot be read, or is over
 * core/vm's budget, or comes after the scrape has spent
 * PROM_SCRAPE_BUDGET_MS, is a "# " comment and jvmtool_scrape_error 1;
 * every JVM has jvmtool_scrape_duration_seconds. Requests for /metrics
 * that come during a scrape wait for it and share its response (at most
 * MAX_RESP distinct ones are written at once).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/serve.h"
#include "core/http.h"
#include "core/prom.h"
#include "core/vm.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#define OPTS_FILE "specs/serve.opts"
#include "core/opt_table.h"

/* At exit, the recordings of pulls under way are stopped within this (a
 * JVM that does not answer in time is left to its duration=). */
enum { DRAIN_MS = 5000 };

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
  (void)sig;
  stopping = 1;
}

static void conn_close(struct conn *c)
{
  if (c->waiting == WAIT_PULL) pull_abandon(c);
  close(c->fd);
  c->fd = -1;
  c->waiting = 0;
  resp_put(c->out);
  c->out = NULL;
}

/* --listen: core/http's HOST:PORT with a numeric address (ADDR:PORT,
 * :PORT every address, [V6]:PORT), port 0 taken (any free one). 0 or -1. */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
                        socklen_t *len)
{
  struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
  struct http_hostport hp;
  char host[64];

  if (http_hostport(s, strlen(s), &hp) || hp.host_len >= sizeof(host))
    return -1;
  memcpy(host, hp.host, hp.host_len);
  host[hp.host_len] = 0;
  memset(ss, 0, sizeof(*ss));
  if (hp.v6) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons((uint16_t)hp.port);
    *len = sizeof(*in6);
    return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ? 0 : -1;
  }
  in4->sin_family = AF_INET;
  in4->sin_port = htons((uint16_t)hp.port);
  *len = sizeof(*in4);
  if (!host[0]) {
    in4->sin_addr.s_addr = htonl(INADDR_ANY);
    return 0;
  }
  return inet_pton(AF_INET, host, &in4->sin_addr) == 1 ? 0 : -1;
}

/* The scrape under way, if any: core/prom's, one JVM a step. */
struct scrape {
  int on;
  int all_users; /* --all-users: other users' JVMs too */
  int names;     /* --names simpleclient: PROM_SIMPLECLIENT, else 0 */
  struct prom_scrape s;
};

/* Every JVM a scrape shows (only pid when pid > 0) into *v: how many. */
static size_t shown(const struct scrape *s, int pid, struct vm **v)
{
  return serve_shown(s->all_users, pid, v);
}

static void scrape_start(struct scrape *s, int raw)
{
  struct vm *v;
  size_t k = shown(s, 0, &v);

  prom_scrape_begin(&s->s, v, k,
                    PROM_SCRAPE_SELF | s->names | (raw ? PROM_RAW : 0));
  s->on = 1;
}

/* The next JVM; 1 when the scrape is over. */
static int scrape_step(struct scrape *s)
{
  const struct vm *v;

  return prom_scrape_step(&s->s, &v) == 0 || s->s.i >= s->s.n;
}

static struct resp *error_resp(int status)
{
  char line[64];

  snprintf(line, sizeof(line), "%d %s", status, http_reason(status));
  return resp_line(status, line, NULL, 0);
}

static struct scrape scr;
static struct sd_conf sdc;

/* /metrics?pid=P (route r's pid row): that one JVM, rendered now (one
 * JVM is what a step of the node's scrape reads, under core/vm's budget),
 * or 404 when it is no JVM this serve shows; 400 for a pid the row does
 * not take. */
static struct resp *one_jvm(const struct route *r, const char *t, size_t len,
                            int head, int raw, int *close_after)
{
  struct scrape one = scr;
  struct buf body = {0}, msg = {0};
  char v[32], line[96];
  struct resp *out;
  struct vm *vms;
  long long pid;
  long n;

  if (route_param(r->params[0], t, len, v, sizeof(v), &pid, &msg) < 0) {
    *close_after = 1;
    out = resp_line(400, msg.p, NULL, head);
    buf_free(&msg);
    return out;
  }
  if (!(n = (long)shown(&scr, (int)pid, &vms))) {
    free(vms);
    snprintf(line, sizeof(line), "no JVM with pid %lld here", pid);
    *close_after = 1;
    return resp_line(404, line, NULL, head);
  }
  prom_scrape_begin(&one.s, vms, (size_t)n,
                    PROM_SCRAPE_SELF | scr.names | (raw ? PROM_RAW : 0));
  while (!scrape_step(&one))
    ;
  prom_scrape_end(&one.s, &body);
  out =
      resp_new(200, PROM_CONTENT_TYPE, body.p ? body.p : "", body.len, head, 0);
  buf_free(&body);
  return out;
}

/* /metrics: c waits for the scrape under way (one is begun if none is),
 * unless MAX_RESP distinct responses are being written, when a GET shares
 * the newest (memory stays bounded). */
static void metrics(struct conn *conns, struct conn *c, int head, int raw)
{
  struct resp *live[MAX_RESP] = {0}, *newest = NULL;
  size_t nlive = 0;

  for (int i = 0; i < MAX_CONN; i++) {
    struct resp *o = conns[i].out;
    size_t k = 0;

    if (conns[i].fd < 0 || !o || o->head) continue;
    while (k < nlive && live[k] != o) k++;
    if (k == nlive && nlive < MAX_RESP) live[nlive++] = o;
    if (!newest || o->made > newest->made) newest = o;
  }
  if (nlive >= MAX_RESP && newest && !head) {
    newest->refs++;
    c->out = newest;
    return;
  }
  c->waiting = head ? WAIT_HEAD : WAIT_GET;
  if (!scr.on) scrape_start(&scr, raw);
}

/* The scrape is over: its response to every connection waiting for it. */
static void scrape_done(struct conn *conns)
{
  struct buf body = {0};
  struct resp *r[2];

  prom_scrape_end(&scr.s, &body);
  scr.on = 0;
  for (int h = 0; h < 2; h++) {
    r[h] =
        resp_new(200, PROM_CONTENT_TYPE, body.p ? body.p : "", body.len, h, 0);
    r[h]->made = now_ms();
  }
  for (int i = 0; i < MAX_CONN; i++) {
    struct conn *c = &conns[i];

    if (c->fd < 0 || (c->waiting != WAIT_GET && c->waiting != WAIT_HEAD))
      continue;
    c->out = r[c->waiting - 1];
    c->out->refs++;
    c->waiting = 0;
    c->deadline = now_ms() + WRITE_MS;
  }
  resp_put(r[0]);
  resp_put(r[1]);
  buf_free(&body);
}

/* A complete head is in c->in: answer it, by its route's row. */
static void answer(struct conn *conns, struct conn *c, int raw)
{
  struct http_req r;
  int st = http_parse(c->in, c->inlen, &r), head;
  const struct route *rt;
  struct buf index = {0};
  size_t qlen;
  char pid[32];

  if (st == 1) return;
  c->deadline = now_ms() + WRITE_MS;
  if (st) {
    c->out = error_resp(st);
    c->close_after = 1;
    return;
  }
  c->close_after = !r.keep_alive;
  head = r.method_len == 4 && !memcmp(r.method, "HEAD", 4);
  qlen = r.target_len; /* the path, without a query string */
  r.target_len = strcspn(r.target, "? \r");
  rt = route_find(r.target, r.target_len);
  if (!head && !(r.method_len == 3 && !memcmp(r.method, "GET", 3))) {
    c->out = error_resp(405);
    c->close_after = 1;
  } else if (!rt) {
    c->out = error_resp(404);
    c->close_after = 1;
  } else if (head && !(rt->methods & ROUTE_HEAD) && rt->fn != ROUTE_PULL) {
    c->out = error_resp(405); /* a pull says its own, after its 403, 404 */
    c->close_after = 1;
  } else if (rt->fn == ROUTE_METRICS &&
             http_query(r.target, qlen, "pid", pid, sizeof(pid)) != -1) {
    c->out = one_jvm(rt, r.target, qlen, head, raw, &c->close_after);
  } else if (rt->fn == ROUTE_METRICS) {
    metrics(conns, c, head, raw);
  } else if (rt->fn == ROUTE_PULL) {
    pull_request(c, rt, r.target, qlen, head);
  } else if (rt->fn == ROUTE_SD) {
    c->out = sd_answer(&sdc, c->fd, c->in, &r, head);
  } else if (rt->fn == ROUTE_FILE) {
    c->out = page_file(rt->event, head, c->close_after);
  } else if (rt->fn == ROUTE_API_NODE) {
    c->out = page_node(head, c->close_after);
  } else if (rt->fn == ROUTE_API_JVM) {
    page_jvm(c, rt, r.target, qlen, head);
  } else if (page_wants_html(c->in, &r)) { /* GET /: a browser's page */
    c->out = page_file("index.html", head, c->close_after);
  } else {
    route_index(&index);
    c->out = resp_new(200, "text/plain; charset=utf-8", index.p, index.len,
                      head, c->close_after);
    buf_free(&index);
  }
  /* the head is done with: a pipelined request moves up */
  memmove(c->in, c->in + r.head_len, c->inlen - r.head_len);
  c->inlen -= r.head_len;
}

/* Room for a new connection: the oldest idle one (nothing being written,
 * least recent activity) is dropped. Returns a free slot. */
static struct conn *slot(struct conn *conns)
{
  struct conn *oldest = NULL;

  for (int i = 0; i < MAX_CONN; i++) {
    if (conns[i].fd < 0) return &conns[i];
    if (!conns[i].out && !conns[i].waiting &&
        (!oldest || conns[i].last < oldest->last))
      oldest = &conns[i];
  }
  if (!oldest) return NULL;
  conn_close(oldest);
  return oldest;
}

static void on_readable(struct conn *conns, struct conn *c, int raw)
{
  ssize_t n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);

  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    conn_close(c);
    return;
  }
  if (n < 0) return;
  if (c->draining) return; /* the rest of a refused request: dropped */
  c->inlen += (size_t)n;
  c->last = now_ms();
  answer(conns, c, raw);
}

static void on_writable_conn(struct conn *c, struct conn *conns, int raw)
{
  ssize_t n =
      send(c->fd, c->out->b.p + c->off, c->out->b.len - c->off, MSG_NOSIGNAL);

  if (n < 0) {
    if (errno != EAGAIN && errno != EINTR) conn_close(c);
    return;
  }
  c->off += (size_t)n;
  c->last = now_ms();
  if (c->off < c->out->b.len) return;
  resp_put(c->out);
  c->out = NULL;
  c->off = 0;
  if (c->close_after) {
    shutdown(c->fd, SHUT_WR);
    c->draining = 1;
    c->inlen = 0;
    c->deadline = now_ms() + LINGER_MS;
    return;
  }
  c->deadline = now_ms() + IDLE_MS;
  if (c->inlen) answer(conns, c, raw); /* pipelined */
}

/* A request head that did not come in time: 408, a whole head. */
static void timed_out(int fd)
{
  struct buf b = {0};

  http_head(&b, 408, NULL, 0, 1);
  send(fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
  buf_free(&b);
}

/* A listening socket on ss (parse_listen's), or -1 said. */
static int listen_on(const char *addr, const struct sockaddr_storage *ss,
                     socklen_t len)
{
  int fd, one = 1;

  fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    errno_msg(-errno, "cannot open a socket for '%s'", addr);
    return -1;
  }
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 128)) {
    errno_msg(-errno, "cannot listen on '%s'", addr);
    close(fd);
    return -1;
  }
  return fd;
}

/* The one line serve says when it listens: the address the kernel bound
 * (a :0 port resolved), where the routes page is. */
static void say_listening(int fd)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof(ss);
  char host[INET6_ADDRSTRLEN];
  unsigned port;
  int v6;

  if (getsockname(fd, (struct sockaddr *)&ss, &len)) return;
  v6 = ss.ss_family == AF_INET6;
  if (v6) {
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

    inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
    port = ntohs(s6->sin6_port);
  } else {
    const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

    inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
    port = ntohs(s4->sin_port);
  }
  info_msg("listening on http://%s%s%s:%u/ (that page lists the routes)",
           v6 ? "[" : "", host, v6 ? "]" : "", port);
}

int serve_main(int argc, char **argv)
{
  struct args a;
  struct pull_conf pc;
  struct page_conf gc;
  static struct conn conns[MAX_CONN];
  static struct pollfd pfd[MAX_CONN + 1 + PULLS_MAX + PAGE_VIEWS];
  static int who[MAX_CONN + 1]; /* pfd index -> conns index */
  struct sigaction sa = {0};
  struct sockaddr_storage ss;
  socklen_t sslen;
  sigset_t block, orig;
  int rc, lfd, raw;

  if ((rc = opt_parse(opt_rows, opt_usage, 0, argc, argv, &a)) >= 0) return rc;
  if (a.argc) return usage_error("unexpected argument '%s'", a.argv[0]);
  raw = a.count[OPT_raw] > 0;
  scr.all_users = a.count[OPT_all_users] > 0;
  scr.names = prom_names_flag(a.word[OPT_names]);
  pc.off = a.count[OPT_no_profiles] > 0;
  pc.all_users = scr.all_users;
  pc.max = (int)a.num[OPT_max_pulls];
  pull_setup(&pc);
  gc.all_users = scr.all_users;
  page_setup(&gc);
  sdc.advertise = a.val[OPT_advertise];
  sdc.listen = a.val[OPT_listen] ? a.val[OPT_listen] : SERVE_LISTEN;
  sdc.all_users = scr.all_users;
  if (sdc.advertise && sd_bad_addr(sdc.advertise, strlen(sdc.advertise)))
    return usage_error("bad --advertise '%s': want HOST:PORT", sdc.advertise);
  if (parse_listen(sdc.listen, &ss, &sslen))
    return usage_error("bad --listen '%s': want ADDR:PORT, :PORT or "
                       "[V6]:PORT",
                       sdc.listen);
  if ((lfd = listen_on(sdc.listen, &ss, sslen)) < 0) return 1;
  say_listening(lfd);
  signal(SIGPIPE, SIG_IGN);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  /* the signals are let in only while poll waits: no lost wake-up */
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  sigprocmask(SIG_BLOCK, &block, &orig);
  for (int i = 0; i < MAX_CONN; i++) conns[i].fd = -1;
  while (!stopping) {
    uint64_t now = now_ms(), next = now + IDLE_MS;
    struct timespec ts;
    int np = 1, nc;

    pfd[0].fd = lfd;
    pfd[0].events = POLLIN;
    for (int i = 0; i < MAX_CONN; i++) {
      struct conn *c = &conns[i];

      if (c->fd < 0) continue;
      if (c->deadline <= now) { /* too slow: 408 if nothing answered yet */
        if (!c->out && c->inlen && !c->draining && !c->waiting)
          timed_out(c->fd);
        conn_close(c);
        continue;
      }
      if (c->deadline < next) next = c->deadline;
      if (c->waiting == WAIT_PULL) { /* only to see the client go */
        pfd[np].fd = c->fd;
        pfd[np].events = POLLRDHUP;
        pfd[np].revents = 0;
        who[np++] = i;
      }
      if (c->waiting) continue; /* read on once its answer is written */
      pfd[np].fd = c->fd;
      pfd[np].events = c->out ? POLLOUT : POLLIN;
      pfd[np].revents = 0;
      who[np++] = i;
    }
    nc = np;
    np += pull_poll(pfd + np, &next);
    np += page_poll(pfd + np, &next);
    if (next < now) next = now;
    if (scr.on) next = now; /* a JVM a step, requests in between */
    ts.tv_sec = (time_t)((next - now) / 1000);
    ts.tv_nsec = (long)((next - now) % 1000) * 1000000;
    if (ppoll(pfd, (nfds_t)np, &ts, &orig) < 0) continue;
    for (int k = 1; k < nc; k++) {
      struct conn *c = &conns[who[k]];

      if (!pfd[k].revents || c->fd != pfd[k].fd) continue;
      if (c->waiting == WAIT_PULL)
        conn_close(c); /* it went: the pull is abandoned */
      else if (c->out)
        on_writable_conn(c, conns, raw);
      else
        on_readable(conns, c, raw);
    }
    if (scr.on && scrape_step(&scr)) scrape_done(conns);
    pull_step();
    page_step(conns);
    if (pfd[0].revents & POLLIN) {
      for (int tries = 0; tries < 64; tries++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct conn *c;

        if (fd < 0) break;
        if (!(c = slot(conns))) {
          close(fd);
          continue;
        }
        c->fd = fd;
        c->inlen = 0;
        c->off = 0;
        c->close_after = 0;
        c->draining = 0;
        c->waiting = 0;
        c->last = now_ms();
        c->deadline = c->last + IDLE_MS;
      }
    }
  }
  for (int i = 0; i < MAX_CONN; i++)
    if (conns[i].fd >= 0) conn_close(&conns[i]);
  pull_drain(DRAIN_MS);
  page_end();
  if (scr.on) scrape_done(conns);
  close(lfd);
  return 0;
}
