# build.d/jdk.sh - embed each drop-in link's help text
#
# Every row DROPIN(link, ...) of specs/dropins.def has specs/<link>.usage:
# the JDK 17 tool's own help, byte for byte (jcmd's trailing blanks
# included), or the link's own where it takes less than the tool (jmap).
# Each becomes dist/gen/<link>_usage.inc (static const char
# <link>_usage[]), included by the file that defines <link>_link_main.
# The links come from the rows, not from a list here. POSIX sed only.
for jdk_u in $(sed -n 's/^DROPIN(\([a-z0-9_]*\),.*/\1/p' specs/dropins.def); do
  [ -f "specs/$jdk_u.usage" ] ||
    { echo "build.d/jdk.sh: no specs/$jdk_u.usage for the $jdk_u row" >&2
      exit 1; }
  { echo "/* generated from specs/$jdk_u.usage by build.d/jdk.sh - do not edit */"
    echo "static const char ${jdk_u}_usage[] ="
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$/\\n"/' \
      "specs/$jdk_u.usage"
    echo ';'; } > "dist/gen/${jdk_u}_usage.inc.tmp" &&
    mv "dist/gen/${jdk_u}_usage.inc.tmp" "dist/gen/${jdk_u}_usage.inc"
done
