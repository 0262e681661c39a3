/* perfdata.h - HotSpot PerfData (hsperfdata) files, format 2.0
 *
 * A JVM keeps its counters in /tmp/hsperfdata_<user>/<pid>: a 32-byte
 * prologue, then entries (header, name, value) until an entry of length 0
 * (docs/jvmstat.md §1). The file is read with pread into memory up to the
 * prologue's used, never mapped, so a JVM that exits or a file truncated
 * under us can never raise SIGBUS; every offset and length is checked
 * against what was read. Counters are sorted by name for binary search; a
 * counter remembers the file offset of its value, so a pointer to it stays
 * valid across pd_refresh() (which may add counters) until pd_close().
 * Work is O(n log n) in the entries, and everything is capped by what
 * HotSpot can write (docs/jvmstat.md §1.8).
 */
#ifndef PERFDATA_H
#define PERFDATA_H

#include <stddef.h>
#include <stdint.h>

/* What HotSpot can write: PerfDataMemorySize is at most 2 MiB (its flag
 * range); its smallest entry takes 24 bytes; its longest counter name is
 * 56 bytes (JDK 17 and 25), the cap leaves room for 4 times that. */
enum {
  PD_MAX_FILE = 2 << 20,
  PD_MAX_ENTRIES = (PD_MAX_FILE - 32) / 24,
  PD_MAX_NAME = 256
};

enum pd_units {
  PD_U_NONE = 1,
  PD_U_BYTES,
  PD_U_TICKS,
  PD_U_EVENTS,
  PD_U_STRING,
  PD_U_HERTZ
};
enum pd_var { PD_V_CONSTANT = 1, PD_V_MONOTONIC, PD_V_VARIABLE };

/* The reader's pseudo-counters (sun.perfdata.*), never in the file. */
enum pd_pseudo {
  PD_REAL,
  PD_P_MAJOR,
  PD_P_MINOR,
  PD_P_SIZE,
  PD_P_USED,
  PD_P_OVERFLOW,
  PD_P_TIMESTAMP
};

struct pd_counter {
  const char *name;  /* NUL-terminated, owned by the struct perfdata */
  uint32_t off;      /* file offset of the value */
  uint32_t len;      /* strings: vector length in bytes; longs: 0 */
  char type;         /* 'J' (long) or 'B' (string) */
  uint8_t units;     /* enum pd_units */
  uint8_t var;       /* enum pd_var */
  uint8_t supported; /* flags bit 0: set for java.* and com.sun.* */
  uint8_t pseudo;    /* enum pd_pseudo */
  uint16_t namelen;  /* strlen(name), at most PD_MAX_NAME */
};

struct perfdata {
  char *path;         /* as named, for messages */
  int fd;             /* open for pd_refresh, or -1 */
  unsigned char *buf; /* the file as last read, len bytes */
  size_t size;        /* the file's size */
  size_t len;         /* bytes read: the prologue's used, within
                                   size; never shrinks */
  int big_endian;
  struct pd_counter **counters; /* sorted by strcmp of the name; each one
                                   stays at its address until pd_close */
  size_t n, cap;
  struct pd_chunk *chunks; /* where the counters are (core/perfdata.c) */
  uint32_t next_entry;     /* where the entry walk stopped */
  uint32_t walked_entries; /* num_entries when it stopped */
  uint32_t entries;        /* entries walked, for PD_MAX_ENTRIES */
  char err[256];           /* why the last call failed */
};

enum { PD_NOFOLLOW = 1 }; /* pd_open: refuse a symlink as the file */

/* Open path (flags: PD_NOFOLLOW), read it up to its used and parse it.
 * Returns 0, or -errno for I/O (-ENOENT, -EACCES, ...), -EFBIG for a file
 * over a ceiling (PD_MAX_FILE, PD_MAX_ENTRIES, PD_MAX_NAME, or sparse), or
 * -EINVAL for a file that is not valid PerfData 2.0; pd->err then says why
 * in a few words ("bad magic 0x12fec0c0", "sparse: 4096 of 67108864 bytes
 * allocated").
 * On failure nothing needs freeing; on success call pd_close(). */
int pd_open(struct perfdata *pd, const char *path, int flags);

/* The same from an open fd, which pd then owns (closed on failure too);
 * anything but a regular file is refused (-EINVAL) before the first read.
 * name is for messages. */
int pd_open_fd(struct perfdata *pd, int fd, const char *name);
/* The same with fd's fstat already taken (st, as the caller's check of
 * the file had it): no second fstat. */
struct stat;
int pd_open_stat(struct perfdata *pd, int fd, const char *name,
                 const struct stat *st);

/* Parse size bytes of data (copied) as a PerfData file named name, with no
 * file behind it (pd_refresh then fails). Same returns as pd_open. */
int pd_parse(struct perfdata *pd, const void *data, size_t size,
             const char *name);

/* Read the file again into the same buffer (a live JVM's values move) and
 * pick up entries added since the last walk. Returns 0, or -errno / -EINVAL
 * with pd->err set: the file vanished, shrank, or stopped being PerfData.
 * Counters found before stay valid. */
int pd_refresh(struct perfdata *pd);

/* The counter called name, or NULL. */
const struct pd_counter *pd_find(const struct perfdata *pd, const char *name);

/* A long counter's current value (pseudo-counters included). */
int64_t pd_long(const struct perfdata *pd, const struct pd_counter *c);

/* A string counter's current bytes: *s points into pd's buffer (valid until
 * the next pd_refresh/pd_close), up to the first NUL; returns the length. */
size_t pd_string(const struct perfdata *pd, const struct pd_counter *c,
                 const char **s);

/* The counter's value as text for output: decimal for longs, the raw bytes
 * for strings. Appends to b (struct buf from core/lib.h). */
struct buf;
void pd_value_text(const struct perfdata *pd, const struct pd_counter *c,
                   struct buf *b);

/* Append the counter as jstat -snap prints it: "name=value\n", strings in
 * double quotes with nothing escaped (decoded as the JDK does, out.h's
 * out_java_text), and with verbose " <Units> <Variability> <Supported>". */
void pd_snap_line(const struct perfdata *pd, const struct pd_counter *c,
                  int verbose, int utf8, struct buf *b);

/* The prologue's accessible byte: 0 while the JVM is still starting. */
int pd_accessible(const struct perfdata *pd);

/* How jvmstat waits for a starting JVM to mark its data accessible: it
 * looks again every PD_READY_POLL_MS (pd_refresh), up to PD_READY_WAIT_MS
 * (ps and stat: one bound for all the JVMs of a run). */
enum { PD_READY_WAIT_MS = 5000, PD_READY_POLL_MS = 20 };

/* Free everything pd holds; pd may be closed twice. */
void pd_close(struct perfdata *pd);

/* Names for -snap -v: "Bytes", "Monotonic", ... */
const char *pd_units_name(int units);
const char *pd_var_name(int var);

#endif
