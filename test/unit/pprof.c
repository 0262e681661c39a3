/* pprof.c - unit tests of core/gz and core/pprof: the CRC-32 check value,
 * stored-block framing, and a profile's bytes against the worked example
 * of pprof-pull.md §2 (the reference reader, go tool pprof, reads the
 * profiles the commands write in test/collapse.test and test/profile.test) */
#include "core/jvmtool.h"
#include "core/fold.h"
#include "core/gz.h"
#include "core/pprof.h"

#include "check.h"

/* The payload of a gzip member of stored blocks; -1 when it is not one. */
static long unstore(const unsigned char *g, size_t n, unsigned char *out)
{
  size_t at = 10, len = 0;
  int final = 0;

  if (n < 18 || g[0] != 0x1f || g[1] != 0x8b || g[2] != 8) return -1;
  while (!final) {
    unsigned blen;

    if (at + 5 > n) return -1;
    final = g[at] & 1;
    blen = g[at + 1] | g[at + 2] << 8;
    if ((g[at] & 6) ||
        (blen ^ 0xffff) != (unsigned)(g[at + 3] | g[at + 4] << 8))
      return -1;
    if (at + 5 + blen > n) return -1;
    memcpy(out + len, g + at + 5, blen);
    len += blen;
    at += 5 + blen;
  }
  if (at + 8 != n) return -1;
  {
    uint32_t crc = (uint32_t)g[at] | (uint32_t)g[at + 1] << 8 |
                   (uint32_t)g[at + 2] << 16 | (uint32_t)g[at + 3] << 24;
    if (crc != gz_crc32(0, out, len)) return -1;
  }
  return (long)len;
}

static size_t write_mem(struct pprof *p, unsigned char *mem, size_t cap)
{
  FILE *f = fmemopen(mem, cap, "w");
  size_t n;

  CHECK(f && !pprof_write(p, f), "pprof_write succeeds");
  n = (size_t)ftell(f);
  fclose(f);
  return n;
}

static int has(const unsigned char *p, size_t n, const char *hex)
{
  unsigned char want[256];
  size_t k = 0;

  for (const char *h = hex; h[0] && h[1]; h++) {
    if (*h == ' ') continue;
    sscanf(h++, "%2hhx", &want[k++]);
  }
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(p + i, want, k)) return 1;
  return 0;
}

static unsigned char gz[1 << 20], raw[1 << 20];

int main(void)
{
  struct gz *z = malloc(sizeof(*z));
  struct pprof_opts o = {PPROF_CPU, NULL, 10000000, 0, 0, 1, NULL};
  struct pprof *p;
  FILE *f;
  long n;
  size_t len;

  CHECK_INT(gz_crc32(0, "123456789", 9), 0xCBF43926u, "crc32 check value");
  CHECK_INT(gz_crc32(gz_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u,
            "crc32 continued over two calls");

  f = fmemopen(gz, sizeof(gz), "w");
  gz_start(z, f);
  CHECK_INT(gz_finish(z), 0, "an empty member");
  len = (size_t)ftell(f);
  fclose(f);
  CHECK_INT(len, 23, "empty input: header, one empty final block, trailer");
  CHECK(has(gz, len, "01 00 00 ff ff 00 00 00 00 00 00 00 00"),
        "empty input: final block 01 00 00 ff ff, crc 0, size 0");

  /* 65535 + 4784 bytes: two blocks */
  f = fmemopen(gz, sizeof(gz), "w");
  gz_start(z, f);
  for (int i = 0; i < 70319; i++) {
    unsigned char c = (unsigned char)(i * 7);
    gz_write(z, &c, 1);
  }
  gz_finish(z);
  len = (size_t)ftell(f);
  fclose(f);
  CHECK_INT(len, 70319 + 18 + 5 * 2,
            "70319 bytes: a block of 65535, then "
            "the final one of 4784");
  n = unstore(gz, len, raw);
  CHECK_INT(n, 70319, "the payload comes back, its crc right");
  CHECK(n == 70319 && raw[70318] == (unsigned char)(70318 * 7),
        "the payload's last byte");

  /* pprof-pull.md §2's sample: [loc2, loc1] = (1, 10 ms), thread main */
  p = pprof_new(&o);
  pprof_add(p, "main;com.example.Main.main:10;com.example.Work.run:20", 53, 1,
            1);
  len = write_mem(p, gz, sizeof(gz));
  n = unstore(gz, len, raw);
  CHECK(n > 0, "a profile is one gzip member of stored blocks");
  CHECK(has(raw, (size_t)n, "0a 04 08 01 10 02 0a 04 08 03 10 04"),
        "sample types samples/count, cpu/nanoseconds (strings 1-4)");
  CHECK(has(raw, (size_t)n,
            "12 11 0a 02 02 01 12 05 01 80 ad e2 04"
            " 1a 04 08 05 10 07"),
        "the sample: locations leaf first, values 1 and 10 ms, thread label");
  CHECK(has(raw, (size_t)n, "32 00 32 07 73 61 6d 70 6c 65 73"),
        "string 0 is empty, then 'samples'");
  CHECK(has(raw, (size_t)n, "60 80 ad e2 04"), "period 10 ms");
  CHECK(has(raw, (size_t)n, "5a 04 08 03 10 04"), "period type cpu/ns");
  pprof_free(p);

  /* locations: one per function and line, ids in order, distinct
   * addresses; no label without a thread root */
  o.kind = PPROF_ALLOC;
  o.thread_root = 0;
  p = pprof_new(&o);
  pprof_add(p, "a.A.f:1;a.A.g:2;byte[]", 22, 3, 4096);
  pprof_add(p, "a.A.f:1;a.A.g:3;byte[]", 22, 1, 100);
  pprof_add(p, "a.A.f:1;a.A.g:3;byte[]", 22, -1, -1);
  len = write_mem(p, gz, sizeof(gz));
  n = unstore(gz, len, raw);
  CHECK(has(raw, (size_t)n, "12 0a 0a 03 03 02 01 12 03 03 80 20"),
        "alloc sample: locations 3,2,1, values 3 and 4096");
  CHECK(has(raw, (size_t)n, "12 09 0a 03 03 04 01 12 02 01 64"),
        "the other line of g is location 4; the leaf is shared");
  CHECK(has(raw, (size_t)n,
            "12 1b 0a 03 03 04 01 12 14 ff ff ff ff ff ff"
            " ff ff ff 01"),
        "a negative value is ten bytes of two's complement");
  CHECK(!has(raw, (size_t)n, "1a 04 08"), "no label without a thread root");
  CHECK(has(raw, (size_t)n, "22") && has(raw, (size_t)n, "2a 06 08 01 10"),
        "function 1 is written first");
  {
    /* the four locations' addresses: fields 3 of messages 4, all distinct */
    uint64_t addr[8];
    int na = 0;

    for (long i = 0; i + 4 < n && na < 8; i++) {
      if (raw[i] != 0x22 || raw[i + 2] != 0x08 || raw[i + 3] != na + 1)
        continue;
      if (raw[i + 4] != 0x10 || raw[i + 6] != 0x18) continue;
      addr[na] = 0;
      for (int k = 0, sh = 0; k < 10; k++, sh += 7) {
        addr[na] |= (uint64_t)(raw[i + 7 + k] & 0x7f) << sh;
        if (!(raw[i + 7 + k] & 0x80)) break;
      }
      na++;
    }
    CHECK_INT(na, 4, "four locations, ids 1..4 in order, each with mapping 1");
    CHECK(na == 4 && addr[0] && addr[0] != addr[1] && addr[1] != addr[2] &&
              addr[2] != addr[3] && addr[0] != addr[3] && addr[1] != addr[3],
          "each location has its own non-zero address");
  }
  pprof_free(p);

  /* merge of values and counts by key; missing count is 0 */
  {
    struct fold_stack v[] = {{"a;b", 3, 500}, {"a;c", 3, 70}};
    struct fold_stack c[] = {{"a;a", 3, 9}, {"a;c", 3, 2}};

    o.kind = PPROF_LOCK;
    p = pprof_new(&o);
    pprof_add_folds(p, v, 2, c, 2);
    len = write_mem(p, gz, sizeof(gz));
    n = unstore(gz, len, raw);
    CHECK(has(raw, (size_t)n, "12 03 00 f4 03"), "a;b: no count, 500 ns");
    CHECK(has(raw, (size_t)n, "12 02 02 46"), "a;c: 2 contentions, 70 ns");
    pprof_free(p);
  }
  free(z);
  return check_failures != 0;
}
