// HeapLeak - a quiet JVM with a known leak for heap dump tests: the static
// field HeapLeak.cache (a HashMap) holds args[0] LeakEntry objects, each
// with a String key and a 200-byte array. Each byte written to the FIFO
// args[1] adds args[0] more entries (a growing cache). In between it
// allocates nothing (blocked in open or read, or waiting), so a dump with
// -all holds no garbage made after the last GC.
import java.io.FileInputStream;
import java.util.HashMap;
import java.util.Map;

public class HeapLeak {
  static final Map<String, LeakEntry> cache = new HashMap<>();
  static long[] numbers = new long[1000];
  static Object[] mixed = {"a", new int[7], new char[3], 42L, new short[5]};

  static class LeakEntry {
    final String key;
    final byte[] payload = new byte[200];
    int hits;
    LeakEntry(String key) { this.key = key; }
  }

  static void grow(int n) {
    int base = cache.size();
    for (int i = 0; i < n; i++) {
      String k = "entry-" + (base + i);
      cache.put(k, new LeakEntry(k));
    }
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    grow(n);
    if (args.length < 2) {
      Object never = new Object();
      synchronized (never) {
        for (;;) never.wait();
      }
    }
    for (;;) {
      try (FileInputStream in = new FileInputStream(args[1])) {
        while (in.read() != -1) grow(n);
      }
    }
  }
}
