#!/bin/bash
# The JDK 11 (bullseye) and JDK 21 (trixie) root filesystems test/jdk.test
# runs its JVMs in (issue 24), made here because the test sandboxes have no
# network. Cached under /var/cache/jvmtool-test: a fresh build costs about
# 100 s (11) and 300 s (21) here, a cached one nothing.
set -eu
cd "$(dirname "$0")/../.."
sh test/jdk_root.sh 11 21
