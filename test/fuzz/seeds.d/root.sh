# root: trees of folders, files and links (absolute, climbing, looping)
# with the paths to resolve in them (see test/fuzz/fuzz_root.c)
mkdir -p "$out/root"
printf 'd var\nd var/tmp\nf var/tmp/f\nl tmp /var/tmp\nq /tmp/f\nq tmp/../a\nq /a\n' > "$out/root/tmplink"
printf 'd x\nl x/up ../../../..\nq x/up/a\nq x/up/x/up/b\nq /../../c\n' > "$out/root/climb"
printf 'l a b\nl b a\nq a/x\nl c /c\nq c/d\nd e\nl e/abs /\nq e/abs/e/abs/x\n' > "$out/root/loops"
printf 'd d\nd d/e\nl r d/e\nf d/a\nq r/../a\nq r/../../a\nq d/e/../../d/a/\nq d/a/.\nq r/.\nq r/\n' > "$out/root/dotdot"
printf 'd t\nf t/f\nd s\nl s/abs /t\nq s/abs/f\nl s/rel ../t\nq s/rel/f\n' > "$out/root/abslink"
