# build.d/flags.sh - the one compile line: every compiler call that builds
# core/ (the binary, unit tests, fuzz targets and their replays, the
# valgrind build, lint, test tools) takes its flags from here. POSIX sh,
# sourced; sets variables only (not a build step: build.sh skips it).
#
# In:  JT_SRC      the source tree as the compiler should see it (default .)
#      JT_VERSION  the version string compiled in (default "test")
#      JT_ARCH     the machine built for, as uname -m names it (x86_64,
#                  aarch64; default the host's)
# Out: WARN        the warnings of every build (build.d steps use it too)
#      BASE        language, defines, include folders, WARN
#      DEBUG       debug builds: unit tests, fuzz, replay, valgrind, tools
#      SAN         ASan+UBSan, stopping at the first report (SANITIZE=1)
#      STRICT      what lint.test adds on top of BASE, as errors
#      TESTINC     the test-only headers (test/unit: check.h, pdwriter.h)
#      TESTLIBS    the test-only sources every test program links with
#      RELEASE     size flags of dist/jvmtool (with -static, --gc-sections)
#      AGENT       the agent's compile and link line (agent/*.c -> agent.so)
#      AGENT_INC   the JDK's include folder (jvmti.h; jni_md.h in its linux/),
#                  from JAVA_HOME, javac's JDK or /usr/lib/jvm/*; "" if none
#      AGENT_SOURCES the agent's sources as globs relative to the tree
#                  (agent.so's; lint checks their calls as it does SOURCES')
#      SOURCES     the binary's sources as globs relative to the tree (expand
#                  them there): core/, cmd/ and the agent's option parser,
#                  which agent-install shares with the agent (agent/config.h)
: "${JT_SRC:=.}"
: "${JT_VERSION:=test}"
: "${JT_ARCH:=$(uname -m)}"
WARN="-Wall -Wextra -Wformat=2 -Wshadow -Wno-unused-parameter \
 -Werror=implicit-function-declaration -Werror=vla \
 -Werror=incompatible-pointer-types -Werror=int-conversion"
BASE="-std=c11 -D_GNU_SOURCE -I$JT_SRC -I$JT_SRC/dist/gen $WARN \
 -DJVMTOOL_VERSION=\"$JT_VERSION\""
DEBUG="-g -O1 -fno-omit-frame-pointer"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# -Wconversion is left out on purpose: PerfData and jstat arithmetic mixes
# 32/64-bit file fields, doubles and sizes everywhere, and its hundreds of
# casts would hide real bugs rather than find them.
STRICT="-fsyntax-only -Wstrict-prototypes -Wmissing-prototypes -Werror"
TESTINC="-I$JT_SRC/test/unit"
TESTLIBS=$(ls "$JT_SRC"/test/unit/*_lib.c 2>/dev/null | tr '\n' ' ')
# Release bytes depend on the sources and the compiler only: no build id,
# and no path of the checkout (the sources are named relative to it anyway).
# No unwind tables (nothing unwinds C here: aarch64's gcc wrote 41 KB of
# .eh_frame without -fno-unwind-tables) and no RELRO segment: musl's static
# start-up never makes it read-only (seen here: the region stays rw-p in
# /proc/PID/maps), while its alignment to aarch64's 64 KiB pages padded
# the file by 53 KB.
RELEASE="-Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables \
 -fno-unwind-tables -ffile-prefix-map=$(pwd)/= -Wl,--build-id=none -Wl,-z,norelro"
# The agent is freestanding: no libc, no stack protector or fortify (their
# symbols live in a libc), no TLS; -z defs makes any stray import a link
# error. On aarch64, gcc would call libgcc's __aarch64_* helpers for the
# atomics (outline atomics): inline LL/SC sequences instead, which every
# ARMv8.0 core runs.
AGENT="-std=c11 -O2 -fPIC -shared -nostdlib -ffreestanding -fno-builtin \
 -fno-stack-protector -U_FORTIFY_SOURCE -fvisibility=hidden \
 -fno-omit-frame-pointer -fno-tree-loop-distribute-patterns -fno-sanitize=all \
 -ffile-prefix-map=$(pwd)/= $WARN -Wl,-z,defs -Wl,--hash-style=both \
 -Wl,-z,noexecstack -Wl,--build-id=none -Wl,-soname,agent.so"
if [ "$JT_ARCH" = aarch64 ]; then AGENT="$AGENT -mno-outline-atomics"; fi
AGENT_INC=
for _flags_jdk in "${JAVA_HOME:-}" \
    "$(dirname "$(dirname "$(readlink -f "$(command -v javac || echo /x/x)")")")" \
    /usr/lib/jvm/*; do
  if [ -n "$_flags_jdk" ] && [ -f "$_flags_jdk/include/jvmti.h" ]; then
    AGENT_INC=$_flags_jdk/include
    break
  fi
done
AGENT_SOURCES="agent/*.c"
SOURCES="core/*.c cmd/*.c agent/config.c"
