// WallStates - threads that wait the whole time, one per way of waiting:
// sleep-all (Thread.sleep), park-all (LockSupport.park on a latch),
// wait-all (Object.wait), blocked-all (monitor entry on a lock main holds
// for ever, main itself asleep inside it). Runs args[0] seconds.
import java.util.concurrent.CountDownLatch;

public class WallStates {
  static final Object LOCK = new Object(), MON = new Object();

  public static void main(String[] args) throws Exception {
    long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000;
    CountDownLatch latch = new CountDownLatch(1);
    synchronized (LOCK) {
      start("sleep-all", () -> { try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) {} });
      start("park-all", () -> { try { latch.await(); } catch (InterruptedException e) {} });
      start("wait-all", () -> { synchronized (MON) { try { MON.wait(); } catch (InterruptedException e) {} } });
      start("blocked-all", () -> { synchronized (LOCK) { } });
      System.out.println("ready");
      while (System.currentTimeMillis() < end) Thread.sleep(60_000);
    }
    System.exit(0);
  }

  static void start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }
}
