#!/usr/bin/env bash
# Device sittings of session 6 on the lent H100 machine, one part per call.
#   part 1: the multi-pass FFT plans at 64 MiB: each plan's passes and their kernel device times
#           (profile) beside VkFFT and cuFFT, then `run fft` with other pass lengths, work-group
#           sizes, halving and staging.
#   part 2: work-items numbered transform-fastest on the column side of the passes (direct
#           coalesced loads and stores instead of staging): the multi-pass lengths at 64 and 512 MiB
#           with the peers, pass lengths and work-group sizes, staging always (the old route's
#           exchanges), then the FFT tests on the NVIDIA device.
#   part 3: where a pass's time goes: kernel times per pass (the profile names each plan's pass)
#           of the multi-pass lengths, beside one-kernel transforms of the pass lengths over
#           contiguous and over interleaved batches (column loads and stores, no pass twiddle).
#   part 4: the passes' index arithmetic in routine constants (L, NS); pass twiddles computed
#           (FFT_TWIDDLE=1) against the table: kernel times per pass, the multi-pass lengths at
#           64 MiB beside the peers, then the FFT tests on the NVIDIA device.
#   part 5: NVIDIA's register report of the pass kernels and the one-kernel lengths (groups per SM,
#           waves); FFT_CHUNK (MiB per scratch buffer, every pass of a chunk before the next) over
#           the multi-pass lengths at 64 MiB, and at 512 MiB for 65536 and 2^20.
#   part 6: 2^19 and 2^20 in two passes (1024-point passes, transform-fastest) instead of three:
#           pass limit 1024 with staging allowed, work-group and halving variants.
#   part 7: the pass twiddle split per butterfly (one two-level lookup per butterfly, one small-table
#           lookup per value): kernel times per pass, the multi-pass lengths at 64 and 512 MiB
#           beside the peers.
#   part 8: closing sitting: bench fft's default list (64 and 512 MiB, every length) beside the
#           peers; 2^18 .. 2^20 with 1024-point passes; the FFT tests on the NVIDIA device.
#   part 9: a 512-point row with 512 work-items and halving: the one-kernel n = 512 and the
#           512-point passes of 2^18, each against the sm_90 row, at 64 and 512 MiB.
#   part 10: after the review's mend (the kernel's run-time position arguments, which passes had
#           replaced by routine constants, removed): FFT tests on NVIDIA, the multi-pass lengths.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session6.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
PART=$3
C="$B/clforge"
# n@batch pairs of 64 MiB batches
big64() { for n in "$@"; do echo "$n@$((8388608 / n))"; done; }
{
  date -u
  case $PART in
  1)
    for nb in $(big64 8192 16384 65536 262144 1048576); do
      lim 60 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -v "^clforge: profile"
    done
    prof 200 "$C" -v -d nvidia bench fft --size 16384@64 --size 65536@64 --size 262144@64 --size 1048576@64
    for v in "-p FFT_PASS_MAX=256" "-p FFT_PASS_MAX=128" "-p FFT_PASS_MAX=1024" "-p FFT_WG=128" "-p FFT_WG=512" \
             "-p FFT_HALVE=1" "-p FFT_STAGE=2" "-p FFT_STAGE=1" "-p FFT_PAD=0"; do
      for nb in $(big64 16384 65536 262144 1048576); do
        echo "== [$v] $nb"
        lim 30 "$C" -d nvidia $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|passes|rror"
      done
    done
    ;;
  2)
    lim 200 "$C" -d nvidia bench fft --size 16384@64 --size 32768@64 --size 65536@64 --size 131072@64 \
      --size 262144@64 --size 524288@64 --size 1048576@64 --size 65536@512 --size 1048576@512 \
      --out "$O/json/fft_multipass.json" 2>&1 | grep -E "^fft n"
    for v in "-p FFT_PASS_MAX=256" "-p FFT_PASS_MAX=1024" "-p FFT_WG=128" "-p FFT_WG=512" "-p FFT_HALVE=1" \
             "-p FFT_STAGE=1" "-p FFT_WG=512 -p FFT_PASS_MAX=1024" "-p FFT_WG=512 -p FFT_PASS_MAX=1024 -p FFT_HALVE=1"; do
      for nb in $(big64 16384 65536 262144 1048576); do
        echo "== [$v] $nb"
        lim 30 "$C" -v -d nvidia $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|passes|rror|pass 1"
      done
    done
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *"
    ;;
  3)
    for nb in $(big64 16384 65536 262144 1048576); do
      prof 30 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|fft_local"
    done
    for n in 64 128 256 512; do
      b=$((8388608 / n))
      prof 30 "$C" -v -d nvidia run fft --n $n --batch $b 2>&1 | grep -E "median|fft_local"
      prof 30 "$C" -v -d nvidia run fft --n $n --batch $b --stride $b --distance 1 2>&1 | grep -E "median|fft_local|single"
    done
    ;;
  4)
    for v in "" "-p FFT_TWIDDLE=1"; do
      for nb in $(big64 16384 65536 262144 1048576); do
        echo "== [$v] $nb"
        prof 30 "$C" -v -d nvidia $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|fft_local|rror"
      done
    done
    lim 200 "$C" -d nvidia bench fft --size 8192@64 --size 16384@64 --size 32768@64 --size 65536@64 --size 131072@64 \
      --size 262144@64 --size 524288@64 --size 1048576@64 --out "$O/json/fft_multipass.json" 2>&1 | grep -E "^fft n"
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *"
    ;;
  5)
    for nb in 1024@8192 2048@4096 4096@2048 8192@1024 16384@512 65536@128 262144@32 1048576@8; do
      CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia run fft --n ${nb%@*} \
        --batch ${nb#*@} 2>&1 | grep -E "Used|-DFFT_T=|pass [0-9]|single kernel:" | sed 's/.*\(-DFFT_N=[^:]*\).*/\1/' | cut -c1-200
    done
    for ch in 0 4 8 16 32; do
      for nb in $(big64 16384 32768 65536 131072 262144 524288 1048576) 65536@1024 1048576@64; do
        echo "== [FFT_CHUNK=$ch] $nb"
        lim 30 "$C" -d nvidia -p FFT_CHUNK=$ch run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|rror"
      done
    done
    ;;
  6)
    for v in "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0" "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0 -p FFT_WG=128" \
             "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0 -p FFT_HALVE=1" "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0 -p FFT_RADIX=8" \
             "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0 -p FFT_VPT=16" "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0 -p FFT_WG=512 -p FFT_HALVE=1"; do
      for nb in $(big64 524288 1048576) 1048576@64; do
        echo "== [$v] $nb"
        lim 30 "$C" -v -d nvidia $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|rror|pass 1"
      done
    done
    ;;
  7)
    for nb in $(big64 16384 65536 262144 1048576); do
      prof 30 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|fft_local|rror"
    done
    lim 300 "$C" -d nvidia bench fft --size 16384@64 --size 32768@64 --size 65536@64 --size 131072@64 \
      --size 262144@64 --size 524288@64 --size 1048576@64 --size 32768@512 --size 65536@512 --size 131072@512 \
      --size 262144@512 --out "$O/json/fft_multipass.json" 2>&1 | grep -E "^fft n"
    ;;
  8)
    lim 400 "$C" -d nvidia bench fft --out "$O/json/fft_all.json" 2>&1 | grep -E "^fft n"
    for v in "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0" "-p FFT_PASS_MAX=1024 -p FFT_STAGE=0 -p FFT_WG=512 -p FFT_HALVE=1"; do
      for nb in $(big64 262144 524288 1048576); do
        echo "== [$v] $nb"
        lim 30 "$C" -v -d nvidia $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|rror|pass 1"
      done
    done
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *"
    ;;
  9)
    for v in "" "-p FFT_WG=512 -p FFT_HALVE=1" "" "-p FFT_WG=512 -p FFT_HALVE=1"; do
      for nb in 512@16384 512@131072 262144@32 262144@256; do
        echo "== [$v] $nb"
        lim 30 "$C" -d nvidia $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|rror"
      done
    done
    ;;
  10)
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *"
    lim 150 "$C" -d nvidia bench fft --size 1024@64 --size 32768@64 --size 65536@64 --size 131072@64 \
      --size 262144@64 --size 1048576@64 2>&1 | grep -E "^fft n"
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_part$PART.txt"
