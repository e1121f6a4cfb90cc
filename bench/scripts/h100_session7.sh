#!/usr/bin/env bash
# Device sittings of session 7 on the lent H100 machine, one part per call.
#   part 1: prefetch of later groups' inputs in the one-kernel plans (FFT_PREFETCH, groups per
#           compute unit ahead; prefetch() or plain loads): does NVIDIA's compiler keep prefetch()
#           (PTX in the compile cache), then the one-kernel lengths 512 ... 8192, 1000, 3000, 4095
#           at 64 MiB (and 1024, 4096 at 16 and 512 MiB) over the prefetch distance; the 512-point
#           passes of 262144 with 512 work-items and halving against the sm_90 row, interleaved.
#   part 2: where a one-kernel transform's time goes: kernel device times (profile) of 1024, 4096
#           and 8192 at 16, 64 and 512 MiB with parts of the kernel compiled out (diagnostic
#           macros, wrong results): no twiddles, no exchanges, no passes (load and store only), no
#           barriers; the register report of the 1024-point pass kernel of 2^20 (512 work-items).
#   part 3: the in-kernel twiddles in a per-pass table, r-major (a warp's loads coalesce): kernel
#           times as in part 2 (table against sinpi/cospi for 4096 and 8192), the multi-pass
#           lengths' kernel times, `bench fft` for the missed lengths at 64 and 512 MiB beside the
#           peers, then the FFT tests on the NVIDIA device.
#   part 4: exhaustive tunes (not stored) with the per-pass twiddle table: 8192 (one kernel), 3000,
#           4095, 1024 and 2048 at 64 MiB.
#   part 5: closing sitting with the session's rows (8192: radix 8; 4095: unpadded, 128
#           work-items): 2^19 and 2^20 with 1024-point passes (work-group, halving, radix), then
#           `bench fft`'s default list (every length at 64 and 512 MiB) beside the peers.
#   part 6: the FFT tests on the NVIDIA device with the session's rows.
#   part 7: 16384 in one kernel with the exchanges in quarters (FFT_HALVE 2): kernel times and
#           register reports of its shapes against the two-pass plan at 64 and 512 MiB, then the
#           FFT tests on the NVIDIA device.
#   part 8: with the 16384 row: where 16384's time goes (diagnostic macros as in part 2); 8192
#           with the exchanges in quarters (more groups per SM); 3000 with more values per
#           work-item; a tune of n = 64 at 512 MiB (behind clFFT there by 1.7 %).
#   part 9: with the rows of part 8 (8192 in quarters, 64): 1024-point and 512-point passes in
#           quarters (2^19, 2^20, 262144), 16384 with sinpi/cospi twiddles, then `bench fft` for
#           64, 8192, 16384, 2^18 … 2^20 at 64 and 512 MiB beside the peers.
#   part 10: closing sitting with the session's final rows: `bench fft`'s default list beside the
#           peers, the FFT tests on the NVIDIA device, and `bench fft` 16 … 4096 on the PoCL CPU.
#   part 11: per-pass kernel times of 2^19 and 2^20 in two passes (1024-point passes in quarters
#           or halves) and in three; PoCL: 1024 tuned, and 256/512/1024 against the peers twice.
#   part 12: the split pass twiddle's per-value table r-major (adjacent transforms read adjacent
#           entries): per-pass kernel times of 65536, 262144, 2^19 and 2^20 (two and three
#           passes), then `bench fft` for the multi-pass lengths at 64 and 512 MiB.
#   part 13: NVIDIA's register and spill reports of the two-pass 2^19 and 2^20 kernels (1024-point
#           passes), of 16384 and 8192 in quarters, and of the three-pass 2^20.
#   part 14: 2^19 and 2^20 in two passes with the 1024-point passes transform-fastest (FFT_STAGE=0
#           over the 1024 row's 2): per-pass kernel times over work-group size and halving.
#   part 15: n = 16 and 64 tuned over 64 and 512 MiB together (staging left at 0, so that the
#           64-point passes keep transform-fastest numbering), then `bench fft` with and without
#           the tuned entries (CLFORGE_TUNING_FILE) at 16, 64, 2^19 and 2^20.
#   part 16: passes resolve rows of their own (variant passN); sm_90 rows for 2^19 in two passes
#           (pass limit 1024, the pass1024 row): per-pass times, `bench fft` for the multi-pass
#           lengths at 64 and 512 MiB, the FFT tests on the NVIDIA device.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session7.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
# n@batch pairs of 64 MiB batches
big64() { for n in "$@"; do echo "$n@$((8388608 / n))"; done; }
# one `run fft` line: plan summary, median and error
rf() { local nb=$1; shift; echo "== [$*] $nb"; timeout -s INT -k 10 60 "$C" -v -d nvidia "$@" run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|rror|prefetch|single kernel|passes"; }
{
  date -u
  case $PART in
  1)
    CLFORGE_CACHE_DIR=/tmp/pf-cache "$C" -d nvidia -p FFT_PREFETCH=4 run fft --n 1024 --batch 8192 | grep median
    echo "files with prefetch in the PTX: $(grep -la 'prefetch' /tmp/pf-cache -r | wc -l) of $(find /tmp/pf-cache -type f | wc -l)"
    grep -aho 'prefetch[.a-zA-Z0-9]*' -r /tmp/pf-cache | sort | uniq -c
    for nb in $(big64 1024 2048 4096 8192 512 1000 3000 4095); do
      for pf in 0 2 4 8 16; do rf $nb -p FFT_PREFETCH=$pf; done
      for pf in 4 8 16; do CLFORGE_BUILD_OPTIONS=-DFFT_PF_LOAD=1 rf $nb -p FFT_PREFETCH=$pf; done
    done
    for nb in 1024@2048 4096@512 1024@65536 4096@16384; do
      for pf in 0 4 8 16; do rf $nb -p FFT_PREFETCH=$pf; done
      CLFORGE_BUILD_OPTIONS=-DFFT_PF_LOAD=1 rf $nb -p FFT_PREFETCH=8
    done
    for i in 1 2 3; do
      for nb in 262144@32 262144@256; do rf $nb; rf $nb -p FFT_WG=512 -p FFT_HALVE=1; done
    done
    ;;
  2)
    for nb in 1024@2048 1024@8192 1024@65536 4096@512 4096@2048 4096@16384 8192@256 8192@1024; do
      kt $nb
      for d in -DFFT_XNOTW -DFFT_XNOXCHG -DFFT_XNOPASS -DFFT_XNOBAR; do CLFORGE_BUILD_OPTIONS=$d kt $nb; done
      kt $nb -p FFT_HALVE=0
      kt $nb -p FFT_PAD=0
    done
    for nb in 1024@8192 4096@2048 8192@1024 1048576@8; do
      CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia -p FFT_PASS_MAX=1024 -p FFT_WG=512 -p FFT_HALVE=1 run fft --n ${nb%@*} \
        --batch ${nb#*@} 2>&1 | grep -E "Used|-DFFT_T=|pass [0-9]|single kernel:" | sed 's/.*\(-DFFT_N=[^:]*\).*/\1/' | cut -c1-200
    done
    ;;
  3)
    for nb in 1024@2048 1024@8192 1024@65536 2048@4096 512@16384 1000@8388 3000@2796 4095@2048; do kt $nb; done
    for nb in 4096@512 4096@2048 4096@16384 8192@1024 8192@8192; do kt $nb; kt $nb -p FFT_TWIDDLE=0; done
    for nb in 16384@512 65536@128 262144@32 1048576@8; do
      prof 60 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|rror|pass [0-9]|fft_local"
    done
    lim 300 "$C" -d nvidia bench fft --size 1024@64 --size 2048@64 --size 4096@64 --size 8192@64 --size 16384@64 \
      --size 3000@64 --size 4095@64 --size 1000@64 --size 262144@64 --size 1048576@64 --size 4096@512 --size 3000@512 \
      --size 4095@512 --size 8192@512 --out "$O/json/fft_s7_3.json" 2>&1 | grep -E "^fft n"
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | tail -4
    ;;
  4)
    T="--strategy exhaustive --no-store --param FFT_TWIDDLE=0 --param FFT_VEC=1 --param FFT_REG=16"
    tn() { lim 150 "$C" -d nvidia tune fft "$@" $T 2>&1 | grep -v "^fft/" | grep -E "variant|tried|best|default|#[1-6] "; }
    tn --size 8192@1024 --param FFT_LOCAL_MAX=8192 --param FFT_HALVE=1 --param FFT_PAD=0,1 --param FFT_RADIX=8,16 \
      --param FFT_WG=512,1024 --param FFT_VPT=0,32 --param FFT_STAGE=0
    for sz in 3000@2796 4095@2048; do
      tn --size $sz --param FFT_HALVE=0,1 --param FFT_PAD=0,1 --param FFT_WG=64,128,256,512 --param FFT_RADIX=8,16 \
        --param FFT_STAGE=0,2 --param FFT_VPT=0
    done
    for sz in 1024@8192 2048@4096; do
      tn --size $sz --param FFT_HALVE=0,1 --param FFT_PAD=0,1 --param FFT_WG=64,128,256 --param FFT_RADIX=16 \
        --param FFT_STAGE=0,2 --param FFT_VPT=0
    done
    ;;
  5)
    for nb in 524288@16 1048576@8; do
      rf $nb
      rf $nb -p FFT_PASS_MAX=1024 -p FFT_WG=512 -p FFT_HALVE=1
      rf $nb -p FFT_PASS_MAX=1024 -p FFT_WG=1024 -p FFT_HALVE=1 -p FFT_RADIX=8
      rf $nb -p FFT_PASS_MAX=1024 -p FFT_WG=512 -p FFT_HALVE=1 -p FFT_RADIX=8
    done
    lim 480 "$C" -d nvidia bench fft --out "$O/json/fft_all.json" 2>&1 | grep -E "^fft n"
    ;;
  6)
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | tail -4
    ;;
  7)
    Q="-p FFT_LOCAL_MAX=16384 -p FFT_HALVE=2 -p FFT_RADIX=16"
    for nb in 16384@512 16384@4096; do
      kt $nb
      kt $nb $Q
      kt $nb $Q -p FFT_PAD=0
      kt $nb $Q -p FFT_VPT=32
      kt $nb $Q -p FFT_VPT=32 -p FFT_PAD=0
      kt $nb $Q -p FFT_VPT=64
    done
    for v in "" "-p FFT_VPT=32" "-p FFT_VPT=64"; do
      CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia $Q $v run fft --n 16384 \
        --batch 512 2>&1 | grep -E "Used|single kernel:" | cut -c1-200
    done
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | tail -4
    ;;
  8)
    kt 16384@512
    for d in -DFFT_XNOTW -DFFT_XNOXCHG -DFFT_XNOPASS -DFFT_XNOBAR; do CLFORGE_BUILD_OPTIONS=$d kt 16384@512; done
    for nb in 8192@1024 8192@8192; do
      kt $nb
      kt $nb -p FFT_HALVE=2
      kt $nb -p FFT_HALVE=2 -p FFT_RADIX=16 -p FFT_WG=512
      kt $nb -p FFT_HALVE=2 -p FFT_RADIX=16 -p FFT_WG=512 -p FFT_PAD=1
    done
    for v in "" "-p FFT_VPT=16" "-p FFT_VPT=32" "-p FFT_VPT=16 -p FFT_WG=512" "-p FFT_RADIX=4" "-p FFT_HALVE=1 -p FFT_WG=512"; do
      kt 3000@2796 $v
    done
    lim 150 "$C" -d nvidia tune fft --size 64@1048576 --strategy exhaustive --no-store --param FFT_TWIDDLE=0,1 \
      --param FFT_WG=64,128,256,512 --param FFT_STAGE=0,1,2 --param FFT_VEC=1 --param FFT_PAD=0,1 2>&1 | grep -v "^fft/" |
      grep -E "variant|tried|best|default|#[1-6] "
    ;;
  9)
    for nb in 524288@16 1048576@8; do
      rf $nb
      for v in "-p FFT_WG=512 -p FFT_HALVE=2" "-p FFT_WG=1024 -p FFT_HALVE=2" "-p FFT_WG=256 -p FFT_HALVE=2"; do
        rf $nb -p FFT_PASS_MAX=1024 $v
      done
    done
    for v in "" "-p FFT_HALVE=2" "-p FFT_WG=512 -p FFT_HALVE=2"; do rf 262144@32 $v; done
    kt 16384@512 -p FFT_TWIDDLE=1
    lim 300 "$C" -d nvidia bench fft --size 64@64 --size 8192@64 --size 16384@64 --size 262144@64 --size 524288@64 \
      --size 1048576@64 --size 64@512 --size 8192@512 --size 16384@512 --out "$O/json/fft_s7_9.json" 2>&1 | grep -E "^fft n"
    ;;
  10)
    lim 300 "$C" -d nvidia bench fft --out "$O/json/fft_all.json" 2>&1 | grep -E "^fft n"
    lim 150 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | tail -4
    export POCL_CACHE_DIR=/tmp/pocl-cache
    lim 130 "$C" -d cpu bench fft --size 16 --size 32 --size 64 --size 128 --size 256 --size 512 --size 1024 \
      --size 2048 --size 4096 --out "$O/json/fft_cpu.json" 2>&1 | grep -E "^fft n"
    ;;
  11)
    for nb in 524288@16 1048576@8; do
      prof 60 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|pass [0-9]|fft_local"
      for v in "-p FFT_WG=256 -p FFT_HALVE=2" "-p FFT_WG=512 -p FFT_HALVE=1"; do
        prof 60 "$C" -v -d nvidia -p FFT_PASS_MAX=1024 $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 |
          grep -E "median|pass [0-9]|fft_local"
      done
    done
    export POCL_CACHE_DIR=/tmp/pocl-cache
    lim 200 "$C" -d cpu tune fft --size 1024@8192 --strategy exhaustive --no-store --param FFT_RADIX=8,16 \
      --param FFT_WG=32,64,128,256 --param FFT_STAGE=0,2 --param FFT_VEC=0,1 --param FFT_HALVE=0 --param FFT_PAD=0 \
      --param FFT_TWIDDLE=0 --param FFT_VPT=0 2>&1 | grep -v "^fft/" | grep -E "variant|tried|best|default|#[1-6] "
    for rep in a b; do
      lim 100 "$C" -d cpu bench fft --size 256 --size 512 --size 1024 2>&1 | grep -E "^fft n"
    done
    ;;
  12)
    for nb in 65536@128 262144@32 524288@16 1048576@8; do
      prof 60 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "median|fft_local"
    done
    for nb in 524288@16 1048576@8; do
      for v in "-p FFT_WG=256 -p FFT_HALVE=2" "-p FFT_WG=512 -p FFT_HALVE=1"; do
        prof 60 "$C" -v -d nvidia -p FFT_PASS_MAX=1024 $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 |
          grep -E "median|fft_local"
      done
    done
    lim 250 "$C" -d nvidia bench fft --size 32768@64 --size 65536@64 --size 131072@64 --size 262144@64 \
      --size 524288@64 --size 1048576@64 --size 1009@64 --size 65537@64 --size 32768@512 --size 65536@512 \
      --size 131072@512 --size 262144@512 --size 524288@512 --size 1048576@512 --out "$O/json/fft_s7_12.json" 2>&1 |
      grep -E "^fft n"
    ;;
  13)
    rep() { echo "== [$*]"; CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia "$@" 2>&1 |
      grep -E "Used|spill|stack|-DFFT_T=|pass [0-9]|single kernel:" | sed 's/.*\(-DFFT_N=[0-9]* -DFFT_NPASS=[0-9]*\).*\(-DFFT_T=[0-9]* -DFFT_B=[0-9]*\).*\(-DFFT_PRE=[0-9]*\).*/\1 \2 \3/' | cut -c1-160; }
    rep -p FFT_PASS_MAX=1024 -p FFT_WG=256 -p FFT_HALVE=2 run fft --n 1048576 --batch 8
    rep -p FFT_PASS_MAX=1024 -p FFT_WG=256 -p FFT_HALVE=2 run fft --n 524288 --batch 16
    rep run fft --n 1048576 --batch 8
    rep run fft --n 16384 --batch 512
    rep run fft --n 8192 --batch 1024
    ;;
  14)
    for nb in 524288@16 1048576@8; do
      for v in "-p FFT_WG=512 -p FFT_HALVE=2" "-p FFT_WG=512 -p FFT_HALVE=1" "-p FFT_WG=256 -p FFT_HALVE=2" \
               "-p FFT_WG=1024 -p FFT_HALVE=2" "-p FFT_WG=512 -p FFT_HALVE=2 -p FFT_RADIX=8"; do
        prof 60 "$C" -v -d nvidia -p FFT_PASS_MAX=1024 -p FFT_STAGE=0 $v run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 |
          grep -E "median|pass [0-9]|fft_local"
      done
    done
    ;;
  15)
    lim 280 "$C" -d nvidia tune fft --size 16@524288 --size 16@4194304 --size 64@131072 --size 64@1048576 \
      --strategy exhaustive --no-store --out "$O/json/t16_64.json" --param FFT_WG=64,128,256,512 --param FFT_HALVE=0,1 \
      --param FFT_TWIDDLE=0,1 --param FFT_STAGE=0 --param FFT_PAD=1 --param FFT_VEC=1 2>&1 | grep -v "^fft/" |
      grep -E "variant|tried|best|default|#[1-4] "
    S="--size 16@64 --size 64@64 --size 524288@64 --size 1048576@64 --size 16@512 --size 64@512"
    for rep in a b; do
      echo "== shipped rows ($rep)"
      lim 150 "$C" -d nvidia bench fft $S 2>&1 | grep -E "^fft n" | grep -E "clforge|clFFT"
      echo "== tuned entries ($rep)"
      CLFORGE_TUNING_FILE="$O/json/t16_64.json" lim 150 "$C" -d nvidia bench fft $S 2>&1 | grep -E "^fft n" |
        grep -E "clforge|clFFT"
    done
    ;;
  16)
    prof 60 "$C" -v -d nvidia run fft --n 524288 --batch 16 2>&1 | grep -E "median|pass [0-9]|fft_local"
    lim 250 "$C" -d nvidia bench fft --size 32768@64 --size 65536@64 --size 131072@64 --size 262144@64 \
      --size 524288@64 --size 1048576@64 --size 32768@512 --size 65536@512 --size 131072@512 --size 262144@512 \
      --size 524288@512 --size 1048576@512 --out "$O/json/fft_s7_16.json" 2>&1 | grep -E "^fft n"
    lim 200 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | tail -4
    ;;
  esac
} 2>&1 | tee "$O/log_part$PART.txt"
