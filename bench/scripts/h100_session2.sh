#!/usr/bin/env bash
# One device sitting of session 2 (issues 2, 3, 4, 5, 6): tuner runs that double as sweeps
# (transpose work-group orders, SGEMM 4096 with the exact command, SGEMM small sizes),
# the benchmarks they decide, and a first look at FFT and blur on the GPU. Each part has its own
# time limit (SIGINT: a tune stops early and still stores its best). The user tuning database
# written here is returned in OUT for shipping as sm_90 rows.
# usage: bench/scripts/h100_session2.sh BUILD_DIR OUT_DIR
set -u
B=$1
O=$2
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache
export XDG_DATA_HOME=$O/userdata
run() { echo "+ $*"; "$@"; echo "(exit $?)"; }
lim() { local s=$1; shift; echo "+ [limit ${s}s] $*"; timeout -s INT -k 10 "$s" "$@"; echo "(exit $?)"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
  run "$B/clforge" devices
  # Transpose: the work-group order (row, band swizzle of 4..32 tiles) with the shapes that led
  # the session-1 sweeps; then the benchmark against CLBlast with the stored best.
  lim 100 "$B/clforge" -d nvidia tune transpose --size 8192 --strategy exhaustive --param TRA_TILE=32,64 \
    --param TRA_WPT=4,8,16 --param TRA_VW=1,4 --param TRA_PAD=1 --param TRA_DIAG=0 --param TRA_SWZ=0,4,8,16,32 \
    --param TRA_LOCAL=1 --out "$O/json/tune_transpose_nvidia.json"
  lim 40 "$B/clforge" -d nvidia bench transpose --size 8192 --size 16384 --size 8200 --out "$O/json/transpose_nvidia.json"
  # SGEMM: the command, then the small size class (xgemm) and the direct kernel at 1000^3.
  lim 170 "$B/clforge" -d nvidia tune sgemm --size 4096 --time 120
  lim 45 "$B/clforge" -d nvidia tune sgemm --size 1000 --time 35
  lim 45 "$B/clforge" -d nvidia tune sgemm_direct --size 1000 --time 35 --param WGD=32,64 --param KWID=2,8,16
  lim 60 "$B/clforge" -d nvidia bench sgemm --quick --size 1000 --size 1024 --size 4096 --size 4097 --out "$O/json/sgemm_nvidia.json"
  lim 40 "$B/clforge" -d nvidia -p SGEMM_DIRECT_MAX=1100 bench sgemm --quick --size 1000 --size 1024 --out "$O/json/sgemm_direct_nvidia.json"
  # FFT and blur: a first look at 64 MiB batches (every kernel kind) and at the blur targets.
  lim 75 "$B/clforge" -d nvidia bench fft --quick --size 8 --size 64 --size 256 --size 1024 --size 4096 --size 8192 \
    --size 65536 --size 1048576 --size 1000 --size 1009 --out "$O/json/fft_nvidia.json"
  lim 60 "$B/clforge" -d nvidia bench blur --quick --size 8192x8192 --sigmas 2,5,10,20 --out "$O/json/blur_nvidia"
  # PoCL (16 cores): transpose against CLBlast on the same device.
  lim 50 "$B/clforge" -d cpu tune transpose --size 4096 --time 35
  lim 30 "$B/clforge" -d cpu bench transpose --size 4096 --out "$O/json/transpose_pocl.json"
  find "$O/userdata" -type f | head
} 2>&1 | tee "$O/log.txt"
cp -r "$O/userdata" "$O/json/" 2>/dev/null
tar -C "$O" -czf "$O/json.tgz" json && rm -rf "$O/json" "$O/userdata"
