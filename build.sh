#!/bin/sh
# build.sh - build, test, fuzz, bench and clean jvmtool. POSIX sh, no make.
#
#   ./build.sh                 dist/jvmtool: static musl binary, stripped
#   ./build.sh release         dist/jvmtool-x86_64, dist/jvmtool-aarch64 and
#                              dist/SHA256SUMS, the same bytes every time
#   ./build.sh test [NAME...]  build, then run every test (or test/NAME.test)
#   ./build.sh bench           measure jvmtool against the JDK tools
#   ./build.sh fuzz [SECONDS]  run every libFuzzer target (default 60 s each)
#   ./build.sh clean           remove dist/
#
# Environment: CC (default musl-gcc), CFLAGS, LDFLAGS, V=1 echoes commands,
# SANITIZE=1 builds dist/jvmtool with clang ASan+UBSan instead (for tests).
# A release takes the tools by their target names (ARCH-linux-musl-gcc,
# ARCH-linux-gnu-gcc, -strip, -readelf) and ignores CC, CFLAGS, LDFLAGS.
set -eu
cd "$(dirname "$0")"

say() { [ "${V:-0}" = 1 ] && echo "$*" >&2; "$@"; }
die() { echo "build.sh: $*" >&2; exit 1; }

VERSION=$(git describe --always --dirty 2>/dev/null || echo unknown)
JT_VERSION=$VERSION
# The host's build: its own tools, intermediate files straight in dist/.
JT_ARCH=$(uname -m)
JT_OUT=dist
AGENT_CC=${HOSTCC:-cc}
STRIP=strip
READELF=readelf
. ./build.d/flags.sh   # WARN, BASE, DEBUG, SAN, RELEASE, AGENT: the one compile line

# apt_install PKG...: as root on Debian, install them (the package lists
# refreshed when the first try fails); 1 elsewhere or when that fails.
apt_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
  echo "build.sh: installing $*" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq "$@" >/dev/null; }
}

need_musl() {
  command -v "${CC:-musl-gcc}" >/dev/null 2>&1 && return 0
  [ -n "${CC:-}" ] && die "compiler '$CC' not found"
  apt_install musl-tools ||
    die "musl-gcc not found: install musl-tools (Debian/Ubuntu) or musl-gcc"
}

# need_cross ARCH: the tools that build for ARCH (x86_64 or aarch64): a musl
# compiler, gcc and libc headers for the agent (jni.h includes stdio.h),
# strip and readelf. As root on Debian they are
# installed (a foreign ARCH's musl through multiarch: dpkg --add-architecture),
# elsewhere named.
need_cross() {
  nc_missing=
  for nc_t in "$1-linux-musl-gcc" "$1-linux-gnu-gcc" "$1-linux-gnu-strip" \
      "$1-linux-gnu-readelf"; do
    command -v "$nc_t" >/dev/null 2>&1 || nc_missing="$nc_missing $nc_t"
  done
  [ -n "$nc_missing" ] || echo '#include <stdio.h>' |
    "$1-linux-gnu-gcc" -E - >/dev/null 2>&1 || nc_missing=" $1 libc headers"
  [ -z "$nc_missing" ] && return 0
  case $1 in
    x86_64) nc_deb=amd64 nc_gnu=x86-64 ;;
    aarch64) nc_deb=arm64 nc_gnu=aarch64 ;;
    *) die "release: no recipe for machine '$1'" ;;
  esac
  if [ "$(dpkg --print-architecture 2>/dev/null)" = "$nc_deb" ]; then
    nc_pkgs="musl-tools musl-dev gcc binutils libc6-dev"
  else
    nc_pkgs="gcc-$nc_gnu-linux-gnu binutils-$nc_gnu-linux-gnu \
libc6-dev-$nc_deb-cross musl-dev:$nc_deb"
  fi
  nc_hint="missing$nc_missing: on Debian install $nc_pkgs"
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 ||
    die "release: $nc_hint (a foreign machine's musl-dev after dpkg --add-architecture $nc_deb); elsewhere a gcc and a musl for $1 under those names"
  case $nc_pkgs in *:*)
    dpkg --print-foreign-architectures | grep -qx "$nc_deb" || {
      echo "build.sh: dpkg --add-architecture $nc_deb" >&2
      dpkg --add-architecture "$nc_deb" && apt-get update -qq
    } || die "release: could not add the $nc_deb architecture" ;;
  esac
  apt_install $nc_pkgs || die "release: could not install $nc_pkgs"
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
    say clang $BASE $DEBUG $SAN $SOURCES $(extra_objs) -o dist/jvmtool
    echo "dist/jvmtool: sanitizer build (ASan+UBSan)"
    return
  fi
  need_musl
  CC=${CC:-musl-gcc}
  link dist/jvmtool ${CFLAGS:-} -Wl,--gc-sections ${LDFLAGS:-}
  echo "dist/jvmtool: $(wc -c < dist/jvmtool) bytes ($VERSION)"
}

# link OUT [FLAGS...]: the static binary OUT from $SOURCES (core/, cmd/,
# agent/config.c) and the build.d objects, with $CC, stripped by $STRIP.
link() {
  link_out=$1
  shift
  say $CC $BASE $RELEASE $SOURCES $(extra_objs) \
    -o "$JT_OUT/${link_out##*/}.unstripped" -static "$@"
  $STRIP -s -R .comment -o "$link_out" "$JT_OUT/${link_out##*/}.unstripped"
}

# Both machines' binaries, each with its own agent; every intermediate file
# of one in dist/ARCH. The bytes depend on the commit and the tools only
# (flags.sh: RELEASE), so two builds compare equal.
release() {
  mkdir -p dist/gen
  rm -f dist/SHA256SUMS
  for rel_arch in x86_64 aarch64; do
    need_cross "$rel_arch"
    JT_ARCH=$rel_arch
    JT_OUT=dist/$rel_arch
    . ./build.d/flags.sh
    CC=$rel_arch-linux-musl-gcc
    AGENT_CC=$rel_arch-linux-gnu-gcc
    STRIP=$rel_arch-linux-gnu-strip
    READELF=$rel_arch-linux-gnu-readelf
    rm -rf "$JT_OUT"
    mkdir -p "$JT_OUT/gen"
    pre_steps
    link "dist/jvmtool-$rel_arch" -Wl,--gc-sections
    check_static "dist/jvmtool-$rel_arch"
    echo "dist/jvmtool-$rel_arch: $(wc -c < "dist/jvmtool-$rel_arch") bytes ($VERSION)"
  done
  (cd dist && sha256sum jvmtool-x86_64 jvmtool-aarch64 > SHA256SUMS.tmp &&
    mv SHA256SUMS.tmp SHA256SUMS)
  echo "dist/SHA256SUMS:"
  sed 's/^/  /' dist/SHA256SUMS
}

# check_static FILE: an executable for $JT_ARCH with no interpreter and no
# dynamic section (what `file` calls statically linked).
check_static() {
  case $JT_ARCH in
    x86_64) cs_machine='X86-64' ;;
    aarch64) cs_machine='AArch64' ;;
  esac
  $READELF -h "$1" | grep -q "Machine: .*$cs_machine" ||
    die "$1: not a $JT_ARCH executable"
  ! $READELF -l "$1" | grep -q 'INTERP\|DYNAMIC' ||
    die "$1: not statically linked"
}

# Objects produced by build.d steps (e.g. the embedded agent), one per line
# in $JT_OUT/gen/objs.
extra_objs() { [ -f "$JT_OUT/gen/objs" ] && cat "$JT_OUT/gen/objs"; return 0; }

# embed NAME [SYMBOL FILE]...: each FILE's bytes as SYMBOL (a NUL after
# them, not counted) and its count as the uint64 SYMBOL_size, in one object
# $JT_OUT/gen/NAME.o assembled for the machine built for ($AGENT_CC,
# .incbin) and linked into the binary (listed in gen/objs, extra_objs).
# For build.d steps.
embed() {
  embed_o=$JT_OUT/gen/$1.o embed_s=$JT_OUT/gen/$1.S
  mkdir -p "$JT_OUT/gen"
  {
    printf '\t.section .rodata.%s,"a"\n' "$1"
    shift
    while [ $# -ge 2 ]; do
      printf '\t.globl %s\n\t.globl %s_size\n\t.balign 16\n%s:\n' "$1" "$1" "$1"
      printf '\t.incbin "%s"\n%s_end:\n\t.byte 0\n\t.balign 8\n' "$2" "$1"
      printf '%s_size:\n\t.quad %s_end - %s\n' "$1" "$1" "$1"
      shift 2
    done
    printf '\t.section .note.GNU-stack,"",@progbits\n'
  } > "$embed_s.tmp"
  mv "$embed_s.tmp" "$embed_s"
  say $AGENT_CC -c "$embed_s" -o "$embed_o"
  touch "$JT_OUT/gen/objs"
  grep -vx "$embed_o" "$JT_OUT/gen/objs" > "$JT_OUT/gen/objs.tmp" || true
  echo "$embed_o" >> "$JT_OUT/gen/objs.tmp"
  mv "$JT_OUT/gen/objs.tmp" "$JT_OUT/gen/objs"
}

case "${1:-build}" in
  build) build ;;
  release) release ;;
  test) shift; build; exec sh test/run.sh "$@" ;;
  bench) build; exec sh test/bench.sh ;;
  fuzz) shift; exec sh test/fuzz/run.sh "${1:-60}" ;;
  clean) rm -rf dist ;;
  *) die "unknown mode '$1' (build, release, test, bench, fuzz, clean)" ;;
esac
