// Sleeper - a JVM whose main thread is always asleep (TIMED_WAITING), for
// tests that read thread states from a dump. Runs args[0] seconds (600
// without arguments).
public class Sleeper {
  public static void main(String[] args) throws Exception {
    long end = System.currentTimeMillis() + (args.length > 0 ? Long.parseLong(args[0]) : 600) * 1000;
    while (System.currentTimeMillis() < end) Thread.sleep(60_000);
  }
}
