# jcmd.sh - jvmtool jcmd against jcmd (a piece of test/bench.sh)
#
# One VM.version request to a live JVM, each tool started fresh.
bench_jvm Busy
bench_pair "jcmd <pid> VM.version" "$JT jcmd $BENCH_PID VM.version" \
  "jcmd $BENCH_PID VM.version"
