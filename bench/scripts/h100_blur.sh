#!/usr/bin/env bash
# One device sitting for the Gaussian blur: the blur test suite on both OpenCL devices, the
# benchmark at 16 and 64 MP (float, then float4), narrow images for the whole-column vs blocked
# recursive schemes, and small parameter sweeps of the separable and recursive kernels.
# usage: bench/scripts/h100_blur.sh BUILD_DIR OUT_DIR      (about 6-8 minutes on an H100)
set -u
B=$1
O=$2
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache
run() { echo "+ $*"; "$@"; echo "(exit $?)"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
  for k in blur blur_direct blur_separable blur_recursive; do run "$B/clforge" -d nvidia params $k --variant 1; done
  run "$B/clforge" -d nvidia params blur_recursive --variant 4
  CLFORGE_TEST_DEVICE=nvidia run "$B/tests/clforge_tests" --test-suite=blur
  CLFORGE_TEST_DEVICE=cpu run "$B/tests/clforge_tests" --test-suite=blur
  # The acceptance figures: 16 and 64 MP, sigma 0.8 2 5 10 20, every method and recursive scheme.
  run "$B/clforge" -d nvidia bench blur --out "$O/json/blur_nvidia"
  run "$B/clforge" -d nvidia bench blur --channels 4 --size 4096x4096 --sigmas 2,10 --out "$O/json/blur_nvidia_rgba"
  # Where auto should switch methods on this device (printed, not stored).
  run "$B/clforge" -d nvidia tune blur-crossover --no-store
  # Narrow images: parallelism of the whole-column scheme vs blocks.
  run "$B/clforge" -d nvidia bench blur --size 512x32768 --size 32768x512 --size 8192x8192 --sigmas 2,20 \
      --methods recursive-whole,recursive-blocked,recursive-fused --out "$O/json/blur_nvidia_narrow"
  # Separable sweep at 64 MP, sigma 5 (the 50 %-of-bound target) and 20.
  i=0
  for cfg in "BLUR_S_ROW_LY=1" "BLUR_S_ROW_LY=8" "BLUR_S_ROW_LX=128 BLUR_S_ROW_LY=2" "BLUR_S_ROW_VW=1 BLUR_S_ROW_LX=256" \
             "BLUR_S_COL_WPT=4" "BLUR_S_COL_WPT=16 BLUR_S_COL_LY=4" "BLUR_S_COL_LX=64 BLUR_S_COL_LY=4" \
             "BLUR_S_COL_LX=128 BLUR_S_COL_LY=2 BLUR_S_COL_WPT=16" "BLUR_S_LOCAL=0"; do
    args=()
    for p in $cfg; do args+=(-p "$p"); done
    i=$((i + 1))
    run "$B/clforge" -d nvidia "${args[@]}" bench blur --size 8192x8192 --sigmas 5,20 --methods separable \
        --verify-pixels 200 --out "$O/json/sep_sweep_$i"
  done
  # Recursive sweep at 64 MP (time should not depend on sigma).
  i=0
  for cfg in "BLUR_R_BLOCK=32" "BLUR_R_BLOCK=128" "BLUR_R_LX=64" "BLUR_R_LX=64 BLUR_R_BLOCK=32" "BLUR_R_BATCH=4" \
             "BLUR_R_BATCH=16" "BLUR_R_LX=16 BLUR_R_BLOCK=128" "BLUR_R_FUSE_T=0"; do
    args=()
    for p in $cfg; do args+=(-p "$p"); done
    i=$((i + 1))
    run "$B/clforge" -d nvidia "${args[@]}" bench blur --size 8192x8192 --sigmas 2,20 --methods recursive \
        --verify-pixels 200 --out "$O/json/rec_sweep_$i"
  done
  # PoCL on the host's 16 cores, for the CPU row.
  run "$B/clforge" -d cpu bench blur --size 4096x4096 --sigmas 0.8,2,5,10,20 --out "$O/json/blur_pocl16"
} 2>&1 | tee "$O/log.txt"
tar -C "$O" -czf "$O/json.tgz" json && rm -rf "$O/json"
