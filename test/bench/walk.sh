# walk.sh - what finding the node's JVMs costs (a piece of test/bench.sh):
# the system calls of one `ps` per process on the node, and how often it
# opens a maps file, with 100 idle processes in a container (pid and mount
# namespaces of their own) and one JVM of 1000 threads (its maps ~2200
# lines, most of them anonymous thread stacks); then ps's time with that
# JVM. As root the piece runs in a sandbox of its own (new pid and mount
# namespaces, a private /proc and /tmp), so the figures count its own
# processes only, not the machine's. JT_OLD=path measures another build
# the same way, in the same run.
W=$(mktemp -d /var/tmp/jvmtool-walkbench.XXXXXX)
cp "$M" "$W/measure"
cp -r "$JT_TMP/classes" "$W/classes"
mkdir -m 1777 "$W/tmp"
cat > "$W/inner.sh" <<'INNER'
W=$1 JT=$2 JT_OLD=$3 RUNS=$4
[ -n "$SANDBOX" ] && mount --bind "$W/tmp" /tmp
java -cp "$W/classes" Threads 1000 600 > /dev/null 2>&1 &
J=$!
i=0
until [ "$(od -An -tu1 -j7 -N1 "/tmp/hsperfdata_$(id -un)/$J" 2>/dev/null | tr -d ' ')" = 1 ] ||
  [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
if [ -n "$SANDBOX" ]; then
  unshare --mount --pid --fork sh -c \
    'i=0; while [ $i -lt 100 ]; do sleep 600 & i=$((i + 1)); done; wait' &
else
  (i=0; while [ $i -lt 100 ]; do sleep 600 & i=$((i + 1)); done; wait) &
fi
C=$!
sleep 2
# calls LABEL BINARY: per process on the node, the system calls of one ps
# (all; the file ones: open/openat/openat2/stat/statx/newfstatat/readlink)
# and the maps files it opened; the JVM's maps lines and bytes
calls() {
  n=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
  strace -f -c -o "$W/sc" "$2" ps > /dev/null 2>&1
  strace -f -e trace=open,openat -o "$W/so" "$2" ps > /dev/null 2>&1
  awk -v l="$1" -v n="$n" -v m="$(grep -c 'maps"' "$W/so")" \
    -v jm="$(grep -c "\"$J/maps\"" "$W/so")" '
    $NF ~ /^(open|openat|openat2|stat|statx|newfstatat|lstat|readlink|readlinkat)$/ { f += $4 }
    $NF == "total" { t = $4 }
    END { printf "%-28s %4d processes: %5.1f calls, %4.1f open/stat each; maps opened %d times (%d for the JVM)\n",
      l, n, t / n, f / n, m, jm }' "$W/sc"
}
echo "walk: a JVM of $(wc -l < /proc/$J/maps) maps lines ($(wc -c < /proc/$J/maps) bytes), 100 idle processes in a container"
if command -v strace > /dev/null; then
  calls "walk: ps" "$JT"
  [ -n "$JT_OLD" ] && calls "walk: ps (JT_OLD)" "$JT_OLD"
fi
for b in "$JT" $JT_OLD; do
  set -- $("$W/measure" "$RUNS" "$b" ps)
  printf "%-28s %9.2f ms %8d KiB\n" "ps, a 1000-thread JVM${JT_OLD:+ ($(basename "$(dirname "$(dirname "$b")")"))}" "$1" "$2"
done
kill $J $C 2>/dev/null
INNER
if [ "$(id -u)" = 0 ] && unshare --pid --mount --fork --mount-proc true 2>/dev/null; then
  SANDBOX=1 unshare --pid --mount --fork --mount-proc \
    sh "$W/inner.sh" "$W" "$JT" "${JT_OLD:-}" "${RUNS:-15}"
else
  SANDBOX= sh "$W/inner.sh" "$W" "$JT" "${JT_OLD:-}" "${RUNS:-15}"
fi
rm -rf "$W"
