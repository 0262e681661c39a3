/* serve.h - serve's connections and responses, shared by its files
 *
 * serve.c runs the poll loop and /metrics; serve_route.c holds the
 * routes and their query parameters as rows; serve_http.c makes responses;
 * serve_pull.c answers profile pulls (/debug/pprof/...), serve_query.c
 * reads what one asks; serve_sd.c the
 * Prometheus HTTP service discovery (/sd); serve_page.c the page for a
 * browser, its files and its JSON (/api/).
 */
#ifndef SERVE_H
#define SERVE_H

#include <stddef.h>
#include <stdint.h>
#include "core/http.h"
#include "core/lib.h"

enum {
  MAX_CONN = 512,   /* open connections, the listener aside */
  MAX_RESP = 4,     /* responses being written at once, distinct */
  IDLE_MS = 10000,  /* a request head must arrive within this */
  WRITE_MS = 30000, /* a response must be taken within this */
  LINGER_MS = 2000, /* answered and shut: read to EOF at most this long */
  PULLS_MAX = 64,   /* --max-pulls' ceiling */
  PAGE_VIEWS = 8,   /* JVM views of the page kept (serve_page.c) */
};

/* --listen's default (specs/serve.opts says it in the help) */
#define SERVE_PORT "9404"
#define SERVE_LISTEN "127.0.0.1:" SERVE_PORT

struct resp {
  struct buf b;
  int refs;
  uint64_t made;
  int head; /* no body: never shared with a GET */
};

/* What a connection waits for (conn.waiting). */
enum { WAIT_NONE, WAIT_GET, WAIT_HEAD, WAIT_PULL, WAIT_VIEW };

struct conn {
  int fd; /* -1: free slot */
  char in[HTTP_MAX_HEAD];
  size_t inlen;
  struct resp *out; /* being written, or NULL */
  size_t off;
  int close_after;
  int draining; /* answered and shut for writing: reading to EOF
                   so the client sees the answer, not a reset */
  int waiting;  /* for the scrape under way (WAIT_GET, WAIT_HEAD),
                   for its profile pull (WAIT_PULL) or for the thread
                   dump of a JVM view (WAIT_VIEW: serve_page.c's view) */
  int view;
  uint64_t deadline, last;
};

/* A response (refs 1): head, then the body unless head. */
struct resp *resp_new(int status, const char *type, const char *body,
                      size_t blen, int head, int close_after);
/* A text/plain response whose body is line and a newline (extra: more
 * header lines, or NULL); the connection closes after it. */
struct resp *resp_line(int status, const char *line, const char *extra,
                       int head);
void resp_put(struct resp *r);

/* serve's routes (serve_route.c), a row each: a path (a prefix when it
 * ends in '/'), the methods it takes, what answers it, and its query
 * parameters (core/opt rows: name, kind, range and default as written). */
enum route_fn {
  ROUTE_INDEX,
  ROUTE_METRICS,
  ROUTE_SD,
  ROUTE_PULL,
  ROUTE_FILE,     /* one of the page's files (event: its name) */
  ROUTE_API_NODE, /* the node's JVMs, top --json's node view */
  ROUTE_API_JVM,  /* one JVM's threads and counters */
};
enum { ROUTE_GET = 1, ROUTE_HEAD = 2 };
struct opt;
struct route {
  const char *path;
  int methods; /* ROUTE_GET | ROUTE_HEAD */
  enum route_fn fn;
  const char *event; /* ROUTE_PULL: profile's --event word; ROUTE_FILE:
                        the file of web/ it answers */
  const char *what;  /* one line for the index, or NULL: not listed */
  const struct opt *params[5]; /* NULL-ended */
};
extern const struct route routes[]; /* ended by a NULL path */
/* The route of path (n bytes, no query): its own row, else the longest
 * prefix row it is under; NULL when none (404). */
const struct route *route_find(const char *path, size_t n);
/* Parameter p in target t (len bytes, query included): 1 when given and
 * p takes it (its text in v, n bytes; INT its number, TIME nanoseconds in
 * *num); 0 when not given (v empty, *num p's default or 0); -1 when p
 * does not take it, with the 400 line in msg ("seconds: want 1 to 60
 * (default 10)"; a row without a default: "pid: want <its help>"). */
int route_param(const struct opt *p, const char *t, size_t len, char *v,
                size_t n, long long *num, struct buf *msg);
/* -1 with the 400 line in msg when t names a parameter of another route
 * answered as r is (a sibling pull) that r does not take ("interval: not
 * a parameter of /mutex (it takes threshold)": r's of the same kind);
 * else 0. */
int route_foreign(const struct route *r, const char *t, size_t len,
                  struct buf *msg);
/* GET /'s body: every listed route, its methods and parameters (range
 * and default), from the rows. */
void route_index(struct buf *b);

/* Profile pulls (serve_pull.c). */
struct pull_conf {
  int off;       /* --no-profiles */
  int all_users; /* other users' JVMs too */
  int max;       /* recordings at once, node-wide */
};
void pull_setup(const struct pull_conf *pc);
/* What a pull asks (serve_query.c): the route's --event word, seconds,
 * its time parameter (ns) and the JVM pid= names, opened and verified. */
#include "core/jvm.h"
struct pull_ask {
  const char *event;
  int svg; /* format=svg: core/flame's SVG, not pprof */
  long secs;
  int64_t interval;
  struct jvm j;
};
/* The ask of a GET or HEAD of a /debug/pprof/ path (r: its ROUTE_PULL
 * row, the prefix row when no pull has the path; target t, len bytes,
 * query included): 0 and *a (jvm_close a->j), or -1 with the refusal
 * answered (404 no such route or JVM, 405 a method r does not take, 400 a
 * bad parameter, 409 several JVMs). */
int pull_ask(struct conn *c, const struct route *r, const char *t, size_t len,
             int head, struct pull_ask *a);
/* A pull's error answer: status and one line (control characters of a
 * JVM's reply cut out), Retry-After when retry > 0, X-Go-Pprof: 1. */
void pull_fail(struct conn *c, int status, const char *line, int retry,
               int head);
/* GET or HEAD of a /debug/pprof/ path (r: its row, as pull_ask; target:
 * the request target, query included): c->out is set, or c waits
 * (WAIT_PULL). */
void pull_request(struct conn *c, const struct route *r, const char *target,
                  size_t len, int head);
/* What the pulls wait for: their sockets into pfd (room for PULLS_MAX;
 * returns how many), and *next lowered to their earliest time. */
struct pollfd;
int pull_poll(struct pollfd *pfd, uint64_t *next);
/* Move every pull on, none blocking: exchanges, recordings due to stop,
 * deadlines (504); a connection whose answer is ready gets it. */
void pull_step(void);
/* c goes away (closed) while its pull runs: its recording is stopped and
 * its file removed, as the loop goes on. */
void pull_abandon(struct conn *c);
/* serve ends: the pulls are moved on for at most ms, then let go. */
void pull_drain(int ms);

/* /sd (serve_sd.c): the JSON of every JVM serve shows. */
struct sd_conf {
  const char *advertise; /* --advertise, or NULL */
  const char *listen;    /* --listen, or its default */
  int all_users;
};
/* 1 unless s is HOST:PORT of host characters (letters, digits, "-._",
 * a bracketed IPv6 address) and a port 1-65535. */
int sd_bad_addr(const char *s, size_t n);
struct resp *sd_answer(const struct sd_conf *sc, int fd, const char *buf,
                       const struct http_req *r, int head);

/* The JVMs serve shows (alive, ours unless all_users; only pid when pid
 * > 0; serve_query.c) into *v (vm_list_free it): how many. */
struct vm;
size_t serve_shown(int all_users, int pid, struct vm **v);

/* The page (serve_page.c): its files, its JSON, the JVM views' thread
 * dumps moved on in the loop as the pulls are. */
/* where the flame graphs' script is (a ROUTE_FILE row) */
#define PAGE_FLAME_JS "/flame.js"
struct page_conf {
  int all_users;
};
void page_setup(const struct page_conf *pc);
/* 1 when the request (its head in buf) accepts text/html: a browser. */
int page_wants_html(const char *buf, const struct http_req *r);
/* web/'s file name (index.html, page.js, page.css) or flame.js. */
struct resp *page_file(const char *name, int head, int close_after);
/* GET /api/jvms */
struct resp *page_node(int head, int close_after);
/* GET /api/jvm?pid=P: c->out is set, or c waits (WAIT_VIEW). */
void page_jvm(struct conn *c, const struct route *r, const char *t, size_t len,
              int head);
int page_poll(struct pollfd *pfd, uint64_t *next);
void page_step(struct conn *conns);
void page_end(void);

#endif
