# jdk_root.sh - a minimal Debian root filesystem with one OpenJDK in it
#
#   sh test/jdk_root.sh 11|21   make that root now (CI runs it before the
#                               suite: the test sandboxes have no network)
#   . test/jdk_root.sh          in a test: jdk_root 11|21 sets JDK_ROOT and
#                               JDK_HOME, and makes the root when missing
#
# JDK 11 is Debian bullseye's openjdk-11-jdk-headless in a bullseye root,
# JDK 21 trixie's openjdk-21-jdk-headless in a trixie root: each with its
# own glibc, made by `debootstrap --variant=minbase` (no recommends). The
# roots are cached in /var/cache/jvmtool-test/jdk<N>-<suite> (JDK_ROOTS
# overrides the folder; JDK_MIRROR chooses a mirror, debootstrap's own
# default otherwise) and made again when the .complete marker, written
# last, is missing. Tests run the JVM chroot'd into the root in a pid and
# mount namespace of its own, as a container runtime would.
JDK_ROOTS=${JDK_ROOTS:-/var/cache/jvmtool-test}

# jdk_suite N: the Debian suite whose OpenJDK N the root has.
jdk_suite() {
  case $1 in
    11) echo bullseye ;;
    21) echo trixie ;;
    *) return 1 ;;
  esac
}

# jdk_root N: 0 with JDK_ROOT and JDK_HOME set when the root is there (made
# now if missing); 1 with the reason on stdout when it cannot be made.
jdk_root() {
  _js=$(jdk_suite "$1") || { echo "no root for JDK $1 (11 or 21)"; return 1; }
  JDK_ROOT=$JDK_ROOTS/jdk$1-$_js
  JDK_HOME=/usr/lib/jvm/java-$1-openjdk-amd64
  [ -f "$JDK_ROOT/.complete" ] && return 0
  [ "$(id -u)" = 0 ] || { echo "making a root needs root"; return 1; }
  command -v debootstrap >/dev/null 2>&1 ||
    { echo "no debootstrap (apt-get install debootstrap)"; return 1; }
  mkdir -p "$JDK_ROOTS" || { echo "cannot create $JDK_ROOTS"; return 1; }
  _jw=$(mktemp -d "$JDK_ROOTS/.new.XXXXXX") || return 1
  chmod 755 "$_jw"
  if ! debootstrap --variant=minbase --include="openjdk-$1-jdk-headless" \
      "$_js" "$_jw/root" ${JDK_MIRROR:-} > "$_jw/log" 2>&1; then
    mv "$_jw/log" "$JDK_ROOTS/jdk$1-$_js.log"
    rm -rf "$_jw"
    echo "debootstrap $_js failed: $(grep -E '^[EW]:' \
      "$JDK_ROOTS/jdk$1-$_js.log" | tail -1) (log: $JDK_ROOTS/jdk$1-$_js.log)"
    return 1
  fi
  # What a JVM image does not need: package caches and documentation.
  rm -rf "$_jw/root/var/cache/apt/archives/"*.deb \
    "$_jw/root/var/lib/apt/lists/"* "$_jw/root/usr/share/doc" \
    "$_jw/root/usr/share/man" "$_jw/root/usr/share/locale"
  [ -x "$_jw/root$JDK_HOME/bin/jstat" ] ||
    { echo "no $JDK_HOME/bin/jstat in the $_js root"; rm -rf "$_jw"; return 1; }
  touch "$_jw/root/.complete"
  # Another run may have made it meanwhile: then its copy stays.
  if [ ! -f "$JDK_ROOT/.complete" ]; then
    rm -rf "$JDK_ROOT"
    mv -T "$_jw/root" "$JDK_ROOT" 2>/dev/null
  fi
  rm -rf "$_jw"
  [ -f "$JDK_ROOT/.complete" ] ||
    { echo "the root at $JDK_ROOT is incomplete"; return 1; }
}

# Run as a script: make the roots named (both by default), say where.
case $0 in
  *jdk_root.sh)
    _rc=0
    for _v in "${@:-11 21}"; do
      for _n in $_v; do
        _t0=$(date +%s)
        if _why=$(jdk_root "$_n") && jdk_root "$_n"; then
          echo "JDK $_n root: $JDK_ROOT ($(du -sh "$JDK_ROOT" | cut -f1)," \
            "$(($(date +%s) - _t0)) s)"
        else
          echo "JDK $_n root: $_why"
          _rc=1
        fi
      done
    done
    exit $_rc ;;
esac
