import java.lang.management.*;

/* Prints this JVM's memory pools and collectors as its MXBeans name them,
 * one per line: "pool<TAB>name<TAB>type<TAB>used<TAB>committed<TAB>max" and
 * "gc<TAB>name<TAB>count<TAB>time_ms"; then sleeps (args[0] seconds) so a
 * test can read its PerfData; prints again on each line read from stdin. */
public class MXNames {
  static void print() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage u = p.getUsage();
      System.out.println("pool\t" + p.getName() + "\t" + p.getType() + "\t"
          + u.getUsed() + "\t" + u.getCommitted() + "\t" + u.getMax());
    }
    for (GarbageCollectorMXBean g :
         ManagementFactory.getGarbageCollectorMXBeans())
      System.out.println("gc\t" + g.getName() + "\t" + g.getCollectionCount()
          + "\t" + g.getCollectionTime());
    System.out.println("end");
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    print();
    Thread.sleep(Long.parseLong(args.length > 0 ? args[0] : "0") * 1000);
  }
}
