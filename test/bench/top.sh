# top.sh - jvmtool top's own CPU per refresh with 1, 10 and 50 JVMs (a
# piece of test/bench.sh). top runs -b -n 20 -d 0.2 (the work of a refresh
# does not depend on -d); its user+system ticks come from /proc: the
# cutime+cstime of the shell that waited for it. At -d 1, one refresh a
# second, "ms per refresh" / 10 is the % of one core. Pieces before this
# one may have left JVMs running: the count printed is what top saw.
top_cpu() {
  sh -c '"$1" top -b -n 20 -d 0.2 > /dev/null; cat /proc/$$/stat' sh "$JT" |
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, "");
      printf "%.2f", ($14 + $15) * 1000 / hz / 20 }'
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
