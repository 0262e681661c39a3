# serve.sh - one scrape of jvmtool serve with N JVMs (N = 1, 10, 50) against
# dump --prometheus run once per JVM (a piece of test/bench.sh). The JVMs
# are small (-Xmx16m, C1 only); serve counts every JVM of this user, so any
# other JVM running on the machine adds to N. Figures: the scrape's wall
# time (curl), serve's peak RSS (VmHWM) after the scrapes.
SERVE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$JT serve --listen "127.0.0.1:$SERVE_PORT" --all-users >/dev/null 2>&1 &
SERVE_PID=$!
echo $SERVE_PID >> "$JT_TMP/pids"
SERVE_JVMS=
for n in 1 10 50; do
  while [ "$(echo $SERVE_JVMS | wc -w)" -lt $n ]; do
    bench_jvm -Xmx16m -XX:TieredStopAtLevel=1 -Xshare:auto Busy 900
    SERVE_JVMS="$SERVE_JVMS $BENCH_PID"
  done
  bench_pair "serve scrape, $n JVMs" \
    "curl -sf -o /dev/null http://127.0.0.1:$SERVE_PORT/metrics" ""
  bench_pair "dump --prometheus x$n" \
    "for p in $SERVE_JVMS; do $JT dump --prometheus \$p; done" ""
  echo "serve peak RSS (VmHWM) after $n JVMs: $(sed -n 's/^VmHWM: *//p' /proc/$SERVE_PID/status)"
done
kill $SERVE_PID
for p in $SERVE_JVMS; do kill $p 2>/dev/null; done
