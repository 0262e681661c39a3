#!/bin/sh
# build.sh - build, test, fuzz, bench and clean jvmtool. POSIX sh, no make.
#
#   ./build.sh                 dist/jvmtool: static musl binary, stripped
#   ./build.sh test [NAME...]  build, then run every test (or test/NAME.test)
#   ./build.sh bench           measure jvmtool against the JDK tools
#   ./build.sh fuzz [SECONDS]  run every libFuzzer target (default 60 s each)
#   ./build.sh clean           remove dist/
#
# Environment: CC (default musl-gcc), CFLAGS, LDFLAGS, V=1 echoes commands,
# SANITIZE=1 builds dist/jvmtool with clang ASan+UBSan instead (for tests).
set -eu
cd "$(dirname "$0")"

say() { [ "${V:-0}" = 1 ] && echo "$*" >&2; "$@"; }
die() { echo "build.sh: $*" >&2; exit 1; }

VERSION=$(git describe --always --dirty 2>/dev/null || echo unknown)
JT_VERSION=$VERSION
. ./build.d/flags.sh   # WARN, BASE, DEBUG, SAN, RELEASE: the one compile line

need_musl() {
  command -v "${CC:-musl-gcc}" >/dev/null 2>&1 && return 0
  [ -n "${CC:-}" ] && die "compiler '$CC' not found"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "build.sh: musl-gcc missing, installing musl-tools" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq musl-tools >/dev/null; } ||
      die "could not install musl-tools"
  else
    die "musl-gcc not found: install musl-tools (Debian/Ubuntu) or musl-gcc"
  fi
}

# Build steps that a part of the tree adds for itself live in build.d/*.sh;
# each defines nothing but runs with the variables above (e.g. the agent
# build, which must happen before the binary that embeds it).
pre_steps() {
  for f in build.d/*.sh; do
    [ -f "$f" ] && [ "$f" != build.d/flags.sh ] && . "./$f"
  done
  return 0
}

build() {
  mkdir -p dist/gen
  pre_steps
  if [ "${SANITIZE:-0}" = 1 ]; then
    say clang $BASE $DEBUG $SAN core/*.c cmd/*.c $(extra_objs) -o dist/jvmtool
    echo "dist/jvmtool: sanitizer build (ASan+UBSan)"
    return
  fi
  need_musl
  CC=${CC:-musl-gcc}
  say $CC $BASE $RELEASE ${CFLAGS:-} core/*.c cmd/*.c $(extra_objs) \
    -o dist/jvmtool.unstripped -static -Wl,--gc-sections ${LDFLAGS:-}
  strip -s -R .comment -o dist/jvmtool dist/jvmtool.unstripped
  echo "dist/jvmtool: $(wc -c < dist/jvmtool) bytes ($VERSION)"
}

# Objects produced by build.d steps (e.g. the embedded agent), one per line
# in dist/gen/objs.
extra_objs() { [ -f dist/gen/objs ] && cat dist/gen/objs; return 0; }

case "${1:-build}" in
  build) build ;;
  test) shift; build; exec sh test/run.sh "$@" ;;
  bench) build; exec sh test/bench.sh ;;
  fuzz) shift; exec sh test/fuzz/run.sh "${1:-60}" ;;
  clean) rm -rf dist ;;
  *) die "unknown mode '$1' (build, test, bench, fuzz, clean)" ;;
esac
