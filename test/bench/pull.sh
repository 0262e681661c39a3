# pull.sh - bench piece: serve's profile pulls
#
# The overhead of a pulled profile on the known workload (as jfr.sh
# measures profile's): JfrWork's burner prints its rounds each second; the
# median of seconds 20-27 (a /debug/pprof/profile pull of 12 s at 10 ms
# running) against those of seconds 5-14 and 34-43 (no pull, before and
# after). Then 10 JVMs pulled at once (serve --max-pulls 10, 5 s each): the
# statuses, the wall time until the last answer, serve's peak RSS, and a
# /metrics scrape's time while they run.
if ! [ -f "$JT_TMP/classes/JfrWork.class" ]; then
  echo "pull: no JDK, skipped"
else
PULL_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$JT serve --listen "127.0.0.1:$PULL_PORT" --max-pulls 10 >/dev/null 2>&1 &
PULL_SERVE=$!
echo $PULL_SERVE >> "$JT_TMP/pids"
java -cp "$JT_TMP/classes" JfrWork rate 45 > "$JT_TMP/pull.rate" 2>&1 &
jp=$!
echo $jp >> "$JT_TMP/pids"
sleep 16
curl -s -o "$JT_TMP/pull.pb.gz" \
  "http://127.0.0.1:$PULL_PORT/debug/pprof/profile?pid=$jp&seconds=12"
wait $jp
awk 'NR > 1 { r[NR - 1] = $1 }
  function med(a, b,   n, i, j, t, v) { n = 0
    for (i = a; i <= b; i++) v[++n] = r[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
  END { a = (med(5, 14) + med(34, 43)) / 2; b = med(20, 27)
    printf "pull overhead (serve /debug/pprof/profile, cpu, 10 ms): burner %.0f rounds/s alone (%.0f before, %.0f after), %.0f while pulled: %.1f %%\n", a, med(5, 14), med(34, 43), b, (a - b) * 100 / a }' "$JT_TMP/pull.rate"

# 10 JVMs at once
PULL_JVMS=
while [ "$(echo $PULL_JVMS | wc -w)" -lt 10 ]; do
  bench_jvm -Xmx32m -XX:TieredStopAtLevel=1 Busy 900
  PULL_JVMS="$PULL_JVMS $BENCH_PID"
done
t0=$(date +%s%N)
for p in $PULL_JVMS; do
  curl -s -o /dev/null -w '%{http_code}\n' \
    "http://127.0.0.1:$PULL_PORT/debug/pprof/profile?pid=$p&seconds=5" \
    >> "$JT_TMP/pull.codes" &
done
sleep 3
sc=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PULL_PORT/metrics")
wait_pulls() {
  while [ "$(wc -l < "$JT_TMP/pull.codes")" -lt 10 ]; do sleep 0.05; done
}
wait_pulls
t1=$(date +%s%N)
echo "pull of 10 JVMs at once (5 s each): $(sort "$JT_TMP/pull.codes" | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }'), last answer after $(( (t1 - t0) / 1000000 )) ms, a /metrics scrape meanwhile ${sc} s, serve peak RSS $(sed -n 's/^VmHWM: *//p' /proc/$PULL_SERVE/status)"
kill $PULL_SERVE
for p in $PULL_JVMS; do kill $p 2>/dev/null; done
fi
