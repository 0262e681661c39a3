# agent.sh - build agent/*.c into dist/agent.so (no libc, no DT_NEEDED) and
# embed it into dist/jvmtool. Sourced by build.sh (set -eu): defines nothing
# it does not prefix with agent_, never exits but through die.

agent_jdk_include() {
  for agent_d in "${JAVA_HOME:-}" \
      "$(dirname "$(dirname "$(readlink -f "$(command -v javac || echo /x/x)")")")" \
      /usr/lib/jvm/*; do
    [ -n "$agent_d" ] && [ -f "$agent_d/include/jvmti.h" ] &&
      { echo "$agent_d/include"; return 0; }
  done
  return 1
}

agent_build() {
  agent_inc=$(agent_jdk_include) ||
    die "agent: no JDK headers (include/jvmti.h): install a JDK or set JAVA_HOME"
  agent_cc=${HOSTCC:-cc}
  # Freestanding: no libc, no stack protector or fortify (their symbols live
  # in a libc), no TLS; -z defs makes any stray import a link error.
  say $agent_cc -std=c11 -O2 -fPIC -shared -nostdlib -ffreestanding \
    -fno-builtin -fno-stack-protector -U_FORTIFY_SOURCE -fvisibility=hidden \
    -fno-omit-frame-pointer -fno-tree-loop-distribute-patterns \
    -fno-sanitize=all $WARN -I. -I"$agent_inc" -I"$agent_inc/linux" \
    -Wl,-z,defs -Wl,--hash-style=both -Wl,-z,noexecstack -Wl,-soname,agent.so \
    agent/*.c -o dist/agent.so.tmp
  if readelf -d dist/agent.so.tmp | grep -q '(NEEDED)'; then
    die "agent: dist/agent.so has a NEEDED entry: $(readelf -d dist/agent.so.tmp | grep NEEDED)"
  fi
  agent_und=$(readelf -W --dyn-syms dist/agent.so.tmp |
    awk '$7 == "UND" && $8 != "" { print $8 }')
  [ -z "$agent_und" ] || die "agent: undefined symbols in dist/agent.so: $agent_und"
  mv dist/agent.so.tmp dist/agent.so
  # The bytes go into the binary through .incbin; jt_agent_so_size says how many.
  cat > dist/gen/agent_blob.S <<'ASM'
	.section .rodata.jt_agent,"a"
	.globl jt_agent_so
	.globl jt_agent_so_size
	.balign 16
jt_agent_so:
	.incbin "dist/agent.so"
jt_agent_so_end:
	.balign 8
jt_agent_so_size:
	.quad jt_agent_so_end - jt_agent_so
	.section .note.GNU-stack,"",@progbits
ASM
  say $agent_cc -c dist/gen/agent_blob.S -o dist/gen/agent_blob.o
  touch dist/gen/objs
  grep -v 'dist/gen/agent_blob.o' dist/gen/objs > dist/gen/objs.tmp || true
  echo dist/gen/agent_blob.o >> dist/gen/objs.tmp
  mv dist/gen/objs.tmp dist/gen/objs
}

agent_build
