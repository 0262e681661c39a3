# build.d/stat.sh - embed specs/jstat.spec into the binary, gzip'd
#
# cmd/stat_jstat.c inflates jt_jstat_spec_gz once and hands the text to
# the same parser as `jvmtool stat --spec FILE`: the spec stays the one
# place that defines jstat's options (no second, generated form to drift
# from it). Whole-line comments and indentation are dropped first, then
# gzip makes its 32 KB about 5 (the binary stays under 512 KiB on both
# machines). Sourced by build.sh (set -eu) with JT_OUT; defines nothing
# it does not prefix with stat_, never exits but through die.

stat_build() {
  stat_gen=$JT_OUT/gen
  mkdir -p "$stat_gen"
  sed -e '/^\/\*/,/\*\//d' -e '/^ *\/\//d' -e '/^ *$/d' -e 's/^ *//' \
    specs/jstat.spec | gzip -9n > "$stat_gen/jstat.spec.gz.tmp"
  mv "$stat_gen/jstat.spec.gz.tmp" "$stat_gen/jstat.spec.gz"
  embed stat_blob jt_jstat_spec_gz "$stat_gen/jstat.spec.gz"
}

stat_build
