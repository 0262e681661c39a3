/* hprof_in.h - the bytes of a heap dump, plain or gzip, as one stream
 *
 * A dump is read front to back once per pass. A plain file is read in
 * large blocks; a gzip file (the JDK's GC.heap_dump -gz=N writes
 * concatenated members, any gzip file works) is inflated by a second
 * thread into a short queue of blocks, so one core inflates while the
 * other parses, and memory stays a few blocks whatever the file claims.
 * hin_get hands out contiguous bytes up to HIN_SPAN at a time.
 */
#ifndef HPROF_IN_H
#define HPROF_IN_H

#include <stddef.h>
#include <stdint.h>

enum {
  HIN_BLOCK = 1 << 20, /* bytes per block read or inflated */
  HIN_SPAN = 1 << 24,  /* the longest run hin_get hands out whole */
};

/* Why a stream stopped early (hin.err), beside -errno from read(2). */
enum hin_err {
  HIN_OK = 0,
  HIN_EGZ = 1,    /* not valid gzip/deflate data: hin.why says what */
  HIN_ESHORT = 2, /* a gzip member ends before its trailer */
};

struct hin_pipe; /* the inflating thread's side (hprof_in.c) */
struct hin_par;  /* the workers inflating several members at once */

struct hin {
  int fd;        /* not owned */
  int gz;        /* 1: gzip members */
  uint64_t pos;  /* offset of buf[off] in the (inflated) stream */
  uint64_t raw;  /* bytes read from fd so far */
  uint64_t size; /* the file's size when a regular file, else 0 */
  unsigned char *buf;
  size_t off, len, cap; /* buf[off..len) not yet taken */
  int eof;              /* the source has nothing more */
  int err;              /* 0, -errno or an enum hin_err */
  const char *why;      /* HIN_EGZ: what was wrong (static text) */
  struct hin_pipe *pipe;
  struct hin_par *par;
};

/* Start reading fd (at its current offset) as a dump: gzip when it starts
 * with the gzip magic. 0, or -errno (read) / -EIO after setting h->err. */
int hin_open(struct hin *h, int fd);
/* Stop the inflating thread and free what hin_open took (fd stays). */
void hin_close(struct hin *h);
/* Make n (<= HIN_SPAN) contiguous bytes available at *p without taking
 * them. Returns n, or fewer at the end of the stream or after an error
 * (h->err says which). */
size_t hin_peek_more(struct hin *h, size_t n, const unsigned char **p);
static inline __attribute__((always_inline)) size_t
hin_peek(struct hin *h, size_t n, const unsigned char **p)
{
  if (h->len - h->off >= n) { /* the common case, per object: inlined */
    *p = h->buf + h->off;
    return n;
  }
  return hin_peek_more(h, n, p);
}
/* Take n bytes (after hin_peek showed them, or to skip): returns how many
 * were really there (fewer at the end of the stream). */
uint64_t hin_skip_more(struct hin *h, uint64_t n);
static inline __attribute__((always_inline)) uint64_t hin_skip(struct hin *h,
                                                               uint64_t n)
{
  if (n <= h->len - h->off) {
    h->off += (size_t)n;
    h->pos += n;
    return n;
  }
  return hin_skip_more(h, n);
}

/* A process-wide progress hook for every stream opened from now on: fn
 * (ctx, 0, size) when a pass starts, then fn(ctx, raw, size) as each
 * block is read (raw: bytes taken from the file; size: its size, 0 when
 * not a regular file), in the thread that reads. NULL: none. */
void hin_progress(void (*fn)(void *ctx, uint64_t raw, uint64_t size),
                  void *ctx);

/* Inflate one whole gzip stream (any number of members) in p[0..n) into
 * a malloc'd buffer of at most cap bytes (for tests and fuzzing). 0 with
 * *out and *outn, or an enum hin_err / -EFBIG when it would exceed cap. */
int hin_gunzip(const unsigned char *p, size_t n, size_t cap,
               unsigned char **out, size_t *outn, const char **why);

#endif
