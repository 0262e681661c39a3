// AllocAccuracy - allocation sites with known byte amounts for the agent's
// accuracy test: a() allocates three times the bytes of b(), c() allocates
// only char[], hot() allocates an AllocPoint that never escapes (scalar
// replaced once C2 compiled it). Runs args[0] seconds, then exits.
public class AllocAccuracy {
  static volatile Object sink;
  static long total;

  static final class AllocPoint {
    final int x, y;
    AllocPoint(int x, int y) { this.x = x; this.y = y; }
  }

  static void a() {
    for (int i = 0; i < 3; i++) sink = new byte[1000];
  }

  static void b() {
    sink = new int[250];
  }

  static void c() {
    sink = new char[500];
  }

  static long hot(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      AllocPoint p = new AllocPoint(i, i + 1);
      s += p.x + p.y;
    }
    return s;
  }

  public static void main(String[] args) throws Exception {
    long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000;
    while (System.currentTimeMillis() < end) {
      for (int i = 0; i < 1000; i++) {
        a();
        b();
        c();
        total += hot(50);
      }
    }
    System.out.println(total);
  }
}
