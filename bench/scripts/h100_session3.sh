#!/usr/bin/env bash
# Device sittings of session 3 on the lent H100 machine, one part per call (each under the
# device tool's 10-minute limit). Each step has its own time limit; a tune interrupted by SIGINT
# still stores its best. The user tuning database written here comes back in OUT (json.tgz) so
# that its rows can be shipped as the sm_90 entries.
#   part 1: identity, peaks, transpose tuning (work-group orders) and bench, SGEMM tuning (the
#           issue's `tune sgemm --size 4096 --time 120`, the small class) and bench.
#   part 2: the test suite on the NVIDIA device, FFT at 64 and 512 MiB against clFFT, VkFFT and
#           cuFFT, blur on 64 MP, transpose on the PoCL CPU device.
#   part 3: the issue's `tune sgemm --size 4096 --time 120` (sampled space, annealing), the small
#           SGEMM class, blur separable and recursive tuning on 64 MP, and the benchmarks that
#           check them (back-to-back calls per timed region).
#   part 4: split-k SGEMM (small class tuning, with and without the split), FFT tuning of the
#           register and local-memory kernels at 64 MiB, the blur crossover, the test suite on
#           the NVIDIA device.
#   part 5: small SGEMM through the direct kernel, then `clforge bench all --devices nvidia,cpu`
#           (issue 7's full run), returned in OUT/json5.tgz.
#   part 7: the issue's `tune sgemm --size 4096 --time 120` again (a batch now starts only if it
#           would end in the budget), small SGEMM with the sm_90 route row, transpose tuning and
#           benchmark on the PoCL CPU device.
#   part 8: the direct SGEMM kernel tuned where the sm_90 route now uses it (256^3, 512^3).
#   part 9: FFT tuning at n = 32 and 1024 (64 MiB batches), then their benchmark.
#   part 6: the timed `bench all --quick` on the GPU and the test suite on the NVIDIA device
#           (the CLI test case is left out there: a child process does not see the NVIDIA
#           platform while the test process holds its context).
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session3.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
PART=$3
{
  date -u
  case $PART in
  1)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
    run "$B/clforge" devices
    run "$B/clforge" -d nvidia info
    run "$B/clforge" -d nvidia params transpose
    run "$B/clforge" -d nvidia peak
    lim 100 "$B/clforge" -d nvidia tune transpose --size 8192 --strategy exhaustive --param TRA_TILE=32,64 \
      --param TRA_WPT=4,8,16 --param TRA_VW=1,4 --param TRA_PAD=1 --param TRA_DIAG=0 \
      --param TRA_SWZ=0,4,8,16,32 --param TRA_LOCAL=1 --out "$O/json/tune_transpose_nvidia.json"
    lim 40 "$B/clforge" -d nvidia bench transpose --size 8192 --size 16384 --size 8200 --out "$O/json/transpose_nvidia.json"
    lim 170 "$B/clforge" -d nvidia tune sgemm --size 4096 --time 120
    lim 45 "$B/clforge" -d nvidia tune sgemm --size 1000 --time 35
    lim 45 "$B/clforge" -d nvidia tune sgemm_direct --size 1000 --time 35 --param WGD=32,64 --param KWID=2,8,16
    lim 60 "$B/clforge" -d nvidia bench sgemm --quick --size 1000 --size 1024 --size 4096 --size 8192 --size 4097 \
      --out "$O/json/sgemm_nvidia.json"
    lim 30 "$B/clforge" -d nvidia -p SGEMM_DIRECT_MAX=1100 bench sgemm --quick --size 1000 --size 1024 \
      --out "$O/json/sgemm_direct_nvidia.json"
    ;;
  2)
    export CLFORGE_TEST_DEVICE=nvidia
    lim 140 "$B/tests/clforge_tests" --test-suite=transpose,sgemm,fft,blur,tuning,runtime,cache
    unset CLFORGE_TEST_DEVICE
    lim 170 "$B/clforge" -d nvidia bench fft --out "$O/json/fft_nvidia.json"
    lim 80 "$B/clforge" -d nvidia bench blur --size 8192x8192 --sigmas 0.8,2,5,10,20 --out "$O/json/blur_nvidia.json"
    lim 45 "$B/clforge" -d cpu tune transpose --size 4096 --time 30
    lim 80 "$B/clforge" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_pocl.json"
    ;;
  3)
    nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv
    lim 175 "$B/clforge" -d nvidia tune sgemm --size 4096 --time 120 --out "$O/json/tune_sgemm4096_nvidia.json"
    lim 70 "$B/clforge" -d nvidia tune sgemm --size 1000 --time 50 --out "$O/json/tune_sgemm1000_nvidia.json"
    lim 45 "$B/clforge" -d nvidia tune blur --size 8192x8192 --method separable --time 30
    lim 45 "$B/clforge" -d nvidia tune blur --size 8192x8192 --method recursive --time 30
    lim 90 "$B/clforge" -d nvidia bench transpose --size 8192 --size 16384 --out "$O/json/transpose_nvidia.json"
    lim 70 "$B/clforge" -d nvidia bench sgemm --quick --size 1000 --size 1024 --size 4096 --size 8192 --size 4097 \
      --out "$O/json/sgemm_nvidia.json"
    lim 50 "$B/clforge" -d nvidia bench blur --size 8192x8192 --sigmas 2,5,10,20 --methods separable,recursive \
      --out "$O/json/blur_nvidia.json"
    ;;
  4)
    lim 80 "$B/clforge" -d nvidia tune sgemm --size 1000 --time 60 --out "$O/json/tune_sgemm1000_nvidia.json"
    lim 40 "$B/clforge" -d nvidia bench sgemm --quick --size 1000 --size 1024 --size 2048 --out "$O/json/sgemm_nvidia.json"
    lim 30 "$B/clforge" -d nvidia -p SGEMM_SPLITK=0 bench sgemm --quick --size 1000 --size 2048 \
      --out "$O/json/sgemm_nosplit_nvidia.json"
    lim 60 "$B/clforge" -d nvidia tune fft --size 8@1048576 --size 16@524288 --size 64@131072 --size 4096@2048 \
      --time 50 --out "$O/json/tune_fft_nvidia.json"
    lim 40 "$B/clforge" -d nvidia tune blur-crossover --size 8192x8192
    export CLFORGE_TEST_DEVICE=nvidia
    lim 150 "$B/tests/clforge_tests" --test-suite=transpose,sgemm,fft,blur,tuning,runtime,cache
    unset CLFORGE_TEST_DEVICE
    cat "$XDG_DATA_HOME"/clforge/tuning/*.json
    ;;
  5)
    lim 30 "$B/clforge" -d nvidia -p SGEMM_DIRECT_MAX=1024 bench sgemm --quick --size 256 --size 512 --size 903 \
      --out "$O/json/sgemm_direct_nvidia.json"
    lim 545 "$B/clforge" bench all --devices nvidia,cpu --out "$O/json/all"
    ;;
  6)
    t0=$SECONDS
    "$B/clforge" bench all --quick --devices nvidia --out "$O/json/quick"
    echo "bench all --quick on the GPU: $((SECONDS - t0)) s"
    export CLFORGE_TEST_DEVICE=nvidia
    lim 200 "$B/tests/clforge_tests" --test-suite=transpose,sgemm,fft,blur,tuning,runtime,cache \
      --test-case-exclude="clforge blur: PNG*"
    unset CLFORGE_TEST_DEVICE
    ;;
  7)
    lim 160 "$B/clforge" -d nvidia tune sgemm --size 4096 --time 120
    lim 30 "$B/clforge" -d nvidia bench sgemm --quick --size 256 --size 512 --size 1000 --out "$O/json/sgemm_small_nvidia.json"
    lim 100 "$B/clforge" -d cpu tune transpose --size 4096 --strategy anneal --time 80 --out "$O/json/tune_transpose_cpu.json"
    lim 60 "$B/clforge" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu.json"
    ;;
  8)
    lim 110 "$B/clforge" -d nvidia tune sgemm_direct --size 256 --size 512 --strategy anneal --time 90 \
      --out "$O/json/tune_direct_nvidia.json"
    lim 30 "$B/clforge" -d nvidia bench sgemm --size 256 --size 512 --size 903 --out "$O/json/sgemm_small_nvidia.json"
    ;;
  9)
    lim 80 "$B/clforge" -d nvidia tune fft --size 32@262144 --size 1024@8192 --time 70 --out "$O/json/tune_fft_nvidia.json"
    lim 40 "$B/clforge" -d nvidia bench fft --size 32 --size 1024 --size 2048 --out "$O/json/fft_nvidia.json"
    ;;
  esac
  find "$XDG_DATA_HOME" -type f
} 2>&1 | tee "$O/log$PART.txt"
cp -r "$XDG_DATA_HOME" "$O/json/userdata" 2>/dev/null
tar -C "$O" -czf "$O/json$PART.tgz" json && rm -rf "$O/json"
