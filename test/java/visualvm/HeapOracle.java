// HeapOracle - VisualVM's heap library (Debian's visualvm) as the oracle for
// jvmtool heap --retained: per class "name instances shallow retained",
// then the top N objects by retained size "0xID class shallow retained".
// Not compiled with test/java/*.java: it needs the library's jar
// (test/heap.test compiles it).
import java.io.File;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

public class HeapOracle {
  public static void main(String[] args) throws Exception {
    Heap heap = HeapFactory.createHeap(new File(args[0]));
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    StringBuilder out = new StringBuilder();
    for (JavaClass c : heap.getAllClasses()) {
      if (c.getInstancesCount() == 0) continue;
      out.append("class ").append(c.getName()).append(' ')
          .append(c.getInstancesCount()).append(' ')
          .append(c.getAllInstancesSize()).append(' ')
          .append(c.getRetainedSizeByClass()).append('\n');
    }
    List<Instance> best = new ArrayList<>();
    Iterator<Instance> it = heap.getAllInstancesIterator();
    while (it.hasNext()) {
      Instance i = it.next();
      best.add(i);
      if (best.size() > 4 * top) {
        best.sort((a, b) -> Long.compare(b.getRetainedSize(), a.getRetainedSize()));
        best.subList(top, best.size()).clear();
      }
    }
    best.sort((a, b) -> Long.compare(b.getRetainedSize(), a.getRetainedSize()));
    for (int k = 0; k < Math.min(top, best.size()); k++) {
      Instance i = best.get(k);
      out.append("object 0x").append(Long.toHexString(i.getInstanceId())).append(' ')
          .append(i.getJavaClass().getName()).append(' ')
          .append(i.getSize()).append(' ')
          .append(i.getRetainedSize()).append('\n');
    }
    System.out.print(out);
  }
}
