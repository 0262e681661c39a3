# stat.sh - jvmtool stat against jstat (a piece of test/bench.sh)
#
# One sample of -gcutil from a live JVM, each tool started fresh; then the
# cost of a sample inside a long run: 1000 samples at interval 0, the
# per-sample figure is that time / 1000.
bench_jvm Busy
bench_pair "stat -gcutil <pid>" "$JT stat -gcutil $BENCH_PID" \
  "jstat -gcutil $BENCH_PID"
bench_floor "  stat -gcutil <pid>" "$JT" stat -gcutil "$BENCH_PID"
long=$($M 5 sh -c "$JT stat -gcutil $BENCH_PID 0 1000") &&
  echo "$long" | awk '{ printf "%-28s %9.2f ms %8d KiB | %.1f us per sample\n",
    "stat -gcutil, 1000 samples", $1, $2, $1 * 1000 / 1000 }'
