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

enum { PROLOGUE = 32, ENTRY_HEADER = 20, MAX_FILE = 64 << 20 };

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

static int fail(struct perfdata *pd, int rc, const char *fmt, ...)
  PRINTF(3, 4);
static int fail(struct perfdata *pd, int rc, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(pd->err, sizeof(pd->err), fmt, ap);
  va_end(ap);
  return rc;
}

static int by_name(const void *a, const void *b)
{
  const struct pd_counter *x = *(struct pd_counter *const *)a;
  const struct pd_counter *y = *(struct pd_counter *const *)b;

  return strcmp(x->name, y->name);
}

static void sort(struct perfdata *pd)
{
  if (pd->n) qsort(pd->counters, pd->n, sizeof(*pd->counters), by_name);
}

const struct pd_counter *pd_find(const struct perfdata *pd, const char *name)
{
  size_t lo = 0, hi = pd->n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, pd->counters[mid]->name);

    if (!c) return pd->counters[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}

/* Add a counter; a real entry replaces a pseudo-counter or an earlier entry
 * of the same name (jvmstat keeps the last one put in its map). The caller
 * re-sorts once the walk is done. */
static void add(struct perfdata *pd, const char *name, size_t namelen,
                const struct pd_counter *c)
{
  struct pd_counter *nc;

  for (size_t i = 0; i < pd->n; i++) {
    struct pd_counter *o = pd->counters[i];

    if (strlen(o->name) == namelen && !memcmp(o->name, name, namelen)) {
      const char *keep = o->name;

      *o = *c;
      o->name = keep;
      return;
    }
  }
  if (pd->n == pd->cap) {
    pd->cap = pd->cap ? pd->cap * 2 : 256;
    pd->counters = xrealloc(pd->counters, pd->cap * sizeof(*pd->counters));
  }
  nc = xmalloc(sizeof(*nc) + namelen + 1);
  *nc = *c;
  memcpy(nc + 1, name, namelen);
  ((char *)(nc + 1))[namelen] = 0;
  nc->name = (char *)(nc + 1);
  pd->counters[pd->n++] = nc;
}

/* Walk entries from pd->next_entry until an entry of length 0 or the end
 * of the file. New names are appended unsorted. */
static int walk(struct perfdata *pd)
{
  size_t limit = pd->size;
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
    if (!len) break;  /* the end, or an entry still being written */
    if (len > limit || len > INT32_MAX)
      return fail(pd, -EINVAL, "entry at 0x%x has invalid length %u", at, len);
    if (at + (size_t)len > limit)
      return fail(pd, -EINVAL,
                  "entry at 0x%x (length %u) extends past the end (0x%zx)", at,
                  len, limit);
    if (len < ENTRY_HEADER)
      return fail(pd, -EINVAL, "entry at 0x%x is shorter than its header", at);
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
    namelen = strnlen((const char *)pd->buf + at + name_off, room);
    c.off = at + data_off;
    c.len = vlen;
    c.type = (char)type;
    c.units = units;
    c.var = var;
    c.supported = flags & 1;
    add(pd, (const char *)pd->buf + at + name_off, namelen, &c);
    at += len;
  }
  pd->next_entry = at;
  pd->walked_entries = get32(pd, 28);
  return 0;
}

static void add_pseudo(struct perfdata *pd, const char *name, int which,
                       int units, int var)
{
  struct pd_counter c = {0};

  for (size_t i = 0; i < pd->n; i++)  /* a real entry wins */
    if (!strcmp(pd->counters[i]->name, name)) return;
  c.type = 'J';
  c.units = (uint8_t)units;
  c.var = (uint8_t)var;
  c.pseudo = (uint8_t)which;
  add(pd, name, strlen(name), &c);
}

/* Check the prologue of what is in pd->buf and set the byte order. */
static int prologue(struct perfdata *pd)
{
  const unsigned char *b = pd->buf;
  uint32_t magic, first;

  if (!pd->size) return fail(pd, -EINVAL, "empty file");
  if (pd->size < PROLOGUE)
    return fail(pd, -EINVAL, "truncated: %zu bytes, shorter than the prologue",
                pd->size);
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

static int load(struct perfdata *pd)
{
  int rc;

  if ((rc = prologue(pd)) || (rc = walk(pd))) return rc;
  sort(pd);
  add_pseudo(pd, "sun.perfdata.majorVersion", PD_P_MAJOR, PD_U_NONE,
             PD_V_CONSTANT);
  add_pseudo(pd, "sun.perfdata.minorVersion", PD_P_MINOR, PD_U_NONE,
             PD_V_CONSTANT);
  add_pseudo(pd, "sun.perfdata.size", PD_P_SIZE, PD_U_BYTES, PD_V_MONOTONIC);
  add_pseudo(pd, "sun.perfdata.used", PD_P_USED, PD_U_BYTES, PD_V_MONOTONIC);
  add_pseudo(pd, "sun.perfdata.overflow", PD_P_OVERFLOW, PD_U_BYTES,
             PD_V_MONOTONIC);
  add_pseudo(pd, "sun.perfdata.timestamp", PD_P_TIMESTAMP, PD_U_TICKS,
             PD_V_MONOTONIC);
  sort(pd);
  return 0;
}

int pd_parse(struct perfdata *pd, const void *data, size_t size,
             const char *name)
{
  int rc;

  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  pd->path = xstrdup(name);
  pd->buf = xmalloc(size + 1);
  if (size) memcpy(pd->buf, data, size);
  pd->size = size;
  if ((rc = load(pd))) {
    char err[sizeof(pd->err)];

    memcpy(err, pd->err, sizeof(err));
    pd_close(pd);
    memcpy(pd->err, err, sizeof(err));
  }
  return rc;
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
  char *data;
  size_t len;

  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
  /* A FIFO or a device never holds PerfData: refused before any read. */
  if (fstat(fd, &sb)) {
    rc = -errno;
    close(fd);
    return fail(pd, rc, "%s", strerror(-rc));
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return fail(pd, -EINVAL, "not a regular file");
  }
  if ((rc = read_fd(fd, MAX_FILE, &data, &len))) {
    close(fd);
    if (rc == -EFBIG) return fail(pd, rc, "larger than %d MiB", MAX_FILE >> 20);
    return fail(pd, rc, "%s", strerror(-rc));
  }
  rc = pd_parse(pd, data, len, name);
  free(data);
  if (rc) close(fd);
  else pd->fd = fd;
  return rc;
}

int pd_refresh(struct perfdata *pd)
{
  ssize_t n;
  size_t got = 0;
  uint32_t entries;
  int rc;

  if (pd->fd < 0) return fail(pd, -EBADF, "not backed by a file");
  /* The JVM never resizes its file: anything else means it is not the
   * file we parsed any more (truncated, or replaced). */
  while (got < pd->size) {
    n = pread(pd->fd, pd->buf + got, pd->size - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(pd, -errno, "%s", strerror(errno));
    if (!n) break;
    got += (size_t)n;
  }
  if (got != pd->size) {
    memset(pd->buf + got, 0, pd->size - got);
    return fail(pd, -EIO, "file shrank from %zu to %zu bytes", pd->size, got);
  }
  if ((rc = prologue(pd))) return rc;
  entries = get32(pd, 28);
  if (entries == pd->walked_entries) return 0;
  rc = walk(pd);
  sort(pd);  /* what was found before a bad entry stays usable */
  return rc;
}

int64_t pd_long(const struct perfdata *pd, const struct pd_counter *c)
{
  switch (c->pseudo) {
  case PD_P_MAJOR: return pd->buf[5];
  case PD_P_MINOR: return pd->buf[6];
  case PD_P_SIZE: return (int64_t)pd->size;
  case PD_P_USED: return get32(pd, 8);
  case PD_P_OVERFLOW: return get32(pd, 12);
  case PD_P_TIMESTAMP: return (int64_t)get64(pd, 16);
  }
  if (c->type != 'J' || (size_t)c->off + 8 > pd->size) return 0;
  return (int64_t)get64(pd, c->off);
}

size_t pd_string(const struct perfdata *pd, const struct pd_counter *c,
                 const char **s)
{
  *s = "";
  if (c->type != 'B' || c->len <= 1 || (size_t)c->off + c->len > pd->size)
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
    buf_printf(b, "%" PRId64, pd_long(pd, c));
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

  buf_printf(b, "%s=", c->name);
  if (c->type == 'J') {
    buf_printf(b, "%" PRId64, pd_long(pd, c));
  } else {
    n = pd_string(pd, c, &s);
    buf_addc(b, '"');
    out_java_text(b, s, n, utf8);
    buf_addc(b, '"');
  }
  if (verbose)
    buf_printf(b, " %s %s %s", pd_units_name(c->units), pd_var_name(c->var),
               c->supported ? "Supported" : "Unsupported");
  buf_addc(b, '\n');
}

int pd_accessible(const struct perfdata *pd)
{
  return pd->size > 7 && pd->buf[7] != 0;
}

void pd_close(struct perfdata *pd)
{
  for (size_t i = 0; i < pd->n; i++) free(pd->counters[i]);
  free(pd->counters);
  free(pd->buf);
  free(pd->path);
  if (pd->fd >= 0) close(pd->fd);
  memset(pd, 0, sizeof(*pd));
  pd->fd = -1;
}

const char *pd_units_name(int units)
{
  static const char *const names[] = {"Invalid", "None", "Bytes", "Ticks",
                                      "Events", "String", "Hertz"};

  return units > 0 && units <= PD_U_HERTZ ? names[units] : "Invalid";
}

const char *pd_var_name(int var)
{
  static const char *const names[] = {"Invalid", "Constant", "Monotonic",
                                      "Variable"};

  return var > 0 && var <= PD_V_VARIABLE ? names[var] : "Invalid";
}
