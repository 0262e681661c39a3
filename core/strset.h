/* strset.h - a set of byte strings, numbered as they come
 *
 * For the stack folder (core/fold.c): the keys' bytes live in one buffer
 * of the caller's, and a key that already lies in it is not copied again,
 * so a stack read from a mapped file costs no copy until it is new. A key
 * is its bytes and a number (ctx); each entry carries a number of the
 * caller's (n). Open addressing over a 64-bit hash, kept half empty.
 */
#ifndef STRSET_H
#define STRSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct buf;

struct strset_entry {
  uint64_t hash;
  size_t off, len;
  int64_t n;   /* stacks: the number of their total; totals: the value */
  int64_t ctx; /* stacks: what else decides how they fold */
};

struct strset {
  struct strset_entry *e;
  size_t used, cap;
  uint64_t *index; /* open addressing: hash high half, entry number + 1 */
  size_t icap;
};

/* Eight bytes at p, unaligned. */
static inline uint64_t load64(const char *p)
{
  uint64_t w;

  memcpy(&w, p, 8);
  return w;
}

/* memcmp(a, b, n) == 0, thirty-two bytes a step (musl's goes by bytes). */
int strset_same(const char *a, const char *b, size_t n);

/* The entry of key[0..len) and ctx in set t, made with n = init when
 * new; its bytes are bytes->p[off .. off + len). A key that already lies
 * in bytes is not copied again. Valid until the next strset_intern. */
struct strset_entry *strset_intern(struct buf *bytes, struct strset *t,
                                   const char *key, size_t len, int64_t ctx,
                                   int64_t init);

/* The hash strset_intern files key[0..len) and ctx under. */
uint64_t strset_hash(const char *key, size_t len, int64_t ctx);

/* strset_intern with h = strset_hash(key, len, ctx) known. */
struct strset_entry *strset_intern_h(struct buf *bytes, struct strset *t,
                                     const char *key, size_t len, int64_t ctx,
                                     int64_t init, uint64_t h);

void strset_free(struct strset *t);

#endif
