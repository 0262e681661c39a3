// PageWork - a JVM for serve's page test (test/page.test): "hot" threads
// burn half a core each in pageHotLoop (the frame the flame graph must
// show), one named as markup that would run script if a page took it as
// HTML, one as a script element, one asleep named as an attribute break.
// The hot loop is busy 5 ms, then asleep 1 to 9 ms at random: a fixed
// 5 ms nap made a cycle of about 10.06 ms, which locked to the phase of
// JFR's 10 ms sampler, so a 2 s profile held no sample of it one pull in 7.
// Prints "ready"; exits after args[0] seconds (default 120).
public class PageWork {
  static volatile long spin;

  static void pageHotLoop() throws InterruptedException {
    for (;;) {
      long end = System.nanoTime() + 5_000_000L;
      while (System.nanoTime() < end) spin++;
      Thread.sleep(1 + java.util.concurrent.ThreadLocalRandom.current().nextInt(9));
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
