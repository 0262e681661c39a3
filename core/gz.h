/* gz.h - gzip members of stored deflate blocks, written as they come
 *
 * RFC 1952 framing around RFC 1951 stored blocks (no compression): what
 * every gzip reader takes, in bounded memory (one 64 KiB block is held).
 * For pprof profiles (core/pprof), which the tools expect gzipped.
 */
#ifndef GZ_H
#define GZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { GZ_BLOCK = 65535 }; /* a stored block's largest length */

struct gz {
  FILE *f;
  uint32_t crc, size; /* of the bytes so far; size mod 2^32 */
  size_t n;           /* bytes held in blk */
  unsigned char blk[GZ_BLOCK];
};

/* The CRC-32 (IEEE, zlib's) of p[0..n) continued from crc (0 to start). */
uint32_t gz_crc32(uint32_t crc, const void *p, size_t n);

/* Write a gzip header to f (not owned) and start a member. */
void gz_start(struct gz *z, FILE *f);
/* Add n bytes to the member. */
void gz_write(struct gz *z, const void *p, size_t n);
/* The last block and the trailer. Returns 0, or -EIO when f has seen a
 * write error (f is flushed, not closed). */
int gz_finish(struct gz *z);

#endif
