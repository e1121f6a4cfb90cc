#!/usr/bin/env bash
# Device sittings of session 5 on the lent H100 machine, one part per call.
#   part 1: PoCL transpose diagnosis: the CPU's facts, both libraries checked and timed at 4096^2
#           and 8192^2 (shipped row, square 8x8 register blocks with and without the local tile),
#           the kernel times against the region times, PoCL's work-group methods, and PoCL's
#           compiled kernels (clforge's and CLBlast's) kept under $OUT/pocl for disassembly.
#   part 2: PoCL transpose, clforge and CLBlast timed in interleaved regions: the shipped row and
#           square register blocks turned by shuffles (4x4, 8x8; tiles 8..64), each twice.
#   part 3: the same with several square blocks per work-item down its column strip (TRA_WPT 16:
#           whole 64-byte output lines from one work-item).
#   part 4: non-temporal stores (TRA_NT) of the square register blocks, against CLBlast interleaved.
#   part 5: closing sitting of the transpose with the shipped rows: the CLI's identity commands,
#           the transpose tests on both devices, the benchmark on NVIDIA (twice) and PoCL (three times).
#   part 6: FFT per-call cost against batch size: n = 1024 and 4096 at 16 ... 512 MiB, kernel
#           device times (profile) beside the benchmark's region times and VkFFT's.
#   part 7: what sets the FFT kernels' fixed cost: exhaustive tunes (not stored) of n = 1024 and
#           4096 at one-wave (16 MiB) and 64 MiB batches over halving, twiddles, work-group size
#           and values per work-item.
#   part 8: NVIDIA's register and spill report of the FFT kernels (CLFORGE_BUILD_OPTIONS=-cl-nv-verbose)
#           for n = 1024 and 4096; a bandwidth kernel's fixed cost at one-wave sizes (transpose 2048^2).
#   part 9: the FFT kernels' machine code: the PTX that NVIDIA's OpenCL stores in clforge's compile
#           cache, assembled for sm_90 by ptxas and listed by cuobjdump (SASS under $OUT/sass).
#   part 10: FFT with NVIDIA's register cap (-cl-nv-maxrregcount 64 / 48 through CLFORGE_BUILD_OPTIONS):
#           more work-groups per SM, fewer waves (1024: 72 registers, 7 groups of 128 per SM).
#   part 11: the register cap's syntax checked in NVIDIA's report ("-cl-nv-maxrregcount N"), then
#           the FFT lengths of part 10 with 64 and 40 registers.
#   part 12: FFT_VPT (values per work-item): exhaustive tunes (not stored) of 1024, 2048, 4096, 8192
#           at one-wave and 64 MiB batches over FFT_VPT, halving, work-group size and twiddles.
#   part 13: the part-12 winners for 1024 and 2048 in the benchmark (16, 64, 512 MiB), beside the
#           shipped rows and the peers.
#   part 14: radix 8 with several butterflies per work-item (smaller butterflies, fewer registers?)
#           for 1024 and 2048: exhaustive tunes over radix, FFT_VPT, work-group size and halving,
#           every other parameter pinned; the register report of two of them.
#   part 15: the PoCL FFT floor's lengths (16 ... 4096, 64 MiB batches) against clFFT and VkFFT on
#           the 16-core PoCL device, twice (its speed drifts); the FFT tests on the NVIDIA device.
#   part 16: the FFT tests on the NVIDIA device again (a test set of part 15 needed more local
#           memory than 48 KiB at one length).
#   part 17: PoCL FFT at 256 and 512 with other CPU parameters (radix, values per work-item,
#           work-group size, float2 access), each twice beside the peers.
#   part 18: after the review's mends (one sampling loop for OpenCL, host and cudaEvent timing;
#           sgemm's clforge and CLBlast interleaved; launcher-only parameters out of the build
#           options): sgemm with cuBLAS, FFT with cuFFT and VkFFT, the FFT tests on NVIDIA.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session5.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
PART=$3
C="$B/clforge"
{
  date -u
  case $PART in
  1)
    lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L1d|L2|L3|Flags" | cut -c1-200
    clinfo 2>/dev/null | grep -E "Platform Version|Device Name" | head
    export POCL_CACHE_DIR=$O/pocl POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/tcpu_shipped.json"
    SQ="-p TRA_TILE=32 -p TRA_WPT=8 -p TRA_VW=8"
    lim 120 "$C" -d cpu $SQ -p TRA_LOCAL=0 bench transpose --size 4096 --size 8192
    lim 120 "$C" -d cpu $SQ -p TRA_LOCAL=1 -p TRA_PAD=0 bench transpose --size 4096 --size 8192
    unset POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES
    export POCL_CACHE_DIR=/tmp/pocl-cache
    prof 120 "$C" -v -d cpu bench transpose --size 4096
    for m in cbs loopvec; do
      POCL_CACHE_DIR=/tmp/pocl-$m POCL_WORK_GROUP_METHOD=$m lim 120 "$C" -d cpu bench transpose --size 4096
    done
    for t in 8 16; do POCL_MAX_PTHREAD_COUNT=$t lim 120 "$C" -d cpu bench transpose --size 4096; done
    find "$O/pocl" -type f ! -name "*.so" -delete
    ;;
  2)
    export POCL_CACHE_DIR=/tmp/pocl-cache
    for cfg in "" "TRA_TILE=8 TRA_WPT=8 TRA_VW=8 TRA_LOCAL=0" "TRA_TILE=16 TRA_WPT=8 TRA_VW=8 TRA_LOCAL=0" \
               "TRA_TILE=32 TRA_WPT=8 TRA_VW=8 TRA_LOCAL=0" "TRA_TILE=64 TRA_WPT=8 TRA_VW=8 TRA_LOCAL=0" \
               "TRA_TILE=16 TRA_WPT=4 TRA_VW=4 TRA_LOCAL=0" "TRA_TILE=32 TRA_WPT=4 TRA_VW=4 TRA_LOCAL=0"; do
      P=""; for x in $cfg; do P="$P -p $x"; done
      for rep in a b; do
        echo "== [$cfg] $rep"
        "$C" -d cpu $P bench transpose --size 4096 --size 8192 2>&1 | grep "^transpose"
      done
    done
    ;;
  3)
    export POCL_CACHE_DIR=/tmp/pocl-cache
    for cfg in "16 16 8" "32 16 8" "64 16 8" "16 16 4" "32 16 4" "64 16 4" "16 8 8" "32 8 8" "32 8 4" "64 8 4"; do
      set -- $cfg
      for rep in a b; do
        echo "== [$cfg] $rep"
        "$C" -d cpu -p TRA_TILE=$1 -p TRA_WPT=$2 -p TRA_VW=$3 -p TRA_LOCAL=0 bench transpose --size 4096 --size 8192 2>&1 |
          grep "^transpose [0-9]"
      done
    done
    ;;
  4)
    export POCL_CACHE_DIR=/tmp/pocl-cache
    for cfg in "32 16 4 1" "16 16 4 1" "64 16 4 1" "32 16 8 1" "64 16 8 1" "32 16 4 0" "32 16 4 1"; do
      set -- $cfg
      for rep in a b; do
        echo "== [$cfg] $rep"
        "$C" -d cpu -p TRA_TILE=$1 -p TRA_WPT=$2 -p TRA_VW=$3 -p TRA_LOCAL=0 -p TRA_NT=$4 \
          bench transpose --size 4096 --size 8192 --size 1000x999 2>&1 | grep "^transpose [0-9]"
      done
    done
    ;;
  5)
    export POCL_CACHE_DIR=/tmp/pocl-cache
    run "$C" devices
    run "$C" info
    run "$C" -d nvidia params transpose
    run "$C" -d cpu params transpose
    lim 60 "$C" -d nvidia peak
    lim 200 "$B/tests/clforge_tests" --test-suite=transpose --test-case-exclude="clforge *"
    CLFORGE_TEST_DEVICE=cpu lim 200 "$B/tests/clforge_tests" --test-suite=transpose --test-case-exclude="clforge *"
    for rep in a b; do
      lim 60 "$C" -d nvidia bench transpose --size 8192 --size 16384 --out "$O/json/transpose_nv_$rep.json"
    done
    for rep in a b c; do
      lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_$rep.json"
    done
    ;;
  6)
    prof 240 "$C" -v -d nvidia bench fft --size 1024@16 --size 1024@32 --size 1024@64 --size 1024@128 \
      --size 1024@512 --size 4096@16 --size 4096@64 --size 4096@512 --out "$O/json/fft_batch.json"
    ;;
  7)
    G="--param FFT_HALVE=0,1 --param FFT_TWIDDLE=0,1 --param FFT_REG=8,16,32 --param FFT_RADIX=16 --param FFT_PAD=1
       --param FFT_VEC=1 --param FFT_LOCAL_MAX=4096 --param FFT_PASS_MAX=512"
    for sz in 1024@2048 1024@8192; do
      lim 130 "$C" -d nvidia tune fft --size $sz --strategy exhaustive $G --param FFT_WG=64,128,256,512 --param FFT_STAGE=0 \
        --no-store --out "$O/json/tune_fft_$sz.json"
    done
    for sz in 4096@512 4096@2048; do
      lim 130 "$C" -d nvidia tune fft --size $sz --strategy exhaustive $G --param FFT_WG=128,256,512,1024 \
        --param FFT_STAGE=0 --no-store --out "$O/json/tune_fft_$sz.json"
    done
    ;;
  8)
    export CLFORGE_CACHE_DIR=off
    for n in 1024 4096; do
      CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia run fft --n $n --batch 2048 2>&1 |
        grep -v "^clforge: profile" | grep -iE "ptxas|registers|spill|stack|bytes|fft|used" | head -30
    done
    prof 60 "$C" -v -d nvidia bench transpose --size 2048 --size 4096
    ;;
  9)
    export CLFORGE_CACHE_DIR=/tmp/cc9
    rm -rf /tmp/cc9
    mkdir -p "$O/sass"
    for n in 1024 4096; do
      lim 60 "$C" -d nvidia run fft --n $n --batch 2048 | tail -2
      for f in /tmp/cc9/*.bin; do
        [ -e "$O/sass/$(basename "$f").sass" ] && continue
        python3 - "$f" "$O/sass/$(basename "$f").ptx" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'//\n// Generated by NVIDIA')
if i < 0: i = b.find(b'.version')
j = b.rfind(b'}')
open(sys.argv[2], 'wb').write(b[i:j + 1] + b'\n')
PY
        PATH=$PATH:/usr/local/cuda/bin
        ptxas -arch=sm_90 -v -o /tmp/k.cubin "$O/sass/$(basename "$f").ptx" 2>&1 | tail -3
        cuobjdump -sass /tmp/k.cubin > "$O/sass/$(basename "$f").sass" 2>&1
        grep -c "^        /\*[0-9a-f]*\*/" "$O/sass/$(basename "$f").sass"
      done
    done
    ls -la "$O/sass"
    ;;
  10)
    for opt in "" "-cl-nv-maxrregcount=64" "-cl-nv-maxrregcount=48"; do
      echo "== CLFORGE_BUILD_OPTIONS=$opt"
      CLFORGE_BUILD_OPTIONS=$opt lim 150 "$C" -d nvidia bench fft --size 256@64 --size 1024@16 --size 1024@64 \
        --size 2048@64 --size 4096@16 --size 4096@64 --size 8192@64 --size 16384@64 2>&1 | grep -E "^fft n"
    done
    ;;
  11)
    export CLFORGE_CACHE_DIR=off
    for opt in "-cl-nv-maxrregcount 64" "-cl-nv-maxrregcount=64"; do
      CLFORGE_BUILD_OPTIONS="-cl-nv-verbose $opt" lim 60 "$C" -v -d nvidia run fft --n 1024 --batch 2048 2>&1 |
        grep -E "Used|spill|error|rror" | head -4
    done
    for opt in "-cl-nv-maxrregcount 64" "-cl-nv-maxrregcount 40"; do
      echo "== CLFORGE_BUILD_OPTIONS=$opt"
      CLFORGE_BUILD_OPTIONS=$opt lim 150 "$C" -d nvidia bench fft --size 1024@16 --size 1024@64 \
        --size 2048@64 --size 4096@16 --size 4096@64 --size 8192@64 2>&1 | grep -E "^fft n.*clforge"
    done
    ;;
  12)
    G="--param FFT_VPT=0,16,32,64 --param FFT_HALVE=0,1 --param FFT_TWIDDLE=0,1 --strategy exhaustive --no-store"
    for sz in 1024@2048 1024@8192 2048@4096 4096@512 4096@2048; do
      lim 110 "$C" -d nvidia tune fft --size $sz $G --param FFT_WG=64,128,256 2>&1 | grep -v "^fft/" | grep -E "variant|best|default|#[1-5] "
    done
    lim 110 "$C" -d nvidia tune fft --size 8192@1024 $G --param FFT_WG=256,512,1024 2>&1 | grep -v "^fft/" |
      grep -E "variant|best|default|#[1-5] "
    ;;
  13)
    A="-p FFT_HALVE=0 -p FFT_VPT=32 -p FFT_WG=64 -p FFT_STAGE=0"
    B="-p FFT_HALVE=1 -p FFT_VPT=16 -p FFT_WG=64 -p FFT_STAGE=2"
    lim 100 "$C" -d nvidia $A bench fft --size 1024@16 --size 1024@64 --size 1024@512 2>&1 | grep -E "^fft n"
    lim 100 "$C" -d nvidia $B bench fft --size 2048@16 --size 2048@64 --size 2048@512 2>&1 | grep -E "^fft n"
    lim 100 "$C" -d nvidia bench fft --size 1024@512 --size 2048@16 --size 2048@512 2>&1 | grep -E "^fft n.*clforge"
    ;;
  14)
    P="--param FFT_RADIX=8,16 --param FFT_VPT=0,16,32 --param FFT_HALVE=0,1 --param FFT_WG=64,128,256
       --param FFT_TWIDDLE=0 --param FFT_PAD=1 --param FFT_VEC=1 --param FFT_STAGE=2 --param FFT_REG=16
       --param FFT_LOCAL_MAX=4096 --param FFT_PASS_MAX=512 --strategy exhaustive --no-store"
    for sz in 1024@2048 1024@8192 2048@4096; do
      lim 100 "$C" -d nvidia tune fft --size $sz $P 2>&1 | grep -v "^fft/" | grep -E "variant|tried|best|default|#[1-6] "
    done
    for v in "-p FFT_RADIX=8 -p FFT_VPT=16" "-p FFT_RADIX=8 -p FFT_VPT=32" "-p FFT_RADIX=16 -p FFT_VPT=32"; do
      CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose lim 60 "$C" -v -d nvidia $v run fft --n 1024 --batch 2048 2>&1 |
        grep -E "Used|-DFFT_T=" | sed 's/.*\(-DFFT_N=[^:]*\).*/\1/' | cut -c1-160
    done
    ;;
  15)
    export POCL_CACHE_DIR=/tmp/pocl-cache
    for rep in a b; do
      lim 200 "$C" -d cpu bench fft --size 16 --size 32 --size 64 --size 128 --size 256 --size 512 --size 1024 \
        --size 2048 --size 4096 --out "$O/json/fft_cpu_$rep.json" 2>&1 | grep -E "^fft n"
    done
    lim 150 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *"
    ;;
  16)
    lim 200 "$B/tests/clforge_tests" --test-suite=fft --test-case-exclude="clforge *"
    ;;
  17)
    export POCL_CACHE_DIR=/tmp/pocl-cache
    for v in "" "-p FFT_RADIX=8" "-p FFT_RADIX=16" "-p FFT_RADIX=8 -p FFT_VPT=64" "-p FFT_WG=64" "-p FFT_VEC=0"; do
      for rep in a b; do
        echo "== [$v] $rep"
        lim 60 "$C" -d cpu $v bench fft --size 256 --size 512 2>&1 | grep -E "^fft n" | grep -v cuFFT
      done
    done
    ;;
  18)
    lim 90 "$C" -d nvidia bench sgemm --size 1000 --size 4096 2>&1 | grep -E "^sgemm [0-9]"
    lim 90 "$C" -d nvidia bench fft --size 1024 --size 4096 --size 65536 2>&1 | grep -E "^fft n"
    lim 200 "$B/tests/clforge_tests" --test-suite=fft,blur --test-case-exclude="clforge *"
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_part$PART.txt"
