#!/usr/bin/env bash
# One device sitting for the foundation issue: identity, info, params, peaks, the test suite on
# both OpenCL devices, transpose benchmarks and a small parameter sweep on the GPU.
# usage: bench/scripts/h100_foundation.sh BUILD_DIR OUT_DIR
set -u
B=$1
O=$2
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache CLFORGE_TEST_SOURCE_DIR=$PWD
run() { echo "+ $*"; "$@"; echo "(exit $?)"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
  run "$B/clforge" devices
  run "$B/clforge" -d nvidia info
  run "$B/clforge" -d nvidia info --timings
  run "$B/clforge" -d nvidia info --timings
  run "$B/clforge" -d nvidia params transpose
  run "$B/clforge" -d cpu params transpose
  run "$B/clforge" -d nvidia peak --out "$O/json/peak_nvidia.json"
  run "$B/clforge" -d cpu peak --out "$O/json/peak_pocl.json"
  CLFORGE_TEST_DEVICE=nvidia run "$B/tests/clforge_tests"
  CLFORGE_TEST_DEVICE=cpu run "$B/tests/clforge_tests"
  run "$B/clforge" -d nvidia bench transpose --size 8192 --size 16384 --out "$O/json/transpose_nvidia.json"
  run "$B/clforge" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_pocl.json"
  i=0
  for cfg in "TRA_TILE=32 TRA_WPT=8" "TRA_TILE=32 TRA_WPT=4 TRA_DIAG=1" "TRA_TILE=64 TRA_WPT=8" "TRA_TILE=64 TRA_WPT=16" \
             "TRA_TILE=32 TRA_WPT=2" "TRA_TILE=32 TRA_WPT=4 TRA_VW=2" "TRA_TILE=16 TRA_WPT=1" "TRA_TILE=32 TRA_WPT=8 TRA_PAD=0" \
             "TRA_TILE=64 TRA_WPT=16 TRA_VW=2" "TRA_TILE=32 TRA_WPT=8 TRA_VW=4"; do
    args=()
    for p in $cfg; do args+=(-p "$p"); done
    i=$((i + 1))
    run "$B/clforge" -d nvidia "${args[@]}" bench transpose --size 8192 --size 16384 --out "$O/json/sweep_$i.json"
  done
} 2>&1 | tee "$O/log.txt"
tar -C "$O" -czf "$O/json.tgz" json && rm -rf "$O/json"
