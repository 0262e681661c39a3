// Busy - a JVM for the tests: allocates steadily, keeps some objects alive,
// so every GC counter moves. Runs until it is killed or for args[0] seconds.
import java.util.ArrayList;
import java.util.List;

public class Busy {
  static volatile Object sink;

  public static void main(String[] args) throws Exception {
    long end = args.length > 0 && args[0].matches("\\d+")
        ? System.currentTimeMillis() + Long.parseLong(args[0]) * 1000
        : Long.MAX_VALUE;
    List<byte[]> kept = new ArrayList<>();
    while (System.currentTimeMillis() < end) {
      for (int i = 0; i < 1000; i++) sink = new byte[256];
      kept.add(new byte[1024]);
      if (kept.size() > 2000) kept.clear();
      Thread.sleep(5);
    }
  }
}
