// AllocSplit - one thread, "alloc-worker", allocates byte[3072] in allocBig()
// and byte[1024] in allocSmall() at the same object rate: the true byte
// split is 3:1 (2.97 with array headers). args: MODE CTL REPORT [SECS]
//   alt   big, small, big, small: a strictly periodic pattern
//   rand  big or small with p = 1/2 each (a cheap xorshift)
// Each line written to the FIFO CTL appends "mark ALLOCATED BIG SMALL
// BIGSIZE SMALLSIZE" to REPORT: the worker's bytes (ThreadMXBean
// getThreadAllocatedBytes), its object counts, and the bytes one object of
// each kind takes, measured the same way at start. Runs SECS (default
// 600) seconds at most, then exits.
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.FileWriter;
import java.lang.management.ManagementFactory;

public class AllocSplit {
  static volatile Object sink;
  static volatile long big, small;
  static volatile boolean ready;

  static void allocBig() {
    sink = new byte[3072];
  }

  static void allocSmall() {
    sink = new byte[1024];
  }

  static com.sun.management.ThreadMXBean mx() {
    return (com.sun.management.ThreadMXBean)
        ManagementFactory.getThreadMXBean();
  }

  // Bytes one call of big (or small) allocates, by the thread's counter.
  static long size(boolean isBig) {
    long id = Thread.currentThread().getId(), n = 200000;
    long before = mx().getThreadAllocatedBytes(id);
    for (long i = 0; i < n; i++) {
      if (isBig) allocBig(); else allocSmall();
    }
    return Math.round((mx().getThreadAllocatedBytes(id) - before) / (double) n);
  }

  static long bigSize, smallSize;

  public static void main(String[] args) throws Exception {
    final boolean alt = args[0].equals("alt");
    long secs = args.length > 3 ? Long.parseLong(args[3]) : 600;
    Thread w = new Thread(() -> {
      bigSize = size(true);
      smallSize = size(false);
      ready = true;
      long x = 88172645463325252L, b = 0, s = 0;
      while (true) {
        for (int i = 0; i < 1000; i++) {
          boolean pick;
          if (alt) {
            pick = (i & 1) == 0;
          } else {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            pick = x < 0;
          }
          if (pick) {
            allocBig();
            b++;
          } else {
            allocSmall();
            s++;
          }
        }
        big = b;
        small = s;
      }
    }, "alloc-worker");
    w.setDaemon(true);
    w.start();
    while (!ready) Thread.sleep(10);
    Thread killer = new Thread(() -> {
      try { Thread.sleep(secs * 1000); } catch (InterruptedException e) { }
      System.exit(0);
    });
    killer.setDaemon(true);
    killer.start();
    try (BufferedReader ctl = new BufferedReader(new FileReader(args[1]))) {
      while (ctl.readLine() != null) {
        long bytes = mx().getThreadAllocatedBytes(w.getId());
        try (FileWriter out = new FileWriter(args[2], true)) {
          out.write("mark " + bytes + " " + big + " " + small + " " + bigSize
                    + " " + smallSize + "\n");
        }
      }
    }
  }
}
