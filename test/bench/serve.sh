# serve.sh - one scrape of jvmtool serve with N JVMs (N = 1, 10, 50) against
# dump --prometheus run once per JVM (a piece of test/bench.sh). The JVMs
# are small (-Xmx16m, C1 only); serve counts every JVM of this user, so any
# other JVM running on the machine adds to N. Figures: the scrape's wall
# time (curl), serve's peak RSS (VmHWM) after the scrapes.
#
# Then 200 PerfData files: 20 real JVMs and 180 planted beside them, each
# named by the pid of a sleep of ours: 60 of 80 000 entries (3.2 MB, over
# HotSpot's 2 MiB: refused), 60 sparse 64 MiB (refused), 60 of 50 000
# entries within 2 MiB (parsed whole). Figures: the scrape with and without
# --raw, the JVMs skipped, serve's peak RSS.
#
# The page's JSON (/api/jvms, top --json's node view) against /metrics for
# the same JVMs: serve's own CPU per request (utime + stime of
# /proc/<serve>/stat over 6 requests) and the median wall time of curl,
# each request 1.2 s after the last, so every one reads every JVM again
# (/api/jvms keeps a reading for 1 s). SERVE_NS="1 10" sets the counts of
# JVMs (default 1 10 50); SERVE_FILES=0 leaves out the 200 files.
serve_cost() {
  sc_t0=$(awk '{ print $14 + $15 }' /proc/$SERVE_PID/stat)
  sc_walls=
  for sc_i in 1 2 3 4 5 6; do
    sleep 1.2
    sc_s=$(date +%s%N)
    curl -sf -o /dev/null "http://127.0.0.1:$SERVE_PORT$1"
    sc_walls="$sc_walls $((($(date +%s%N) - sc_s) / 1000))"
  done
  sc_t1=$(awk '{ print $14 + $15 }' /proc/$SERVE_PID/stat)
  printf '%-28s serve CPU %6.1f ms a request, wall median %7.2f ms\n' "$2" \
    "$(echo "$sc_t0 $sc_t1 $(getconf CLK_TCK)" | awk '{ print ($2 - $1) * 1000 / $3 / 6 }')" \
    "$(echo $sc_walls | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] / 1000 }')"
}
SERVE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$JT serve --listen "127.0.0.1:$SERVE_PORT" --all-users >/dev/null 2>&1 &
SERVE_PID=$!
echo $SERVE_PID >> "$JT_TMP/pids"
SERVE_JVMS=
for n in ${SERVE_NS:-1 10 50}; do
  while [ "$(echo $SERVE_JVMS | wc -w)" -lt $n ]; do
    bench_jvm -Xmx16m -XX:TieredStopAtLevel=1 -Xshare:auto Busy 900
    SERVE_JVMS="$SERVE_JVMS $BENCH_PID"
  done
  bench_pair "serve scrape, $n JVMs" \
    "curl -sf -o /dev/null http://127.0.0.1:$SERVE_PORT/metrics" ""
  bench_pair "dump --prometheus x$n" \
    "for p in $SERVE_JVMS; do $JT dump --prometheus \$p; done" ""
  serve_cost /metrics "serve /metrics, $n JVMs"
  serve_cost /api/jvms "serve /api/jvms, $n JVMs"
  echo "serve peak RSS (VmHWM) after $n JVMs: $(sed -n 's/^VmHWM: *//p' /proc/$SERVE_PID/status)"
done
kill $SERVE_PID
for p in $SERVE_JVMS; do kill $p 2>/dev/null; done

# 200 files: 20 real JVMs, 180 planted
[ "${SERVE_FILES:-1}" = 0 ] || {
SERVE_JVMS=
while [ "$(echo $SERVE_JVMS | wc -w)" -lt 20 ]; do
  bench_jvm -Xmx16m -XX:TieredStopAtLevel=1 -Xshare:auto Busy 900
  SERVE_JVMS="$SERVE_JVMS $BENCH_PID"
done
SERVE_DIR=/tmp/hsperfdata_$(id -un)
SERVE_PLANTED=
i=0
while [ $i -lt 180 ]; do
  sleep 900 &
  echo $! >> "$JT_TMP/pids"
  SERVE_PLANTED="$SERVE_PLANTED $!"
  case $((i % 3)) in
  0) python3 test/serve_check.py perf "$SERVE_DIR/$!" many 80000 ;;
  1) python3 test/serve_check.py perf "$SERVE_DIR/$!" sparse 67108864 ;;
  2) python3 test/serve_check.py perf "$SERVE_DIR/$!" many 50000 ;;
  esac
  i=$((i + 1))
done
for raw in "" --raw; do
  $JT serve --listen "127.0.0.1:$SERVE_PORT" --all-users $raw >/dev/null 2>&1 &
  SERVE_PID=$!
  echo $SERVE_PID >> "$JT_TMP/pids"
  sleep 1
  bench_pair "serve${raw:+ $raw} scrape, 200 files" \
    "curl -sf -o /dev/null http://127.0.0.1:$SERVE_PORT/metrics" ""
  curl -sf "http://127.0.0.1:$SERVE_PORT/metrics" > "$JT_TMP/serve200"
  echo "serve${raw:+ $raw}, 200 files: $(grep -c '^jvmtool_scrape_error{.*} 1$' "$JT_TMP/serve200") skipped, $(grep -c '^jvmtool_scrape_error{.*} 0$' "$JT_TMP/serve200") served, $(wc -c < "$JT_TMP/serve200") bytes; peak RSS (VmHWM) $(sed -n 's/^VmHWM: *//p' /proc/$SERVE_PID/status)"
  kill $SERVE_PID
  wait $SERVE_PID 2>/dev/null
done
for p in $SERVE_PLANTED; do
  kill $p 2>/dev/null
  rm -f "$SERVE_DIR/$p"
done
for p in $SERVE_JVMS; do kill $p 2>/dev/null; done
}
