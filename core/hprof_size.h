/* hprof_size.h - object sizes as the JVM counts them, and the histogram
 *
 * HPROF gives field bytes (8-byte ids); the JVM's object is a 12-byte
 * header (mark word, compressed class pointer), its fields with
 * references of 4 bytes under compressed oops (8 without), aligned to 8.
 * Arrays: 16 bytes (header and length), the elements, aligned to 8. The
 * dump does not say whether references were compressed: the caller
 * decides (HotSpot compresses them below a 32 GB heap).
 */
#ifndef HPROF_SIZE_H
#define HPROF_SIZE_H

#include "core/hprof.h"

/* The histogram pass's counters beside h's classes. */
struct hp_histo {
  struct hprof *h;
  uint64_t pcount[12], pbytes[12]; /* primitive arrays by type */
  uint64_t objects;                /* instances and arrays */
  struct hp_ccache cc;
};

/* The bytes of an array of count elements of type t (HP_OBJECT: refs). */
static HP_INLINE uint64_t hprof_array_size(const struct hprof *h, int t,
                                           uint64_t count)
{
  int elem = t == HP_OBJECT ? (h->compressed ? 4 : 8) : hp_type_size(t, 8);

  return (16 + count * (uint64_t)elem + 7) & ~(uint64_t)7;
}
/* Fill v to count instances and arrays per class into h->cls (count,
 * bytes for arrays) and x. */
void hprof_histo_visit(struct hp_histo *x, struct hp_visit *v);
/* What that visitor counts per object (c: the class index, HP_NONE when
 * the dump has no such class), for a pass that visits for more than the
 * histogram (core/hprof_graph's one pass). */
static inline void hprof_histo_instance(struct hp_histo *x, uint32_t c)
{
  x->objects++;
  if (c == HP_NONE)
    x->h->unknown_class++;
  else
    x->h->cls[c].count++;
}
static inline void hprof_histo_objarray(struct hp_histo *x, uint32_t c,
                                        uint32_t count)
{
  hprof_histo_instance(x, c);
  if (c != HP_NONE)
    x->h->cls[c].bytes += (int64_t)hprof_array_size(x->h, HP_OBJECT, count);
}
static inline void hprof_histo_primarray(struct hp_histo *x, int t,
                                         uint32_t count)
{
  x->objects++;
  x->pcount[t]++;
  x->pbytes[t] += hprof_array_size(x->h, t, count);
}
/* After the pass: each class's instance size (h->cls[].size, from its
 * fields and its supers'; a missing or cyclic super ends the chain), the
 * primitive array classes (h->prim_class: the dump's "[B"... or new
 * entries), every class's bytes, and java.lang.Class's row from the
 * class dumps. Returns the number of classes whose super chain was cut. */
uint32_t hprof_histo_finish(struct hp_histo *x);
/* The JVM size of class c's instances (after hprof_histo_finish). */
uint32_t hprof_instance_size(const struct hprof *h, uint32_t c);

#endif
