// AllocSplit - one thread, "alloc-worker", allocates byte[3072] in allocBig()
// and byte[1024] in allocSmall() at the same object rate while it is on:
// the true byte split is 3:1 (2.97 with array headers). While it is off it
// allocates byte[2048] in allocOther(). args: MODE CTL REPORT [SECS]
//   alt   big, small, big, small: a strictly periodic pattern
//   rand  big or small with p = 1/2 each (a cheap xorshift)
// Each line read from the FIFO CTL, "on" or "off", switches the worker and
// appends "mark ALLOCATED BIG SMALL BIGSIZE SMALLSIZE" to REPORT ("peek"
// appends "peek ..." and switches nothing): the worker's bytes so far
// (ThreadMXBean.getThreadAllocatedBytes), its counts of big and small
// objects, and the bytes one call of each allocates, measured with
// getThreadAllocatedBytes at start. The first line of REPORT
// ("ready ...") says the sizes are measured. Exits after SECS (600).
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.FileWriter;
import java.lang.management.ManagementFactory;

public class AllocSplit {
  static volatile Object sink;
  static volatile long big, small;
  static volatile boolean on;

  static void allocBig() {
    sink = new byte[3072];
  }

  static void allocSmall() {
    sink = new byte[1024];
  }

  static void allocOther() {
    sink = new byte[2048];
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

  static volatile long bigSize, smallSize;

  static void report(String file, Thread w, String what) throws Exception {
    try (FileWriter out = new FileWriter(file, true)) {
      out.write(what + " " + mx().getThreadAllocatedBytes(w.getId()) + " "
                + big + " " + small + " " + bigSize + " " + smallSize + "\n");
    }
  }

  public static void main(String[] args) throws Exception {
    final boolean alt = args[0].equals("alt");
    final long secs = args.length > 3 ? Long.parseLong(args[3]) : 600;
    Thread w = new Thread(() -> {
      size(true);
      size(false);
      bigSize = size(true);
      smallSize = size(false);
      long x = 88172645463325252L, b = 0, s = 0;
      while (true) {
        if (!on) {
          for (int i = 0; i < 1000; i++) allocOther();
          continue;
        }
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
    Thread killer = new Thread(() -> {
      try { Thread.sleep(secs * 1000); } catch (InterruptedException e) { }
      System.exit(0);
    });
    killer.setDaemon(true);
    killer.start();
    while (smallSize == 0) Thread.sleep(10);
    report(args[2], w, "ready");
    while (true) {  // a writer that closes the FIFO ends one open of it
      try (BufferedReader ctl = new BufferedReader(new FileReader(args[1]))) {
        String line;
        while ((line = ctl.readLine()) != null) {
          if (line.equals("peek")) {
            report(args[2], w, "peek");
            continue;
          }
          boolean want = line.equals("on");
          if (!want) {
            on = false;
            Thread.sleep(100);  // the worker ends its block of 1000
          }
          report(args[2], w, "mark");
          on = want;
        }
      }
    }
  }
}
