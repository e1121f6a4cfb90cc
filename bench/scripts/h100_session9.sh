#!/usr/bin/env bash
# Device sittings of session 9 on the lent H100 machine, one part per call.
#   part 1: radix-32 passes (FFT_RADIX 32): kernel times of 16384 (32*32*16, 512 work-items)
#           against the sm_90 row (16*16*16*4, 1024 work-items) with table and double twiddles,
#           where its time goes (diagnostic macros), register reports; per-pass times of 2^19
#           and 2^20 with 32*32 passes of 1024 points (4 or 8 transforms per group) and 32*16
#           passes of 512; one-kernel 512, 1024 and 8192 with and without radix 32.
#   part 2: 16384 with radix 32 (double twiddles in one chain, or unpadded); 1024-point passes
#           with radix 32 and whole or halved exchanges; then `bench fft` of 16384, 2^19 and 2^20
#           beside the peers under each candidate tuning file TF... (JSON files in the
#           repository) and under the shipped rows.
#   part 3: FFT_TWIDDLE 3 (double twiddle powers only in the passes with large tables): kernel
#           times of 16384, 8192 and 4096 at 64 and 512 MiB, then `bench fft` of them under each
#           tuning file TF... and under the shipped rows.
#   part 4: closing sitting with the session-9 rows: `bench fft` default list (every length at 64
#           and 512 MiB) beside the peers.
#   part 5: the fft, tune and tuning test suites on the NVIDIA device; the resolved 16384 and
#           pass1024 rows.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session9.sh BUILD_DIR OUT_DIR PART [TF...]
source "$(dirname "$0")/device_common.sh" "$@"
{
  stamp
  case $PART in
  1)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096; do
      kt $nb
      kt $nb -p FFT_RADIX=32
      kt $nb -p FFT_RADIX=32 -p FFT_TWIDDLE=0
      kt $nb -p FFT_TWIDDLE=0
    done
    for d in -DFFT_XNOTW -DFFT_XNOXCHG -DFFT_XNOPASS; do
      CLFORGE_BUILD_OPTIONS=$d kt 16384@4096 -p FFT_RADIX=32 -p FFT_TWIDDLE=0
      CLFORGE_BUILD_OPTIONS=$d kt 16384@512 -p FFT_RADIX=32 -p FFT_TWIDDLE=0
    done
    vr 16384@512 -p FFT_RADIX=32
    vr 16384@512 -p FFT_RADIX=32 -p FFT_TWIDDLE=0
    A4='"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4'
    for v in "$A4" \
             '"FFT_RADIX": 32, "FFT_WG": 128, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_RADIX": 32, "FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_RADIX": 32, "FFT_WG": 64, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_RADIX": 32, "FFT_WG": 128, "FFT_HALVE": 1, "FFT_STAGE": 3, "FFT_ACROSS": 4'; do
      pp 1048576@8 "$(row pass1024 "$v")"
      pp 524288@16 "$(row pass1024 "$v")"
    done
    for v in '"FFT_RADIX": 32, "FFT_WG": 128, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_RADIX": 32, "FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 8' \
             '"FFT_RADIX": 32'; do
      pp 524288@16 "$(row pass512 "$v")"
    done
    printf '{"kernel": "fft", "entries": [%s]}\n' "$(row pass1024 '"FFT_RADIX": 32, "FFT_WG": 128, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4')" >"$O/tf32.json"
    CLFORGE_TUNING_FILE="$O/tf32.json" vr 1048576@8
    for nb in 1024@8192 512@16384 8192@1024 1024@65536 512@131072 8192@8192; do
      kt $nb
      kt $nb -p FFT_RADIX=32
    done
    ;;
  2)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096; do
      kt $nb -p FFT_RADIX=32
      kt $nb -p FFT_RADIX=32 -p FFT_TWIDDLE=0 -p FFT_PAD=0
    done
    "$C" -d nvidia -p FFT_RADIX=32 run fft --n 512 --batch 16384 2>&1 | tail -4
    for v in '"FFT_RADIX": 32, "FFT_WG": 128, "FFT_HALVE": 0, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_RADIX": 32, "FFT_WG": 256, "FFT_HALVE": 1, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_RADIX": 32, "FFT_WG": 128, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4, "FFT_PAD": 0'; do
      pp 1048576@8 "$(row pass1024 "$v")"
      pp 524288@16 "$(row pass1024 "$v")"
    done
    bench_tfs s9-2 "--size 16384@64 --size 16384@512 --size 524288@64 --size 524288@512 --size 1048576@64 --size 1048576@512" "${TFS[@]}"
    ;;
  3)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096; do
      kt $nb
      kt $nb -p FFT_TWIDDLE=3
      kt $nb -p FFT_TWIDDLE=3 -p FFT_RADIX=16
    done
    for nb in 8192@1024 8192@8192 4096@2048 4096@16384; do
      kt $nb
      kt $nb -p FFT_TWIDDLE=3
    done
    bench_tfs s9-3 "--size 16384@64 --size 16384@512 --size 8192@64 --size 8192@512 --size 4096@64 --size 4096@512" "${TFS[@]}"
    ;;
  4)
    rm -rf "$XDG_DATA_HOME"
    fft_all s9-4
    ;;
  5)
    rm -rf "$XDG_DATA_HOME"
    fft_tests
    "$C" -d nvidia params fft --variant 16384 2>&1 | grep -E "RADIX|TWIDDLE"
    "$C" -d nvidia params fft --variant pass1024 2>&1 | grep -E "RADIX|WG"
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_s9-$PART.txt"
