# testing.sh - sourced by every test/*.test file (POSIX sh)
#
#   testing ID "name" "command" "expected stdout" [STATUS]  command via eval
#   testcmd ID "name" "args" "expected stdout" [STATUS]     "$JT" args
#   same    ID "name" "command" "reference command" [STATUS]
#   jt ARGS...            "$JT" ARGS, its status the case's (see Exit status)
#   rc COMMAND...         COMMAND (a link to $JT, timeout "$JT" ...), the same
#   check   ID "name" command...                      pass when it exits 0
#   skip    ID "name" "why"
#   skipnot CONDITION...                              next test skips unless true
#   section CONDITION...  every test up to end_section skips unless true
#   end_section
#   mkperf ARGS...        write a PerfData file (test/mkperf.c says how)
#   hold DIR [SECONDS]    a process that maps DIR/<its pid> as a JVM maps
#                         its PerfData file (test/hold.py); sets HP
#   held FILE PID         wait until process PID maps FILE
#   free_port             a TCP port of 127.0.0.1 free at the moment
#   wait_http URL         wait (up to 30 s) until URL answers; 1 if it never does
#
# IDs ("ps-1.2") make a failure greppable. Expected output is compared byte
# for byte, including the final newline (write "$(printf ...)" for exotic
# bytes); stderr is not captured unless the command says 2>&1.
#
# Exit status: a case passes when its output is the expected one AND its
# exit status is STATUS, 0 unless given. A case that means a failure says
# the status it expects: testcmd x-1.1 "bad flag" "--no 2>&1" "..." 2.
# The status is the command's, so in a pipeline the LAST command's (dash
# has no pipefail): `"$JT" ps | grep -c x` would be grep's, a crash of the
# binary unseen. So the binary, when not last in a pipeline, runs as
# `jt ps | grep -c x` (or `rc timeout 9 "$JT" ps | ...`, `rc "$T/jps" ...`):
# a case that ran jt or rc has the status of the first of them that did
# not exit 0 (0 if none), whatever the other commands returned.
# After jt, a filter reads all its input (sed -n 1,3p, not head -3; grep
# >/dev/null, not grep -q): one that stops early kills the binary with
# SIGPIPE (141). testcmd's ARGS never pipe: testing ... 'jt ARGS | ...'.
# lint-2.3 refuses "$JT" before a | in test/*.test, and a testcmd whose
# ARGS pipe. (check: its command's status, 0 to pass.)
#
# Everything a test starts is stopped by the EXIT trap (jvm_start, track).
set -u
: "${JT:?run through ./build.sh test}"
: "${JT_TMP:?run through ./build.sh test}"
T=$(mktemp -d "$JT_TMP/t.XXXXXX")
_skipnext=
_skipsection=
_tracked=

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; }
skip() { echo "SKIP: $1 $2 ($3)"; _skipnext=; }

# One argument is shell code (eval'd); several are a command run as they
# are, so `skipnot test -n "$X"` keeps its empty argument (through eval it
# would become `test -n`, which is true).
_holds() { if [ $# = 1 ]; then eval "$1"; else "$@"; fi >/dev/null 2>&1; }
skipnot() { _holds "$@" || _skipnext="needs: $*"; }

section() {
  if _holds "$@"; then _skipsection=; else _skipsection="needs: $*"; fi
}
end_section() { _skipsection=; }

_should_skip() {
  [ -n "$_skipnext$_skipsection" ] || return 1
  echo "SKIP: $1 $2 (${_skipnext:-$_skipsection})"
  _skipnext=
  return 0
}

testing() {
  _should_skip "$1" "$2" && return 0
  printf '%s\n' "$4" > "$T/expected"
  [ -n "$4" ] || : > "$T/expected"
  _want=${5:-0}
  rm -f "$T/.case_rc"
  eval "$3" > "$T/actual" 2>"$T/stderr"
  _rc=$?
  [ -s "$T/.case_rc" ] && read -r _rc < "$T/.case_rc"
  if [ -n "$4" ] && [ "$(tail -c1 "$T/actual" | od -An -c | tr -d ' ')" != '\n' ]; then
    printf '\n' >> "$T/actual"   # expected strings always end in a newline
  fi
  if cmp -s "$T/expected" "$T/actual" && [ "$_rc" = "$_want" ]; then
    pass "$1 $2"
  else
    fail "$1 $2"
    echo "  command: $3 (exit $_rc, expected $_want)"
    diff -u "$T/expected" "$T/actual" | head -40 | sed 's/^/  /'
    [ -s "$T/stderr" ] && head -5 "$T/stderr" | sed 's/^/  stderr: /'
  fi
  return 0
}

testcmd() { testing "$1" "$2" "\"\$JT\" $3" "$4" "${5:-0}"; }

# rc COMMAND...: run COMMAND; the case's status is the first non-zero one
# of its rc and jt calls (0 if none), even on the left of a pipe.
rc() {
  "$@"
  _rcst=$?
  _rcwas=0
  [ -s "$T/.case_rc" ] && read -r _rcwas < "$T/.case_rc"
  [ "$_rcwas" = 0 ] && echo $_rcst > "$T/.case_rc"
  return $_rcst
}
jt() { rc "$JT" "$@"; }

# same ID NAME CMD REF: CMD's output equals REF's (both run by eval), and
# REF printed something: two outputs that are both empty (a missing input,
# a command that failed) prove nothing. The way to compare with an output
# of $JT (lint refuses $JT's output as testing's expected).
same() {
  _should_skip "$1" "$2" && return 0
  _ref=$(eval "$4" 2> "$T/ref.err")
  if [ -z "$_ref" ]; then
    fail "$1 $2"
    echo "  the reference printed nothing: $4"
    head -5 "$T/ref.err" | sed 's/^/  stderr: /'
    return 0
  fi
  testing "$1" "$2" "$3" "$_ref" "${5:-0}"
}

check() {
  _id=$1 _name=$2
  shift 2
  _should_skip "$_id" "$_name" && return 0
  if "$@" > "$T/check.out" 2>&1; then
    pass "$_id $_name"
  else
    fail "$_id $_name"
    echo "  command: $*"
    head -20 "$T/check.out" | sed 's/^/  /'
  fi
  return 0
}

# split3 H L [PCT]: JfrWork's heavy():light() samples H and L read 3:1.
# Within PCT % (15 unless given) of 3, or, when the samples are too few for
# PCT % to be sure (a sampler that gets a core late on a loaded machine
# takes fewer), heavy's share within 4 binomial deviations of 3/4: 1:1 and
# 1:3 stay outside from 100 samples on. Prints what it read.
split3() {
  awk -v h="$1" -v l="$2" -v pct="${3:-15}" 'BEGIN {
    n = h + l
    if (n < 100 || !l) { printf "heavy/light %d/%d: too few samples\n", h, l; exit 1 }
    r = h / l; p = h / n; d = 4 * sqrt(0.75 * 0.25 / n)
    printf "heavy/light = %.2f (%d/%d samples; share %.3f, 4 deviations %.3f)\n", r, h, l, p, d
    exit !((r >= 3 * (1 - pct / 100) && r <= 3 * (1 + pct / 100)) ||
           (p >= 0.75 - d && p <= 0.75 + d)) }'
}

# A suffix for the users a test file makes (useradd): its own, random, not
# $$ (each file runs in a pid namespace of its own, where $$ is the same
# small number for every file, so two runs at once chose the same name).
TUSER=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')

# The test tree's PerfData writer, built by test/run.sh.
mkperf() { "${MKPERF:?mkperf: run through ./build.sh test}" "$@"; }

# Remember a pid (or a command to run) for the EXIT trap.
track() { _tracked="$_tracked $1"; }

# A hand-made PerfData file is listed under a live pid only when that
# process maps it (docs/security.md §10): a test's stand-in JVM is a holder
# that maps the file written under its pid. Start it, write
# "$DIR/$HP", then wait with held.
HOLD_PY=$TOP/test/hold.py
hold() {
  python3 "$HOLD_PY" "$@" &
  HP=$!
  track $HP
}
# held FILE PID: 0 once /proc/PID/maps has FILE (its device and inode; a
# link is followed), 1 if it never comes (PID gone, or 30 s)
held() {
  _d=$(stat -L -c %d "$1" 2>/dev/null) && _n=$(stat -L -c %i "$1") || return 1
  _d=$(printf '%02x:%02x' $(( (_d >> 8) & 0xfff )) \
    $(( (_d & 0xff) | ((_d >> 12) & 0xfff00) )))
  _i=0
  while [ $_i -lt 600 ]; do
    awk -v d="$_d" -v n="$_n" '$4 == d && $5 == n { f = 1 } END { exit !f }' \
      "/proc/$2/maps" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
    _i=$((_i + 1))
  done
  return 1
}
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_http() {
  _i=0
  while [ $_i -lt 300 ]; do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
    _i=$((_i + 1))
  done
  return 1
}
cleanup_cmd() { printf '%s\n' "$1" >> "$T/cleanup"; }

# A JVM asked to stop (SIGTERM) removes its PerfData file and attach socket;
# one that must be killed leaves them, so they are removed here.
_cleanup() {
  for p in $_tracked; do kill "$p" 2>/dev/null; done
  for p in $_tracked; do
    _i=0
    while kill -0 "$p" 2>/dev/null && [ $_i -lt 60 ]; do
      sleep 0.05
      _i=$((_i + 1))
    done
    kill -0 "$p" 2>/dev/null || continue
    kill -9 "$p" 2>/dev/null
    while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
    rm -f "/tmp/.java_pid$p" /tmp/hsperfdata_*/"$p"
  done
  [ -f "$T/cleanup" ] && sh "$T/cleanup" >/dev/null 2>&1
  rm -rf "$T"
}
trap _cleanup EXIT
trap 'exit 1' INT TERM

. "$TOP/test/jvm.sh"
