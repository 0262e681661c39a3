// HeapFill - a quiet JVM holding about args[0] MB of mixed objects for the
// heap bench (test/bench/heap.sh): nodes with a String name, a byte[] and
// an int[] of random lengths, chains of up to 1000 nodes, every fourth
// with an Object[]; half of them in a HashMap by name, half in a list.
// Deterministic (a fixed seed); then it waits, allocating nothing.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public class HeapFill {
  static final List<Object> list = new ArrayList<>();
  static final Map<String, Node> map = new HashMap<>();

  static final class Node {
    String name;
    long id;
    byte[] data;
    int[] ints;
    Node next;
    Object[] refs;
  }

  public static void main(String[] args) throws Exception {
    long target = Long.parseLong(args[0]) << 20, est = 0;
    Random r = new Random(42);
    Node prev = null;
    for (long i = 0; est < target; i++) {
      Node n = new Node();
      n.name = "node-" + i;
      n.id = i;
      n.data = new byte[32 + r.nextInt(480)];
      n.ints = new int[4 + r.nextInt(60)];
      n.next = prev;
      prev = i % 1000 == 999 ? null : n;
      if (i % 4 == 0) {
        n.refs = new Object[8];
        n.refs[0] = n.name;
        n.refs[1] = n.data;
      }
      if (i % 2 == 0) map.put(n.name, n);
      else list.add(n);
      est += 40 + 64 + n.data.length + 16 + n.ints.length * 4 + 16
          + (i % 4 == 0 ? 48 : 0) + 40;
    }
    System.out.println("ready");
    Object never = new Object();
    synchronized (never) {
      for (;;) never.wait();
    }
  }
}
