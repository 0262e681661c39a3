/* config.h - the agent's options: flame.properties lines or "k=v,k=v"
 *
 * Keys and values are the allocation-instrumenter's (sample.strategy,
 * sample.interval.bytes, ...; docs/attach-agent.md). Included by agent.c,
 * which has no libc and brings say(), memcpy() and memset(), and by the
 * fuzz target test/fuzz/fuzz_agentopts.c, which brings its own; str_eq()
 * comes from agent/sys.h. Needs RC_OPTIONS, the "bad options" return code.
 */
#ifndef AGENT_CONFIG_H
#define AGENT_CONFIG_H

enum strategy { BY_BYTES, BY_TIME, BY_COUNT };
enum verbosity { V_METHOD, V_CLASS, V_LINE };
enum { MAX_DEPTH = 1024 };

struct config {
  int strategy, verbosity, lifetime, record_size, depth;
  int64_t interval_bytes, interval_ms, rate, delay_secs;
  char output[1024];
};

static void config_defaults(struct config *c)
{
  memset(c, 0, sizeof(*c));
  c->strategy = BY_BYTES;
  c->interval_bytes = 512 * 1024;  /* HotSpot's own default */
  c->interval_ms = 10;
  c->rate = 100;
  c->verbosity = V_CLASS;          /* the original's default */
  c->record_size = 1;
  c->depth = 128;
  memcpy(c->output, "stacks.txt", 11);
}

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

static int parse_bool(const char *v, size_t n, int *out)
{
  if (str_eq(v, n, "true")) *out = 1;
  else if (str_eq(v, n, "false")) *out = 0;
  else return -1;
  return 0;
}

/* Apply key=value to c. Returns 0, 1 for an unknown key, -1 for a bad
 * value. */
static int config_set(struct config *c, const char *k, size_t kn,
                      const char *v, size_t vn)
{
  int64_t x;

  if (str_eq(k, kn, "sample.strategy")) {
    if (str_eq(v, vn, "bytes")) c->strategy = BY_BYTES;
    else if (str_eq(v, vn, "time")) c->strategy = BY_TIME;
    else if (str_eq(v, vn, "allocationCount")) c->strategy = BY_COUNT;
    else return -1;
  } else if (str_eq(k, kn, "sample.interval.bytes")) {
    if (parse_num(v, vn, 0, 0x7fffffff, &c->interval_bytes)) return -1;
  } else if (str_eq(k, kn, "sample.interval.ms")) {
    if (parse_num(v, vn, 1, 86400000, &c->interval_ms)) return -1;
  } else if (str_eq(k, kn, "sample.rate")) {
    if (parse_num(v, vn, 1, 1000000000, &c->rate)) return -1;
  } else if (str_eq(k, kn, "sample.delay.secs")) {
    if (parse_num(v, vn, 0, 86400 * 365, &c->delay_secs)) return -1;
  } else if (str_eq(k, kn, "record.size")) {
    if (parse_bool(v, vn, &c->record_size)) return -1;
  } else if (str_eq(k, kn, "stack.trace.verbosity")) {
    if (str_eq(v, vn, "methodName")) c->verbosity = V_METHOD;
    else if (str_eq(v, vn, "methodClassName")) c->verbosity = V_CLASS;
    else if (str_eq(v, vn, "methodClassLineNumber")) c->verbosity = V_LINE;
    else return -1;
  } else if (str_eq(k, kn, "output.file")) {
    if (!vn || vn >= sizeof(c->output)) return -1;
    for (x = 0; x < (int64_t)vn; x++)
      if (!v[x]) return -1;  /* a NUL (from a file) would cut the path */
    memcpy(c->output, v, vn);
    c->output[vn] = 0;
  } else if (str_eq(k, kn, "recorder")) {
    if (str_eq(v, vn, "flame")) c->lifetime = 0;
    else if (str_eq(v, vn, "lifetime")) c->lifetime = 1;
    else return -1;
  } else if (str_eq(k, kn, "max.stack.depth")) {
    if (parse_num(v, vn, 1, MAX_DEPTH, &x)) return -1;
    c->depth = (int)x;
  } else {
    return 1;
  }
  return 0;
}

static int is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\f' || c == '\r';
}

/* Report a bad pair and return RC_OPTIONS. */
static int bad_option(const char *why, const char *k, size_t kn)
{
  char name[128];

  if (kn >= sizeof(name) - 1) kn = sizeof(name) - 2;
  memcpy(name, k, kn);
  name[kn] = '\'';
  name[kn + 1] = 0;
  say(why, " '", name);
  return RC_OPTIONS;
}

/* One "key=value" (or "key: value", "key value") line or pair. from_file:
 * unknown keys are skipped with a warning (a flame.properties may carry
 * settings of the original that mean nothing here). */
static int apply_pair(struct config *c, const char *s, size_t n, int from_file)
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
  r = config_set(c, s + k, kn - k, s + v, n - v);
  if (r < 0) return bad_option("bad value for option", s + k, kn - k);
  if (r > 0 && !from_file)
    return bad_option("unknown option", s + k, kn - k);
  if (r > 0) bad_option("ignoring unknown property", s + k, kn - k);
  return 0;
}

/* Apply the pairs of s[0..n), one per sep-separated piece; stops at the
 * first bad one. Returns 0 or RC_OPTIONS. */
static int config_lines(struct config *c, const char *s, size_t n, char sep,
                        int from_file)
{
  size_t i, start;
  int rc = 0;

  for (i = start = 0; i <= n && !rc; i++) {
    if (i == n || s[i] == sep) {
      rc = apply_pair(c, s + start, i - start, from_file);
      start = i + 1;
    }
  }
  return rc;
}

#endif
