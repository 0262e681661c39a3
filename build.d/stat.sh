# build.d/stat.sh - embed specs/jstat.spec as a C string literal
#
# cmd/stat.c includes dist/gen/jstat_spec.inc (static const char
# jstat_spec_text[]) and hands the text to the same
# parser as `jvmtool stat --spec FILE`: the spec stays the one place that
# defines jstat's options (no second, generated form to drift from it).
# Whole-line comments and indentation are dropped to keep the binary small.
# Sourced by build.sh with its variables; POSIX sed only.
sed -e '/^\/\*/,/\*\//d' -e '/^ *\/\//d' -e '/^ *$/d' -e 's/^ *//' \
  -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$/\\n"/' \
  specs/jstat.spec > dist/gen/jstat_spec.inc.tmp &&
  { echo '/* generated from specs/jstat.spec by build.d/stat.sh - do not edit */'
    echo 'static const char jstat_spec_text[] ='
    cat dist/gen/jstat_spec.inc.tmp
    echo ';'; } > dist/gen/jstat_spec.inc.tmp2 &&
  rm dist/gen/jstat_spec.inc.tmp &&
  mv dist/gen/jstat_spec.inc.tmp2 dist/gen/jstat_spec.inc
