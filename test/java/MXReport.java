import java.lang.management.*;
import java.io.*;

/* Prints what this JVM's own MXBeans say, as a test's oracle for the
 * numbers jvmtool reads from its PerfData. One report is:
 *   area<TAB>heap|nonheap<TAB>used<TAB>committed<TAB>max
 *   pool<TAB>name<TAB>HEAP|NON_HEAP<TAB>used<TAB>committed<TAB>max
 *   gc<TAB>name<TAB>count<TAB>time_ms
 *   threads<TAB>live<TAB>daemon<TAB>peak<TAB>started
 *   classes<TAB>loaded now<TAB>loaded since start<TAB>unloaded
 *   runtime<TAB>uptime_ms<TAB>start_time_ms
 *   end
 * (-1 where an MXBean says a max is undefined). It writes the report to
 * args[1] (renamed into place: a reader sees a whole one) at start and
 * again each time args[1] is removed, each time right after a full GC
 * (HotSpot updates PerfData's metaspace counters, and ZGC its heap's, at
 * a GC), and lives args[0] seconds. Run with -Xint and a fixed TLAB
 * (-XX:TLABSize=256k -XX:-ResizeTLAB) so that reporting moves nothing
 * PerfData shows; the first report loads classes the next do not. */
public class MXReport {
  static String report() {
    StringBuilder b = new StringBuilder();
    MemoryMXBean m = ManagementFactory.getMemoryMXBean();
    MemoryUsage h = m.getHeapMemoryUsage(), n = m.getNonHeapMemoryUsage();
    b.append("area\theap\t").append(h.getUsed()).append('\t')
        .append(h.getCommitted()).append('\t').append(h.getMax()).append('\n');
    b.append("area\tnonheap\t").append(n.getUsed()).append('\t')
        .append(n.getCommitted()).append('\t').append(n.getMax()).append('\n');
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage u = p.getUsage();
      b.append("pool\t").append(p.getName()).append('\t').append(p.getType())
          .append('\t').append(u.getUsed()).append('\t')
          .append(u.getCommitted()).append('\t').append(u.getMax())
          .append('\n');
    }
    for (GarbageCollectorMXBean g :
         ManagementFactory.getGarbageCollectorMXBeans())
      b.append("gc\t").append(g.getName()).append('\t')
          .append(g.getCollectionCount()).append('\t')
          .append(g.getCollectionTime()).append('\n');
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    b.append("threads\t").append(t.getThreadCount()).append('\t')
        .append(t.getDaemonThreadCount()).append('\t')
        .append(t.getPeakThreadCount()).append('\t')
        .append(t.getTotalStartedThreadCount()).append('\n');
    ClassLoadingMXBean c = ManagementFactory.getClassLoadingMXBean();
    b.append("classes\t").append(c.getLoadedClassCount()).append('\t')
        .append(c.getTotalLoadedClassCount()).append('\t')
        .append(c.getUnloadedClassCount()).append('\n');
    RuntimeMXBean r = ManagementFactory.getRuntimeMXBean();
    b.append("runtime\t").append(r.getUptime()).append('\t')
        .append(r.getStartTime()).append('\n');
    b.append("end\n");
    return b.toString();
  }

  static void write(File f) throws IOException {
    File tmp = new File(f.getPath() + ".tmp");
    String s = report();
    try (FileOutputStream o = new FileOutputStream(tmp)) {
      o.write(s.getBytes("UTF-8"));
    }
    tmp.renameTo(f);
  }

  public static void main(String[] args) throws Exception {
    long until = System.nanoTime() + Long.parseLong(args[0]) * 1000000000L;
    File f = new File(args[1]);
    for (int i = 0; i < 2; i++)
      if (report().isEmpty()) return;
    System.gc();
    write(f);
    while (System.nanoTime() < until) {
      Thread.sleep(20);
      if (f.exists()) continue;
      System.gc();
      write(f);
    }
  }
}
