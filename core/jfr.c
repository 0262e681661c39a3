/* jfr.c - JDK Flight Recorder recordings: chunks, checkpoints, the event
 * walk
 *
 * Facts (docs/jfr.md): a chunk is a 68-byte big-endian header, then
 * records "size type payload" with LEB128-style varints (nine bytes at
 * most, the ninth holding eight bits; padded forms are normal). Type 0 is
 * the metadata (a string table and an element tree of classes and
 * fields), type 1 a checkpoint (constant pools, chained backwards from the
 * header's offset by a relative delta), others are events laid out as
 * their type's fields. Everything is decoded by the metadata and bound to
 * names, never to JDK-specific ids or field positions. Nothing here trusts
 * a number from the file before checking it against the bytes left.
 */
/* The record walk and value decoding are the hot loops of reading a
 * recording: built for speed in a binary otherwise built for size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/jfr_int.h"

/* WIN: the event window; 128 KiB stays in the L2 cache between the
 * kernel's copy and the walk (1 MiB took a tenth longer). */
enum {
  HDR = JFR_HDR,
  WIN = 1 << 17,
  EVENT_MAX = 16 << 20,
  PIPE_MAX = 1 << 30,
  SPARSE_FROM = 64 << 10
};

/* ---- checkpoints ---- */

static void checkpoints(struct jfr *j)
{
  uint64_t pos = j->cp_off, size, hops = 0;

  while (pos >= HDR && pos < j->limit && hops++ < (1u << 20)) {
    struct cur c;
    int64_t delta;

    if (jfr_record(j, pos, &c, &size) || jfr_varint(&c) != 1) {
      j->st.bad_pools++;
      return;
    }
    jfr_varint(&c); /* start */
    jfr_varint(&c); /* duration */
    delta = (int64_t)jfr_varint(&c);
    jfr_u8(&c); /* flags */
    if (c.bad || jfr_pool_checkpoint(j, &c)) j->st.bad_pools++;
    /* the previous checkpoint is strictly before this one */
    if (delta >= 0 || (uint64_t)-delta > pos - HDR) return;
    pos -= (uint64_t)-delta;
  }
}

/* ---- chunks ---- */

static uint64_t be(const uint8_t *p, int n)
{
  uint64_t v = 0;

  while (n--) v = v << 8 | *p++;
  return v;
}

/* A pipe: the rest of the chunk after its header, into memory, as much
 * of it as comes (the buffer grows with the bytes read, not with the
 * size the header claims). */
static int read_pipe_chunk(struct jfr *j, const uint8_t *hdr, char *err,
                           size_t errlen)
{
  size_t got = HDR, cap = 0;

  free(j->mem);
  j->mem = NULL;
  while (got < j->size) {
    ssize_t r;

    if (got >= cap) {
      if (cap >= PIPE_MAX) {
        snprintf(err, errlen,
                 "a chunk of %" PRIu64 " bytes is over the "
                 "1 GiB read from a pipe",
                 j->size);
        return -1;
      }
      cap = cap ? cap * 2 : 1 << 16;
      if (cap > j->size) cap = (size_t)j->size;
      j->mem = xrealloc(j->mem, cap);
      if (got == HDR) memcpy(j->mem, hdr, HDR);
    }
    r = read(j->fd, j->mem + got, cap - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (!j->mem) j->mem = xmalloc(HDR);
  memcpy(j->mem, hdr, HDR);
  j->fsize = j->off + got;
  return 0;
}

int jfr_next_chunk(struct jfr *j, char *err, size_t errlen)
{
  uint8_t h[HDR];
  size_t n = 0;
  uint64_t avail;
  int minor;

  if (j->done) return 0;
  j->off += j->size;
  j->size = 0;
  jfr_pool_reset(j);
  j->limit = HDR;
  if (j->seekable) {
    n = jfr_read(j, 0, h, HDR);
  } else {
    free(j->mem);
    j->mem = NULL;
    while (n < HDR) {
      ssize_t r = read(j->fd, h + n, HDR - n);

      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      n += (size_t)r;
    }
  }
  j->done = 1;
  if (n == 0) return 0;
  if (n < HDR || !jfr_magic(h, n)) {
    j->st.truncated = n < HDR && jfr_magic(h, n);
    snprintf(err, errlen,
             n < HDR && jfr_magic(h, n)
                 ? "the recording ends inside a chunk header"
                 : "no chunk at offset %" PRIu64 " (not a recording?)",
             j->off);
    return -1;
  }
  minor = (int)be(h + 6, 2);
  j->size = be(h + 8, 8);
  j->cp_off = be(h + 16, 8);
  j->md_off = be(h + 24, 8);
  j->start_ns = be(h + 32, 8);
  j->start_ticks = be(h + 48, 8);
  j->tps = be(h + 56, 8);
  /* 2.0: a 4-byte capabilities word; 2.1: generation, pad, 2-byte flags */
  j->gen = minor ? h[64] : 0;
  if (be(h + 4, 2) != 2 || j->size < HDR || !j->tps) {
    snprintf(err, errlen,
             "chunk at offset %" PRIu64 ": unsupported version "
             "%d.%d or bad header",
             j->off, (int)be(h + 4, 2), minor);
    j->size = 0;
    return -1;
  }
  if (!(h[67] & 1) || (h[67] & 4)) {
    snprintf(err, errlen, "chunk at offset %" PRIu64 ": %s are not supported",
             j->off, h[67] & 4 ? "compressed ticks" : "uncompressed integers");
    j->size = 0;
    return -1;
  }
  if (!j->seekable && read_pipe_chunk(j, h, err, errlen)) {
    j->size = 0;
    return -1;
  }
  avail = j->fsize > j->off ? j->fsize - j->off : 0;
  if (j->gen == 255 || (j->size > avail && !j->gen)) {
    j->st.truncated = !j->gen;
    j->st.live = !!j->gen;
    snprintf(err, errlen,
             j->gen ? "the chunk at offset %" PRIu64 " is being "
                      "rewritten"
                    : "the recording ends inside the chunk at offset %" PRIu64
                      " (cut short?)",
             j->off);
    j->size = 0;
    return -1;
  }
  /* a chunk still being written: only what its header published */
  j->limit = j->size < avail ? j->size : avail;
  j->st.live = !!j->gen;
  if (!j->first_ns) j->first_ns = (int64_t)j->start_ns;
  if (!j->st.start_ns) j->st.start_ns = (int64_t)j->start_ns;
  if ((int64_t)(j->start_ns + be(h + 40, 8)) > j->st.end_ns)
    j->st.end_ns = (int64_t)(j->start_ns + be(h + 40, 8));
  if (jfr_metadata(j, err, errlen)) {
    j->size = 0;
    return -1;
  }
  checkpoints(j);
  j->st.chunks++;
  j->st.end = j->off + j->limit;
  j->done = j->gen != 0;
  return 1;
}

/* ---- events ---- */

/* Make chunk bytes [pos, pos+len) lie in the window; NULL when they
 * cannot be read. */
static const uint8_t *window(struct jfr *j, uint64_t pos, size_t len)
{
  if (j->mem) return pos + len <= j->limit ? j->mem + pos : NULL;
  if (pos >= j->win_pos && pos + len <= j->win_pos + j->win_len)
    return j->win + (pos - j->win_pos);
  if (len > j->win_cap) {
    if (len > JFR_REC_MAX || len > j->real) return NULL;
    j->win = xrealloc(j->win, j->win_cap = len);
  }
  j->win_pos = pos;
  j->win_len = jfr_read(j, pos, j->win, j->win_cap);
  return len <= j->win_len ? j->win : NULL;
}

/* Decode one wanted event, the record [p, p + size), and hand it over.
 * Returns what cb returns. */
static int event(struct jfr *j, const uint8_t *p, uint64_t size, uint32_t ti,
                 jfr_event_cb *cb, void *ctx)
{
  const struct jtype *t = &j->types[ti];
  struct cur c = {p, p + size, 0};

  jfr_varint(&c);
  jfr_varint(&c);
  j->budget = 64 * (int64_t)size + 65536;
  for (uint32_t i = 0; i < t->nf && !c.bad; i++) {
    struct val *v = &j->cap[i];

    /* field by field: a memset here compiles (-Os) to rep stos, which
     * cost a third of the time spent on wanted events */
    v->u = 0;
    v->s = NULL;
    v->n = 0;
    v->bytes = 0;
    v->tag = 0;
    jfr_dec_field(j, &c, &j->fields[t->f0 + i], v, 1);
    j->vals[i] = v->u;
  }
  if (c.bad || t->kind != K_STRUCT) {
    j->st.bad_records++;
    return 0;
  }
  j->st.events++;
  return cb(ctx, (int)ti, j->vals);
}

/* Records are walked inside the window (most are a few bytes: size and
 * type decoded in place); the window moves when a record's head or a
 * wanted record does not fit in what is left of it. */
int jfr_walk(struct jfr *j, const uint8_t *want, jfr_event_cb *cb, void *ctx,
             char *err, size_t errlen)
{
  uint64_t pos = HDR;

  if (!j->win) j->win = xmalloc(j->win_cap = WIN);
  j->win_len = 0;
  while (pos < j->limit) {
    size_t head = j->limit - pos < 10 ? (size_t)(j->limit - pos) : 10;
    const uint8_t *base = window(j, pos, head);
    size_t have, at = 0;

    if (!base) {
      if (j->gen) return 0;
      snprintf(err, errlen,
               "bad record at chunk offset %" PRIu64 " (unreadable)", pos);
      return -1;
    }
    have = (size_t)((j->mem ? j->mem + j->limit : j->win + j->win_len) - base);
    while (at < have && pos < j->limit) {
      struct cur c = {base + at, base + have, 0};
      uint64_t size, type;
      uint32_t ti;

      /* a head that may run past the window: move it (not when the
       * window was just moved here, or the chunk ends inside it) */
      if (at && have - at < 20 && have - at < j->limit - pos) break;
      size = jfr_varint(&c);
      if (c.bad || size < (uint64_t)(c.p - base - at) + 1 ||
          size > j->limit - pos) {
        if (j->gen) return 0; /* the unpublished end of a live chunk */
        snprintf(err, errlen,
                 "bad record at chunk offset %" PRIu64 " (size out of bounds)",
                 pos);
        return -1;
      }
      type = jfr_varint(&c);
      j->st.records++;
      ti = type < JFR_SMALL_IDS ? j->id_small[type] - 1
                                : jmap_get(&j->type_ids, type);
      if (!c.bad && type > 1 && ti != UINT32_MAX && want[ti]) {
        if (size > EVENT_MAX) {
          j->st.bad_records++;
        } else if (size <= have - at) {
          if (event(j, base + at, size, ti, cb, ctx)) return 0;
        } else { /* the window moves: go on from the next record */
          const uint8_t *r = window(j, pos, (size_t)size);

          if (!r)
            j->st.bad_records++;
          else if (event(j, r, size, ti, cb, ctx))
            return 0;
          pos += size;
          break;
        }
      }
      pos += size;
      at = size < have - at ? at + (size_t)size : have;
    }
  }
  return 0;
}

/* ---- queries ---- */

int jfr_magic(const void *p, size_t n)
{
  return n >= 4 && !memcmp(p, "FLR\0", 4);
}

int jfr_detect(int fd)
{
  struct stat sb;
  char m[4];

  return !fstat(fd, &sb) && S_ISREG(sb.st_mode) && pread(fd, m, 4, 0) == 4 &&
         jfr_magic(m, 4);
}

int64_t jfr_time_ns(const struct jfr *j, uint64_t ticks)
{
  __int128 d = (__int128)(int64_t)(ticks - j->start_ticks) * 1000000000 /
               (__int128)j->tps;

  return (int64_t)j->start_ns + (int64_t)d;
}

int64_t jfr_span_ns(const struct jfr *j, int64_t ticks)
{
  __int128 d = (__int128)ticks * 1000000000 / (__int128)j->tps;

  return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

int64_t jfr_start_ns(const struct jfr *j)
{
  return j->first_ns;
}

const struct jfr_stats *jfr_stats(const struct jfr *j)
{
  return &j->st;
}

struct jfr *jfr_open(int fd, const char *name)
{
  struct jfr *j = xzalloc(sizeof(*j));
  struct stat sb;

  j->fd = fd;
  j->name = name;
  j->seekable = !fstat(fd, &sb) && S_ISREG(sb.st_mode);
  j->fsize = j->seekable ? (uint64_t)sb.st_size : 0;
  /* No record is larger than the bytes the file holds: a sparse file's
   * holes read as zeros, and a record claiming them is refused unread. */
  j->real = j->fsize;
  if (j->fsize > SPARSE_FROM && (uint64_t)sb.st_blocks * 512 < j->fsize / 2)
    j->real = (uint64_t)sb.st_blocks * 512;
  return j;
}

void jfr_close(struct jfr *j)
{
  if (!j) return;
  jfr_pool_free(j);
  free(j->mem);
  free(j->rec);
  free(j->win);
  free(j->types);
  free(j->fields);
  free(j->mstr_off);
  free(j->md_prev);
  buf_free(&j->mstr);
  jmap_free(&j->type_ids);
  free(j->vals);
  free(j->cap);
  free(j);
}
