# Shared prelude of the device sitting scripts (sourced, not run): BUILD_DIR, OUT_DIR, PART and
# the tuning files TF... from the arguments (B, O, PART, TFS), caches and the user tuning
# database under /tmp, and the helpers
#   stamp               the date and the GPU's name and clocks (a sitting's first lines)
#   run CMD...          echo the command, run it, echo its exit status
#   lim SECONDS CMD...  the same under `timeout -s INT` (a tune stopped this way keeps its best)
#   prof SECONDS CMD... a clforge command with CLFORGE_PROFILE_KERNELS=1 (give it -v): its own
#                       output, then per kernel (name and ranges) the count, median and total
#                       of the device times it logged
# and for the FFT sittings (C is the build's clforge):
#   kt N@BATCH [ARGS]   kernel device time (profile median) of one `run fft`
#   pp N@BATCH 'ROWS'   per-pass kernel times of one `run fft` under tuning-file rows
#   row VARIANT 'PARAMS'  one tuning-file row, e.g. row pass1024 '"FFT_WG": 128'
#   vr N@BATCH [ARGS]   register report of one `run fft` (uncached build, -cl-nv-verbose)
#   bench_tfs TAG SIZES TF...  `bench fft` of SIZES under each tuning file, then the shipped rows
#   fft_all TAG         `bench fft` of the default list (every length at 64 and 512 MiB), JSON fft_all_TAG.json
#   fft_tests           the fft, tune and tuning test suites on the NVIDIA device
#   CPU_POW2            the --size list of the PoCL floor: the powers of two 16 ... 4096 at 64 MiB
# usage, at the top of a script: source "$(dirname "$0")/device_common.sh" "$@"
set -u
B=$1
O=$2
PART=${3:-}
TFS=("${@:4}")
mkdir -p "$O/json"
export CLFORGE_CACHE_DIR=/tmp/clforge-cache
export XDG_DATA_HOME=/tmp/clforge-userdata
stamp() { date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader; }
run() { echo "+ $*"; "$@"; echo "(exit $?)"; }
lim() { local s=$1; shift; echo "+ [limit ${s}s] $*"; timeout -s INT -k 10 "$s" "$@"; echo "(exit $?)"; }
prof() {
  local s=$1; shift
  echo "+ [profile, limit ${s}s] $*"
  CLFORGE_PROFILE_KERNELS=1 timeout -s INT -k 10 "$s" "$@" 2>"$O/prof.txt"
  echo "(exit $?)"
  grep -v '^clforge: profile: ' "$O/prof.txt"
  grep '^clforge: profile: ' "$O/prof.txt" | sed 's/^clforge: profile: //; s/ ms$//; s/ \([0-9.]*\)$/\t\1/' |
    sort -t"$(printf '\t')" -k1,1 -k2,2g |
    awk -F'\t' 'function out() {if (n) printf "  %-70s n=%4d median %.4f ms total %.3f ms\n", k, n, v[int((n+1)/2)], s}
                 $1 != k {out(); k=$1; n=0; s=0} {v[++n]=$2; s+=$2} END {out()}'
}
# The test binary and the CLI carry the checkout path they were built in: give it to them here.
src=$(grep -o 'CMAKE_HOME_DIRECTORY:INTERNAL=.*' "$B/CMakeCache.txt" | cut -d= -f2)
if [ -n "$src" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi
C="$B/clforge"
kt() { local nb=$1; shift; echo "== [${CLFORGE_BUILD_OPTIONS:-}] [$*] $nb"
  CLFORGE_PROFILE_KERNELS=1 timeout -s INT -k 10 90 "$C" -v -d nvidia "$@" run fft --n ${nb%@*} --batch ${nb#*@} 2>"$O/prof.txt" | grep -E "median|rror|kernel:|pass"
  grep '^clforge: profile: ' "$O/prof.txt" | sed 's/.* \([0-9.]*\) ms$/\1/' | sort -g | awk '{v[++n]=$1} END {printf "  kernel median %.4f ms (n=%d)\n", v[int((n+1)/2)], n}'; }
pp() { local nb=$1 rows=$2 f="$O/tf.json"
  printf '{"kernel": "fft", "entries": [%s]}\n' "$rows" >"$f"
  echo "== $nb rows: $rows"
  CLFORGE_TUNING_FILE="$f" prof 90 "$C" -v -d nvidia run fft --n ${nb%@*} --batch ${nb#*@} 2>&1 |
    grep -E "median|rror|pass [0-9]/|n=[0-9]+ ms"; }
row() { printf '{"variant": "%s", "params": {%s}}' "$1" "$2"; }
vr() { local nb=$1; shift; echo "== registers [$*] $nb"
  CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose timeout -s INT -k 10 90 "$C" -v -d nvidia "$@" run fft \
    --n ${nb%@*} --batch ${nb#*@} 2>&1 | grep -E "Used|spill" | head -6; }
# `bench fft` of SIZES under each tuning file, then under the shipped rows: bench_tfs TAG SIZES TF...
bench_tfs() { local tag=$1 sizes=$2 tf; shift 2
  for tf in "$@" ""; do
    echo "#### tuning file: ${tf:-none (shipped rows)}"
    [ -n "$tf" ] && cat "$tf"
    CLFORGE_TUNING_FILE="${tf:+$(realpath "$tf")}" lim 200 "$C" -d nvidia bench fft $sizes \
      --out "$O/json/fft_${tag}_$(basename "${tf:-shipped}" .json).json" 2>&1 | grep -E "^fft n"
  done; }
fft_all() { lim 560 "$C" -d nvidia bench fft --out "$O/json/fft_all_$1.json" 2>&1 | grep -E "^fft n"; }
fft_tests() {
  lim 400 "$B/tests/clforge_tests" --test-suite=fft,tune,tuning --test-case-exclude="clforge *" 2>&1 | tail -6; }
CPU_POW2=""
for n in 16 32 64 128 256 512 1024 2048 4096; do CPU_POW2="$CPU_POW2 --size $n@64"; done
