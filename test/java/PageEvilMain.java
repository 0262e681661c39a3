// PageEvilMain - PageWork under another name: test/page.test renames this
// class (its constant pool's name) to markup, "<b>Evil<i>Main", and runs
// it by that name, so the JVM's main class is markup.
public class PageEvilMain {
  public static void main(String[] args) throws Exception {
    PageWork.main(args);
  }
}
