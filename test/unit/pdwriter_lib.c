/* pdwriter_lib.c - build PerfData 2.0 files in memory (see pdwriter.h) */
#include "core/jvmtool.h"
#include "pdwriter.h"

void pdw_put32(struct pdw *w, size_t off, uint32_t v)
{
  for (int i = 0; i < 4 && off + i < w->size; i++)
    w->p[off + i] = (uint8_t)(w->big_endian ? v >> (24 - 8 * i) : v >> 8 * i);
}

void pdw_put8(struct pdw *w, size_t off, uint8_t v)
{
  if (off < w->size) w->p[off] = v;
}

static void put64(struct pdw *w, size_t off, uint64_t v)
{
  pdw_put32(w, off + (w->big_endian ? 0 : 4), (uint32_t)(v >> 32));
  pdw_put32(w, off + (w->big_endian ? 4 : 0), (uint32_t)v);
}

void pdw_init(struct pdw *w, size_t size, int big_endian)
{
  w->p = xzalloc(size);
  w->size = size;
  w->big_endian = big_endian;
  w->entries = 0;
  w->used = 32;
  memcpy(w->p, "\xca\xfe\xc0\xc0", 4);
  w->p[4] = !big_endian;
  w->p[5] = 2;
  pdw_put32(w, 24, 32);
}

/* One entry: header, name, padding, then the value; returns its offset. */
static size_t entry(struct pdw *w, const char *name, char type, int units,
                    int var, uint32_t vlen, size_t dsize)
{
  size_t at = w->used, namelen = strlen(name) + 1, data, len;

  data = 20 + namelen;
  if (type == 'J') data = (data + 7) & ~(size_t)7;
  len = (data + (vlen ? vlen : dsize) + 7) & ~(size_t)7;
  if (at + len > w->size) return 0; /* HotSpot would count it as overflow */
  pdw_put32(w, at, (uint32_t)len);
  pdw_put32(w, at + 4, 20);
  pdw_put32(w, at + 8, vlen);
  w->p[at + 12] = (uint8_t)type;
  w->p[at + 13] = starts_with(name, "java.") || starts_with(name, "com.sun.");
  w->p[at + 14] = (uint8_t)units;
  w->p[at + 15] = (uint8_t)var;
  pdw_put32(w, at + 16, (uint32_t)data);
  memcpy(w->p + at + 20, name, namelen);
  w->used = at + len;
  w->entries++;
  return at;
}

size_t pdw_long(struct pdw *w, const char *name, int units, int var,
                int64_t value)
{
  size_t at = entry(w, name, 'J', units, var, 0, 8);

  if (at)
    put64(w, at + ((20 + strlen(name) + 1 + 7) & ~(size_t)7), (uint64_t)value);
  return at;
}

size_t pdw_string(struct pdw *w, const char *name, int var, const char *s,
                  size_t vlen)
{
  size_t at = entry(w, name, 'B', 5, var, (uint32_t)vlen, 0);
  size_t n = strlen(s);

  if (!at || !vlen) return at;
  if (n > vlen - 1) n = vlen - 1;
  memcpy(w->p + at + 20 + strlen(name) + 1, s, n);
  return at;
}

unsigned char *pdw_finish(struct pdw *w)
{
  pdw_put32(w, 8, (uint32_t)w->used);
  pdw_put32(w, 28, (uint32_t)w->entries);
  w->p[7] = 1;
  return w->p;
}

int pdw_save(const struct pdw *w, const char *path)
{
  FILE *f = fopen(path, "wb");

  if (!f) return -errno;
  if (fwrite(w->p, 1, w->size, f) != w->size || fclose(f)) return -EIO;
  return 0;
}

void pdw_sample_jvm(struct pdw *w, int big_endian)
{
  static const char cmd[] = "com.example.Main a1 b 2";

  pdw_init(w, 32768, big_endian);
  pdw_long(w, "sun.os.hrt.frequency", 6, 1, 1000000000);
  pdw_string(w, "sun.rt.javaCommand", 1, cmd, sizeof(cmd));
  pdw_string(w, "java.rt.vmArgs", 1, "-Xmx64m -Dx=y", 14);
  pdw_string(w, "java.rt.vmFlags", 1, "", 1);
  pdw_string(w, "java.property.java.version", 1, "17.0.15", 8);
  pdw_string(w, "sun.gc.cause", 3, "No GC", 81);
  pdw_long(w, "sun.rt.createVmBeginTime", 1, 1, 1700000000000LL);
  pdw_long(w, "sun.os.hrt.ticks", 3, 2, 5000000000LL);
  pdw_long(w, "java.cls.loadedClasses", 4, 2, 1234);
  pdw_long(w, "sun.gc.generation.0.space.0.capacity", 2, 3, 1 << 20);
  pdw_long(w, "sun.gc.generation.0.space.0.used", 2, 3, 524288);
  pdw_long(w, "sun.gc.collector.0.invocations", 4, 2, 7);
  pdw_long(w, "sun.gc.collector.0.time", 3, 2, 123456789);
  pdw_finish(w);
}
