// AllocStress - several threads allocating hard with frequent GCs for the
// agent's robustness tests: each thread keeps a rotating window of objects
// alive (so lifetime sections have survivors) and drops the rest.
// args: threads seconds [exit]; with "exit" the JVM calls System.exit while
// every thread is still allocating.
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

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    long end = System.currentTimeMillis() + Long.parseLong(args[1]) * 1000;
    boolean exit = args.length > 2 && args[2].equals("exit");
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        Object[] window = new Object[4096];
        int i = 0;
        while (exit || System.currentTimeMillis() < end) {
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
    for (Thread th : all) th.join();
  }
}
