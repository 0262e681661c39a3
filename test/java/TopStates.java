// TopStates - one thread in each state a thread dump names (sleep, park,
// Object.wait, monitor entry), and one burning CPU deep inside the JDK's
// regex matcher (hundreds of JDK frames above its own burn()), for top's
// STATE column and hot stacks. Runs args[0] seconds.
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

public class TopStates {
  static final Object waitOn = new Object();
  static final Object held = new Object();

  static void burn() {
    Pattern p = Pattern.compile("(a|aa)*b");
    String s = "a".repeat(60);
    while (true) p.matcher(s).matches();
  }

  static Thread start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  public static void main(String[] args) throws Exception {
    start("st-sleep", () -> {
      try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
    });
    start("st-park", () -> { while (true) LockSupport.park(); });
    start("st-wait", () -> {
      synchronized (waitOn) {
        try { waitOn.wait(); } catch (InterruptedException e) { }
      }
    });
    start("st-burn", TopStates::burn);
    synchronized (held) {
      start("st-blocked", () -> { synchronized (held) { } });
      Thread.sleep(Long.parseLong(args[0]) * 1000);
    }
  }
}
