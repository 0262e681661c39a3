// AllocSizes - two allocation sites with objects of different sizes for the
// agent's weighting test: big() allocates 3000-byte arrays in one thread,
// small() 1000-byte arrays in another, the same number of each, so the
// bytes split 3:1. Each thread measures its own allocated bytes
// (ThreadMXBean) around its loop and prints them: the truth per site.
// args: count (arrays per site)
import java.lang.management.ManagementFactory;

public class AllocSizes {
  static volatile Object sink;

  // byte[2984] and byte[984]: 16-byte header + data = 3000 and 1000 bytes
  static void big() { sink = new byte[2984]; }
  static void small() { sink = new byte[984]; }

  static long run(boolean isBig, int count) {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = mx.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < count; i++) {
      if (isBig) big(); else small();
    }
    return mx.getCurrentThreadAllocatedBytes() - before;
  }

  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[0]);
    long[] truth = new long[2];
    Thread a = new Thread(() -> truth[0] = run(true, count), "big");
    Thread b = new Thread(() -> truth[1] = run(false, count), "small");
    a.start();
    b.start();
    a.join();
    b.join();
    System.out.println("truth AllocSizes.big " + truth[0]);
    System.out.println("truth AllocSizes.small " + truth[1]);
  }
}
