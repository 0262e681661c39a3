/* lib.h - errors, allocation, numbers, growable buffers, whole-file reads,
 * terminal escaping
 *
 * The error family is toybox's: every message is one line on stderr,
 * "jvmtool <cmd>: <what failed>: <why>", written with a single write(2).
 */
#ifndef LIB_H
#define LIB_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PRINTF(f, a) __attribute__((format(printf, f, a)))

/* The command name used in messages ("ps", "stat"); set by the dispatcher. */
extern const char *jt_cmd;
/* The exit status a command should return when it only reported errors:
 * error_msg() and perror_msg() set it to 1. */
extern int jt_status;

/* Print "jvmtool <cmd>: <msg>" to stderr; set jt_status to 1. */
void error_msg(const char *fmt, ...) PRINTF(1, 2);
/* As error_msg, with ": <strerror(errno)>" appended. */
void perror_msg(const char *fmt, ...) PRINTF(1, 2);
/* As error_msg, with ": <strerror(err)>" appended; err may be negative. */
void errno_msg(int err, const char *fmt, ...) PRINTF(2, 3);
/* Print "jvmtool <cmd>: <msg>" and leave jt_status alone: warn_msg for a
 * problem that does not fail the command (a skipped line, an ignored
 * setting), info_msg for what was done (counts, where a file went). */
void warn_msg(const char *fmt, ...) PRINTF(1, 2);
void info_msg(const char *fmt, ...) PRINTF(1, 2);
/* Print the usage error and "(see 'jvmtool <cmd> --help')"; return 2. */
int usage_error(const char *fmt, ...) PRINTF(1, 2);
/* Print "jvmtool <cmd>: <msg>" only when verbose (-v) is on. */
extern int jt_verbose;
void verbose_msg(const char *fmt, ...) PRINTF(1, 2);

/* The signal that asked a long-running command to stop (SIGINT, SIGTERM,
 * SIGHUP), or 0. Set by the handlers stop_signals installs; the command
 * polls it, ends its wait early and still finishes its work. */
extern volatile sig_atomic_t jt_stop_signal;
/* on: catch SIGINT, SIGTERM and SIGHUP into jt_stop_signal (a SIGHUP that
 * is ignored, as under nohup, stays ignored); off: what stood before. */
void stop_signals(int on);
/* The exit status of a command that a stop signal may have ended: 128 +
 * the signal (130 for Ctrl-C, 143 for SIGTERM) when one came, as a shell
 * reports a process the signal killed; else rc. */
int stop_status(int rc);

/* The index of the name in names[0..n-1] nearest to word (at most a third
 * of its letters to change, insert or drop, at least one), for "did you
 * mean"; -1 when none is that near. */
int nearest_name(const char *word, const char *const *names, int n);

/* Allocation that cannot fail: out of memory prints a message and exits 1.
 * The only place in jvmtool outside main that exits. */
void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Like asprintf; never returns NULL. Caller frees. */
char *xasprintf(const char *fmt, ...) PRINTF(1, 2);

/* Parse a whole decimal number in [min, max]. Returns 0, or -EINVAL (not a
 * number, trailing junk, empty) or -ERANGE (outside the bounds). */
int parse_long(const char *s, long long min, long long max, long long *out);
/* Parse a time as jstat's interval is written (stat's <interval> operand
 * only; every option takes parse_span): a whole number (Java's int:
 * optional sign, 32 bits) and a unit, "ms", "s", "m" or none. Returns 0
 * with the number in *n, the unit's milliseconds in *unit_ms (0: none; the
 * caller says what a plain number means) and the unit in *unit (NULL:
 * none), or -EINVAL with *unit NULL for a bad number, or set to the unknown
 * unit (*n set too). */
int parse_time(const char *s, long long *n, long long *unit_ms,
               const char **unit);
/* The time grammar of every option (--timeout, --duration, --interval,
 * --from, ...): a decimal number, a fraction allowed ("1.5s"), then "ns",
 * "us", "ms", "s", "m", "h", "d" or nothing, which means seconds. Returns 0
 * with *ns, or -EINVAL (no number, a sign, an unknown unit, over 100 years). */
int parse_span(const char *s, long long *ns);
/* Append ns as parse_span reads it back, in its largest whole unit
 * ("30s", "1d", "500ms", "1500ms"). */
struct buf;
void span_text(struct buf *b, long long ns);
/* The digits at p in base 10 or 16 (no sign, no prefix, no spaces) as
 * *v, wrapping past 2^64 as the kernel never writes; returns where they
 * end, or NULL when p holds no digit. For the kernel's /proc text, where
 * sscanf's cost showed (a JVM's maps: hundreds of lines). */
const char *scan_u64(const char *p, int base, unsigned long long *v);
/* The same after any spaces and tabs at p (what sscanf's "%llu" skips). */
static inline const char *scan_u64_after_blanks(const char *p, int base,
                                                unsigned long long *v)
{
  while (*p == ' ' || *p == '\t') p++;
  return scan_u64(p, base, v);
}
/* Parse a pid: 1..INT_MAX, digits only. Returns 0 or -EINVAL/-ERANGE. */
int parse_pid(const char *s, int *pid);

/* 16 hex digits from the kernel's random source (mixed from the clock and
 * our pid where it has none yet), for names others must not guess. */
void random_hex(char out[17]);

/* A growable byte string, always NUL-terminated once anything was added. */
struct buf {
  char *p;
  size_t len, cap;
};
void buf_add(struct buf *b, const void *data, size_t n);
void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) PRINTF(2, 3);
/* v in decimal, as "%" PRId64 prints it, without printf's cost. */
void buf_add_i64(struct buf *b, int64_t v);
void buf_free(struct buf *b);

/* Text that comes from a JVM or a container (main class, arguments, folder
 * names, counter strings, attach replies) on its way to a terminal:
 * control characters escaped so they cannot drive it (ESC as \e, others
 * as \xNN, C1 controls in UTF-8 as \xc2\xNN; tab kept, newline kept only
 * with keep_nl). Appends s (n bytes) to b, always escaped. */
void term_escape(struct buf *b, const char *s, size_t n, int keep_nl);
/* 1 when fd is a terminal (asked once for 0-2). */
int term_is_tty(int fd);
/* term_is_tty(1); force >= 0 sets it (tests). */
int term_escaping(int force);

/* Read all of the file at path (relative to dirfd, or AT_FDCWD) with pread,
 * opened with open_flags | O_RDONLY | O_CLOEXEC, at most max bytes. On success
 * returns 0 and a malloc'd buffer (NUL-terminated, len excludes the NUL);
 * the caller frees it. Otherwise returns -errno (-EFBIG when over max). */
int read_file(int dirfd, const char *path, int open_flags, size_t max,
              char **data, size_t *len);
/* The same from an open fd (not closed). */
int read_fd(int fd, size_t max, char **data, size_t *len);

/* Monotonic and wall clock in milliseconds. */
uint64_t now_ms(void);
uint64_t wall_ms(void);

/* True if s starts with prefix. */
static inline int starts_with(const char *s, const char *prefix)
{
  size_t n = 0;

  while (prefix[n] && s[n] == prefix[n]) n++;
  return !prefix[n];
}

#endif
