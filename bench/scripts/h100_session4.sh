#!/usr/bin/env bash
# Device sittings of session 4 on the lent H100 machine, one part per call (each under the
# device tool's 10-minute limit). Per-kernel device times come from CLFORGE_PROFILE_KERNELS=1
# (logged at level info, `clforge -v`) and are summarised per kernel by `prof` (device_common.sh).
#   part 1: per-kernel profiles of small SGEMM (1000^3: route rows, tile shapes, split k) beside
#           CLBlast and cuBLAS, and of the blur methods at sigma 10 on 64 MP.
#   part 2: after the constant-table cache (no device sync per blur call) and the horizontal
#           carries from the vertical pass: recursive blur schemes at sigma 10 (profiles), blur
#           sigma 2/10/20 against separable; SGEMM 1000^3 with split k (bench, back to back).
#   part 3: the link kernel split into runs of blocks (BLUR_R_LINK_SPLIT): profiles at sigma 10,
#           then the sigma list against separable with the best.
#   part 4: the new shipped NVIDIA recursive row and its neighbours (link batch, split), the
#           sigma list against separable (1 and 4 channels); SGEMM 1000^3 kernel profiles with
#           and without split k in the benchmark's back-to-back setting.
#   part 5: the blur crossover with the new recursive row, the PoCL blur figures; SGEMM 900..1100
#           through the direct kernel (SGEMM_DIRECT_MAX) against the tiled path, and the
#           direct kernel tuned at 1000^3.
#   part 6: the closing sitting of the build with the shipped rows: the test suite on the NVIDIA
#           device, the SGEMM floor sizes (with cuBLAS), blur at 64 MP (sigma 2..50), the
#           SGEMM 1024^3 floor on the PoCL CPU device, transpose twice.
#   part 7: transpose on the PoCL CPU device: shipped row, an exhaustive sweep of register blocks
#           and local tiles (work-group sizes 1..256) at 4096^2, the benchmark with the winner.
#   part 8: FFT n = 1024, 4096, 8192 (64 MiB): kernel profiles of the shipped rows and of
#           single-kernel 8192 (local-memory halving, 512 work-items), 4096 variants.
#   part 9: FFT twiddles computed in the kernel (FFT_TWIDDLE=1) against the table across lengths,
#           single-kernel 8192 with it.
#   part 10: the sm_90 FFT rows for 4096 and 8192 as shipped (64 and 512 MiB), 8192 with the
#           twiddle table, the FFT tests on the NVIDIA device.
#   part 11: PoCL transpose with 8 rows per work-item (the sweep of part 7 had 1, 4, 16): tiles
#           32/64, vectors 4/8, local tile or registers, padding; the benchmark twice.
#   part 12: PoCL transpose with tiny work-groups (one to four work-items of 8x8 or 4x8 register
#           blocks), then the benchmark twice.
#   part 13: PoCL transpose work-group orders (band swizzle 1 = down the input's columns, so that
#           a thread's consecutive groups write along output rows), then the benchmark twice.
#   part 14: FFT multi-pass plans (16384, 65536, 2^20 at 64 MiB): kernel profiles, plan text.
#   part 15: the multi-pass plans with other work-group sizes, points per work-item and twiddles.
#   part 16: the tuner's timing with back-to-back calls per region: tune sgemm_direct at 1000^3
#           (its default against the benchmark's figure), then the benchmark.
#   part 17: after the recursive kernels' clean-up: the blur tests on the NVIDIA device, blur at
#           64 MP sigma 2/10/20 (1 and 4 channels).
#   part 18: FFT 2^20 and 65536 (two passes of 1024 / 256 points) with larger work-groups, so
#           that more transforms share a group on the strided pass.
#   part 19: the same with FFT_LOCAL_MAX=1024 (the fit check sizes a group for FFT_LOCAL_MAX).
#   part 20: strided passes with a work-group grown for 8 transforms: 2^20 with the 1024 row's
#           FFT_STAGE=2 (never stage) and with FFT_STAGE=0 (stage where it coalesces).
#   part 21: long transforms in more, shorter passes (FFT_LOCAL_MAX caps the pass length too).
#   part 22: FFT_PASS_MAX shipped (512 on GPUs): long lengths at 64 and 512 MiB, FFT tests on the
#           NVIDIA device.
#   part 23: FFT_PASS_MAX 128 / 256 / 512 / 1024 on the long lengths.
# usage (from the repository root, after `source .device/env.sh`):
#   bench/scripts/h100_session4.sh BUILD_DIR OUT_DIR PART
source "$(dirname "$0")/device_common.sh" "$@"
PART=$3
C="$B/clforge"
{
  date -u
  case $PART in
  1)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
    lim 60 "$C" -d nvidia bench sgemm --size 1000 --size 512 --size 2048 --out "$O/json/sgemm_small.json"
    prof 30 "$C" -v -d nvidia run sgemm --m 1000 --n 1000 --k 1000
    prof 30 "$C" -v -d nvidia -p SGEMM_SPLITK=2 run sgemm --m 1000 --n 1000 --k 1000
    prof 30 "$C" -v -d nvidia -p SGEMM_SPLITK=4 -p SGEMM_SPLIT_WAVES=2 run sgemm --m 1000 --n 1000 --k 1000
    prof 30 "$C" -v -d nvidia -p MWG=64 -p NWG=64 -p MDIMC=16 -p NDIMC=16 -p MDIMA=16 -p NDIMB=16 -p VWM=4 -p VWN=4 \
      run sgemm --m 1000 --n 1000 --k 1000
    prof 30 "$C" -v -d nvidia -p SGEMM_DIRECT_MAX=1024 run sgemm --m 1000 --n 1000 --k 1000
    prof 30 "$C" -v -d nvidia run sgemm --m 1024 --n 1024 --k 1024
    prof 30 "$C" -v -d nvidia run sgemm --m 512 --n 512 --k 512
    prof 90 "$C" -v -d nvidia bench blur --size 8192x8192 --sigmas 10 --methods separable,recursive-fused
    ;;
  2)
    R="$C -v -d nvidia"
    prof 60 $R bench blur --size 8192x8192 --sigmas 10 --methods separable,recursive-fused
    for v in "-p BLUR_R_LX=64" "-p BLUR_R_LX=64 -p BLUR_R_NEXT_CARRY=0" "-p BLUR_R_LX=64 -p BLUR_R_BATCH=16" \
             "-p BLUR_R_LX=32 -p BLUR_R_BLOCK=32" "-p BLUR_R_LX=128 -p BLUR_R_BLOCK=128" "-p BLUR_R_LX=64 -p BLUR_R_BATCH=4"; do
      prof 60 $R $v bench blur --size 8192x8192 --sigmas 10 --methods recursive-fused --verify-pixels 500
    done
    lim 90 "$C" -d nvidia -p BLUR_R_LX=64 bench blur --size 8192x8192 --sigmas 2,5,10,20 --methods separable,recursive \
      --out "$O/json/blur_lx64.json"
    for v in "" "-p SGEMM_SPLITK=2" "-p SGEMM_SPLITK=4" "-p SGEMM_SPLITK=4 -p SGEMM_SPLIT_WAVES=2"; do
      lim 60 "$C" -d nvidia $v bench sgemm --size 1000 --size 2048 --size 1024x1000x1000
    done
    ;;
  3)
    R="$C -v -d nvidia"
    for v in "-p BLUR_R_LX=64 -p BLUR_R_BATCH=16" "-p BLUR_R_LX=64 -p BLUR_R_BATCH=16 -p BLUR_R_LINK_SPLIT=4" \
             "-p BLUR_R_LX=64 -p BLUR_R_BATCH=16 -p BLUR_R_LINK_SPLIT=8" "-p BLUR_R_LX=64 -p BLUR_R_BATCH=8 -p BLUR_R_LINK_SPLIT=16" \
             "-p BLUR_R_LX=64 -p BLUR_R_BATCH=4 -p BLUR_R_LINK_SPLIT=8" "-p BLUR_R_LX=32 -p BLUR_R_BLOCK=32 -p BLUR_R_LINK_SPLIT=16" \
             "-p BLUR_R_LX=64 -p BLUR_R_BLOCK=64 -p BLUR_R_BATCH=16 -p BLUR_R_LINK_SPLIT=8 -p BLUR_R_NEXT_CARRY=0"; do
      prof 60 $R $v bench blur --size 8192x8192 --sigmas 10 --methods recursive-fused --verify-pixels 500
    done
    lim 60 "$C" -d nvidia -p BLUR_R_LX=64 -p BLUR_R_BATCH=16 -p BLUR_R_LINK_SPLIT=8 bench blur --size 8192x8192 \
      --sigmas 2,5,10,20 --methods separable,recursive --out "$O/json/blur_split.json"
    lim 60 "$C" -d nvidia -p BLUR_R_LX=64 -p BLUR_R_BATCH=16 -p BLUR_R_LINK_SPLIT=8 bench blur --size 8192x8192 \
      --sigmas 10 --channels 4 --methods separable,recursive
    ;;
  4)
    R="$C -v -d nvidia"
    for v in "" "-p BLUR_R_LINK_BATCH=2" "-p BLUR_R_LINK_BATCH=8" "-p BLUR_R_LINK_SPLIT=16 -p BLUR_R_LINK_BATCH=2" \
             "-p BLUR_R_BATCH=8"; do
      prof 60 $R $v bench blur --size 8192x8192 --sigmas 10 --methods recursive-fused --verify-pixels 500
    done
    lim 60 "$C" -d nvidia bench blur --size 8192x8192 --sigmas 0.8,2,5,10,20 --methods separable,recursive \
      --out "$O/json/blur_row.json"
    lim 60 "$C" -d nvidia bench blur --size 8192x8192 --sigmas 10,20 --channels 4 --methods separable,recursive
    for v in "" "-p SGEMM_SPLITK=2" "-p SGEMM_SPLITK=4"; do
      prof 60 $R $v bench sgemm --size 1000 --size 1024x1000x1000 --size 2048
    done
    ;;
  5)
    lim 60 "$C" -d nvidia tune blur-crossover --size 8192x8192
    lim 150 "$C" -d cpu bench blur --size 4096x4096 --sigmas 2,5,10,20 --methods separable,recursive \
      --out "$O/json/blur_cpu.json"
    for v in "" "-p SGEMM_DIRECT_MAX=1024" "" "-p SGEMM_DIRECT_MAX=1024"; do
      lim 60 "$C" -d nvidia $v bench sgemm --size 1000 --size 1024 --size 903 --size 1100
    done
    lim 80 "$C" -d nvidia tune sgemm_direct --size 1000 --time 60
    lim 60 "$C" -d nvidia -p SGEMM_DIRECT_MAX=1024 bench sgemm --size 1000 --size 1024 --size 903 --size 512 --size 256
    (cd /tmp/clforge-userdata && tar czf "$O/json5.tgz" .)
    ;;
  6)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv
    lim 200 "$B/tests/clforge_tests" --test-suite=transpose,sgemm,fft,blur,tuning,runtime,cache \
      --test-case-exclude="clforge blur: PNG*"
    lim 120 "$C" -d nvidia bench sgemm --size 1000 --size 903 --size 4096 --size 8192 --size 4097 \
      --out "$O/json/sgemm_floor.json"
    lim 90 "$C" -d nvidia bench blur --size 8192x8192 --sigmas 2,5,10,20,50 --methods separable,recursive \
      --out "$O/json/blur_h100.json"
    lim 150 "$C" -d cpu bench sgemm --size 1024 --out "$O/json/sgemm_cpu.json"
    lim 60 "$C" -d nvidia bench transpose --size 8192 --size 16384 --out "$O/json/transpose_a.json"
    lim 60 "$C" -d nvidia bench transpose --size 8192 --size 16384 --out "$O/json/transpose_b.json"
    ;;
  7)
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_before.json"
    lim 330 "$C" -d cpu tune transpose --size 4096 --strategy exhaustive --param TRA_LOCAL=0,1 \
      --param TRA_TILE=16,32,64 --param TRA_WPT=1,4,16 --param TRA_VW=1,4,8 --param TRA_PAD=0 --param TRA_DIAG=0 \
      --param TRA_SWZ=0 --out "$O/json/tune_transpose_cpu.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_after.json"
    ;;
  8)
    R="$C -v -d nvidia"
    prof 90 $R bench fft --size 1024 --size 4096 --size 8192 --size 16384
    prof 60 $R -p FFT_LOCAL_MAX=8192 -p FFT_HALVE=1 -p FFT_WG=512 bench fft --size 8192
    prof 60 $R -p FFT_LOCAL_MAX=8192 -p FFT_HALVE=1 -p FFT_WG=1024 bench fft --size 8192
    prof 60 $R -p FFT_LOCAL_MAX=8192 -p FFT_HALVE=1 -p FFT_WG=512 -p FFT_RADIX=8 bench fft --size 8192
    for v in "-p FFT_HALVE=1" "-p FFT_WG=512" "-p FFT_HALVE=1 -p FFT_WG=1024" "-p FFT_TWIDDLE=1" "-p FFT_RADIX=8"; do
      prof 60 $R $v bench fft --size 4096
    done
    ;;
  9)
    S="--size 64 --size 256 --size 1024 --size 2048 --size 4096 --size 16384 --size 65536 --size 1048576"
    lim 120 "$C" -d nvidia bench fft $S --out "$O/json/fft_table.json"
    lim 120 "$C" -d nvidia -p FFT_TWIDDLE=1 bench fft $S --out "$O/json/fft_sincos.json"
    R="$C -v -d nvidia"
    prof 60 $R -p FFT_LOCAL_MAX=8192 -p FFT_HALVE=1 -p FFT_WG=512 -p FFT_TWIDDLE=1 bench fft --size 8192 --size 8192@512
    prof 60 $R -p FFT_LOCAL_MAX=8192 -p FFT_HALVE=1 -p FFT_WG=256 -p FFT_TWIDDLE=1 bench fft --size 8192
    prof 60 $R -p FFT_LOCAL_MAX=8192 -p FFT_HALVE=1 -p FFT_WG=512 -p FFT_TWIDDLE=1 -p FFT_PAD=0 bench fft --size 8192
    ;;
  10)
    lim 120 "$C" -d nvidia bench fft --size 2048 --size 4096 --size 8192 --size 4096@512 --size 8192@512 \
      --out "$O/json/fft_rows.json"
    prof 60 "$C" -v -d nvidia -p FFT_TWIDDLE=0 bench fft --size 8192
    prof 60 "$C" -v -d nvidia -p FFT_TWIDDLE=1 bench fft --size 8192
    CLFORGE_TEST_DEVICE=nvidia lim 200 "$B/tests/clforge_tests" --test-suite=fft
    ;;
  11)
    lim 240 "$C" -d cpu tune transpose --size 4096 --strategy exhaustive --param TRA_LOCAL=0,1 \
      --param TRA_TILE=32,64 --param TRA_WPT=8 --param TRA_VW=4,8 --param TRA_PAD=0,1 --param TRA_DIAG=0 \
      --param TRA_SWZ=0 --out "$O/json/tune_transpose_cpu8.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_a.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_b.json"
    ;;
  12)
    lim 240 "$C" -d cpu tune transpose --size 4096 --strategy exhaustive --param TRA_LOCAL=0 \
      --param TRA_TILE=8,16 --param TRA_WPT=4,8 --param TRA_VW=4,8 --param TRA_PAD=0 --param TRA_DIAG=0 \
      --param TRA_SWZ=0 --out "$O/json/tune_transpose_cpu_small.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_c.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_d.json"
    ;;
  13)
    lim 240 "$C" -d cpu tune transpose --size 4096 --strategy exhaustive --param TRA_LOCAL=0,1 \
      --param TRA_TILE=16,32,64 --param TRA_WPT=8 --param TRA_VW=8 --param TRA_PAD=1 --param TRA_DIAG=0 \
      --param TRA_SWZ=0,1,4,16 --out "$O/json/tune_transpose_cpu_swz.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_e.json"
    lim 120 "$C" -d cpu bench transpose --size 4096 --size 8192 --out "$O/json/transpose_cpu_f.json"
    ;;
  14)
    for n in 16384 65536 1048576; do
      prof 60 "$C" -v -d nvidia bench fft --size $n
      lim 30 "$C" -d nvidia run fft --n $n
    done
    ;;
  15)
    for v in "-p FFT_WG=256" "-p FFT_WG=512" "-p FFT_WG=1024 -p FFT_HALVE=1" \
             "-p FFT_TWIDDLE=1" "-p FFT_PAD=0" "-p FFT_STAGE=1" "-p FFT_WG=512 -p FFT_STAGE=1"; do
      lim 60 "$C" -d nvidia $v bench fft --size 16384 --size 65536 --size 1048576 2>&1 | grep "clforge:"
    done
    ;;
  16)
    lim 80 "$C" -d nvidia tune sgemm_direct --size 1000 --time 50 --no-store
    lim 60 "$C" -d nvidia bench sgemm --size 1000 --size 1024
    ;;
  17)
    CLFORGE_TEST_DEVICE=nvidia lim 200 "$B/tests/clforge_tests" --test-suite=blur --test-case-exclude="clforge blur: PNG*"
    lim 60 "$C" -d nvidia bench blur --size 8192x8192 --sigmas 2,10,20 --methods separable,recursive
    lim 60 "$C" -d nvidia bench blur --size 8192x8192 --sigmas 10 --channels 4 --methods separable,recursive
    ;;
  18)
    for v in "" "-p FFT_WG=256" "-p FFT_WG=512" "-p FFT_WG=1024"; do
      lim 60 "$C" -d nvidia $v bench fft --size 1048576 --size 1048576@512 2>&1 | grep "clforge:"
    done
    for v in "" "-p FFT_WG=512" "-p FFT_WG=512 -p FFT_HALVE=1" "-p FFT_WG=1024 -p FFT_HALVE=1"; do
      lim 60 "$C" -d nvidia $v bench fft --size 65536 2>&1 | grep "clforge:"
    done
    ;;
  19)
    for v in "-p FFT_LOCAL_MAX=1024" "-p FFT_LOCAL_MAX=1024 -p FFT_WG=256" "-p FFT_LOCAL_MAX=1024 -p FFT_WG=512" \
             "-p FFT_LOCAL_MAX=1024 -p FFT_WG=1024"; do
      prof 60 "$C" -v -d nvidia $v bench fft --size 1048576 --size 1048576@512
    done
    ;;
  20)
    for v in "" "-p FFT_STAGE=0"; do
      prof 60 "$C" -v -d nvidia $v bench fft --size 1048576 --size 1048576@512 --size 2097152
      lim 30 "$C" -d nvidia $v run fft --n 1048576 | head -6
    done
    ;;
  21)
    for v in "" "-p FFT_LOCAL_MAX=512" "-p FFT_LOCAL_MAX=256" "-p FFT_LOCAL_MAX=128"; do
      lim 60 "$C" -d nvidia $v bench fft --size 1048576 --size 2097152 --size 65536 --size 16384 2>&1 | grep "clforge:"
      lim 30 "$C" -d nvidia $v run fft --n 1048576 | grep "passes"
    done
    ;;
  22)
    lim 150 "$C" -d nvidia bench fft --size 16384 --size 65536 --size 131072 --size 262144 --size 1048576 \
      --size 2097152 --size 1048576@512 --size 262144@512 --out "$O/json/fft_long.json"
    CLFORGE_TEST_DEVICE=nvidia lim 200 "$B/tests/clforge_tests" --test-suite=fft
    ;;
  23)
    for v in 1024 512 256 128; do
      lim 60 "$C" -d nvidia -p FFT_PASS_MAX=$v bench fft --size 32768 --size 131072 --size 262144 --size 1048576 \
        --size 4194304 2>&1 | grep "clforge:"
    done
    ;;
  esac
  date -u
} 2>&1 | tee "$O/log$PART.txt"
