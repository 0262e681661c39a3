/* config.c - the agent's option parser, shared with jvmtool (config.h)
 *
 * Freestanding: no libc call but memcpy/memset (the agent defines them),
 * so the same unit links into the agent and into jvmtool (build.sh's
 * SOURCES). Every value is range-checked here and nowhere else.
 */
#include <string.h>
#include "agent/config.h"
#include "agent/protocol.h"
#include "agent/sys.h"
#include "specs/agent_keys.h"

/* A bounded string that silently stops at its capacity. */
struct msg {
  char *p;
  size_t len, cap;
};

static void msg_put(struct msg *m, const char *s, size_t n)
{
  if (!m->cap) return;
  if (n > m->cap - 1 - m->len) n = m->cap - 1 - m->len;
  memcpy(m->p + m->len, s, n);
  m->len += n;
  m->p[m->len] = 0;
}

static void msg_str(struct msg *m, const char *s)
{
  msg_put(m, s, str_len(s));
}

static void msg_num(struct msg *m, int64_t v)
{
  char tmp[24];
  size_t n = sizeof(tmp);
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

  do tmp[--n] = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) tmp[--n] = '-';
  msg_put(m, tmp + n, sizeof(tmp) - n);
}

/* The numbers' defaults (specs/agent_keys.h). */
#define NUM(lo, hi, def) def
#define MS NUM
#define SECS NUM
_Static_assert(AGENT_KEY_interval_bytes == 512 * 1024, "HotSpot's default");

void config_defaults(struct config *c)
{
  memset(c, 0, sizeof(*c));
  c->strategy = BY_BYTES;
  c->interval_bytes = AGENT_KEY_interval_bytes;
  c->interval_ms = AGENT_KEY_interval_ms;
  c->rate = AGENT_KEY_rate;
  c->delay_secs = AGENT_KEY_delay_secs;
  c->verbosity = V_CLASS; /* the original's default */
  c->record_size = 1;
  c->weight = W_ESTIMATE;
  c->depth = AGENT_KEY_depth;
  memcpy(c->output, "stacks.txt", 11);
}
#undef NUM

static int parse_num(const char *v, size_t n, int64_t min, int64_t max,
                     int64_t *out)
{
  int64_t x = 0;
  size_t i;

  if (!n || n > 18) return -1;
  for (i = 0; i < n; i++) {
    if (v[i] < '0' || v[i] > '9') return -1;
    x = x * 10 + (v[i] - '0');
  }
  if (x < min || x > max) return -1;
  *out = x;
  return 0;
}

/* v among the words of list (NUL-separated, empty word ends it): its
 * index, or -1. */
static int word(const char *v, size_t n, const char *list)
{
  int i;

  for (i = 0; *list; i++, list += str_len(list) + 1)
    if (str_eq(v, n, list)) return i;
  return -1;
}

/* The options (output.file aside): each an int64_t of struct config, a
 * number in [min, max] (specs/agent_keys.h) or, with words, the index of
 * one of its words (NUL-separated, an empty word ends them; in the order
 * of config.h's enums). */
#define NUM(lo, hi, def) lo, hi

static const struct key {
  const char *name;
  size_t off;
  const char *words;
  int64_t min, max;
} keys[] = {
    {"sample.strategy", offsetof(struct config, strategy),
     "bytes\0time\0allocationCount\0", 0, 0},
    {"sample.interval.bytes", offsetof(struct config, interval_bytes), NULL,
     AGENT_KEY_interval_bytes},
    {"sample.interval.ms", offsetof(struct config, interval_ms), NULL,
     AGENT_KEY_interval_ms},
    {"sample.rate", offsetof(struct config, rate), NULL, AGENT_KEY_rate},
    {"sample.delay.secs", offsetof(struct config, delay_secs), NULL,
     AGENT_KEY_delay_secs},
    {"record.size", offsetof(struct config, record_size), "false\0true\0", 0,
     0},
    {"record.weight", offsetof(struct config, weight), "estimate\0size\0", 0,
     0},
    {"stack.trace.verbosity", offsetof(struct config, verbosity),
     "methodName\0methodClassName\0methodClassLineNumber\0", 0, 0},
    {"recorder", offsetof(struct config, lifetime), "flame\0lifetime\0", 0, 0},
    {"max.stack.depth", offsetof(struct config, depth), NULL, AGENT_KEY_depth},
};
#undef NUM
#undef MS
#undef SECS

static int64_t *field(struct config *c, const struct key *k)
{
  return (int64_t *)(void *)((char *)c + k->off);
}

static int64_t value(const struct config *c, const struct key *k)
{
  return *(const int64_t *)(const void *)((const char *)c + k->off);
}

/* Apply key=value to c. Returns 0, 1 for an unknown key, -1 for a bad
 * value. */
static int set(struct config *c, const char *k, size_t kn, const char *v,
               size_t vn)
{
  size_t i;

  for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    const struct key *o = &keys[i];
    int w;

    if (!str_eq(k, kn, o->name)) continue;
    if (!o->words) return parse_num(v, vn, o->min, o->max, field(c, o));
    if ((w = word(v, vn, o->words)) < 0) return -1;
    *field(c, o) = w;
    return 0;
  }
  if (!str_eq(k, kn, "output.file")) return 1;
  if (!vn || vn >= sizeof(c->output)) return -1;
  for (i = 0; i < vn; i++)
    if (!v[i]) return -1; /* a NUL (from a file) would cut the path */
  memcpy(c->output, v, vn);
  c->output[vn] = 0;
  return 0;
}

static int is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\f' || c == '\r';
}

/* "<why> '<key>'" and, for a bad value, ": '<value>'", into m. */
static void explain(struct msg *m, const char *why, const char *k, size_t kn,
                    const char *v, size_t vn)
{
  msg_str(m, why);
  msg_str(m, " '");
  msg_put(m, k, kn > 100 ? 100 : kn);
  msg_str(m, "'");
  if (!v) return;
  msg_str(m, ": '");
  msg_put(m, v, vn > 200 ? 200 : vn);
  msg_str(m, "'");
}

/* One "key=value" (or "key: value", "key value") piece. */
static int apply_pair(struct config *c, const char *s, size_t n, int from_file,
                      struct msg *err, config_warn_fn *warn, void *arg)
{
  size_t k = 0, kn, v;
  int r;

  while (k < n && is_space(s[k])) k++;
  while (n > k && is_space(s[n - 1])) n--;
  if (k == n || s[k] == '#' || s[k] == '!') return 0;
  kn = k;
  while (kn < n && s[kn] != '=' && s[kn] != ':' && !is_space(s[kn])) kn++;
  v = kn;
  while (v < n && is_space(s[v])) v++;
  if (v < n && (s[v] == '=' || s[v] == ':')) v++;
  while (v < n && is_space(s[v])) v++;
  r = set(c, s + k, kn - k, s + v, n - v);
  if (r < 0) {
    explain(err, "bad value for option", s + k, kn - k, s + v, n - v);
    return AGENT_OPTIONS;
  }
  if (r > 0 && !from_file) {
    explain(err, "unknown option", s + k, kn - k, 0, 0);
    return AGENT_OPTIONS;
  }
  if (r > 0 && warn) {
    char line[160];
    struct msg w = {line, 0, sizeof(line)};

    line[0] = 0;
    explain(&w, "ignoring unknown property", s + k, kn - k, 0, 0);
    warn(line, arg);
  }
  return 0;
}

int config_apply(struct config *c, const char *s, size_t n, char sep,
                 int from_file, char *err, size_t errlen, config_warn_fn *warn,
                 void *arg)
{
  struct msg m = {err, 0, errlen};
  size_t i, start;
  int rc = 0;

  if (errlen) err[0] = 0;
  for (i = start = 0; i <= n && !rc; i++) {
    if (i == n || s[i] == sep) {
      rc = apply_pair(c, s + start, i - start, from_file, &m, warn, arg);
      start = i + 1;
    }
  }
  return rc;
}

int config_format(const struct config *c, char *out, size_t n)
{
  struct config d;
  struct msg m = {out, 0, n};
  size_t i;

  if (!n) return -1;
  out[0] = 0;
  config_defaults(&d);
  for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    const struct key *o = &keys[i];
    int64_t v = value(c, o);
    const char *w = o->words;

    if (v == value(&d, o)) continue;
    msg_str(&m, m.len ? "," : "");
    msg_str(&m, o->name);
    msg_str(&m, "=");
    if (!w) {
      msg_num(&m, v);
      continue;
    }
    while (v-- > 0 && *w) w += str_len(w) + 1;
    msg_str(&m, w);
  }
  for (i = 0; c->output[i]; i++)
    if (c->output[i] == ',') return -1;
  if (!str_eq(c->output, str_len(c->output), d.output)) {
    msg_str(&m, m.len ? ",output.file=" : "output.file=");
    msg_str(&m, c->output);
  }
  return m.len + 1 >= n ? -1 : (int)m.len;
}
