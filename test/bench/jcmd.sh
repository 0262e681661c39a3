# jcmd.sh - jvmtool jcmd against jcmd, and against jattach (a piece of
# test/bench.sh)
#
# One VM.version request to a live JVM, each tool started fresh. jattach
# (a C attach client, when installed) is the figure to beat: the same
# request with no JVM started, and none of our checks (the target's root,
# the socket's owner and peer, the attach-disabled rule).
bench_jvm Busy
bench_pair "jcmd <pid> VM.version" "$JT jcmd $BENCH_PID VM.version" \
  "jcmd $BENCH_PID VM.version"
if command -v jattach >/dev/null; then
  ours=$($M 200 "$JT" jcmd "$BENCH_PID" VM.version)
  theirs=$($M 200 jattach "$BENCH_PID" jcmd VM.version)
  set -- $ours $theirs
  awk -v om="$1" -v tm="$3" 'BEGIN {
    printf "%-28s %9.2f ms | jattach %7.2f ms | %.2fx jattach'"'"'s time\n",
      "jcmd VM.version, 200 runs", om, tm, om / tm }'
fi
