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
  esac
  date -u
} 2>&1 | tee "$O/log_part$PART.txt"
