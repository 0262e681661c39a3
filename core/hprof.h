/* hprof.h - HPROF heap dumps (JAVA PROFILE 1.0.1/1.0.2) read as a stream
 *
 * hprof_scan reads a dump once from front to back (core/hprof_in: plain or
 * gzip) and hands each object to a visitor; the names, classes, frames and
 * traces it meets are kept in struct hprof for every later pass. Every
 * length is checked against the record and segment that hold it before it
 * is used; what is kept grows with what was read, never with a count a
 * header claims. Nothing here prints: a failure is an error code with
 * h->why (one line) and h->at (the offset in the inflated stream).
 */
#ifndef HPROF_H
#define HPROF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/hprof_in.h"

enum { HP_NONE = UINT32_MAX };

/* Inlined whatever the build's optimization (the binary is built for
 * size): what runs per object. */
#define HP_INLINE inline __attribute__((always_inline))

/* uint64 id -> uint32, open addressing; id 0 (null) is never a key. */
struct hp_map {
  uint64_t *keys;
  uint32_t *vals;
  size_t cap, n;
};
/* The value of key, or HP_NONE. */
uint32_t hp_map_get(const struct hp_map *m, uint64_t key);
/* Set key to val unless key is there: 1 when added, 0 when it was. */
int hp_map_add(struct hp_map *m, uint64_t key, uint32_t val);
/* Make room for n keys at once (n: what a pass already read, never a
 * header's claim), so adding them rehashes nothing. */
void hp_map_reserve(struct hp_map *m, size_t n);
void hp_map_free(struct hp_map *m);

/* HPROF basic types (field and array element types). */
enum hp_type {
  HP_OBJECT = 2,
  HP_BOOLEAN = 4,
  HP_CHAR,
  HP_FLOAT,
  HP_DOUBLE,
  HP_BYTE,
  HP_SHORT,
  HP_INT,
  HP_LONG
};
/* The bytes of a value of type t in the dump (idsize for objects), 0 when
 * t is no type. */
static HP_INLINE int hp_type_size(int t, int idsize)
{
  /* by type: 4 boolean .. 11 long */
  static const unsigned char sizes[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};

  if (t == HP_OBJECT) return idsize;
  return t >= 0 && t < 12 ? sizes[t] : 0;
}

struct hp_class {
  uint64_t id, super, loader;
  uint32_t name;            /* offset of the NUL-terminated name in h->text */
  uint32_t fields, nfields; /* this class's instance fields in h->ftype/fname */
  uint32_t statics, nstatics; /* its static object fields in h->sref/sname */
  uint32_t fbytes;            /* its HPROF instance field bytes */
  uint32_t serial;
  int dumped;            /* a CLASS DUMP was seen */
  int64_t count, bytes;  /* the histogram's: instances and bytes */
  uint32_t size;         /* an instance's bytes as the JVM counts them */
  uint32_t chain_fbytes; /* HPROF field bytes of it and its supers */
};

/* A frame (0x04) and a stack trace (0x05), for roots in Java frames. */
struct hp_frame {
  uint64_t id, method;
  uint32_t class_serial;
};

struct hprof {
  int idsize;
  char version[8]; /* "1.0.1" or "1.0.2" */
  uint64_t time_ms;
  char *text; /* names: UTF8 records' bytes, each NUL-terminated */
  size_t ntext, captext;
  struct hp_map names; /* UTF8 id -> offset in text */
  /* UTF8 records not yet in names, in file order (ids, text offsets):
   * names is made at the first lookup, at its size, not doubled from
   * small (each table a rehash and new pages) */
  uint64_t *name_ids;
  uint32_t *name_at, nnames, capnames;
  struct hp_class *cls;
  uint32_t ncls, capcls;
  struct hp_map classes; /* class object id -> index in cls */
  struct hp_map serials; /* class serial -> index in cls */
  uint8_t *ftype;        /* instance field types, each class's in a run */
  uint64_t *fname;       /* their name ids */
  uint32_t nf, capf;
  uint64_t *sref, *sname; /* static object fields: value and name id */
  uint32_t ns, caps;
  struct hp_frame *frames;
  uint32_t nframes, capframes;
  struct hp_map frame_ids; /* frame id -> index in frames */
  /* thread serial -> its trace's first frame index in trace_frames */
  struct hp_map traces;
  uint64_t *trace_frames; /* frame ids; each trace's count first */
  uint32_t ntf, captf;
  int compressed; /* references counted as 4 bytes */
  int dump_sizes; /* leave out what HotSpot adds unseen (--dump-sizes) */
  uint32_t prim_class[12]; /* class index of each primitive array type */
  /* Counts for what the file claimed and could not have (one line each). */
  uint64_t records, segments, objects, roots;
  uint64_t unknown_class; /* objects whose class id names no class */
  uint64_t dup_classes;   /* a second CLASS DUMP of a class id */
  uint64_t end;           /* offset where reading stopped */
  int complete;           /* HEAP DUMP END (or the end of the last record) */
  char why[200];
  uint64_t at;
};

/* What a pass wants from each object; any member may be NULL. Data
 * pointers are valid for the call only. Object array elements come in
 * runs: first is the index of ids[0] in the array. */
struct hp_visit {
  void *ctx;
  void (*root)(void *ctx, int kind, uint64_t id, uint32_t thread,
               uint32_t frame);
  void (*klass)(void *ctx, uint32_t cls);
  void (*instance)(void *ctx, uint64_t id, uint64_t cls, const unsigned char *v,
                   uint32_t n);
  void (*objarray)(void *ctx, uint64_t id, uint64_t cls, uint32_t count);
  void (*elements)(void *ctx, const unsigned char *ids, uint32_t first,
                   uint32_t n);
  void (*primarray)(void *ctx, uint64_t id, int type, uint32_t count,
                    const unsigned char *v); /* v: NULL unless want_prim */
  int want_prim; /* hand char and byte arrays' values to primarray */
};

enum hp_err {
  HP_OK = 0,
  HP_EFORMAT = -1000, /* not a dump, or a record that cannot be */
  HP_ESHORT,          /* the file ends inside a record */
};

/* Read the dump behind in from its start to its end, calling v. The first
 * pass (h->idsize 0) keeps names, classes, frames; a later one over the
 * same file only visits. 0, or an enum hp_err / -errno with h->why. */
int hprof_scan(struct hprof *h, struct hin *in, const struct hp_visit *v);
/* Free everything h holds. */
void hprof_free(struct hprof *h);

/* An id of idsize bytes at p (big-endian). */
static HP_INLINE uint32_t hp_u4(const unsigned char *p)
{
  uint32_t v;

  memcpy(&v, p, 4);
  return __builtin_bswap32(v);
}
static HP_INLINE uint64_t hp_id(const unsigned char *p, int idsize)
{
  uint64_t v = 0;

  if (idsize == 8) {
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
  }
  if (idsize == 4) return hp_u4(p);
  for (int i = 0; i < idsize; i++) v = v << 8 | p[i];
  return v;
}

/* A 64-bit value's full avalanche (murmur3's finalizer): the maps' slot
 * hash (object ids are addresses, 8-byte aligned and dense: every bit of
 * the id must reach the slot bits; the multiply alone left runs that
 * linear probing walked), and heap --strings' for a value's characters. */
static HP_INLINE uint64_t hp_mix(uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

/* Class ids seen lately and their indexes, for the per-object passes:
 * a slot per id's bits, a miss looked up in h->classes (and kept when
 * the dump has the class: one that does not may come later). */
enum { HP_CCACHE = 256 };
struct hp_ccache {
  uint64_t id[HP_CCACHE];
  uint32_t at[HP_CCACHE];
};
static HP_INLINE uint32_t hp_class_cached(const struct hprof *h,
                                          struct hp_ccache *cc, uint64_t id)
{
  size_t s = (size_t)((id >> 3) ^ (id >> 11)) & (HP_CCACHE - 1);
  uint32_t c;

  if (cc->id[s] == id && id) return cc->at[s];
  c = hp_map_get(&h->classes, id);
  if (c != HP_NONE) {
    cc->id[s] = id;
    cc->at[s] = c;
  }
  return c;
}

/* Class at's super class: its index, HP_NONE for none or one the dump
 * lacks. */
static inline uint32_t hp_super(const struct hprof *h, uint32_t at)
{
  return h->cls[at].super ? hp_map_get(&h->classes, h->cls[at].super) : HP_NONE;
}

/* The class's name as jmap prints it ("java.lang.String", "[J",
 * "[Ljava.lang.Object;") into out (size n). */
void hprof_class_name(const struct hprof *h, uint32_t cls, char *out, size_t n);
/* The class index of the class named jname (jmap's spelling), or HP_NONE. */
uint32_t hprof_find_class(const struct hprof *h, const char *jname);

#endif
