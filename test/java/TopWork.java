// TopWork - a JVM for top's allocation and escaping tests. Two threads
// allocate at a steady pace, 200 objects every 10 ms: "alloc-3k" byte[3072],
// "alloc-1k" byte[1024] (about 62 and 21 MB/s, so allocated= stays in
// HotSpot's M unit for minutes); "hot" burns 40 % of a core in spinHot.
// Every name ends in an OSC 0 sequence (ESC ] 0 ; pwned BEL) that a
// terminal would obey. Prints "ready"; exits after args[0] seconds.
public class TopWork {
  static final String EVIL = "\033]0;pwned\007";
  static volatile Object sink;
  static volatile long spin;

  // 200 objects of size bytes each period; a period missed (no CPU) is
  // restarted, never made up in a burst.
  static void paced(int size) throws InterruptedException {
    for (long t = System.nanoTime();; t += 10_000_000L) {
      long now = System.nanoTime();
      if (now - t > 10_000_000L) t = now;
      for (int i = 0; i < 200; i++) sink = new byte[size];
      long left = t + 10_000_000L - System.nanoTime();
      if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    }
  }

  static void spinHot() throws InterruptedException {
    for (;;) {
      long end = System.nanoTime() + 4_000_000L;
      while (System.nanoTime() < end) spin++;
      Thread.sleep(6);
    }
  }

  interface Body { void run() throws InterruptedException; }

  static void start(String name, Body b) {
    Thread t = new Thread(() -> {
      try { b.run(); } catch (InterruptedException e) { }
    }, name + EVIL);
    t.setDaemon(true);
    t.start();
  }

  public static void main(String[] args) throws Exception {
    long secs = args.length > 0 ? Long.parseLong(args[0]) : 120;
    start("alloc-3k", () -> paced(3072));
    start("alloc-1k", () -> paced(1024));
    start("hot", TopWork::spinHot);
    System.out.println("ready");
    Thread.sleep(secs * 1000);
  }
}
