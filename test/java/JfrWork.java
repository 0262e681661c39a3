/* JfrWork - a workload whose profile is known, for the JFR tests.
 *
 * One thread runs heavy() and light() in turn; heavy() does three times
 * light()'s work, so a CPU profile shows them 3:1. With "all", more threads
 * allocate (byte arrays and strings), contend on one monitor and park, so
 * a recording holds allocation, monitor and park events too. With "rate",
 * prints the burner's rounds of each second (for profile's overhead);
 * "allrate" does both.
 * Prints "ready" once running; runs until killed (or args[1] seconds).
 */
import java.util.concurrent.locks.LockSupport;

public class JfrWork {
  static volatile long sink, rounds;
  static final Object lock = new Object();

  static long spin(long n) {
    long x = 0;
    for (long i = 0; i < n; i++) x = x * 31 + (i ^ (x >>> 7));
    return x;
  }

  static long heavy() { return spin(3_000_000); }
  static long light() { return spin(1_000_000); }

  static void cpu() {
    while (true) {
      sink += heavy();
      sink += light();
      rounds++;
    }
  }

  static void alloc() {
    Object[] keep = new Object[64];
    int i = 0;
    while (true) {
      keep[i++ & 63] = new byte[1024 + (i & 1023)];
      keep[i++ & 63] = "s" + i + keep.length;
      if ((i & 0xfff) == 0) keep[i & 63] = new int[100_000];
    }
  }

  static void contend() {
    while (true) {
      synchronized (lock) {
        sink += spin(200_000);
        LockSupport.parkNanos(2_000_000);
      }
    }
  }

  static void parker() {
    while (true) LockSupport.parkNanos(30_000_000);
  }

  static void start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  public static void main(String[] args) throws Exception {
    boolean all = args.length > 0 && args[0].startsWith("all");
    start("burner", JfrWork::cpu);
    if (all) {
      start("allocator", JfrWork::alloc);
      for (int i = 0; i < 3; i++) start("contender-" + i, JfrWork::contend);
      start("parker", JfrWork::parker);
    }
    System.out.println("ready");
    System.out.flush();
    long secs = args.length > 1 ? Long.parseLong(args[1]) : 3600;
    if (args.length > 0 && args[0].endsWith("rate")) {
      for (long s = 0, last = 0; s < secs; s++) {
        Thread.sleep(1000);
        long r = rounds;
        System.out.println(r - last);
        System.out.flush();
        last = r;
      }
      return;
    }
    Thread.sleep(secs * 1000);
  }
}
