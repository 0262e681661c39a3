# web.sh - embed serve's page (web/: its HTML, script and style) into the
# binary. Sourced by build.sh (set -eu) with JT_OUT and AGENT_CC (an
# assembler for the machine built for); defines nothing it does not
# prefix with web_, never exits but through die.
#
# Each file of web/ is a symbol jt_web_<name> (dots as _) and its size
# jt_web_<name>_size, through .incbin: the bytes as they are in the tree.

web_build() {
  set --
  for web_f in web/*; do
    set -- "$@" "jt_web_$(basename "$web_f" | tr '.-' '__')" "$PWD/$web_f"
  done
  embed web_blob "$@"
}

web_build
