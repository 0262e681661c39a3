/* serve_pull.c - serve's profile pulls, Go's pprof endpoints per JVM
 *
 * GET /debug/pprof/profile (cpu, its CPU from /proc: core/jfr_cpu), /allocs
 * (alloc: JFR's sampler and its estimator, never our agent), /mutex (lock),
 * /wall (on-CPU and blocked time, as profile --event wall), with
 * pid=<pid or main class part> and seconds=<1..SECONDS_MAX, default SECONDS_DEF>, interval=<JFR's
 * period or threshold, default 10ms>. The answer is what profile --format
 * pprof writes (application/octet-stream, gzipped profile.proto), or a
 * status with one line of text (X-Go-Pprof: 1, so go tool pprof shows it).
 *
 * No thread: a pull is state the poll loop holds (the JVM's recording, its
 * deadline, the waiting connection). JFR.start and JFR.stop are attach
 * requests that block the loop, each for at most ATTACH_MS (15 s); the recording
 * itself runs in the JVM while every other request is answered, and ends
 * itself (duration=) should serve die. One recording per JVM and at most
 * --max-pulls on the node: more get 429 with Retry-After. A client that
 * goes away takes its recording with it: stopped, file removed.
 */
#include "core/jvmtool.h"
#include "cmd/serve.h"
#include "core/attach.h"
#include "core/jfr_rec.h"
#include "core/vm.h"

enum {
  SECONDS_DEF = 10,
  SECONDS_MAX = 60,
  MAX_PULLS = 64,    /* --max-pulls' ceiling */
  ATTACH_MS = 15000, /* each JFR.start / JFR.stop blocks at most this
                        (a JVM's first JFR.start loads JFR: seconds) */
};

struct pull {
  int on;
  struct conn *c;
  struct jvm j; /* the JVM recorded, opened once (core/jvm) */
  struct jfr_rec r;
  const char *event;
  int64_t interval;
  uint64_t due; /* now_ms() when it stops */
};

static struct pull pulls[MAX_PULLS];
static struct pull_conf conf;

static const struct {
  const char *path, *event;
} routes[] = {{"profile", "cpu"},
              {"allocs", "alloc"},
              {"mutex", "lock"},
              {"wall", "wall"}};

void pull_setup(const struct pull_conf *pc)
{
  conf = *pc;
  if (conf.max > MAX_PULLS) conf.max = MAX_PULLS;
  if (conf.max < 1) conf.max = 1;
}

/* An error answer: status and one line (control characters of a JVM's
 * reply cut out), Retry-After when retry > 0. */
static void fail(struct conn *c, int status, const char *line, int retry,
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

/* The HTTP status of a jfr_rec / attach error. */
static int status_of(int rc)
{
  switch (rc) {
  case ATTACH_NOPROC:
  case ATTACH_NOTJVM:
    return 404;
  case ATTACH_OFF:
  case ATTACH_PERM:
  case ATTACH_UNSAFE:
  case JFR_REC_NOJFR:
  case JFR_REC_USER:
  case -EACCES:
    return 403;
  case ATTACH_TIMEOUT:
    return 504;
  }
  return 502;
}

/* Seconds left of p, rounded up, at least 1. */
static int left_s(const struct pull *p, uint64_t now)
{
  return p->due > now ? (int)((p->due - now + 999) / 1000) : 1;
}

/* seconds= and interval=: 0, or a 400 said. */
static int params(struct conn *c, const char *t, size_t len, int head,
                  long *secs, int64_t *interval)
{
  char v[32] = "";
  long long ns, s = SECONDS_DEF;
  long n;

  *interval = 10000000;
  if ((n = http_query(t, len, "seconds", v, sizeof(v))) != -1) {
    if (n <= 0 || parse_long(v, 1, SECONDS_MAX, &s)) {
      fail(c, 400, "seconds: want 1 to 60 (default 10)", 0, head);
      return -1;
    }
  }
  if ((n = http_query(t, len, "interval", v, sizeof(v))) != -1) {
    if (n <= 0 || parse_span(v, &ns) || ns < 1000000 || ns > 1000000000) {
      fail(c, 400, "interval: want 1ms to 1s (default 10ms)", 0, head);
      return -1;
    }
    *interval = ns;
  }
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
    fail(c, 400, "pid: want the pid or main class of one JVM (see /sd)", 0,
         head);
    return -1;
  }
  if (!(rc = jvm_open(j, name, JVM_PROCESS, err, sizeof(err))) &&
      !(rc = jvm_check_jvm(j, err, sizeof(err))))
    return 0;
  jvm_close(j);
  fail(c,
       rc == -ESRCH || rc == -EPERM ? 404
       : rc == -E2BIG               ? 409
                                    : 400,
       err, 0, head);
  return -1;
}

/* A free slot, or an answer given: 429 while this JVM records or the node
 * holds conf.max recordings. */
static struct pull *room(struct conn *c, int pid, int head)
{
  uint64_t now = now_ms();
  struct pull *free_slot = NULL, *soonest = NULL;
  char line[128];
  int busy = 0;

  for (int i = 0; i < MAX_PULLS; i++) {
    struct pull *p = &pulls[i];

    if (!p->on) {
      if (!free_slot) free_slot = p;
      continue;
    }
    busy++;
    if (!soonest || p->due < soonest->due) soonest = p;
    if (p->j.pid == pid) {
      snprintf(line, sizeof(line), "pid %d is being profiled already", pid);
      fail(c, 429, line, left_s(p, now), head);
      return NULL;
    }
  }
  if (busy >= conf.max || !free_slot) {
    snprintf(line, sizeof(line),
             "%d profiles are being recorded (serve --max-pulls)", busy);
    fail(c, 429, line, soonest ? left_s(soonest, now) : 1, head);
    return NULL;
  }
  return free_slot;
}

void pull_request(struct conn *c, const char *t, size_t len, int head)
{
  size_t plen = strcspn(t, "? \r") - 13;
  const char *path = t + 13, *event = NULL;
  char err[512], *warn;
  int64_t interval;
  struct pull *p;
  struct jvm j;
  long secs;
  int rc;

  if (conf.off) {
    fail(c, 403, "profile pulls are off (serve --no-profiles)", 0, head);
    return;
  }
  for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
    if (strlen(routes[i].path) == plen && !memcmp(path, routes[i].path, plen))
      event = routes[i].event;
  if (!event) {
    fail(c, 404, "no such profile: profile, allocs, mutex or wall", 0, head);
    return;
  }
  if (head) {
    fail(c, 405, "a profile is pulled with GET", 0, head);
    return;
  }
  if (params(c, t, len, head, &secs, &interval) || which(c, t, len, head, &j))
    return;
  if (!(p = room(c, j.pid, head))) {
    jvm_close(&j);
    return;
  }
  p->j = j; /* the slot holds it from here */
  rc = jfr_rec_open(&p->r, &p->j, conf.all_users ? -1 : (long long)geteuid(),
                    ATTACH_MS, err, sizeof(err));
  if (!rc)
    rc = jfr_rec_start(&p->r, event, interval, secs * 1000000000LL, &warn, err,
                       sizeof(err));
  if (rc) { /* a start that timed out may yet begin: stopped too */
    fail(c, status_of(rc), err, 0, head);
    jfr_rec_abandon(&p->r, rc == ATTACH_TIMEOUT);
    jfr_rec_close(&p->r);
    jvm_close(&p->j);
    return;
  }
  free(warn);
  p->on = 1;
  p->c = c;
  p->event = event;
  p->interval = interval;
  p->due = now_ms() + (uint64_t)secs * 1000;
  c->waiting = WAIT_PULL;
  c->deadline = p->due + 2 * ATTACH_MS + WRITE_MS;
}

uint64_t pull_next(uint64_t next)
{
  for (int i = 0; i < MAX_PULLS; i++)
    if (pulls[i].on && pulls[i].due < next) next = pulls[i].due;
  return next;
}

/* The profile of p, stopped now, as the answer to its connection. */
static void finish(struct pull *p)
{
  struct conn *c = p->c;
  char err[512], *data = NULL, line[64];
  size_t size = 0;
  FILE *mem;
  int fd, rc;

  c->waiting = WAIT_NONE;
  c->deadline = now_ms() + WRITE_MS;
  if (!jvm_alive(&p->j)) {
    snprintf(line, sizeof(line), "pid %d exited during the profile", p->j.pid);
    fail(c, 410, line, 0, 0);
    jfr_rec_drop(&p->r);
  } else if ((rc = jfr_rec_stop(&p->r, err, sizeof(err))) ||
             (rc = jfr_rec_take(&p->r, &fd, err, sizeof(err)))) {
    fail(c, status_of(rc), err, 0, 0);
    jfr_rec_drop(&p->r);
  } else {
    if (!(mem = open_memstream(&data, &size))) {
      fail(c, 500, "out of memory", 0, 0);
    } else {
      rc = jfr_rec_pprof(&p->r, fd, p->event, p->interval, mem, err,
                         sizeof(err));
      fclose(mem);
      if (rc)
        fail(c, 502, err, 0, 0);
      else
        c->out = resp_new(200, "application/octet-stream", data, size, 0,
                          c->close_after);
    }
    free(data);
    close(fd);
  }
  jfr_rec_close(&p->r);
  jvm_close(&p->j);
  p->on = 0;
}

void pull_step(void)
{
  uint64_t now = now_ms();

  for (int i = 0; i < MAX_PULLS; i++)
    if (pulls[i].on && pulls[i].due <= now) finish(&pulls[i]);
}

void pull_abandon(struct conn *c)
{
  for (int i = 0; i < MAX_PULLS; i++) {
    struct pull *p = &pulls[i];

    if (!p->on || p->c != c) continue;
    jfr_rec_abandon(&p->r, 1);
    jfr_rec_close(&p->r);
    jvm_close(&p->j);
    p->on = 0;
  }
  c->waiting = WAIT_NONE;
}
