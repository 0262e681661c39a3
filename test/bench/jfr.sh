# jfr.sh - bench piece: collapse on a .jfr against `jfr print --json`, the
# time of reading the file, and profile's overhead on a known workload
#
# The recording is made here: test/java/JfrWork (all threads) recorded by
# its own jcmd with settings=profile for 20 s, then copied back to back
# (a recording is chunks back to back, so the copies are one valid
# recording to both readers). "cat" is the floor: reading the bytes. The
# overhead: JfrWork's burner prints its rounds each second; the median of
# seconds 20-27 (profile --event cpu at 10 ms running) against those of
# seconds 5-14 and 34-43 (no profile, before and after: a machine whose
# load drifts moves both sides).
if ! command -v jfr >/dev/null || ! [ -f "$JT_TMP/classes/JfrWork.class" ]; then
  echo "jfr: no JDK, skipped"
else
java -cp "$JT_TMP/classes" JfrWork all 120 > /dev/null 2>&1 &
jp=$!
echo $jp >> "$JT_TMP/pids"
sleep 2
jcmd $jp JFR.start name=b settings=profile duration=20s filename="$JT_TMP/one.jfr" > /dev/null
for i in $(seq 400); do [ -s "$JT_TMP/one.jfr" ] && ! jcmd $jp JFR.check | grep -q name=b && break; sleep 0.1; done
kill $jp; wait $jp 2>/dev/null  # a JVM still exiting competes with what is measured
for i in $(seq 20); do cat "$JT_TMP/one.jfr"; done > "$JT_TMP/x.jfr"
mb=$(awk -v b="$(wc -c < "$JT_TMP/x.jfr")" 'BEGIN { printf "%.1f", b / 1048576 }')
ev=$(jfr summary "$JT_TMP/x.jfr" | awk '$1 == "jdk.ExecutionSample" { print $2 }')
set -- $($M 7 "$JT" collapse "$JT_TMP/x.jfr" -o /dev/null) \
  $($M 3 jfr print --json --events jdk.ExecutionSample "$JT_TMP/x.jfr") \
  $($M 7 sh -c "cat '$JT_TMP/x.jfr' > /dev/null") \
  $($M 7 "$JT" collapse --event alloc "$JT_TMP/x.jfr" -o /dev/null)
c=$1
awk -v mb="$mb" -v ev="$ev" -v c="$1" -v cr="$2" -v j="$3" -v jr="$4" -v r="$5" -v a="$7" 'BEGIN {
  printf "collapse x.jfr %s MB (%d cpu samples): %.1f ms, %.0f MB/s, %d KiB | jfr print --json %.0f ms, %.1f MB/s, %d KiB | %.0fx jfr print | cat %.1f ms (%.1fx) | --event alloc %.1f ms\n",
    mb, ev, c, mb * 1000 / c, cr, j, mb * 1000 / j, jr, j / c, r, c / r, a }'

# async-profiler's converter, when one is at hand: AP_CONVERTER names the
# classes compiled from its src/converter (javac -d DIR $(find src/converter
# -name '*.java')); its default on a JDK recording folds the CPU samples
if [ -n "${AP_CONVERTER:-}" ]; then
  set -- $($M 3 java -cp "$AP_CONVERTER" one.convert.Main -o collapsed "$JT_TMP/x.jfr" "$JT_TMP/ap.txt") $c
  awk -v mb="$mb" -v a="$1" -v ar="$2" -v c="$3" 'BEGIN {
    printf "async-profiler converter (-o collapsed) %.0f ms, %.1f MB/s, %d KiB | collapse x.jfr %.0fx faster\n", a, mb * 1000 / a, ar, a / c }'
fi

# profile's overhead on the burner
java -cp "$JT_TMP/classes" JfrWork rate 45 > "$JT_TMP/rate" 2>&1 &
jp=$!
echo $jp >> "$JT_TMP/pids"
sleep 16
"$JT" profile $jp --duration 12s -o "$JT_TMP/prof.txt" 2>/dev/null
wait $jp
awk 'NR > 1 { r[NR - 1] = $1 }
  function med(a, b,   n, i, j, t, v) { n = 0
    for (i = a; i <= b; i++) v[++n] = r[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
  END { a = (med(5, 14) + med(34, 43)) / 2; b = med(20, 27)
    printf "profile overhead (cpu, 10 ms): burner %.0f rounds/s alone (%.0f before, %.0f after), %.0f while profiled: %.1f %%\n", a, med(5, 14), med(34, 43), b, (a - b) * 100 / a }' "$JT_TMP/rate"

# profile's own CPU (user+system, median of 7): cpu accounted from /proc
# (each thread's stat at the start and the stop, a status read per thread
# that ran) against --value samples (no /proc reads), and wall (schedstat
# too), on JfrWork all; the difference is what the accounting costs
java -cp "$JT_TMP/classes" JfrWork all 120 > /dev/null 2>&1 &
jp=$!
echo $jp >> "$JT_TMP/pids"
sleep 2
"$JT" profile $jp --duration 1s -o /dev/null 2>/dev/null # JFR loaded
cpu_ms() {
  python3 -c 'import os, subprocess, sys
v = []
for _ in range(7):
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    ru = os.wait4(p.pid, 0)[2]
    v.append((ru.ru_utime + ru.ru_stime) * 1000)
print("%.1f" % sorted(v)[3])' "$@"
}
set -- $(cpu_ms "$JT" profile $jp --duration 1s -o /dev/null) \
  $(cpu_ms "$JT" profile $jp --duration 1s --value samples -o /dev/null) \
  $(cpu_ms "$JT" profile $jp --event wall --duration 1s -o /dev/null) \
  $(ls /proc/$jp/task | wc -l)
kill $jp; wait $jp 2>/dev/null
echo "profile's own CPU, 1 s of JfrWork all ($4 threads): cpu accounted $1 ms, --value samples $2 ms, wall $3 ms"
fi
