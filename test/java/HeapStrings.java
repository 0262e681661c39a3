// HeapStrings - a quiet JVM with known duplicated Strings for heap
// --strings: 500 Strings "latin1-dup-42" each with its own byte[] (Latin-1),
// 300 Strings "\u00fctf16-dup-\u20ac7" each with its own (UTF-16), and 201
// Strings "quote\"x\nend9" that share one array (new String(String)). The
// values are built at run time, so no literal of the class adds a copy.
public class HeapStrings {
  static final Object[] keep = new Object[1001];

  static String make(String head, int tail) {
    return new StringBuilder().append(head).append(tail).toString();
  }

  public static void main(String[] args) throws Exception {
    int k = 0;
    for (int i = 0; i < 500; i++) keep[k++] = make("latin1-dup-", 42);
    for (int i = 0; i < 300; i++) keep[k++] = make("\u00fctf16-dup-\u20ac", 7);
    String shared = make("quote\"x\nend", 9);
    keep[k++] = shared;
    for (int i = 0; i < 200; i++) keep[k++] = new String(shared);
    Object never = new Object();
    synchronized (never) {
      for (;;) never.wait();
    }
  }
}
