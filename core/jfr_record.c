/* jfr_record.c - the bytes of the current chunk: a range of them, and one
 * record as a cursor over its whole bytes
 *
 * The bottom of the reader: jfr.c (chunks, checkpoints, the event walk),
 * jfr_meta.c (the metadata record) and jfr_pool.c read through here and
 * it calls none of them. A chunk is read with pread from a file, or from
 * memory when it came through a pipe; nothing past j->limit (what the
 * chunk's header published) is ever read.
 */
/* The event window is filled through jfr_read: part of the hot loops of
 * reading a recording, built for speed in a binary otherwise built for
 * size (as jfr.c and jfr_wire.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/jfr_int.h"

size_t jfr_read(struct jfr *j, uint64_t pos, void *p, size_t len)
{
  size_t got = 0;

  if (pos >= j->limit) return 0;
  if (len > j->limit - pos) len = (size_t)(j->limit - pos);
  if (j->mem) {
    memcpy(p, j->mem + pos, len);
    return len;
  }
  while (got < len) {
    ssize_t r =
        pread(j->fd, (char *)p + got, len - got, (off_t)(j->off + pos + got));

    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

int jfr_record(struct jfr *j, uint64_t pos, struct cur *c, uint64_t *size)
{
  uint8_t head[10];
  struct cur h;
  size_t n = jfr_read(j, pos, head, sizeof(head));

  h = (struct cur){head, head + n, 0};
  *size = jfr_varint(&h);
  if (h.bad || *size < (uint64_t)(h.p - head) + 1 || *size > j->limit - pos ||
      *size > JFR_REC_MAX || (!j->mem && *size > j->real))
    return -1;
  if (j->mem) {
    c->p = j->mem + pos + (h.p - head);
    c->end = j->mem + pos + *size;
  } else {
    if (*size > j->rec_cap)
      j->rec = xrealloc(j->rec, j->rec_cap = (size_t)*size);
    if (jfr_read(j, pos, j->rec, (size_t)*size) != *size) return -1;
    c->p = j->rec + (h.p - head);
    c->end = j->rec + *size;
  }
  c->bad = 0;
  j->budget = 64 * (int64_t)*size + 65536;
  return 0;
}
