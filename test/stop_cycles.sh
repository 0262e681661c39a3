#!/bin/sh
# stop_cycles.sh - by hand, not in the suite: agent-5.2's sequence N times
# and how many stops ran out their 10 s bound (issue 13 point 5).
#
#   [THREADS=4] [HOLD=1] sh test/stop_cycles.sh [N] [JVMTOOL]
#
# Each cycle, as agent-5.2 ran it before restarts were refused: a fresh JVM
# (-Xmx64m AllocStress THREADS 60); "JVMTOOL agent-install PID --strategy time
# --interval 5ms"; --status; 1 s; the same agent loaded again with the
# lifetime recorder (the agent stops and restarts; through "JVMTOOL jcmd
# PID JVMTI.agent_load", since agent-install now refuses a restart); HOLD s;
# "JVMTOOL agent-install PID --stop -o FILE" (its attach timeout: 10 s).
# A cycle hits the bound when the restart (which stops the first run) or
# the stop fails or takes 9.5 s or more, or the agent says "did not end" on
# the JVM's stderr. JVMTOOL is dist/jvmtool
# unless named (e.g. /tmp/oldroot/dist/jvmtool: the old code). Prints one
# line per cycle and "N cycles, K hit the bound".
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
N=${1:-100}
JT=$(realpath "${2:-$TOP/dist/jvmtool}")
W=$(mktemp -d /tmp/jvmtool-cycles.XXXXXX)
chmod 755 "$W"
JVM=
so=
trap '[ -n "$JVM" ] && kill $JVM 2>/dev/null; rm -rf "$W" $so' EXIT
trap 'exit 1' INT TERM
javac -d "$W/classes" test/java/AllocStress.java || exit 1
printf 'recorder=lifetime\nsample.interval.bytes=65536\n' > "$W/p2"

ms() { date +%s%3N; }

hits=0
c=1
while [ $c -le "$N" ]; do
  java -Xmx64m -cp "$W/classes" AllocStress ${THREADS:-4} 60 > "$W/jvm.out" 2>&1 &
  JVM=$!
  i=0
  while [ $i -lt 100 ] && ! [ -s /tmp/hsperfdata_$(id -un)/$JVM ]; do
    sleep 0.1
    i=$((i + 1))
  done
  sleep 0.3
  # The samples file of the restart: where the first run's went, as the
  # agent-install that ran the restart before would have named it.
  r1=$("$JT" agent-install $JVM --strategy time --interval 5ms 2>&1 >/dev/null)
  st=$("$JT" agent-install $JVM --status)
  so=$(grep -o '/tmp/jvmtool-agent-[0-9a-f]*\.so' /proc/$JVM/maps | head -1)
  out=$(printf '%s\n' "$st" | sed -n 's/^pid [0-9]*: sampling into \([^ ]*\).*/\1/p')
  sleep 1
  { cat "$W/p2"; echo "output.file=$out"; } > "$W/p2.$c"
  t0=$(ms)
  r2=$("$JT" jcmd --timeout 10 $JVM JVMTI.agent_load "$so" "$W/p2.$c" 2>&1 |
       sed -n 's/^return code: //p')
  t2=$(( $(ms) - t0 ))
  sleep ${HOLD:-1}
  t0=$(ms)
  "$JT" agent-install $JVM --stop -o "$W/out.txt" 2> "$W/stop.err"
  r3=$?
  t=$(( $(ms) - t0 ))
  hit=
  if [ "$t" -ge 9500 ] || [ "$t2" -ge 9500 ] || [ "$r2" != 0 ] ||
     [ "$r3" != 0 ] || grep -q 'did not end' "$W/jvm.out"; then
    hit=" HIT $(head -1 "$W/stop.err")"
    hits=$((hits + 1))
  fi
  echo "cycle $c: restart=$r2 in ${t2} ms, stop exit $r3 in ${t} ms$hit"
  kill $JVM 2>/dev/null
  wait $JVM 2>/dev/null
  JVM=
  rm -f "$out" $so
  c=$((c + 1))
done
echo "$N cycles, $hits hit the bound"
