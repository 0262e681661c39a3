// NativeBurn - a JVM whose busiest thread spends its CPU in native code
// (zlib's deflate at level 9 of 4 MB of four letters: one call of
// seconds, as the long hash chains cost), where JFR's execution sampler,
// which takes only threads in Java, does not see it: between calls it is
// in Java for microseconds a few seconds apart. Its
// name is longer than the kernel's 15 bytes: the profile must name it as
// the JVM does. Runs args[0] seconds (600 without arguments).
import java.util.Random;
import java.util.zip.Deflater;

public class NativeBurn {
  public static void main(String[] args) throws Exception {
    long end = System.currentTimeMillis() + (args.length > 0 ? Long.parseLong(args[0]) : 600) * 1000;
    Thread t = new Thread(() -> {
      byte[] in = new byte[4 << 20], out = new byte[5 << 20];
      Random r = new Random(1);
      for (int i = 0; i < in.length; i++) in[i] = (byte) "ACGT".charAt(r.nextInt(4));
      Deflater d = new Deflater(9);
      while (true) {
        d.reset();
        d.setInput(in);
        d.finish();
        while (!d.finished()) d.deflate(out);
      }
    }, "zlib-deflate-worker-1");
    t.setDaemon(true);
    t.start();
    while (System.currentTimeMillis() < end) Thread.sleep(1000);
  }
}
