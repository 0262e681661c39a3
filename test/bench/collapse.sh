# collapse.sh - bench piece: jvmtool collapse against a Perl aggregation
#
# Three ~200 MB sampler files made here with awk (deterministic): deep
# stacks (~1.4 KB lines), shallow (~220 B) and method-name-only (~70 B),
# 4000 stacks each, one in twenty with direct recursion to squash.
# MB/s = input size / median wall time of 7 runs; "1 core" is the same
# run pinned to one CPU with taskset. The rendering cost per frame is the --svg run less
# the collapse run, over the frames the SVG holds. wc -l on the same file
# is the floor: reading it and finding its newlines, nothing more. "of wc
# -l" is the median over 9 pairs of runs back to back (collapse, then wc
# -l) of wc's time over ours: on a shared, loaded machine the load
# changes between two series of runs far more than within a pair.
gen_stacks() {  # gen_stacks FILE MB FRAMES NAME_STYLE
  awk -v mb="$2" -v nf="$3" -v style="$4" 'BEGIN {
    srand(42); limit = mb * 1048576
    for (k = 0; k < 4000; k++) {
      s = style == "tiny" ? "run" : "java.lang.Thread.run"
      d = nf - 2 + k % 5
      for (j = 0; j < d; j++) {
        x = (k * 7919 + j * 104729 + k * j * 31) % 1009
        f = style == "tiny" ? "m" x % 211 \
            : "com.example.service" x % 13 ".Layer" x % 31 ".handle" x % 7
        s = s ";" f
        if (k % 20 == 0 && j == 3) s = s ";" f ";" f  # direct recursion
      }
      st[k] = s ";" (k % 3 ? "byte" : "java/lang/String")
    }
    while (size < limit) {
      line = st[int(rand() * 4000)] " " (16 + int(rand() * 4000))
      print line; size += length(line) + 1
    } }' > "$1"
}
# paired_ratio FILE: the median of wc -l's time over collapse's, in pairs
paired_ratio() {
  for _i in 1 2 3 4 5 6 7 8 9; do
    _c=$($M 1 "$JT" collapse "$1" -o /dev/null | cut -d' ' -f1)
    _w=$($M 1 wc -l "$1" | cut -d' ' -f1)
    echo "$_c $_w"
  done | awk '{ print $2 / $1 }' | sort -n | sed -n 5p
}
bench_collapse() {  # label file
  mb=$(($(wc -c < "$2") / 1048576))
  one=- frames=$("$JT" collapse "$2" --svg "$JT_TMP/x.svg" && grep -c '^<g class="f"' "$JT_TMP/x.svg")
  command -v taskset >/dev/null && one=$($M 7 taskset -c 0 "$JT" collapse "$2" -o /dev/null | cut -d' ' -f1)
  set -- "$1" "$2" "$mb" "$one" "$frames" $($M 7 "$JT" collapse "$2" -o /dev/null) \
    $($M 7 "$JT" collapse "$2" --svg "$JT_TMP/x.svg") \
    $($M 7 perl -ne '/^(.*) (\d+)$/ and $h{$1} += $2; END { print "$_ $h{$_}\n" for sort keys %h }' "$2") \
    $($M 7 wc -l "$2") $(paired_ratio "$2")
  awk -v l="$1" -v mb="$3" -v one="$4" -v fr="$5" -v c="$6" -v cr="$7" -v s="$8" -v sr="$9" -v p="${10}" -v pr="${11}" -v w="${12}" -v pw="${14}" 'BEGIN {
    printf "collapse %-7s %3d MB: %5.0f MB/s (1 core %5.0f) %5d KiB | --svg %5.0f MB/s, %4.2f us/frame (%d) | perl %4.0f MB/s %6d KiB | %4.1fx perl | wc -l %5.0f MB/s | %3.0f %% of wc -l\n",
      l, mb, mb * 1000 / c, one == "-" ? 0 : mb * 1000 / one, cr, mb * 1000 / s,
      (s - c) * 1000 / fr, fr, mb * 1000 / p, pr, p / c, mb * 1000 / w, pw * 100 }'
}
gen_stacks "$JT_TMP/deep.txt" 200 38 long
gen_stacks "$JT_TMP/shallow.txt" 200 5 long
gen_stacks "$JT_TMP/tiny.txt" 200 12 tiny
# the vector path the run takes (core/foldvec.h): AVX2 where the CPU has it
vpath=SSE2; [ "$(uname -m)" = aarch64 ] && vpath=NEON
grep -qw avx2 /proc/cpuinfo 2>/dev/null && [ "$(uname -m)" = x86_64 ] && vpath=AVX2
echo "collapse line sizes: deep $(head -1000 "$JT_TMP/deep.txt" | wc -c | awk '{printf "%d", $1/1000}') B, shallow $(head -1000 "$JT_TMP/shallow.txt" | wc -c | awk '{printf "%d", $1/1000}') B, tiny $(head -1000 "$JT_TMP/tiny.txt" | wc -c | awk '{printf "%d", $1/1000}') B; vector path $vpath"
bench_collapse deep "$JT_TMP/deep.txt"
bench_collapse shallow "$JT_TMP/shallow.txt"
bench_collapse tiny "$JT_TMP/tiny.txt"
rm -f "$JT_TMP/deep.txt" "$JT_TMP/shallow.txt" "$JT_TMP/tiny.txt" "$JT_TMP/x.svg"
