# build.d/jcmd.sh - embed the jcmd and jstack links' help texts
#
# specs/jcmd.usage and specs/jstack.usage are the JDK 17 tools' own help,
# byte for byte (jcmd's trailing blanks included); cmd/jcmd.c includes
# dist/gen/jcmd_usage.inc (jcmd_usage[], jstack_usage[]). POSIX sed only.
jcmd_usage_literal() {
  echo "static const char $1[] ="
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$/\\n"/' "$2"
  echo ';'
}
{ echo '/* generated from specs/jcmd.usage, specs/jstack.usage by build.d/jcmd.sh - do not edit */'
  jcmd_usage_literal jcmd_usage specs/jcmd.usage
  jcmd_usage_literal jstack_usage specs/jstack.usage; } > dist/gen/jcmd_usage.inc.tmp &&
  mv dist/gen/jcmd_usage.inc.tmp dist/gen/jcmd_usage.inc
