import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;

/**
 * Runs the JDK's own jstat many times in one JVM, as the test oracle: each
 * stdin line is one tab-separated jstat command line; the output is "#" +
 * that line, then what jstat printed on stdout. jstat calls System.exit, so a
 * security manager turns exits into exceptions (JDK 17; needs
 * -Djava.security.manager=allow --add-modules jdk.jcmd
 * --add-exports jdk.jcmd/sun.tools.jstat=ALL-UNNAMED).
 */
public class JstatBatch {
  static final class Exit extends SecurityException {
    Exit() { super("exit"); }
  }

  @SuppressWarnings("removal")
  public static void main(String[] args) throws Exception {
    System.setSecurityManager(new SecurityManager() {
      @Override public void checkPermission(java.security.Permission p) { }
      @Override public void checkExit(int status) { throw new Exit(); }
    });
    Method jstat = Class.forName("sun.tools.jstat.Jstat")
        .getMethod("main", String[].class);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    PrintStream out = System.out;
    for (String line; (line = in.readLine()) != null; ) {
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      System.setOut(new PrintStream(captured, true));
      try {
        jstat.invoke(null, (Object) line.split("\t"));
      } catch (Throwable t) {
        // an exit or a failure: what it printed so far is the answer
      }
      System.setOut(out);
      out.print("#" + line + "\n");
      out.write(captured.toByteArray());
    }
    out.flush();
  }
}
