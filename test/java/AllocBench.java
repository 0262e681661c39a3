// AllocBench - an allocation-heavy workload for the agent's overhead bench:
// one thread allocates arrays and small objects of mixed sizes into a ring
// (they escape, so they are real heap allocations) for args[0] seconds of
// warm-up and args[1] seconds of measurement, then prints "ops/s N".
public class AllocBench {
  static final class Node {
    final Object payload;
    final int id;
    Node(Object payload, int id) { this.payload = payload; this.id = id; }
  }

  public static void main(String[] args) {
    long warm = Long.parseLong(args[0]) * 1000, run = Long.parseLong(args[1]) * 1000;
    Object[] ring = new Object[8192];
    long ops = 0, t0 = System.currentTimeMillis(), start = 0;
    int i = 0;
    for (;;) {
      for (int k = 0; k < 1000; k++, i++) {
        Object o = (i & 3) == 0 ? new byte[64 + (i & 511)]
            : (i & 3) == 1 ? new Node(ring[(i + 1) & 8191], i)
            : (i & 3) == 2 ? new int[16 + (i & 63)] : String.valueOf(i);
        ring[i & 8191] = o;
      }
      long now = System.currentTimeMillis();
      if (start == 0 && now - t0 >= warm) { start = now; ops = 0; }
      ops += 1000;
      if (start != 0 && now - start >= run) {
        System.out.println("ops/s " + ops * 1000 / (now - start));
        return;
      }
    }
  }
}
