/* hprof_in.c - a heap dump's bytes, plain or gzip (hprof_in.h)
 *
 * The inflater is RFC 1951 written from the RFC: Huffman codes decoded
 * through a 10-bit table with a bit-at-a-time path for longer codes,
 * stored, fixed and dynamic blocks, a 32 KiB window. Input is pulled from
 * the file (or memory), output pushed to a sink in blocks; RFC 1952
 * framing around it, each member's CRC-32 and length checked. Bytes past
 * the end of the input read as zeros and are counted, so a cut file ends
 * the decode at once instead of looping on the zeros.
 */
#include "core/jvmtool.h"
#include "core/gz.h"
#include "core/hprof_in.h"
#include <pthread.h>
#include <sched.h>

/* RD: a plain file's bytes per read(2): they are parsed while still in
 * the cache the copy left them in */
enum { RD = 1 << 18 };
enum { FAST = 10, WIN = 32768, OUT_CAP = WIN + HIN_BLOCK, QMAX = 4 };

struct huff {
  uint16_t fast[1 << FAST]; /* len << 9 | symbol, or 0: a longer code */
  uint16_t count[16];       /* codes per length */
  uint16_t sym[320];        /* symbols by code */
};

struct inflate {
  int fd; /* -1: the input is in[0..in_len) alone */
  const unsigned char *in;
  unsigned char *inbuf;
  size_t ip, in_len;
  uint64_t raw; /* bytes taken from fd */
  uint64_t bits;
  int nbits, over; /* over: zero bytes given past the input's end */
  unsigned char *out;
  size_t op, flushed;
  uint64_t mout; /* bytes of the current member */
  uint32_t crc;
  int (*sink)(void *ctx, const unsigned char *p, size_t n);
  void *ctx;
  int err;
  const char *why;
  struct huff lit, dist;
};

/* Bits used that were never in the input? */
static int past_end(const struct inflate *z)
{
  return z->nbits < 8 * z->over;
}

static int bad(struct inflate *z, const char *why)
{
  if (!z->err) {
    z->err = past_end(z) ? HIN_ESHORT : HIN_EGZ;
    z->why = past_end(z) ? "the gzip data ends early" : why;
  }
  return -1;
}

static int more_input(struct inflate *z)
{
  ssize_t n;

  if (z->fd < 0) return 0;
  do n = read(z->fd, z->inbuf, HIN_BLOCK);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (!z->err) z->err = -errno;
    return 0;
  }
  z->in = z->inbuf;
  z->ip = 0;
  z->in_len = (size_t)n;
  z->raw += (uint64_t)n;
  return n > 0;
}

static void refill(struct inflate *z)
{
  while (z->nbits <= 56) {
    uint64_t b = 0;

    if (z->ip < z->in_len || more_input(z))
      b = z->in[z->ip++];
    else
      z->over++;
    z->bits |= b << z->nbits;
    z->nbits += 8;
  }
}

static inline uint32_t need(struct inflate *z, int n)
{
  uint32_t v;

  if (z->nbits < n) refill(z);
  v = (uint32_t)(z->bits & ((1ull << n) - 1));
  z->bits >>= n;
  z->nbits -= n;
  return v;
}

/* Real input left (bits not yet used that came from the file, or more of
 * the file)? */
static int at_end(struct inflate *z)
{
  if (z->nbits - 8 * z->over > 0) return 0;
  if (z->ip < z->in_len) return 0;
  return !more_input(z);
}

static int build(struct inflate *z, struct huff *h, const uint8_t *len, int n)
{
  uint16_t offs[16], next[16];
  int left = 1;

  memset(h, 0, sizeof(*h));
  for (int i = 0; i < n; i++) h->count[len[i]]++;
  h->count[0] = 0;
  for (int l = 1; l < 16; l++) {
    left = (left << 1) - h->count[l];
    if (left < 0) return bad(z, "a Huffman code is over-subscribed");
  }
  offs[1] = 0;
  next[1] = 0;
  for (int l = 1; l < 15; l++) {
    offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
    next[l + 1] = (uint16_t)((next[l] + h->count[l]) << 1);
  }
  for (int s = 0; s < n; s++) {
    int l = len[s];
    uint32_t code, rev = 0;

    if (!l) continue;
    h->sym[offs[l]++] = (uint16_t)s;
    code = next[l]++;
    if (l > FAST) continue;
    for (int b = 0; b < l; b++) rev |= ((code >> b) & 1) << (l - 1 - b);
    for (uint32_t k = rev; k < (1u << FAST); k += 1u << l)
      h->fast[k] = (uint16_t)(l << 9 | s);
  }
  return 0;
}

static int decode(struct inflate *z, const struct huff *h)
{
  int code = 0, first = 0, index = 0;
  uint16_t e;

  if (z->nbits < 16) refill(z);
  e = h->fast[z->bits & ((1u << FAST) - 1)];
  if (e) {
    z->bits >>= e >> 9;
    z->nbits -= e >> 9;
    return e & 511;
  }
  for (int l = 1; l < 16; l++) {
    int count = h->count[l];

    code |= (int)need(z, 1);
    if (code - count < first) return h->sym[index + (code - first)];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return bad(z, "a Huffman code matches no symbol");
}

static int flush(struct inflate *z)
{
  size_t keep;

  if (z->op > z->flushed) {
    z->crc = gz_crc32(z->crc, z->out + z->flushed, z->op - z->flushed);
    if (z->sink(z->ctx, z->out + z->flushed, z->op - z->flushed)) {
      if (!z->err) z->err = -ECANCELED;
      return -1;
    }
  }
  keep = z->op < WIN ? z->op : WIN;
  memmove(z->out, z->out + z->op - keep, keep);
  z->op = z->flushed = keep;
  return 0;
}

static const uint16_t lbase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                   15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                   67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dbase[30] = {
    1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
    33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dext[30] = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                 4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int codes(struct inflate *z)
{
  for (;;) {
    int s = decode(z, &z->lit);

    if (s < 0 || past_end(z)) return bad(z, "a block runs past the data");
    if (z->op > OUT_CAP - 260 && flush(z)) return -1;
    if (s < 256) {
      z->out[z->op++] = (unsigned char)s;
      z->mout++;
    } else if (s == 256) {
      return 0;
    } else {
      int len, d, ds;

      if (s > 285) return bad(z, "a length symbol past 285");
      len = lbase[s - 257] + (int)need(z, lext[s - 257]);
      ds = decode(z, &z->dist);
      if (ds < 0 || ds > 29) return bad(z, "a distance symbol past 29");
      d = dbase[ds] + (int)need(z, dext[ds]);
      if ((uint64_t)d > z->mout) return bad(z, "a distance before the start");
      for (int i = 0; i < len; i++, z->op++) z->out[z->op] = z->out[z->op - d];
      z->mout += (uint64_t)len;
    }
  }
}

static int stored(struct inflate *z)
{
  uint32_t n;

  need(z, z->nbits & 7);
  n = need(z, 16);
  if ((need(z, 16) ^ 0xffff) != n) return bad(z, "a stored block's length");
  while (n--) {
    if (past_end(z)) return bad(z, "a stored block runs past the data");
    if (z->op == OUT_CAP && flush(z)) return -1;
    z->out[z->op++] = (unsigned char)need(z, 8);
    z->mout++;
  }
  return 0;
}

static int fixed(struct inflate *z)
{
  uint8_t len[288];

  for (int i = 0; i < 288; i++)
    len[i] = (uint8_t)(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
  if (build(z, &z->lit, len, 288)) return -1;
  for (int i = 0; i < 30; i++) len[i] = 5;
  return build(z, &z->dist, len, 30) ? -1 : codes(z);
}

static int dynamic(struct inflate *z)
{
  static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t len[320] = {0};
  int nlen = (int)need(z, 5) + 257, ndist = (int)need(z, 5) + 1;
  int ncode = (int)need(z, 4) + 4, i = 0;

  if (nlen > 286 || ndist > 30) return bad(z, "too many codes in a block");
  for (int k = 0; k < ncode; k++) len[order[k]] = (uint8_t)need(z, 3);
  if (build(z, &z->lit, len, 19)) return -1;
  memset(len, 0, sizeof(len));
  while (i < nlen + ndist) {
    int s = decode(z, &z->lit), rep, v = 0;

    if (s < 0 || past_end(z)) return bad(z, "code lengths run past the data");
    if (s < 16) {
      len[i++] = (uint8_t)s;
      continue;
    }
    if (s == 16) {
      if (!i) return bad(z, "a repeat with no length before it");
      v = len[i - 1];
      rep = 3 + (int)need(z, 2);
    } else {
      rep = s == 17 ? 3 + (int)need(z, 3) : 11 + (int)need(z, 7);
    }
    if (i + rep > nlen + ndist) return bad(z, "code lengths past the count");
    while (rep--) len[i++] = (uint8_t)v;
  }
  if (!len[256]) return bad(z, "a block with no end code");
  if (build(z, &z->lit, len, nlen) || build(z, &z->dist, len + nlen, ndist))
    return -1;
  return codes(z);
}

static int header(struct inflate *z)
{
  int flg;

  if (need(z, 8) != 0x1f || need(z, 8) != 0x8b || need(z, 8) != 8)
    return bad(z, "not a gzip member (magic, method 8)");
  flg = (int)need(z, 8);
  need(z, 32);
  need(z, 16);
  if (flg & 4) {
    uint32_t n = need(z, 16);

    while (n-- && !past_end(z)) need(z, 8);
  }
  for (int f = 8; f <= 16; f <<= 1) {
    if (!(flg & f)) continue;
    while (!past_end(z) && need(z, 8)) continue;
  }
  if (flg & 2) need(z, 16);
  return past_end(z) ? bad(z, "a gzip header runs past the data") : 0;
}

/* Every member of the input, its bytes to the sink. 0 or -1 (z->err). */
static int inflate_all(struct inflate *z)
{
  do {
    int last;

    if (header(z)) return -1;
    z->crc = 0;
    z->mout = 0;
    z->op = z->flushed = 0;
    do {
      int type;

      last = (int)need(z, 1);
      type = (int)need(z, 2);
      if (type == 0   ? stored(z)
          : type == 1 ? fixed(z)
          : type == 2 ? dynamic(z)
                      : bad(z, "a block of type 3"))
        return -1;
    } while (!last);
    if (flush(z)) return -1;
    need(z, z->nbits & 7);
    if (need(z, 32) != z->crc) return bad(z, "a member's CRC-32 differs");
    if (need(z, 32) != (uint32_t)z->mout)
      return bad(z, "a member's length differs");
    if (past_end(z)) return bad(z, "a member's trailer is cut");
  } while (!at_end(z));
  return z->err ? -1 : 0;
}

static void inflate_init(struct inflate *z, int fd, const unsigned char *p,
                         size_t n)
{
  memset(z, 0, sizeof(*z));
  z->fd = fd;
  z->in = p;
  z->in_len = n;
  z->out = xmalloc(OUT_CAP);
  if (fd >= 0) z->inbuf = xmalloc(n > HIN_BLOCK ? n : HIN_BLOCK);
}

/* hin_gunzip's sink: append, up to a cap. */
struct membuf {
  unsigned char *p;
  size_t n, cap, limit;
};

static int mem_sink(void *ctx, const unsigned char *p, size_t n)
{
  struct membuf *m = ctx;

  if (n > m->limit - m->n) return -1;
  if (m->n + n > m->cap) {
    m->cap = (m->n + n) * 2 < m->limit ? (m->n + n) * 2 : m->limit;
    m->p = xrealloc(m->p, m->cap ? m->cap : 1);
  }
  memcpy(m->p + m->n, p, n);
  m->n += n;
  return 0;
}

int hin_gunzip(const unsigned char *p, size_t n, size_t cap,
               unsigned char **out, size_t *outn, const char **why)
{
  struct inflate z;
  struct membuf m = {NULL, 0, 0, cap};
  int rc;

  inflate_init(&z, -1, p, n);
  z.sink = mem_sink;
  z.ctx = &m;
  rc = inflate_all(&z);
  free(z.out);
  *why = z.why;
  if (rc) {
    free(m.p);
    return z.err == -ECANCELED ? -EFBIG : z.err;
  }
  *out = m.p;
  *outn = m.n;
  return 0;
}

/* The inflating thread and the queue of blocks it fills. */
struct hin_pipe {
  pthread_t t;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned char *q[QMAX];
  size_t qn[QMAX];
  int head, count, done, stop, err;
  const char *why;
  uint64_t raw;
  struct inflate z;
};

static int pipe_sink(void *ctx, const unsigned char *p, size_t n)
{
  struct hin_pipe *pp = ctx;
  unsigned char *b = xmalloc(n);
  int stop;

  memcpy(b, p, n);
  pthread_mutex_lock(&pp->mu);
  while (pp->count == QMAX && !pp->stop) pthread_cond_wait(&pp->cv, &pp->mu);
  stop = pp->stop;
  if (!stop) {
    pp->q[(pp->head + pp->count) % QMAX] = b;
    pp->qn[(pp->head + pp->count) % QMAX] = n;
    pp->count++;
    pp->raw = pp->z.raw;
    pthread_cond_broadcast(&pp->cv);
  }
  pthread_mutex_unlock(&pp->mu);
  if (stop) free(b);
  return stop ? -1 : 0;
}

static void *pipe_run(void *arg)
{
  struct hin_pipe *pp = arg;
  int rc = inflate_all(&pp->z);

  pthread_mutex_lock(&pp->mu);
  pp->done = 1;
  pp->err = rc ? pp->z.err : 0;
  pp->why = pp->z.why;
  pp->raw = pp->z.raw;
  pthread_cond_broadcast(&pp->cv);
  pthread_mutex_unlock(&pp->mu);
  return NULL;
}

static void (*progress_fn)(void *, uint64_t, uint64_t);
static void *progress_ctx;

/* Several members at once (a regular file). The JDK's -gz dumps are
 * members of 1 MiB each (inflated), the first with the comment "HPROF
 * BLOCKSIZE=1048576", every one with a time of 0 in its header (seen
 * here: 1306 members for 1.3 GB): the file is cut into chunks at each
 * such header, in order,
 * and workers (one per CPU) inflate the chunks at once, each alone. A
 * chunk is taken only when it inflated to whole members ending exactly
 * at its end (each member's CRC-32 and length checked), so a cut at bytes
 * that only looked like a header fails; the first chunk that fails (or a
 * chunk with no header within PJ_RAW of its start: another gzip writer,
 * or one past PJ_OUT inflated) is inflated again, with the rest of the
 * file, by the one inflating thread from its start: the bytes given are
 * the same either way, as are the errors. Memory: at most PJ_JOBS chunks
 * and their output, whatever the file says. */
enum {
  PJ_RAW = 8 << 20, /* a chunk's bytes in the file, at most */
  PJ_OUT = 8 << 20, /* what a chunk may inflate to */
  PJ_READ = 1 << 20,
  PJ_WORKERS = 8,
};

struct pjob {         /* its buffers kept for the next chunk in its place */
  unsigned char *raw; /* the chunk's bytes, file offset at */
  size_t nraw, capraw;
  uint64_t at;
  struct membuf out;
  int state; /* enum pj_state */
};
enum pj_state { PJ_FREE, PJ_BUSY, PJ_DONE, PJ_FAILED, PJ_SEQ, PJ_END };

struct hin_par {
  pthread_t t[PJ_WORKERS];
  int nt;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct pjob job[2 * PJ_WORKERS + 2];
  int njob;
  uint64_t made, used; /* chunks cut and given out, in order */
  size_t given;        /* bytes of job[used % njob].out given */
  int fd, stop, ended;
  uint64_t base, size, pos; /* file offsets: the stream's, end, next chunk */
  unsigned char *win;       /* the file's bytes [wat, wat + wlen) */
  size_t wlen, wcap;
  uint64_t wat;
};

/* Where a member header as the JDK writes them starts in p[from..n), or
 * n: the magic, method 8, no flag but the comment's, a time of 0. */
static size_t member_at(const unsigned char *p, size_t from, size_t n)
{
  static const unsigned char zero[4];
  const unsigned char *q;

  for (size_t at = from; at + 10 <= n; at = (size_t)(q - p) + 1) {
    q = memmem(p + at, n - at, "\x1f\x8b\x08", 3);
    if (!q || q + 10 > p + n) break;
    if ((q[3] == 0 || q[3] == 0x10) && !memcmp(q + 4, zero, 4))
      return (size_t)(q - p);
  }
  return n;
}

/* Cut the next chunk into job j (the lock held): PJ_BUSY with its bytes,
 * PJ_SEQ (inflate from here one after another), or PJ_END. */
static void cut(struct hin_par *pp, struct pjob *j)
{
  size_t start, end;

  if (pp->pos >= pp->size) {
    j->state = PJ_END;
    pp->ended = 1;
    return;
  }
  if (pp->pos > pp->wat) { /* drop what earlier chunks took */
    size_t drop = (size_t)(pp->pos - pp->wat);

    if (drop > pp->wlen) drop = pp->wlen;
    memmove(pp->win, pp->win + drop, pp->wlen - drop);
    pp->wlen -= drop;
    pp->wat += drop;
  }
  start = (size_t)(pp->pos - pp->wat);
  for (;;) {
    ssize_t n;

    end = member_at(pp->win, start + 1, pp->wlen);
    if (end < pp->wlen) break;
    if (pp->wlen - start >= PJ_RAW || pp->wat + pp->wlen >= pp->size) {
      end = pp->wlen; /* the file's end, or no header: checked below */
      break;
    }
    if (pp->wcap - pp->wlen < PJ_READ) {
      pp->wcap = pp->wlen + PJ_READ;
      pp->win = xrealloc(pp->win, pp->wcap);
    }
    n = pread(pp->fd, pp->win + pp->wlen, PJ_READ, (off_t)(pp->wat + pp->wlen));
    if (n <= 0) { /* a read error or a file that shrank: one at a time */
      end = pp->wlen;
      pp->size = pp->wat + pp->wlen;
      break;
    }
    pp->wlen += (size_t)n;
  }
  j->at = pp->pos;
  if (end - start > PJ_RAW ||
      (end == pp->wlen && pp->wat + pp->wlen < pp->size) || end == start) {
    j->state = PJ_SEQ;
    pp->ended = 1;
    return;
  }
  j->nraw = end - start;
  if (j->capraw < j->nraw) {
    free(j->raw);
    j->raw = xmalloc(j->capraw = j->nraw);
  }
  memcpy(j->raw, pp->win + start, j->nraw);
  j->state = PJ_BUSY;
  pp->pos += j->nraw;
  pp->made++;
}

static void *par_run(void *arg)
{
  struct hin_par *pp = arg;

  pthread_mutex_lock(&pp->mu);
  for (;;) {
    struct pjob *j;
    struct inflate z;
    int rc;

    while (!pp->stop &&
           (pp->ended || pp->made - pp->used >= (uint64_t)pp->njob))
      pthread_cond_wait(&pp->cv, &pp->mu);
    if (pp->stop) break;
    j = &pp->job[pp->made % (uint64_t)pp->njob];
    cut(pp, j);
    pthread_cond_broadcast(&pp->cv);
    if (j->state != PJ_BUSY) continue;
    pthread_mutex_unlock(&pp->mu);
    j->out.n = 0;
    j->out.limit = PJ_OUT;
    inflate_init(&z, -1, j->raw, j->nraw);
    z.sink = mem_sink;
    z.ctx = &j->out;
    rc = inflate_all(&z);
    free(z.out);
    pthread_mutex_lock(&pp->mu);
    j->state = rc ? PJ_FAILED : PJ_DONE;
    pthread_cond_broadcast(&pp->cv);
  }
  pthread_mutex_unlock(&pp->mu);
  return NULL;
}

static void par_free(struct hin_par *pp)
{
  pthread_mutex_lock(&pp->mu);
  pp->stop = 1;
  pthread_cond_broadcast(&pp->cv);
  pthread_mutex_unlock(&pp->mu);
  for (int k = 0; k < pp->nt; k++) pthread_join(pp->t[k], NULL);
  for (int k = 0; k < pp->njob; k++) {
    free(pp->job[k].raw);
    free(pp->job[k].out.p);
  }
  free(pp->win);
  pthread_mutex_destroy(&pp->mu);
  pthread_cond_destroy(&pp->cv);
  free(pp);
}

/* The workers for fd, a regular file of size bytes whose stream starts at
 * offset base; NULL when no thread starts. */
static struct hin_par *par_start(int fd, uint64_t base, uint64_t size)
{
  struct hin_par *pp = xzalloc(sizeof(*pp));
  cpu_set_t cpus;
  int want = 2;

  if (!sched_getaffinity(0, sizeof(cpus), &cpus)) want = CPU_COUNT(&cpus);
  want = want < 1 ? 1 : want > PJ_WORKERS ? PJ_WORKERS : want;
  pp->fd = fd;
  pp->base = pp->pos = pp->wat = base;
  pp->size = size;
  pp->njob = 2 * want + 2;
  pthread_mutex_init(&pp->mu, NULL);
  pthread_cond_init(&pp->cv, NULL);
  while (pp->nt < want && !pthread_create(&pp->t[pp->nt], NULL, par_run, pp))
    pp->nt++;
  if (!pp->nt) {
    par_free(pp);
    return NULL;
  }
  return pp;
}

static int seq_start(struct hin *h, const unsigned char *p, size_t n);

/* The next bytes from the workers into h->buf (room for HIN_BLOCK): how
 * many, 0 at the end; from the first chunk they could not take, the one
 * inflating thread goes on (h->pipe), -1 for the caller to read it. */
static ssize_t par_fill(struct hin *h)
{
  struct hin_par *pp = h->par;
  struct pjob *j;
  size_t n;
  uint64_t at;

  pthread_mutex_lock(&pp->mu);
  for (;;) {
    j = &pp->job[pp->used % (uint64_t)pp->njob];
    while (pp->used == pp->made && !pp->ended)
      pthread_cond_wait(&pp->cv, &pp->mu);
    if (pp->used == pp->made) { /* cut no more: its end, or one at a time */
      at = pp->pos;
      n = pp->size <= pp->pos ? 0 : 1;
      break;
    }
    while (j->state == PJ_BUSY) pthread_cond_wait(&pp->cv, &pp->mu);
    if (j->state == PJ_FAILED) {
      at = j->at;
      n = 1;
      break;
    }
    if (pp->given < j->out.n) { /* the workers leave a done chunk be */
      pthread_mutex_unlock(&pp->mu);
      n = j->out.n - pp->given < HIN_BLOCK ? j->out.n - pp->given : HIN_BLOCK;
      memcpy(h->buf + h->len, j->out.p + pp->given, n);
      pp->given += n;
      h->raw = j->at + j->nraw - pp->base;
      return (ssize_t)n;
    }
    j->state = PJ_FREE;
    pp->given = 0;
    pp->used++;
    pthread_cond_broadcast(&pp->cv);
  }
  pthread_mutex_unlock(&pp->mu);
  h->raw = at - pp->base;
  par_free(pp);
  h->par = NULL;
  if (!n) return 0;
  /* one at a time from the chunk at: the same bytes and errors */
  if (lseek(h->fd, (off_t)at, SEEK_SET) < 0) {
    h->eof = 1;
    h->err = -errno;
    return 0;
  }
  if (seq_start(h, NULL, 0)) {
    h->eof = 1;
    return 0;
  }
  return -1;
}

/* Append at least one more block to h->buf; 0 at the end or on error. */
static size_t fill(struct hin *h)
{
  ssize_t n;

  if (h->eof) return 0;
  if (h->off && h->off == h->len) h->off = h->len = 0;
  if (!h->gz && h->off && h->len - h->off <= RD / 4) {
    /* a plain file reads into the buffer's first RD * 5 / 4 bytes only:
     * each page of it new costs a fault, one in cache a copy */
    memmove(h->buf, h->buf + h->off, h->len - h->off);
    h->len -= h->off;
    h->off = 0;
  }
  if (h->cap - h->len < HIN_BLOCK) {
    memmove(h->buf, h->buf + h->off, h->len - h->off);
    h->len -= h->off;
    h->off = 0;
  }
  if (h->cap - h->len < HIN_BLOCK) {
    h->cap = h->len + 2 * HIN_BLOCK;
    h->buf = xrealloc(h->buf, h->cap);
  }
  if (h->par && (n = par_fill(h)) >= 0) {
    if (!n) {
      h->eof = 1;
      return 0;
    }
  } else if (h->gz) {
    struct hin_pipe *pp = h->pipe;

    pthread_mutex_lock(&pp->mu);
    while (!pp->count && !pp->done) pthread_cond_wait(&pp->cv, &pp->mu);
    if (!pp->count) {
      h->eof = 1;
      h->err = pp->err;
      h->why = pp->why;
      n = 0;
    } else {
      n = (ssize_t)pp->qn[pp->head];
      memcpy(h->buf + h->len, pp->q[pp->head], (size_t)n);
      free(pp->q[pp->head]);
      pp->head = (pp->head + 1) % QMAX;
      pp->count--;
      pthread_cond_broadcast(&pp->cv);
    }
    h->raw = pp->raw;
    pthread_mutex_unlock(&pp->mu);
  } else {
    size_t want = h->cap - h->len > RD ? RD : h->cap - h->len;

    do n = read(h->fd, h->buf + h->len, want);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
      h->eof = 1;
      if (n < 0) h->err = -errno;
      return 0;
    }
    h->raw += (uint64_t)n;
  }
  h->len += (size_t)n;
  if (progress_fn) progress_fn(progress_ctx, h->raw, h->size);
  return (size_t)n;
}

void hin_progress(void (*fn)(void *ctx, uint64_t raw, uint64_t size), void *ctx)
{
  progress_fn = fn;
  progress_ctx = ctx;
}

int hin_open(struct hin *h, int fd)
{
  struct stat st;

  memset(h, 0, sizeof(*h));
  h->fd = fd;
  h->cap = 2 * HIN_BLOCK;
  h->buf = xmalloc(h->cap);
  if (!fstat(fd, &st) && S_ISREG(st.st_mode)) h->size = (uint64_t)st.st_size;
  if (progress_fn) progress_fn(progress_ctx, 0, h->size);
  while (h->len < 2 && fill(h)) continue;
  if (h->err) return h->err;
  if (h->len >= 2 && h->buf[0] == 0x1f && h->buf[1] == 0x8b) {
    off_t at = h->size ? lseek(fd, 0, SEEK_CUR) : -1;

    h->gz = 1;
    if (at >= 0 && (uint64_t)at >= h->raw &&
        (h->par = par_start(fd, (uint64_t)at - h->raw, h->size))) {
      h->len = 0;
      h->raw = 0;
      return 0;
    }
    if (seq_start(h, h->buf, h->len)) return h->err;
    h->len = 0;
  }
  return 0;
}

/* The one inflating thread, from fd's offset, p[0..n) read from there
 * already: 0, or -EAGAIN. */
static int seq_start(struct hin *h, const unsigned char *p, size_t n)
{
  struct hin_pipe *pp = xzalloc(sizeof(*pp));

  inflate_init(&pp->z, h->fd, NULL, n);
  if (n) memcpy(pp->z.inbuf, p, n);
  pp->z.in = pp->z.inbuf;
  pp->z.in_len = n;
  pp->z.raw = h->raw;
  pp->z.sink = pipe_sink;
  pp->z.ctx = pp;
  pthread_mutex_init(&pp->mu, NULL);
  pthread_cond_init(&pp->cv, NULL);
  h->gz = 1;
  h->eof = 0;
  h->pipe = pp;
  if (pthread_create(&pp->t, NULL, pipe_run, pp)) {
    h->pipe = NULL;
    free(pp->z.inbuf);
    free(pp->z.out);
    free(pp);
    return h->err = -EAGAIN;
  }
  return 0;
}

void hin_close(struct hin *h)
{
  struct hin_pipe *pp = h->pipe;

  if (h->par) par_free(h->par);
  if (pp) {
    pthread_mutex_lock(&pp->mu);
    pp->stop = 1;
    pthread_cond_broadcast(&pp->cv);
    pthread_mutex_unlock(&pp->mu);
    pthread_join(pp->t, NULL);
    while (pp->count--) free(pp->q[(pp->head++) % QMAX]);
    free(pp->z.inbuf);
    free(pp->z.out);
    pthread_mutex_destroy(&pp->mu);
    pthread_cond_destroy(&pp->cv);
    free(pp);
  }
  free(h->buf);
  memset(h, 0, sizeof(*h));
  h->fd = -1;
}

size_t hin_peek_more(struct hin *h, size_t n, const unsigned char **p)
{
  if (n > HIN_SPAN) n = HIN_SPAN;
  while (h->len - h->off < n) {
    if (h->cap - h->off < n + HIN_BLOCK && h->off) {
      memmove(h->buf, h->buf + h->off, h->len - h->off);
      h->len -= h->off;
      h->off = 0;
    }
    if (h->cap < n + HIN_BLOCK) {
      h->cap = n + 2 * HIN_BLOCK;
      h->buf = xrealloc(h->buf, h->cap);
    }
    if (!fill(h)) break;
  }
  *p = h->buf + h->off;
  return h->len - h->off < n ? h->len - h->off : n;
}

uint64_t hin_skip_more(struct hin *h, uint64_t n)
{
  uint64_t done = 0;

  for (;;) {
    size_t have = h->len - h->off;

    if (n - done <= have) {
      h->off += (size_t)(n - done);
      h->pos += n - done;
      return n;
    }
    done += have;
    h->pos += have;
    h->off = h->len = 0;
    if (!h->gz && h->size && n - done > HIN_BLOCK && !h->eof) {
      /* A regular file: seek over big arrays, up to its end. */
      uint64_t left = h->size > h->raw ? h->size - h->raw : 0;
      uint64_t jump = n - done < left ? n - done : left;

      if (jump && lseek(h->fd, (off_t)jump, SEEK_CUR) >= 0) {
        h->raw += jump;
        h->pos += jump;
        done += jump;
        continue;
      }
    }
    if (!fill(h)) return done;
  }
}
