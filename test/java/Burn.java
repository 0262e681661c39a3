// Burn - a JVM for top's tests: three threads burning known shares of a
// core (duty-cycled: busy for share x 10 ms of every 10 ms), the rest
// idle. Names and shares: burn-90 90 %, burn-45 45 %, burn-20 20 %; each
// spins in its own method (spin90, spin45, spin20) so a stack names it.
// A fourth thread, churn, starts a short-lived thread every 5 ms, so
// threads end while a reader walks /proc/<pid>/task.
// Prints "ready" once all run; exits after args[0] seconds.
public class Burn {
  static volatile long sink;

  // Busy until the deadline (ns), then sleep the rest of the 10 ms period.
  static void cycle(long periodStart, int share) throws InterruptedException {
    long busyEnd = periodStart + share * 100_000L;
    while (System.nanoTime() < busyEnd) sink++;
    long left = periodStart + 10_000_000L - System.nanoTime();
    if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
  }

  static void spin90() throws InterruptedException {
    for (long t = System.nanoTime();; t += 10_000_000L) cycle(catchUp(t), 90);
  }

  static void spin45() throws InterruptedException {
    for (long t = System.nanoTime();; t += 10_000_000L) cycle(catchUp(t), 45);
  }

  static void spin20() throws InterruptedException {
    for (long t = System.nanoTime();; t += 10_000_000L) cycle(catchUp(t), 20);
  }

  // A period that started long ago (the thread waited for a CPU) is
  // restarted now: the share is of the time the thread gets to run.
  static long catchUp(long t) {
    long now = System.nanoTime();
    return now - t > 10_000_000L ? now : t;
  }

  static Thread start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  interface Body { void run() throws InterruptedException; }

  static Runnable loop(Body b) {
    return () -> { try { b.run(); } catch (InterruptedException e) { } };
  }

  public static void main(String[] args) throws Exception {
    long secs = args.length > 0 ? Long.parseLong(args[0]) : 600;
    start("burn-90", loop(Burn::spin90));
    start("burn-45", loop(Burn::spin45));
    start("burn-20", loop(Burn::spin20));
    start("churn", loop(() -> {
      for (;;) {
        Thread c = new Thread(() -> { }, "churn-child");
        c.start();
        c.join();
        Thread.sleep(5);
      }
    }));
    System.out.println("ready");
    Thread.sleep(secs * 1000);
  }
}
