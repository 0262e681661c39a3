/* gz.c - gzip members of stored deflate blocks (gz.h)
 *
 * A member is a ten-byte header (magic, method 8, no flags, no time, OS
 * unknown), stored blocks (a header byte, LEN and its complement, then
 * LEN raw bytes; the last one has BFINAL set) and a trailer (the CRC-32
 * and the length mod 2^32, both little-endian).
 */
#include "core/jvmtool.h"
#include "core/gz.h"
#include <pthread.h>

/* CRC-32 (the reflected 0xEDB88320), eight bytes a step: crc_t[k][b] is
 * the CRC of byte b followed by k zero bytes, so eight lookups fold eight
 * bytes in at once (slicing by 8, ~1.5 instructions a byte against ~6
 * for one table; a 1 GB dump or the built-in spec at start-up). */
static uint32_t crc_t[8][256];

static void crc_tables(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;

    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
    crc_t[0][i] = c;
  }
  for (int k = 1; k < 8; k++)
    for (int i = 0; i < 256; i++)
      crc_t[k][i] = (crc_t[k - 1][i] >> 8) ^ crc_t[0][crc_t[k - 1][i] & 0xff];
}

uint32_t gz_crc32(uint32_t crc, const void *p, size_t n)
{
  /* made once, whole, before any thread reads them (the gz reader's
   * members inflate on several threads) */
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  const unsigned char *b = p;

  pthread_once(&once, crc_tables);
  crc = ~crc;
  for (; n >= 8; n -= 8, b += 8) {
    uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 |
                         (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
                  (uint32_t)b[7] << 24;

    crc = crc_t[7][lo & 0xff] ^ crc_t[6][(lo >> 8) & 0xff] ^
          crc_t[5][(lo >> 16) & 0xff] ^ crc_t[4][lo >> 24] ^
          crc_t[3][hi & 0xff] ^ crc_t[2][(hi >> 8) & 0xff] ^
          crc_t[1][(hi >> 16) & 0xff] ^ crc_t[0][hi >> 24];
  }
  while (n--) crc = crc_t[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

static void le32(unsigned char *p, uint32_t v)
{
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void block(struct gz *z, int final)
{
  unsigned char h[5] = {(unsigned char) final, (unsigned char)z->n,
                        (unsigned char)(z->n >> 8), (unsigned char)~z->n,
                        (unsigned char)(~z->n >> 8)};

  fwrite(h, 1, sizeof(h), z->f);
  fwrite(z->blk, 1, z->n, z->f);
  z->n = 0;
}

void gz_start(struct gz *z, FILE *f)
{
  static const unsigned char h[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};

  z->f = f;
  z->crc = 0;
  z->size = 0;
  z->n = 0;
  fwrite(h, 1, sizeof(h), f);
}

void gz_write(struct gz *z, const void *p, size_t n)
{
  const unsigned char *b = p;

  z->crc = gz_crc32(z->crc, p, n);
  z->size += (uint32_t)n;
  while (n) {
    size_t k = GZ_BLOCK - z->n < n ? GZ_BLOCK - z->n : n;

    memcpy(z->blk + z->n, b, k);
    z->n += k;
    b += k;
    n -= k;
    if (z->n == GZ_BLOCK) block(z, 0);
  }
}

int gz_finish(struct gz *z)
{
  unsigned char t[8];

  block(z, 1);
  le32(t, z->crc);
  le32(t + 4, z->size);
  fwrite(t, 1, sizeof(t), z->f);
  return fflush(z->f) || ferror(z->f) ? -EIO : 0;
}
