// IdMark - a JVM whose main class no other test uses, so that the class
// names exactly one JVM (identity.test). Sleeps args[0] seconds.
public class IdMark {
  public static void main(String[] args) throws Exception {
    Thread.sleep(Long.parseLong(args[0]) * 1000);
  }
}
