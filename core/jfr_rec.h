/* jfr_rec.h - one JFR recording of a running JVM, through attach
 *
 * What `profile` and serve's profile pulls share: JFR.start with only the
 * events asked for (core/jfr_start: inline options, or a .jfc in the
 * target's /tmp on JDK 11-16), JFR.stop into a file of the target's own
 * /tmp under a name nobody can guess, and that file taken back through
 * core/root (checked: regular, the JVM's user, one link; removed by inode
 * at once). The recording ends itself (duration= and maxsize=) should the
 * caller die. Each call is one attach request bounded by timeout_ms.
 *
 * Errors are the attach codes (enum attach_error, negative), or
 * JFR_REC_NOJFR (the JVM has no Flight Recorder or refuses the command),
 * JFR_REC_REFUSED (the JVM answered but did not do it), or -errno; the
 * one line of why is in err. Nothing here prints.
 */
#ifndef JFR_REC_H
#define JFR_REC_H

#include <stddef.h>
#include <stdint.h>
#include "core/attach.h"
#include "core/jvm.h"
#include "core/proc.h"

enum {
  JFR_REC_NOJFR = -100,   /* no JFR in that JVM (JDK 8 before 8u262) */
  JFR_REC_REFUSED = -101, /* JFR.start/stop answered without doing it */
  JFR_REC_USER = -102,    /* the JVM runs as another user than asked */
};

enum { JFR_REC_REPOS = 8 };

struct jfr_rec {
  const struct jvm *j; /* the JVM recorded (core/jvm: it holds its /tmp) */
  int timeout_ms;
  int jdk;       /* its feature version, 0: unknown */
  int open;      /* made ready by jfr_rec_open */
  char name[64]; /* the recording's */
  char file[64]; /* its file, "/tmp/jvmtool-<hex>.jfr" in the target */
  char jfc[64];  /* the .jfc put for JFR.start (JDK 11-16), "": none */
  int account;   /* 1 cpu, 2 wall: the threads' CPU is measured; 0 not */
  /* cpu and wall: the threads' CPU from the start's answer to the stop
   * (core/proc), what core/jfr_cpu weighs samples by */
  struct proc_window win;
  struct proc_cpu *cpu; /* after the stop; NULL: not measured */
  size_t ncpu;
  int64_t cpu_ns;  /* the process's CPU over the window */
  int64_t span_ns; /* the window's length */
  int64_t win_ns;  /* its start, ns since the epoch */
  /* JFR's disk repositories in the target's /tmp before the start (a
   * folder JFR makes on a JVM's first recording and keeps until it
   * exits): one made by ours is removed once it is empty */
  char repo[JFR_REC_REPOS][32];
  int nrepo;
  int repo_known; /* the list is complete: a new one can be told */
};

/* Make ready to record j (core/jvm's, held by the caller until
 * jfr_rec_close): checks that it runs as uid (-1: any user; else
 * JFR_REC_USER), is a verified JVM and takes attach requests (attach_check),
 * names the recording and its file, asks its JDK version when its PerfData
 * did not say (over attach unless timeout_ms is 0: a caller driving its
 * own exchanges asks VM.version when r->jdk is 0, and sets r->timeout_ms,
 * the margin of duration=). 0, or an error. jfr_rec_close always. */
struct jvm;
int jfr_rec_open(struct jfr_rec *r, const struct jvm *j, long long uid,
                 int timeout_ms, char *err, size_t n);

/* Start recording event (a --event word or type; interval: its period or
 * threshold, ns) for ns nanoseconds plus timeout_ms (so our stop always
 * comes first); cpu and wall also start the threads' CPU window, which
 * jfr_rec_stop ends (r->cpu). 0 and *warn the JVM's "Warning" lines (malloc'd, "" for
 * none; caller frees), or an error. */
int jfr_rec_start(struct jfr_rec *r, const char *event, int64_t interval,
                  int64_t ns, char **warn, char *err, size_t n);

/* jfr_rec_start in two halves, for a caller that drives the exchange
 * itself (core/attach's state): the JFR.start line appended to line (the
 * .jfc put first, JDK 11-16), 0 or an error; then the exchange's outcome
 * (rc and reply as attach_result gives them; reply is taken): the .jfc
 * removed, 0 and *warn, or an error. */
#include "core/lib.h"
int jfr_rec_start_line(struct jfr_rec *r, const char *event, int64_t interval,
                       int64_t ns, struct buf *line, char *err, size_t n);
int jfr_rec_started(struct jfr_rec *r, int rc, char *reply, char **warn,
                    char *err, size_t n);
/* JFR.stop's line (into r->file, or plain: only ending it) appended to
 * line (not plain: the CPU window of cpu and wall ends here); its outcome (reply taken): 0 when written, or an error. */
void jfr_rec_stop_line(struct jfr_rec *r, int plain, struct buf *line);
int jfr_rec_stopped(const struct jfr_rec *r, int rc, char *reply, char *err,
                    size_t n);

/* Stop it into r->file. 0, or an error (then, if the JVM lives, it was
 * stopped all the same with a plain JFR.stop). */
int jfr_rec_stop(struct jfr_rec *r, char *err, size_t n);

/* Take r->file out of the target's /tmp: 0 and *fd (caller closes; the
 * name is gone already), or -errno (-ENOENT: not there). */
int jfr_rec_take(struct jfr_rec *r, int *fd, char *err, size_t n);

/* Remove r->file if it is there (a failed or abandoned recording), and
 * the .jfc of a JFR.start whose outcome never came. */
void jfr_rec_drop(struct jfr_rec *r);

/* Stop (if asked: a JVM that may still record) and drop, quietly: what a
 * caller does that no longer wants the recording. */
void jfr_rec_abandon(struct jfr_rec *r, int stop);

void jfr_rec_close(struct jfr_rec *r);

/* Append the comment a profile of r's recording (event, interval) carries
 * (pprof's, a line each): what was asked of JFR (jfr_start_source), then
 * more when not NULL (how the values were made: the CPU accounting, the
 * allocation estimator, a sampler's fall-back). */
struct buf;
void jfr_rec_comment(const struct jfr_rec *r, const char *event,
                     int64_t interval, const char *more, struct buf *b);

/* How to fold r's recording of event: its CPU window (each thread's CPU,
 * the process's, the window's start and length: cpu and wall), frames
 * with lines and the thread as the root (pprof's); every event, no
 * --value. A caller changes what it asks otherwise. */
#include "core/jfr.h"
struct jfr_fold_opts jfr_rec_fold_opts(const struct jfr_rec *r,
                                       const char *event);

/* Fold r's taken recording (fd) of event into a gzipped pprof profile
 * (core/pprof: frames with lines, threads as labels, period interval; CPU
 * accounted from r->cpu when measured) written to out. 0, or -1 with err
 * (nothing usable in it). */
#include <stdio.h>
int jfr_rec_pprof(const struct jfr_rec *r, int fd, const char *event,
                  int64_t interval, FILE *out, char *err, size_t n);
/* The same recording folded the same way (jfr_rec_fold_opts) drawn as
 * core/flame's SVG (its script at script_href, or inline when NULL). 0, or
 * -1 with err. */
int jfr_rec_svg(const struct jfr_rec *r, int fd, const char *event,
                const char *script_href, FILE *out, char *err, size_t n);

#endif
