#!/usr/bin/env bash
# Device sittings of session 13 on the lent H100 machine, one part per call (the machine is
# released between calls: each part is self-contained). The kernel's CPU form (FFT_VEC 0) now
# vectorises under PoCL 3.1; the CPU rows of 128, 256, 512, 1024 and 2048 changed to it.
#   part 1: the 16-core PoCL CPU device: `bench fft --rounds 3` of the powers of two 16 ... 4096 at
#           64 MiB under the shipped rows, then of 128 ... 2048 under each tuning file TF (the
#           rows before this session: s13/tf_old.json).
#   part 2: NVIDIA: the fft, tune and tuning test suites, then `bench fft` of 8 ... 4096, 16384
#           and 2^20 at 64 and 512 MiB (the GPU code changed only in ways that should not matter:
#           unconditional loads of the last group, literal unit strides, j mod NS of last passes).
#   part 3: NVIDIA: `bench fft` of the default list (every length at 64 and 512 MiB).
source "$(dirname "$0")/device_common.sh" "$@"
{
  date -u
  case "$PART" in
  1)
    lscpu | grep -E "Model name|^CPU\(s\)"
    sizes="--size 16@64 --size 32@64 --size 64@64 --size 128@64 --size 256@64 --size 512@64 --size 1024@64
           --size 2048@64 --size 4096@64"
    echo "#### shipped rows"
    lim 400 "$C" -d cpu bench fft $sizes --rounds 3 --out "$O/json/fft_cpu_s13-1_shipped.json" 2>&1 |
      grep -E "^fft n.*(median|refused|failed)"
    for tf in "${TFS[@]}"; do
      echo "#### tuning file: $tf"
      CLFORGE_TUNING_FILE="$(realpath "$tf")" lim 250 "$C" -d cpu bench fft --size 128@64 --size 256@64 --size 512@64 --size 1024@64 --size 2048@64 --rounds 3 \
        --out "$O/json/fft_cpu_s13-1_$(basename "$tf" .json).json" 2>&1 | grep -E "^fft n.*(median|refused|failed)"
    done
    ;;
  2)
    stamp
    fft_tests
    sizes=""
    for n in 8 16 32 64 128 256 512 1024 2048 4096 16384 1048576; do sizes="$sizes --size $n@64 --size $n@512"; done
    lim 300 "$C" -d nvidia bench fft $sizes --out "$O/json/fft_s13-2.json" 2>&1 | grep -E "^fft n"
    ;;
  3)
    stamp
    fft_all s13-3
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_s13-$PART.txt"
