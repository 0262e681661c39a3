/* jfr.h - read JDK Flight Recorder recordings (docs/jfr.md)
 *
 * A recording is chunks back to back; each chunk carries its own type
 * system (the metadata record) and constant pools (checkpoint records).
 * The reader goes chunk by chunk: jfr_next_chunk() loads one chunk's
 * metadata and the pools a profile needs (stack traces, methods, classes,
 * symbols, strings, threads), jfr_walk() hands its wanted events over one
 * at a time. Memory grows with the pools, not with the file: events are
 * read through a window. Every length and count in the file is checked
 * against what is left before it is used; nesting is bounded, decoding has
 * a work budget, pools are capped (JFR_POOL_MAX), and no record is read
 * that is larger than 64 MiB or than the bytes the file really holds (a
 * sparse file's holes are not data).
 */
#ifndef JFR_H
#define JFR_H

#include <stddef.h>
#include <stdint.h>

#include "core/lib.h"

enum {
  JFR_POOL_MAX = 128 << 20, /* bytes of decoded pools per chunk: real
                                recordings decode to under 100 KiB per
                                chunk (docs/jfr.md "Ceilings") */
  JFR_MAX_DEPTH = 16,       /* nesting of inline structs and elements */
};

struct jfr;
struct proc_cpu;

/* One frame of a stack trace in the stack-trace pool (jfr_stack). */
struct jfr_frame {
  uint64_t method; /* key in the method pool */
  int32_t line;    /* -1: none */
};

struct jfr_stats {
  uint64_t chunks;          /* chunks read whole */
  uint64_t records, events; /* records walked; events handed over */
  uint64_t bad_records;     /* records that did not decode (skipped) */
  uint64_t bad_pools;       /* checkpoint records that did not decode */
  uint64_t missing;         /* references to pool keys that were not there */
  uint64_t end;             /* offset after the last chunk read whole */
  int64_t start_ns, end_ns; /* the chunks' span, ns since the epoch */
  int live;                 /* the last chunk was still being written */
  int truncated;            /* the file ends inside a finished chunk */
};

/* Start reading the recording open on fd (not closed by the reader; a
 * pipe works too: then each chunk is held in memory, up to 1 GiB). name
 * is for messages. Never NULL. */
struct jfr *jfr_open(int fd, const char *name);
void jfr_close(struct jfr *j);

/* 1 if the 4 bytes at p are a chunk's magic ("FLR\0"). */
int jfr_magic(const void *p, size_t n);
/* 1 if fd is a regular file that starts with a chunk (read with pread, so
 * the file offset stays). */
int jfr_detect(int fd);

/* Load the next chunk. Returns 1 (a chunk is ready), 0 (no more chunks),
 * or -1 with a one-line reason in err; chunks before it stay counted, and
 * the recording ends there. */
int jfr_next_chunk(struct jfr *j, char *err, size_t errlen);

/* The current chunk's type index of a type name, or -1. */
int jfr_type(const struct jfr *j, const char *name);
/* The index of a field of type t by name, or -1. The field count of t. */
int jfr_field(const struct jfr *j, int t, const char *name);
int jfr_nfields(const struct jfr *j, int t);
/* 1 if field i of type t holds an integer (not an array, pool key, string
 * or struct); 2 if it is also a time span in ticks (@Timespan(TICKS)). */
int jfr_field_numeric(const struct jfr *j, int t, int i);

/* Hand every event of a wanted type (want[type index] != 0, want sized
 * for jfr_ntypes) in the current chunk to cb, with the values of its
 * fields in metadata order: vals[i] is field i's integer (primitives
 * sign-extended, booleans 0/1, floats their bits), constant-pool key or
 * array length; 0 for an inline string or struct.
 * cb returns 0 to go on. Returns 0, or -1 with err when the chunk's bytes
 * could not be read (events before stay handed over). */
typedef int jfr_event_cb(void *ctx, int type, const uint64_t *vals);
int jfr_walk(struct jfr *j, const uint8_t *want, jfr_event_cb *cb, void *ctx,
             char *err, size_t errlen);
int jfr_ntypes(const struct jfr *j);

/* Inside a jfr_walk callback: append field i of the event handed over, a
 * string, as UTF-8 to out (inline: about max bytes at most; a String-pool
 * reference: as the pool keeps it, 64 KiB at most). 0, or -1 when the
 * field is no string or null. */
int jfr_event_str(struct jfr *j, int i, size_t max, struct buf *out);

/* The frames of stack trace key (leaf first) and its truncated flag.
 * Returns the frame count, or -1 when the key is 0 or not in the pools. */
int jfr_stack(struct jfr *j, uint64_t key, const struct jfr_frame **frames,
              int *truncated);
/* Append "dotted.Class.method" of a method key to out (hidden classes keep
 * their name as written). Returns 0, or -1 after appending "[unknown]"
 * when the method, its class or a name is missing. */
int jfr_method_name(struct jfr *j, uint64_t method, struct buf *out);
/* Append the Java name of a class key ("java.lang.String", "byte[]").
 * Returns 0, or -1 after appending "[unknown]". */
int jfr_class_name(struct jfr *j, uint64_t cls, struct buf *out);
/* Append a thread's Java name (else its OS name). 0, or -1 + "[unknown]". */
int jfr_thread_name(struct jfr *j, uint64_t thread, struct buf *out);

/* A thread's osThreadId (its tid inside the JVM's pid namespace), or -1
 * when the pools do not say. */
int64_t jfr_thread_os_id(struct jfr *j, uint64_t thread);

/* Ticks of the current chunk as ns since the epoch; a span of ticks as ns. */
int64_t jfr_time_ns(const struct jfr *j, uint64_t ticks);
int64_t jfr_span_ns(const struct jfr *j, int64_t ticks);
/* The first chunk's start, ns since the epoch (0 before the first). */
int64_t jfr_start_ns(const struct jfr *j);

const struct jfr_stats *jfr_stats(const struct jfr *j);

/* ---- folding events into stacks (core/jfr_events.c) ---- */

struct fold;

/* The rows of specs/jfr_events.def. */
struct jfr_event_row {
  const char *word; /* cpu, cputime, alloc, lock, native */
  int group;
  const char *name;     /* the event type */
  const char *value;    /* the field summed, NULL: one a sample */
  int type_leaf;        /* the leaf frame: 1 the allocated class, 2 the
                              monitor's (or parked-on object's) class */
  const char *settings; /* JFR.start settings, NULL: none */
  const char *scale;    /* "type#field": per-thread bytes, NULL: none */
  int from, to;         /* the JDKs profile asks it of (0: unbounded) */
  const char *state;    /* the frame first under the thread, NULL: none */
};
extern const struct jfr_event_row jfr_event_rows[];
extern const int jfr_event_nrows;
/* 1 if e is what --event takes: a word of specs/jfr_events.def or an event
 * type's name (letters, digits, '.', '_', '$', with a '.'), else 0. */
int jfr_event_valid(const char *e);
/* A usage error for a bad --event e, naming the nearest word. Returns 2. */
int jfr_event_error(const char *e);

/* profile's JFR.start (core/jfr_start.c), in the form JDK jdk takes (0:
 * unknown, taken as the newest). */
struct jfr_start {
  const char *name;  /* the recording's */
  const char *file;  /* filename=, in the target's filesystem */
  long long ms, mb;  /* duration= and maxsize= */
  const char *event; /* a row word or an event type */
  int64_t interval;  /* ns: "$I" and "$R" of the rows' settings */
  int jdk;
  const char *jfc; /* settings=: a .jfc in the target's filesystem
                              (jfr_start_jfc's text), NULL: inline options */
};
/* 0 if JDK jdk (0: unknown) can record event (an event type by name is
 * taken on trust), else the first JDK that can (cputime: 25). */
int jfr_start_since(const char *event, int jdk);
/* 1 if JDK jdk takes no event options in JFR.start: its events must come
 * from a .jfc file (JDK 11-16), else 0. */
int jfr_start_needs_jfc(int jdk);
/* Append the .jfc text that enables what the rows of event ask of JDK jdk
 * (every setting as its own event element). */
void jfr_start_jfc(struct buf *b, const char *event, int64_t interval, int jdk);
/* Append what a profile of event asked JDK jdk's JFR for, for a reader of
 * the profile: "JFR (JDK 17): jdk.JavaMonitorEnter#threshold=1ms
 * jdk.ThreadPark#threshold=1ms" (every setting of the rows but enabled
 * and stackTrace; jdk 0: "JFR (JDK unknown)"). */
void jfr_start_source(struct buf *b, const char *event, int64_t interval,
                      int jdk);
/* The feature version of the JVM j: its PerfData's, else the "JDK N" line
 * of its VM.version (a JVM run with -XX:-UsePerfData); 0 when neither
 * says. */
struct jvm;
int jfr_start_jdk(const struct jvm *j, int timeout_ms);
/* The feature version in a VM.version reply ("JDK 17.0.2" line), 0: none.
 * (jfr_start_jdk with timeout_ms 0 asks nothing: the caller sends
 * VM.version itself when it got 0.) */
int jfr_start_jdk_of(const char *reply);
/* Put s's .jfc into j's /tmp as a new file with a name nobody can guess,
 * owned as core/jvm's jvm_file_owner says; its name into name (n bytes).
 * Returns 0 or -errno (nothing left). */
int jfr_start_put_jfc(const struct jvm *j, const struct jfr_start *s,
                      char *name, size_t n);
/* Remove that file again (once JFR.start has answered: it was read). */
void jfr_start_drop_jfc(const struct jvm *j, const char *name);
/* Append the JFR.start command line of s: settings=none and the rows'
 * settings as "+event#setting=value" options, or settings=<s->jfc>. */
void jfr_start_line(struct buf *b, const struct jfr_start *s);

struct jfr_fold_opts {
  const char *event;      /* a row word or an event type; NULL: default */
  const char *value;      /* sum this numeric field instead ("samples":
                              count them; alloc: "weight" is the raw one) */
  int lines;              /* "Class.method:line" */
  int thread_frames;      /* the thread's name as the root frame */
  int samples;            /* one a sample, whatever the value */
  int64_t from_ns, to_ns; /* since the recording's start; -1: open */
  /* cpu and wall's on-CPU samples: each thread's CPU over the recording
   * (core/proc's window), the process's in cpu_ns; cpu NULL: samples
   * count as recorded. Not owned. */
  const struct proc_cpu *cpu;
  size_t ncpu;
  int64_t cpu_ns;
  int keep_own;    /* keep stacks in JFR's own code (collapse) */
  int64_t span_ns; /* the window's length (wall: a thread's time
                              waiting for a core is at most what its CPU
                              and blocking events leave of it) */
  int64_t win_ns;  /* wall: the window's start, ns since the epoch (0:
                      none); a blocking event counts only its part in
                      [win_ns, win_ns + span_ns], as the CPU does */
};

struct jfr_fold_stats {
  uint64_t chunks, events, no_stack, unknown_frames, bad;
  uint64_t used;             /* events in the result (after finish) */
  uint64_t scaled, unscaled; /* threads whose samples were scaled by their
                              allocation statistics / kept raw weights */
  uint64_t end;             /* the last recording's bytes read (chunks whole) */
  int64_t start_ns, end_ns; /* the recordings' span, ns since the epoch */
  int truncated, live;      /* some recording was cut short / being written */
  uint64_t own;             /* the chosen events in JFR's own code
                              (jdk.jfr.internal), left out (after finish) */
  int64_t own_ns;           /* their CPU, when accounted */
  int accounted;            /* values are CPU ns from the kernel */
  int64_t cpu_ns, process_ns; /* the profile's total and the process's */
  int64_t unsampled_ns;       /* of threads JFR does not sample */
  int64_t dump_ns;            /* wall: waits going on at the window's end,
                                 from JFR's thread dump at the stop */
  uint64_t dump_threads;      /* wall: threads with such a wait */
  int no_dump;                /* wall: the recording held no such dump */
};

struct jfr_fold;

/* Fold the events o asks for into f (not owned). Never NULL. */
struct jfr_fold *jfr_fold_new(struct fold *f, const struct jfr_fold_opts *o);
/* Also fold each stack's number of events into counts (not owned; the
 * same keys as the values' fold gets). Call before the first recording. */
void jfr_fold_counts(struct jfr_fold *jf, struct fold *counts);
/* Read a recording from fd (not closed). Returns 0, or -1 with err when
 * it could not be read to its end: what came before is folded. */
int jfr_fold_fd(struct jfr_fold *jf, int fd, const char *name, char *err,
                size_t errlen);
/* After the last recording: the events chosen go into the fold. Returns
 * the event types chosen ("jdk.ExecutionSample", ...) or NULL when no
 * event asked for was found; *unit is what the values count ("samples",
 * "bytes", "ns" or the field's name). */
const char *jfr_fold_finish(struct jfr_fold *jf, const char **unit);
const struct jfr_fold_stats *jfr_fold_stats(const struct jfr_fold *jf);
/* After finish: the --event word of the events chosen (cpu, alloc, ...),
 * NULL for an event type asked for by name or none found. */
const char *jfr_fold_word(const struct jfr_fold *jf);
/* After finish: the pprof columns the chosen events give (core/pprof:
 * cpu, alloc, lock; a --value or --samples one column), the recordings'
 * start and length (accounted: the CPU window's, which the values
 * cover), whether the root frame is the thread. o->period is
 * the caller's. */
struct pprof_opts;
void jfr_fold_pprof(const struct jfr_fold *jf, struct pprof_opts *o);
void jfr_fold_free(struct jfr_fold *jf);

#endif
