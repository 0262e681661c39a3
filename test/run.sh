#!/bin/sh
# run.sh - run jvmtool's tests: C unit tests of core/, then test/*.test.
#
#   sh test/run.sh [NAME...]   NAME selects test/NAME.test or test/unit/NAME.c
#   JT=/path/jvmtool sh test/run.sh NAME   the same tests against another build
#
# Every test prints PASS:/FAIL:/SKIP: lines; this script counts them and ends
# with "N passed, N failed, N skipped". A test file that dies without saying
# FAIL counts as one failure. JT_TMP is a fresh folder, removed at the end.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
JT="${JT:-$TOP/dist/jvmtool}"   # JT=/other/jvmtool: test another build
JT_TMP=$(mktemp -d /tmp/jvmtool-test.XXXXXX)
chmod 755 "$JT_TMP"
export TOP JT JT_TMP
trap 'rm -rf "$JT_TMP"' EXIT INT TERM
log="$JT_TMP/results"
: > "$log"

wanted() {
  [ $# -gt 1 ] || return 0
  n=$1; shift
  for w in "$@"; do [ "$w" = "$n" ] && return 0; done
  return 1
}

# Unit tests: each test/unit/X.c is linked with core/*.c by the host compiler
# and never with dist/jvmtool; with SANITIZE=1 under ASan+UBSan too. The
# flags are the build's (build.d/flags.sh).
. ./build.d/flags.sh
HOSTCC=${HOSTCC:-cc}
UNIT_SAN=
if [ "${SANITIZE:-0}" = 1 ]; then HOSTCC=clang UNIT_SAN=$SAN; fi
unit_cc() { $HOSTCC $BASE $DEBUG $TESTINC $UNIT_SAN "$@" $TESTLIBS core/*.c -lm; }
mkdir -p dist/unit

# Test tools: mkperf writes PerfData files (the unit tests' writer).
if unit_cc test/mkperf.c -o dist/unit/mkperf 2>"$JT_TMP/cc.err"; then
  export MKPERF="$TOP/dist/unit/mkperf"
else
  echo "FAIL: test/mkperf.c does not compile" | tee -a "$log"
  cat "$JT_TMP/cc.err"
fi

for src in test/unit/*.c; do
  [ -f "$src" ] || continue
  name=$(basename "$src" .c)
  case "$name" in *_lib) continue ;; esac
  wanted "$name" "$@" || continue
  bin=dist/unit/$name
  if ! unit_cc "$src" -o "$bin" 2>"$JT_TMP/cc.err"; then
    echo "FAIL: unit/$name: does not compile" | tee -a "$log"
    cat "$JT_TMP/cc.err"
    continue
  fi
  ( cd "$JT_TMP" && "$TOP/$bin" ) > "$JT_TMP/out" 2>&1
  rc=$?
  cat "$JT_TMP/out" | tee -a "$log" | grep -v '^PASS:' || true
  grep -q '^FAIL:' "$JT_TMP/out" ||
    [ $rc = 0 ] || echo "FAIL: unit/$name: exit $rc" | tee -a "$log"
done

# Java programs the command tests run: compiled once per run.
if command -v javac >/dev/null 2>&1; then
  mkdir -p "$JT_TMP/classes"
  javac -d "$JT_TMP/classes" test/java/*.java 2>&1 || echo "FAIL: javac test/java" >> "$log"
  export JT_CLASSES="$JT_TMP/classes"
fi

for t in test/*.test; do
  [ -f "$t" ] || continue
  name=$(basename "$t" .test)
  wanted "$name" "$@" || continue
  ( cd "$JT_TMP" && sh "$TOP/$t" ) > "$JT_TMP/out" 2>&1
  rc=$?
  tee -a "$log" < "$JT_TMP/out" | grep -v '^PASS:' || true
  grep -q '^FAIL:' "$JT_TMP/out" ||
    [ $rc = 0 ] || echo "FAIL: $name.test: exit $rc" | tee -a "$log"
done

pass=$(grep -c '^PASS:' "$log")
fail=$(grep -c '^FAIL:' "$log")
skip=$(grep -c '^SKIP:' "$log")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
