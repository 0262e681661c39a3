# jvm.sh - start and stop real JVMs for tests (sourced by testing.sh)
#
#   have_java                        true when java and the test classes exist
#   java_section                     the tests up to end_section need Java:
#                                    without it each says SKIP (needs java)
#   jvm_start [java options] Class [args]   start a JVM; sets JVM_PID when its
#                                    PerfData file is ready (accessible byte)
#   jvm_stop PID                     stop it (the EXIT trap stops the rest)
#   perf_file PID                    /tmp/hsperfdata_<user>/<pid> of our JVMs
#   JAVA25                           a JDK 25 home when one is installed
JAVA=${JAVA:-java}
# shared/ (facts and the PerfData corpus) sits beside the clone; in a git
# worktree elsewhere, the workplace's copy.
SHARED=$TOP/../shared
[ -d "$SHARED" ] || SHARED=/work/shared
JAVA25=
for d in /usr/lib/jvm/*25*; do [ -x "$d/bin/java" ] && JAVA25=$d && break; done

have_java() {
  command -v "$JAVA" >/dev/null 2>&1 && [ -n "${JT_CLASSES:-}" ]
}

java_section() { section have_java; }

perf_file() { echo "/tmp/hsperfdata_$(id -un)/$1"; }

# Wait (up to 30 s) until file $1 exists and its accessible byte is set.
wait_perf_ready() {
  _i=0
  while [ $_i -lt 300 ]; do
    if [ -s "$1" ] && [ "$(od -An -tu1 -j7 -N1 "$1" 2>/dev/null | tr -d ' ')" = 1 ]; then
      return 0
    fi
    sleep 0.1
    _i=$((_i + 1))
  done
  return 1
}

jvm_start() {
  have_java || return 1
  "$JAVA" -cp "$JT_CLASSES" "$@" > "$T/jvm.$$.out" 2>&1 &
  JVM_PID=$!
  track "$JVM_PID"
  wait_perf_ready "$(perf_file "$JVM_PID")" || {
    echo "jvm_start: no PerfData from java $*" >&2
    cat "$T/jvm.$$.out" >&2
    return 1
  }
}

jvm_stop() {
  kill "$1" 2>/dev/null
  while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
  return 0
}
