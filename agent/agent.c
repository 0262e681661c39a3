/* agent.c - jvmtool's allocation sampler: a JVMTI agent without libc.
 *
 * Loaded at start-up (java -agentpath:agent.so=OPTIONS, Agent_OnLoad) or into
 * a running JVM (attach "load", Agent_OnAttach). OPTIONS is the path of a
 * properties file in the allocation-instrumenter's flame.properties format,
 * comma-separated key=value pairs, or one of the words "stop" and "status".
 *
 * Samples come from JVMTI SampledObjectAlloc (JDK 11+, JEP 331), so only real
 * heap allocations are seen and escape analysis keeps working. Each sample is
 * resolved to text inside the callback, on the allocating thread, while every
 * class on its stack is alive (jmethodIDs are never kept: looking them up
 * later crashed JDKs before JDK-8268364), and appended as one complete line
 * of the original's stacks.txt format to a buffer that the agent thread
 * writes out. Return codes, words and file names: agent/protocol.h.
 *
 * Locking: "lock" guards the state and the sample buffer, "io" the output
 * file. The garbage-collection callback runs in the VM thread during a
 * safepoint and takes no lock at all: a Java thread can hold a raw monitor
 * while it is stopped for that safepoint.
 */
#include <jvmti.h>
#include "agent/sys.h"
#include "agent/protocol.h"
#include "agent/config.h"

#define EXPORT __attribute__((visibility("default")))

enum state { IDLE, STARTING, RUNNING, STOPPING };
enum {
  BUF_CAP = 256 * 1024,   /* each of the two output buffers */
  LINE_CAP = 16 * 1024,   /* one sample line, on the allocating thread's stack */
  LIFE_CAP = 65536,       /* sampled objects waiting for their first GC */
  STACK_FRAMES = 128,
  STOP_BOUND_MS = 5000    /* below agent-install's 10 s attach timeout */
};


/* A sampled object waiting for the next GC (lifetime recorder). */
struct life {
  jweak ref;              /* the object, without keeping it alive */
  uint64_t seq;
  char *line;
  int len;
  int gen;                /* GCs finished before it was sampled */
};

/* Per-thread countdown of the allocationCount strategy (thread-local
 * storage of the JVMTI environment: the agent may not use TLS itself). */
struct per_thread {
  int64_t left;
};

static struct {
  JavaVM *vm;
  jvmtiEnv *jvmti;
  jrawMonitorID lock, io;
  volatile int state;
  int threads;                     /* agent threads alive, of any run */
  unsigned run;                    /* this start's number: a thread of an
                                      earlier run never serves a later one */
  int onload, have_caps;
  struct config cfg;
  int fd;
  char *buf, *spare;
  size_t len;
  volatile int armed;              /* time strategy: take the next sample */
  volatile int inflight;           /* callbacks between entry and exit */
  volatile int gc_count;           /* GC pauses finished since start */
  int gc_done;
  uint64_t samples, dropped, write_errors, rng;
  struct life *life;
  uint64_t life_seq;
  jvmtiCapabilities caps;
} g = { .fd = -1 };

/* The compiler may emit calls to these even in a freestanding build. */
__attribute__((visibility("hidden"))) void *memset(void *d, int c, size_t n)
{
  unsigned char *p = d;

  while (n--) *p++ = (unsigned char)c;
  return d;
}

__attribute__((visibility("hidden")))
void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;

  while (n--) *p++ = *q++;
  return d;
}

__attribute__((visibility("hidden")))
void *memmove(void *d, const void *s, size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;

  if (p < q) return memcpy(d, s, n);
  while (n--) p[n] = q[n];
  return d;
}

__attribute__((visibility("hidden")))
int memcmp(const void *a, const void *b, size_t n)
{
  const unsigned char *p = a, *q = b;

  for (; n; n--, p++, q++)
    if (*p != *q) return *p - *q;
  return 0;
}

/* Text building: a bounded string that silently stops at its capacity. */
struct text {
  char *p;
  size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
  if (n > t->cap - t->len) n = t->cap - t->len;
  memcpy(t->p + t->len, s, n);
  t->len += n;
}

static void puts_(struct text *t, const char *s)
{
  put(t, s, str_len(s));
}

static size_t fmt_i64(char *out, int64_t v)
{
  char tmp[24];
  size_t n = 0, i;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

  do tmp[n++] = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) tmp[n++] = '-';
  for (i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

static void put_num(struct text *t, int64_t v)
{
  char tmp[24];

  put(t, tmp, fmt_i64(tmp, v));
}

/* Two digits, zero-padded (for the start time). */
static void put_2(struct text *t, int v)
{
  char d[2] = { (char)('0' + v / 10 % 10), (char)('0' + v % 10) };

  put(t, d, 2);
}

/* Wall-clock milliseconds as 2026-01-02T03:04:05Z (days-to-civil conversion
 * of the proleptic Gregorian calendar). */
static void put_time(struct text *t, int64_t ms)
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
static void say(const char *a, const char *b, const char *c)
{
  char line[1024];
  struct text t = { line, 0, sizeof(line) - 1 };

  puts_(&t, "jvmtool agent: ");
  puts_(&t, a);
  if (b) puts_(&t, b);
  if (c) puts_(&t, c);
  line[t.len++] = '\n';
  sys_write(2, line, t.len);
}

static void say_err(const char *what, jvmtiError err)
{
  char num[24];

  num[fmt_i64(num, err)] = 0;
  say(what, ": JVMTI error ", num);
}

/* xorshift64*: jitter only, so quality and thread races do not matter. */
static uint64_t rnd(void)
{
  uint64_t x = g.rng ? g.rng : 0x9e3779b97f4a7c15ull;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  g.rng = x;
  return x * 0x2545f4914f6cdd1dull;
}

/* n jittered uniformly within n/2..3n/2, as the original's strategies. */
static int64_t jitter(int64_t n)
{
  if (n < 2) return n;
  return n / 2 + (int64_t)(rnd() % (uint64_t)(n + 1));
}

/* ---- options ---------------------------------------------------------- */

static void warn_option(const char *msg, void *arg)
{
  say(msg, 0, 0);
}

/* Apply s[0..n) (sep-separated pairs); a bad one is said on stderr. */
static int apply(struct config *c, const char *s, size_t n, char sep,
                 int from_file)
{
  char err[400];
  int rc = config_apply(c, s, n, sep, from_file, err, sizeof(err),
                        warn_option, 0);

  if (rc) say(err, 0, 0);
  return rc;
}

/* Read a properties file (at most 64 KiB) and apply its lines. */
static int apply_file(struct config *c, const char *path)
{
  char *data;
  long fd, n, got = 0, cap = 65536;
  int rc;

  fd = sys_open(path, K_O_RDONLY | K_O_CLOEXEC | K_O_NONBLOCK, 0);
  if (fd < 0) {
    say("cannot read properties file '", path, "'");
    return AGENT_OPTIONS;
  }
  if ((*g.jvmti)->Allocate(g.jvmti, cap, (unsigned char **)&data)) {
    sys_close((int)fd);
    return AGENT_JVMTI;
  }
  while (got < cap && ((n = sys_read((int)fd, data + got, cap - got)) > 0 ||
                       n == -K_EINTR))
    if (n > 0) got += n;
  sys_close((int)fd);
  rc = apply(c, data, (size_t)got, '\n', 1);
  (*g.jvmti)->Deallocate(g.jvmti, (unsigned char *)data);
  return rc;
}

/* Options: NULL/empty (defaults), "a=b,c=d", or a properties file path. */
static int parse_options(struct config *c, const char *opts)
{
  size_t i, n;
  int pairs = 0;

  config_defaults(c);
  if (!opts || !*opts) return 0;
  n = str_len(opts);
  for (i = 0; i < n; i++) pairs |= opts[i] == '=';
  if (!pairs) return apply_file(c, opts);
  return apply(c, opts, n, ',', 0);
}

/* ---- output ----------------------------------------------------------- */

static void lock(jrawMonitorID m)
{
  (*g.jvmti)->RawMonitorEnter(g.jvmti, m);
}

static void unlock(jrawMonitorID m)
{
  (*g.jvmti)->RawMonitorExit(g.jvmti, m);
}

static void write_all(const char *p, size_t n)
{
  long w;

  while (n && g.fd >= 0) {
    w = sys_write(g.fd, p, n);
    if (w == -K_EINTR || w == -K_EAGAIN) continue;
    if (w <= 0) {
      g.write_errors++;
      return;
    }
    p += w;
    n -= (size_t)w;
  }
}

/* Write the buffered lines out. Order io, then lock: the buffers are swapped
 * under lock, written under io alone, so callbacks only wait for a swap. */
static void flush(void)
{
  char *full;
  size_t n;

  lock(g.io);
  lock(g.lock);
  full = g.buf;
  n = g.len;
  g.buf = g.spare;
  g.spare = full;
  g.len = 0;
  unlock(g.lock);
  write_all(full, n);
  unlock(g.io);
}

/* Append whole lines; flush first when they do not fit. accept: the state
 * in which lines are still taken. */
static int append(const char *s, size_t n, int sample)
{
  int tries;

  for (tries = 0; tries < 4; tries++) {
    lock(g.lock);
    if (g.state != RUNNING || g.fd < 0) {
      unlock(g.lock);
      return -1;
    }
    if (n <= BUF_CAP - g.len) {
      memcpy(g.buf + g.len, s, n);
      g.len += n;
      g.samples += sample;   /* under the lock: the end line's count */
      if (g.len > BUF_CAP / 2) (*g.jvmti)->RawMonitorNotifyAll(g.jvmti, g.lock);
      unlock(g.lock);
      return 0;
    }
    unlock(g.lock);
    flush();
  }
  return -1;
}

static void write_header(void)
{
  char line[512];
  struct text t = { line, 0, sizeof(line) - 1 };
  const struct config *c = &g.cfg;

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
  write_all(line, t.len);
}

/* The last line: says the output is complete. */
static void write_trailer(void)
{
  char line[160];
  struct text t = { line, 0, sizeof(line) - 1 };

  puts_(&t, "# end samples=");
  put_num(&t, (int64_t)g.samples);
  puts_(&t, " dropped=");
  put_num(&t, (int64_t)g.dropped);
  puts_(&t, " stop=");
  put_time(&t, clock_ms(K_CLOCK_REALTIME));
  line[t.len++] = '\n';
  write_all(line, t.len);
}

/* Flush, end and close the output (idempotent). */
static void close_output(void)
{
  flush();
  lock(g.io);
  if (g.fd >= 0) {
    write_trailer();
    sys_close(g.fd);
    g.fd = -1;
  }
  unlock(g.io);
}

/* ---- one sample --------------------------------------------------------- */

/* The allocated type as the original wrote it: internal name of a class
 * ("java/lang/String"), the element type of a one-dimensional array
 * ("char", "java/lang/String"), a multi-dimensional primitive array as its
 * descriptor ("[[I"), the element class of other arrays. */
static void put_type(struct text *t, const char *sig)
{
  static const char *const prim[] = {
    "Bbyte", "Cchar", "Ddouble", "Ffloat", "Iint", "Jlong", "Sshort",
    "Zboolean"
  };
  size_t dims = 0, n = str_len(sig), i;

  while (sig[dims] == '[') dims++;
  if (sig[dims] == 'L' && n > dims + 1 && sig[n - 1] == ';') {
    put(t, sig + dims + 1, n - dims - 2);
    return;
  }
  if (dims == 1 && n == 2)
    for (i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
      if (prim[i][0] == sig[1]) {
        puts_(t, prim[i] + 1);
        return;
      }
  puts_(t, sig);
}

/* "Ljava/lang/Thread;" -> "java.lang.Thread"; a hidden class's
 * "LFoo$$Lambda$1.0x0800;" -> "Foo$$Lambda$1/0x0800", as Class.getName and
 * StackTraceElement spell it. */
static void put_class(struct text *t, const char *sig)
{
  size_t n = str_len(sig), i;

  if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') {
    sig++;
    n -= 2;
  }
  for (i = 0; i < n; i++)
    put(t, sig[i] == '/' ? "." : sig[i] == '.' ? "/" : sig + i, 1);
}

/* StackTraceElement's line: -2 native, -1 unknown. */
static int line_of(jvmtiEnv *j, jmethodID m, jlocation at)
{
  jvmtiLineNumberEntry *tab = 0;
  jint n = 0, i, line = -1;
  jlocation best = -1;

  if (at < 0) return -2;
  if ((*j)->GetLineNumberTable(j, m, &n, &tab) != JVMTI_ERROR_NONE) return -1;
  for (i = 0; i < n; i++)
    if (tab[i].start_location <= at && tab[i].start_location >= best) {
      best = tab[i].start_location;
      line = tab[i].line_number;
    }
  (*j)->Deallocate(j, (unsigned char *)tab);
  return line;
}

static void put_frame(jvmtiEnv *j, JNIEnv *jni, struct text *t,
                      const jvmtiFrameInfo *f)
{
  char *name = 0, *sig = 0;
  jclass cls = 0;

  if (g.cfg.verbosity != V_METHOD &&
      (*j)->GetMethodDeclaringClass(j, f->method, &cls) == JVMTI_ERROR_NONE) {
    if ((*j)->GetClassSignature(j, cls, &sig, 0) == JVMTI_ERROR_NONE) {
      put_class(t, sig);
      (*j)->Deallocate(j, (unsigned char *)sig);
    }
    (*jni)->DeleteLocalRef(jni, cls);
    puts_(t, ".");
  }
  if ((*j)->GetMethodName(j, f->method, &name, 0, 0) == JVMTI_ERROR_NONE) {
    puts_(t, name);
    (*j)->Deallocate(j, (unsigned char *)name);
  } else {
    puts_(t, "unknown");
  }
  if (g.cfg.verbosity == V_LINE) {
    puts_(t, ":");
    put_num(t, line_of(j, f->method, f->location));
  }
}

/* Keep a lifetime sample until the next GC section: copy its line, hold
 * the object by a JNI weak reference. (Tags and GetObjectsWithTags were
 * used before: JDK 17 matches every tag map entry against every asked tag
 * under the tag map lock, seconds for tens of thousands of samples, while
 * allocating threads waited in SetTag: the cause of stops that ran out
 * their 10 s bound.) */
static void keep_for_gc(jvmtiEnv *j, JNIEnv *jni, jobject obj,
                        const char *line, size_t n)
{
  char *copy;
  uint64_t seq;
  struct life *e;
  jweak ref = (*jni)->NewWeakGlobalRef(jni, obj);

  if (!ref) return;
  if ((*j)->Allocate(j, (jlong)n, (unsigned char **)&copy)) {
    (*jni)->DeleteWeakGlobalRef(jni, ref);
    return;
  }
  memcpy(copy, line, n);
  lock(g.lock);
  seq = g.life_seq++;
  e = &g.life[seq % LIFE_CAP];
  if (g.state != RUNNING || e->line) {
    g.dropped += g.state == RUNNING;
    unlock(g.lock);
    (*j)->Deallocate(j, (unsigned char *)copy);
    (*jni)->DeleteWeakGlobalRef(jni, ref);
    return;
  }
  e->ref = ref;
  e->seq = seq;
  e->line = copy;
  e->len = (int)n;
  e->gen = __atomic_load_n(&g.gc_count, __ATOMIC_ACQUIRE);
  g.samples++;
  unlock(g.lock);
}

/* 1 - e^(-x) for x >= 0, relative error below 1e-14, without libm: a
 * Taylor series where it cancels (x < 0.5; terms to x^19/19!, < 1e-22),
 * else e^(-x) = 2^(-k) e^(-r) with r = x - k ln 2 in [-0.35, 0.35]
 * (series to r^17/17!, < 1e-21). */
static double one_minus_exp_neg(double x)
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
  x -= k * ln2;              /* now e^(-x_original) = 2^-k e^(-x) */
  for (e = 1, i = 1; i < 18; i++) {
    term *= -x / i;
    e += term;
  }
  while (k-- > 0) e *= 0.5;
  return 1 - e;
}

/* The number a sample line carries (the header's "values="). strategy
 * bytes: HotSpot samples an object of s bytes with probability
 * 1 - e^(-s/I) (exponentially spaced sample points, mean I), so it stands
 * for s / (1 - e^(-s/I)) bytes: that sum estimates the bytes allocated at
 * each stack without bias, for small and large objects alike. */
static int64_t value_of(jlong size)
{
  const struct config *c = &g.cfg;
  double q;

  if (!c->record_size) return 1;
  if (c->strategy != BY_BYTES || c->weight != W_ESTIMATE ||
      c->interval_bytes <= 0 || size <= 0)
    return size;
  q = one_minus_exp_neg((double)size / (double)c->interval_bytes);
  return (int64_t)((double)size / q + 0.5);
}

static void sample(jvmtiEnv *j, JNIEnv *jni, jobject obj, jclass klass,
                   jlong size)
{
  char line[LINE_CAP], piece[1024], *sig = 0;
  jvmtiFrameInfo small[STACK_FRAMES], *frames = small;
  struct text t = { piece, 0, sizeof(piece) - 1 };
  size_t at = LINE_CAP;
  jint n = 0, i;

  if ((*j)->GetClassSignature(j, klass, &sig, 0) != JVMTI_ERROR_NONE) return;
  put_type(&t, sig);
  (*j)->Deallocate(j, (unsigned char *)sig);
  puts_(&t, " ");
  put_num(&t, value_of(size));
  puts_(&t, "\n");
  at -= t.len;
  memcpy(line + at, piece, t.len);
  if (g.cfg.depth > STACK_FRAMES &&
      (*j)->Allocate(j, (jlong)sizeof(*frames) * g.cfg.depth,
                     (unsigned char **)&frames))
    return;
  if ((*j)->GetStackTrace(j, 0, 0, (jint)g.cfg.depth, frames, &n)) n = 0;
  /* Leaf first, each frame put in front: root first in the line; a stack
   * too long for the line loses its outermost frames, like max.stack.depth. */
  for (i = 0; i < n; i++) {
    t.len = 0;
    put_frame(j, jni, &t, &frames[i]);
    if (t.len + 1 > at) break;
    line[--at] = ';';
    at -= t.len;
    memcpy(line + at, piece, t.len);
  }
  if (frames != small) (*j)->Deallocate(j, (unsigned char *)frames);
  if (g.cfg.lifetime) {
    keep_for_gc(j, jni, obj, line + at, LINE_CAP - at);
  } else {
    append(line + at, LINE_CAP - at, 1);
  }
}

/* allocationCount: every rate-th allocation of this thread, jittered. */
static int count_due(jvmtiEnv *j)
{
  struct per_thread *pt = 0;

  if ((*j)->GetThreadLocalStorage(j, 0, (void **)&pt)) return 0;
  if (!pt) {
    if ((*j)->Allocate(j, sizeof(*pt), (unsigned char **)&pt)) return 0;
    pt->left = jitter(g.cfg.rate);
    (*j)->SetThreadLocalStorage(j, 0, pt);
  }
  if (--pt->left > 0) return 0;
  pt->left = jitter(g.cfg.rate);
  return 1;
}

static void JNICALL on_alloc(jvmtiEnv *j, JNIEnv *jni, jthread thread,
                             jobject obj, jclass klass, jlong size)
{
  if (g.state != RUNNING) return;
  if (g.cfg.strategy == BY_TIME) {
    if (!g.armed || !__atomic_exchange_n(&g.armed, 0, __ATOMIC_SEQ_CST))
      return;
  } else if (g.cfg.strategy == BY_COUNT && !count_due(j)) {
    return;
  }
  __atomic_add_fetch(&g.inflight, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&g.state, __ATOMIC_SEQ_CST) == RUNNING)
    sample(j, jni, obj, klass, size);
  __atomic_sub_fetch(&g.inflight, 1, __ATOMIC_SEQ_CST);
}

static void JNICALL on_thread_end(jvmtiEnv *j, JNIEnv *jni, jthread thread)
{
  void *pt = 0;

  if (!(*j)->GetThreadLocalStorage(j, thread, &pt) && pt) {
    (*j)->SetThreadLocalStorage(j, thread, 0);
    (*j)->Deallocate(j, pt);
  }
}

/* In the VM thread at the end of a GC pause: count it, nothing else. */
static void JNICALL on_gc_finish(jvmtiEnv *j)
{
  __atomic_add_fetch(&g.gc_count, 1, __ATOMIC_SEQ_CST);
}

/* ---- lifetime sections ---------------------------------------------------- */

/* "#GC <x>" and the samples taken before GC x+1 that are still alive (their
 * weak reference not cleared): they leave the table either way, so each
 * object is reported at most once, in the first section after it was
 * sampled (the original's LifetimePrinter). */
static void gc_section(JNIEnv *jni, int x, jweak *refs, char **lines,
                       int *lens)
{
  char head[40];
  struct text t = { head, 0, sizeof(head) };
  uint64_t seq, first;
  struct life *e;
  jint n = 0, i;

  lock(g.lock);
  first = g.life_seq > LIFE_CAP ? g.life_seq - LIFE_CAP : 0;
  for (seq = first; seq < g.life_seq; seq++) {
    e = &g.life[seq % LIFE_CAP];
    if (e->line && e->seq == seq && e->gen <= x) {
      refs[n] = e->ref;
      lines[n] = e->line;
      lens[n++] = e->len;
      e->line = 0;
      e->ref = 0;
    }
  }
  unlock(g.lock);
  puts_(&t, "#GC ");
  put_num(&t, x);
  puts_(&t, "\n");
  append(head, t.len, 0);
  for (i = 0; i < n; i++) {
    if (!(*jni)->IsSameObject(jni, refs[i], 0)) append(lines[i], lens[i], 0);
    (*jni)->DeleteWeakGlobalRef(jni, refs[i]);
    (*g.jvmti)->Deallocate(g.jvmti, (unsigned char *)lines[i]);
  }
}

/* Forget every waiting lifetime sample (at stop). */
static void life_clear(void)
{
  JNIEnv *jni = 0;
  jweak ref;
  char *line;
  int i;

  if (!g.life) return;
  /* Called on a Java thread (attach listener, VMInit): it has a JNIEnv. */
  if ((*g.vm)->GetEnv(g.vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
    jni = 0;
  for (i = 0; i < LIFE_CAP; i++) {
    lock(g.lock);
    line = g.life[i].line;
    ref = g.life[i].ref;
    g.life[i].line = 0;
    g.life[i].ref = 0;
    unlock(g.lock);
    if (line) (*g.jvmti)->Deallocate(g.jvmti, (unsigned char *)line);
    if (ref && jni) (*jni)->DeleteWeakGlobalRef(jni, ref);
  }
}

/* ---- start and stop ------------------------------------------------------- */

static jvmtiError set_events(jvmtiEventMode mode)
{
  jvmtiEnv *j = g.jvmti;
  jvmtiError err;

  err = (*j)->SetEventNotificationMode(j, mode,
                                       JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, 0);
  if (g.cfg.lifetime && !err)
    err = (*j)->SetEventNotificationMode(
      j, mode, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, 0);
  if (g.cfg.strategy == BY_COUNT && !err)
    err = (*j)->SetEventNotificationMode(j, mode, JVMTI_EVENT_THREAD_END, 0);
  return err;
}

static int go_running(void)
{
  jvmtiError err = set_events(JVMTI_ENABLE);

  if (err) {
    set_events(JVMTI_DISABLE);
    say_err("cannot enable allocation sampling", err);
    return AGENT_JVMTI;
  }
  lock(g.lock);
  if (g.state == STARTING) g.state = RUNNING;
  unlock(g.lock);
  return 0;
}

/* The agent thread: waits out sample.delay.secs, arms the time strategy,
 * writes GC sections and the buffered lines. */
static void JNICALL agent_main(jvmtiEnv *j, JNIEnv *jni, void *arg)
{
  unsigned run = (unsigned)(uintptr_t)arg;
  jweak *refs = 0;
  char **lines = 0;
  int *lens = 0, st;
  int64_t now = clock_ms(K_CLOCK_MONOTONIC), wait, last_flush = now;
  int64_t begin = now + g.cfg.delay_secs * 1000, next_arm = now;

  if (g.cfg.lifetime &&
      ((*j)->Allocate(j, sizeof(*refs) * LIFE_CAP, (unsigned char **)&refs) ||
       (*j)->Allocate(j, sizeof(*lines) * LIFE_CAP, (unsigned char **)&lines) ||
       (*j)->Allocate(j, sizeof(*lens) * LIFE_CAP, (unsigned char **)&lens)))
    say("out of memory for the lifetime recorder", 0, 0);
  lock(g.lock);
  while (g.state == STARTING && g.run == run &&
         (now = clock_ms(K_CLOCK_MONOTONIC)) < begin)
    (*j)->RawMonitorWait(j, g.lock, begin - now < 1000 ? begin - now : 1000);
  st = g.run == run ? g.state : STOPPING;
  unlock(g.lock);
  if (st == STARTING) go_running();
  for (;;) {
    now = clock_ms(K_CLOCK_MONOTONIC);
    if (g.cfg.strategy == BY_TIME && now >= next_arm) {
      g.armed = 1;
      next_arm = now + jitter(g.cfg.interval_ms);
    }
    /* Stops between sections: a backlog must not hold up stop(). */
    if (g.cfg.lifetime && lines)
      while (g.gc_done < __atomic_load_n(&g.gc_count, __ATOMIC_SEQ_CST) &&
             __atomic_load_n(&g.state, __ATOMIC_SEQ_CST) == RUNNING &&
             __atomic_load_n(&g.run, __ATOMIC_SEQ_CST) == run)
        gc_section(jni, g.gc_done++, refs, lines, lens);
    if (now - last_flush >= 200 || g.len > BUF_CAP / 2) {
      flush();
      last_flush = now;
    }
    wait = g.cfg.lifetime ? 50 : 200;
    if (g.cfg.strategy == BY_TIME && next_arm - now < wait)
      wait = next_arm - now > 0 ? next_arm - now : 1;
    lock(g.lock);
    if (g.state == RUNNING && g.run == run && g.len <= BUF_CAP / 2)
      (*j)->RawMonitorWait(j, g.lock, wait);
    st = g.run == run ? g.state : STOPPING;
    unlock(g.lock);
    if (st != RUNNING) break;
  }
  flush();
  if (refs) (*j)->Deallocate(j, (unsigned char *)refs);
  if (lines) (*j)->Deallocate(j, (unsigned char *)lines);
  if (lens) (*j)->Deallocate(j, (unsigned char *)lens);
  lock(g.lock);
  g.threads--;
  (*j)->RawMonitorNotifyAll(j, g.lock);
  unlock(g.lock);
}

static int start_thread(JNIEnv *jni)
{
  jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
  jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>",
                                              "(Ljava/lang/String;)V") : 0;
  jstring name = init ? (*jni)->NewStringUTF(jni, "jvmtool-alloc-sampler") : 0;
  jobject thr = name ? (*jni)->NewObject(jni, cls, init, name) : 0;
  jvmtiError err = JVMTI_ERROR_OUT_OF_MEMORY;

  if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
  if (thr) {
    lock(g.lock);
    g.threads++;
    unlock(g.lock);
    err = (*g.jvmti)->RunAgentThread(g.jvmti, thr, agent_main,
                                     (void *)(uintptr_t)g.run,
                                     JVMTI_THREAD_MIN_PRIORITY);
    lock(g.lock);
    g.threads -= err != 0;
    unlock(g.lock);
  }
  if (thr) (*jni)->DeleteLocalRef(jni, thr);
  if (name) (*jni)->DeleteLocalRef(jni, name);
  if (cls) (*jni)->DeleteLocalRef(jni, cls);
  if (err) say_err("cannot start the agent thread", err);
  return err ? AGENT_JVMTI : 0;
}

/* Stop sampling: no event, callback or thread of ours is left, the output
 * is complete, the solo capability is given back. */
static int stop(void)
{
  jvmtiCapabilities rel;
  int64_t end;
  int busy;

  lock(g.lock);
  if (g.state == IDLE) {
    unlock(g.lock);
    return AGENT_IDLE;
  }
  g.state = STOPPING;
  (*g.jvmti)->RawMonitorNotifyAll(g.jvmti, g.lock);
  unlock(g.lock);
  set_events(JVMTI_DISABLE);
  /* Callbacks already past their state check, and the agent thread, finish
   * within milliseconds; the bound is for a stopped-the-world JVM, and by
   * the clock (a wait may end early or late), so that the answer reaches
   * agent-install within its timeout whatever happens. */
  end = clock_ms(K_CLOCK_MONOTONIC) + STOP_BOUND_MS;
  lock(g.lock);
  while ((busy = g.threads ? 1
                 : __atomic_load_n(&g.inflight, __ATOMIC_SEQ_CST) ? 2 : 0) &&
         clock_ms(K_CLOCK_MONOTONIC) < end)
    (*g.jvmti)->RawMonitorWait(g.jvmti, g.lock, 10);
  unlock(g.lock);
  if (busy)
    say(busy == 1 ? "stop: the agent thread did not end in 5 s"
                  : "stop: a sampling callback did not end in 5 s", 0, 0);
  close_output();
  life_clear();
  /* The interval is VM-global: leave HotSpot's default to whoever is next. */
  (*g.jvmti)->SetHeapSamplingInterval(g.jvmti, 512 * 1024);
  memset(&rel, 0, sizeof(rel));
  rel.can_generate_sampled_object_alloc_events =
    g.caps.can_generate_sampled_object_alloc_events;
  rel.can_generate_garbage_collection_events =
    g.caps.can_generate_garbage_collection_events;
  (*g.jvmti)->RelinquishCapabilities(g.jvmti, &rel);
  memset(&g.caps, 0, sizeof(g.caps));
  lock(g.lock);
  g.state = IDLE;
  unlock(g.lock);
  return AGENT_OK;
}

static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *jni)
{
  int was;

  lock(g.lock);
  was = g.state;
  g.state = STOPPING;
  (*j)->RawMonitorNotifyAll(j, g.lock);
  unlock(g.lock);
  if (was != IDLE) close_output();
}

/* Start-up only: the VM can run Java now; sampling starts here. */
static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *jni, jthread thread)
{
  if (g.state != STARTING) return;
  if ((g.cfg.delay_secs == 0 && go_running()) || start_thread(jni)) stop();
}

static int get_buffers(void)
{
  jvmtiEnv *j = g.jvmti;

  if (!g.buf && ((*j)->Allocate(j, BUF_CAP, (unsigned char **)&g.buf) ||
                 (*j)->Allocate(j, BUF_CAP, (unsigned char **)&g.spare)))
    return -1;
  if (g.cfg.lifetime && !g.life) {
    if ((*j)->Allocate(j, sizeof(*g.life) * LIFE_CAP,
                       (unsigned char **)&g.life))
      return -1;
    memset(g.life, 0, sizeof(*g.life) * LIFE_CAP);
  }
  return 0;
}

/* Create the samples file: a new inode, never through a link, never into a
 * FIFO (O_NONBLOCK: the attach thread must not wait for a reader), never a
 * truncated existing file. A name that is taken (a run before, a planted
 * link or FIFO) is removed and created afresh, once. */
static long open_output(const char *path)
{
  int flags = K_O_WRONLY | K_O_CREAT | K_O_EXCL | K_O_NOFOLLOW |
              K_O_NONBLOCK | K_O_CLOEXEC;
  long fd = sys_open(path, flags, 0644);

  if (fd == -K_EEXIST && sys_unlink(path) == 0) fd = sys_open(path, flags, 0644);
  return fd;
}

static int start(JNIEnv *jni, int live)
{
  jvmtiEnv *j = g.jvmti;
  jvmtiEventCallbacks cb;
  jvmtiCapabilities want;
  jvmtiError err;
  long fd;
  int rc;

  if (get_buffers()) {
    say("out of memory", 0, 0);
    return AGENT_JVMTI;
  }
  memset(&want, 0, sizeof(want));
  want.can_generate_sampled_object_alloc_events = 1;
  want.can_get_line_numbers = 1;
  if (g.cfg.lifetime) {
    want.can_generate_garbage_collection_events = 1;
  }
  err = (*j)->AddCapabilities(j, &want);
  if (err == JVMTI_ERROR_NOT_AVAILABLE) {
    say("another agent owns allocation sampling (JVMTI error 98: "
        "can_generate_sampled_object_alloc_events is taken)", 0, 0);
    return AGENT_TAKEN;
  }
  if (err) {
    say_err("cannot get the JVMTI capabilities", err);
    return AGENT_JVMTI;
  }
  g.caps = want;
  fd = open_output(g.cfg.output);
  if (fd < 0) {
    say("cannot write output file '", g.cfg.output, "'");
    rc = AGENT_OUTPUT;
    goto undo;
  }
  memset(&cb, 0, sizeof(cb));
  cb.SampledObjectAlloc = on_alloc;
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadEnd = on_thread_end;
  cb.GarbageCollectionFinish = on_gc_finish;
  err = (*j)->SetEventCallbacks(j, &cb, sizeof(cb));
  if (!err)
    err = (*j)->SetHeapSamplingInterval(
      j, g.cfg.strategy == BY_BYTES ? (jint)g.cfg.interval_bytes : 0);
  if (!err)
    err = (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, 0);
  if (!err && !live)
    err = (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, 0);
  if (err) {
    say_err("cannot set up allocation sampling", err);
    sys_close((int)fd);
    rc = AGENT_JVMTI;
    goto undo;
  }
  g.fd = (int)fd;
  g.len = 0;
  g.samples = g.dropped = g.write_errors = 0;
  g.gc_count = g.gc_done = 0;
  g.armed = 0;
  g.rng = (uint64_t)clock_ms(K_CLOCK_MONOTONIC) * 0x9e3779b97f4a7c15ull + 1;
  __atomic_add_fetch(&g.run, 1, __ATOMIC_SEQ_CST);
  write_header();
  g.state = STARTING;
  if (!live) return 0;
  rc = g.cfg.delay_secs == 0 ? go_running() : 0;
  if (!rc) rc = start_thread(jni);
  if (!rc) return 0;
  stop();
  return rc;
undo:
  (*j)->RelinquishCapabilities(j, &want);
  memset(&g.caps, 0, sizeof(g.caps));
  return rc;
}

/* ---- entry points ---------------------------------------------------------- */

/* A JVMTI environment of at least JDK 11 (JEP 331), with our monitors. */
static int get_env(JavaVM *vm)
{
  jvmtiEnv *j = 0;
  jint version = 0;
  char *jv = 0;

  if ((*vm)->GetEnv(vm, (void **)&j, JVMTI_VERSION_1_2) != JNI_OK || !j) {
    say("this JVM offers no JVMTI environment", 0, 0);
    return AGENT_JVMTI;
  }
  (*j)->GetVersionNumber(j, &version);
  if (((version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR) < 11) {
    if ((*j)->GetSystemProperty(j, "java.version", &jv) &&
        (*j)->GetSystemProperty(j, "java.vm.version", &jv))
      jv = 0;
    say("JVM ", jv ? jv : "(unknown version)",
        " has no allocation sampling (JVMTI SampledObjectAlloc, JEP 331): "
        "JDK 11 or later is needed");
    if (jv) (*j)->Deallocate(j, (unsigned char *)jv);
    (*j)->DisposeEnvironment(j);
    return AGENT_OLD;
  }
  if ((*j)->CreateRawMonitor(j, "jvmtool agent", &g.lock) ||
      (*j)->CreateRawMonitor(j, "jvmtool agent io", &g.io)) {
    (*j)->DisposeEnvironment(j);
    return AGENT_JVMTI;
  }
  g.jvmti = j;
  return 0;
}

static int entry(JavaVM *vm, char *options, int live)
{
  struct config c;
  JNIEnv *jni = 0;
  int fresh = !g.jvmti, rc;

  if (fresh && (rc = get_env(vm)) != 0) return rc;
  g.vm = vm;
  if (live) (*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6);
  if (options && str_eq(options, str_len(options), AGENT_WORD_STOP)) {
    rc = stop();
  } else if (options && str_eq(options, str_len(options), AGENT_WORD_STATUS)) {
    rc = g.state == RUNNING || g.state == STARTING ? AGENT_OK : AGENT_IDLE;
  } else if ((rc = parse_options(&c, options)) == 0) {
    stop();                      /* loaded again: restart with new options */
    g.cfg = c;
    rc = start(jni, live);
  }
  if (rc && fresh) {
    /* Nothing of ours may stay behind in a JVM that unmaps us now. */
    (*g.jvmti)->DisposeEnvironment(g.jvmti);
    g.jvmti = 0;
  }
  return rc;
}

EXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
  return entry(vm, options, 0);
}

EXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
  return entry(vm, options, 1);
}
