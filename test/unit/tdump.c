/* tdump.c - unit tests of core/tdump (thread dumps by TID) and of the
 * /proc stat readers top samples with (core/proc) */
#include "core/jvmtool.h"
#include "core/tdump.h"
#include "check.h"
#include <sys/syscall.h>

/* JDK 17's format (hex nid) and JDK 25's (decimal nid, "[TID]"), with the
 * lines of jvm-facts-2 §3.2, a name holding quotes and " os_prio=", a
 * name split by a newline, and a GC thread with no stack. */
static const char dump17[] =
    "2026-11-25 13:00:00\nFull thread dump OpenJDK 64-Bit Server VM:\n\n"
    "\"burn-worker-1\" #12 daemon prio=5 os_prio=0 cpu=6353.15ms "
    "elapsed=27.30s tid=0x00007f428011d020 nid=0x63c5 runnable  "
    "[0x00007f425d59c000]\n"
    "   java.lang.Thread.State: RUNNABLE\n"
    "\tat Burn.spin(Burn.java:10)\n"
    "\tat Burn.run(Burn.java:20)\n"
    "\tat java.lang.Thread.run(java.base@17/Thread.java:833)\n\n"
    "\"a \"q\" os_prio=9 nid=0x1\" #13 prio=5 os_prio=0 cpu=1ms elapsed=1s "
    "tid=0x1 nid=0x63c6 waiting on condition  [0x0]\n"
    "   java.lang.Thread.State: TIMED_WAITING (sleeping)\n"
    "\tat java.lang.Thread.sleep(java.base@17/Native Method)\n\n"
    "\"split\nname\" #14 prio=5 os_prio=0 tid=0x2 nid=0x63c7 runnable\n"
    "\tat Fake.frame(X.java:1)\n\n"
    "\"GC Thread#0\" os_prio=0 cpu=0.06ms elapsed=27.58s "
    "tid=0x00007f4280041780 nid=0x6378 runnable\n\n"
    "JNI global refs: 15, weak refs: 0\n";

static const char dump25[] =
    "\"burn-worker-1\" #21 [25497] daemon prio=5 os_prio=0 cpu=6418.03ms "
    "elapsed=27.61s tid=0x00007f6d1c0ddbf0 nid=25497 runnable  "
    "[0x00007f6cedbfd000]\n"
    "   java.lang.Thread.State: RUNNABLE\n"
    "\tat Burn.spin(Burn.java:10)\n\n"
    "\"GC Thread#0\" os_prio=0 cpu=0.06ms elapsed=27.71s "
    "tid=0x00007f6d1c057660 nid=25468 runnable";

static void test_nid(void)
{
  CHECK_INT(tdump_nid("0x63c5", 6), 25541, "tdump-1.1 hex nid (11, 17)");
  CHECK_INT(tdump_nid("25497", 5), 25497, "tdump-1.2 decimal nid (25)");
  CHECK_INT(tdump_nid("0x", 2), 0, "tdump-1.3 no digits");
  CHECK_INT(tdump_nid("12a", 3), 0, "tdump-1.4 junk");
  CHECK_INT(tdump_nid("0xfffffffff", 11), 0, "tdump-1.5 over INT_MAX");
}

static void test_17(void)
{
  struct tdump d;
  const struct tdump_thread *t;
  struct buf b = {0};

  tdump_parse(dump17, sizeof(dump17) - 1, &d);
  CHECK_INT(d.n, 3, "tdump-2.1 three readable headers (split name left out)");
  t = tdump_find(&d, 25541);
  CHECK(t && !strcmp(t->name, "burn-worker-1"), "tdump-2.2 found by TID");
  CHECK(t && t->java && !strcmp(t->state, "RUNNABLE"),
        "tdump-2.3 a Java thread, its Thread.State");
  CHECK_INT(t ? tdump_frames(&d, t, 2, &b) : 0, 2, "tdump-2.4 two frames");
  CHECK_STR(b.p, "Burn.spin(Burn.java:10)\nBurn.run(Burn.java:20)\n",
            "tdump-2.5 the top frames, in order");
  t = tdump_find(&d, 0x63c6);
  CHECK(t && !strcmp(t->name, "a \"q\" os_prio=9 nid=0x1"),
        "tdump-2.6 a name with quotes, os_prio= and nid= in it");
  CHECK(t && !strcmp(t->state, "TIMED_WAITING (sleeping)"),
        "tdump-2.7 its state");
  t = tdump_find(&d, 0x6378);
  CHECK(t && !t->java && !strcmp(t->state, "runnable"),
        "tdump-2.8 a VM thread: no #N, the header's state word");
  b.len = 0;
  CHECK_INT(t ? tdump_frames(&d, t, 5, &b) : 1, 0, "tdump-2.9 no stack");
  CHECK(!tdump_find(&d, 0x63c7), "tdump-2.10 the split header is no thread");
  CHECK(!tdump_find(&d, 1), "tdump-2.11 an unknown TID");
  tdump_free(&d);
  buf_free(&b);
}

/* Every prefix of dump17, in a buffer of exactly its size (so ASan sees a
 * read past it): each thread found has its lines inside the prefix and is
 * one of the whole dump's threads, by TID and name, unless its header is
 * the prefix's last line with no newline (a complete last line, as in
 * dump25, cannot be told from one cut in its nid); the whole text finds
 * all three. */
static void test_prefixes(void)
{
  struct tdump all, d;
  size_t bad = 0, last = 0;

  tdump_parse(dump17, sizeof(dump17) - 1, &all);
  for (size_t n = 0; n < sizeof(dump17); n++) {
    char *cut = xmalloc(n ? n : 1);

    memcpy(cut, dump17, n);
    tdump_parse(cut, n, &d);
    for (size_t i = 0; i < d.n; i++) {
      const struct tdump_thread *t = &d.t[i];
      const struct tdump_thread *w = tdump_find(&all, t->tid);
      int cut_hdr = t->body == n && n && cut[n - 1] != '\n';

      if (t->body > t->end || t->end > n ||
          (!cut_hdr && (!w || strcmp(w->name, t->name))))
        bad++;
    }
    last = d.n;
    tdump_free(&d);
    free(cut);
  }
  tdump_free(&all);
  CHECK(bad == 0 && last == 3,
        "tdump-3.4 every prefix: only whole threads of the dump (%zu bad, "
        "%zu in the whole)",
        bad, last);
}

static void test_25(void)
{
  struct tdump d;
  const struct tdump_thread *t;

  tdump_parse(dump25, sizeof(dump25) - 1, &d);
  CHECK_INT(d.n, 2, "tdump-3.1 JDK 25: two threads");
  t = tdump_find(&d, 25497);
  CHECK(t && !strcmp(t->name, "burn-worker-1") && t->java,
        "tdump-3.2 decimal nid matched");
  t = tdump_find(&d, 25468);
  CHECK(t && !strcmp(t->name, "GC Thread#0"),
        "tdump-3.3 last line without a newline");
  tdump_free(&d);
  test_prefixes();
}

/* Thread.print -e (JDK 11+) headers; a JVM's state word carrying an OSC 52
 * sequence (the dump is the JVM's text, whatever it says). */
static const char dumpe[] =
    "\"w3\" #12 daemon prio=5 os_prio=0 cpu=2338.95ms elapsed=2.56s "
    "allocated=2888M defined_classes=0 tid=0x1 nid=0x1aae runnable  [0x0]\n"
    "   java.lang.Thread.State: RUNNABLE\033]52;c;cHduZWQ=\007\n\n"
    "\"x allocated=5G\" #13 prio=5 os_prio=0 tid=0x2 nid=0x1aaf "
    "\033]0;t\007waiting\n\n"
    "\"Signal Dispatcher\" #4 daemon prio=9 os_prio=0 cpu=0.65ms "
    "elapsed=2.58s allocated=528B defined_classes=0 tid=0x3 nid=0x1aa4 "
    "waiting on condition  [0x0]\n";

static void test_e(void)
{
  struct tdump d;
  const struct tdump_thread *t;
  struct buf b = {0};

  tdump_parse(dumpe, sizeof(dumpe) - 1, &d);
  t = tdump_find(&d, 0x1aae);
  CHECK(t && t->allocated == 2888.0 * 1024 * 1024,
        "tdump-6.1 allocated=2888M in bytes");
  t = tdump_find(&d, 0x1aa4);
  CHECK(t && t->allocated == 528, "tdump-6.2 allocated=528B");
  t = tdump_find(&d, 0x1aaf);
  CHECK(t && t->allocated == -1,
        "tdump-6.3 allocated= inside a name is not the thread's");
  CHECK(t && !strcmp(t->state, "\033]0;t\007waiting"),
        "tdump-6.4 a header's state word as the JVM wrote it");
  t = tdump_find(&d, 0x1aae);
  CHECK(t && strchr(t->state, '\033'), "tdump-6.5 Thread.State, raw too");
  if (t) term_escape(&b, t->state, strlen(t->state), 0);
  CHECK_STR(b.p, "RUNNABLE\\e]52;c;cHduZWQ=\\x07",
            "tdump-6.6 the state on its way to a terminal: escaped");
  tdump_free(&d);
  buf_free(&b);
}

static void test_stat(void)
{
  static const char line[] =
      "25541 (burn) worker) 1) R 1 2 3 4 5 6 7 8 9 10 485 12 13 14 15 16 43 "
      "0 9876 123456 2000 rest";
  struct proc_stat st;
  int fd;
  struct proc_task a[3] = {{10, {"", 'S', 5, 5, 0, 100, 0}},
                           {11, {"", 'S', 1, 0, 0, 100, 0}},
                           {13, {"", 'S', 7, 0, 0, 100, 0}}};
  struct proc_task b[3] = {{10, {"", 'S', 9, 6, 0, 100, 0}},
                           {12, {"", 'S', 4, 0, 0, 200, 0}},
                           {13, {"", 'S', 3, 0, 0, 300, 0}}};
  uint64_t d[3][2];

  CHECK_INT(proc_stat_parse(line, sizeof(line) - 1, &st), 0,
            "tdump-4.1 a stat line whose comm holds ') '");
  CHECK_STR(st.comm, "burn) worker) 1", "tdump-4.2 comm up to the last ')'");
  CHECK(st.state == 'R' && st.utime == 485 && st.stime == 12,
        "tdump-4.3 state, utime, stime");
  CHECK(st.threads == 43 && st.starttime == 9876 && st.rss == 2000,
        "tdump-4.4 threads, starttime, rss");
  CHECK_INT(proc_stat_parse(line, 30, &st), -EINVAL,
            "tdump-4.5 a cut line is refused");
  fd = proc_open(getpid());
  CHECK_INT(proc_stat_at(fd, 0, &st), 0, "tdump-4.6 our own stat");
  close(fd);
  CHECK(st.threads >= 1 && st.rss > 0, "tdump-4.7 its threads and rss");
  proc_tasks_delta(a, 3, b, 3, d);
  CHECK(d[0][0] == 4 && d[0][1] == 1 && d[1][0] == 4 && d[2][0] == 3,
        "tdump-4.8 deltas: grown (user 4, sys 1), new tid, reused tid");
}

static void test_task_status(void)
{
  struct proc_status st;
  int tid = (int)syscall(SYS_gettid), fd = proc_open(getpid());

  CHECK_INT(proc_task_status_at(fd, tid, &st), 0,
            "tdump-4.9 a thread's own status");
  close(fd);
  CHECK_INT(proc_innermost(&st, -1), tid,
            "tdump-4.10 its innermost NSpid is its tid");
}

static void test_kind(void)
{
  CHECK_STR(tdump_native_kind("GC Thread#0"), "gc", "tdump-5.1 GC worker");
  CHECK_STR(tdump_native_kind("G1 Conc#0"), "gc", "tdump-5.2 G1 thread");
  CHECK_STR(tdump_native_kind("C2 CompilerThre"), "jit",
            "tdump-5.3 a compiler thread cut to 15 bytes");
  CHECK_STR(tdump_native_kind("VM Thread"), "vm", "tdump-5.4 VM thread");
  CHECK(!tdump_native_kind("burn-worker-1"), "tdump-5.5 a Java name");
  CHECK_STR(tdump_native_kind("JFR Thread Samp"), "jfr",
            "tdump-5.6 JFR's sampler (never in a dump)");
}

int main(void)
{
  test_kind();
  test_nid();
  test_17();
  test_25();
  test_e();
  test_stat();
  test_task_status();
  return check_failures != 0;
}
