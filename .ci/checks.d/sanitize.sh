#!/bin/bash
# The whole suite once against an ASan+UBSan build; the normal static build
# and suite run after this (.ci/run), so dist/jvmtool is rebuilt then.
set -eu
cd "$(dirname "$0")/../.."
SANITIZE=1 ./build.sh test
