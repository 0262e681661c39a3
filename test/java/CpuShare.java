// CpuShare - a JVM for the CPU accounting tests: threads that burn known
// shares of a core, one that keeps the GC busy, one that mostly sleeps.
//   burn-90  busy 90 % of every 10 ms, in spin90()
//   burn-30  busy 30 % of every 10 ms, in spin30()
//   churn    allocates 64 KiB arrays into a ring of 1500 (about 96 MiB
//            live), so every young GC copies: GC threads burn CPU
//   wall-25  burns 10 ms of its own CPU (in burn25()), then sleeps 30 ms
//            (Thread.sleep, under nap75()): 25 % on CPU, 75 % asleep,
//            whatever the load; it times both on its own clock
// Threads run in methods of their own so a stack names them. Runs args[0]
// seconds (default 600); with args[1], appends "T <epoch s> <burn ns>
// <nap ns>" (wall-25's totals so far) to that file every 50 ms, and each
// nap of wall-25 as "N <from> <to>" (epoch ns).
public class CpuShare {
  static volatile long sink;
  static volatile Object keep;

  // Busy until share % of the period is gone, then sleep the rest. A
  // period that started long ago (the thread waited for a core) restarts:
  // the share is of the time the thread gets to run.
  static long cycle(long start, long period, int share)
      throws InterruptedException {
    long now = System.nanoTime();
    if (now - start > period) start = now;
    long busyEnd = start + period * share / 100;
    while (System.nanoTime() < busyEnd) sink++;
    long left = start + period - System.nanoTime();
    if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    return start + period;
  }

  static void spin90() throws InterruptedException {
    for (long t = System.nanoTime();;) t = cycle(t, 10_000_000L, 90);
  }

  static void spin30() throws InterruptedException {
    for (long t = System.nanoTime();;) t = cycle(t, 10_000_000L, 30);
  }

  static final java.lang.management.ThreadMXBean MX =
      java.lang.management.ManagementFactory.getThreadMXBean();

  static void burn25(long cpuEnd) {
    while (MX.getCurrentThreadCpuTime() < cpuEnd)
      for (int i = 0; i < 10000; i++) sink++;
  }

  static void nap75(long ms) throws InterruptedException {
    Thread.sleep(ms);
  }

  static volatile long burnNs, napNs;
  // the epoch in ns of a System.nanoTime() reading: EPOCH + t
  static final long EPOCH =
      System.currentTimeMillis() * 1_000_000L - System.nanoTime();
  // wall-25's naps, "N <from> <to>" (epoch ns), for the log to write
  static final java.util.concurrent.ConcurrentLinkedQueue<String> NAPS =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  static void wall25() throws InterruptedException {
    for (;;) {
      long t0 = System.nanoTime();
      burn25(MX.getCurrentThreadCpuTime() + 10_000_000L);
      long t1 = System.nanoTime();
      nap75(30);
      long t2 = System.nanoTime();
      burnNs += t1 - t0;
      napNs += t2 - t1;
      NAPS.add("N " + (EPOCH + t1) + " " + (EPOCH + t2));
    }
  }

  static void churn() throws InterruptedException {
    Object[] ring = new Object[1500];
    for (int i = 0;; i++) {
      ring[i % ring.length] = new byte[64 << 10];
      if (i % 64 == 0) Thread.sleep(1);
    }
  }

  interface Body { void run() throws InterruptedException; }

  static void start(String name, Body b) {
    Thread t = new Thread(() -> {
      try { b.run(); } catch (InterruptedException e) { }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  public static void main(String[] args) throws Exception {
    long secs = args.length > 0 ? Long.parseLong(args[0]) : 600;
    start("burn-90", CpuShare::spin90);
    start("burn-30", CpuShare::spin30);
    start("churn", CpuShare::churn);
    start("wall-25", CpuShare::wall25);
    System.out.println("ready");
    long end = System.currentTimeMillis() + secs * 1000;
    if (args.length < 2) {
      Thread.sleep(secs * 1000);
      return;
    }
    try (java.io.PrintStream log = new java.io.PrintStream(
             new java.io.FileOutputStream(args[1], true), true)) {
      while (System.currentTimeMillis() < end) {
        log.printf("T %.3f %d %d%n", System.currentTimeMillis() / 1000.0,
                   burnNs, napNs);
        for (String n; (n = NAPS.poll()) != null;) log.println(n);
        Thread.sleep(50);
      }
    }
  }
}
