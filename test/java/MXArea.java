import java.lang.management.*;

/* Prints the bytes used of this JVM's heap, non-heap and each memory pool
 * as its MXBeans see them, at a moment when PerfData says the same: all
 * it runs is run once first (no class is loaded after), then a full GC
 * (PerfData's metaspace counters are updated by a GC), then the numbers
 * are read. Lines: "pool<TAB>name<TAB>used" (the pools PerfData has: not
 * the code cache), "area<TAB>heap|nonheap<TAB>used", "end". Then sleeps
 * args[0] seconds. Run with a TLAB large enough (-XX:TLABSize=1m
 * -XX:-ResizeTLAB) that printing does not move the top of eden. */
public class MXArea {
  static String report() {
    StringBuilder b = new StringBuilder();
    long non = 0;

    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getName().startsWith("Code")) continue;
      long u = p.getUsage().getUsed();
      if (p.getType() == MemoryType.NON_HEAP) non += u;
      b.append("pool\t").append(p.getName()).append('\t').append(u)
          .append('\n');
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage()
        .getUsed();
    b.append("area\theap\t").append(heap).append('\n');
    b.append("area\tnonheap\t").append(non).append('\n');
    b.append("end\n");
    return b.toString();
  }

  public static void main(String[] args) throws Exception {
    long secs = Long.parseLong(args.length > 0 ? args[0] : "0");
    for (int i = 0; i < 3; i++)
      if (report().isEmpty()) return;
    System.gc();
    String r = report();
    System.out.print(r);
    System.out.flush();
    Thread.sleep(secs * 1000);
  }
}
