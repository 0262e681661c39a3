/* attach.h - the HotSpot dynamic-attach client (docs/attach-agent.md §1-2)
 *
 * One request per connection: make the JVM start its attach listener (a
 * trigger file and SIGQUIT), connect to /tmp/.java_pid<nspid> as the JVM's
 * own uid/gid, send protocol-1 strings, read the reply to EOF. Every path
 * is resolved inside the target's root, as the JVM sees it; the socket is
 * connected through the inode that was checked, and the listener must be
 * the target process itself (SO_PEERCRED), so a hostile container cannot
 * point us at another JVM or socket. One deadline bounds the exchange.
 */
#ifndef ATTACH_H
#define ATTACH_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "core/lib.h"

enum attach_error {
  ATTACH_NOPROC = -1,  /* no such process */
  ATTACH_NOTJVM = -2,  /* not a verified JVM (core/jvm), or does not catch
                          SIGQUIT (yet): nothing was sent */
  ATTACH_TIMEOUT = -3, /* no listener came up, or no reply in time */
  ATTACH_PERM = -4,    /* cannot act as the target's user */
  ATTACH_IO = -5,      /* connect/read/write failed, or no reply */
  ATTACH_TOOLONG = -6, /* a command or argument over the protocol's limit */
  ATTACH_UNSAFE = -7,  /* the socket is not the target JVM's: refused */
  ATTACH_CUT = -8,     /* reply over ATTACH_REPLY_MAX: *reply has the
                              first ATTACH_REPLY_MAX bytes */
  ATTACH_OFF = -9,     /* started with -XX:+DisableAttachMechanism */
};

/* The largest reply kept (a class histogram of a huge heap is a few MiB). */
enum { ATTACH_REPLY_MAX = 64 << 20 };

/* How long a command waits for each answer of a JVM unless --timeout says
 * (jcmd, profile, agent-install): the kind of their specs/ rows (core/opt,
 * TIME(lo, hi, default)), as --help prints it. */
#define ATTACH_ANSWER_TIME TIME(1ms, 1d, 30s)

/* The attach preconditions, the ones attach_send applies before it
 * creates a file or sends a signal: j is a verified JVM (core/jvm), else
 * ATTACH_NOTJVM, and it takes attach requests, else ATTACH_OFF; the one
 * line in err. A caller with work to do first (a file to put) asks early. */
struct jvm;
int attach_check(const struct jvm *j, char *err, size_t errlen);

/* One exchange as state, for a loop that serves many (serve) and for
 * attach_send alike: ATTACH_FIND (start the listener: trigger file and
 * SIGQUIT, then look for its socket until it is there), ATTACH_CONNECT
 * (a full backlog: again soon), ATTACH_SEND, ATTACH_READ (to EOF),
 * ATTACH_DONE. No step blocks. */
enum attach_state {
  ATTACH_FIND,
  ATTACH_CONNECT,
  ATTACH_SEND,
  ATTACH_READ,
  ATTACH_DONE
};

/* The trigger file .attach_pid<N> made (or found there and used), for
 * its removal. */
struct attach_trigger {
  int dirfd;      /* the folder it was made in, or -1 */
  struct stat sb; /* what was made */
  int ours;       /* made by us (else found: removed once the listener is
                     up, never before) */
  int slot;       /* core/wfile's note for a stop signal, or -1 */
  char name[32];
};

struct attach_xchg {
  const struct jvm *t; /* not copied: outlives the exchange */
  int state;           /* enum attach_state */
  int rc;              /* ATTACH_DONE: 0 or an attach_error */
  uint64_t end;        /* the deadline (now_ms()); may be moved */
  uint64_t wake;       /* FIND, CONNECT: the next try */
  int timeout_ms, delay;
  int reply_ms; /* >0: once connected, the reply gets this long (end moved) */
  int cwdfd, tmpfd, path, sock; /* -1: none */
  struct attach_trigger tr;
  struct buf req, rep;
  size_t off;
  char err[256];
};

/* Begin sending cmd with up to three args (NULL = empty) to t, which must
 * outlive x, all within timeout_ms from now: the preconditions are
 * checked (attach_check; a refusal creates and signals nothing). 0, or an
 * attach_error (x is ATTACH_DONE; attach_result says why). */
int attach_begin(struct attach_xchg *x, const struct jvm *t, const char *cmd,
                 const char *const args[3], int timeout_ms);
/* Move x on as far as it goes without blocking: 1 when ATTACH_DONE (also
 * when x->end passed: ATTACH_TIMEOUT), else 0. */
int attach_step(struct attach_xchg *x);
/* What x waits for: *p its socket and events (fd -1: only a time), *next
 * lowered to when attach_step must run again at the latest. */
struct pollfd;
void attach_want(const struct attach_xchg *x, struct pollfd *p, uint64_t *next);
/* The outcome of a done x, which is ended: 0 and *reply (malloc'd,
 * NUL-terminated; caller frees), or an enum attach_error with err filled
 * (one line); on ATTACH_CUT *reply is set too. */
int attach_result(struct attach_xchg *x, char **reply, char *err,
                  size_t errlen);
/* Let x go, done or not: trigger file removed, every fd closed. */
void attach_end(struct attach_xchg *x);

/* attach_begin, attach_step until done (polling in between), and
 * attach_result: the blocking exchange, timeout_ms bounding everything
 * (the wait for the listener, connect, send and the reply). */
int attach_send(const struct jvm *j, const char *cmd, const char *const args[3],
                int timeout_ms, char **reply, char *err, size_t errlen);

/* attach_send, with *reply NULL on every failure (ATTACH_CUT's too). */
int attach_ask(const struct jvm *j, const char *cmd, const char *const args[3],
               int timeout_ms, char **reply, char *err, size_t errlen);

/* attach_ask with two bounds, as the JDK's tools wait: find_ms to reach
 * the JVM's listener and connect, then reply_ms for the whole answer from
 * there (a heap dump takes minutes; the listener is the JVM's, and slow
 * only when the JVM is); reply_ms 0: find_ms bounds it all, as
 * attach_ask. */
int attach_ask_long(const struct jvm *j, const char *cmd,
                    const char *const args[3], int find_ms, int reply_ms,
                    char **reply, char *err, size_t errlen);

/* One JVM's outcome in attach_ask_all. */
struct attach_answer {
  int rc;      /* 0, or an attach error (err says why) */
  char *reply; /* the whole reply when rc is 0 (free it), else NULL */
  char err[512];
};
/* attach_ask_long to the n JVMs js at once (js[i] NULL: skipped, out[i]
 * left alone): each exchange is state in one poll loop under its own
 * bounds, so a JVM that never answers delays no other answer, and the
 * whole takes at most find_ms + reply_ms (find_ms, reply_ms 0). */
void attach_ask_all(const struct jvm *const *js, size_t n, const char *cmd,
                    const char *const args[3], int find_ms, int reply_ms,
                    struct attach_answer *out);

/* Split a reply: returns its status (the first line's number, or INT_MIN
 * when it has none) and points *body past the first line. */
int attach_status(const char *reply, const char **body);

/* The agent's return code in a "load" reply: JDK 9-20 put "return code: N"
 * in the body, 21+ too but always with status 0, JDK 8 a bare number.
 * Returns 0 and sets *rc, or -1 when the reply has none (a failed load). */
int attach_load_code(const char *reply, int *rc);

#endif
