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
 * This file: the options, the JVMTI callbacks (when to sample, GC
 * counting), the agent thread, start and stop, the entry points. Below it:
 * sample.c (one sample as a line), life.c (the lifetime recorder) and rt.c
 * (runtime helpers, the samples file); the state this file holds and
 * passes to them, and its locking: agent/agent.h.
 */
#include <jvmti.h>
#include "agent/agent.h"
#include "agent/config.h"
#include "agent/life.h"
#include "agent/protocol.h"
#include "agent/rt.h"
#include "agent/sample.h"
#include "agent/sys.h"

#define EXPORT __attribute__((visibility("default")))

/* Per-thread countdown of the allocationCount strategy (thread-local
 * storage of the JVMTI environment: the agent may not use TLS itself). */
struct per_thread {
  int64_t left;
};

static struct agent g = {.fd = -1};

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
  int rc =
      config_apply(c, s, n, sep, from_file, err, sizeof(err), warn_option, 0);

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
  while (got < cap &&
         ((n = sys_read((int)fd, data + got, cap - got)) > 0 || n == -K_EINTR))
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

/* allocationCount: every rate-th allocation of this thread, jittered. */
static int count_due(jvmtiEnv *j)
{
  struct per_thread *pt = 0;

  if ((*j)->GetThreadLocalStorage(j, 0, (void **)&pt)) return 0;
  if (!pt) {
    if ((*j)->Allocate(j, sizeof(*pt), (unsigned char **)&pt)) return 0;
    pt->left = jitter(&g, g.cfg.rate);
    (*j)->SetThreadLocalStorage(j, 0, pt);
  }
  if (--pt->left > 0) return 0;
  pt->left = jitter(&g, g.cfg.rate);
  return 1;
}

static void JNICALL on_alloc(jvmtiEnv *j, JNIEnv *jni, jthread thread,
                             jobject obj, jclass klass, jlong size)
{
  if (g.state != RUNNING) return;
  if (g.cfg.strategy == BY_TIME) {
    if (!g.armed || !__atomic_exchange_n(&g.armed, 0, __ATOMIC_SEQ_CST)) return;
  } else if (g.cfg.strategy == BY_COUNT && !count_due(j)) {
    return;
  }
  __atomic_add_fetch(&g.inflight, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&g.state, __ATOMIC_SEQ_CST) == RUNNING)
    sample(&g, j, jni, obj, klass, size);
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
  lock(&g, g.lock);
  if (g.state == STARTING) g.state = RUNNING;
  unlock(&g, g.lock);
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
  lock(&g, g.lock);
  while (g.state == STARTING && g.run == run &&
         (now = clock_ms(K_CLOCK_MONOTONIC)) < begin)
    (*j)->RawMonitorWait(j, g.lock, begin - now < 1000 ? begin - now : 1000);
  st = g.run == run ? g.state : STOPPING;
  unlock(&g, g.lock);
  if (st == STARTING) go_running();
  for (;;) {
    now = clock_ms(K_CLOCK_MONOTONIC);
    if (g.cfg.strategy == BY_TIME && now >= next_arm) {
      g.armed = 1;
      next_arm = now + jitter(&g, g.cfg.interval_ms);
    }
    /* Stops between sections: a backlog must not hold up stop(). */
    if (g.cfg.lifetime && lines)
      while (g.gc_done < __atomic_load_n(&g.gc_count, __ATOMIC_SEQ_CST) &&
             __atomic_load_n(&g.state, __ATOMIC_SEQ_CST) == RUNNING &&
             __atomic_load_n(&g.run, __ATOMIC_SEQ_CST) == run)
        life_section(&g, jni, g.gc_done++, refs, lines, lens);
    if (now - last_flush >= 200 || g.len > BUF_CAP / 2) {
      out_flush(&g);
      last_flush = now;
    }
    wait = g.cfg.lifetime ? 50 : 200;
    if (g.cfg.strategy == BY_TIME && next_arm - now < wait)
      wait = next_arm - now > 0 ? next_arm - now : 1;
    lock(&g, g.lock);
    if (g.state == RUNNING && g.run == run && g.len <= BUF_CAP / 2)
      (*j)->RawMonitorWait(j, g.lock, wait);
    st = g.run == run ? g.state : STOPPING;
    unlock(&g, g.lock);
    if (st != RUNNING) break;
  }
  out_flush(&g);
  if (refs) (*j)->Deallocate(j, (unsigned char *)refs);
  if (lines) (*j)->Deallocate(j, (unsigned char *)lines);
  if (lens) (*j)->Deallocate(j, (unsigned char *)lens);
  lock(&g, g.lock);
  g.threads--;
  (*j)->RawMonitorNotifyAll(j, g.lock);
  unlock(&g, g.lock);
}

static int start_thread(JNIEnv *jni)
{
  jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
  jmethodID init =
      cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V")
          : 0;
  jstring name = init ? (*jni)->NewStringUTF(jni, "jvmtool-alloc-sampler") : 0;
  jobject thr = name ? (*jni)->NewObject(jni, cls, init, name) : 0;
  jvmtiError err = JVMTI_ERROR_OUT_OF_MEMORY;

  if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
  if (thr) {
    lock(&g, g.lock);
    g.threads++;
    unlock(&g, g.lock);
    err = (*g.jvmti)->RunAgentThread(g.jvmti, thr, agent_main,
                                     (void *)(uintptr_t)g.run,
                                     JVMTI_THREAD_MIN_PRIORITY);
    lock(&g, g.lock);
    g.threads -= err != 0;
    unlock(&g, g.lock);
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

  lock(&g, g.lock);
  if (g.state == IDLE) {
    unlock(&g, g.lock);
    return AGENT_IDLE;
  }
  g.state = STOPPING;
  (*g.jvmti)->RawMonitorNotifyAll(g.jvmti, g.lock);
  unlock(&g, g.lock);
  set_events(JVMTI_DISABLE);
  /* Callbacks already past their state check, and the agent thread, finish
   * within milliseconds; the bound is for a stopped-the-world JVM, and by
   * the clock (a wait may end early or late), so that the answer reaches
   * agent-install within its timeout whatever happens. */
  end = clock_ms(K_CLOCK_MONOTONIC) + STOP_BOUND_MS;
  lock(&g, g.lock);
  while ((busy = g.threads                                        ? 1
                 : __atomic_load_n(&g.inflight, __ATOMIC_SEQ_CST) ? 2
                                                                  : 0) &&
         clock_ms(K_CLOCK_MONOTONIC) < end)
    (*g.jvmti)->RawMonitorWait(g.jvmti, g.lock, 10);
  unlock(&g, g.lock);
  if (busy)
    say(busy == 1 ? "stop: the agent thread did not end in 5 s"
                  : "stop: a sampling callback did not end in 5 s",
        0, 0);
  out_close(&g);
  life_clear(&g);
  /* The interval is VM-global: leave HotSpot's default to whoever is next. */
  (*g.jvmti)->SetHeapSamplingInterval(g.jvmti, 512 * 1024);
  memset(&rel, 0, sizeof(rel));
  rel.can_generate_sampled_object_alloc_events =
      g.caps.can_generate_sampled_object_alloc_events;
  rel.can_generate_garbage_collection_events =
      g.caps.can_generate_garbage_collection_events;
  (*g.jvmti)->RelinquishCapabilities(g.jvmti, &rel);
  memset(&g.caps, 0, sizeof(g.caps));
  lock(&g, g.lock);
  g.state = IDLE;
  unlock(&g, g.lock);
  return AGENT_OK;
}

static void JNICALL on_vm_death(jvmtiEnv *j, JNIEnv *jni)
{
  int was;

  lock(&g, g.lock);
  was = g.state;
  g.state = STOPPING;
  (*j)->RawMonitorNotifyAll(j, g.lock);
  unlock(&g, g.lock);
  if (was != IDLE) out_close(&g);
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
  if (g.cfg.lifetime && life_alloc(&g, j)) return -1;
  return 0;
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
        "can_generate_sampled_object_alloc_events is taken)",
        0, 0);
    return AGENT_TAKEN;
  }
  if (err) {
    say_err("cannot get the JVMTI capabilities", err);
    return AGENT_JVMTI;
  }
  g.caps = want;
  fd = out_create(g.cfg.output);
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
    err = (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH,
                                         0);
  if (!err && !live)
    err =
        (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, 0);
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
  out_header(&g);
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
  if (((version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR) <
      11) {
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
    stop(); /* loaded again: restart with new options */
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
