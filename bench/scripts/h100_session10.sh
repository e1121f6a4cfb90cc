#!/usr/bin/env bash
# Device sittings of session 10 on the lent H100 machine, one part per call.
#   part 1: 3000 with fewer work-items per transform (FFT_VPT 12 ... 30: 250 ... 100 work-items,
#           balancing the radix-8, -5 and -3 passes), one or two transforms per group, halved or
#           not, at 64 and 512 MiB; loads and stores alone under two shapes; register reports;
#           16384 with the double twiddle powers in one and in two chains.
#   part 2: `bench fft` of 3000, 16384, 32 and 64 beside the peers under each candidate tuning
#           file TF... (JSON files in the repository) and under the shipped rows.
#   part 3: closing sitting: `bench fft` default list (every length at 64 and 512 MiB).
#   part 4: the fft, tune and tuning test suites on the NVIDIA device; resolved 3000 and 16384 rows.
#   part 5: 3000 with more work-items per transform (FFT_VPT 3 ... 6: 1000 ... 500, shorter-lived
#           groups), at 64 and 512 MiB, with register reports; 3000 on 200 work-items without
#           twiddles or exchanges (diagnostic macros) at 64 MiB.
#   part 6: 3000 on 600 and 200 work-items with twiddles as powers in double (FFT_TWIDDLE 2),
#           at 64 and 512 MiB, and register reports.
#   part 7: odd factors merged into radix-15, -9 and -25 butterflies (FFT_MIX 1, 2): kernel times
#           of 3000 (8*15*5*5, 8*25*15) under several work-item counts, 1000 and 4095, at 64 and
#           512 MiB; register reports.
#   part 8: 3000 and 1000 with 5*5 = 25 (FFT_MIX 2) on one transform per group (FFT_WG 128 or 64:
#           two transforms of 3000 with padded rows need 49.5 KiB), and 3000 with FFT_MIX 1 under
#           the candidates of part 7 once more, at 64 and 512 MiB; register reports.
#   part 9: double twiddle powers in one and in two chains: 16384 and the 3000 candidates with
#           FFT_TWIDDLE 2 and 3 under both, at 64 and 512 MiB; then part 2 with TF...
#   part 10: 16384 with both passes' twiddles as powers in double (FFT_TWIDDLE 2, two chains)
#           against the sm_90 row (FFT_TWIDDLE 3), interleaved, at 64 and 512 MiB.
#   part 11: 3000 with the shipped sm_90 row: `bench fft` of 3000 alone, twice, then after the
#           lengths that precede it in the default list; kernel times.
#   part 12: 3000 under the shipped row, under the same values given with -p, and under the
#           candidate tuning file: kernel times, build options and register reports.
#   part 13: 3000 under the candidates of parts 7-9 again, interleaved (the NVIDIA row, merged
#           radices with table or double twiddles, one or two chains), at 64 and 512 MiB.
#   part 16: n = 128 (0.89-0.91 of VkFFT at 64 MiB): `tune fft --size 128@65536` over work-group
#           size, staging, radix and halving (exhaustive), then `bench fft` of 128 at 64 and 512 MiB
#           with the tuned entry and without it, twice, interleaved.
#   part 17: `bench fft` of 128 and 3000 at 64 and 512 MiB with the shipped rows, twice.
#   part 18: after the review (one macro for both chains of double powers): kernel times of 16384
#           with one and two chains and of 3000 with the shipped rows, then part 4.
# The sittings chose the chains with a kernel macro (CLFORGE_BUILD_OPTIONS=-DFFT_DCHAINS=N, and in
# parts 9-13 a default of two chains for groups of up to 512 work-items); the tuning parameter
# FFT_DCHAIN (-p FFT_DCHAIN=N) has replaced both, and the parts below use it.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session10.sh BUILD_DIR OUT_DIR PART [TF...]
source "$(dirname "$0")/device_common.sh" "$@"
{
  stamp
  case $PART in
  1)
    rm -rf "$XDG_DATA_HOME"
    for nb in 3000@2796 3000@22369; do
      kt $nb
      for v in 12 15 20 24 30; do
        kt $nb -p FFT_VPT=$v
        kt $nb -p FFT_VPT=$v -p FFT_WG=1024 -p FFT_HALVE=1
      done
      kt $nb -p FFT_VPT=15 -p FFT_TWIDDLE=1
      kt $nb -p FFT_VPT=15 -p FFT_PAD=0
    done
    for v in 0 15; do
      CLFORGE_BUILD_OPTIONS=-DFFT_XNOPASS kt 3000@2796 -p FFT_VPT=$v
      CLFORGE_BUILD_OPTIONS=-DFFT_XNOPASS kt 3000@22369 -p FFT_VPT=$v
      CLFORGE_BUILD_OPTIONS=-DFFT_XNOTW kt 3000@22369 -p FFT_VPT=$v
    done
    for v in 0 12 15 20 24; do vr 3000@2796 -p FFT_VPT=$v; done
    for nb in 16384@512 16384@4096; do
      for i in 1 2; do
        kt $nb -p FFT_DCHAIN=1
        kt $nb -p FFT_DCHAIN=2
      done
    done
    vr 16384@512 -p FFT_DCHAIN=1
    vr 16384@512 -p FFT_DCHAIN=2
    ;;
  2)
    rm -rf "$XDG_DATA_HOME"
    bench_tfs s10-2 "--size 3000@64 --size 3000@512 --size 16384@64 --size 16384@512 --size 32@64 --size 64@512" "${TFS[@]}"
    ;;
  3)
    rm -rf "$XDG_DATA_HOME"
    fft_all s10-3
    ;;
  4)
    rm -rf "$XDG_DATA_HOME"
    fft_tests
    "$C" -d nvidia params fft --variant 3000 2>&1 | grep -E "VPT|WG|HALVE"
    "$C" -d nvidia params fft --variant 16384 2>&1 | grep -E "RADIX|TWIDDLE"
    ;;
  5)
    rm -rf "$XDG_DATA_HOME"
    for nb in 3000@2796 3000@22369; do
      kt $nb
      for v in 3 4 5 6 15; do kt $nb -p FFT_VPT=$v; done
      kt $nb -p FFT_VPT=5 -p FFT_PAD=0
      kt $nb -p FFT_VPT=4 -p FFT_PAD=0
    done
    for v in 3 4 5 6; do vr 3000@2796 -p FFT_VPT=$v; done
    for d in -DFFT_XNOTW -DFFT_XNOXCHG -DFFT_XNOBAR; do
      CLFORGE_BUILD_OPTIONS=$d kt 3000@2796 -p FFT_VPT=15
      CLFORGE_BUILD_OPTIONS=$d kt 3000@2796 -p FFT_VPT=5
    done
    ;;
  6)
    rm -rf "$XDG_DATA_HOME"
    for nb in 3000@2796 3000@22369; do
      for v in 5 15 0; do
        kt $nb -p FFT_VPT=$v
        kt $nb -p FFT_VPT=$v -p FFT_TWIDDLE=2
      done
    done
    for v in 5 15; do vr 3000@2796 -p FFT_VPT=$v -p FFT_TWIDDLE=2; done
    ;;
  7)
    rm -rf "$XDG_DATA_HOME"
    for nb in 3000@2796 3000@22369; do
      kt $nb -p FFT_VPT=15
      for m in 1 2; do
        for v in 0 5 8 15 24; do kt $nb -p FFT_MIX=$m -p FFT_VPT=$v; done
      done
      kt $nb -p FFT_MIX=1 -p FFT_VPT=15 -p FFT_PAD=0
      kt $nb -p FFT_MIX=2 -p FFT_VPT=15 -p FFT_PAD=0
    done
    for nb in 1000@8388 1000@67108 4095@2048 4095@16384; do
      kt $nb
      kt $nb -p FFT_MIX=1
      kt $nb -p FFT_MIX=2
    done
    for m in 1 2; do for v in 0 8 15; do vr 3000@2796 -p FFT_MIX=$m -p FFT_VPT=$v; done; done
    ;;
  8)
    rm -rf "$XDG_DATA_HOME"
    for nb in 3000@2796 3000@22369; do
      for v in 0 8 15; do kt $nb -p FFT_MIX=2 -p FFT_VPT=$v -p FFT_WG=128; done
      kt $nb -p FFT_MIX=1 -p FFT_VPT=15
      kt $nb -p FFT_MIX=1 -p FFT_VPT=15 -p FFT_PAD=0
      kt $nb -p FFT_MIX=1 -p FFT_VPT=15 -p FFT_TWIDDLE=2
      kt $nb -p FFT_MIX=1 -p FFT_VPT=12
      kt $nb -p FFT_MIX=1 -p FFT_VPT=20
    done
    for nb in 1000@8388 1000@67108; do
      kt $nb -p FFT_MIX=2 -p FFT_WG=128
      kt $nb -p FFT_MIX=2 -p FFT_WG=64
    done
    for v in 0 8 15; do vr 3000@2796 -p FFT_MIX=2 -p FFT_VPT=$v -p FFT_WG=128; done
    vr 3000@2796 -p FFT_MIX=1 -p FFT_VPT=15
    ;;
  9)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096; do
      kt $nb -p FFT_DCHAIN=2
      kt $nb -p FFT_DCHAIN=1
    done
    for nb in 3000@2796 3000@22369; do
      for a in "-p FFT_MIX=1 -p FFT_VPT=15" "-p FFT_MIX=2 -p FFT_VPT=15 -p FFT_WG=128"; do
        kt $nb $a -p FFT_TWIDDLE=2 -p FFT_DCHAIN=2
        kt $nb $a -p FFT_TWIDDLE=2 -p FFT_DCHAIN=1
        kt $nb $a -p FFT_TWIDDLE=3
      done
    done
    bench_tfs s10-9 "--size 3000@64 --size 3000@512 --size 16384@64 --size 16384@512 --size 32@64 --size 64@512" "${TFS[@]}"
    ;;
  10)
    rm -rf "$XDG_DATA_HOME"
    for i in 1 2; do
      for nb in 16384@512 16384@4096; do
        kt $nb
        kt $nb -p FFT_TWIDDLE=2
      done
    done
    ;;
  11)
    rm -rf "$XDG_DATA_HOME"
    for i in 1 2; do
      lim 100 "$C" -d nvidia bench fft --size 3000@64 --size 3000@512 2>&1 | grep -E "^fft n.*(clforge|VkFFT):"
    done
    lim 200 "$C" -d nvidia bench fft --size 1048576@64 --size 1000@64 --size 3000@64 --size 3000@512 2>&1 | grep -E "^fft n.*(clforge|VkFFT):"
    kt 3000@2796
    kt 3000@22369
    ;;
  12)
    rm -rf "$XDG_DATA_HOME"
    for i in 1 2; do
      kt 3000@2796
      kt 3000@2796 -p FFT_MIX=1 -p FFT_VPT=15 -p FFT_TWIDDLE=2
      CLFORGE_TUNING_FILE=$(realpath bench/scripts/s10/tf_a.json) kt 3000@2796
    done
    for a in "" "-p FFT_MIX=1 -p FFT_VPT=15 -p FFT_TWIDDLE=2"; do
      echo "== build [$a]"
      CLFORGE_CACHE_DIR=off CLFORGE_BUILD_OPTIONS=-cl-nv-verbose "$C" -v -d nvidia $a run fft --n 3000 --batch 2796 2>&1 |
        grep -E "build log of|Used|spill" | cut -c1-900
    done
    ;;
  13)
    rm -rf "$XDG_DATA_HOME"
    for nb in 3000@2796 3000@22369; do
      for i in 1 2; do
        kt $nb -p FFT_MIX=0 -p FFT_VPT=0 -p FFT_TWIDDLE=0
        kt $nb -p FFT_MIX=1 -p FFT_VPT=15 -p FFT_TWIDDLE=0
        kt $nb -p FFT_DCHAIN=2
        kt $nb -p FFT_DCHAIN=1
        kt $nb -p FFT_MIX=2 -p FFT_WG=128
      done
    done
    ;;
  16)
    rm -rf "$XDG_DATA_HOME"
    TP="--param FFT_REG=16 --param FFT_TWIDDLE=0 --param FFT_PAD=1 --param FFT_VEC=1 --param FFT_VPT=0 --param FFT_MIX=0 --param FFT_DCHAIN=1 --param FFT_ACROSS=8 --param FFT_CHUNK=0 --param FFT_PASS_MAX=512 --param FFT_LOCAL_MAX=4096"
    lim 200 "$C" -d nvidia tune fft --size 128@65536 --param FFT_WG=32,64,128,256 --param FFT_STAGE=0,1,2 \
      --param FFT_RADIX=8,16 --param FFT_HALVE=0,1 $TP --time 150 --strategy exhaustive --out "$O/json/tune128.json" 2>&1 |
      grep -v "^fft/" | grep -E "variant|tried|best|default|#[1-6] |stored"
    for i in 1 2; do
      lim 100 "$C" -d nvidia bench fft --size 128@64 --size 128@512 2>&1 | grep -E "^fft n.*(clforge|clFFT|VkFFT):"
      XDG_DATA_HOME=/tmp/none lim 100 "$C" -d nvidia bench fft --size 128@64 --size 128@512 2>&1 | grep -E "^fft n.*(clforge|clFFT|VkFFT):"
    done
    ;;
  17)
    rm -rf "$XDG_DATA_HOME"
    for i in 1 2; do
      lim 100 "$C" -d nvidia bench fft --size 128@64 --size 128@512 --size 3000@64 --size 3000@512 \
        --out "$O/json/fft_s10-17_$i.json" 2>&1 | grep -E "^fft n.*(clforge|clFFT|VkFFT):"
    done
    ;;
  18)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096; do
      kt $nb -p FFT_DCHAIN=1
      kt $nb
    done
    kt 3000@2796
    kt 3000@22369
    fft_tests
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_s10-$PART.txt"
