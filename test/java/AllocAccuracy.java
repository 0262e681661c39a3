// AllocAccuracy - allocation sites with known byte amounts for the agent's
// accuracy test: a() allocates three times the bytes of b(), c() allocates
// only char[], hot() allocates an AllocPoint that never escapes (scalar
// replaced once C2 compiled it). Runs args[0] seconds and at least MIN
// rounds, then exits: the rounds are the sample count the 10 % bounds of
// the tests need (about 4600 samples of a() at 128 KiB), however loaded
// the machine is; an idle machine does more in its seconds.
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

  static final int MIN = 200;

  public static void main(String[] args) throws Exception {
    long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000;
    for (int round = 0; round < MIN || System.currentTimeMillis() < end;
         round++) {
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
