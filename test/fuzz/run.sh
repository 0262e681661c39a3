#!/bin/sh
# fuzz/run.sh - run every libFuzzer target for SECONDS each (./build.sh fuzz)
#
# Each test/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput and checks an
# invariant besides "no crash". Seeds come from test/fuzz/seeds.sh (made by
# the build, never copied from elsewhere) plus test/fuzz/regress/<name>/,
# which also holds every input that once crashed (the normal suite replays
# them, see test/fuzz.test). A crash, leak or sanitizer report fails the run;
# the input is saved to test/fuzz/regress/<name>/ for a regression test.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
out=dist/fuzz
mkdir -p "$out"
command -v clang >/dev/null || { echo "fuzz: clang not found (install clang)" >&2; exit 1; }
sh test/fuzz/seeds.sh "$out/seeds" || exit 1
. ./build.d/flags.sh
status=0
# core/ and agent/config.c are compiled once (instrumented for the
# fuzzer, two files at a time), each target then compiles its own file
# and links.
rm -rf "$out/core"
mkdir -p "$out/core"
i=0
for c in core/*.c agent/config.c; do
  clang $BASE $DEBUG $TESTINC -fsanitize=fuzzer-no-link $SAN -c "$c" \
    -o "$out/core/$(basename "$c" .c).o" &
  i=$((i + 1))
  [ $((i % 2)) = 0 ] && wait
done
wait
# Each target runs SECONDS on its own core: as many at once as there are
# cores (the smoke's wall time is SECONDS x targets / cores); the results
# are printed in the targets' order as each batch ends.
jobs=$(nproc 2>/dev/null || echo 1)
# fuzz_one NAME: run dist/fuzz/fuzz_NAME, write its verdict to $out/NAME.res
fuzz_one() {
  name=$1
  bin=$out/fuzz_$name
  corpus=$out/corpus/$name
  mkdir -p "$corpus" "test/fuzz/regress/$name"
  cp "$out/seeds/$name"/* "$corpus/" 2>/dev/null
  dict=; [ -f "test/fuzz/$name.dict" ] && dict="-dict=test/fuzz/$name.dict"
  rm -rf "$out/art.$name"; mkdir -p "$out/art.$name"
  # Cost limits: the PerfData and JFR readers are linear in what they read
  # and capped (docs/security.md §7), so one input of theirs takes
  # milliseconds and a few MiB; 2 s or 512 MiB is a quadratic walk or a
  # buffer sized from a claim (the pairwise name compare of e4c4033 took
  # 26 s on a 1.6 MB input, a record claiming 1 GiB took 1 GiB).
  case $name in
    perfdata|jfr) limits="-timeout=2 -rss_limit_mb=512 -max_len=2200000" ;;
    *) limits="-timeout=10 -rss_limit_mb=2048" ;;
  esac
  "$bin" -max_total_time="$secs" -print_final_stats=1 $limits \
    -artifact_prefix="$out/art.$name/" $dict "$corpus" \
    "test/fuzz/regress/$name" > "$out/$name.log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
  if [ $rc = 0 ] && ! ls "$out/art.$name"/* >/dev/null 2>&1; then
    echo "PASS: fuzz $name: ${execs:-?} runs in ${secs}s, corpus $(ls "$corpus" | wc -l)"
  else
    echo "FAIL: fuzz $name (exit $rc), see $out/$name.log"
    grep -m5 -E 'ERROR|SUMMARY|runtime error|invariant' "$out/$name.log" | sed 's/^/  /'
    for a in "$out/art.$name"/*; do
      [ -f "$a" ] && cp "$a" "test/fuzz/regress/$name/" &&
        echo "  saved $(basename "$a") to test/fuzz/regress/$name/"
    done
  fi > "$out/$name.res"
}
# the targets compile and link as many at once too
i=0
for src in test/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c | sed 's/^fuzz_//')
  rm -f "$out/fuzz_$name"
  clang $BASE $DEBUG $TESTINC -fsanitize=fuzzer $SAN \
    "$src" "$out"/core/*.o $TESTLIBS -o "$out/fuzz_$name" -lm &
  i=$((i + 1))
  [ $((i % jobs)) = 0 ] && wait
done
wait
names=
for src in test/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c | sed 's/^fuzz_//')
  if [ -x "$out/fuzz_$name" ]; then
    names="$names $name"
  else
    echo "FAIL: fuzz $name: does not compile"
    status=1
  fi
done
batch=
for name in $names; do
  fuzz_one "$name" &
  batch="$batch $name"
  set -- $batch
  [ $# -lt "$jobs" ] && continue
  wait
  for b in $batch; do cat "$out/$b.res"; done
  batch=
done
wait
for b in $batch; do cat "$out/$b.res"; done
for name in $names; do
  grep -q '^PASS' "$out/$name.res" || status=1
done
exit $status
