#!/bin/bash
# The release build (issue 24): dist/jvmtool-x86_64, dist/jvmtool-aarch64 and
# SHA256SUMS, then the same build in a clone at another path must give the
# same bytes. Last, the arm64 JDK root test/aarch64.test runs under qemu:
# made here because the test sandboxes have no network to fetch it.
set -eu
cd "$(dirname "$0")/../.."
./build.sh release
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "release.sh: the checkout has changes: second build not compared"
else
  w=$(mktemp -d /var/tmp/jvmtool-release.XXXXXX)
  trap 'rm -rf "$w"' EXIT
  git clone -q . "$w/another/path"
  (cd "$w/another/path" && ./build.sh release >/dev/null)
  cmp dist/SHA256SUMS "$w/another/path/dist/SHA256SUMS"
  echo "release.sh: a second build at another path: the same bytes"
fi
sh test/arm64_root.sh
