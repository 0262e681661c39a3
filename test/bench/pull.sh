# pull.sh - bench piece: serve's profile pulls
#
# The overhead of a pulled profile on the known workload: two JfrWork
# burners print their rounds each second, one is pulled (a 12 s
# /debug/pprof/profile at 10 ms from second 16; then the same for
# /debug/pprof/mutex at its 1 ms threshold, beside contenders), the other is the control
# under the same machine load; the median of the pulled/control ratio in
# seconds 20-27 against that of seconds 5-14 and 34-43 (no pull, before
# and after): a load that drifts moves both burners. Then 10 JVMs pulled at once (serve --max-pulls 10, 5 s each): the
# statuses, the wall time until the last answer, serve's peak RSS, and a
# /metrics scrape's time while they run. Then a scrape's time while 4 pulls
# of stopped JVMs are stuck (they answer 504 after seconds + 30 s).
if ! [ -f "$JT_TMP/classes/JfrWork.class" ]; then
  echo "pull: no JDK, skipped"
else
PULL_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$JT serve --listen "127.0.0.1:$PULL_PORT" --max-pulls 10 >/dev/null 2>&1 &
PULL_SERVE=$!
echo $PULL_SERVE >> "$JT_TMP/pids"
# overhead PATH-AND-QUERY WORKLOAD LABEL: the burner's rounds of a pulled
# JVM and of a control, seconds 5-14 and 34-43 alone, 20-27 pulled
overhead() {
  java -cp "$JT_TMP/classes" JfrWork "$2" 45 > "$JT_TMP/pull.rate" 2>&1 &
  jp=$!
  java -cp "$JT_TMP/classes" JfrWork "$2" 45 > "$JT_TMP/pull.ctl" 2>&1 &
  jc=$!
  echo "$jp $jc" >> "$JT_TMP/pids"
  sleep 16
  curl -s -o "$JT_TMP/pull.pb.gz" \
    "http://127.0.0.1:$PULL_PORT/debug/pprof/$1&pid=$jp&seconds=12"
  wait $jp $jc
  # each second's rounds of the pulled JVM over the control's
  paste "$JT_TMP/pull.rate" "$JT_TMP/pull.ctl" |
  awk -v what="$3" 'NR > 1 && $2 > 0 { r[NR - 1] = $1 / $2; p[NR - 1] = $1 }
    function med(x, a, b,   n, i, j, t, v) { n = 0
      for (i = a; i <= b; i++) v[++n] = x[i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    END { a = (med(r, 5, 14) + med(r, 34, 43)) / 2; b = med(r, 20, 27)
      printf "pull overhead (%s): pulled/control rounds %.3f alone (%.3f before, %.3f after), %.3f while pulled: %.1f %% (pulled JVM %.0f rounds/s alone, %.0f while pulled)\n", what, a, med(r, 5, 14), med(r, 34, 43), b, (a - b) * 100 / a, (med(p, 5, 14) + med(p, 34, 43)) / 2, med(p, 20, 27) }'
}
overhead "profile?interval=10ms" rate "serve /debug/pprof/profile, cpu, 10 ms"
# the mutex threshold's cost: the burner beside three contenders on one
# monitor, an allocator and a parker (JfrWork allrate), pulled at 1 ms
overhead "mutex?threshold=1ms" allrate "serve /debug/pprof/mutex, threshold 1 ms, JfrWork allrate"

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
echo "pull of 10 JVMs at once (5 s each): $(sort "$JT_TMP/pull.codes" | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }'), last answer after $(( (t1 - t0) / 1000000 )) ms, a /metrics scrape meanwhile ${sc} s, serve peak RSS $(awk '/^VmHWM/ { print $2, $3 }' /proc/$PULL_SERVE/status)"

# 4 pulls stuck: 4 of those JVMs (their attach listeners up) stopped and
# pulled; /metrics' median of 10 scrapes before and while they are stuck
scrapes() {
  for i in 1 2 3 4 5 6 7 8 9 10; do
    curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$PULL_PORT/metrics"
  done | sort -n | awk '{ v[NR] = $1 } END { print (v[5] + v[6]) / 2 }'
}
PULL_STUCK=$(echo $PULL_JVMS | cut -d' ' -f1-4)
before=$(scrapes)
kill -STOP $PULL_STUCK
: > "$JT_TMP/pull.stuck"
for p in $PULL_STUCK; do
  curl -s -o /dev/null -w '%{http_code}\n' \
    "http://127.0.0.1:$PULL_PORT/debug/pprof/profile?pid=$p&seconds=1" \
    >> "$JT_TMP/pull.stuck" &
done
sleep 2
during=$(scrapes)
while [ "$(wc -l < "$JT_TMP/pull.stuck")" -lt 4 ]; do sleep 0.1; done
kill -CONT $PULL_STUCK
echo "a /metrics scrape while 4 pulls are stuck (stopped JVMs): median of 10 ${during} s, ${before} s before; the pulls: $(sort "$JT_TMP/pull.stuck" | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')"
kill $PULL_SERVE
for p in $PULL_JVMS; do kill $p 2>/dev/null; done
fi
