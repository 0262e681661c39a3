// AllocStress - several threads allocating hard with frequent GCs for the
// agent's robustness tests: each thread keeps a rotating window of objects
// alive (so lifetime sections have survivors) and drops the rest.
// args: threads seconds [exit]; with "exit" the JVM calls System.exit while
// every thread is still allocating. "gcN" for seconds runs until the JVM has
// collected N times: a count, however loaded the machine is.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class AllocStress {
  static volatile Object sink;

  static Object keep(int i) {
    return new long[16 + i % 64];
  }

  static Object drop(int i) {
    return new StringBuilder().append("x").append(i).toString();
  }

  static long collections() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
      n += Math.max(0, gc.getCollectionCount());
    return n;
  }

  static volatile boolean done;

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    boolean byGc = args[1].startsWith("gc");
    long gcs = byGc ? Long.parseLong(args[1].substring(2)) : 0;
    long end = byGc ? Long.MAX_VALUE
                    : System.currentTimeMillis() + Long.parseLong(args[1]) * 1000;
    boolean exit = args.length > 2 && args[2].equals("exit");
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        Object[] window = new Object[4096];
        int i = 0;
        while (exit || (!done && System.currentTimeMillis() < end)) {
          window[i % window.length] = keep(i);
          sink = drop(i);
          i++;
        }
      }, "alloc-" + t);
      th.setDaemon(true);
      th.start();
      all.add(th);
    }
    if (exit) {
      while (System.currentTimeMillis() < end) Thread.sleep(10);
      System.exit(0);
    }
    if (byGc) {
      while (collections() < gcs) Thread.sleep(10);
      done = true;
    }
    for (Thread th : all) th.join();
  }
}
