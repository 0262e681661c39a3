/* rt.h - the agent's runtime: what libc would give it, and its samples file
 *
 * The agent links against nothing (agent/sys.h). rt.c defines the memory
 * functions the compiler may call (memset, memcpy, memmove, memcmp), text
 * building, numbers and times as text, one-line messages on the JVM's
 * stderr, jitter and the weight's exponential; and the samples file: made
 * safely, a double buffer that callbacks append whole lines to and the
 * agent thread writes out. It calls nothing in agent.c or life.c.
 */
#ifndef AGENT_RT_H
#define AGENT_RT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memset, memcpy: rt.c defines them */
#include <jvmti.h>

struct agent; /* agent/agent.h: the state the samples file lives in */

/* Text building: a bounded string that silently stops at its capacity. */
struct text {
  char *p;
  size_t len, cap;
};

/* Append s[0..n) to t (cut at its capacity), a C string, a number in
 * decimal; wall-clock ms as 2026-01-02T03:04:05Z (UTC). */
void put(struct text *t, const char *s, size_t n);
void puts_(struct text *t, const char *s);
void put_num(struct text *t, int64_t v);
void put_time(struct text *t, int64_t ms);
/* v in decimal at out (room for 20 bytes, no NUL); returns the length. */
size_t fmt_i64(char *out, int64_t v);

/* One line on the JVM's stderr: "jvmtool agent: <a><b><c>" (b and c may
 * be NULL), one write. say_err: "<what>: JVMTI error <err>". */
void say(const char *a, const char *b, const char *c);
void say_err(const char *what, jvmtiError err);

/* n jittered uniformly within n/2..3n/2 (xorshift on a->rng: jitter
 * only, so quality and thread races do not matter); n below 2 as it is. */
int64_t jitter(struct agent *a, int64_t n);
/* 1 - e^(-x) for x >= 0, relative error below 1e-14, without libm. */
double one_minus_exp_neg(double x);

/* ---- the samples file: a->fd, a->buf and a->spare (agent/agent.h) ---- */

/* Create path for writing: a new inode, never through a link, never into
 * a FIFO, never a truncated existing file (a name that is taken is
 * removed and made afresh, once). Returns the fd or -errno. */
long out_create(const char *path);
/* The header line ("# jvmtool-agent pid=... start=..."), from a->cfg. */
void out_header(struct agent *a);
/* Append whole lines (n bytes; sample: count them as one sample), under
 * a->lock, flushing first when they do not fit. Returns 0, or -1 when the
 * agent is not RUNNING, there is no file, or four flushes left no room. */
int out_append(struct agent *a, const char *s, size_t n, int sample);
/* Write the buffered lines out (takes io, then lock for the swap only). */
void out_flush(struct agent *a);
/* Flush, write the trailer ("# end samples=... dropped=..."), close
 * (idempotent). */
void out_close(struct agent *a);

#endif
