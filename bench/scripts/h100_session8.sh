#!/usr/bin/env bash
# Device sittings of session 8 on the lent H100 machine, one part per call.
#   part 1: 1024-point and 512-point passes of 2^19 and 2^20 (two passes) transform-fastest with
#           direct contiguous sides (FFT_STAGE 3) and 4, 8 or 16 transforms per group
#           (FFT_ACROSS): per-pass kernel times over pass rows given by a tuning file; where
#           3000's time goes (diagnostic macros); n = 16 and 64 tuned at 512 MiB, then `bench fft`
#           with and without the tuned rows at 64 and 512 MiB; 16384's shapes.
#   part 2: FFT_TWIDDLE 2 (one twiddle per butterfly in double, its powers in double): kernel times
#           of the one-kernel lengths and per-pass times of the multi-pass ones against the table;
#           `bench fft` of the missed lengths beside the peers with candidate rows (tuning file).
#   part 3: the 1024-point passes of 2^20 (4 or 8 transforms per group) with loads and stores only
#           and under register caps (-cl-nv-maxrregcount), the 512-point pass of 2^19 over padding,
#           values per work-item and work-group; 3000, 4095 and 1000 under register caps.
#   part 4: register caps with the documented syntax (`-cl-nv-maxrregcount N`): register reports
#           and kernel times of the 1024-point passes (8 transforms per group of 512), 3000, 8192,
#           16384, 4096.
#   part 5: closing sitting with the session-8 rows: `bench fft` default list (every length at 64 and
#           512 MiB) beside the peers, then the FFT tests on the NVIDIA device.
#   part 6: `bench fft` 16 … 4096 on the PoCL CPU beside the peers.
#   part 7: the FFT tests on the NVIDIA device with the failing cases in full.
#   part 8: the pass twiddle per value from the two-level table (FFT_PRE 1) where the split form's
#           per-value table would exceed 32 KiB: per-pass times of the multi-pass lengths, then
#           `bench fft` for 2^17 … 2^20 beside the peers.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session8.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
{
  date -u
  case $PART in
  1)
    rm -rf "$XDG_DATA_HOME"
    P19=$(row 524288 '"FFT_PASS_MAX": 1024')
    P20=$(row 1048576 '"FFT_PASS_MAX": 1024')
    V1024=(
      '"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 2'
      '"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4'
      '"FFT_WG": 512, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 8'
      '"FFT_WG": 256, "FFT_HALVE": 1, "FFT_STAGE": 0, "FFT_ACROSS": 4'
      '"FFT_WG": 128, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4, "FFT_VPT": 32'
      '"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4, "FFT_RADIX": 8'
      '"FFT_WG": 256, "FFT_HALVE": 1, "FFT_STAGE": 3, "FFT_ACROSS": 4'
      '"FFT_WG": 1024, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 16'
    )
    for v in "${V1024[@]}"; do
      pp 524288@16 "$P19, $(row pass1024 "$v")"
      pp 1048576@8 "$P20, $(row pass1024 "$v")"
    done
    for v in '"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 8' \
             '"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_WG": 128, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4' \
             '"FFT_WG": 256, "FFT_HALVE": 1, "FFT_STAGE": 0'; do
      pp 524288@16 "$P19, $(row pass1024 '"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4'), $(row pass512 "$v")"
    done
    pp 1048576@8 "$(row 1048576 '"FFT_PASS_MAX": 512')"
    for d in "" -DFFT_XNOTW -DFFT_XNOXCHG -DFFT_XNOPASS -DFFT_XNOBAR; do CLFORGE_BUILD_OPTIONS=$d kt 3000@2796; done
    for d in "" -DFFT_XNOTW -DFFT_XNOXCHG -DFFT_XNOPASS; do CLFORGE_BUILD_OPTIONS=$d kt 16384@4096; done
    kt 16384@512 -p FFT_VPT=32
    kt 16384@512 -p FFT_PAD=0
    kt 16384@512 -p FFT_TWIDDLE=1
    TP="--param FFT_HALVE=0 --param FFT_PAD=1 --param FFT_VEC=1 --param FFT_VPT=0 --param FFT_ACROSS=8 --param FFT_CHUNK=0 --param FFT_PASS_MAX=512 --param FFT_LOCAL_MAX=4096 --time 100 --strategy exhaustive"
    lim 140 "$C" -d nvidia tune fft --size 16@4194304 --param FFT_REG=1,16 --param FFT_WG=64,128,256,512 \
      --param FFT_STAGE=0,1 --param FFT_RADIX=4,16 --param FFT_TWIDDLE=1 $TP 2>&1 | grep -v "^fft/" | grep -E "variant|tried|best|default|#[1-6] |stored"
    lim 140 "$C" -d nvidia tune fft --size 64@1048576 --param FFT_REG=16,64 --param FFT_WG=64,128,256 \
      --param FFT_STAGE=0,1,2 --param FFT_RADIX=8,16 --param FFT_TWIDDLE=0 $TP 2>&1 | grep -v "^fft/" | grep -E "variant|tried|best|default|#[1-6] |stored"
    for i in 1 2; do
      lim 100 "$C" -d nvidia bench fft --size 16@64 --size 64@64 --size 16@512 --size 64@512 2>&1 | grep -E "^fft n"
      XDG_DATA_HOME=/tmp/none lim 100 "$C" -d nvidia bench fft --size 16@64 --size 64@64 --size 16@512 --size 64@512 2>&1 | grep -E "^fft n"
    done
    ;;
  2)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096 3000@2796 3000@22369 4095@2048 1000@8388 1024@8192 2048@4096 4096@2048 8192@1024; do
      kt $nb; kt $nb -p FFT_TWIDDLE=2
    done
    CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia -p FFT_TWIDDLE=2 run fft --n 16384 \
      --batch 512 2>&1 | grep -E "Used|spill" | head -6
    P19=$(row 524288 '"FFT_PASS_MAX": 1024')
    P20=$(row 1048576 '"FFT_PASS_MAX": 1024')
    A='"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4'
    for tw in 0 2; do
      pp 524288@16 "$P19, $(row pass1024 "$A, \"FFT_TWIDDLE\": $tw"), $(row pass512 "\"FFT_TWIDDLE\": $tw")"
      pp 1048576@8 "$P20, $(row pass1024 "$A, \"FFT_TWIDDLE\": $tw")"
      pp 65536@128 "$(row pass256 "\"FFT_TWIDDLE\": $tw")"
      pp 262144@32 "$(row pass512 "\"FFT_TWIDDLE\": $tw"), $(row pass64 "\"FFT_TWIDDLE\": $tw")"
    done
    pp 524288@16 "$P19, $(row pass1024 "$A, \"FFT_TWIDDLE\": 2, \"FFT_RADIX\": 8"), $(row pass512 "\"FFT_TWIDDLE\": 2")"
    pp 1048576@8 "$P20, $(row pass1024 "$A, \"FFT_TWIDDLE\": 2, \"FFT_RADIX\": 8")"
    pp 524288@16 "$P19, $(row pass1024 "$A, \"FFT_TWIDDLE\": 2"), $(row pass512 "\"FFT_TWIDDLE\": 2, \"FFT_STAGE\": 3, \"FFT_ACROSS\": 4, \"FFT_HALVE\": 2")"
    # candidate rows: bench the missed lengths beside the peers
    printf '{"kernel": "fft", "entries": [%s]}\n' "$P19, $P20, $(row pass1024 "$A, \"FFT_TWIDDLE\": 2"), \
      $(row pass512 '"FFT_TWIDDLE": 2'), $(row 16384 '"FFT_LOCAL_MAX": 16384, "FFT_HALVE": 2, "FFT_RADIX": 16, "FFT_TWIDDLE": 2'), \
      $(row 3000 '"FFT_TWIDDLE": 2'), \
      $(row 16 '"FFT_RADIX": 16, "FFT_REG": 1, "FFT_STAGE": 1, "FFT_TWIDDLE": 1, "FFT_WG": 64'), \
      $(row 64 '"FFT_RADIX": 16, "FFT_REG": 16, "FFT_STAGE": 1, "FFT_TWIDDLE": 0, "FFT_WG": 64')" >"$O/cand.json"
    cat "$O/cand.json"
    CLFORGE_TUNING_FILE="$O/cand.json" lim 200 "$C" -d nvidia bench fft --size 16384@64 --size 3000@64 --size 524288@64 \
      --size 1048576@64 --size 16384@512 --size 3000@512 --size 524288@512 --size 1048576@512 --size 16@512 --size 64@512 \
      --size 64@64 --out "$O/json/fft_cand.json" 2>&1 | grep -E "^fft n"
    ;;
  3)
    rm -rf "$XDG_DATA_HOME"
    P19=$(row 524288 '"FFT_PASS_MAX": 1024')
    P20=$(row 1048576 '"FFT_PASS_MAX": 1024')
    A4='"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4'
    A8='"FFT_WG": 512, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 8'
    A8V='"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 8, "FFT_VPT": 32'
    for a in "$A4" "$A8" "$A8V" "$A4, \"FFT_PAD\": 0"; do
      for o in "" -DFFT_XNOPASS -cl-nv-maxrregcount=64 -cl-nv-maxrregcount=48; do
        CLFORGE_BUILD_OPTIONS=$o pp 1048576@8 "$P20, $(row pass1024 "$a")"
      done
      CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose CLFORGE_TUNING_FILE="$O/tf.json" lim 60 "$C" -v -d nvidia \
        run fft --n 1048576 --batch 8 2>&1 | grep -E "Used|spill" | head -4
    done
    for b in '"FFT_PAD": 0' '"FFT_VPT": 32' '"FFT_WG": 512' '"FFT_WG": 128'; do
      pp 524288@16 "$P19, $(row pass1024 "$A4"), $(row pass512 "$b")"
    done
    for o in "" -cl-nv-maxrregcount=32 -cl-nv-maxrregcount=40 -cl-nv-maxrregcount=48; do
      CLFORGE_BUILD_OPTIONS=$o kt 3000@2796; CLFORGE_BUILD_OPTIONS=$o kt 3000@22369
    done
    CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia run fft --n 3000 --batch 2796 2>&1 | grep -E "Used|spill" | head -4
    for o in "" -cl-nv-maxrregcount=32 -cl-nv-maxrregcount=48; do CLFORGE_BUILD_OPTIONS=$o kt 4095@2048; CLFORGE_BUILD_OPTIONS=$o kt 1000@8388; done
    ;;
  4)
    rm -rf "$XDG_DATA_HOME"
    P19=$(row 524288 '"FFT_PASS_MAX": 1024')
    P20=$(row 1048576 '"FFT_PASS_MAX": 1024')
    A4='"FFT_WG": 256, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 4'
    A8='"FFT_WG": 512, "FFT_HALVE": 2, "FFT_STAGE": 3, "FFT_ACROSS": 8'
    vr() { CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS="-cl-nv-verbose $1" lim 60 "$C" -v -d nvidia run fft --n ${2%@*} \
      --batch ${2#*@} 2>&1 | grep -E "Used|spill" | head -4; }
    for r in "" 64 56 48; do
      o=${r:+-cl-nv-maxrregcount $r}
      echo "#### register cap: ${o:-none}"
      printf '{"kernel": "fft", "entries": [%s]}\n' "$P20, $(row pass1024 "$A8")" >"$O/tf8.json"
      CLFORGE_TUNING_FILE="$O/tf8.json" vr "$o" 1048576@8
      CLFORGE_BUILD_OPTIONS=$o pp 1048576@8 "$P20, $(row pass1024 "$A8")"
      CLFORGE_BUILD_OPTIONS=$o pp 1048576@8 "$P20, $(row pass1024 "$A4")"
      CLFORGE_BUILD_OPTIONS=$o pp 524288@16 "$P19, $(row pass1024 "$A4")"
      for nb in 3000@2796 8192@1024 16384@4096 4096@2048; do CLFORGE_BUILD_OPTIONS=$o kt $nb; done
    done
    vr "-cl-nv-maxrregcount 40" 3000@2796
    vr "-cl-nv-maxrregcount 48" 8192@1024
    ;;
  5)
    rm -rf "$XDG_DATA_HOME"
    lim 500 "$C" -d nvidia bench fft --out "$O/json/fft_all_s8-5.json" 2>&1 | grep -E "^fft n"
    lim 250 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | tail -4
    ;;
  6)
    rm -rf "$XDG_DATA_HOME"
    lim 400 "$C" -d cpu bench fft --size 16@64 --size 32@64 --size 64@64 --size 128@64 --size 256@64 --size 512@64 \
      --size 1024@64 --size 2048@64 --size 4096@64 --out "$O/json/fft_cpu_s8-6.json" 2>&1 | grep -E "^fft n"
    ;;
  8)
    for nb in 1048576@8 524288@16 262144@32 65536@128 131072@64; do pp $nb ""; done
    lim 200 "$C" -d nvidia bench fft --size 524288@64 --size 1048576@64 --size 524288@512 --size 1048576@512 \
      --size 131072@64 --size 262144@64 2>&1 | grep -E "^fft n"
    ;;
  7)
    lim 300 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *" 2>&1 | grep -B3 -A25 "TEST CASE" | head -120
    ;;
  esac
  date -u
} 2>&1 | tee "$O/part$PART.log"
