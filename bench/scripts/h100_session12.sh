#!/usr/bin/env bash
# Device sittings of session 12 on the lent H100 machine's 16-core PoCL CPU device, one part per
# call (the machine is released between calls: each part is self-contained).
#   part 1: `-d cpu tune fft` of 512 and 1024 (64 MiB batches): radix 8/16/32, 32 ... 256
#           work-items, FFT_VEC 0/1, FFT_TWIDDLE 0/5, the rest at the CPU row's values; the
#           run-off of the 3 fastest and the default (JSON tuning files tune_N.json).
#   part 2: the same for 2048, and 32 (one transform per work-item: FFT_REG 32, radix, 16 ... 256
#           work-items, FFT_VEC, FFT_STAGE 0/1/2).
#   part 3: `-d cpu bench fft --rounds 5` of the powers of two 16 ... 4096 at 64 MiB under the
#           shipped rows, then of 512 and 2048 under each tuning file TF.
#   part 4: run-offs of every candidate (--finalists 16) between the development machine's
#           choices and the CPU rows: 512 over radix 8/32, FFT_VEC 0/1, FFT_VPT 0/32 on 64
#           work-items; 1024 over radix 16/32, FFT_VEC 0/1, FFT_TWIDDLE 0/5, 32/128 work-items;
#           then `bench fft --rounds 5` of 512, 1024 under each TF and the shipped rows.
source "$(dirname "$0")/device_common.sh" "$@"
# The CPU row's values for the parameters a part does not search.
fixed=(-p FFT_PAD=0 -p FFT_HALVE=0 -p FFT_DCHAIN=1 -p FFT_ACROSS=8 -p FFT_CHUNK=0 -p FFT_MIX=0
       -p FFT_LOCAL_MAX=4096 -p FFT_PASS_MAX=32768 -p FFT_VPT=0)
tune_local() {  # tune_local N SECONDS: the local-memory kernel of length N
  local n=$1 s=$2
  lim $((s + 60)) "$C" -d cpu "${fixed[@]}" -p FFT_REG=32 -p FFT_STAGE=2 -p FFT_RADIX=8,16,32 \
    -p FFT_WG=32,64,128,256 -p FFT_VEC=0,1 -p FFT_TWIDDLE=0,5 tune fft --size "$n@$((8388608 / n))" \
    --time "$s" --threads 8 --no-store --out "$O/json/tune_$n.json" 2>&1 | grep -v "^fft/"
}
{
  date -u
  lscpu | grep -E "Model name|^CPU\(s\)"
  case "$PART" in
  1)
    tune_local 512 230
    tune_local 1024 230
    ;;
  2)
    tune_local 2048 250
    lim 250 "$C" -d cpu "${fixed[@]}" -p FFT_REG=32 -p FFT_TWIDDLE=0 -p FFT_RADIX=4,8,16,32 \
      -p FFT_WG=16,32,64,128,256 -p FFT_VEC=0,1 -p FFT_STAGE=0,1,2 tune fft --size 32@262144 \
      --time 190 --threads 8 --no-store --out "$O/json/tune_32.json" 2>&1 | grep -v "^fft/"
    ;;
  3)
    sizes="--size 16@64 --size 32@64 --size 64@64 --size 128@64 --size 256@64 --size 512@64 --size 1024@64
           --size 2048@64 --size 4096@64"
    echo "#### shipped rows"
    lim 380 "$C" -d cpu bench fft $sizes --rounds 5 --out "$O/json/fft_cpu_s12-3_shipped.json" 2>&1 |
      grep -E "^fft n.*(median|refused|failed)"
    for tf in "${TFS[@]}"; do
      echo "#### tuning file: $tf"
      cat "$tf"
      CLFORGE_TUNING_FILE="$(realpath "$tf")" lim 150 "$C" -d cpu bench fft --size 512@64 --size 2048@64 --rounds 5 \
        --out "$O/json/fft_cpu_s12-3_$(basename "$tf" .json).json" 2>&1 | grep -E "^fft n.*(median|refused|failed)"
    done
    ;;
  4)
    lim 200 "$C" -d cpu "${fixed[@]}" -p FFT_REG=32 -p FFT_STAGE=2 -p FFT_TWIDDLE=0 -p FFT_RADIX=8,32 -p FFT_WG=64 \
      -p FFT_VEC=0,1 -p FFT_VPT=0,32 tune fft --size 512@16384 --finalists 16 --threads 8 --no-store \
      --out "$O/json/tune_512_s12-4.json" 2>&1 | grep -v "^fft/"
    lim 200 "$C" -d cpu "${fixed[@]}" -p FFT_REG=32 -p FFT_STAGE=2 -p FFT_RADIX=16,32 -p FFT_WG=32,128 \
      -p FFT_VEC=0,1 -p FFT_TWIDDLE=0,5 tune fft --size 1024@8192 --finalists 16 --threads 8 --no-store \
      --out "$O/json/tune_1024_s12-4.json" 2>&1 | grep -v "^fft/"
    for tf in "${TFS[@]}" ""; do
      echo "#### tuning file: ${tf:-none (shipped rows)}"
      CLFORGE_TUNING_FILE="${tf:+$(realpath "$tf")}" lim 100 "$C" -d cpu bench fft --size 512@64 --size 1024@64 \
        --rounds 5 --out "$O/json/fft_cpu_s12-4_$(basename "${tf:-shipped}" .json).json" 2>&1 |
        grep -E "^fft n.*(median|failed)"
    done
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_s12-$PART.txt"
