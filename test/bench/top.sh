# top.sh - jvmtool top's own CPU per refresh with 1, 10 and 50 JVMs (a
# piece of test/bench.sh). top runs -b -n 10 -d 1 (so it lists the JVMs
# anew twice, as it does every 5 s, and reads the known ones in between);
# its user+system ticks come from /proc: the cutime+cstime of the shell
# that waited for it, over 11 readings (the first is the baseline), shown
# per refresh. At -d 1, "ms per refresh" / 10 is the % of one core. Pieces
# before this one may have left JVMs running: the count printed is what
# top saw.
top_cpu() {
  sh -c '"$1" top -b -n 10 -d 1 > /dev/null; cat /proc/$$/stat' sh "$JT" |
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, "");
      printf "%.2f", ($14 + $15) * 1000 / hz / 10 }'
}
top_row() {
  n=$("$JT" ps -q | wc -l)
  ms=$(top_cpu)
  awk -v n="$n" -v ms="$ms" 'BEGIN {
    printf "%-28s %9.2f ms CPU per refresh (%.2f %% of a core at -d 1)\n",
      "top, " n " JVMs", ms, ms / 10 }'
}
bench_jvm -Xmx16m -XX:TieredStopAtLevel=1 Sleeper 3600
top_row
for i in $(seq 9); do bench_jvm -Xmx16m -XX:TieredStopAtLevel=1 Sleeper 3600; done
top_row
for i in $(seq 40); do bench_jvm -Xmx16m -XX:TieredStopAtLevel=1 Sleeper 3600; done
top_row
