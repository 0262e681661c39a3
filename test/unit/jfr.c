/* jfr.c - unit tests of core/jfr at its seam: recordings built here byte
 * by byte (docs/jfr.md §2-§6: a chunk header, the metadata's string table
 * and element tree, one checkpoint with the pools, events), read through
 * jfr_open/jfr_next_chunk/jfr_walk from a file and from a pipe; cut and
 * oversized inputs refused with the reason; the ceilings held. */
#include "core/jvmtool.h"
#include "core/jfr.h"
#include "check.h"
#include <sys/mman.h>

/* ---- a writer (written from docs/jfr.md, not from the JDK) ---- */

/* v as a varint (docs/jfr.md §3.1): 7 bits a byte, low first, at most 9
 * bytes, the 9th carrying 8 bits; pad: at least that many bytes. */
static void varint(struct buf *b, uint64_t v, int pad)
{
  for (int i = 0; i < 8; i++) {
    uint8_t low = v & 0x7f;

    v >>= 7;
    if (!v && i >= pad - 1) {
      buf_addc(b, (char)low);
      return;
    }
    buf_addc(b, (char)(low | 0x80));
  }
  buf_addc(b, (char)(v & 0xff));
}

static void utf8(struct buf *b, const char *s)
{
  buf_addc(b, 3);
  varint(b, strlen(s), 0);
  buf_adds(b, s);
}

/* A record: padded 4-byte size (its own bytes included), type, payload. */
static void record(struct buf *out, uint64_t type, const struct buf *payload)
{
  struct buf body = {0};

  varint(&body, type, 0);
  buf_add(&body, payload->p, payload->len);
  varint(out, body.len + 4, 4);
  buf_add(out, body.p, body.len);
  buf_free(&body);
}

/* The metadata's string table: every string once, by index. */
static const char *strs[64];
static int nstrs;

static uint64_t sidx(const char *s)
{
  for (int i = 0; i < nstrs; i++)
    if (!strcmp(strs[i], s)) return (uint64_t)i;
  strs[nstrs] = s;
  return (uint64_t)nstrs++;
}

/* An element: name, attributes (k, v pairs, NULL-ended), children (n
 * ready-made elements appended after). */
static void element(struct buf *b, const char *name, const char *const *kv,
                    int nchildren)
{
  int n = 0;

  while (kv && kv[2 * n]) n++;
  varint(b, sidx(name), 0);
  varint(b, (uint64_t)n, 0);
  for (int i = 0; i < n; i++) {
    varint(b, sidx(kv[2 * i]), 0);
    varint(b, sidx(kv[2 * i + 1]), 0);
  }
  varint(b, (uint64_t)nchildren, 0);
}

/* A field element (no children). */
static void field(struct buf *b, const char *name, const char *cls, int pool,
                  int array)
{
  const char *kv[9] = {"name", name, "class", cls};
  int k = 4;

  if (pool) {
    kv[k++] = "constantPool";
    kv[k++] = "true";
  }
  if (array) {
    kv[k++] = "dimension";
    kv[k++] = "1";
  }
  element(b, "field", kv, 0);
}

static void cls(struct buf *b, const char *id, const char *name, int nfields)
{
  const char *kv[] = {"id", id, "name", name, NULL};

  element(b, "class", kv, nfields);
}

/* Type ids as a JDK might pick them; the reader binds names, not ids. */
#define T_BOOL "4"
#define T_INT "5"
#define T_LONG "6"
#define T_STRING "7"
#define T_THREAD "30"
#define T_SYMBOL "31"
#define T_CLASS "32"
#define T_METHOD "33"
#define T_FRAME "34"
#define T_TRACE "35"
#define T_NEST "36"
#define T_EXEC 101
#define T_DEEP 102

/* The metadata payload: the classes a profile needs, an event with a
 * 9-byte long, and jdk.Deep whose field nests jdk.Nest inline: nest_depth
 * levels (JFR_MAX_DEPTH bounds that). */
static void metadata(struct buf *out)
{
  struct buf tree = {0}, body = {0};

  nstrs = 0;
  element(&tree, "root", NULL, 1);
  element(&tree, "metadata", NULL, 13);
  cls(&tree, T_BOOL, "boolean", 0);
  cls(&tree, T_INT, "int", 0);
  cls(&tree, T_LONG, "long", 0);
  cls(&tree, T_STRING, "java.lang.String", 0);
  cls(&tree, T_THREAD, "java.lang.Thread", 1);
  field(&tree, "javaName", T_STRING, 0, 0);
  cls(&tree, T_SYMBOL, "jdk.types.Symbol", 1);
  field(&tree, "string", T_STRING, 0, 0);
  cls(&tree, T_CLASS, "java.lang.Class", 1);
  field(&tree, "name", T_SYMBOL, 1, 0);
  cls(&tree, T_METHOD, "jdk.types.Method", 2);
  field(&tree, "type", T_CLASS, 1, 0);
  field(&tree, "name", T_SYMBOL, 1, 0);
  cls(&tree, T_FRAME, "jdk.types.StackFrame", 2);
  field(&tree, "method", T_METHOD, 1, 0);
  field(&tree, "lineNumber", T_INT, 0, 0);
  cls(&tree, T_TRACE, "jdk.types.StackTrace", 2);
  field(&tree, "truncated", T_BOOL, 0, 0);
  field(&tree, "frames", T_FRAME, 0, 1);
  cls(&tree, "101", "jdk.ExecutionSample", 3);
  field(&tree, "startTime", T_LONG, 0, 0);
  field(&tree, "sampledThread", T_THREAD, 1, 0);
  field(&tree, "stackTrace", T_TRACE, 1, 0);
  /* jdk.Nest holds an optional jdk.Nest inline: an array of them */
  cls(&tree, T_NEST, "jdk.Nest", 1);
  field(&tree, "inner", T_NEST, 0, 1);
  cls(&tree, "102", "jdk.Deep", 1);
  field(&tree, "nest", T_NEST, 0, 0);
  varint(&body, 0, 0); /* start */
  varint(&body, 0, 0); /* duration */
  varint(&body, 1, 0); /* metadata id */
  varint(&body, (uint64_t)nstrs, 0);
  for (int i = 0; i < nstrs; i++) utf8(&body, strs[i]);
  buf_add(&body, tree.p, tree.len);
  record(out, 0, &body);
  buf_free(&tree);
  buf_free(&body);
}

/* The checkpoint payload: symbols, classes, methods, one stack trace
 * (key 7: work:12 <- main:5, truncated), a thread. frames: the trace's
 * frame count as written (a lie when it is not 2). */
static void checkpoint(struct buf *out, uint64_t frames)
{
  struct buf b = {0};

  varint(&b, 0, 0); /* start */
  varint(&b, 0, 0); /* duration */
  varint(&b, 0, 0); /* delta: the only checkpoint */
  buf_addc(&b, 0);  /* flags */
  varint(&b, 5, 0); /* pools */
  varint(&b, 31, 0);
  varint(&b, 3, 0);
  varint(&b, 1, 0);
  utf8(&b, "com/example/Main");
  varint(&b, 2, 0);
  utf8(&b, "main");
  varint(&b, 3, 0);
  utf8(&b, "work");
  varint(&b, 32, 0);
  varint(&b, 1, 0);
  varint(&b, 10, 0); /* class 10: name symbol 1 */
  varint(&b, 1, 0);
  varint(&b, 33, 0);
  varint(&b, 2, 0);
  varint(&b, 20, 0); /* method 20: Main.main */
  varint(&b, 10, 0);
  varint(&b, 2, 0);
  varint(&b, 21, 0); /* method 21: Main.work */
  varint(&b, 10, 0);
  varint(&b, 3, 0);
  varint(&b, 35, 0);
  varint(&b, 1, 0);
  varint(&b, 7, 0); /* trace 7 */
  buf_addc(&b, 1);  /* truncated */
  varint(&b, frames, 0);
  varint(&b, 21, 0);
  varint(&b, 12, 0);
  varint(&b, 20, 0);
  varint(&b, 5, 0);
  varint(&b, 30, 0);
  varint(&b, 1, 0);
  varint(&b, 40, 0); /* thread 40 */
  utf8(&b, "worker-1");
  record(out, 1, &b);
  buf_free(&b);
}

static void be(struct buf *b, uint64_t v, int n)
{
  while (n--) buf_addc(b, (char)(v >> (8 * n) & 0xff));
}

/* Shapes of one chunk, each breaking one thing. */
struct shape {
  uint64_t frames;  /* the stack trace's frame count (2: true) */
  int nest_depth;   /* jdk.Deep's inline nesting (0: no such event) */
  uint64_t md_size; /* a metadata record claiming this size (0: true) */
  size_t md_pad;    /* zero bytes after the metadata (to back md_size),
                         written by file_of, not held in memory */
};

static size_t pad_at; /* where chunk() left md_pad bytes out */

/* One chunk: header, events, metadata, checkpoint. */
static void chunk(struct buf *out, const struct shape *s)
{
  struct buf ev = {0}, md = {0}, cp = {0}, e = {0};
  uint64_t md_off, cp_off, size;

  /* two samples of trace 7 on thread 40; the first's startTime needs all
   * nine varint bytes, the second's is a padded one-byte value */
  varint(&e, 1ull << 63 | 5, 0);
  varint(&e, 40, 0);
  varint(&e, 7, 0);
  record(&ev, T_EXEC, &e);
  e.len = 0;
  varint(&e, 9, 3);
  varint(&e, 40, 0);
  varint(&e, 7, 0);
  record(&ev, T_EXEC, &e);
  if (s->nest_depth) {
    e.len = 0;
    for (int i = 0; i < s->nest_depth; i++) varint(&e, 1, 0);
    varint(&e, 0, 0);
    record(&ev, T_DEEP, &e);
  }
  metadata(&md);
  if (s->md_size) {
    md.len = 0;
    varint(&md, s->md_size, 4);
    varint(&md, 0, 0);
  }
  checkpoint(&cp, s->frames);
  md_off = 68 + ev.len;
  pad_at = out->len + md_off + md.len;
  cp_off = md_off + md.len + s->md_pad;
  size = cp_off + cp.len;
  buf_add(out, "FLR\0", 4);
  be(out, 2, 2); /* major */
  be(out, 1, 2); /* minor */
  be(out, size, 8);
  be(out, cp_off, 8);
  be(out, md_off, 8);
  be(out, 1700000000000000000ull, 8); /* start, ns */
  be(out, 1000000000, 8);             /* duration */
  be(out, 0, 8);                      /* start, ticks */
  be(out, 1000000000, 8);             /* ticks per second */
  be(out, 1, 4);                      /* generation 0, compressed integers */
  buf_add(out, ev.p, ev.len);
  buf_add(out, md.p, md.len);
  buf_add(out, cp.p, cp.len);
  buf_free(&ev);
  buf_free(&md);
  buf_free(&cp);
  buf_free(&e);
}

/* A regular file holding data[0..n) (a memfd: no file left behind), pad
 * zero bytes written (real blocks, not a hole) at pad_at. */
static int file_pad(const char *data, size_t n, size_t pad)
{
  static const char zeros[1 << 16];
  int fd = memfd_create("jfr", 0);
  size_t at = pad ? pad_at : n;

  if (fd < 0 || write(fd, data, at) != (ssize_t)at) return -1;
  while (pad) {
    size_t k = pad < sizeof(zeros) ? pad : sizeof(zeros);

    if (write(fd, zeros, k) != (ssize_t)k) return -1;
    pad -= k;
  }
  if (write(fd, data + at, n - at) != (ssize_t)(n - at)) return -1;
  return fd;
}

static int file_of(const char *data, size_t n)
{
  return file_pad(data, n, 0);
}

/* ---- reading ---- */

struct seen {
  int n, exec, deep;
  uint64_t time[4], trace[4], thread[4];
};

static int on_event(void *ctx, int type, const uint64_t *vals)
{
  struct seen *s = ctx;

  if (s->n < 4 && type == s->exec) {
    s->time[s->n] = vals[0];
    s->thread[s->n] = vals[1];
    s->trace[s->n] = vals[2];
  }
  s->n++;
  return 0;
}

/* Read the chunks of fd (all, or only the first with one, so that its
 * pools can be asked): the events of every type. Returns what the last
 * jfr_next_chunk returned; err holds its reason. The reader goes to *keep
 * (closed when keep is NULL). */
static int read_all(int fd, struct seen *s, char *err, size_t errlen,
                    struct jfr **keep, int one)
{
  struct jfr *j = jfr_open(fd, "test");
  uint8_t want[64];
  int rc;

  memset(s, 0, sizeof(*s));
  err[0] = 0;
  while ((rc = jfr_next_chunk(j, err, errlen)) == 1) {
    int n = jfr_ntypes(j);

    s->exec = jfr_type(j, "jdk.ExecutionSample");
    s->deep = jfr_type(j, "jdk.Deep");
    memset(want, 1, sizeof(want));
    if (n > (int)sizeof(want) ||
        jfr_walk(j, want, on_event, s, err, errlen) != 0 || one)
      break;
  }
  if (keep)
    *keep = j;
  else
    jfr_close(j);
  return rc;
}

static void test_good(void)
{
  struct shape sh = {.frames = 2};
  struct buf rec = {0}, name = {0};
  struct seen s;
  struct jfr *j;
  const struct jfr_frame *fr;
  char err[200];
  int fd, t, truncated = -1, n, rc;

  chunk(&rec, &sh);
  fd = file_of(rec.p, rec.len);
  rc = read_all(fd, &s, err, sizeof(err), &j, 1);
  CHECK(rc == 1 && !err[0], "jfr-1.1 a good chunk (rc %d, '%s')", rc, err);
  CHECK_INT(s.n, 2, "jfr-1.2 both events handed over");
  CHECK(s.time[0] == (1ull << 63 | 5),
        "jfr-1.3 a nine-byte varint: the ninth byte carries 8 bits");
  CHECK_INT(s.time[1], 9, "jfr-1.4 a padded varint (89 80 00) reads as 9");
  CHECK(s.thread[0] == 40 && s.trace[0] == 7 && s.trace[1] == 7,
        "jfr-1.5 pool fields come as their keys");
  t = jfr_type(j, "jdk.ExecutionSample");
  CHECK(t >= 0 && jfr_field(j, t, "stackTrace") == 2 &&
            jfr_field_numeric(j, t, 0) == 1 &&
            jfr_field_numeric(j, t, 2) == 0 && jfr_type(j, "nope") < 0,
        "jfr-1.6 types and fields bound by name; a pool key is not a "
        "number");
  n = jfr_stack(j, 7, &fr, &truncated);
  CHECK(n == 2 && fr[0].method == 21 && fr[0].line == 12 &&
            fr[1].method == 20 && fr[1].line == 5 && truncated == 1,
        "jfr-1.7 the stack: leaf first, lines, truncated flag");
  CHECK(jfr_stack(j, 8, &fr, &truncated) == -1 &&
            jfr_stack(j, 0, &fr, &truncated) == -1,
        "jfr-1.8 a key not in the pool, and key 0, have no stack");
  jfr_method_name(j, 21, &name);
  buf_addc(&name, ' ');
  jfr_thread_name(j, 40, &name);
  buf_addc(&name, ' ');
  jfr_class_name(j, 10, &name);
  CHECK_STR(name.p, "com.example.Main.work worker-1 com.example.Main",
            "jfr-1.9 method, thread and class names from the pools");
  name.len = 0;
  CHECK(jfr_method_name(j, 99, &name) == -1 && !strcmp(name.p, "[unknown]"),
        "jfr-1.10 a missing method: -1 and [unknown]");
  CHECK(jfr_next_chunk(j, err, sizeof(err)) == 0 && jfr_stats(j)->chunks == 1 &&
            jfr_stats(j)->end == rec.len && !jfr_stats(j)->truncated &&
            jfr_stats(j)->bad_records == 0,
        "jfr-1.11 then the end; stats: one chunk whole, read to the file's "
        "end");
  CHECK(jfr_time_ns(j, 2000000000) == 1700000002000000000ll &&
            jfr_span_ns(j, 3) == 3,
        "jfr-1.12 ticks as ns: start + ticks / (ticks per second)");
  jfr_close(j);
  close(fd);
  buf_free(&name);
  buf_free(&rec);
}

/* The same bytes through a pipe (each chunk held in memory). */
static void test_pipe(void)
{
  struct shape sh = {.frames = 2};
  struct buf rec = {0};
  struct seen s;
  char err[200];
  int p[2], rc;

  chunk(&rec, &sh);
  chunk(&rec, &sh);
  if (pipe(p) || write(p[1], rec.p, rec.len) != (ssize_t)rec.len) {
    CHECK(0, "jfr-2.1 pipe set up");
    return;
  }
  close(p[1]);
  rc = read_all(p[0], &s, err, sizeof(err), NULL, 0);
  CHECK(rc == 0 && s.n == 4 && s.time[2] == (1ull << 63 | 5),
        "jfr-2.1 two chunks through a pipe: four events (rc %d, n %d)", rc,
        s.n);
  close(p[0]);
  buf_free(&rec);
}

/* Cut and lying inputs: refused with the reason, what came before kept. */
static void test_refused(void)
{
  struct shape sh = {.frames = 2};
  struct buf rec = {0}, two = {0};
  struct seen s;
  struct jfr *j;
  char err[200];
  int fd, rc;

  chunk(&rec, &sh);
  buf_add(&two, rec.p, rec.len);
  buf_add(&two, rec.p, rec.len - 1);
  fd = file_of(two.p, two.len);
  rc = read_all(fd, &s, err, sizeof(err), &j, 0);
  CHECK(rc == -1 && s.n == 2 && jfr_stats(j)->truncated &&
            jfr_stats(j)->chunks == 1 && jfr_stats(j)->end == rec.len &&
            strstr(err, "ends inside the chunk at offset"),
        "jfr-3.1 a second chunk one byte short: refused, the first kept "
        "('%s')",
        err);
  jfr_close(j);
  close(fd);

  fd = file_of(rec.p, 40);
  rc = read_all(fd, &s, err, sizeof(err), &j, 0);
  CHECK(rc == -1 && jfr_stats(j)->truncated &&
            strstr(err, "ends inside a chunk header"),
        "jfr-3.2 a file that ends inside the header ('%s')", err);
  jfr_close(j);
  close(fd);

  fd = file_of("FLX\0abcdefgh", 12);
  rc = read_all(fd, &s, err, sizeof(err), &j, 0);
  CHECK(rc == -1 && !jfr_stats(j)->truncated && strstr(err, "not a recording"),
        "jfr-3.3 no magic: not a recording, not 'truncated' ('%s')", err);
  jfr_close(j);
  close(fd);

  /* the header's flags: compressed integers are required */
  two.len = 0;
  buf_add(&two, rec.p, rec.len);
  two.p[67] = 0;
  fd = file_of(two.p, two.len);
  rc = read_all(fd, &s, err, sizeof(err), NULL, 0);
  CHECK(rc == -1 && strstr(err, "uncompressed integers"),
        "jfr-3.4 uncompressed integers refused ('%s')", err);
  close(fd);

  /* a metadata record whose size runs past the chunk */
  sh.md_size = 1 << 20;
  two.len = 0;
  chunk(&two, &sh);
  fd = file_of(two.p, two.len);
  rc = read_all(fd, &s, err, sizeof(err), NULL, 0);
  CHECK(rc == -1 && strstr(err, "no metadata record at chunk offset"),
        "jfr-3.5 a metadata record past the chunk's end ('%s')", err);
  close(fd);
  buf_free(&two);
  buf_free(&rec);
}

/* The ceilings: a record over 64 MiB is never read (one of exactly 64 MiB
 * is); a count over the bytes left and nesting past JFR_MAX_DEPTH do not
 * decode; what is around them does. */
static void test_ceilings(void)
{
  struct shape sh = {.frames = 2};
  struct buf rec = {0};
  struct seen s;
  struct jfr *j;
  char err[200];
  int fd, rc;
  const struct jfr_frame *fr;
  int truncated;

  /* 64 MiB of real bytes behind the metadata: its claimed size is all
   * that differs between the two */
  sh.md_size = (64u << 20) + 1;
  sh.md_pad = (64u << 20) + 16;
  chunk(&rec, &sh);
  fd = file_pad(rec.p, rec.len, sh.md_pad);
  rc = read_all(fd, &s, err, sizeof(err), NULL, 0);
  CHECK(rc == -1 && strstr(err, "no metadata record"),
        "jfr-4.1 a record of 64 MiB + 1 is not read ('%s')", err);
  close(fd);
  rec.len = 0;
  sh.md_size = 64u << 20;
  chunk(&rec, &sh);
  fd = file_pad(rec.p, rec.len, sh.md_pad);
  rc = read_all(fd, &s, err, sizeof(err), NULL, 0);
  CHECK(rc == -1 && strstr(err, "bad metadata record"),
        "jfr-4.2 one of exactly 64 MiB is read (and found bad) ('%s')", err);
  close(fd);

  /* a stack trace claiming 2^60 frames: the pool does not decode, the
   * events still come */
  rec.len = 0;
  sh = (struct shape){.frames = 1ull << 60};
  chunk(&rec, &sh);
  fd = file_of(rec.p, rec.len);
  rc = read_all(fd, &s, err, sizeof(err), &j, 1);
  CHECK(rc == 1 && s.n == 2 && jfr_stats(j)->bad_pools == 1 &&
            jfr_stack(j, 7, &fr, &truncated) == -1,
        "jfr-4.3 a frame count past the bytes left: the pool is bad, the "
        "events are read (rc %d, bad_pools %llu)",
        rc, (unsigned long long)jfr_stats(j)->bad_pools);
  jfr_close(j);
  close(fd);

  /* inline nesting: jdk.Deep's value is a Nest holding k Nests, each in
   * an array of one; a value sits at depth 1 + 2k (the event's field is
   * 1, each array and each struct in it one more), and JFR_MAX_DEPTH is
   * the deepest that decodes */
  rec.len = 0;
  sh = (struct shape){.frames = 2, .nest_depth = (JFR_MAX_DEPTH - 1) / 2};
  chunk(&rec, &sh);
  fd = file_of(rec.p, rec.len);
  rc = read_all(fd, &s, err, sizeof(err), &j, 1);
  CHECK(rc == 1 && s.n == 3 && jfr_stats(j)->bad_records == 0,
        "jfr-4.4 an event whose values nest %d deep decodes (n %d)",
        (JFR_MAX_DEPTH - 1) / 2 * 2 + 1, s.n);
  jfr_close(j);
  close(fd);
  rec.len = 0;
  sh.nest_depth = (JFR_MAX_DEPTH - 1) / 2 + 1;
  chunk(&rec, &sh);
  fd = file_of(rec.p, rec.len);
  rc = read_all(fd, &s, err, sizeof(err), &j, 1);
  CHECK(rc == 1 && s.n == 2 && jfr_stats(j)->bad_records == 1,
        "jfr-4.5 past JFR_MAX_DEPTH: counted bad and skipped, the rest "
        "read (n %d)",
        s.n);
  jfr_close(j);
  close(fd);
  buf_free(&rec);
}

int main(void)
{
  test_good();
  test_pipe();
  test_refused();
  test_ceilings();
  return check_failures != 0;
}
