#!/usr/bin/env bash
# One device sitting for the FFT issue: parameters, the fft test suite on both OpenCL devices,
# the full benchmark (64 MiB and 512 MiB batches, clforge vs clFFT vs VkFFT) on the GPU, and a
# sweep of alternative parameter sets on the sizes that decide the shipped NVIDIA row.
# usage: bench/scripts/h100_fft.sh BUILD_DIR OUT_DIR   (from the repository root)
set -u
B=$1
O=$2
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache
run() { echo "+ $*"; "$@"; echo "(exit $?)"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
  run "$B/clforge" devices
  for v in 16 1024 4096 8192 65536; do run "$B/clforge" -d nvidia params fft --variant $v; done
  # correctness on the GPU (every kernel kind, every shipped row) and on PoCL
  CLFORGE_TEST_DEVICE=nvidia run "$B/tests/clforge_tests" --test-suite=fft
  CLFORGE_TEST_DEVICE=cpu run "$B/tests/clforge_tests" --test-suite=fft
  # one plan each, with its decomposition and parameters printed
  for n in 16 1024 4096 8192 65536 1048576 1009 65537; do run "$B/clforge" -d nvidia run fft --n $n; done
  # the issue's benchmark: n = 8 ... 2^20, 1000, 3000, 4095, 1009, 65537 at 64 MiB and 512 MiB
  run "$B/clforge" -d nvidia bench fft --out "$O/json/fft_nvidia.json"
  # alternatives to the shipped NVIDIA row (each line: one parameter set on the sizes it affects)
  i=0
  while read -r sizes cfg; do
    [ -z "$sizes" ] && continue
    args=()
    for p in $cfg; do args+=(-p "$p"); done
    sz=()
    for s in ${sizes//,/ }; do sz+=(--size "$s"); done
    i=$((i + 1))
    run "$B/clforge" -d nvidia "${args[@]}" bench fft "${sz[@]}" --out "$O/json/fft_sweep_$i.json"
  done <<'EOF'
8,16,32,64 FFT_WG=128
8,16,32,64 FFT_WG=512
8,16,32,64 FFT_REG=8
16,32,64 FFT_REG=32 FFT_WG=128
16,64,256 FFT_STAGE=1
256,1024,4096 FFT_RADIX=8
256,1024,4096 FFT_HALVE=1
256,1024,4096 FFT_WG=512
256,1024,4096 FFT_PAD=0
256,1024,4096 FFT_TWIDDLE=1
8192 FFT_LOCAL_MAX=4096
8192 FFT_LOCAL_MAX=8192 FFT_HALVE=1 FFT_RADIX=8 FFT_WG=1024
65536,1048576 FFT_HALVE=1
65536,1048576 FFT_WG=512 FFT_HALVE=1
65536,1048576 FFT_WG=128
1009,65537 FFT_WG=512
EOF
  run "$B/clforge" -d cpu bench fft --size 16 --size 64 --size 256 --size 1024 --size 4096 --size 1009 \
    --out "$O/json/fft_pocl16.json"
} 2>&1 | tee "$O/log.txt"
tar -C "$O" -czf "$O/json.tgz" json && rm -rf "$O/json"
