#!/bin/sh
# run.sh - run jvmtool's tests: C unit tests of core/, then test/*.test.
#
#   sh test/run.sh [NAME...]   NAME selects test/NAME.test or test/unit/NAME.c
#   JT=/path/jvmtool sh test/run.sh NAME   the same tests against another build
#
# Every test prints PASS:/FAIL:/SKIP: lines; this script counts them and ends
# with "N passed, N failed, N skipped". A test file that dies without saying
# FAIL counts as one failure. JT_TMP is a fresh folder, removed at the end.
#
# The test files run JOBS at a time (default: the number of CPUs plus one;
# JOBS=1 runs them one after the other). As root, each runs in a sandbox of
# its own: new pid, mount and network namespaces, a private /proc, /tmp and
# loopback, so JVMs, PerfData files, attach sockets, stale files and ports of
# one file are invisible to the others (and everything a file started ends
# with it). Without root (no unshare) the files share the machine and run
# one at a time. The ten slowest files are listed at the end.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
JT="${JT:-$TOP/dist/jvmtool}"   # JT=/other/jvmtool: test another build
# Not under /tmp: a sandbox puts its own /tmp over the machine's.
JT_TMP=$(mktemp -d /var/tmp/jvmtool-test.XXXXXX)
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
mkdir -p dist/unit/core
# core/ is compiled once, two files at a time (under ASan a compile per
# test program and file took minutes); each program links the objects.
rm -f dist/unit/core/*.o
i=0
for c in core/*.c $TESTLIBS; do
  $HOSTCC $BASE $DEBUG $TESTINC $UNIT_SAN -c "$c" \
    -o "dist/unit/core/$(basename "$c" .c).o" 2>>"$JT_TMP/core.err" &
  i=$((i + 1))
  [ $((i % 2)) = 0 ] && wait
done
wait
unit_cc() { $HOSTCC $BASE $DEBUG $TESTINC $UNIT_SAN "$@" dist/unit/core/*.o -lm; }

# Test tools: mkperf writes PerfData files (the unit tests' writer).
if unit_cc test/mkperf.c -o dist/unit/mkperf 2>"$JT_TMP/cc.err"; then
  export MKPERF="$TOP/dist/unit/mkperf"
else
  echo "FAIL: test/mkperf.c does not compile" | tee -a "$log"
  cat "$JT_TMP/cc.err" "$JT_TMP/core.err"
fi

for src in test/unit/*.c; do
  [ -f "$src" ] || continue
  name=$(basename "$src" .c)
  case "$name" in *_lib) continue ;; esac
  wanted "$name" "$@" || continue
  bin=dist/unit/$name
  if ! unit_cc "$src" -o "$bin" 2>"$JT_TMP/cc.err"; then
    echo "FAIL: unit/$name: does not compile" | tee -a "$log"
    cat "$JT_TMP/cc.err" "$JT_TMP/core.err"
    continue
  fi
  ( cd "$JT_TMP" && "$TOP/$bin" ) > "$JT_TMP/unit.out" 2>&1
  rc=$?
  cat "$JT_TMP/unit.out" | tee -a "$log" | grep -v '^PASS:' || true
  grep -q '^FAIL:' "$JT_TMP/unit.out" ||
    [ $rc = 0 ] || echo "FAIL: unit/$name: exit $rc" | tee -a "$log"
done

# Java programs the command tests run: compiled once per run.
if command -v javac >/dev/null 2>&1; then
  mkdir -p "$JT_TMP/classes"
  javac -d "$JT_TMP/classes" test/java/*.java 2>&1 || echo "FAIL: javac test/java" >> "$log"
  export JT_CLASSES="$JT_TMP/classes"
fi

# The sandbox of one test file (see the header): its /tmp a folder of its
# own in JT_TMP (not a tmpfs: jps tells /tmp folders apart by inode, and a
# container's tmpfs root has the same one as another tmpfs root), with the
# checkout and $JT bound back in where they live under the machine's /tmp
# (a clone in /tmp, JT=/tmp/old/dist/jvmtool).
sandboxed() { # name
  mkdir -p "$JT_TMP/tmp/$1" && chmod 1777 "$JT_TMP/tmp/$1" || return 1
  unshare --pid --mount --fork --mount-proc --net sh -c '
    ip link set lo up || exit 1
    mkdir -p "$JT_TMP/host-tmp" && mount --bind /tmp "$JT_TMP/host-tmp" &&
      mount --bind "$JT_TMP/tmp/$2" /tmp || exit 1
    for p in "$TOP" "$(dirname "$JT")"; do
      case $p in /tmp/*)
        mkdir -p "$p" && mount --bind "$JT_TMP/host-tmp/${p#/tmp/}" "$p" ||
          exit 1 ;;
      esac
    done
    umount -l "$JT_TMP/host-tmp"
    # a child of this pid 1, not pid 1 itself: tests take $$ for a pid
    # that is not 1 (the first process of a container they make)
    cd "$JT_TMP" && sh "$1"' sh "$TOP/test/$1.test" "$1"
}
isolate=
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null &&
   unshare --pid --mount --fork --mount-proc --net true 2>/dev/null; then
  isolate=1
fi
jobs=${JOBS:-$(( $(nproc 2>/dev/null || echo 1) + 1 ))}
[ -n "$isolate" ] || jobs=1

# One test file: its output in out/NAME, its seconds in times; the
# results go to the log when it ends (a line each: no interleaving).
run_one() { # name
  _start=$(date +%s)
  if [ -n "$isolate" ]; then sandboxed "$1"
  else ( cd "$JT_TMP" && sh "$TOP/test/$1.test" ); fi > "$JT_TMP/out/$1" 2>&1
  _rc=$?
  grep -q '^FAIL:' "$JT_TMP/out/$1" || [ $_rc = 0 ] ||
    echo "FAIL: $1.test: exit $_rc" >> "$JT_TMP/out/$1"
  echo "$(( $(date +%s) - _start )) $1" >> "$JT_TMP/times"
  grep -v '^PASS:' "$JT_TMP/out/$1"
  grep '^\(PASS\|FAIL\|SKIP\):' "$JT_TMP/out/$1" >> "$log"
}

# The slowest files first (as the last runs measured them, dist/test-times,
# else as test/times says for a fresh clone; a file never measured counts
# as slowest), so the longest does not start last; JOBS tokens in a FIFO
# bound how many run at once.
mkdir -p "$JT_TMP/out"
: > "$JT_TMP/times"
names=
for t in test/*.test; do
  [ -f "$t" ] || continue
  # A file that never runs dist/jvmtool says "# no dist/jvmtool" (lint;
  # valgrind and fuzz make their own builds): the sanitizer run differs
  # from the normal one only in dist/jvmtool, so it leaves them out.
  [ "${SANITIZE:-0}" = 1 ] && grep -q '^# no dist/jvmtool' "$t" && continue
  name=$(basename "$t" .test)
  wanted "$name" "$@" && names="$names $name"
done
order=$(for n in $names; do
  t=$(cat dist/test-times test/times 2>/dev/null |
    awk -v n="$n" '$2 == n { print $1; exit }')
  echo "${t:-99999} $n"; done | sort -rn | awk '{ print $NF }')
mkfifo "$JT_TMP/tokens"
exec 3<>"$JT_TMP/tokens"
i=0
while [ $i -lt "$jobs" ]; do echo >&3; i=$((i + 1)); done
suite_start=$(date +%s)
for n in $order; do
  read -r _ <&3
  ( run_one "$n"; echo >&3 ) &
done
wait
exec 3>&-
[ -s "$JT_TMP/times" ] && {
  # this run's times, and the last ones of the files it did not run
  awk 'NR == FNR { seen[$2] = 1; print; next } !seen[$2]' "$JT_TMP/times" \
    dist/test-times > "$JT_TMP/times.all" 2>/dev/null
  cp "$JT_TMP/times.all" dist/test-times 2>/dev/null
  echo "slowest test files (seconds), of $(( $(date +%s) - suite_start )) s" \
    "with $jobs at a time:"
  sort -rn "$JT_TMP/times" | head -10 | sed 's/^/  /'
}

pass=$(grep -c '^PASS:' "$log")
fail=$(grep -c '^FAIL:' "$log")
skip=$(grep -c '^SKIP:' "$log")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
