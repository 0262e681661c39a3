// Threads - a JVM of many idle threads (test/bench/walk.sh): args[0]
// threads (default 1000) that sleep, for args[1] seconds (default 600).
// Each thread's stack is an anonymous mapping or two in /proc/PID/maps.
public class Threads {
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    long secs = args.length > 1 ? Long.parseLong(args[1]) : 600;
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(() -> {
        try {
          Thread.sleep(secs * 1000);
        } catch (InterruptedException e) {
        }
      });
      t.setDaemon(true);
      t.start();
    }
    Thread.sleep(secs * 1000);
  }
}
