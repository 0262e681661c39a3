# agent.sh - build agent/*.c into $JT_OUT/agent.so (no libc, no DT_NEEDED)
# and embed it into the binary. Sourced by build.sh (set -eu) with JT_OUT
# (dist, or dist/ARCH in a release), AGENT_CC and READELF for the machine
# built for; defines nothing it does not prefix with agent_, never exits
# but through die.

agent_build() {
  agent_inc=$AGENT_INC  # build.d/flags.sh
  [ -n "$agent_inc" ] ||
    die "agent: no JDK headers (include/jvmti.h): install a JDK or set JAVA_HOME"
  agent_so=$JT_OUT/agent.so
  agent_gen=$JT_OUT/gen
  mkdir -p "$agent_gen"
  # jvmti.h and jni_md.h are the same on every Linux machine JDKs build for.
  say $AGENT_CC $AGENT -I. -I"$agent_inc" -I"$agent_inc/linux" \
    agent/*.c -o "$agent_so.tmp"
  if $READELF -d "$agent_so.tmp" | grep -q '(NEEDED)'; then
    die "agent: $agent_so has a NEEDED entry: $($READELF -d "$agent_so.tmp" | grep NEEDED)"
  fi
  agent_und=$($READELF -W --dyn-syms "$agent_so.tmp" |
    awk '$7 == "UND" && $8 != "" { print $8 }')
  [ -z "$agent_und" ] || die "agent: undefined symbols in $agent_so: $agent_und"
  mv "$agent_so.tmp" "$agent_so"
  # The bytes go into the binary gzip'd (a third of them; on aarch64 a
  # fifth, its 64 KiB page padding) through .incbin; jt_agent_gz_size says
  # how many, cmd/agent_target.c's agent_image inflates them once.
  gzip -9n -c "$agent_so" > "$agent_gen/agent.so.gz.tmp"
  mv "$agent_gen/agent.so.gz.tmp" "$agent_gen/agent.so.gz"
  embed agent_blob jt_agent_gz "$agent_gen/agent.so.gz"
}

agent_build
