#!/usr/bin/env bash
# Device sittings of session 14 on the lent H100 machine, one part per call (the machine is
# released between calls: each part is self-contained). The closing record of issue 4 on the
# code as it stands after session 13 (the kernel's CPU form; unconditional loads in both forms).
#   part 1: NVIDIA: `bench fft` of the default list (every length at 64 and 512 MiB), then
#           16384 at 512 MiB twice more (the thinnest margin, S11-10), then the fft, tune and
#           tuning test suites.
#   part 2: the 16-core PoCL CPU device: `bench fft --rounds 5` of the powers of two 16 ... 4096
#           at 64 MiB under the shipped rows; of 128 ... 2048 under each tuning file TF (the rows
#           before session 13: s13/tf_old.json); then `tune fft` of 32 in both kernel forms
#           (registers or local memory, FFT_VEC 0/1, staged or not; run-off of 3) written as a
#           tuning file, and `bench fft --rounds 5` of 16 and 32 under it and under the shipped rows.
#   part 3: NVIDIA: 16 and 64 at 512 MiB sit on the copy roofline with clFFT and cuFFT (S14-1: 0.4 %
#           and 0.9 % behind clFFT): `bench fft --rounds 5` of 16 and 64 at 64 and 512 MiB under
#           the shipped rows; `tune fft` of 16 and 64 at 512 MiB (radix, registers or local memory,
#           work-items, staging; run-off of 4) written as a tuning file; the same bench under it.
#   part 4: the 16-core PoCL CPU device: 2048 (S14-2: the session-13 row 10.3 ms, VkFFT 9.5, the
#           row before 8.1): `tune fft` of 2048 over radix 16/32, 16 ... 256 work-items, FFT_VEC,
#           FFT_TWIDDLE 0/5 (run-off of 4) as a tuning file; `bench fft --rounds 5` of 2048 under it,
#           under each TF and under the shipped rows.
#   part 5: NVIDIA: 16 at 512 MiB (S14-3, five rounds: 0.3686 ms against clFFT's 0.3622): `tune fft`
#           of 16 at 512 MiB in the local-memory kernel with several work-items per transform
#           (radix 2/4/8/16, unstaged or staged, 64 ... 512 work-items; the search's fastest stands,
#           no run-off), then `bench fft --rounds 5` of 16 at 64 and 512 MiB under it and the
#           shipped rows.
#   part 6: the closing record with the rows shipped in session 14 (sm_90 16, CPU 2048): NVIDIA
#           `bench fft` of the default list and the fft, tune and tuning test suites; then the
#           16-core PoCL CPU device's `bench fft --rounds 5` of the powers of two 16 ... 4096.
#   part 7: NVIDIA: 16384 was 0.48 ms at 512 MiB in S11-10 and is 0.39 in S14-1/S14-6: kernel
#           times and register reports of 16384 (and 64, 2^20) with this kernel and with the kernel
#           of 7d8c544 (before session 13; the cl/ tree in $B/old_cl with those two files and that
#           commit's db/fft.json, whose rows of these lengths are today's), twice,
#           interleaved.
source "$(dirname "$0")/device_common.sh" "$@"
{
  date -u
  case "$PART" in
  1)
    stamp
    fft_all s14-1
    for i in 1 2; do
      lim 60 "$C" -d nvidia bench fft --size 16384@512 --out "$O/json/fft_s14-1_16384_$i.json" 2>&1 | grep -E "^fft n"
    done
    fft_tests
    ;;
  2)
    lscpu | grep -E "Model name|^CPU\(s\)"
    echo "#### shipped rows"
    lim 200 "$C" -d cpu bench fft $CPU_POW2 --rounds 5 --out "$O/json/fft_cpu_s14-2_shipped.json" 2>&1 |
      grep -E "^fft n.*(median|refused|failed)"
    for tf in "${TFS[@]}"; do
      echo "#### tuning file: $tf"
      CLFORGE_TUNING_FILE="$(realpath "$tf")" lim 120 "$C" -d cpu bench fft --size 128@64 --size 256@64 --size 512@64 \
        --size 1024@64 --size 2048@64 --rounds 5 --out "$O/json/fft_cpu_s14-2_$(basename "$tf" .json).json" 2>&1 |
        grep -E "^fft n.*(median|refused|failed)"
    done
    lim 170 "$C" -d cpu -p FFT_PAD=0 -p FFT_HALVE=0 -p FFT_DCHAIN=1 -p FFT_TWIDDLE=0 -p FFT_REG=1,32 \
      -p FFT_RADIX=16,32 -p FFT_WG=32,64,128,256 -p FFT_VEC=0,1 -p FFT_STAGE=0,2 tune fft --size 32@262144 \
      --strategy exhaustive --threads 8 --no-store --out "$O/json/tune_32.json" 2>&1 | grep -v "^fft/"
    echo "#### tuning file: tune_32.json"
    CLFORGE_TUNING_FILE="$O/json/tune_32.json" lim 60 "$C" -d cpu bench fft --size 16@64 --size 32@64 --rounds 5 \
      --out "$O/json/fft_cpu_s14-2_tune32.json" 2>&1 | grep -E "^fft n.*(median|refused|failed)"
    echo "#### shipped rows"
    lim 60 "$C" -d cpu bench fft --size 16@64 --size 32@64 --rounds 5 \
      --out "$O/json/fft_cpu_s14-2_shipped2.json" 2>&1 | grep -E "^fft n.*(median|refused|failed)"
    ;;
  3)
    stamp
    sizes="--size 16@64 --size 16@512 --size 64@64 --size 64@512"
    echo "#### shipped rows"
    lim 120 "$C" -d nvidia bench fft $sizes --rounds 5 --out "$O/json/fft_s14-3_shipped.json" 2>&1 | grep -E "^fft n.*median"
    fx=(-p FFT_VPT=0 -p FFT_DCHAIN=1 -p FFT_VEC=1 -p FFT_MIX=0 -p FFT_ACROSS=8 -p FFT_TWIDDLE=0 -p FFT_HALVE=0 -p FFT_PAD=1)
    lim 100 "$C" -d nvidia "${fx[@]}" -p FFT_REG=1,16 -p FFT_RADIX=16 -p FFT_WG=64,128,256,512 -p FFT_STAGE=0,1,2 \
      tune fft --size 16@4194304 --strategy exhaustive --finalists 4 --no-store --out "$O/json/tune_16.json" 2>&1 | grep -v "^fft/"
    lim 120 "$C" -d nvidia "${fx[@]}" -p FFT_REG=16 -p FFT_RADIX=4,8,16 -p FFT_WG=64,128,256,512 -p FFT_STAGE=0,1,2 \
      tune fft --size 64@1048576 --strategy exhaustive --finalists 4 --no-store --out "$O/json/tune_64.json" 2>&1 | grep -v "^fft/"
    python3 -c 'import json,sys; e=[x for f in sys.argv[2:] for x in json.load(open(f))["entries"]]; json.dump({"kernel": "fft", "entries": e}, open(sys.argv[1], "w"), indent=1)' \
      "$O/json/tune_16_64.json" "$O/json/tune_16.json" "$O/json/tune_64.json"
    echo "#### tuning file: tune_16_64.json"
    CLFORGE_TUNING_FILE="$O/json/tune_16_64.json" lim 120 "$C" -d nvidia bench fft $sizes --rounds 5 \
      --out "$O/json/fft_s14-3_tune.json" 2>&1 | grep -E "^fft n.*median"
    ;;
  4)
    lscpu | grep -E "Model name|^CPU\(s\)"
    lim 240 "$C" -d cpu -p FFT_PAD=0 -p FFT_HALVE=0 -p FFT_DCHAIN=1 -p FFT_STAGE=2 -p FFT_VPT=0 -p FFT_REG=32 \
      -p FFT_RADIX=16,32 -p FFT_WG=16,32,64,128,256 -p FFT_VEC=0,1 -p FFT_TWIDDLE=0,5 tune fft --size 2048@4096 \
      --strategy exhaustive --finalists 4 --threads 8 --no-store --out "$O/json/tune_2048.json" 2>&1 | grep -v "^fft/"
    for tf in "$O/json/tune_2048.json" "${TFS[@]}" ""; do
      echo "#### tuning file: ${tf:-none (shipped rows)}"
      CLFORGE_TUNING_FILE="${tf:+$(realpath "$tf")}" lim 90 "$C" -d cpu bench fft --size 2048@64 --rounds 5 \
        --out "$O/json/fft_cpu_s14-4_$(basename "${tf:-shipped}" .json).json" 2>&1 | grep -E "^fft n.*median"
    done
    ;;
  5)
    stamp
    lim 120 "$C" -d nvidia -p FFT_VPT=0 -p FFT_DCHAIN=1 -p FFT_VEC=1 -p FFT_MIX=0 -p FFT_ACROSS=8 -p FFT_TWIDDLE=0 \
      -p FFT_HALVE=0 -p FFT_PAD=1 -p FFT_REG=1 -p FFT_RADIX=2,4,8,16 -p FFT_WG=64,128,256,512 -p FFT_STAGE=0,2 \
      tune fft --size 16@4194304 --strategy exhaustive --finalists 0 --no-store --out "$O/json/tune_16b.json" 2>&1 |
      grep -v "^fft/"
    for tf in "$O/json/tune_16b.json" ""; do
      echo "#### tuning file: ${tf:-none (shipped rows)}"
      CLFORGE_TUNING_FILE="$tf" lim 90 "$C" -d nvidia bench fft --size 16@64 --size 16@512 --rounds 5 \
        --out "$O/json/fft_s14-5_$(basename "${tf:-shipped}" .json).json" 2>&1 | grep -E "^fft n.*median"
    done
    ;;
  6)
    stamp
    fft_all s14-6
    fft_tests
    lscpu | grep -E "Model name|^CPU\(s\)"
    lim 200 "$C" -d cpu bench fft $CPU_POW2 --rounds 5 --out "$O/json/fft_cpu_s14-6.json" 2>&1 |
      grep -E "^fft n.*(median|refused|failed)"
    ;;
  7)
    stamp
    for k in new old; do
      if [ $k = old ]; then export CLFORGE_KERNEL_DIR="$(realpath "$B/old_cl")"; else unset CLFORGE_KERNEL_DIR; fi
      echo "#### kernel: $k"; vr 16384@4096; vr 64@1048576
    done
    for rep in 1 2; do
      for k in new old; do
        if [ $k = old ]; then export CLFORGE_KERNEL_DIR="$(realpath "$B/old_cl")"; else unset CLFORGE_KERNEL_DIR; fi
        echo "#### kernel: $k, repetition $rep"
        for nb in 16384@4096 16384@512 64@1048576 1048576@64; do kt $nb; done
      done
    done
    unset CLFORGE_KERNEL_DIR
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_s14-$PART.txt"
