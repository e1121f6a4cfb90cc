#!/usr/bin/env bash
# One device sitting for SGEMM (issue 3): the sgemm suite on both OpenCL devices, the benchmark
# against CLBlast (and cuBLAS when the binary was built with -DCLFORGE_WITH_CUDA=ON) on the
# GPU, the 1024^3 comparison on PoCL, and a sweep of sgemm_xgemm parameter sets at the sizes of
# the acceptance floor.
# usage: bench/scripts/h100_sgemm.sh BUILD_DIR OUT_DIR [quick]
set -u
B=$1
O=$2
MODE=${3:-full}
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache
run() { echo "+ $*"; "$@"; echo "(exit $?)"; }
# The NVIDIA row of cl/db/sgemm_xgemm.json, as -p options, plus changes.
NV="MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 MDIMA=32 NDIMB=32 KWI=16 VWM=4 VWN=4 STRM=1 STRN=1 SA=1 SB=1 DBUF=1 NVRREG=0"
# The NVIDIA row for the size class "small" (m*n*k < 1536^3, e.g. 1000^3).
NVS="MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 MDIMA=16 NDIMB=16 KWI=16 VWM=4 VWN=4 STRM=1 STRN=1 SA=1 SB=1 DBUF=1 NVRREG=0"
with() {  # with "BASE" "CHANGES": BASE with CHANGES applied, as -p arguments
  local cfg="$1 $2" args=() p
  for p in $cfg; do args+=(-p "$p"); done
  echo "${args[@]}"
}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
  run "$B/clforge" -d nvidia params sgemm_xgemm --variant large
  run "$B/clforge" -d nvidia params sgemm_route
  CLFORGE_TEST_DEVICE=nvidia run "$B/tests/clforge_tests" --test-suite=sgemm
  CLFORGE_TEST_DEVICE=cpu run "$B/tests/clforge_tests" --test-suite=sgemm
  # Floor sizes first (4096, 8192, 4097, 1000), then the rest of the issue's list.
  run "$B/clforge" -d nvidia bench sgemm --size 4096 --size 8192 --size 4097 --size 1000 --out "$O/json/sgemm_floor.json"
  run "$B/clforge" -d cpu bench sgemm --size 1024 --out "$O/json/sgemm_pocl_1024.json"
  i=0
  for change in "" "NVRREG=128" "KWG=8 KWI=8" "DBUF=0" "NWG=64 NDIMB=16" "MWG=64 NWG=64 MDIMC=8 NDIMC=8 MDIMA=16 NDIMB=16"; do
    i=$((i + 1))
    # shellcheck disable=SC2046
    run "$B/clforge" -d nvidia $(with "$NV" "$change") bench sgemm --quick --size 4096 --size 8192 --out "$O/json/sweep_$i.json"
  done
  for change in "" "MDIMC=8 NDIMC=8" "NWG=128 NDIMB=32" "KWG=32" "$NV"; do
    i=$((i + 1))
    # shellcheck disable=SC2046
    run "$B/clforge" -d nvidia $(with "$NVS" "$change") bench sgemm --quick --size 1000 --size 512x8192x512 --out "$O/json/sweep_$i.json"
  done
  if [ "$MODE" = full ]; then
    run "$B/clforge" -d nvidia bench sgemm --out "$O/json/sgemm_nvidia_all.json"
    run "$B/clforge" -d nvidia -p SGEMM_TILED=1 bench sgemm --quick --size 4096 --out "$O/json/sgemm_stream.json"
    run "$B/clforge" -d cpu bench sgemm --out "$O/json/sgemm_pocl_all.json"
  fi
} 2>&1 | tee "$O/log.txt"
tar -C "$O" -czf "$O/json.tgz" json && rm -rf "$O/json"
