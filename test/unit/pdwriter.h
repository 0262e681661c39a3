/* pdwriter.h - build PerfData 2.0 files in memory for tests and fuzz seeds
 *
 * Lays entries out as HotSpot does (docs/jvmstat.md §1.2 size rules), in
 * either byte order; pdw_put32/pdw_put8 then break any field on purpose.
 */
#ifndef PDWRITER_H
#define PDWRITER_H
#include <stddef.h>
#include <stdint.h>

struct pdw {
  unsigned char *p;
  size_t size, used;
  int big_endian, entries;
};

/* Start a file of size bytes (32768 like HotSpot's default). */
void pdw_init(struct pdw *w, size_t size, int big_endian);
/* Add a long counter; flags "supported" follows HotSpot's name rule. */
size_t pdw_long(struct pdw *w, const char *name, int units, int var,
                int64_t value);
/* Add a string counter of vlen bytes holding s (truncated, NUL-forced). */
size_t pdw_string(struct pdw *w, const char *name, int var, const char *s,
                  size_t vlen);
/* Fill in used and num_entries, set the accessible byte; returns w->p
 * (owned by w; free() it when done). */
unsigned char *pdw_finish(struct pdw *w);
/* Overwrite a 32-bit or 8-bit field at off in the file's byte order. */
void pdw_put32(struct pdw *w, size_t off, uint32_t v);
void pdw_put8(struct pdw *w, size_t off, uint8_t v);
/* Write the file to path; 0 or -errno. */
int pdw_save(const struct pdw *w, const char *path);
/* A realistic small JVM: the counters jps/jstat/-snap read. */
void pdw_sample_jvm(struct pdw *w, int big_endian);

#endif
