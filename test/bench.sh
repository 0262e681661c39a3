#!/bin/sh
# bench.sh - measure jvmtool against the JDK tools in the same run
#
# Each test/bench/*.sh piece calls
#   bench_pair "label" "jvmtool command" "JDK command"
# which prints median wall time and peak RSS of both and their ratios.
# BENCH_PIECES (default all) names the pieces to run.
# RUNS (default 15 for jvmtool, JDK_RUNS default 7) sets the repetitions.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
JT="$TOP/dist/jvmtool"
JT_TMP=$(mktemp -d /tmp/jvmtool-bench.XXXXXX)
export TOP JT JT_TMP
trap 'for p in $(cat "$JT_TMP/pids" 2>/dev/null); do kill -9 $p 2>/dev/null; done; rm -rf "$JT_TMP"' EXIT INT TERM
cc -O2 -o "$JT_TMP/measure" test/bench/measure.c || exit 1
M="$JT_TMP/measure"

bench_pair() {
  ours=$($M "${RUNS:-15}" sh -c "$2") || { echo "$1: jvmtool failed"; return; }
  if [ -n "$3" ]; then
    theirs=$($M "${JDK_RUNS:-7}" sh -c "$3") || { echo "$1: JDK tool failed"; return; }
  else
    theirs="- -"
  fi
  set -- "$1" $ours $theirs
  awk -v l="$1" -v om="$2" -v or="$3" -v tm="$4" -v tr="$5" 'BEGIN {
    if (tm == "-") { printf "%-28s %9.2f ms %8d KiB\n", l, om, or; exit }
    printf "%-28s %9.2f ms %8d KiB | JDK %9.2f ms %8d KiB | %6.0fx faster %5.0fx less memory\n",
      l, om, or, tm, tr, tm / om, tr / or }'
}

echo "jvmtool $("$JT" --version | cut -d' ' -f2), $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)"
echo "binary: $(wc -c < "$JT") bytes, $(file -b "$JT" | cut -d, -f1-2)"
echo "median wall time and peak RSS (jvmtool ${RUNS:-15} runs, JDK ${JDK_RUNS:-7} runs)"
# Pieces start JVMs with bench_jvm and leave them to the EXIT trap.
bench_jvm() {
  java -cp "$JT_TMP/classes" "$@" >/dev/null 2>&1 &
  echo $! >> "$JT_TMP/pids"
  BENCH_PID=$!
  f=/tmp/hsperfdata_$(id -un)/$BENCH_PID
  i=0
  while [ $i -lt 300 ] && ! [ "$(od -An -tu1 -j7 -N1 "$f" 2>/dev/null | tr -d ' ')" = 1 ]; do
    sleep 0.1; i=$((i + 1))
  done
}
mkdir -p "$JT_TMP/classes"
javac -d "$JT_TMP/classes" test/java/*.java || exit 1
for piece in ${BENCH_PIECES:-test/bench/*.sh}; do
  [ -f "$piece" ] && . "./$piece"
done
