# collapse.sh - bench piece: jvmtool collapse against a Perl aggregation
#
# Three ~200 MB sampler files made here with awk (deterministic): deep
# stacks (~1.4 KB lines), shallow (~250 B) and method-name-only (~70 B),
# a few thousand distinct stacks each. MB/s = input size / median wall time.
gen_stacks() {  # gen_stacks FILE MB FRAMES NAME_STYLE
  awk -v mb="$2" -v nf="$3" -v style="$4" 'BEGIN {
    srand(42); limit = mb * 1048576
    for (k = 0; k < 4000; k++) {
      s = style == "tiny" ? "run" : "java.lang.Thread.run"
      d = nf - 2 + k % 5
      for (j = 0; j < d; j++)
        s = s ";" (style == "tiny" ? "m" (k * 7 + j) % 23 \
            : "com.example.service.Layer" (k * j) % 9 ".handleRequest" j % 7)
      st[k] = s ";" (k % 3 ? "byte" : "java/lang/String")
    }
    while (size < limit) {
      line = st[int(rand() * 4000)] " " (16 + int(rand() * 4000))
      print line; size += length(line) + 1
    } }' > "$1"
}
bench_collapse() {  # label file
  mb=$(($(wc -c < "$2") / 1048576))
  set -- "$1" "$2" "$mb" $($M 3 "$JT" collapse "$2" -o /dev/null) \
    $($M 3 "$JT" collapse "$2" --svg "$JT_TMP/x.svg") \
    $($M 3 perl -ne '/^(.*) (\d+)$/ and $h{$1} += $2; END { print "$_ $h{$_}\n" for sort keys %h }' "$2")
  awk -v l="$1" -v mb="$3" -v c="$4" -v cr="$5" -v s="$6" -v sr="$7" -v p="$8" -v pr="$9" 'BEGIN {
    printf "collapse %-7s %4d MB: %7.0f MB/s %6d KiB | --svg %7.0f MB/s %6d KiB | perl %5.0f MB/s %7d KiB | %4.1fx perl\n",
      l, mb, mb * 1000 / c, cr, mb * 1000 / s, sr, mb * 1000 / p, pr, p / c }'
}
gen_stacks "$JT_TMP/deep.txt" 200 28 long
gen_stacks "$JT_TMP/shallow.txt" 200 5 long
gen_stacks "$JT_TMP/tiny.txt" 200 8 tiny
echo "collapse line sizes: deep $(head -1000 "$JT_TMP/deep.txt" | wc -c | awk '{printf "%d", $1/1000}') B, shallow $(head -1000 "$JT_TMP/shallow.txt" | wc -c | awk '{printf "%d", $1/1000}') B, tiny $(head -1000 "$JT_TMP/tiny.txt" | wc -c | awk '{printf "%d", $1/1000}') B"
bench_collapse deep "$JT_TMP/deep.txt"
bench_collapse shallow "$JT_TMP/shallow.txt"
bench_collapse tiny "$JT_TMP/tiny.txt"
rm -f "$JT_TMP/deep.txt" "$JT_TMP/shallow.txt" "$JT_TMP/tiny.txt" "$JT_TMP/x.svg"
