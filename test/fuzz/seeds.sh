#!/bin/sh
# seeds.sh DIR - write the seed corpus of every fuzz target into DIR/<name>/
#
# Seeds are made here from the project's own material (specs, test inputs)
# and, at run time only, the shared PerfData fixtures; nothing is copied
# into the repository.
set -eu
cd "$(dirname "$0")/../.."
out=$1
rm -rf "$out"
mkdir -p "$out"

# spec: the built-in options, whole and one option at a time
mkdir -p "$out/spec"
cp specs/jstat.spec "$out/spec/all"
awk '/^option /{n++} n{print > (d "/opt" n)}' d="$out/spec" specs/jstat.spec

# format: a few doubles with the patterns jstat uses
mkdir -p "$out/format"
i=0
for pat in 0 0.0 0.00 0.000 '#,##0.0#' "'x'0.0%"; do
  for hex in 0000000000a06340 8d976e1283c0ca3f fca9f1d24d62403f 0000000000000080; do
    i=$((i + 1))
    printf "$(echo $hex | sed 's/../\\x&/g')%s" "$pat" > "$out/format/s$i"
  done
done

# perfdata: writer-made files in both byte orders, and the shared corpus of
# real files when it is there (read at run time, not copied into the repo)
mkdir -p "$out/perfdata"
. ./build.d/flags.sh
${HOSTCC:-cc} $BASE $TESTINC -o "$out/mkperf" test/mkperf.c $TESTLIBS core/*.c -lm
"$out/mkperf" -j "$out/perfdata/writer-le"
"$out/mkperf" -j -b "$out/perfdata/writer-be"
shared=../shared
[ -d "$shared" ] || shared=/work/shared
for f in "$shared"/fixtures/hsperfdata/*; do
  [ -f "$f" ] && case "$f" in *.md) ;; *) cp "$f" "$out/perfdata/" ;; esac
done

# attach: replies as JDK 8, 17 and 25 write them
mkdir -p "$out/attach"
printf '0\nreturn code: 0\n' > "$out/attach/load21"
printf '0\n4\n' > "$out/attach/load8"
printf -- '-1\nOperation foo not recognized!' > "$out/attach/unknown"
printf '0\nOpenJDK 64-Bit Server VM version 17\nJDK 17\n' > "$out/attach/version"

# fold: lines of every shape the collapse tests use (first byte: options)
mkdir -p "$out/fold"
i=0
for l in 'a;b;char 4' 'x;a;com.google.protobuf.X.y;z;char 4' 'a b;c  5' \
    'm;[Ljava/lang/String; 24' 'm;pkg.Foo$$Lambda$14/0x0000000800c02a00 16' \
    '#GC 3' 'a;a;a;b;byte 8'; do
  i=$((i + 1))
  printf '%s%s' "$(printf "\\$(printf %o $((i * 5)))")" "$l" > "$out/fold/s$i"
done

# agentopts: option strings and a flame.properties as agent-install sends them
mkdir -p "$out/agentopts"
printf 'sample.strategy=time,sample.interval.ms=5,output.file=/tmp/a.txt' > "$out/agentopts/pairs"
printf 'recorder=lifetime,sample.interval.bytes=65536,max.stack.depth=64' > "$out/agentopts/life"
printf '# flame.properties
sample.strategy = allocationCount
sample.rate: 100
stack.trace.verbosity methodClassLineNumber
record.size=false
! old key
flame.output=x
' > "$out/agentopts/props"
printf 'sample.interval.bytes=99999999999999999999,sample.delay.secs=-1' > "$out/agentopts/bad"

# Targets added by later parts of the tree add their seeds here.
for f in test/fuzz/seeds.d/*.sh; do [ -f "$f" ] && . "./$f"; done
exit 0

