# hprof: a small synthetic dump of every record kind (plain and gzip) and,
# when a JDK is here, a real one (GC.heap_dump -gz=9 of a tiny JVM).
mkdir -p "$out/hprof"
python3 - "$out/hprof" <<'PY'
import gzip, struct, sys
d = sys.argv[1]
def i(v): return struct.pack(">Q", v)
def u4(v): return struct.pack(">I", v)
def rec(tag, body): return bytes([tag]) + u4(0) + u4(len(body)) + body
def cdump(cid, sup, fields=(), statics=()):
    b = b"\x20" + i(cid) + u4(0) + i(sup) + i(0) * 5 + u4(0) + struct.pack(">H", 1) + struct.pack(">H", 1) + b"\x0a" + u4(7)
    b += struct.pack(">H", len(statics)) + b"".join(i(n) + b"\x02" + i(v) for n, v in statics)
    b += struct.pack(">H", len(fields)) + b"".join(i(n) + bytes([t]) for n, t in fields)
    return b
body = (rec(0x01, i(1) + b"A") + rec(0x01, i(3) + b"next") + rec(0x01, i(5) + b"java/lang/Object") +
        rec(0x02, u4(1) + i(0x100) + u4(0) + i(1)) + rec(0x02, u4(4) + i(0x50) + u4(0) + i(5)) +
        rec(0x04, i(9) + i(3) + i(3) + i(3) + u4(1) + u4(5)) + rec(0x05, u4(1) + u4(1) + u4(1) + i(9)))
seg = (cdump(0x50, 0) + cdump(0x100, 0x50, [(3, 2), (3, 10)], [(3, 0x1000)]) + b"\x05" + i(0x100) +
       b"\x03" + i(0x1000) + u4(1) + u4(0) + b"\x08" + i(0x1008) + u4(1) + u4(1) + b"\x01" + i(0x2000) + i(0) +
       b"\x21" + i(0x1000) + u4(0) + i(0x100) + u4(12) + i(0x1008) + u4(1) +
       b"\x21" + i(0x1008) + u4(0) + i(0x100) + u4(12) + i(0x1000) + u4(2) +
       b"\x22" + i(0x2000) + u4(0) + u4(2) + i(0x100) + i(0x1000) + i(0x1008) +
       b"\x23" + i(0x3000) + u4(0) + u4(3) + b"\x08" + b"abc")
dump = b"JAVA PROFILE 1.0.2\0" + u4(8) + i(0) + body + rec(0x1C, seg) + rec(0x2C, b"")
open(d + "/synthetic", "wb").write(dump)
open(d + "/synthetic.gz", "wb").write(gzip.compress(dump))
open(d + "/id4", "wb").write(dump.replace(b"1.0.2\0" + u4(8), b"1.0.1\0" + u4(4), 1)[:40])
PY
if command -v java >/dev/null 2>&1 && command -v jcmd >/dev/null 2>&1 &&
    javac -d "$out/hprof/cl" test/java/HeapLeak.java 2>/dev/null; then
  java -Xmx16m -XX:+UseSerialGC -cp "$out/hprof/cl" HeapLeak 20 >/dev/null 2>&1 &
  hp_pid=$!
  case $out in /*) hp_dir=$out/hprof ;; *) hp_dir=$PWD/$out/hprof ;; esac
  hp_i=0
  until jcmd "$hp_pid" GC.heap_dump -gz=9 "$hp_dir/real.gz" >/dev/null 2>&1 ||
      [ $hp_i -ge 60 ]; do
    sleep 0.5
    hp_i=$((hp_i + 1))
  done
  kill "$hp_pid" 2>/dev/null || true
  wait "$hp_pid" 2>/dev/null || true
  rm -rf "$out/hprof/cl"
fi
