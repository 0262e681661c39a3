# web.sh - embed serve's page (web/: its HTML, script and style) into the
# binary. Sourced by build.sh (set -eu) with JT_OUT and AGENT_CC (an
# assembler for the machine built for); defines nothing it does not
# prefix with web_, never exits but through die.
#
# Each file of web/ is a symbol jt_web_<name>_gz (dots as _) and its size
# jt_web_<name>_gz_size, through .incbin: the file gzip'd (13 KB become 5;
# the binary stays under 512 KiB on both machines). cmd/serve_page.c
# inflates each once, when it is first asked for.

web_build() {
  web_gen=$JT_OUT/gen/web
  mkdir -p "$web_gen"
  set --
  for web_f in web/*; do
    web_n=$(basename "$web_f")
    gzip -9n -c "$web_f" > "$web_gen/$web_n.gz.tmp"
    mv "$web_gen/$web_n.gz.tmp" "$web_gen/$web_n.gz"
    set -- "$@" "jt_web_$(echo "$web_n" | tr '.-' '__')_gz" "$web_gen/$web_n.gz"
  done
  embed web_blob "$@"
}

web_build
