#!/usr/bin/env bash
# Second device sitting: transpose vector-path sweep (GPU and PoCL), SGEMM floor sizes and
# parameter sweep, FFT quick comparison, correctness suites on the GPU.
# usage: bench/scripts/h100_session1.sh BUILD_DIR OUT_DIR
set -u
B=$1
O=$2
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache CLFORGE_TEST_SOURCE_DIR=$PWD
run() { echo "+ $*"; timeout 150 "$@"; echo "(exit $?)"; }
S=bench/scripts/sweep.sh
{
  date -u
  CLFORGE_TEST_DEVICE=nvidia run "$B/tests/clforge_tests" --test-suite=transpose,runtime,tuning,cache,sgemm,fft
  run "$B/clforge" -d nvidia bench transpose --size 8192 --size 16384 --out "$O/json/transpose_nvidia.json"
  timeout 200 $S "$B" nvidia transpose "--size 8192 --size 16384" "$O/json/tn" \
    "TRA_TILE=64 TRA_WPT=4 TRA_VW=4" "TRA_TILE=64 TRA_WPT=8 TRA_VW=4" "TRA_TILE=32 TRA_WPT=4 TRA_VW=4" \
    "TRA_TILE=64 TRA_WPT=8 TRA_VW=2" "TRA_TILE=32 TRA_WPT=8 TRA_VW=2" "TRA_TILE=64 TRA_WPT=16 TRA_VW=4" \
    "TRA_TILE=64 TRA_WPT=16 TRA_VW=1"
  timeout 150 $S "$B" cpu transpose "--size 4096 --size 8192" "$O/json/tc" \
    "TRA_LOCAL=0 TRA_TILE=16 TRA_WPT=16 TRA_VW=4" "TRA_LOCAL=0 TRA_TILE=8 TRA_WPT=8 TRA_VW=8" \
    "TRA_LOCAL=0 TRA_TILE=32 TRA_WPT=4 TRA_VW=4" "TRA_LOCAL=1 TRA_TILE=32 TRA_WPT=4 TRA_VW=4 TRA_PAD=0" \
    "TRA_LOCAL=0 TRA_TILE=64 TRA_WPT=8 TRA_VW=8"
  run "$B/clforge" -d nvidia bench sgemm --size 4096 --size 8192 --size 4097 --size 1000 --out "$O/json/sgemm_floor.json"
  run "$B/clforge" -d cpu bench sgemm --size 1024 --out "$O/json/sgemm_pocl_1024.json"
  NV="MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 MDIMA=32 NDIMB=32 KWI=16 VWM=4 VWN=4 STRM=1 STRN=1 SA=1 SB=1 DBUF=1"
  timeout 200 $S "$B" nvidia sgemm "--quick --size 4096 --size 8192" "$O/json/sg" \
    "$NV NVRREG=128" "$NV KWG=8 KWI=8" "$NV DBUF=0" "$NV NWG=64 NDIMB=16" \
    "MWG=64 NWG=64 KWG=16 MDIMC=8 NDIMC=8 MDIMA=16 NDIMB=16 KWI=16 VWM=4 VWN=4 STRM=1 STRN=1 SA=1 SB=1 DBUF=1"
  run "$B/clforge" -d nvidia bench fft --quick --out "$O/json/fft_nvidia.json"
  run "$B/clforge" -d cpu bench fft --quick --out "$O/json/fft_pocl.json"
} 2>&1 | tee "$O/log.txt"
tar -C "$O" -czf "$O/json.tgz" json && rm -rf "$O/json"
