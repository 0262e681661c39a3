/* lib.c - errors, allocation, numbers, growable buffers, whole-file reads,
 * terminal escaping (the message writer's) */
#include "core/jvmtool.h"
#include <sys/random.h>

const char *jt_cmd;
int jt_status;
int jt_verbose;

/* The one writer of messages: one line, one write(2). What a message
 * carries from a target (a reply, a path, a name) cannot drive the
 * terminal: when stderr is one, control characters are escaped (a newline
 * too: a message stays one line); a pipe or file gets the bytes exact. */
PRINTF(2, 0) static void vmsg(int err, const char *fmt, va_list ap)
{
  char line[4096];
  struct buf out = {0};
  int n = 0;

  if (jt_cmd)
    n = snprintf(line, sizeof(line), "jvmtool %s: ", jt_cmd);
  else
    n = snprintf(line, sizeof(line), "jvmtool: ");
  n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
  if ((size_t)n >= sizeof(line) - 80) n = sizeof(line) - 80;
  if (err) n += snprintf(line + n, sizeof(line) - n, ": %s", strerror(err));
  if (term_is_tty(STDERR_FILENO))
    term_escape(&out, line, (size_t)n, 0);
  else
    buf_add(&out, line, (size_t)n);
  buf_addc(&out, '\n');
  fflush(stdout);
  if (write(2, out.p, out.len) < 0) out.len = 0; /* nowhere to complain */
  buf_free(&out);
}

void error_msg(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(0, fmt, ap);
  va_end(ap);
  jt_status = 1;
}

void perror_msg(const char *fmt, ...)
{
  int err = errno;
  va_list ap;

  va_start(ap, fmt);
  vmsg(err, fmt, ap);
  va_end(ap);
  jt_status = 1;
}

void errno_msg(int err, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(err < 0 ? -err : err, fmt, ap);
  va_end(ap);
  jt_status = 1;
}

void warn_msg(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(0, fmt, ap);
  va_end(ap);
}

void info_msg(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(0, fmt, ap);
  va_end(ap);
}

volatile sig_atomic_t jt_stop_signal;

static void on_stop(int sig)
{
  jt_stop_signal = sig;
}

void stop_signals(int on)
{
  static struct sigaction was[3];
  static int saved;
  static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa = {.sa_handler = on_stop}, old;

  for (int i = 0; i < 3; i++) {
    if (!on) { /* what stood before (a core/wfile handler, say) */
      if (saved) sigaction(sigs[i], &was[i], NULL);
      continue;
    }
    if (sigaction(sigs[i], NULL, &old)) continue;
    if (!saved) was[i] = old;
    if (sigs[i] != SIGHUP || old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
  }
  saved = on;
}

int stop_status(int rc)
{
  return jt_stop_signal ? 128 + jt_stop_signal : rc;
}

/* Levenshtein distance, two rows; names are short. */
static size_t edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b), *prev, *cur, d;

  prev = xmalloc((lb + 1) * sizeof(*prev));
  cur = xmalloc((lb + 1) * sizeof(*cur));
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, (lb + 1) * sizeof(*prev));
  }
  d = prev[lb];
  free(prev);
  free(cur);
  return d;
}

int nearest_name(const char *word, const char *const *names, int n)
{
  size_t best = strlen(word) / 3 + 1, d;
  int at = -1;

  if (best < 2) best = 2;
  for (int i = 0; i < n; i++) {
    if (!names[i] || (d = edit_distance(word, names[i])) >= best) continue;
    best = d;
    at = i;
  }
  return at;
}

void verbose_msg(const char *fmt, ...)
{
  va_list ap;

  if (!jt_verbose) return;
  va_start(ap, fmt);
  vmsg(0, fmt, ap);
  va_end(ap);
}

int usage_error(const char *fmt, ...)
{
  char msg[1024];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (jt_cmd)
    error_msg("%s (see 'jvmtool %s --help')", msg, jt_cmd);
  else
    error_msg("%s (see 'jvmtool --help')", msg);
  return 2;
}

static void *oom(void *p)
{
  static const char msg[] = "jvmtool: out of memory\n";

  if (p) return p;
  if (write(2, msg, sizeof(msg) - 1) < 0) _exit(1);
  _exit(1);
}

void *xmalloc(size_t n)
{
  return oom(malloc(n ? n : 1));
}
void *xzalloc(size_t n)
{
  return oom(calloc(1, n ? n : 1));
}
void *xrealloc(void *p, size_t n)
{
  return oom(realloc(p, n ? n : 1));
}
char *xstrdup(const char *s)
{
  return oom(strdup(s));
}
char *xstrndup(const char *s, size_t n)
{
  return oom(strndup(s, n));
}

char *xasprintf(const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  int n;

  va_start(ap, fmt);
  n = vasprintf(&s, fmt, ap);
  va_end(ap);
  return oom(n < 0 ? NULL : s);
}

int parse_long(const char *s, long long min, long long max, long long *out)
{
  char *end;
  long long v;

  if (!s || !*s || isspace((unsigned char)*s)) return -EINVAL;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (*end) return -EINVAL;
  if (errno == ERANGE || v < min || v > max) return -ERANGE;
  *out = v;
  return 0;
}

int parse_pid(const char *s, int *pid)
{
  long long v;
  int rc;

  for (const char *p = s; *p; p++)
    if (!isdigit((unsigned char)*p)) return -EINVAL;
  rc = parse_long(s, 1, INT_MAX, &v);
  if (!rc) *pid = (int)v;
  return rc;
}

const char *scan_u64(const char *p, int base, unsigned long long *v)
{
  const char *s = p;
  unsigned long long n = 0;

  for (;; p++) {
    unsigned d = (unsigned char)*p - '0';

    if (d > 9 && base == 16) {
      d = ((unsigned char)*p | 0x20) - 'a';
      d = d < 6 ? d + 10 : 99;
    }
    if (d >= (unsigned)base) break;
    n = n * (unsigned)base + d;
  }
  *v = n;
  return p == s ? NULL : p;
}

void buf_add(struct buf *b, const void *data, size_t n)
{
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    if (b->cap < 64) b->cap = 64;
    b->p = xrealloc(b->p, b->cap);
  }
  memcpy(b->p + b->len, data, n);
  b->len += n;
  b->p[b->len] = 0;
}

void buf_addc(struct buf *b, char c)
{
  buf_add(b, &c, 1);
}
void buf_adds(struct buf *b, const char *s)
{
  buf_add(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
  va_list ap;
  size_t room;
  int n;

  /* Format straight into the room left (most lines fit); only when
   * they do not, grow to the length that pass measured and again. */
  if (b->cap - b->len < 64) {
    b->cap = (b->len + 64) * 2;
    b->p = xrealloc(b->p, b->cap);
  }
  room = b->cap - b->len;
  va_start(ap, fmt);
  n = vsnprintf(b->p + b->len, room, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->p[b->len] = 0;
    return;
  }
  if ((size_t)n >= room) {
    b->cap = (b->len + n + 1) * 2;
    b->p = xrealloc(b->p, b->cap);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, n + 1, fmt, ap);
    va_end(ap);
  }
  b->len += n;
}

void buf_add_i64(struct buf *b, int64_t v)
{
  char t[20], *e = t + sizeof(t), *p = e;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

  do *--p = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) *--p = '-';
  buf_add(b, p, (size_t)(e - p));
}

void buf_free(struct buf *b)
{
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

int read_fd(int fd, size_t max, char **data, size_t *len)
{
  struct buf b = {0};
  char chunk[65536];
  off_t off = 0;
  ssize_t n;

  for (;;) {
    n = pread(fd, chunk, sizeof(chunk), off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;

      buf_free(&b);
      return -err;
    }
    if (!n) break;
    if (b.len + n > max) {
      buf_free(&b);
      return -EFBIG;
    }
    buf_add(&b, chunk, n);
    off += n;
  }
  buf_add(&b, "", 0);
  *data = b.p;
  *len = b.len;
  return 0;
}

int read_file(int dirfd, const char *path, int open_flags, size_t max,
              char **data, size_t *len)
{
  int fd = openat(dirfd, path, open_flags | O_RDONLY | O_CLOEXEC);
  int rc;

  if (fd < 0) return -errno;
  rc = read_fd(fd, max, data, len);
  close(fd);
  return rc;
}

uint64_t now_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t wall_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int parse_time(const char *s, long long *n, long long *unit_ms,
               const char **unit)
{
  static const struct {
    const char *unit;
    long long ms;
  } units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}};
  const char *u = strstr(s, "ms"), *p;
  size_t len = strlen(s);
  char *num;
  int rc;

  /* jstat's split: the unit starts at the first "ms", else at the first
   * 's' (never at the start); a final 'm' (minutes) is ours. */
  if (!u || u == s) u = strchr(s, 's');
  if (u == s) u = NULL;
  if (!u && len > 1 && s[len - 1] == 'm') u = s + len - 1;
  num = xstrndup(s, u ? (size_t)(u - s) : len);
  p = num + (*num == '+' || *num == '-');
  rc = *p && strspn(p, "0123456789") == strlen(p)
           ? parse_long(num + (*num == '+'), INT32_MIN, INT32_MAX, n)
           : -EINVAL;
  free(num);
  *unit = NULL;
  *unit_ms = 0;
  if (rc) return -EINVAL;
  *unit = u;
  if (!u) return 0;
  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
    if (strcmp(u, units[i].unit)) continue;
    *unit_ms = units[i].ms;
    return 0;
  }
  return -EINVAL;
}

static const struct {
  const char *unit;
  long long ns;
} span_units[] = {
    {"d", 86400000000000LL},
    {"h", 3600000000000LL},
    {"m", 60000000000LL},
    {"s", 1000000000},
    {"ms", 1000000},
    {"us", 1000},
    {"ns", 1},
    {"", 1000000000},
};

int parse_span(const char *s, long long *ns)
{
  size_t whole = strspn(s, "0123456789"), frac = 0;
  const char *u = s + whole;
  long double v;

  if (*u == '.') frac = strspn(u + 1, "0123456789") + 1;
  if (!whole && frac < 2) return -EINVAL;
  if (whole > 20 || frac > 20) return -EINVAL;
  v = strtold(s, NULL); /* only digits and one '.': no sign, no exponent */
  u += frac;
  for (size_t i = 0; i < sizeof(span_units) / sizeof(span_units[0]); i++) {
    if (strcmp(u, span_units[i].unit)) continue;
    v *= span_units[i].ns;
    if (v > 3155760000000000000.0L) return -EINVAL; /* 100 years */
    *ns = (long long)(v + 0.5L);
    return 0;
  }
  return -EINVAL;
}

void span_text(struct buf *b, long long ns)
{
  size_t i = 0;

  while (span_units[i].ns > 1 && (ns % span_units[i].ns || !ns)) i++;
  buf_printf(b, "%lld%s", ns / span_units[i].ns, span_units[i].unit);
}

void random_hex(char out[17])
{
  unsigned char b[8];
  uint64_t v = now_ms() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();

  if (getrandom(b, sizeof(b), GRND_NONBLOCK) == (ssize_t)sizeof(b))
    memcpy(&v, b, sizeof(v));
  snprintf(out, 17, "%016llx", (unsigned long long)v);
}

/* ---- terminals ---- */

/* Whether stdin, stdout and stderr are terminals: -1 not asked yet. */
static int tty_fd[3] = {-1, -1, -1};

int term_is_tty(int fd)
{
  if (fd < 0 || fd > 2) return fd >= 0 && isatty(fd);
  if (tty_fd[fd] < 0) tty_fd[fd] = isatty(fd);
  return tty_fd[fd];
}

int term_escaping(int force)
{
  if (force >= 0) tty_fd[STDOUT_FILENO] = force;
  return term_is_tty(STDOUT_FILENO);
}

void term_escape(struct buf *b, const char *str, size_t n, int keep_nl)
{
  const unsigned char *s = (const unsigned char *)str;
  size_t run = 0; /* where the bytes not yet added start */

  for (size_t i = 0; i < n; i++) {
    int c1 = s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] < 0xa0;

    if (!c1 && (s[i] >= 0x20 || s[i] == '\t' || (s[i] == '\n' && keep_nl)) &&
        s[i] != 0x7f)
      continue;
    buf_add(b, s + run, i - run);
    if (s[i] == 0x1b)
      buf_adds(b, "\\e");
    else
      buf_printf(b, "\\x%02x", s[i]);
    if (c1) buf_printf(b, "\\x%02x", s[++i]);
    run = i + 1;
  }
  buf_add(b, s + run, n - run);
}
