# arm64_root.sh - Debian's arm64 JDK 17, unpacked into a root for qemu-user
#
#   sh test/arm64_root.sh   make the root now (CI runs it before the suite:
#                           the test sandboxes have no network)
#   . test/arm64_root.sh    in a test: arm64_root makes it when missing
#
# The root is cached in /var/cache/jvmtool-test/arm64-jdk17 (ARM64_ROOT
# overrides) and made again when its .complete marker is missing. Only the
# JDK and the libraries its java, jps, jstat and jcmd load are unpacked (no
# maintainer script runs); arm64 programs then run as
# `qemu-aarch64-static -L "$ARM64_ROOT" "$ARM64_ROOT$ARM64_JDK/bin/java"`.
# Needs apt-get, arm64 as a dpkg architecture (./build.sh release adds it)
# and the network.
ARM64_ROOT=${ARM64_ROOT:-/var/cache/jvmtool-test/arm64-jdk17}
ARM64_JDK=/usr/lib/jvm/java-17-openjdk-arm64
ARM64_DEBS="openjdk-17-jdk-headless openjdk-17-jre-headless libc6 libgcc-s1
  libstdc++6 zlib1g"

# arm64_root: 0 when the root is there (made now if missing); 1 with the
# reason on stdout when it cannot be made.
arm64_root() {
  [ -f "$ARM64_ROOT/.complete" ] && return 0
  command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
    { echo "no apt-get and dpkg-deb to fetch Debian's arm64 JDK"; return 1; }
  dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 ||
    { echo "arm64 is no dpkg architecture here (./build.sh release adds it)"
      return 1; }
  mkdir -p "${ARM64_ROOT%/*}" || { echo "cannot create ${ARM64_ROOT%/*}"; return 1; }
  _a64w=$(mktemp -d "${ARM64_ROOT%/*}/.new.XXXXXX") || return 1
  chmod 755 "$_a64w"
  if ! (cd "$_a64w" && apt-get download $(for _p in $ARM64_DEBS; do
          echo "$_p:arm64"; done)) > "$_a64w/log" 2>&1; then
    echo "apt-get download of the arm64 JDK failed: $(grep -v '^W:' "$_a64w/log" |
      tail -1)"
    rm -rf "$_a64w"
    return 1
  fi
  for _d in "$_a64w"/*.deb; do
    dpkg-deb -x "$_d" "$_a64w/root" ||
      { echo "dpkg-deb -x $_d failed"; rm -rf "$_a64w"; return 1; }
  done
  # qemu's -L looks a path up in the root first: the root must not have a
  # /tmp or /proc of its own, so that PerfData and attach use the real ones.
  rm -rf "$_a64w/root/tmp" "$_a64w/root/proc"
  touch "$_a64w/root/.complete"
  # Another run may have made it meanwhile: then its copy stays.
  if [ ! -f "$ARM64_ROOT/.complete" ]; then
    rm -rf "$ARM64_ROOT"
    mv -T "$_a64w/root" "$ARM64_ROOT" 2>/dev/null
  fi
  rm -rf "$_a64w"
  [ -f "$ARM64_ROOT/.complete" ] || { echo "the root at $ARM64_ROOT is incomplete"; return 1; }
}

# Run as a script: make the root, say where.
case $0 in
  *arm64_root.sh)
    arm64_root || exit 1
    echo "arm64 JDK 17 root: $ARM64_ROOT ($(du -sh "$ARM64_ROOT" | cut -f1))" ;;
esac
