/* hprof.c - HPROF records and heap dump sub-records (hprof.h)
 *
 * Format facts (HotSpot heapDumper.cpp's description of it): a header
 * "JAVA PROFILE 1.0.x\0", u4 id size, u8 milliseconds; then records of
 * u1 tag, u4 time, u4 length. HEAP DUMP (0x0C) and HEAP DUMP SEGMENT
 * (0x1C) hold sub-records; JDK 21+ writes segments from several threads,
 * so objects come in no particular order and a pass must not assume one.
 * HotSpot never splits a sub-record across segments, so one that runs
 * past its segment is refused.
 */
/* The per-object loops: built for speed in a binary otherwise built for
 * size. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O2")
#endif
#include "core/jvmtool.h"
#include "core/hprof.h"

uint32_t hp_map_get(const struct hp_map *m, uint64_t key)
{
  size_t mask = m->cap - 1, i;

  if (!m->cap || !key) return HP_NONE;
  for (i = (size_t)hp_mix(key) & mask; m->keys[i]; i = (i + 1) & mask)
    if (m->keys[i] == key) return m->vals[i];
  return HP_NONE;
}

/* Move m's entries into a table of cap slots (a power of two). */
static void rehash(struct hp_map *m, size_t cap)
{
  struct hp_map old = *m;

  m->cap = cap;
  m->keys = xzalloc(m->cap * sizeof(*m->keys));
  m->vals = xmalloc(m->cap * sizeof(*m->vals));
  m->n = 0;
  for (size_t i = 0; i < old.cap; i++)
    if (old.keys[i]) hp_map_add(m, old.keys[i], old.vals[i]);
  free(old.keys);
  free(old.vals);
}

static void grow(struct hp_map *m)
{
  rehash(m, m->cap ? m->cap * 2 : 1024);
}

void hp_map_reserve(struct hp_map *m, size_t n)
{
  size_t cap = 1024;

  while (cap < 2 * n && cap < ((size_t)1 << 40)) cap *= 2;
  if (cap > m->cap) rehash(m, cap);
}

int hp_map_add(struct hp_map *m, uint64_t key, uint32_t val)
{
  size_t mask, i;

  if (!key) return 0;
  if ((m->n + 1) * 2 > m->cap) grow(m);
  mask = m->cap - 1;
  for (i = (size_t)hp_mix(key) & mask; m->keys[i]; i = (i + 1) & mask)
    if (m->keys[i] == key) return 0;
  m->keys[i] = key;
  m->vals[i] = val;
  m->n++;
  return 1;
}

void hp_map_free(struct hp_map *m)
{
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof(*m));
}

/* Grow a array of n used elements to hold one more. */
static void *more(void *p, uint32_t n, uint32_t *cap, size_t elem)
{
  if (n < *cap) return p;
  *cap = *cap ? *cap * 2 : 64;
  return xrealloc(p, (size_t)*cap * elem);
}

static int fail(struct hprof *h, struct hin *in, int rc, const char *fmt, ...)
    PRINTF(4, 5);
static int fail(struct hprof *h, struct hin *in, int rc, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(h->why, sizeof(h->why), fmt, ap);
  va_end(ap);
  h->at = in->pos;
  return rc;
}

/* The stream stopped inside what (a record, an array): why. */
static int cut_short(struct hprof *h, struct hin *in, const char *what)
{
  if (in->err == HIN_EGZ)
    return fail(h, in, HP_EFORMAT, "bad gzip data: %s", in->why);
  if (in->err < 0) return fail(h, in, in->err, "read error");
  return fail(h, in, HP_ESHORT, "the file ends inside %s", what);
}

/* n bytes of the current record at *p, or a failure. */
static HP_INLINE int take(struct hprof *h, struct hin *in, size_t n,
                          const unsigned char **p)
{
  if (hin_peek(in, n, p) == n) return 0;
  return cut_short(h, in, "a record");
}

static uint32_t add_text(struct hprof *h, const unsigned char *p, size_t n)
{
  uint32_t at;

  if (h->ntext + n + 1 > h->captext) {
    h->captext = (h->ntext + n + 1) * 2;
    h->text = xrealloc(h->text, h->captext);
  }
  at = (uint32_t)h->ntext;
  memcpy(h->text + h->ntext, p, n);
  /* a NUL in a name would end it: 8 bytes at a time looked at, the
   * rest and any word with a NUL byte by byte */
  for (size_t i = 0; i < n;) {
    uint64_t w;

    if (i + 8 <= n) {
      memcpy(&w, h->text + at + i, 8);
      if (!((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    for (size_t e = i + 8 < n ? i + 8 : n; i < e; i++)
      if (!h->text[at + i]) h->text[at + i] = '?';
  }
  h->text[at + n] = 0;
  h->ntext += n + 1;
  return at;
}

static uint32_t class_at(struct hprof *h, uint64_t id)
{
  uint32_t c = hp_map_get(&h->classes, id);

  if (c != HP_NONE || !id) return c;
  h->cls = more(h->cls, h->ncls, &h->capcls, sizeof(*h->cls));
  memset(&h->cls[h->ncls], 0, sizeof(*h->cls));
  h->cls[h->ncls].id = id;
  h->cls[h->ncls].name = HP_NONE;
  hp_map_add(&h->classes, id, h->ncls);
  return h->ncls++;
}

/* The UTF8 records read so far into h->names, made at their size. */
static void names_index(struct hprof *h)
{
  if (h->names.cap) return;
  hp_map_reserve(&h->names, h->nnames);
  for (uint32_t i = 0; i < h->nnames; i++)
    hp_map_add(&h->names, h->name_ids[i], h->name_at[i]);
  free(h->name_ids);
  free(h->name_at);
  h->name_ids = NULL;
  h->name_at = NULL;
  h->nnames = h->capnames = 0;
}

/* The top-level records the later passes need: names, classes, frames. */
static int top_record(struct hprof *h, struct hin *in, int tag, uint32_t len)
{
  const unsigned char *p;
  int ids = h->idsize, rc;

  if (len > HIN_SPAN) return 0; /* skipped whole by the caller */
  if (tag == 0x01 && len >= (uint32_t)ids) {
    if ((rc = take(h, in, len, &p))) return rc;
    if (h->ntext + len >= UINT32_MAX - 1) return 0;
    if (h->names.cap) {
      hp_map_add(&h->names, hp_id(p, ids), add_text(h, p + ids, len - ids));
    } else {
      uint32_t cap = h->capnames;

      h->name_ids = more(h->name_ids, h->nnames, &h->capnames, 8);
      if (cap != h->capnames)
        h->name_at = xrealloc(h->name_at, (size_t)h->capnames * 4);
      h->name_ids[h->nnames] = hp_id(p, ids);
      h->name_at[h->nnames++] = add_text(h, p + ids, len - ids);
    }
  } else if (tag == 0x02 && len == (uint32_t)(8 + 2 * ids)) {
    uint32_t c;

    if ((rc = take(h, in, len, &p))) return rc;
    names_index(h);
    c = class_at(h, hp_id(p + 4, ids));
    if (c == HP_NONE) return 0;
    h->cls[c].serial = hp_u4(p);
    h->cls[c].name = hp_map_get(&h->names, hp_id(p + 8 + ids, ids));
    hp_map_add(&h->serials, hp_u4(p) + 1ull, c);
  } else if (tag == 0x04 && len == (uint32_t)(8 + 4 * ids)) {
    if ((rc = take(h, in, len, &p))) return rc;
    h->frames = more(h->frames, h->nframes, &h->capframes, sizeof(*h->frames));
    h->frames[h->nframes].id = hp_id(p, ids);
    h->frames[h->nframes].method = hp_id(p + ids, ids);
    h->frames[h->nframes].class_serial = hp_u4(p + 4 * ids);
    if (hp_map_add(&h->frame_ids, hp_id(p, ids), h->nframes)) h->nframes++;
  } else if (tag == 0x05 && len >= 12) {
    uint32_t n;

    if ((rc = take(h, in, len, &p))) return rc;
    n = hp_u4(p + 8);
    if ((len - 12) / (uint32_t)ids != n || (len - 12) % (uint32_t)ids) return 0;
    if (!hp_map_add(&h->traces, hp_u4(p + 4) + 1ull, h->ntf)) return 0;
    for (uint32_t i = 0; i <= n; i++) {
      h->trace_frames = more(h->trace_frames, h->ntf, &h->captf, 8);
      h->trace_frames[h->ntf++] = i ? hp_id(p + 12 + (i - 1) * ids, ids) : n;
    }
  }
  return 0;
}

/* A CLASS DUMP (0x20) after its id; *left: the segment's bytes left. */
static int class_dump(struct hprof *h, struct hin *in, uint64_t *left,
                      int first, const struct hp_visit *v)
{
  int ids = h->idsize, rc;
  size_t fixed = 7 * (size_t)ids + 8;
  const unsigned char *p;
  uint32_t c, ncp, nst, nf;
  struct hp_class *k;
  int keep;

  if (*left < fixed + 2)
    return fail(h, in, HP_EFORMAT, "a class dump runs past its segment");
  if ((rc = take(h, in, fixed + 2, &p))) return rc;
  c = class_at(h, hp_id(p, ids));
  if (c == HP_NONE)
    return fail(h, in, HP_EFORMAT, "a class dump of class id 0");
  k = &h->cls[c];
  keep = first && !k->dumped;
  if (first && k->dumped) h->dup_classes++;
  if (keep) {
    k->dumped = 1;
    k->super = hp_id(p + 4 + ids, ids);
    k->loader = hp_id(p + 4 + 2 * ids, ids);
    k->fbytes = hp_u4(p + fixed - 4);
  }
  ncp = (uint32_t)p[fixed] << 8 | p[fixed + 1];
  hin_skip(in, fixed + 2);
  *left -= fixed + 2;
  for (int part = 0; part < 3; part++) {
    uint32_t n = part == 0 ? ncp : 0;

    if (part) {
      if (*left < 2)
        return fail(h, in, HP_EFORMAT, "a class dump runs past its segment");
      if ((rc = take(h, in, 2, &p))) return rc;
      n = (uint32_t)p[0] << 8 | p[1];
      hin_skip(in, 2);
      *left -= 2;
    }
    if (part == 1) nst = n;
    if (part == 2) nf = n;
    if (keep && part == 1) h->cls[c].statics = h->ns;
    if (keep && part == 2) h->cls[c].fields = h->nf;
    for (uint32_t i = 0; i < n; i++) {
      size_t head = part == 0   ? 3
                    : part == 1 ? (size_t)ids + 1
                                : (size_t)ids + 1;
      int t, sz;

      if (*left < head)
        return fail(h, in, HP_EFORMAT, "a class dump runs past its segment");
      if ((rc = take(h, in, head, &p))) return rc;
      t = p[head - 1];
      sz = part == 2 ? 0 : hp_type_size(t, ids);
      if (!hp_type_size(t, ids))
        return fail(h, in, HP_EFORMAT, "a class dump with a field of type %d",
                    t);
      if (*left < head + sz)
        return fail(h, in, HP_EFORMAT, "a class dump runs past its segment");
      if ((rc = take(h, in, head + sz, &p))) return rc;
      if (keep && part == 1 && t == HP_OBJECT) {
        h->sref = more(h->sref, h->ns, &h->caps, 8);
        h->sname = xrealloc(h->sname, (size_t)h->caps * 8);
        h->sname[h->ns] = hp_id(p, ids);
        h->sref[h->ns++] = hp_id(p + head, ids);
      } else if (keep && part == 2) {
        uint32_t cap = h->capf;

        h->ftype = more(h->ftype, h->nf, &h->capf, 1);
        if (cap != h->capf) h->fname = xrealloc(h->fname, (size_t)h->capf * 8);
        h->fname[h->nf] = hp_id(p, ids);
        h->ftype[h->nf++] = (uint8_t)t;
      }
      hin_skip(in, head + sz);
      *left -= head + sz;
    }
  }
  k = &h->cls[c];
  if (keep) {
    k->nstatics = h->ns - k->statics;
    k->nfields = h->nf - k->fields;
  }
  (void)nst;
  (void)nf;
  if (v->klass) v->klass(v->ctx, c);
  return 0;
}

static const int root_len[9] = {1, 2, 1, 1, 1, 1, 1, 1, 1}; /* ids */
static const int root_u4[9] = {0, 0, 2, 2, 1, 0, 1, 0, 2};

/* The sub-records of one segment of len bytes. */
static int segment(struct hprof *h, struct hin *in, uint64_t len, int first,
                   const struct hp_visit *v)
{
  int ids = h->idsize, rc;
  const unsigned char *p;

  while (len) {
    int tag;
    size_t head;

    if ((rc = take(h, in, 1, &p))) return rc;
    tag = p[0];
    if (tag == 0xFF || (tag >= 1 && tag <= 8)) {
      int k = tag == 0xFF ? 0 : tag;

      head = 1 + (size_t)root_len[k] * ids + 4 * (size_t)root_u4[k];
      if (len < head) break;
      if ((rc = take(h, in, head, &p))) return rc;
      h->roots++;
      if (v->root)
        v->root(v->ctx, tag, hp_id(p + 1, ids),
                root_u4[k] == 2 ? hp_u4(p + 1 + root_len[k] * ids) : 0,
                root_u4[k] == 2 ? hp_u4(p + 5 + root_len[k] * ids) : 0);
      hin_skip(in, head);
      len -= head;
    } else if (tag == 0x20) {
      hin_skip(in, 1);
      len--;
      if ((rc = class_dump(h, in, &len, first, v))) return rc;
      h->objects++;
    } else if (tag == 0x21) {
      uint32_t n;

      head = 1 + 2 * (size_t)ids + 8;
      if (len < head) break;
      if ((rc = take(h, in, head, &p))) return rc;
      n = hp_u4(p + head - 4);
      if (len - head < n)
        return fail(
            h, in, HP_EFORMAT,
            "an instance of %" PRIu32 " field bytes runs past its segment", n);
      if (n > HIN_SPAN)
        return fail(h, in, HP_EFORMAT,
                    "an instance of %" PRIu32
                    " field bytes (no class has that many)",
                    n);
      if ((rc = take(h, in, head + n, &p))) return rc;
      h->objects++;
      if (v->instance)
        v->instance(v->ctx, hp_id(p + 1, ids), hp_id(p + 5 + ids, ids),
                    p + head, n);
      hin_skip(in, head + n);
      len -= head + n;
    } else if (tag == 0x22 || tag == 0x23) {
      uint32_t count;
      uint64_t bytes;
      int t;

      head = 1 + (size_t)ids + 8 + (tag == 0x22 ? (size_t)ids : 1);
      if (len < head) break;
      if ((rc = take(h, in, head, &p))) return rc;
      count = hp_u4(p + 5 + ids);
      t = tag == 0x22 ? HP_OBJECT : p[head - 1];
      if (!hp_type_size(t, ids))
        return fail(h, in, HP_EFORMAT, "an array of type %d", t);
      bytes = (uint64_t)count * (uint64_t)hp_type_size(t, ids);
      if (len - head < bytes)
        return fail(h, in, HP_EFORMAT,
                    "an array of %" PRIu32
                    " elements runs past its segment (%" PRIu64 " bytes left)",
                    count, len - head);
      h->objects++;
      if (tag == 0x22) {
        uint64_t id = hp_id(p + 1, ids), cls = hp_id(p + 9 + ids, ids);
        uint32_t done = 0;

        hin_skip(in, head);
        if (v->objarray) v->objarray(v->ctx, id, cls, count);
        while (done < count) {
          uint32_t n = count - done < 65536 ? count - done : 65536;

          if ((rc = take(h, in, (size_t)n * ids, &p))) return rc;
          if (v->elements) v->elements(v->ctx, p, done, n);
          hin_skip(in, (size_t)n * ids);
          done += n;
        }
      } else {
        const unsigned char *vals = NULL;
        uint64_t id = hp_id(p + 1, ids);

        hin_skip(in, head);
        if (v->want_prim && (t == HP_BYTE || t == HP_CHAR) &&
            bytes <= HIN_SPAN) {
          if ((rc = take(h, in, (size_t)bytes, &vals))) return rc;
        }
        if (v->primarray) v->primarray(v->ctx, id, t, count, vals);
        if (hin_skip(in, bytes) != bytes) return cut_short(h, in, "an array");
      }
      len -= head + bytes;
    } else {
      return fail(h, in, HP_EFORMAT, "a heap dump sub-record of tag 0x%02x",
                  tag);
    }
  }
  if (len) return fail(h, in, HP_EFORMAT, "a sub-record runs past its segment");
  return 0;
}

int hprof_scan(struct hprof *h, struct hin *in, const struct hp_visit *v)
{
  const unsigned char *p;
  int first = !h->idsize, rc = 0;
  size_t n = hin_peek(in, 31, &p);

  if (n < 19 || (memcmp(p, "JAVA PROFILE 1.0.1", 19) &&
                 memcmp(p, "JAVA PROFILE 1.0.2", 19)))
    return fail(
        h, in, HP_EFORMAT,
        "not an HPROF heap dump (no 'JAVA PROFILE 1.0.1' or '1.0.2' header)");
  if (n < 31) return fail(h, in, HP_ESHORT, "the file ends inside its header");
  if (hp_u4(p + 19) != 4 && hp_u4(p + 19) != 8)
    return fail(h, in, HP_EFORMAT,
                "identifiers of %" PRIu32 " bytes (4 or 8 expected)",
                hp_u4(p + 19));
  h->idsize = (int)hp_u4(p + 19);
  memcpy(h->version, p + 13, 5);
  h->version[5] = 0;
  h->time_ms = (uint64_t)hp_u4(p + 23) << 32 | hp_u4(p + 27);
  hin_skip(in, 31);
  h->complete = 0;
  for (;;) {
    uint32_t len;
    int tag;

    n = hin_peek(in, 9, &p);
    if (!n && !in->err) {
      h->complete = h->segments > 0;
      break;
    }
    if (n < 9) {
      rc = take(h, in, 9, &p);
      break;
    }
    tag = p[0];
    len = hp_u4(p + 5);
    hin_skip(in, 9);
    h->records++;
    if (tag == 0x0C || tag == 0x1C) {
      h->segments++;
      if ((rc = segment(h, in, len, first, v))) break;
    } else if (tag == 0x2C) {
      h->complete = 1;
      hin_skip(in, len);
    } else {
      if (first && (rc = top_record(h, in, tag, len))) break;
      if (hin_skip(in, len) != len) {
        rc = fail(h, in, HP_ESHORT, "the file ends inside a record");
        break;
      }
    }
  }
  if (first) names_index(h);
  h->end = in->pos;
  return rc;
}

void hprof_free(struct hprof *h)
{
  free(h->text);
  free(h->cls);
  free(h->ftype);
  free(h->fname);
  free(h->sref);
  free(h->sname);
  free(h->frames);
  free(h->trace_frames);
  free(h->name_ids);
  free(h->name_at);
  hp_map_free(&h->names);
  hp_map_free(&h->classes);
  hp_map_free(&h->serials);
  hp_map_free(&h->frame_ids);
  hp_map_free(&h->traces);
  memset(h, 0, sizeof(*h));
}

static const char prim_sig[12] = {0,   0,   0,   0,   'Z', 'C',
                                  'F', 'D', 'B', 'S', 'I', 'J'};

void hprof_class_name(const struct hprof *h, uint32_t cls, char *out, size_t n)
{
  const struct hp_class *k = &h->cls[cls];
  const char *s;
  size_t i = 0;

  if (k->name == HP_NONE) {
    for (int t = 4; t < 12; t++)
      if (h->prim_class[t] == cls) {
        snprintf(out, n, "[%c", prim_sig[t]);
        return;
      }
    snprintf(out, n, "<class 0x%" PRIx64 ">", k->id);
    return;
  }
  for (s = h->text + k->name; *s && i + 1 < n; s++)
    out[i++] = *s == '/' ? '.' : *s;
  out[i] = 0;
}

uint32_t hprof_find_class(const struct hprof *h, const char *jname)
{
  char name[1024];

  for (uint32_t c = 0; c < h->ncls; c++) {
    hprof_class_name(h, c, name, sizeof(name));
    if (!strcmp(name, jname)) return c;
  }
  return HP_NONE;
}
