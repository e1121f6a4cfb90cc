#!/usr/bin/env bash
# Device sittings of session 11 on the lent H100 machine, one part per call.
#   part 1: per-pass kernel times of 2^20 (1024*1024) and 2^19 (1024*512) at 64 MiB under
#           candidate pass rows (work-items per group, so transforms per group, radix, halving,
#           padding, staging), one row at a time; chunks of 16 and 32 MiB; 16384 baselines.
#   part 2: split twiddle tables (FFT_TWIDDLE 4) against the shipped rows for 16384, 8192, 4096,
#           4095, 3000 and 2048 at 64 and 512 MiB, interleaved, twice; per-pass times of the
#           multi-pass lengths under the later-pass rows of TF...; `bench fft` of the multi-pass
#           lengths under each TF and under the shipped rows.
#   part 3: closing sitting: `bench fft` default list (every length at 64 and 512 MiB).
#   part 4: 16384 kernel times with the odd groups of the first wave started late (diagnostic
#           FFT_XSTAGGER: a dependent chain of 1000 ... 5000 multiply-adds, so that half of the
#           compute units compute while the others load or store), with 256 work-items
#           (FFT_VPT 64), unpadded, with split tables; `bench fft` of 16384 at 64 and 512 MiB under
#           each TF and the shipped rows, twice.
#   part 5: PoCL CPU floor: `-d cpu bench fft` of the powers of two 16 ... 4096 at 64 MiB.
#   part 6: the fft, tune and tuning test suites on the NVIDIA device; kernel times of 16384, 8192
#           and 1024 with every pass's twiddles as float products (FFT_TWIDDLE 5) against the
#           shipped rows; `bench fft` of 8192 and 16384 at 64 and 512 MiB under each TF and the
#           shipped rows, twice.
#   part 7: FFT_TWIDDLE 4 as float products of the powers w^(2^k) (it replaced the split tables of
#           parts 2 and 4): kernel times of 16384, 8192, 32768 (pass rows) and 3000 against the
#           shipped rows, interleaved, twice, with register reports; `bench fft` of 16384 at 64
#           and 512 MiB under each TF and the shipped rows, twice.
#   part 8: FFT_TWIDDLE 4 and 5 as one float product w^(h*S) * w^l per twiddle (it replaced the
#           powers w^(2^k) of part 7): kernel times of 16384, 8192, 4096, 2048, 1024 and 2^20 under
#           the shipped rows, with FFT_TWIDDLE 5 and (16384) 3, interleaved, twice; `bench fft` of
#           8192 and 16384 at 64 and 512 MiB under each TF and the shipped rows, twice.
#   part 9: part 8 again after the float products became straight-line steps (part 8's loops
#           left the products' indices to the run time), for 16384 and 8192, with register reports.
#   part 10: closing sitting: `bench fft` default list (every length at 64 and 512 MiB), then the
#           fft, tune and tuning test suites on the NVIDIA device.
#   part 11: PoCL CPU: `-d cpu bench fft` of 256, 1024 and 2048 at 64 MiB, three times.
#   part 12: PoCL CPU: `-d cpu bench fft` of the powers of two 16 ... 4096 at 64 MiB, five times
#           (each run measures the three libraries in turn, so the runs interleave them).
# FFT_TWIDDLE 4 and 5 changed form between parts: split tables in parts 2 and 4, float products
# of the powers w^(2^k) in parts 6 and 7, products w^(h*S) * w^l (the committed form) from part 8.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session11.sh BUILD_DIR OUT_DIR PART [TF...]
source "$(dirname "$0")/device_common.sh" "$@"
# Kernel times of N@BATCH, twice, interleaved: the shipped row, FFT_TWIDDLE 5 and (16384) 3 in two chains.
tw_kts() {
  for i in 1 2; do
    kt "$1"
    kt "$1" -p FFT_TWIDDLE=5
    [ "${1%@*}" = 16384 ] && kt "$1" -p FFT_TWIDDLE=3 -p FFT_DCHAIN=2
  done
}
{
  stamp
  case $PART in
  1)
    rm -rf "$XDG_DATA_HOME"
    for nb in 1048576@8 524288@16; do
      pp $nb ""
      for wg in 64 128 256 512; do
        for h in 1 2; do
          for pad in 0 1; do
            pp $nb "$(row pass1024 "\"FFT_RADIX\": 32, \"FFT_WG\": $wg, \"FFT_HALVE\": $h, \"FFT_PAD\": $pad, \"FFT_STAGE\": 3, \"FFT_ACROSS\": 4")"
          done
        done
      done
      for wg in 128 256 512; do
        for h in 1 2; do
          pp $nb "$(row pass1024 "\"FFT_RADIX\": 16, \"FFT_WG\": $wg, \"FFT_HALVE\": $h, \"FFT_STAGE\": 3, \"FFT_ACROSS\": 4")"
        done
      done
      for st in 0 1; do
        for wg in 128 256; do
          pp $nb "$(row pass1024 "\"FFT_RADIX\": 32, \"FFT_WG\": $wg, \"FFT_HALVE\": 2, \"FFT_STAGE\": $st, \"FFT_ACROSS\": 4")"
        done
      done
    done
    # the 512-point pass of 2^19 (strided on both sides)
    for r in 8 16 32; do
      for wg in 64 128 256 512; do
        for h in 0 1 2; do
          pp 524288@16 "$(row pass512 "\"FFT_RADIX\": $r, \"FFT_WG\": $wg, \"FFT_HALVE\": $h, \"FFT_STAGE\": 3, \"FFT_ACROSS\": 4")"
        done
      done
    done
    for ch in 16 32; do
      kt 1048576@8 -p FFT_CHUNK=$ch
      kt 524288@16 -p FFT_CHUNK=$ch
    done
    for nb in 16384@512 16384@4096; do
      kt $nb
      kt $nb -p FFT_TWIDDLE=0
      CLFORGE_BUILD_OPTIONS=-DFFT_XNOTW kt $nb
    done
    ;;
  2)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096 8192@1024 8192@8192 4096@2048 4096@16384 4095@2048 4095@16388 \
      3000@2796 3000@22369 2048@4096 2048@32768; do
      kt $nb
      kt $nb -p FFT_TWIDDLE=4
      kt $nb
      kt $nb -p FFT_TWIDDLE=4
    done
    for nb in 1048576@8 1048576@64 524288@16 524288@128 262144@32 262144@256; do
      pp $nb ""
      for tf in "${TFS[@]}"; do pp $nb "$(sed -n 's/^  \({.*}\),\{0,1\}$/\1/p' "$tf" | paste -sd,)"; done
    done
    bench_tfs s11-2 "--size 262144@64 --size 524288@64 --size 1048576@64 --size 262144@512 --size 524288@512 --size 1048576@512" "${TFS[@]}"
    ;;
  3)
    rm -rf "$XDG_DATA_HOME"
    fft_all s11-3
    ;;
  4)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@4096 16384@512; do
      for k in 0 1000 2000 3300 5000 0; do
        if [ $k = 0 ]; then kt $nb; else CLFORGE_BUILD_OPTIONS="-DFFT_XSTAGGER=$k -DFFT_XSTAGGER_G=132" kt $nb; fi
      done
      kt $nb -p FFT_VPT=64
      kt $nb -p FFT_PAD=0
      kt $nb -p FFT_TWIDDLE=4
    done
    for i in 1 2; do bench_tfs s11-4-$i "--size 16384@64 --size 16384@512" "${TFS[@]}"; done
    ;;
  6)
    rm -rf "$XDG_DATA_HOME"
    fft_tests
    for nb in 16384@512 16384@4096 8192@1024 8192@8192 1024@8192; do
      kt $nb
      kt $nb -p FFT_TWIDDLE=5
    done
    for i in 1 2; do bench_tfs s11-6-$i "--size 8192@64 --size 8192@512 --size 16384@64 --size 16384@512" "${TFS[@]}"; done
    ;;
  7)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096 8192@1024 8192@8192 3000@2796 3000@22369; do
      for i in 1 2; do
        kt $nb
        kt $nb -p FFT_TWIDDLE=4
      done
    done
    vr 16384@512
    vr 16384@512 -p FFT_TWIDDLE=4
    for i in 1 2; do bench_tfs s11-7-$i "--size 16384@64 --size 16384@512" "${TFS[@]}"; done
    ;;
  5)
    rm -rf "$XDG_DATA_HOME"
    lim 500 "$C" -d cpu bench fft --size 16@64 --size 32@64 --size 64@64 --size 128@64 --size 256@64 --size 512@64 \
      --size 1024@64 --size 2048@64 --size 4096@64 --out "$O/json/fft_cpu_s11-5.json" 2>&1 | grep -E "^fft n"
    ;;
  8)
    rm -rf "$XDG_DATA_HOME"
    for nb in 16384@512 16384@4096 8192@1024 8192@8192 4096@2048 4096@16384 2048@4096 1024@8192 1048576@8; do
      tw_kts $nb
    done
    for i in 1 2; do bench_tfs s11-8-$i "--size 8192@64 --size 8192@512 --size 16384@64 --size 16384@512" "${TFS[@]}"; done
    ;;
  9)
    rm -rf "$XDG_DATA_HOME"
    vr 16384@512
    vr 16384@512 -p FFT_TWIDDLE=5
    for nb in 16384@512 16384@4096 8192@1024 8192@8192; do
      tw_kts $nb
    done
    for i in 1 2; do bench_tfs s11-9-$i "--size 8192@64 --size 8192@512 --size 16384@64 --size 16384@512" "${TFS[@]}"; done
    ;;
  10)
    rm -rf "$XDG_DATA_HOME"
    fft_all s11-10
    fft_tests
    ;;
  11)
    rm -rf "$XDG_DATA_HOME"
    for i in 1 2 3; do
      lim 150 "$C" -d cpu bench fft --size 256@64 --size 1024@64 --size 2048@64 --out "$O/json/fft_cpu_s11-11-$i.json" 2>&1 |
        grep -E "^fft n.*(clforge|clFFT|VkFFT):"
    done
    ;;
  12)
    rm -rf "$XDG_DATA_HOME"
    for i in 1 2 3 4 5; do
      lim 110 "$C" -d cpu bench fft --size 16@64 --size 32@64 --size 64@64 --size 128@64 --size 256@64 --size 512@64 \
        --size 1024@64 --size 2048@64 --size 4096@64 --out "$O/json/fft_cpu_s11-12-$i.json" 2>&1 |
        grep -E "^fft n.*(clforge|clFFT|VkFFT):"
    done
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log_s11-$PART.txt"
