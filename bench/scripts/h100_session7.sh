#!/usr/bin/env bash
# Device sittings of session 7 on the lent H100 machine, one part per call.
#   part 1: prefetch of later groups' inputs in the one-kernel plans (FFT_PREFETCH, groups per
#           compute unit ahead; prefetch() or plain loads): does NVIDIA's compiler keep prefetch()
#           (PTX in the compile cache), then the one-kernel lengths 512 ... 8192, 1000, 3000, 4095
#           at 64 MiB (and 1024, 4096 at 16 and 512 MiB) over the prefetch distance; the 512-point
#           passes of 262144 with 512 work-items and halving against the sm_90 row, interleaved.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session7.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
PART=$3
C="$B/clforge"
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
  esac
} 2>&1 | tee "$O/log_part$PART.txt"
