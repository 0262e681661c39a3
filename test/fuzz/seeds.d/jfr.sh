# jfr: recordings from our own writer (every shape), and, when a JDK is
# here, a real one made now by a short JVM run with a small settings file
mkdir -p "$out/jfr"
if command -v python3 >/dev/null 2>&1; then
  for s in $(python3 -c 'import sys; sys.path.insert(0, "test"); import jfr_write; print(" ".join(jfr_write.SHAPES))'); do
    python3 test/jfr_write.py "$s" "$out/jfr/$s.jfr"
  done
fi
if command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; then
  mkdir -p "$out/jfr.java"
  cat > "$out/jfr.java/small.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">10 ms</setting></event>
  <event name="jdk.ObjectAllocationSample"><setting name="enabled">true</setting><setting name="throttle">100/s</setting><setting name="stackTrace">true</setting></event>
  <event name="jdk.ThreadPark"><setting name="enabled">true</setting><setting name="threshold">10 ms</setting><setting name="stackTrace">true</setting></event>
</configuration>
JFC
  if javac -d "$out/jfr.java" test/java/JfrWork.java 2>/dev/null; then
    java -XX:StartFlightRecording=settings="$out/jfr.java/small.jfc",filename="$out/jfr/real.jfr" \
      -cp "$out/jfr.java" JfrWork all 1 >/dev/null 2>&1 || true
  fi
  rm -rf "$out/jfr.java"
fi
