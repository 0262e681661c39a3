# web.sh - embed serve's page (web/: its HTML, script and style) into the
# binary. Sourced by build.sh (set -eu) with JT_OUT and AGENT_CC (an
# assembler for the machine built for); defines nothing it does not
# prefix with web_, never exits but through die.
#
# Each file of web/ is a symbol jt_web_<name> (dots as _) and its size
# jt_web_<name>_size, through .incbin: the bytes as they are in the tree.

web_build() {
  web_gen=$JT_OUT/gen
  mkdir -p "$web_gen"
  {
    printf '\t.section .rodata.jt_web,"a"\n'
    for web_f in web/*; do
      web_sym=jt_web_$(basename "$web_f" | tr '.-' '__')
      printf '\t.globl %s\n\t.globl %s_size\n%s:\n\t.incbin "%s"\n%s_end:\n' \
        "$web_sym" "$web_sym" "$web_sym" "$PWD/$web_f" "$web_sym"
      printf '\t.byte 0\n\t.balign 8\n%s_size:\n\t.quad %s_end - %s\n' \
        "$web_sym" "$web_sym" "$web_sym"
    done
    printf '\t.section .note.GNU-stack,"",@progbits\n'
  } > "$web_gen/web_blob.S.tmp"
  mv "$web_gen/web_blob.S.tmp" "$web_gen/web_blob.S"
  say $AGENT_CC -c "$web_gen/web_blob.S" -o "$web_gen/web_blob.o"
  touch "$web_gen/objs"
  grep -v "$web_gen/web_blob.o" "$web_gen/objs" > "$web_gen/objs.tmp" || true
  echo "$web_gen/web_blob.o" >> "$web_gen/objs.tmp"
  mv "$web_gen/objs.tmp" "$web_gen/objs"
}

web_build
