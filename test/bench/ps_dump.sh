# ps_dump.sh - jvmtool ps against jps, jvmtool dump against jstat -snap
# (a piece of test/bench.sh). Two JVMs are running so ps has work to do;
# dump reads the same live file jstat attaches to.
bench_jvm Busy
bench_jvm Busy
bench_pair "ps" "$JT ps" "jps"
bench_floor "  ps" "$JT" ps
bench_pair "ps -lmvV" "$JT ps -lmvV" "jps -lmvV"
bench_pair "dump <pid>" "$JT dump $BENCH_PID" \
  "jstat -J-Djstat.showUnsupported=true -snap $BENCH_PID"
bench_floor "  dump <pid>" "$JT" dump "$BENCH_PID"
# JT_OLD=path: the same floors of another build, in the same run
if [ -n "${JT_OLD:-}" ]; then
  bench_floor "  ps (JT_OLD)" "$JT_OLD" ps
  bench_floor "  dump <pid> (JT_OLD)" "$JT_OLD" dump "$BENCH_PID"
fi
