#!/bin/bash
# The suite once against an ASan+UBSan build: every test file that runs
# dist/jvmtool (test/run.sh leaves out those marked "# no dist/jvmtool");
# the normal static build and suite run after this (.ci/run), so
# dist/jvmtool is rebuilt then.
set -eu
cd "$(dirname "$0")/../.."
SANITIZE=1 ./build.sh test
