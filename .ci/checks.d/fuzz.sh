#!/bin/bash
# Fuzz smoke: every libFuzzer target for a short budget (the full run is
# ./build.sh fuzz 60, by hand).
set -eu
cd "$(dirname "$0")/../.."
./build.sh fuzz "${FUZZ_SECONDS:-20}"
