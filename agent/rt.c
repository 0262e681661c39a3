/* rt.c - the agent's runtime: what libc would give it, and the samples
 * file (agent/rt.h)
 */
#include "agent/agent.h"
#include "agent/rt.h"
#include "agent/sys.h"

/* The compiler may emit calls to these even in a freestanding build. */
__attribute__((visibility("hidden"))) void *memset(void *d, int c, size_t n)
{
  unsigned char *p = d;

  while (n--) *p++ = (unsigned char)c;
  return d;
}

__attribute__((visibility("hidden"))) void *
memcpy(void *restrict d, const void *restrict s, size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;

  while (n--) *p++ = *q++;
  return d;
}

__attribute__((visibility("hidden"))) void *memmove(void *d, const void *s,
                                                    size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;

  if (p < q) return memcpy(d, s, n);
  while (n--) p[n] = q[n];
  return d;
}

__attribute__((visibility("hidden"))) int memcmp(const void *a, const void *b,
                                                 size_t n)
{
  const unsigned char *p = a, *q = b;

  for (; n; n--, p++, q++)
    if (*p != *q) return *p - *q;
  return 0;
}

void put(struct text *t, const char *s, size_t n)
{
  if (n > t->cap - t->len) n = t->cap - t->len;
  memcpy(t->p + t->len, s, n);
  t->len += n;
}

void puts_(struct text *t, const char *s)
{
  put(t, s, str_len(s));
}

size_t fmt_i64(char *out, int64_t v)
{
  char tmp[24];
  size_t n = 0, i;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

  do tmp[n++] = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) tmp[n++] = '-';
  for (i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

void put_num(struct text *t, int64_t v)
{
  char tmp[24];

  put(t, tmp, fmt_i64(tmp, v));
}

/* Two digits, zero-padded (for the start time). */
static void put_2(struct text *t, int v)
{
  char d[2] = {(char)('0' + v / 10 % 10), (char)('0' + v % 10)};

  put(t, d, 2);
}

/* Wall-clock milliseconds as 2026-01-02T03:04:05Z (days-to-civil conversion
 * of the proleptic Gregorian calendar). */
void put_time(struct text *t, int64_t ms)
{
  int64_t s = ms / 1000, days = s / 86400, sod = s % 86400;
  int64_t z = days + 719468, era = z / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
  int64_t y = yoe + era * 400 + (m <= 2);

  put_num(t, y);
  puts_(t, "-");
  put_2(t, (int)m);
  puts_(t, "-");
  put_2(t, (int)d);
  puts_(t, "T");
  put_2(t, (int)(sod / 3600));
  puts_(t, ":");
  put_2(t, (int)(sod / 60 % 60));
  puts_(t, ":");
  put_2(t, (int)(sod % 60));
  puts_(t, "Z");
}

/* One line on the JVM's stderr: "jvmtool agent: <a><b><c>". */
void say(const char *a, const char *b, const char *c)
{
  char line[1024];
  struct text t = {line, 0, sizeof(line) - 1};

  puts_(&t, "jvmtool agent: ");
  puts_(&t, a);
  if (b) puts_(&t, b);
  if (c) puts_(&t, c);
  line[t.len++] = '\n';
  sys_write(2, line, t.len);
}

void say_err(const char *what, jvmtiError err)
{
  char num[24];

  num[fmt_i64(num, err)] = 0;
  say(what, ": JVMTI error ", num);
}

/* xorshift64*: jitter only, so quality and thread races do not matter. */
static uint64_t rnd(struct agent *a)
{
  uint64_t x = a->rng ? a->rng : 0x9e3779b97f4a7c15ull;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  a->rng = x;
  return x * 0x2545f4914f6cdd1dull;
}

/* n jittered uniformly within n/2..3n/2, as the original's strategies. */
int64_t jitter(struct agent *a, int64_t n)
{
  if (n < 2) return n;
  return n / 2 + (int64_t)(rnd(a) % (uint64_t)(n + 1));
}

/* 1 - e^(-x) for x >= 0, relative error below 1e-14, without libm: a
 * Taylor series where it cancels (x < 0.5; terms to x^19/19!, < 1e-22),
 * else e^(-x) = 2^(-k) e^(-r) with r = x - k ln 2 in [-0.35, 0.35]
 * (series to r^17/17!, < 1e-21). */
double one_minus_exp_neg(double x)
{
  const double ln2 = 0.69314718055994530942;
  double sum = 0, term = 1, e;
  int i, k;

  if (x < 0.5) {
    for (i = 1; i < 20; i++) {
      term *= x / i;
      sum += i % 2 ? term : -term;
    }
    return sum;
  }
  if (x > 60) return 1;
  k = (int)(x / ln2 + 0.5);
  x -= k * ln2; /* now e^(-x_original) = 2^-k e^(-x) */
  for (e = 1, i = 1; i < 18; i++) {
    term *= -x / i;
    e += term;
  }
  while (k-- > 0) e *= 0.5;
  return 1 - e;
}

/* ---- the samples file ------------------------------------------------- */

/* Create the samples file: a new inode, never through a link, never into a
 * FIFO (O_NONBLOCK: the attach thread must not wait for a reader), never a
 * truncated existing file. A name that is taken (a run before, a planted
 * link or FIFO) is removed and created afresh, once. */
long out_create(const char *path)
{
  int flags = K_O_WRONLY | K_O_CREAT | K_O_EXCL | K_O_NOFOLLOW | K_O_NONBLOCK |
              K_O_CLOEXEC;
  long fd = sys_open(path, flags, 0644);

  if (fd == -K_EEXIST && sys_unlink(path) == 0)
    fd = sys_open(path, flags, 0644);
  return fd;
}

static void write_all(struct agent *a, const char *p, size_t n)
{
  long w;

  while (n && a->fd >= 0) {
    w = sys_write(a->fd, p, n);
    if (w == -K_EINTR || w == -K_EAGAIN) continue;
    if (w <= 0) {
      a->write_errors++;
      return;
    }
    p += w;
    n -= (size_t)w;
  }
}

/* Write the buffered lines out. Order io, then lock: the buffers are swapped
 * under lock, written under io alone, so callbacks only wait for a swap. */
void out_flush(struct agent *a)
{
  char *full;
  size_t n;

  lock(a, a->io);
  lock(a, a->lock);
  full = a->buf;
  n = a->len;
  a->buf = a->spare;
  a->spare = full;
  a->len = 0;
  unlock(a, a->lock);
  write_all(a, full, n);
  unlock(a, a->io);
}

/* Append whole lines; flush first when they do not fit. accept: the state
 * in which lines are still taken. */
int out_append(struct agent *a, const char *s, size_t n, int sample)
{
  int tries;

  for (tries = 0; tries < 4; tries++) {
    lock(a, a->lock);
    if (a->state != RUNNING || a->fd < 0) {
      unlock(a, a->lock);
      return -1;
    }
    if (n <= BUF_CAP - a->len) {
      memcpy(a->buf + a->len, s, n);
      a->len += n;
      a->samples += sample; /* under the lock: the end line's count */
      if (a->len > BUF_CAP / 2)
        (*a->jvmti)->RawMonitorNotifyAll(a->jvmti, a->lock);
      unlock(a, a->lock);
      return 0;
    }
    unlock(a, a->lock);
    out_flush(a);
  }
  return -1;
}

void out_header(struct agent *a)
{
  char line[512];
  struct text t = {line, 0, sizeof(line) - 1};
  const struct config *c = &a->cfg;

  puts_(&t, "# jvmtool-agent pid=");
  put_num(&t, sys_getpid());
  if (c->strategy == BY_BYTES) {
    puts_(&t, " strategy=bytes interval=");
    put_num(&t, c->interval_bytes);
  } else if (c->strategy == BY_TIME) {
    puts_(&t, " strategy=time interval=");
    put_num(&t, c->interval_ms);
    puts_(&t, "ms");
  } else {
    puts_(&t, " strategy=allocationCount interval=");
    put_num(&t, c->rate);
  }
  puts_(&t, c->lifetime ? " recorder=lifetime" : " recorder=flame");
  /* What each line's number is (see value_of). */
  if (!c->record_size)
    puts_(&t, " values=count");
  else if (c->strategy == BY_BYTES && c->weight == W_ESTIMATE &&
           c->interval_bytes > 0)
    puts_(&t, " values=estimated-bytes");
  else
    puts_(&t, " values=object-size");
  puts_(&t, " depth=");
  put_num(&t, c->depth);
  puts_(&t, " start=");
  put_time(&t, clock_ms(K_CLOCK_REALTIME));
  line[t.len++] = '\n';
  write_all(a, line, t.len);
}

/* The last line: says the output is complete. */
static void write_trailer(struct agent *a)
{
  char line[160];
  struct text t = {line, 0, sizeof(line) - 1};

  puts_(&t, "# end samples=");
  put_num(&t, (int64_t)a->samples);
  puts_(&t, " dropped=");
  put_num(&t, (int64_t)a->dropped);
  puts_(&t, " stop=");
  put_time(&t, clock_ms(K_CLOCK_REALTIME));
  line[t.len++] = '\n';
  write_all(a, line, t.len);
}

/* Flush, end and close the output (idempotent). */
void out_close(struct agent *a)
{
  out_flush(a);
  lock(a, a->io);
  if (a->fd >= 0) {
    write_trailer(a);
    sys_close(a->fd);
    a->fd = -1;
  }
  unlock(a, a->io);
}
