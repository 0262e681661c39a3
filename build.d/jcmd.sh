# build.d/jcmd.sh - embed the jcmd, jstack and jinfo links' help texts
#
# specs/jcmd.usage, specs/jstack.usage and specs/jinfo.usage are the JDK 17
# tools' own help, byte for byte (jcmd's trailing blanks included);
# cmd/jcmd.c includes dist/gen/jcmd_usage.inc (jcmd_usage[]), cmd/jstack.c
# dist/gen/jstack_usage.inc (jstack_usage[]), cmd/jinfo.c
# dist/gen/jinfo_usage.inc (jinfo_usage[]). POSIX sed only.
for jcmd_u in jcmd jstack jinfo; do
  { echo "/* generated from specs/$jcmd_u.usage by build.d/jcmd.sh - do not edit */"
    echo "static const char ${jcmd_u}_usage[] ="
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$/\\n"/' \
      "specs/$jcmd_u.usage"
    echo ';'; } > "dist/gen/${jcmd_u}_usage.inc.tmp" &&
    mv "dist/gen/${jcmd_u}_usage.inc.tmp" "dist/gen/${jcmd_u}_usage.inc"
done
