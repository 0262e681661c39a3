/* jfr_int.h - what core/jfr.c (chunks, checkpoints, the event walk),
 * jfr_record.c (a chunk's bytes, one record), jfr_meta.c (the type system
 * from the metadata), jfr_wire.c (varints, strings, values), jfr_pool.c
 * (constant pools, names) and jfr_events.c (folding, with jfr_agg.c's
 * per-chunk sums, jfr_alloc.c's and jfr_cpu.c's estimators) share; nothing
 * outside core/jfr*.c includes it.
 *
 * The files call downwards only: jfr_events.c -> jfr.c -> jfr_meta.c,
 * jfr_pool.c -> jfr_record.c, jfr_wire.c (test/lint.test checks that no
 * two files call each other round a circle).
 */
#ifndef JFR_INT_H
#define JFR_INT_H

#include "core/jfr.h"

/* JFR_HDR: a chunk header's bytes. JFR_REC_MAX: a metadata or checkpoint
 * record, or an event window; JDK 17/25 write metadata of 97-111 KB and
 * checkpoints of under 20 KB, and JFR rotates chunks at 12 MiB by default
 * (docs/jfr.md "Ceilings"). */
enum { JFR_SMALL_IDS = 1024, JFR_HDR = 68, JFR_REC_MAX = 64 << 20 };

enum jfr_kind {
  K_STRUCT,
  K_BOOL,
  K_BYTE,
  K_CHAR,
  K_SHORT,
  K_INT,
  K_LONG,
  K_FLOAT,
  K_DOUBLE,
  K_STRING
};

struct jfield {
  uint32_t name; /* metadata string index */
  int32_t type;  /* type index, -1: unknown id */
  uint64_t type_id;
  uint64_t ann; /* type id of a "TICKS" annotation, or 0 */
  uint8_t array, pool, ticks;
};

struct jtype {
  uint64_t id;
  uint32_t name;
  enum jfr_kind kind;
  uint32_t f0, nf; /* its fields: fields[f0 .. f0 + nf) */
};

/* A u64 key -> u32 value hash map (open addressing). */
struct jmap {
  uint64_t *keys;
  uint32_t *vals; /* value + 1; 0: empty slot */
  size_t used, cap;
};

/* A decoding cursor; bad is set on the first overrun or bad value. */
struct cur {
  const uint8_t *p, *end;
  int bad;
};

/* A captured value: integer or key in u; a string's bytes at s (n bytes
 * or, for tag 4, n UTF-16 varints) with its encoding tag. */
struct val {
  uint64_t u;
  const uint8_t *s;
  uint32_t n, bytes; /* tag 4: the units' count and their bytes */
  uint8_t tag;
};

/* A string kept in the pools: bytes in the arena, or a String-pool key. */
struct jstr {
  uint32_t off, len;
  uint64_t ref;
  uint8_t kind; /* 0 null, 1 bytes, 2 ref */
};

struct jpool { /* one kind of pool: key -> entry */
  struct jmap map;
  void *e;
  size_t n, cap, size; /* entries, their room, bytes per entry */
};

enum { P_SYM, P_STR, P_CLASS, P_METHOD, P_THREAD, P_STACK, P_COUNT };

struct jfr {
  int fd, seekable;
  const char *name;
  uint64_t fsize, off;  /* file size (seekable); current chunk start */
  uint64_t real;        /* bytes a seekable file really holds: its size,
                              or its allocated blocks when it is sparse */
  uint64_t size, limit; /* chunk size; bytes of it we may read */
  uint64_t cp_off, md_off, start_ns, start_ticks, tps;
  int gen, done;
  int64_t first_ns;
  uint8_t *mem; /* a pipe's chunk */
  uint8_t *rec; /* metadata/checkpoint record being decoded */
  size_t rec_cap;
  uint8_t *win; /* the event window */
  size_t win_cap;
  uint64_t win_pos, win_len;
  int64_t budget; /* decode steps left for this record */
  /* metadata */
  struct jtype *types;
  size_t ntypes;
  struct jfield *fields;
  size_t nfields;
  uint8_t *md_prev; /* the last metadata parsed (after its header) */
  size_t md_len;
  struct buf mstr;
  uint32_t *mstr_off;
  size_t nmstr;
  struct jmap type_ids;
  uint32_t id_small[JFR_SMALL_IDS]; /* type index + 1 of ids below it */
  uint64_t md_gen;        /* counts metadata parsed (bindings may stay) */
  int pool_type[P_COUNT]; /* type index of each pool kind, or -1 */
  uint64_t *vals;         /* capture room for the widest type */
  struct val *cap;
  size_t cap_n;
  /* pools */
  struct jpool pools[P_COUNT];
  struct buf arena;         /* pool strings */
  struct jfr_frame *frames; /* stack frames of the stack-trace pool */
  size_t nframes, frames_cap;
  size_t pool_bytes;
  struct buf names; /* method names built, by key (name_map) */
  struct jmap name_map;
  struct jfr_stats st;
};

uint64_t jfr_varint_long(struct cur *c);
/* A varint at c (most are one byte: those inline). */
static inline uint64_t jfr_varint(struct cur *c)
{
  if (c->p < c->end && *c->p < 0x80) return *c->p++;
  return jfr_varint_long(c);
}
uint8_t jfr_u8(struct cur *c);
/* A string at c (tag first), captured into v when not NULL. */
void jfr_dec_string(struct cur *c, struct val *v);
/* A count from the file, at most the bytes left (else c->bad). */
uint64_t jfr_count(struct cur *c);
void jmap_free(struct jmap *m);
void jmap_clear(struct jmap *m);
/* The value of key, or UINT32_MAX. */
uint32_t jmap_get(const struct jmap *m, uint64_t key);
void jmap_put(struct jmap *m, uint64_t key, uint32_t v);

/* ---- a chunk's events summed per stack (core/jfr_agg.c) ---- */
struct jfr_agg {
  uint64_t stack, thread, cls;
  int64_t value;
  uint64_t count;
  int sel;     /* the selected row; -1: an empty slot */
  uint8_t has; /* 1 stack, 2 thread, 4 class fields; 8 a
                              scaled sample, 16 an accounted one */
};
struct jfr_aggs { /* zeroed: empty */
  struct jfr_agg *e;
  size_t n, cap;
};
/* Add a (sel >= 0) to its entry in t, or make one: values saturate. */
void jfr_agg_add(struct jfr_aggs *t, const struct jfr_agg *a);

/* ---- bytes per stack of sampled allocations (core/jfr_alloc.c) ---- */
struct jfr_est;
struct jfr_est *jfr_est_new(void);
void jfr_est_free(struct jfr_est *e);
/* One jdk.ThreadAllocationStatistics value of thread (a pool key). */
void jfr_est_tas(struct jfr_est *e, uint64_t thread, int64_t allocated);
/* One sample of thread, in the --from/--to window or not. */
void jfr_est_seen(struct jfr_est *e, uint64_t thread);
/* count samples of thread at stack key[0..len) (copied), their weights
 * summing to weight. */
void jfr_est_add(struct jfr_est *e, uint64_t thread, const char *key,
                 size_t len, uint64_t count, int64_t weight);
/* End of a recording: each stack gets count / the thread's samples x its
 * statistics' delta (its raw weight when the thread has no pair) into f,
 * and its count into counts (NULL: none); threads scaled and not are added
 * to the counters. Then empty. */
void jfr_est_flush(struct jfr_est *e, struct fold *f, struct fold *counts,
                   int has_type, uint64_t *scaled, uint64_t *unscaled);

/* ---- CPU ns per stack from samples and /proc (core/jfr_cpu.c) ---- */
struct jfr_cpu;
struct jfr_cpu_stats {
  int64_t total_ns, process_ns, unsampled_ns, own_ns, wait_ns;
  uint64_t own_samples;
  int64_t dump_ns;       /* wall: time taken from the thread dump */
  uint64_t dump_threads; /* wall: threads with such time */
};
/* Account samples to the threads t[0..n) (not owned; process_ns: the
 * whole process's CPU over the same window; wall: each thread's wait for
 * a core is a "[runnable]" frame of its own too, and every thread there
 * all along gets the window's whole length, win_ns (ns since the epoch)
 * to win_ns + span_ns). Never NULL. */
struct jfr_cpu *jfr_cpu_new(const struct proc_cpu *t, size_t n,
                            int64_t process_ns, int wall, int64_t win_ns,
                            int64_t span_ns);
/* wall: a thread (osThreadId) was seen running or ending a wait at ns
 * (since the epoch): a wait still going on at the window's end began
 * after the latest such time. */
void jfr_cpu_seen(struct jfr_cpu *c, int64_t ostid, int64_t ns);
/* wall: the thread dumps JFR took at the window's start (first, NULL:
 * none) and end (jdk.ThreadDump, copied): each Java thread's state and
 * stack then; lines: frames with ":line". */
void jfr_cpu_dump(struct jfr_cpu *c, const char *first, size_t first_len,
                  const char *text, size_t len, int lines);
/* wall: ns a thread (osThreadId) spent blocked in an event (its duration
 * also holds the wait for a core after waking up, which is not counted
 * twice). */
void jfr_cpu_blocked(struct jfr_cpu *c, int64_t ostid, int64_t ns);
void jfr_cpu_free(struct jfr_cpu *c);
/* count samples of the thread whose osThreadId is ostid (-1: unknown) at
 * stack key[0..len) (copied); own: JFR's own code, counted for the
 * thread's share and then left out. */
void jfr_cpu_add(struct jfr_cpu *c, int64_t ostid, const char *key, size_t len,
                 uint64_t count, int own);
/* Each stack gets count / its thread's samples x the thread's CPU ns into
 * f (its count into counts, NULL: none); threads without samples become
 * "[KIND] name" frames (under the name as a root with thread_frames), and
 * with wall each thread's runqueue wait "[runnable]", a wait still going
 * on at the window's end under the state and stack of the end's dump
 * (all the window for a thread that never ran in it or JFR never saw
 * and that both dumps show in the same wait), the rest "[unrecorded]".
 * The sums go into st. Then empty. */
void jfr_cpu_flush(struct jfr_cpu *c, struct fold *f, struct fold *counts,
                   int thread_frames, struct jfr_cpu_stats *st);

/* Decode one value of field f (or, f NULL, of type t) at c, capturing it
 * into v (may be NULL). */
void jfr_dec_field(struct jfr *j, struct cur *c, const struct jfield *f,
                   struct val *v, int depth);
void jfr_dec_type(struct jfr *j, struct cur *c, int32_t t, struct val *v,
                  int depth);
/* Append a captured string as UTF-8 (at most 64 KiB of it; _max: about
 * max bytes, a character more at most). */
void jfr_str_utf8(const struct val *v, struct buf *out);
void jfr_str_utf8_max(const struct val *v, struct buf *out, size_t max);

/* ---- a chunk's bytes (core/jfr_record.c) ---- */

/* Read len bytes at chunk offset pos into p; returns the count read (short
 * at j->limit or where the file ends). */
size_t jfr_read(struct jfr *j, uint64_t pos, void *p, size_t len);
/* The record at chunk offset pos as a cursor over its whole bytes (after
 * its size), which stay valid until the next call; sets the decode budget
 * for it. Returns 0, or -1 when it overruns the chunk, is over JFR_REC_MAX
 * or the bytes the file really holds, or is unreadable. */
int jfr_record(struct jfr *j, uint64_t pos, struct cur *c, uint64_t *size);

/* Parse the current chunk's metadata record into types and fields (kept
 * as they are when it repeats the last one). Returns 0, or -1 with err
 * set. */
int jfr_metadata(struct jfr *j, char *err, size_t errlen);

/* Decode the checkpoint record at c (after its type id); keeps the pools
 * this reader uses. Returns 0 or -1 (the rest of the record is lost). */
int jfr_pool_checkpoint(struct jfr *j, struct cur *c);
void jfr_pool_reset(struct jfr *j);
void jfr_pool_free(struct jfr *j);

#endif
