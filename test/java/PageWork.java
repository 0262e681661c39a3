// PageWork - a JVM for serve's page test (test/page.test): "hot" threads
// burn half a core each in pageHotLoop (the frame the flame graph must
// show), one named as markup that would run script if a page took it as
// HTML, one as a script element, one asleep named as an attribute break.
// Prints "ready"; exits after args[0] seconds (default 120).
public class PageWork {
  static volatile long spin;

  static void pageHotLoop() throws InterruptedException {
    for (;;) {
      long end = System.nanoTime() + 5_000_000L;
      while (System.nanoTime() < end) spin++;
      Thread.sleep(5);
    }
  }

  static void start(String name, boolean hot) {
    Thread t = new Thread(() -> {
      try {
        if (hot) pageHotLoop();
        else Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) { }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  public static void main(String[] args) throws Exception {
    long secs = args.length > 0 ? Long.parseLong(args[0]) : 120;
    start("<img src=x onerror=\"console.log('pwned-img')\">", true);
    start("<script>console.log('pwned-script')</script>", false);
    start("\"><svg onload=console.log('pwned-svg')>", false);
    System.out.println("ready");
    Thread.sleep(secs * 1000);
  }
}
