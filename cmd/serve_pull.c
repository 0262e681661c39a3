/* serve_pull.c - serve's profile pulls, Go's pprof endpoints per JVM
 *
 * GET /debug/pprof/profile (cpu, its CPU from /proc: core/jfr_cpu), /allocs
 * (alloc: JFR's sampler and its estimator, never our agent), /mutex (lock),
 * /wall (on-CPU and blocked time, as profile --event wall), with
 * pid=, seconds= and the route's time parameter (serve_query.c reads
 * them). The answer is what profile --format
 * pprof writes (application/octet-stream, gzipped profile.proto), or a
 * status with one line of text (X-Go-Pprof: 1, so go tool pprof shows it).
 *
 * No thread: a pull is state the poll loop holds (the JVM's recording, its
 * attach exchange as core/attach state, its deadline, the waiting
 * connection); no attach request blocks the loop. One deadline a pull:
 * seconds + BUDGET_MS, then 504, and an exchange still under way then is
 * given up (its socket closed, its slot free): a JVM that never answers
 * holds nothing past it. What it was asked it may still do later,
 * unwatched: a JFR.start it runs ends itself by its duration= (seconds +
 * BUDGET_MS) and maxsize=, leaving its file in the JVM's /tmp. A stop
 * made for cleaning up (a client gone, a failure) gets STOP_MS more. One
 * recording per JVM, at most --max-pulls on the node and half of them
 * (rounded up) per owner (a container, or a user's host JVMs: core/jvm's
 * jvm_owner): more get 429 with Retry-After, so one owner's stuck JVMs
 * leave the others room. A client that goes away leaves its pull to clean
 * up the same way.
 */
#include "core/jvmtool.h"
#include "cmd/serve.h"
#include "core/attach.h"
#include "core/jfr.h"
#include "core/jfr_rec.h"
#include "core/jvm.h"
#include <poll.h>

enum {
  /* a pull's start and stop together (a JVM's first JFR.start loads JFR:
   * seconds); its deadline is seconds + this */
  BUDGET_MS = 30000,
  STOP_MS = BUDGET_MS / 4, /* a stop's own bound, also past the deadline */
};

/* What a pull is doing: its exchange (x) asks VM.version, JFR.start,
 * JFR.stop into its file, or only JFR.stop (ending it after a failure);
 * or the recording runs (P_REC, no exchange). */
enum { P_VERSION, P_START, P_REC, P_STOP, P_END };

struct pull {
  int on, phase;
  struct conn *c; /* NULL once answered or gone: only cleaning up */
  struct jvm j;   /* the JVM recorded, opened once (core/jvm) */
  struct jvm_owner owner;
  struct jfr_rec r;
  struct attach_xchg x; /* the exchange, but in P_REC */
  const char *event;
  int svg; /* answered as core/flame's SVG (format=svg) */
  int64_t interval;
  long secs;
  uint64_t due;      /* now_ms() when the recording is stopped */
  uint64_t deadline; /* the answer's, seconds + BUDGET_MS from the start */
  uint64_t giveup;   /* an exchange still under way then is dropped */
};

static struct pull pulls[PULLS_MAX];
static struct pull_conf conf;

void pull_setup(const struct pull_conf *pc)
{
  conf = *pc;
  if (conf.max > PULLS_MAX) conf.max = PULLS_MAX;
  if (conf.max < 1) conf.max = 1;
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

/* A free slot, or an answer given: 429 while this JVM records, the node
 * holds conf.max recordings or j's owner half of them (rounded up). */
static struct pull *room(struct conn *c, const struct jvm *j,
                         const struct jvm_owner *o, int head)
{
  uint64_t now = now_ms();
  struct pull *free_slot = NULL, *soonest = NULL, *own_soonest = NULL;
  int busy = 0, own = 0, pid = j->pid, share = (conf.max + 1) / 2;
  char line[256], who[96];

  for (int i = 0; i < PULLS_MAX; i++) {
    struct pull *p = &pulls[i];

    if (!p->on) {
      if (!free_slot) free_slot = p;
      continue;
    }
    busy++;
    if (!soonest || p->due < soonest->due) soonest = p;
    if (jvm_owner_same(&p->owner, o)) {
      own++;
      if (!own_soonest || p->due < own_soonest->due) own_soonest = p;
    }
    if (p->j.pid == pid) {
      snprintf(line, sizeof(line), "pid %d is being profiled already", pid);
      pull_fail(c, 429, line, left_s(p, now), head);
      return NULL;
    }
  }
  if (busy >= conf.max || !free_slot) {
    snprintf(line, sizeof(line),
             "%d profiles are being recorded (serve --max-pulls)", busy);
    pull_fail(c, 429, line, soonest ? left_s(soonest, now) : 1, head);
    return NULL;
  }
  if (own >= share) {
    jvm_owner_name(o, who, sizeof(who));
    snprintf(line, sizeof(line),
             "%d profiles of %s are being recorded, its share "
             "(half of serve --max-pulls)",
             own, who);
    pull_fail(c, 429, line, left_s(own_soonest, now), head);
    return NULL;
  }
  return free_slot;
}

/* An exchange of p as the JVM's user's jcmd: line; x->end is the pull's
 * business (a request sent is waited for until the JVM answers, never
 * dropped unanswered: the JVM would still run it). 0, or an attach error
 * (the exchange is done, attach_result says why). */
static int ask(struct pull *p, int phase, const char *line)
{
  const char *args[3] = {line, NULL, NULL};
  uint64_t now = now_ms();
  int rc;

  verbose_msg("pid %d: %s", p->j.pid, line);
  p->phase = phase;
  /* a stop is given its own time (a cleanup, maybe past the deadline) */
  if ((phase == P_STOP || phase == P_END) && p->giveup < now + STOP_MS)
    p->giveup = now + STOP_MS;
  rc = attach_begin(&p->x, &p->j, "jcmd", args,
                    p->deadline > now ? (int)(p->deadline - now) : 1);
  p->x.end = UINT64_MAX;
  return rc;
}

/* p is over: its file removed, its slot free. */
static void release(struct pull *p)
{
  attach_end(&p->x);
  jfr_rec_drop(&p->r);
  jfr_rec_close(&p->r);
  jvm_close(&p->j);
  p->on = 0;
}

/* Stop p's recording: into its file (plain 0) or only ending it. */
static void stop(struct pull *p, int plain)
{
  struct buf line = {0};

  jfr_rec_stop_line(&p->r, plain, &line);
  ask(p, plain ? P_END : P_STOP, line.p);
  buf_free(&line);
}

/* Begin p's JFR.start: 0, or an error (err). */
static int start(struct pull *p, char *err, size_t n)
{
  struct buf line = {0};
  int rc = jfr_rec_start_line(&p->r, p->event, p->interval,
                              p->secs * 1000000000LL, &line, err, n);

  if (!rc && (rc = ask(p, P_START, line.p))) snprintf(err, n, "%s", p->x.err);
  buf_free(&line);
  return rc;
}

void pull_request(struct conn *c, const struct route *r, const char *t,
                  size_t len, int head)
{
  struct pull_ask a = {0};
  struct jvm_owner o;
  char err[512];
  struct pull *p;
  int rc;

  if (conf.off) {
    pull_fail(c, 403, "profile pulls are off (serve --no-profiles)", 0, head);
    return;
  }
  if (pull_ask(c, r, t, len, head, &a)) return;
  jvm_owner(&a.j, &o);
  if (!(p = room(c, &a.j, &o, head))) {
    jvm_close(&a.j);
    return;
  }
  p->j = a.j; /* the slot holds it from here */
  p->owner = o;
  /* timeout 0: no attach request here, the loop makes them */
  rc = jfr_rec_open(&p->r, &p->j, conf.all_users ? -1 : (long long)geteuid(), 0,
                    err, sizeof(err));
  memset(&p->x, 0, sizeof(p->x));
  p->x.state = ATTACH_DONE;
  p->r.timeout_ms = BUDGET_MS; /* duration= is seconds + this */
  p->event = a.event;
  p->svg = a.svg;
  p->interval = a.interval;
  p->secs = a.secs;
  p->due = now_ms() + (uint64_t)a.secs * 1000; /* again once started */
  p->deadline = p->giveup = p->due + BUDGET_MS;
  if (!rc) {
    if (p->r.jdk)
      rc = start(p, err, sizeof(err));
    else if ((rc = ask(p, P_VERSION, "VM.version")))
      snprintf(err, sizeof(err), "%s", p->x.err);
  }
  if (rc) {
    pull_fail(c, status_of(rc), err, 0, head);
    release(p);
    return;
  }
  p->on = 1;
  p->c = c;
  c->waiting = WAIT_PULL;
  c->deadline = p->deadline + WRITE_MS;
}

int pull_poll(struct pollfd *pfd, uint64_t *next)
{
  int n = 0;

  for (int i = 0; i < PULLS_MAX; i++) {
    struct pull *p = &pulls[i];

    if (!p->on) continue;
    if (p->c && p->deadline < *next) *next = p->deadline;
    if (p->giveup < *next) *next = p->giveup;
    if (p->phase == P_REC) {
      if (p->due < *next) *next = p->due;
      continue;
    }
    attach_want(&p->x, &pfd[n], next);
    if (pfd[n].fd >= 0) n++;
  }
  return n;
}

/* The profile of p, stopped into its file, as the answer to its
 * connection. */
static void answer(struct pull *p)
{
  struct conn *c = p->c;
  char err[512], *data = NULL;
  size_t size = 0;
  FILE *mem;
  int fd, rc;

  if ((rc = jfr_rec_take(&p->r, &fd, err, sizeof(err)))) {
    pull_fail(c, status_of(rc), err, 0, 0);
    return;
  }
  if (!(mem = open_memstream(&data, &size))) {
    pull_fail(c, 500, "out of memory", 0, 0);
  } else {
    rc = p->svg ? jfr_rec_svg(&p->r, fd, p->event, PAGE_FLAME_JS, mem, err,
                              sizeof(err))
                : jfr_rec_pprof(&p->r, fd, p->event, p->interval, mem, err,
                                sizeof(err));
    fclose(mem);
    if (rc)
      pull_fail(c, 502, err, 0, 0);
    else
      c->out = resp_new(200,
                        p->svg ? "image/svg+xml; charset=utf-8"
                               : "application/octet-stream",
                        data, size, 0, c->close_after);
  }
  free(data);
  close(fd);
}

/* c gets its answer (set by the caller) and p goes on alone. */
static void detach(struct pull *p)
{
  struct conn *c = p->c;

  if (!c) return;
  c->waiting = WAIT_NONE;
  c->deadline = now_ms() + WRITE_MS;
  p->c = NULL;
}

/* An error for p's client, if it is still there. */
static void tell(struct pull *p, int status, const char *line)
{
  if (!p->c) return;
  pull_fail(p->c, status, line, 0, 0);
  detach(p);
}

/* p's exchange is done: the next phase. */
static void next_phase(struct pull *p)
{
  char err[512], *reply, *warn;
  int rc = attach_result(&p->x, &reply, err, sizeof(err));

  switch (p->phase) {
  case P_VERSION:
    p->r.jdk = rc ? 0 : jfr_start_jdk_of(reply);
    free(reply);
    if (!p->c || (rc = start(p, err, sizeof(err)))) {
      if (p->c) tell(p, status_of(rc), err);
      release(p);
    } else if (p->x.state == ATTACH_DONE) {
      next_phase(p); /* refused at once: the start's outcome */
    }
    return;
  case P_START:
    if ((rc = jfr_rec_started(&p->r, rc, reply, &warn, err, sizeof(err)))) {
      tell(p, status_of(rc), err);
      release(p);
      return;
    }
    free(warn);
    p->phase = P_REC;
    /* seconds from now, leaving the stop a quarter of the budget */
    p->due = now_ms() + (uint64_t)p->secs * 1000;
    if (p->due > p->deadline - BUDGET_MS / 4)
      p->due = p->deadline - BUDGET_MS / 4;
    if (!p->c) stop(p, 0); /* gone meanwhile: ended at once */
    return;
  case P_STOP:
    if ((rc = jfr_rec_stopped(&p->r, rc, reply, err, sizeof(err)))) {
      tell(p, status_of(rc), err);
      if (jvm_alive(&p->j)) {
        stop(p, 1); /* whatever happened, end it */
        return;
      }
    } else if (p->c) {
      answer(p);
      detach(p);
    }
    release(p);
    return;
  default: /* P_END */
    free(reply);
    release(p);
  }
}

/* p's client is gone or answered: what p does still is only cleaning up.
 * An exchange that sent nothing yet is dropped (nothing started); one
 * that did waits for the JVM to answer until p->giveup; a running
 * recording is stopped. */
static void orphan(struct pull *p)
{
  if (p->phase == P_REC) {
    stop(p, 0);
  } else if (p->x.state <= ATTACH_CONNECT) {
    if (p->phase == P_STOP)
      stop(p, 1);
    else
      release(p);
  }
}

void pull_step(void)
{
  char line[160];
  uint64_t now = now_ms();

  for (int i = 0; i < PULLS_MAX; i++) {
    struct pull *p = &pulls[i];

    if (!p->on) continue;
    if (p->phase != P_REC && attach_step(&p->x)) {
      next_phase(p);
      if (!p->on) continue;
    }
    if (p->phase == P_REC && p->due <= now) {
      if (!jvm_alive(&p->j)) {
        snprintf(line, sizeof(line), "pid %d exited during the profile",
                 p->j.pid);
        tell(p, 410, line);
        release(p);
        continue;
      }
      stop(p, 0);
    }
    if (p->c && p->deadline <= now) {
      snprintf(line, sizeof(line),
               "pid %d did not answer within %ld s (stopped, or stuck?): "
               "given up; a recording it starts ends itself in %ld s",
               p->j.pid, p->secs + BUDGET_MS / 1000,
               p->secs + BUDGET_MS / 1000);
      tell(p, 504, line);
      orphan(p);
      if (!p->on) continue;
    }
    /* past its time a silent JVM holds neither socket nor slot */
    if (p->giveup <= now) {
      verbose_msg("pid %d: no answer: given up", p->j.pid);
      release(p);
    }
  }
}

void pull_abandon(struct conn *c)
{
  for (int i = 0; i < PULLS_MAX; i++) {
    struct pull *p = &pulls[i];

    if (!p->on || p->c != c) continue;
    p->c = NULL;
    orphan(p);
  }
  c->waiting = WAIT_NONE;
}

void pull_drain(int ms)
{
  static struct pollfd pfd[PULLS_MAX];
  uint64_t end = now_ms() + (uint64_t)ms, now, next;
  int n, left = 0;

  /* none under way: nothing to wait for (a stop is at once) */
  for (int i = 0; i < PULLS_MAX; i++) left |= pulls[i].on;
  while (left && (now = now_ms()) < end) {
    next = end;
    n = pull_poll(pfd, &next);
    if (next > now) poll(pfd, (nfds_t)n, (int)(next - now));
    pull_step();
    left = 0;
    for (int i = 0; i < PULLS_MAX; i++) left |= pulls[i].on;
  }
  for (int i = 0; i < PULLS_MAX; i++)
    if (pulls[i].on) release(&pulls[i]);
}
