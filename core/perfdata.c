/* perfdata.c - read and validate HotSpot PerfData 2.0 files
 *
 * See docs/jvmstat.md §1. The checks and their order follow jvmstat's own
 * reader (v2_0.PerfDataBuffer), so a file jstat rejects is rejected here
 * with the same reason in plainer words; the few extra checks (an entry
 * shorter than its header, a value past the end) guard our reads where Java
 * would have thrown on a bounds-checked buffer anyway.
 */
#include "core/jvmtool.h"
#include "core/perfdata.h"

enum { PROLOGUE = 32, ENTRY_HEADER = 20, SPARSE_FROM = 64 << 10 };

static uint32_t get32(const struct perfdata *pd, size_t off)
{
  const unsigned char *p = pd->buf + off;

  if (pd->big_endian)
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | p[1] << 8 | p[0];
}

static uint64_t get64(const struct perfdata *pd, size_t off)
{
  uint64_t a = get32(pd, off), b = get32(pd, off + 4);

  return pd->big_endian ? a << 32 | b : b << 32 | a;
}

static int fail(struct perfdata *pd, int rc, const char *fmt, ...) PRINTF(3, 4);
static int fail(struct perfdata *pd, int rc, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(pd->err, sizeof(pd->err), fmt, ap);
  va_end(ap);
  return rc;
}

/* Order by name, then by file offset: of two entries with the same name
 * the later one sorts last (offsets grow along the walk). Names are
 * compared eight bytes at a time: add() pads each with NULs. */
static int by_name(const struct pd_counter *x, const struct pd_counter *y)
{
  const unsigned char *a = (const unsigned char *)x->name;
  const unsigned char *b = (const unsigned char *)y->name;
  size_t n = (x->namelen < y->namelen ? x->namelen : y->namelen) + 1;

  for (size_t i = 0; i < n; i += 8) {
    uint64_t u, v;

    memcpy(&u, a + i, 8);
    memcpy(&v, b + i, 8);
    if (u == v) continue;
    for (;; i++)
      if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return (x->off > y->off) - (x->off < y->off);
}

/* Sort v[0..n) by_name, stably, with tmp (n slots) beside it: a merge
 * sort that skips the merge of two runs already in order, so the
 * grouped order the JVM writes its entries in costs few comparisons. */
static void sort_names(struct pd_counter **v, struct pd_counter **tmp, size_t n)
{
  size_t h = n / 2, i = 0, j = h, k = 0;

  if (n < 2) return;
  sort_names(v, tmp, h);
  sort_names(v + h, tmp, n - h);
  if (by_name(v[h - 1], v[h]) <= 0) return;
  while (i < h && j < n) tmp[k++] = by_name(v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  memcpy(v, tmp, k * sizeof(*v));
}

/* The counters live in chunks of PD_CHUNK bytes (one allocation for a
 * few hundred of them; pd_close frees the chunks), each at its address
 * until then. */
struct pd_chunk {
  struct pd_chunk *next;
  size_t used, cap;
  uint64_t data[]; /* 8-aligned records */
};
enum { PD_CHUNK = 16384 };

/* Append a counter, unsorted; index() files it in. */
static void add(struct perfdata *pd, const char *name, size_t namelen,
                const struct pd_counter *c)
{
  size_t need = (sizeof(struct pd_counter) + namelen + 8 + 7) & ~(size_t)7;
  struct pd_chunk *k = pd->chunks;
  struct pd_counter *nc;

  if (pd->n == pd->cap) {
    pd->cap = pd->cap ? pd->cap * 2 : 256;
    pd->counters = xrealloc(pd->counters, pd->cap * sizeof(*pd->counters));
  }
  if (!k || k->cap - k->used < need) {
    size_t cap = PD_CHUNK - sizeof(*k);

    if (cap < need) cap = need;
    k = xmalloc(sizeof(*k) + cap);
    k->next = pd->chunks;
    k->used = 0;
    k->cap = cap;
    pd->chunks = k;
  }
  nc = (struct pd_counter *)((char *)k->data + k->used);
  k->used += need;
  *nc = *c;
  memcpy(nc + 1, name, namelen);
  memset((char *)(nc + 1) + namelen, 0, 8); /* by_name reads 8 at a time */
  nc->name = (char *)(nc + 1);
  nc->namelen = (uint16_t)namelen;
  pd->counters[pd->n++] = nc;
}

/* The counter called name among the first n (sorted, unique), or NULL. */
static struct pd_counter *find_in(struct pd_counter **v, size_t n,
                                  const char *name)
{
  size_t lo = 0, hi = n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, v[mid]->name);

    if (!c) return v[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* File the counters appended since counters[old] in among the sorted ones,
 * in O(k log k + k log n + n) for k new ones, never pairwise: sort the new
 * ones, keep the last of each name (jvmstat keeps the last one put in its
 * map), let it overwrite an older counter of that name in place (so a
 * pointer to that one stays valid) and merge the rest. */
static void index_new(struct perfdata *pd, size_t old)
{
  struct pd_counter **v = pd->counters, **fresh;
  size_t k = 0, i, a = 0, b = 0, n = 0;

  if (pd->n == old) return;
  fresh = xmalloc((pd->n - old) * sizeof(*fresh));
  sort_names(v + old, fresh, pd->n - old);
  for (i = old; i < pd->n; i++) {
    struct pd_counter *o;

    if (i + 1 < pd->n && v[i]->namelen == v[i + 1]->namelen &&
        !memcmp(v[i]->name, v[i + 1]->name, v[i]->namelen)) {
      continue; /* an earlier entry of the same name (its chunk keeps it) */
    }
    if ((o = find_in(v, old, v[i]->name))) {
      const char *keep = o->name;

      *o = *v[i];
      o->name = keep;
      continue;
    }
    fresh[k++] = v[i];
  }
  /* Merge v[0..old) and fresh[0..k) from the back into v. */
  n = old + k;
  a = old;
  b = k;
  while (b) {
    if (a && by_name(v[a - 1], fresh[b - 1]) > 0)
      v[--n] = v[--a];
    else
      v[--n] = fresh[--b];
  }
  pd->n = old + k;
  free(fresh);
}

/* Walk entries from pd->next_entry until an entry of length 0 or the end
 * of what was read. New names are appended unsorted; index_new files them. */
static int walk(struct perfdata *pd)
{
  size_t limit = pd->len;
  uint32_t at = pd->next_entry;

  while (at != limit) {
    uint32_t len, name_off, vlen, data_off;
    unsigned char type, units, var, flags;
    struct pd_counter c = {0};
    size_t namelen, room;

    if (at % 4) return fail(pd, -EINVAL, "misaligned entry at 0x%x", at);
    if (at > limit || limit - at < 4)
      return fail(pd, -EINVAL, "entry at 0x%x is past the end (0x%zx)", at,
                  limit);
    len = get32(pd, at);
    if (!len) break; /* the end, or an entry still being written */
    if (len > pd->size || len > INT32_MAX)
      return fail(pd, -EINVAL, "entry at 0x%x has invalid length %u", at, len);
    if (at + (size_t)len > limit)
      return fail(pd, -EINVAL,
                  "entry at 0x%x (length %u) extends past the end (0x%zx)", at,
                  len, limit);
    if (len < ENTRY_HEADER)
      return fail(pd, -EINVAL, "entry at 0x%x is shorter than its header", at);
    if (pd->entries >= PD_MAX_ENTRIES)
      return fail(pd, -EFBIG, "more than %d entries, the most a JVM writes",
                  PD_MAX_ENTRIES);
    name_off = get32(pd, at + 4);
    vlen = get32(pd, at + 8);
    type = pd->buf[at + 12];
    flags = pd->buf[at + 13];
    units = pd->buf[at + 14];
    var = pd->buf[at + 15];
    data_off = get32(pd, at + 16);
    if (!strchr("BCDFIJLSVZ[", type) || !type)
      return fail(pd, -EINVAL, "entry at 0x%x has illegal type code 0x%x", at,
                  type);
    if (name_off > len || data_off > len)
      return fail(pd, -EINVAL, "entry at 0x%x has fields past its end", at);
    if (var < PD_V_CONSTANT || var > PD_V_VARIABLE)
      return fail(pd, -EINVAL, "entry at 0x%x has invalid variability %u", at,
                  var);
    if (units < PD_U_NONE || units > PD_U_HERTZ)
      return fail(pd, -EINVAL, "entry at 0x%x has invalid units %u", at, units);
    if (vlen == 0 && type != 'J')
      return fail(pd, -EINVAL, "entry at 0x%x: scalar of type '%c'", at, type);
    if (vlen && (type != 'B' || units != PD_U_STRING))
      return fail(pd, -EINVAL, "entry at 0x%x: vector of type '%c'", at, type);
    if (vlen && var == PD_V_MONOTONIC)
      return fail(pd, -EINVAL, "entry at 0x%x: monotonic string", at);
    if ((vlen ? vlen : 8) > len - data_off)
      return fail(pd, -EINVAL, "entry at 0x%x: value past the entry", at);
    /* The name runs to its NUL, but never into the data. */
    room = data_off > name_off ? data_off - name_off : 0;
    if (room > PD_MAX_NAME + 1) room = PD_MAX_NAME + 1;
    namelen = strnlen((const char *)pd->buf + at + name_off, room);
    if (namelen > PD_MAX_NAME)
      return fail(pd, -EFBIG, "entry at 0x%x: name longer than %d bytes", at,
                  PD_MAX_NAME);
    c.off = at + data_off;
    c.len = vlen;
    c.type = (char)type;
    c.units = units;
    c.var = var;
    c.supported = flags & 1;
    add(pd, (const char *)pd->buf + at + name_off, namelen, &c);
    pd->entries++;
    at += len;
  }
  pd->next_entry = at;
  pd->walked_entries = get32(pd, 28);
  return 0;
}

/* The reader's pseudo-counters, for names no entry of the file has. */
static void add_pseudo(struct perfdata *pd)
{
  static const struct {
    const char *name;
    uint8_t which, units, var;
  } t[] = {
      {"sun.perfdata.majorVersion", PD_P_MAJOR, PD_U_NONE, PD_V_CONSTANT},
      {"sun.perfdata.minorVersion", PD_P_MINOR, PD_U_NONE, PD_V_CONSTANT},
      {"sun.perfdata.size", PD_P_SIZE, PD_U_BYTES, PD_V_MONOTONIC},
      {"sun.perfdata.used", PD_P_USED, PD_U_BYTES, PD_V_MONOTONIC},
      {"sun.perfdata.overflow", PD_P_OVERFLOW, PD_U_BYTES, PD_V_MONOTONIC},
      {"sun.perfdata.timestamp", PD_P_TIMESTAMP, PD_U_TICKS, PD_V_MONOTONIC},
  };
  size_t old = pd->n;

  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    struct pd_counter c = {0};

    if (find_in(pd->counters, old, t[i].name)) continue; /* a real entry */
    c.type = 'J';
    c.units = t[i].units;
    c.var = t[i].var;
    c.pseudo = t[i].which;
    add(pd, t[i].name, strlen(t[i].name), &c);
  }
  index_new(pd, old);
}

/* Check the prologue of what is in pd->buf and set the byte order. */
static int prologue(struct perfdata *pd)
{
  const unsigned char *b = pd->buf;
  uint32_t magic, first;

  if (!pd->size) return fail(pd, -EINVAL, "empty file");
  if (pd->size < PROLOGUE || pd->len < PROLOGUE)
    return fail(pd, -EINVAL, "truncated: %zu bytes, shorter than the prologue",
                pd->size < PROLOGUE ? pd->size : pd->len);
  /* The magic is compared big-endian whatever the byte order. */
  magic = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | b[2] << 8 | b[3];
  if (magic != 0xcafec0c0)
    return fail(pd, -EINVAL, "not a PerfData file (bad magic 0x%08x)", magic);
  pd->big_endian = b[4] == 0;
  if (b[5] != 2 || b[6] != 0)
    return fail(pd, -EINVAL, "unsupported PerfData version %u.%u", b[5], b[6]);
  first = get32(pd, 24);
  if (!pd->next_entry) pd->next_entry = first;
  return 0;
}

/* Copy n bytes at off from the file (pd->fd) or from mem into pd->buf;
 * returns how many there were. */
static size_t get_bytes(struct perfdata *pd, const unsigned char *mem,
                        size_t off, size_t n)
{
  size_t got = 0;
  ssize_t r;

  if (mem) {
    memcpy(pd->buf + off, mem + off, n);
    return n;
  }
  while (got < n) {
    r = pread(pd->fd, pd->buf + off + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

/* Read the prologue, then the entries up to its used: never past the
 * file's size, never less than read before (used only grows in a JVM), so
 * memory follows what the JVM wrote, not what the file's size claims. */
static int fill(struct perfdata *pd, const unsigned char *mem)
{
  size_t head = pd->size < PROLOGUE ? pd->size : PROLOGUE, want, got;
  int rc;

  if (!pd->buf) pd->buf = xzalloc(PROLOGUE + 1);
  got = get_bytes(pd, mem, 0, head);
  if (pd->len < got) pd->len = got;
  if (got < head)
    return fail(pd, -EIO, "file shrank from %zu to %zu bytes", pd->size, got);
  if ((rc = prologue(pd))) return rc;
  want = get32(pd, 8);
  if (want > pd->size) want = pd->size; /* read what exists */
  if (want < pd->len) want = pd->len;
  if (want > pd->len) {
    pd->buf = xrealloc(pd->buf, want + 1);
    memset(pd->buf + pd->len, 0, want + 1 - pd->len);
    pd->len = want;
  }
  got = get_bytes(pd, mem, PROLOGUE, pd->len - PROLOGUE) + PROLOGUE;
  if (got < pd->len) {
    memset(pd->buf + got, 0, pd->len - got);
    return fail(pd, -EIO, "file shrank from %zu to %zu bytes", pd->size, got);
  }
  return 0;
}

/* Refuse, before reading entries, a file larger than any JVM writes. */
static int check_size(struct perfdata *pd, size_t size)
{
  if (size > PD_MAX_FILE)
    return fail(pd, -EFBIG,
                "%zu bytes, larger than the %d a JVM writes "
                "(PerfDataMemorySize at most 2 MiB)",
                size, PD_MAX_FILE);
  return 0;
}

static int load(struct perfdata *pd, const unsigned char *mem)
{
  int rc;

  if ((rc = check_size(pd, pd->size)) || (rc = fill(pd, mem)) ||
      (rc = walk(pd)))
    return rc;
  index_new(pd, 0);
  add_pseudo(pd);
  return 0;
}

/* Undo a failed load, keeping the reason. */
static int failed(struct perfdata *pd, int rc)
{
  char err[sizeof(pd->err)];

  memcpy(err, pd->err, sizeof(err));
  pd_close(pd);
  memcpy(pd->err, err, sizeof(err));
  return rc;
}

int pd_parse(struct perfdata *pd, const void *data, size_t size,
             const char *name)
{
  int rc;

  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  pd->path = xstrdup(name);
  pd->size = size;
  if ((rc = load(pd, size ? data : (const void *)""))) return failed(pd, rc);
  return 0;
}

int pd_open(struct perfdata *pd, const char *path, int flags)
{
  int fd;

  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
                      (flags & PD_NOFOLLOW ? O_NOFOLLOW : 0));
  if (fd < 0) return fail(pd, -errno, "%s", strerror(errno));
  return pd_open_fd(pd, fd, path);
}

int pd_open_fd(struct perfdata *pd, int fd, const char *name)
{
  struct stat sb;
  int rc;

  /* A FIFO or a device never holds PerfData: refused before any read. */
  if (fstat(fd, &sb)) {
    rc = -errno;
    memset(pd, 0, sizeof(*pd));
    pd->fd = -1;
    close(fd);
    return fail(pd, rc, "%s", strerror(-rc));
  }
  return pd_open_stat(pd, fd, name, &sb);
}

int pd_open_stat(struct perfdata *pd, int fd, const char *name,
                 const struct stat *st)
{
  struct stat sb = *st;
  int rc;

  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return fail(pd, -EINVAL, "not a regular file");
  }
  if ((rc = check_size(pd, (size_t)sb.st_size))) {
    close(fd);
    return rc;
  }
  /* HotSpot writes every page of its file when it creates it: a large
   * file with most of its blocks missing was planted, not written. */
  if (sb.st_size > SPARSE_FROM &&
      (uint64_t)sb.st_blocks * 512 < (uint64_t)sb.st_size / 2) {
    close(fd);
    return fail(pd, -EFBIG, "sparse: %lld of %lld bytes allocated",
                (long long)sb.st_blocks * 512, (long long)sb.st_size);
  }
  pd->fd = fd;
  pd->path = xstrdup(name);
  pd->size = (size_t)sb.st_size;
  if ((rc = load(pd, NULL))) return failed(pd, rc);
  return 0;
}

int pd_refresh(struct perfdata *pd)
{
  uint32_t entries;
  size_t old = pd->n;
  int rc;

  if (pd->fd < 0) return fail(pd, -EBADF, "not backed by a file");
  /* The JVM never resizes its file: anything else means it is not the
   * file we parsed any more (truncated, or replaced). */
  if ((rc = fill(pd, NULL))) return rc;
  entries = get32(pd, 28);
  if (entries == pd->walked_entries) return 0;
  rc = walk(pd);
  index_new(pd, old); /* what was found before a bad entry stays usable */
  return rc;
}

const struct pd_counter *pd_find(const struct perfdata *pd, const char *name)
{
  return find_in(pd->counters, pd->n, name);
}

int64_t pd_long(const struct perfdata *pd, const struct pd_counter *c)
{
  switch (c->pseudo) {
  case PD_P_MAJOR:
    return pd->buf[5];
  case PD_P_MINOR:
    return pd->buf[6];
  case PD_P_SIZE:
    return (int64_t)pd->size;
  case PD_P_USED:
    return get32(pd, 8);
  case PD_P_OVERFLOW:
    return get32(pd, 12);
  case PD_P_TIMESTAMP:
    return (int64_t)get64(pd, 16);
  }
  if (c->type != 'J' || (size_t)c->off + 8 > pd->len) return 0;
  return (int64_t)get64(pd, c->off);
}

size_t pd_string(const struct perfdata *pd, const struct pd_counter *c,
                 const char **s)
{
  *s = "";
  if (c->type != 'B' || c->len <= 1 || (size_t)c->off + c->len > pd->len)
    return 0;
  *s = (const char *)pd->buf + c->off;
  return strnlen(*s, c->len);
}

void pd_value_text(const struct perfdata *pd, const struct pd_counter *c,
                   struct buf *b)
{
  const char *s;
  size_t n;

  if (c->type == 'J') {
    buf_add_i64(b, pd_long(pd, c));
    return;
  }
  n = pd_string(pd, c, &s);
  buf_add(b, s, n);
}

void pd_snap_line(const struct perfdata *pd, const struct pd_counter *c,
                  int verbose, int utf8, struct buf *b)
{
  const char *s;
  size_t n;

  buf_add(b, c->name, c->namelen);
  buf_addc(b, '=');
  if (c->type == 'J') {
    buf_add_i64(b, pd_long(pd, c));
  } else {
    n = pd_string(pd, c, &s);
    buf_addc(b, '"');
    out_java_text(b, s, n, utf8);
    buf_addc(b, '"');
  }
  if (verbose) {
    buf_addc(b, ' ');
    buf_adds(b, pd_units_name(c->units));
    buf_addc(b, ' ');
    buf_adds(b, pd_var_name(c->var));
    buf_adds(b, c->supported ? " Supported" : " Unsupported");
  }
  buf_addc(b, '\n');
}

int pd_accessible(const struct perfdata *pd)
{
  return pd->len > 7 && pd->buf[7] != 0;
}

void pd_close(struct perfdata *pd)
{
  for (struct pd_chunk *k = pd->chunks, *next; k; k = next) {
    next = k->next;
    free(k);
  }
  free(pd->counters);
  free(pd->buf);
  free(pd->path);
  if (pd->fd >= 0) close(pd->fd);
  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
}

const char *pd_units_name(int units)
{
  static const char *const names[] = {"Invalid", "None",   "Bytes", "Ticks",
                                      "Events",  "String", "Hertz"};

  return units > 0 && units <= PD_U_HERTZ ? names[units] : "Invalid";
}

const char *pd_var_name(int var)
{
  static const char *const names[] = {"Invalid", "Constant", "Monotonic",
                                      "Variable"};

  return var > 0 && var <= PD_V_VARIABLE ? names[var] : "Invalid";
}
