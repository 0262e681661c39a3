// TopWork - a JVM for top's allocation and escaping tests. Two threads
// allocate at a steady pace, 100 objects per 10 ms: "alloc-3k" byte[3072],
// "alloc-1k" byte[1024] (about 31 and 10 MB/s, so allocated= stays in
// HotSpot's M unit, below 10 GiB, for 5 minutes); "hot" burns 40 % of a
// core in spinHot.
// Every name ends in an OSC 0 sequence (ESC ] 0 ; pwned BEL) that a
// terminal would obey. Prints "ready"; exits after args[0] seconds.
public class TopWork {
  static final String EVIL = "\033]0;pwned\007";
  static volatile Object sink;
  static volatile long spin;

  // 100 objects of size bytes per 10 ms of the clock: a thread that got
  // no CPU for a while (a loaded machine) catches up at once, so over any
  // second or more the rate is the one asked for.
  static void paced(int size) throws InterruptedException {
    long start = System.nanoTime(), done = 0;
    for (;;) {
      long due = (System.nanoTime() - start) / 100_000L;
      for (; done < due; done++) sink = new byte[size];
      Thread.sleep(2);
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
