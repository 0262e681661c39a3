#!/bin/sh
# stop_cycles.sh - by hand, not in the suite: agent-5.2's sequence N times
# and how many stops ran out the agent's 10 s bound (issue 13 point 5).
#
#   sh test/stop_cycles.sh [N] [AGENT.so]
#
# Each cycle: a fresh JVM (-Xmx64m AllocStress 4 60), the agent loaded with
# the time strategy (5 ms), 1 s, loaded again with the lifetime recorder
# (the agent stops and restarts), 1 s, "stop". A cycle counts as hitting
# the bound when the stop took 9.5 s or more, did not answer "return code:
# 0", or the agent said "did not end" on the JVM's stderr. The agent is
# dist/agent.so unless named (e.g. the old build's). Loads go through the
# JDK's jcmd (the client is not what is measured). Prints one line per
# cycle and "N cycles, K hit the bound".
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
N=${1:-100}
SO=$(realpath "${2:-$TOP/dist/agent.so}")
W=$(mktemp -d /tmp/jvmtool-cycles.XXXXXX)
chmod 755 "$W"
JVM=
trap '[ -n "$JVM" ] && kill $JVM 2>/dev/null; rm -rf "$W"' EXIT INT TERM
javac -d "$W/classes" test/java/AllocStress.java || exit 1
cp "$SO" "$W/agent.so"
printf 'output.file=%s\nsample.strategy=time\nsample.interval.ms=5\n' \
  "$W/c1.txt" > "$W/p1"
printf 'output.file=%s\nrecorder=lifetime\nsample.interval.bytes=65536\n' \
  "$W/c2.txt" > "$W/p2"

ms() { date +%s%3N; }
load() { jcmd "$JVM" JVMTI.agent_load "$W/agent.so" "$1" 2>&1; }

hits=0
c=1
while [ $c -le "$N" ]; do
  rm -f "$W/c1.txt" "$W/c2.txt"
  java -Xmx64m -cp "$W/classes" AllocStress 4 60 > "$W/jvm.out" 2>&1 &
  JVM=$!
  i=0
  r1=
  while [ $i -lt 50 ] && [ "$r1" != 0 ]; do
    sleep 0.2
    r1=$(load "$W/p1" | sed -n 's/^return code: //p')
    i=$((i + 1))
  done
  sleep 1
  r2=$(load "$W/p2" | sed -n 's/^return code: //p')
  sleep 1
  t0=$(ms)
  r3=$(load stop | sed -n 's/^return code: //p')
  t=$(( $(ms) - t0 ))
  hit=
  if [ "$t" -ge 9500 ] || [ "$r3" != 0 ] || grep -q 'did not end' "$W/jvm.out"; then
    hit=" HIT"
    hits=$((hits + 1))
  fi
  echo "cycle $c: start=$r1 restart=$r2 stop=$r3 in ${t} ms$hit"
  kill $JVM 2>/dev/null
  wait $JVM 2>/dev/null
  JVM=
  c=$((c + 1))
done
echo "$N cycles, $hits hit the bound"
