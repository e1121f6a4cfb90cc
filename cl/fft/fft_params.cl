// Parameters of the fft_local kernel (fft.cl, which describes the algorithm and the layouts): the
// tuning parameters, the routine constants the launcher sets together (src/fft/fft_decompose.cpp,
// FftShape::options), the values derived from them, and guards against impossible combinations.
// The kernel's files are joined in the order of src/fft/fft_spec.cpp; this one follows the
// generated butterflies.

// ---- tuning parameters ----
#ifndef FFT_RADIX
#define FFT_RADIX 8  // largest power-of-two radix of a pass (2, 4, 8, 16, 32); read by the launcher
#endif
#ifndef FFT_WG
#define FFT_WG 256  // work-items per work-group the launcher aims for (16 ... 1024)
#endif
#ifndef FFT_REG
#define FFT_REG 16  // lengths up to this run one transform per work-item in registers (1 ... 64)
#endif
#ifndef FFT_LOCAL_MAX
#define FFT_LOCAL_MAX 4096  // longest length done in one kernel (256 ... 32768); launcher only
#endif
#ifndef FFT_HALVE
// 1: exchanges move real, then imaginary parts through half the local memory;
// 2: and each in two halves of the positions (a quarter of the memory)
#define FFT_HALVE 0
#endif
#ifndef FFT_TWIDDLE
// 0: twiddles from a table computed in double on the host; 1: sinpi/cospi;
// 2: one per butterfly from a double table, the others its powers in double;
// 3: 2 for the passes whose table has more than FFT_TWBIG entries, else 0;
// 4: those passes' twiddles as float products w^(h*S) * w^l from the table, else 0;
// 5: 4 in every pass
#define FFT_TWIDDLE 0
#endif
#ifndef FFT_TWBIG
#define FFT_TWBIG 2048  // set by the launcher (kFftTwiddleBig)
#endif
#if FFT_TWIDDLE == 2 || FFT_TWIDDLE == 3
#define FFT_DOUBLE_TW 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#define FFT_DOUBLE_TW 0
#endif
#ifndef FFT_DCHAIN
#define FFT_DCHAIN 1  // double twiddle powers (FFT_TWIDDLE 2, 3): 1 chain of w steps, 2 chains of w^2 steps
#endif
#ifndef FFT_PAD
#define FFT_PAD 1  // 1: pad local rows against bank conflicts
#endif
#ifndef FFT_VEC
#define FFT_VEC 1  // 1: global loads and stores as float2 (one 8-byte access); 0: as two floats
#endif
#ifndef FFT_STAGE
// 0: stage global accesses through local memory where that coalesces them,
// 1: always, 2: never; read by the launcher
#define FFT_STAGE 0
#endif

// ---- routine constants (set together by the launcher; these defaults make a 64-point kernel) ----
#ifndef FFT_N
#define FFT_N 64     // transform length of this kernel
#define FFT_NPASS 2  // number of radix passes
#define FFT_R0 8     // radix of pass 0, 1, ...
#define FFT_R1 8
#define FFT_T 8  // work-items per transform
#define FFT_B 4  // transforms per work-group
#endif
#ifndef FFT_IN_MODE
#define FFT_IN_MODE 0  // 0: direct, 1: staged transform by transform, 2: staged across transforms
#endif
#ifndef FFT_OUT_MODE
#define FFT_OUT_MODE 0
#endif
#ifndef FFT_PRE
// on load: 0 none, 1 pass twiddle from the two-level table, 2 times aux_in[pos],
// 3 pass twiddle split per butterfly (direct loads, see the load), 4 a real plan's
// pre-processing (fft_memory.cl)
#define FFT_PRE 0
#endif
#ifndef FFT_POST
#define FFT_POST 0  // on store: 0 none, 1 times aux_out[pos], 2 and 3 a real plan's post-processing (fft.cl)
#endif
#ifndef FFT_IN_CHECK
#define FFT_IN_CHECK 0  // 1: positions >= in_len load as zero (zero padding)
#endif
#ifndef FFT_OUT_CHECK
#define FFT_OUT_CHECK 0  // 1: positions >= out_len are not stored
#endif
#ifndef FFT_SPLIT
#define FFT_SPLIT 0  // 1: transform index splits into (hi, lo) with L = FFT_SL (a pass)
#endif
#if FFT_SPLIT && !(defined(FFT_SL) && defined(FFT_SNS))
#error "a pass (FFT_SPLIT) needs FFT_SL and FFT_SNS"
#endif
#ifndef FFT_COLS
#define FFT_COLS 0  // 1: a pass whose transform index is hi alone, lo = get_group_id(2) (fft.cl)
#endif
#if FFT_COLS && !FFT_SPLIT
#error "the column form (FFT_COLS) is a form of a pass (FFT_SPLIT)"
#endif
#ifndef FFT_BLUESTEIN
#define FFT_BLUESTEIN 0  // 1: after the passes multiply by bq[pos], conjugate, and run the passes again
#endif
#ifndef FFT_TFAST
#define FFT_TFAST 0  // 1: work-items numbered transform-fastest (lid = tid * FFT_B + tb)
#endif
#ifndef FFT_INPLACE
#define FFT_INPLACE 0  // 1: in and out may be the same buffer (no restrict)
#endif

// ---- derived ----
#if FFT_NPASS == 0
#undef FFT_R0
#define FFT_R0 1
#endif
#define FFT_WGS (FFT_B * FFT_T)
#define FFT_CE (FFT_N / FFT_T)  // elements per work-item in a staged load or store
#define FFT_MAX2(a, b) ((a) > (b) ? (a) : (b))
#define FFT_PRIV (FFT_T == 1)  // exchanges between passes in private memory
#if FFT_HALVE == 2 && (FFT_PRIV || FFT_IN_MODE != 0 || FFT_OUT_MODE != 0 || FFT_BLUESTEIN)
#error "exchanges in quarters (FFT_HALVE 2) need direct loads and stores and no Bluestein convolution"
#endif
#if FFT_HALVE
typedef float fft_ltype;  // one component per slot
#define FFT_PAD_SHIFT 5
#elif FFT_VEC
typedef fft_c fft_ltype;  // a complex value per slot
#define FFT_PAD_SHIFT 4
#else
typedef float fft_ltype;  // a complex value in two floats per slot
#define FFT_PAD_SHIFT 4
#endif
// One padding slot every 16 (float2) or 32 (float) slots breaks the stride-R conflicts of the
// first pass; an odd row stride keeps rows of consecutive transforms on different banks.
#if FFT_HALVE == 2
#define FFT_LROW (FFT_N / 2)  // a row holds half of the positions at a time
#else
#define FFT_LROW FFT_N
#endif
#if FFT_PAD
#define FFT_LPAD(i) ((i) + ((i) >> FFT_PAD_SHIFT))
#define FFT_LSTRIDE (FFT_LPAD(FFT_LROW) + 1)
#else
#define FFT_LPAD(i) (i)
#define FFT_LSTRIDE FFT_LROW
#endif
#define FFT_LOC(b, pos) ((b)*FFT_LSTRIDE + FFT_LPAD(pos))
#define FFT_USES_LOCAL (!FFT_PRIV || FFT_IN_MODE != 0 || FFT_OUT_MODE != 0)
#if FFT_USES_LOCAL && !FFT_HALVE && !FFT_VEC
#define FFT_LSIZE (2 * FFT_B * FFT_LSTRIDE)
#elif FFT_USES_LOCAL
#define FFT_LSIZE (FFT_B * FFT_LSTRIDE)
#else
#define FFT_LSIZE 1
#endif
#if FFT_INPLACE
#define FFT_RESTRICT
#else
#define FFT_RESTRICT restrict
#endif

// Per pass: radix, NS (product of the earlier radices), butterflies M, iterations per work-item.
#define FFT_ITER(R) (((FFT_N / (R)) + FFT_T - 1) / FFT_T)
#define FFT_NS0 1
#if FFT_NPASS > 1
#define FFT_NS1 (FFT_NS0 * FFT_R0)
#endif
#if FFT_NPASS > 2
#define FFT_NS2 (FFT_NS1 * FFT_R1)
#endif
#if FFT_NPASS > 3
#define FFT_NS3 (FFT_NS2 * FFT_R2)
#endif
#if FFT_NPASS > 4
#define FFT_NS4 (FFT_NS3 * FFT_R3)
#endif
#if FFT_NPASS > 5
#define FFT_NS5 (FFT_NS4 * FFT_R4)
#endif
#if FFT_NPASS > 6
#define FFT_NS6 (FFT_NS5 * FFT_R5)
#endif
#if FFT_NPASS > 7
#define FFT_NS7 (FFT_NS6 * FFT_R6)
#endif
#if FFT_NPASS > 8
#define FFT_NS8 (FFT_NS7 * FFT_R7)
#endif
#if FFT_NPASS > 9
#define FFT_NS9 (FFT_NS8 * FFT_R8)
#endif
#if FFT_NPASS > 10
#define FFT_NS10 (FFT_NS9 * FFT_R9)
#endif
#if FFT_NPASS > 11
#define FFT_NS11 (FFT_NS10 * FFT_R10)
#endif
#if FFT_NPASS > 12
#error "at most 12 radix passes in one kernel"
#endif
// Does a pass take its twiddles as powers in double (FFT_TWD), or as float products w^(h*S) * w^l
// (FFT_TWP) (fft_twiddles)? Offsets of the passes' twiddles in the table, in 8-byte slots:
// (R_p - 1) * NS_p each, 2 * NS_p (one double2 per butterfly index) for a pass in double,
// FFT_TWA(R_p) * NS_p (the powers l = 1 ... S - 1, then h * S < R_p) for a pass of products.
#define FFT_TWLARGE(R, NS) (((R)-1) * (NS) > FFT_TWBIG)
#if FFT_TWIDDLE == 2
#define FFT_TWD(R, NS) 1
#elif FFT_TWIDDLE == 3
#define FFT_TWD(R, NS) FFT_TWLARGE(R, NS)
#else
#define FFT_TWD(R, NS) 0
#endif
#if FFT_TWIDDLE == 5
#define FFT_TWP(R, NS) 1
#elif FFT_TWIDDLE == 4
#define FFT_TWP(R, NS) FFT_TWLARGE(R, NS)
#else
#define FFT_TWP(R, NS) 0
#endif
#define FFT_TWSQ(R) ((R) > 16 ? 8 : (R) > 4 ? 4 : 2)
#define FFT_TWA(R) (FFT_TWSQ(R) - 2 + ((R) + FFT_TWSQ(R) - 1) / FFT_TWSQ(R))
#define FFT_TWN(R, NS) (FFT_TWD(R, NS) ? 2 * (NS) : FFT_TWP(R, NS) ? FFT_TWA(R) * (NS) : ((R)-1) * (NS))
#define FFT_TWO0 0
#if FFT_NPASS > 1
#define FFT_TWO1 (FFT_TWO0 + FFT_TWN(FFT_R0, FFT_NS0))
#endif
#if FFT_NPASS > 2
#define FFT_TWO2 (FFT_TWO1 + FFT_TWN(FFT_R1, FFT_NS1))
#endif
#if FFT_NPASS > 3
#define FFT_TWO3 (FFT_TWO2 + FFT_TWN(FFT_R2, FFT_NS2))
#endif
#if FFT_NPASS > 4
#define FFT_TWO4 (FFT_TWO3 + FFT_TWN(FFT_R3, FFT_NS3))
#endif
#if FFT_NPASS > 5
#define FFT_TWO5 (FFT_TWO4 + FFT_TWN(FFT_R4, FFT_NS4))
#endif
#if FFT_NPASS > 6
#define FFT_TWO6 (FFT_TWO5 + FFT_TWN(FFT_R5, FFT_NS5))
#endif
#if FFT_NPASS > 7
#define FFT_TWO7 (FFT_TWO6 + FFT_TWN(FFT_R6, FFT_NS6))
#endif
#if FFT_NPASS > 8
#define FFT_TWO8 (FFT_TWO7 + FFT_TWN(FFT_R7, FFT_NS7))
#endif
#if FFT_NPASS > 9
#define FFT_TWO9 (FFT_TWO8 + FFT_TWN(FFT_R8, FFT_NS8))
#endif
#if FFT_NPASS > 10
#define FFT_TWO10 (FFT_TWO9 + FFT_TWN(FFT_R9, FFT_NS9))
#endif
#if FFT_NPASS > 11
#define FFT_TWO11 (FFT_TWO10 + FFT_TWN(FFT_R10, FFT_NS10))
#endif

// The last pass (natural-order output) and the register count: the largest of FFT_CE and
// iterations x radix over the passes.
#if FFT_NPASS <= 1
#define FFT_RL FFT_R0
#define FFT_NSL FFT_NS0
#elif FFT_NPASS == 2
#define FFT_RL FFT_R1
#define FFT_NSL FFT_NS1
#elif FFT_NPASS == 3
#define FFT_RL FFT_R2
#define FFT_NSL FFT_NS2
#elif FFT_NPASS == 4
#define FFT_RL FFT_R3
#define FFT_NSL FFT_NS3
#elif FFT_NPASS == 5
#define FFT_RL FFT_R4
#define FFT_NSL FFT_NS4
#elif FFT_NPASS == 6
#define FFT_RL FFT_R5
#define FFT_NSL FFT_NS5
#elif FFT_NPASS == 7
#define FFT_RL FFT_R6
#define FFT_NSL FFT_NS6
#elif FFT_NPASS == 8
#define FFT_RL FFT_R7
#define FFT_NSL FFT_NS7
#elif FFT_NPASS == 9
#define FFT_RL FFT_R8
#define FFT_NSL FFT_NS8
#elif FFT_NPASS == 10
#define FFT_RL FFT_R9
#define FFT_NSL FFT_NS9
#elif FFT_NPASS == 11
#define FFT_RL FFT_R10
#define FFT_NSL FFT_NS10
#else
#define FFT_RL FFT_R11
#define FFT_NSL FFT_NS11
#endif

#define FFT_REGS_OF(R) (FFT_ITER(R) * (R))
#define FFT_E0 FFT_MAX2(FFT_CE, FFT_REGS_OF(FFT_R0))
#if FFT_NPASS > 1
#define FFT_E1 FFT_MAX2(FFT_E0, FFT_REGS_OF(FFT_R1))
#else
#define FFT_E1 FFT_E0
#endif
#if FFT_NPASS > 2
#define FFT_E2 FFT_MAX2(FFT_E1, FFT_REGS_OF(FFT_R2))
#else
#define FFT_E2 FFT_E1
#endif
#if FFT_NPASS > 3
#define FFT_E3 FFT_MAX2(FFT_E2, FFT_REGS_OF(FFT_R3))
#else
#define FFT_E3 FFT_E2
#endif
#if FFT_NPASS > 4
#define FFT_E4 FFT_MAX2(FFT_E3, FFT_REGS_OF(FFT_R4))
#else
#define FFT_E4 FFT_E3
#endif
#if FFT_NPASS > 5
#define FFT_E5 FFT_MAX2(FFT_E4, FFT_REGS_OF(FFT_R5))
#else
#define FFT_E5 FFT_E4
#endif
#if FFT_NPASS > 6
#define FFT_E6 FFT_MAX2(FFT_E5, FFT_REGS_OF(FFT_R6))
#else
#define FFT_E6 FFT_E5
#endif
#if FFT_NPASS > 7
#define FFT_E7 FFT_MAX2(FFT_E6, FFT_REGS_OF(FFT_R7))
#else
#define FFT_E7 FFT_E6
#endif
#if FFT_NPASS > 8
#define FFT_E8 FFT_MAX2(FFT_E7, FFT_REGS_OF(FFT_R8))
#else
#define FFT_E8 FFT_E7
#endif
#if FFT_NPASS > 9
#define FFT_E9 FFT_MAX2(FFT_E8, FFT_REGS_OF(FFT_R9))
#else
#define FFT_E9 FFT_E8
#endif
#if FFT_NPASS > 10
#define FFT_E10 FFT_MAX2(FFT_E9, FFT_REGS_OF(FFT_R10))
#else
#define FFT_E10 FFT_E9
#endif
#if FFT_NPASS > 11
#define FFT_E FFT_MAX2(FFT_E10, FFT_REGS_OF(FFT_R11))
#else
#define FFT_E FFT_E10
#endif

#if FFT_N % FFT_T != 0
#error "FFT_T must divide FFT_N"
#endif
#if FFT_PRIV && FFT_N > 64
#error "one work-item per transform holds at most 64 points"
#endif
