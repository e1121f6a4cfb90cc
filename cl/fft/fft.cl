// Batched 1-D complex FFT of length FFT_N, one work-group per FFT_B transforms (single precision,
// interleaved float2). Every kernel of an FFT plan is this one entry point, fft_local, compiled with
// different routine constants: the whole transform of an n <= FFT_LOCAL_MAX plan, one pass of a
// multi-pass plan (n = R_1 * R_2 * ..., each pass a batch of R-point FFTs with a twiddle on load),
// or a whole Bluestein convolution (FFT_BLUESTEIN).
//
// Algorithm: mixed-radix Stockham autosort, radices FFT_R0 .. FFT_R<NPASS-1> from {2,3,4,5,7,8,9,
// 11,13,15,16,25,32}. Pass p has radix R, NS = R_0 * ... * R_(p-1) and M = FFT_N / R butterflies; butterfly j
//   reads   x[j + r*M]                                      r < R
//   applies W_(NS*R)^(r * (j mod NS))                       (per-pass table, or computed)
//   writes  y[(j / NS) * NS * R + (j mod NS) + k * NS]      k < R
// so the last pass leaves natural order. FFT_T work-items share a transform; work-item `tid` owns
// butterflies j = tid + i*FFT_T. Between passes its outputs go to local memory and the next pass's
// inputs come back (one barrier each way). With FFT_T == 1 a work-item holds a whole transform
// and the exchanges stay in private memory (registers).
//
//   work-group: FFT_B transforms x FFT_T work-items,   lid = tb * FFT_T + tid
//               (FFT_TFAST: lid = tid * FFT_B + tb, so that direct accesses of adjacent
//               transforms' elements coalesce: the column side of multi-pass plans)
//   local:      FFT_B rows of FFT_LSTRIDE slots, row tb holds transform tb (padded, see FFT_LOC)
//
// Global memory. Transform t of the launch (t < total) splits into hi = t / L, lo = t % L
// (a pass, FFT_SPLIT: L = FFT_SL, NS = FFT_SNS; else hi = t, lo = 0). Element e of it is read
// from / written to
//   in : in_off  + hi * in_dh  + in_S  * (lo + e * L)
//   out: out_off + hi * out_dh + out_S * ((lo / NS) * NS * FFT_N + lo % NS + e * NS)
// (the bracket is the element's "position"; e itself outside a pass). Loads and stores are
// either direct (a work-item touches the elements of its own butterflies: coalesced when
// elements are contiguous) or staged through local memory so that consecutive work-items touch
// consecutive addresses:
// FFT_IN_MODE / FFT_OUT_MODE 1 walks the group's elements transform by transform, 2 walks them
// element by element across the group's transforms (for batches whose transforms are adjacent).
//
// Direction: the butterflies are forward (exp(-2 pi i nk/N)); the inverse transform is
// conj(F(conj(x))), done by cj_in / cj_out = -1 on load and store. Scaling is applied on store.
//
// Local-memory halving (FFT_HALVE = 1): every exchange moves the real parts through a float buffer,
// then the imaginary parts, so a work-group needs half the local memory (twice as many groups fit
// on a compute unit, or twice the length fits at all) for two extra barriers per exchange. This is
// the split of the classic batched-FFT design: instead of half of the work-items writing while the
// other half waits, every work-item writes half of each value, which works for every radix and
// every pass (odd radices included) and keeps all work-items busy. FFT_HALVE = 2 adds the classic
// split as well: each component moves in two rounds of half the positions (the work-items whose
// butterflies write the first half, then the others; see FFT_QPUT), so a group needs a quarter of
// the local memory (16384 points in 32 KiB) for four rounds per exchange.
//
// Pass P-1 -> P exchange (one work-group, FFT_B = 2 transforms of FFT_N = 16, FFT_T = 4):
//
//   registers x[]        local row tb                   registers x[]
//   tid0: butterflies -> [0 1 2 ... 15 | pad] ----+---> tid0: inputs of its next butterflies
//   tid1:        ...  ->   Stockham positions     |     tid1:   ...  (positions j + r * N/R)
//                         barrier ----------------+
//
// Complex values are fft_c {r, i} (scalar fields), so that compilers which vectorise across
// work-items (PoCL) see scalar code; FFT_VEC selects one 8-byte float2 access per value in global
// memory (GPUs) or two 4-byte accesses (CPUs). FFT_TWIDDLE 0 reads twiddles (those inside the
// kernel and a pass's twiddles on load) from tables computed in double precision on the host
// (rounded once: the error matches clFFT's), 1 computes them with sinpi/cospi after exact
// integer folding, 2 reads one twiddle per butterfly in double and makes the butterfly's others
// as its powers in double, each rounded once (the same error as 0 with a table (R - 1) times
// smaller and one load per butterfly instead of R - 1; needs cl_khr_fp64: the configuration
// asks for it, and resolving it for a device without falls back to 0), 3 does so only in the
// passes whose table would exceed FFT_TWBIG entries (the last passes of long kernels, whose
// tables compete with the data for the cache) and reads the small tables of the others,
// and 4 reads in those passes only the powers w^l and w^(h*S) of w = W_(NS*R)^jj (l, h < S, S
// about sqrt(R)) from the table and makes each other power as one float product w^(h*S) * w^l
// (about 2 sqrt(R) entries per butterfly index instead of R - 1, no conversions from double, no
// double precision), and 5 does so in every pass.

// ---- tuning parameters ----
#ifndef FFT_RADIX
#define FFT_RADIX 8          // largest power-of-two radix of a pass (2, 4, 8, 16, 32); read by the launcher
#endif
#ifndef FFT_WG
#define FFT_WG 256           // work-items per work-group the launcher aims for (16 ... 1024)
#endif
#ifndef FFT_REG
#define FFT_REG 16           // lengths up to this run one transform per work-item in registers (1 ... 64)
#endif
#ifndef FFT_LOCAL_MAX
#define FFT_LOCAL_MAX 4096   // longest length done in one kernel (256 ... 32768); launcher only
#endif
#ifndef FFT_HALVE
#define FFT_HALVE 0          // 1: exchanges move real, then imaginary parts through half the local memory;
                             // 2: and each in two halves of the positions (a quarter of the memory)
#endif
#ifndef FFT_TWIDDLE
#define FFT_TWIDDLE 0        // 0: twiddles from a table computed in double on the host; 1: sinpi/cospi;
                             // 2: one per butterfly from a double table, the others its powers in double;
                             // 3: 2 for the passes whose table has more than FFT_TWBIG entries, else 0;
                             // 4: those passes' twiddles as float products w^(h*S) * w^l from the table, else 0;
                             // 5: 4 in every pass
#endif
#ifndef FFT_TWBIG
#define FFT_TWBIG 2048       // set by the launcher (kFftTwiddleBig)
#endif
#if FFT_TWIDDLE == 2 || FFT_TWIDDLE == 3
#define FFT_DOUBLE_TW 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#define FFT_DOUBLE_TW 0
#endif
#ifndef FFT_DCHAIN
#define FFT_DCHAIN 1         // double twiddle powers (FFT_TWIDDLE 2, 3): 1 chain of w steps, 2 chains of w^2 steps
#endif
#ifndef FFT_PAD
#define FFT_PAD 1            // 1: pad local rows against bank conflicts
#endif
#ifndef FFT_VEC
#define FFT_VEC 1            // 1: global loads and stores as float2 (one 8-byte access); 0: as two floats
#endif
#ifndef FFT_STAGE
#define FFT_STAGE 0          // 0: stage global accesses through local memory where that coalesces them,
                             // 1: always, 2: never; read by the launcher
#endif

// ---- routine constants (set together by the launcher; these defaults make a 64-point kernel) ----
#ifndef FFT_N
#define FFT_N 64             // transform length of this kernel
#define FFT_NPASS 2          // number of radix passes
#define FFT_R0 8             // radix of pass 0, 1, ...
#define FFT_R1 8
#define FFT_T 8              // work-items per transform
#define FFT_B 4              // transforms per work-group
#endif
#ifndef FFT_IN_MODE
#define FFT_IN_MODE 0        // 0: direct, 1: staged transform by transform, 2: staged across transforms
#endif
#ifndef FFT_OUT_MODE
#define FFT_OUT_MODE 0
#endif
#ifndef FFT_PRE
#define FFT_PRE 0            // on load: 0 none, 1 pass twiddle from the two-level table, 2 times aux_in[pos],
                             // 3 pass twiddle split per butterfly (direct loads, see the load)
#endif
#ifndef FFT_POST
#define FFT_POST 0           // on store: 0 none, 1 times aux_out[pos]
#endif
#ifndef FFT_IN_CHECK
#define FFT_IN_CHECK 0       // 1: positions >= in_len load as zero (zero padding)
#endif
#ifndef FFT_OUT_CHECK
#define FFT_OUT_CHECK 0      // 1: positions >= out_len are not stored
#endif
#ifndef FFT_SPLIT
#define FFT_SPLIT 0          // 1: transform index splits into (hi, lo) with L = FFT_SL (a pass)
#endif
#if FFT_SPLIT && !(defined(FFT_SL) && defined(FFT_SNS))
#error "a pass (FFT_SPLIT) needs FFT_SL and FFT_SNS"
#endif
#ifndef FFT_BLUESTEIN
#define FFT_BLUESTEIN 0      // 1: after the passes multiply by bq[pos], conjugate, and run the passes again
#endif
#ifndef FFT_TFAST
#define FFT_TFAST 0          // 1: work-items numbered transform-fastest (lid = tid * FFT_B + tb)
#endif
#ifndef FFT_INPLACE
#define FFT_INPLACE 0        // 1: in and out may be the same buffer (no restrict)
#endif

// ---- derived ----
#if FFT_NPASS == 0
#undef FFT_R0
#define FFT_R0 1
#endif
#define FFT_WGS (FFT_B * FFT_T)
#define FFT_CE (FFT_N / FFT_T)  // elements per work-item in a staged load or store
#define FFT_MAX2(a, b) ((a) > (b) ? (a) : (b))
#define FFT_PRIV (FFT_T == 1)   // exchanges between passes in private memory
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
#define FFT_LOC(b, pos) ((b) * FFT_LSTRIDE + FFT_LPAD(pos))
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
#define FFT_TWLARGE(R, NS) (((R) - 1) * (NS) > FFT_TWBIG)
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
#define FFT_TWN(R, NS) \
  (FFT_TWD(R, NS) ? 2 * (NS) : FFT_TWP(R, NS) ? FFT_TWA(R) * (NS) : ((R) - 1) * (NS))
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

// Small helpers are functions (no loops inside). Everything that loops over registers is a macro
// expanded in the kernel body with literal bounds, so that every compiler unrolls it fully and the
// private arrays stay in registers (a loop bound that is a function parameter is only a constant
// after inlining, and some compilers unroll before they inline).
#define FFT_INLINE static inline __attribute__((always_inline))
#define FFT_UNROLL _Pragma("unroll")

// ---- work-item indices ----
// The kernel's two forms. GPUs (FFT_VEC 1): int indices. CPUs (FFT_VEC 0), where the compiler runs
// a group's work-items as a loop between barriers and vectorises across them (PoCL): unsigned
// indices (64-bit ones, size_t, would halve the vector width), and the work-item's indices are
// macros that read the local id where they are used, not variables set once: a variable set
// before a barrier and used after it is kept per work-item in memory, and the accesses it indexes
// become gathers and scatters instead of contiguous vectors.
#if FFT_VEC
typedef int fft_wi;
#define FFT_LID ((int)get_local_id(0))
#elif defined(CLF_LONG_INDEX) && CLF_LONG_INDEX
typedef size_t fft_wi;  // global indices past 2^32
#define FFT_LID get_local_id(0)
#else
typedef uint fft_wi;
#define FFT_LID ((uint)get_local_id(0))
#endif
#if FFT_B == 1
#define FFT_TB 0            // transform within the group
#define FFT_TID FFT_LID     // work-item within the transform
#elif FFT_TFAST
#define FFT_TB (FFT_LID % FFT_B)  // consecutive work-items: consecutive transforms
#define FFT_TID (FFT_LID / FFT_B)
#else
#define FFT_TB (FFT_LID / FFT_T)
#define FFT_TID (FFT_LID % FFT_T)
#endif
// Butterfly j's index within its group of NS (j mod NS): j itself where the pass has no more
// butterflies than NS (the last pass of every transform).
#define FFT_JJ(R, NS, j) ((FFT_N / (R)) <= (NS) ? (j) : (j) % (NS))

// ---- complex helpers ----
FFT_INLINE fft_c fft_make(const float r, const float i) {
  fft_c c;
  c.r = r;
  c.i = i;
  return c;
}

// A complex value read from a global table or buffer: one 8-byte access, or two floats (CPU
// compilers vectorise across work-items only over scalar types).
#if FFT_VEC
#define FFT_CLOAD(p, a) ((p)[a])
#else
#define FFT_CLOAD(p, a) fft_make(((__global const float*)(p))[2 * (a)], ((__global const float*)(p))[2 * (a) + 1])
#endif

FFT_INLINE fft_c fft_mul(const fft_c a, const fft_c b) {
  return fft_make(a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r);
}

// exp(-2 pi i k / n), 0 <= k < n (n a constant at every call), by sinpi/cospi of 2k/n after
// folding k into [0, n/4] (or [0, n/2]) with exact integer symmetries: the argument stays small
// and its rounding costs little, with no 2*pi rounding.
FFT_INLINE fft_c fft_root(int k, const int n) {
  float sy = -1.0f;  // W = (cos, -sin)
  if (2 * k > n) {
    k = n - k;
    sy = 1.0f;
  }
  float cs = 1.0f;
  if (n % 4 == 0 && 4 * k > n) {
    k = n / 2 - k;
    cs = -1.0f;
  }
  const float a = (float)(2 * k) / (float)n;
  return fft_make(cs * cospi(a), sy * sinpi(a));
}

// Twiddle r of butterfly jj (= j mod NS) in a pass of radix R: W_(NS*R)^(r * jj), 1 <= r < R.
// The table (FFT_TWIDDLE 0, computed in double on the host and rounded once) holds every pass's
// twiddles in pass order, each pass r-major: entry off + (r - 1) * NS + jj, so that the
// consecutive butterflies of a warp read consecutive entries (one or two cache lines per load;
// indexed as W_N^(r * jj * N / (NS * R)) in one length-N table, the same load touched up to 16).
FFT_INLINE fft_c fft_twiddle(__global const fft_c* restrict twl, const int off, const int r, const fft_wi jj,
                             const int NS, const int R) {
#if FFT_TWIDDLE != 1
  return FFT_CLOAD(twl, off + (r - 1) * NS + jj);
#else
  return fft_root(r * (int)jj, NS * R);
#endif
}

#if FFT_TWIDDLE >= 4
// Straight-line steps of the float products (S = FFT_TWSQ(R) and R are constants at every call):
// w^l, l < S, and w^h, h a multiple of S below R, from the table; w^r = w^(r - r mod S) * w^(r mod S).
#define FFT_TWLO(l) \
  if (S > (l)) p_[l] = FFT_CLOAD(twl, off + ((l) - 1) * (NS) + jj);
#define FFT_TWHI(h) \
  if ((h) % S == 0 && R > (h)) p_[h] = FFT_CLOAD(twl, off + (S - 2 + (h) / S) * (NS) + jj);
#define FFT_TWPR(r) \
  if (R > (r) && (r) > S && (r) % S != 0) p_[r] = fft_mul(p_[(r) - (r) % S], p_[(r) % S]);
#endif

#if FFT_DOUBLE_TW
FFT_INLINE double2 fft_dmul(const double2 a, const double2 b) {
  return (double2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
// acc = acc * step in double, then v[r] *= acc rounded to float (one chain: step w, acc the
// powers; two chains: step w^2, acc the odd or the even powers).
#define FFT_DPOW(r, acc, step)                                       \
  if (R > (r)) {                                                     \
    acc = fft_dmul(acc, step);                                       \
    v[r] = fft_mul(v[r], fft_make((float)(acc).x, (float)(acc).y));  \
  }
#endif

// v[r] *= W_(NS*R)^(r * jj), 1 <= r < R (straight-line; R and NS are constants at every call).
FFT_INLINE void fft_twiddles(const int R, const int NS, fft_c* v, __global const fft_c* restrict twl, const int off,
                             const fft_wi jj) {
#if FFT_TWIDDLE >= 4
  if (FFT_TWP(R, NS)) {
    // w^l (l = 1 ... S - 1) at off + (l - 1) * NS + jj, then w^(h*S) at off + (S - 2 + h) * NS + jj
    // (each rounded once on the host); w^(h*S + l) as their product (indices known at compile
    // time: registers).
    const int S = FFT_TWSQ(R);
    fft_c p_[32];
    FFT_TWLO(1) FFT_TWLO(2) FFT_TWLO(3) FFT_TWLO(4) FFT_TWLO(5) FFT_TWLO(6) FFT_TWLO(7)
    FFT_TWHI(2) FFT_TWHI(4) FFT_TWHI(6) FFT_TWHI(8) FFT_TWHI(10) FFT_TWHI(12) FFT_TWHI(14) FFT_TWHI(16)
    FFT_TWHI(18) FFT_TWHI(20) FFT_TWHI(22) FFT_TWHI(24) FFT_TWHI(26) FFT_TWHI(28) FFT_TWHI(30)
    FFT_TWPR(3) FFT_TWPR(5) FFT_TWPR(6) FFT_TWPR(7) FFT_TWPR(9) FFT_TWPR(10) FFT_TWPR(11) FFT_TWPR(12) FFT_TWPR(13)
    FFT_TWPR(14) FFT_TWPR(15) FFT_TWPR(17) FFT_TWPR(18) FFT_TWPR(19) FFT_TWPR(20) FFT_TWPR(21) FFT_TWPR(22)
    FFT_TWPR(23) FFT_TWPR(25) FFT_TWPR(26) FFT_TWPR(27) FFT_TWPR(28) FFT_TWPR(29) FFT_TWPR(30) FFT_TWPR(31)
    FFT_UNROLL for (int r_ = 1; r_ < R; ++r_) v[r_] = fft_mul(v[r_], p_[r_]);
    return;
  }
#endif
#if FFT_DOUBLE_TW
  if (FFT_TWD(R, NS)) {
    // W_(NS*R)^jj in double at slots off + 2 jj; W^r = W^(r-1) * W in double (relative error
    // about r double roundings, far below one float rounding), then rounded once.
    const __global double* t_ = (const __global double*)(twl + off) + 2 * jj;
    const double2 w1 = (double2)(t_[0], t_[1]);
    double2 w = w1;
    v[1] = fft_mul(v[1], fft_make((float)w1.x, (float)w1.y));
#if FFT_DCHAIN == 2
    // Two chains of w^2 steps (odd and even powers): half the dependent products, more registers.
    if (R > 2) {
      const double2 w2 = fft_dmul(w1, w1);
      double2 we = w2;
      v[2] = fft_mul(v[2], fft_make((float)w2.x, (float)w2.y));
      FFT_DPOW(3, w, w2) FFT_DPOW(4, we, w2) FFT_DPOW(5, w, w2) FFT_DPOW(6, we, w2) FFT_DPOW(7, w, w2)
      FFT_DPOW(8, we, w2) FFT_DPOW(9, w, w2) FFT_DPOW(10, we, w2) FFT_DPOW(11, w, w2) FFT_DPOW(12, we, w2)
      FFT_DPOW(13, w, w2) FFT_DPOW(14, we, w2) FFT_DPOW(15, w, w2) FFT_DPOW(16, we, w2) FFT_DPOW(17, w, w2)
      FFT_DPOW(18, we, w2) FFT_DPOW(19, w, w2) FFT_DPOW(20, we, w2) FFT_DPOW(21, w, w2) FFT_DPOW(22, we, w2)
      FFT_DPOW(23, w, w2) FFT_DPOW(24, we, w2) FFT_DPOW(25, w, w2) FFT_DPOW(26, we, w2) FFT_DPOW(27, w, w2)
      FFT_DPOW(28, we, w2) FFT_DPOW(29, w, w2) FFT_DPOW(30, we, w2) FFT_DPOW(31, w, w2)
    }
#else
    FFT_DPOW(2, w, w1) FFT_DPOW(3, w, w1) FFT_DPOW(4, w, w1) FFT_DPOW(5, w, w1) FFT_DPOW(6, w, w1)
    FFT_DPOW(7, w, w1) FFT_DPOW(8, w, w1) FFT_DPOW(9, w, w1) FFT_DPOW(10, w, w1) FFT_DPOW(11, w, w1)
    FFT_DPOW(12, w, w1) FFT_DPOW(13, w, w1) FFT_DPOW(14, w, w1) FFT_DPOW(15, w, w1) FFT_DPOW(16, w, w1)
    FFT_DPOW(17, w, w1) FFT_DPOW(18, w, w1) FFT_DPOW(19, w, w1) FFT_DPOW(20, w, w1) FFT_DPOW(21, w, w1)
    FFT_DPOW(22, w, w1) FFT_DPOW(23, w, w1) FFT_DPOW(24, w, w1) FFT_DPOW(25, w, w1) FFT_DPOW(26, w, w1)
    FFT_DPOW(27, w, w1) FFT_DPOW(28, w, w1) FFT_DPOW(29, w, w1) FFT_DPOW(30, w, w1) FFT_DPOW(31, w, w1)
#endif
    return;
  }
#endif
  {
  if (R > 1) v[1] = fft_mul(v[1], fft_twiddle(twl, off, 1, jj, NS, R));
  if (R > 2) v[2] = fft_mul(v[2], fft_twiddle(twl, off, 2, jj, NS, R));
  if (R > 3) v[3] = fft_mul(v[3], fft_twiddle(twl, off, 3, jj, NS, R));
  if (R > 4) v[4] = fft_mul(v[4], fft_twiddle(twl, off, 4, jj, NS, R));
  if (R > 5) v[5] = fft_mul(v[5], fft_twiddle(twl, off, 5, jj, NS, R));
  if (R > 6) v[6] = fft_mul(v[6], fft_twiddle(twl, off, 6, jj, NS, R));
  if (R > 7) v[7] = fft_mul(v[7], fft_twiddle(twl, off, 7, jj, NS, R));
  if (R > 8) v[8] = fft_mul(v[8], fft_twiddle(twl, off, 8, jj, NS, R));
  if (R > 9) v[9] = fft_mul(v[9], fft_twiddle(twl, off, 9, jj, NS, R));
  if (R > 10) v[10] = fft_mul(v[10], fft_twiddle(twl, off, 10, jj, NS, R));
  if (R > 11) v[11] = fft_mul(v[11], fft_twiddle(twl, off, 11, jj, NS, R));
  if (R > 12) v[12] = fft_mul(v[12], fft_twiddle(twl, off, 12, jj, NS, R));
  if (R > 13) v[13] = fft_mul(v[13], fft_twiddle(twl, off, 13, jj, NS, R));
  if (R > 14) v[14] = fft_mul(v[14], fft_twiddle(twl, off, 14, jj, NS, R));
  if (R > 15) v[15] = fft_mul(v[15], fft_twiddle(twl, off, 15, jj, NS, R));
  if (R > 16) v[16] = fft_mul(v[16], fft_twiddle(twl, off, 16, jj, NS, R));
  if (R > 17) v[17] = fft_mul(v[17], fft_twiddle(twl, off, 17, jj, NS, R));
  if (R > 18) v[18] = fft_mul(v[18], fft_twiddle(twl, off, 18, jj, NS, R));
  if (R > 19) v[19] = fft_mul(v[19], fft_twiddle(twl, off, 19, jj, NS, R));
  if (R > 20) v[20] = fft_mul(v[20], fft_twiddle(twl, off, 20, jj, NS, R));
  if (R > 21) v[21] = fft_mul(v[21], fft_twiddle(twl, off, 21, jj, NS, R));
  if (R > 22) v[22] = fft_mul(v[22], fft_twiddle(twl, off, 22, jj, NS, R));
  if (R > 23) v[23] = fft_mul(v[23], fft_twiddle(twl, off, 23, jj, NS, R));
  if (R > 24) v[24] = fft_mul(v[24], fft_twiddle(twl, off, 24, jj, NS, R));
  if (R > 25) v[25] = fft_mul(v[25], fft_twiddle(twl, off, 25, jj, NS, R));
  if (R > 26) v[26] = fft_mul(v[26], fft_twiddle(twl, off, 26, jj, NS, R));
  if (R > 27) v[27] = fft_mul(v[27], fft_twiddle(twl, off, 27, jj, NS, R));
  if (R > 28) v[28] = fft_mul(v[28], fft_twiddle(twl, off, 28, jj, NS, R));
  if (R > 29) v[29] = fft_mul(v[29], fft_twiddle(twl, off, 29, jj, NS, R));
  if (R > 30) v[30] = fft_mul(v[30], fft_twiddle(twl, off, 30, jj, NS, R));
  if (R > 31) v[31] = fft_mul(v[31], fft_twiddle(twl, off, 31, jj, NS, R));
  }
}

FFT_INLINE void fft_butterfly(const int r, fft_c* v) {
  switch (r) {
    case 2: fft_bf2(v); break;
    case 3: fft_bf3(v); break;
    case 4: fft_bf4(v); break;
    case 5: fft_bf5(v); break;
    case 7: fft_bf7(v); break;
    case 8: fft_bf8(v); break;
    case 9: fft_bf9(v); break;
    case 11: fft_bf11(v); break;
    case 13: fft_bf13(v); break;
    case 15: fft_bf15(v); break;
    case 16: fft_bf16(v); break;
    case 25: fft_bf25(v); break;
    case 32: fft_bf32(v); break;
    default: break;
  }
}

// Butterfly i of this work-item in a pass of radix R: j = tid + i * FFT_T; the last iteration is
// partial when FFT_T does not divide the FFT_N / R butterflies.
#define FFT_HAS_J(R, j) ((FFT_N / (R)) % FFT_T == 0 || (j) < FFT_N / (R))

// One radix-R pass on the work-item's butterflies: twiddle, then butterfly, in registers.
#define FFT_PASS(R, NS, TWO)                                                                  \
  do {                                                                                        \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) {                                     \
      const fft_wi j_ = FFT_TID + i_ * FFT_T;                                                 \
      if (FFT_HAS_J(R, j_)) {                                                                 \
        if ((NS) > 1) fft_twiddles(R, NS, x + i_ * (R), twl, TWO, FFT_JJ(R, NS, j_));              \
        fft_butterfly(R, x + i_ * (R));                                                       \
      }                                                                                       \
    }                                                                                         \
  } while (0)

// ---- exchanges through local memory (h: 0 real parts, 1 imaginary parts when halving) ----
#if FFT_HALVE
#define FFT_LPUT(buf, idx, val, h) ((buf)[idx] = (h) ? (val).i : (val).r)
#define FFT_LGET(buf, idx, dst, h) \
  do {                             \
    if (h) (dst).i = (buf)[idx];   \
    else (dst).r = (buf)[idx];     \
  } while (0)
#elif FFT_VEC
#define FFT_LPUT(buf, idx, val, h) ((buf)[idx] = (val))
#define FFT_LGET(buf, idx, dst, h) ((dst) = (buf)[idx])
#else
#define FFT_LPUT(buf, idx, val, h) ((buf)[2 * (idx)] = (val).r, (buf)[2 * (idx) + 1] = (val).i)
#define FFT_LGET(buf, idx, dst, h) ((dst).r = (buf)[2 * (idx)], (dst).i = (buf)[2 * (idx) + 1])
#endif

// Exchanges in quarters (FFT_HALVE 2): each component moves in two rounds, positions [0, N/2)
// then [N/2, N) (q = 0, 1), through a row of N/2 slots. Which values belong to a round is known
// without looking at positions when the radices after the first are even (the launcher checks):
// the outputs of butterfly j of a pass (radix R, NS * R <= N/2) lie in [0, N/2) exactly when
// j < N/(2R), and the inputs j + r * N/R of the next pass exactly when r < R/2. So the round
// selects whole butterflies (a work-item's butterflies i, or its first or second half of
// work-items) and whole register indices, with no per-value test.
#if FFT_HALVE == 2
#define FFT_QPUT(R, j, q) ((((j) < FFT_N / (2 * (R))) ? 0 : 1) == (q))
#define FFT_QGET(R, r, q) ((((r) < (R) / 2) ? 0 : 1) == (q))
#define FFT_QOFF(q) ((q) * (FFT_N / 2))
#else
#define FFT_QPUT(R, j, q) 1
#define FFT_QGET(R, r, q) 1
#define FFT_QOFF(q) 0
#endif

// Outputs of a pass with radix R and NS into their Stockham positions (round q).
#define FFT_PUT_OUT(R, NS, h, q)                                                       \
  do {                                                                                 \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) {                              \
      const fft_wi j_ = FFT_TID + i_ * FFT_T;                                          \
      if (FFT_HAS_J(R, j_) && FFT_QPUT(R, j_, q)) {                                    \
        const int base_ = (j_ / (NS)) * (NS) * (R) + (j_ % (NS)) - FFT_QOFF(q);        \
        FFT_UNROLL for (int k_ = 0; k_ < (R); ++k_)                                    \
          FFT_LPUT(buf, FFT_LOC(FFT_TB, base_ + k_ * (NS)), x[i_ * (R) + k_], h);          \
      }                                                                                \
    }                                                                                  \
  } while (0)

// Inputs of a pass with radix R from positions j + r * (FFT_N / R) into D (round q).
#define FFT_GET_INTO(D, R, h, q)                                                       \
  do {                                                                                 \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) {                              \
      const fft_wi j_ = FFT_TID + i_ * FFT_T;                                          \
      if (FFT_HAS_J(R, j_)) {                                                          \
        FFT_UNROLL for (int r_ = 0; r_ < (R); ++r_)                                    \
          if (FFT_QGET(R, r_, q))                                                      \
            FFT_LGET(buf, FFT_LOC(FFT_TB, j_ + r_ * (FFT_N / (R)) - FFT_QOFF(q)), D[i_ * (R) + r_], h); \
      }                                                                                \
    }                                                                                  \
  } while (0)
#define FFT_GET_IN(R, h, q) FFT_GET_INTO(x, R, h, q)

// In quarters the first round's reads would overwrite registers whose values the second round
// still writes out, so the reads go to y_ and move to x afterwards (indices known at compile
// time: register renaming; at most FFT_E values are live, half of each array, when every
// work-item writes half of its butterflies in each round).
#define FFT_TAKE_Y(R)                                                                  \
  do {                                                                                 \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_)                                \
      if (FFT_HAS_J(R, FFT_TID + i_ * FFT_T)) {                                            \
        FFT_UNROLL for (int r_ = 0; r_ < (R); ++r_) x[i_ * (R) + r_] = y_[i_ * (R) + r_]; \
      }                                                                                \
  } while (0)

// The same exchange inside one work-item (FFT_T == 1): a private array with indices known at
// compile time, so it is register renaming.
#define FFT_PRIV_EXCHANGE(RA, NSA, RB)                                                   \
  do {                                                                                   \
    fft_c ex_[FFT_N];                                                                    \
    FFT_UNROLL for (int j_ = 0; j_ < FFT_N / (RA); ++j_) {                               \
      FFT_UNROLL for (int k_ = 0; k_ < (RA); ++k_)                                       \
        ex_[(j_ / (NSA)) * (NSA) * (RA) + (j_ % (NSA)) + k_ * (NSA)] = x[j_ * (RA) + k_]; \
    }                                                                                    \
    FFT_UNROLL for (int j_ = 0; j_ < FFT_N / (RB); ++j_) {                               \
      FFT_UNROLL for (int r_ = 0; r_ < (RB); ++r_)                                       \
        x[j_ * (RB) + r_] = ex_[j_ + r_ * (FFT_N / (RB))];                               \
    }                                                                                    \
  } while (0)

// Staged element c of this work-item: transform b of the group and element e.
#define FFT_COOP_B(mode, lid, c) ((mode) == 1 ? ((lid) + (c) * FFT_WGS) / FFT_N : (lid) % FFT_B)
#define FFT_COOP_E(mode, lid, c) ((mode) == 1 ? ((lid) + (c) * FFT_WGS) % FFT_N : (lid) / FFT_B + (c) * FFT_T)

#define FFT_PUT_COOP(mode, h)                                                                      \
  do {                                                                                             \
    FFT_UNROLL for (int c_ = 0; c_ < FFT_CE; ++c_)                                                 \
      FFT_LPUT(buf, FFT_LOC(FFT_COOP_B(mode, FFT_LID, c_), FFT_COOP_E(mode, FFT_LID, c_)), x[c_], h);      \
  } while (0)

#define FFT_GET_COOP(mode, h)                                                                      \
  do {                                                                                             \
    FFT_UNROLL for (int c_ = 0; c_ < FFT_CE; ++c_)                                                 \
      FFT_LGET(buf, FFT_LOC(FFT_COOP_B(mode, FFT_LID, c_), FFT_COOP_E(mode, FFT_LID, c_)), x[c_], h);      \
  } while (0)

// ---- exchange sequences ----
// FFT_XCHG_N: write, barrier, read (twice, real then imaginary parts, when halving).
// FFT_XCHG_Y: the same after a barrier, because reads of an earlier exchange may be pending.
#if FFT_HALVE
#define FFT_XCHG_N(PUT0, GET0, PUT1, GET1) \
  do {                                     \
    PUT0;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    GET0;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    PUT1;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    GET1;                                  \
  } while (0)
#else
#define FFT_XCHG_N(PUT0, GET0, PUT1, GET1) \
  do {                                     \
    PUT0;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    GET0;                                  \
  } while (0)
#endif
#define FFT_XCHG_Y(PUT0, GET0, PUT1, GET1)     \
  do {                                         \
    barrier(CLK_LOCAL_MEM_FENCE);              \
    FFT_XCHG_N(PUT0, GET0, PUT1, GET1);        \
  } while (0)

// From the outputs of a pass (radix RA, NSA) to the inputs of the next (radix RB).
#if FFT_PRIV
#define FFT_XP(LEAD, RA, NSA, RB) FFT_PRIV_EXCHANGE(RA, NSA, RB)
#elif FFT_HALVE == 2
#define FFT_XP(LEAD, RA, NSA, RB)                                                                     \
  do {                                                                                                \
    fft_c y_[FFT_E];                                                                                  \
    FFT_XCHG_##LEAD(FFT_PUT_OUT(RA, NSA, 0, 0), FFT_GET_INTO(y_, RB, 0, 0), FFT_PUT_OUT(RA, NSA, 1, 0), \
                    FFT_GET_INTO(y_, RB, 1, 0));                                                      \
    FFT_XCHG_Y(FFT_PUT_OUT(RA, NSA, 0, 1), FFT_GET_INTO(y_, RB, 0, 1), FFT_PUT_OUT(RA, NSA, 1, 1),   \
               FFT_GET_INTO(y_, RB, 1, 1));                                                           \
    FFT_TAKE_Y(RB);                                                                                   \
  } while (0)
#else
#define FFT_XP(LEAD, RA, NSA, RB)                                                                 \
  FFT_XCHG_##LEAD(FFT_PUT_OUT(RA, NSA, 0, 0), FFT_GET_IN(RB, 0, 0), FFT_PUT_OUT(RA, NSA, 1, 0), FFT_GET_IN(RB, 1, 0))
#endif

#if FFT_NPASS > 1
#define FFT_STEP1(LEAD) FFT_XP(LEAD, FFT_R0, FFT_NS0, FFT_R1); FFT_PASS(FFT_R1, FFT_NS1, FFT_TWO1);
#else
#define FFT_STEP1(LEAD)
#endif
#if FFT_NPASS > 2
#define FFT_STEP2 FFT_XP(Y, FFT_R1, FFT_NS1, FFT_R2); FFT_PASS(FFT_R2, FFT_NS2, FFT_TWO2);
#else
#define FFT_STEP2
#endif
#if FFT_NPASS > 3
#define FFT_STEP3 FFT_XP(Y, FFT_R2, FFT_NS2, FFT_R3); FFT_PASS(FFT_R3, FFT_NS3, FFT_TWO3);
#else
#define FFT_STEP3
#endif
#if FFT_NPASS > 4
#define FFT_STEP4 FFT_XP(Y, FFT_R3, FFT_NS3, FFT_R4); FFT_PASS(FFT_R4, FFT_NS4, FFT_TWO4);
#else
#define FFT_STEP4
#endif
#if FFT_NPASS > 5
#define FFT_STEP5 FFT_XP(Y, FFT_R4, FFT_NS4, FFT_R5); FFT_PASS(FFT_R5, FFT_NS5, FFT_TWO5);
#else
#define FFT_STEP5
#endif
#if FFT_NPASS > 6
#define FFT_STEP6 FFT_XP(Y, FFT_R5, FFT_NS5, FFT_R6); FFT_PASS(FFT_R6, FFT_NS6, FFT_TWO6);
#else
#define FFT_STEP6
#endif
#if FFT_NPASS > 7
#define FFT_STEP7 FFT_XP(Y, FFT_R6, FFT_NS6, FFT_R7); FFT_PASS(FFT_R7, FFT_NS7, FFT_TWO7);
#else
#define FFT_STEP7
#endif
#if FFT_NPASS > 8
#define FFT_STEP8 FFT_XP(Y, FFT_R7, FFT_NS7, FFT_R8); FFT_PASS(FFT_R8, FFT_NS8, FFT_TWO8);
#else
#define FFT_STEP8
#endif
#if FFT_NPASS > 9
#define FFT_STEP9 FFT_XP(Y, FFT_R8, FFT_NS8, FFT_R9); FFT_PASS(FFT_R9, FFT_NS9, FFT_TWO9);
#else
#define FFT_STEP9
#endif
#if FFT_NPASS > 10
#define FFT_STEP10 FFT_XP(Y, FFT_R9, FFT_NS9, FFT_R10); FFT_PASS(FFT_R10, FFT_NS10, FFT_TWO10);
#else
#define FFT_STEP10
#endif
#if FFT_NPASS > 11
#define FFT_STEP11 FFT_XP(Y, FFT_R10, FFT_NS10, FFT_R11); FFT_PASS(FFT_R11, FFT_NS11, FFT_TWO11);
#else
#define FFT_STEP11
#endif
#if FFT_NPASS > 0
#define FFT_RUN_PASSES(LEAD)                      \
  FFT_PASS(FFT_R0, FFT_NS0, FFT_TWO0);         \
  FFT_STEP1(LEAD) FFT_STEP2 FFT_STEP3 FFT_STEP4 FFT_STEP5 FFT_STEP6 FFT_STEP7 FFT_STEP8 FFT_STEP9 \
  FFT_STEP10 FFT_STEP11
#else
#define FFT_RUN_PASSES(LEAD)
#endif
#if FFT_IN_MODE != 0
#define FFT_FIRST_LEAD Y
#else
#define FFT_FIRST_LEAD N
#endif

// ---- global memory ----
#if FFT_VEC
#define FFT_GLOAD(p, a) fft_from2(((__global const float2*)(p))[a])
#define FFT_GSTORE(p, a, v) (((__global float2*)(p))[a] = fft_to2(v))
FFT_INLINE fft_c fft_from2(const float2 v) { return fft_make(v.x, v.y); }
FFT_INLINE float2 fft_to2(const fft_c v) { return (float2)(v.r, v.i); }
#else
#define FFT_GLOAD(p, a) FFT_CLOAD(p, a)
#define FFT_GSTORE(p, a, v)                                   \
  do {                                                        \
    const fft_c s_ = (v);                                     \
    ((__global float*)(p))[2 * (a)] = s_.r;                   \
    ((__global float*)(p))[2 * (a) + 1] = s_.i;               \
  } while (0)
#endif

// A pass of a multi-pass plan (FFT_SPLIT) has its index arithmetic in routine constants: L =
// FFT_SL kernel transforms per user transform, NS = FFT_SNS, radix FFT_N, so that the divisions
// by L and NS (per element in a staged access) become shifts or multiplications.
#if FFT_SPLIT
#define FFT_HI(t) ((t) / FFT_SL)
#define FFT_LO(t) ((t) % FFT_SL)
#define FFT_IN_POS(lo, e) ((lo) + (e) * FFT_SL)
#define FFT_OUT_POS(lo, e) (((lo) / FFT_SNS) * (FFT_SNS * FFT_N) + (lo) % FFT_SNS + (e) * FFT_SNS)
// Pass twiddle exponent of element e of transform lo: W_Ntot^(e * (lo mod NS) * L / NS).
#define FFT_TW_M(lo, e) ((e) * ((lo) % FFT_SNS) * (FFT_SL / FFT_SNS))
#else
#define FFT_HI(t) (t)
#define FFT_LO(t) 0
#define FFT_IN_POS(lo, e) (e)
#define FFT_OUT_POS(lo, e) (e)
#endif
#if (FFT_PRE == 1 || FFT_PRE == 3) && !FFT_SPLIT
#error "pass twiddles belong to a pass (FFT_SPLIT)"
#endif

// W_Ntot^m from the two-level table: hi[m >> shift] * lo[m & (2^shift - 1)].
#define FFT_TW2(m) fft_mul(FFT_CLOAD(tw_hi, (m) >> tw_shift), FFT_CLOAD(tw_lo, (m) & ((1 << tw_shift) - 1)))

#if FFT_PRE == 1 && FFT_TWIDDLE != 1
#define FFT_PRE_OP(v, lo, e, pos) v = fft_mul(v, FFT_TW2(FFT_TW_M(lo, e)))
#elif FFT_PRE == 1
// The same twiddle computed (Ntot = FFT_SL * FFT_N): no table gathers, more arithmetic.
#define FFT_PRE_OP(v, lo, e, pos) v = fft_mul(v, fft_root(FFT_TW_M(lo, e), FFT_SL * FFT_N))
#elif FFT_PRE == 2
#define FFT_PRE_OP(v, lo, e, pos) v = fft_mul(v, FFT_CLOAD(aux_in, pos))
#else
#define FFT_PRE_OP(v, lo, e, pos)
#endif

// Element strides: the literal 1 where the plan's stride is 1 (FFT_IN_UNIT, FFT_OUT_UNIT), so that
// consecutive positions are consecutive addresses to the compiler.
#if defined(FFT_IN_UNIT) && FFT_IN_UNIT
#define FFT_INS 1
#else
#define FFT_INS in_S
#endif
#if defined(FFT_OUT_UNIT) && FFT_OUT_UNIT
#define FFT_OUTS 1
#else
#define FFT_OUTS out_S
#endif
// Index of position pos of transform hi: in the CPU form unsigned, pos (an fft_wi) not converted.
#if FFT_VEC
#define FFT_GIDX(off, hi, dh, pos, S) ((off) + (clf_index)(hi) * (dh) + (clf_index)(pos) * (S))
#else
#define FFT_GIDX(off, hi, dh, pos, S) ((fft_wi)((off) + (clf_index)(hi) * (dh)) + (pos) * (fft_wi)(S))
#endif

// dst = element e of transform t, conjugated by cj_in, pre-operation applied; zero outside.
// Without FFT_IN_CHECK the loads are unconditional: the transforms past the batch (in the last
// group) read the batch's last transform instead, and their results are not stored. A load in a
// branch joins as a two-float vector, which makes a compiler that vectorises across work-items
// (PoCL) leave the whole work-item loop scalar; on the H200 the register kernels gain too (64
// points at 512 MiB: 0.276 ms against 0.315 with the branch, 2026-11-23, bench fft).
#define FFT_LOAD(dst, t, e)                                                              \
  do {                                                                                   \
    const int t_ = FFT_IN_CHECK ? (int)(t) : min((int)(t), total - 1);                   \
    const fft_wi e_ = (e);                                                               \
    const int lo_ = FFT_LO(t_);                                                          \
    const fft_wi pos_ = FFT_IN_POS(lo_, e_);                                             \
    fft_c v_ = fft_make(0.0f, 0.0f);                                                     \
    if (!FFT_IN_CHECK || (t_ < total && pos_ < in_len)) {                                \
      v_ = FFT_GLOAD(in, FFT_GIDX(in_off, FFT_HI(t_), in_dh, pos_, FFT_INS));            \
      v_.i *= cj_in;                                                                     \
      FFT_PRE_OP(v_, lo_, e_, pos_);                                                     \
    }                                                                                    \
    (dst) = v_;                                                                          \
  } while (0)

#if FFT_POST == 1
#define FFT_POST_OP(v, pos) v = fft_mul(v, FFT_CLOAD(aux_out, pos))
#else
#define FFT_POST_OP(v, pos)
#endif

// Element e of transform t = val, post-operation, conjugated by cj_out and scaled.
#define FFT_STORE(val, t, e)                                                                    \
  do {                                                                                          \
    const int t_ = (t);                                                                         \
    const fft_wi e_ = (e);                                                                      \
    const int lo_ = FFT_LO(t_);                                                                 \
    const fft_wi pos_ = FFT_OUT_POS(lo_, e_);                                                   \
    if (t_ < total && (!FFT_OUT_CHECK || pos_ < out_len)) {                                     \
      fft_c v_ = (val);                                                                         \
      FFT_POST_OP(v_, pos_);                                                                    \
      FFT_GSTORE(out, FFT_GIDX(out_off, FFT_HI(t_), out_dh, pos_, FFT_OUTS),                    \
                 fft_make(v_.r * scale, v_.i * cj_out * scale));                                \
    }                                                                                           \
  } while (0)

__kernel __attribute__((reqd_work_group_size(FFT_WGS, 1, 1)))
void fft_local(const int total,
               __global const fft_c* FFT_RESTRICT in, const clf_index in_off, const clf_index in_dh,
               const clf_index in_S, const int in_len,
               __global fft_c* FFT_RESTRICT out, const clf_index out_off, const clf_index out_dh,
               const clf_index out_S, const int out_len,
               const float cj_in, const float cj_out, const float scale,
               __global const fft_c* restrict twl,
               __global const fft_c* restrict tw_hi, __global const fft_c* restrict tw_lo,
               const int tw_shift,
               __global const fft_c* restrict aux_in, __global const fft_c* restrict aux_out,
               __global const fft_c* restrict bq, __global const fft_c* restrict tw_b) {
#if FFT_USES_LOCAL
  __local fft_ltype buf[FFT_LSIZE];
#endif
  const int g0 = get_group_id(0) * FFT_B;
  fft_c x[FFT_E];

  // ---- load ----
#if FFT_IN_MODE == 0
  {
    const int M0 = FFT_N / FFT_R0;
#if FFT_PRE == 3
    // Pass twiddle of value r of butterfly j, c = (lo mod NS) * L / NS:
    //   W_Ntot^((j + r*M0) * c) = W_Ntot^(j * c) * W_(R0*NS)^(r * (lo mod NS))
    // one two-level lookup per butterfly, then one lookup (tw_b, R0 * NS entries) per value
    // instead of two.
    const int lb_ = FFT_LO(min(g0 + (int)FFT_TB, total - 1)) % FFT_SNS;
#endif
#pragma unroll
    for (int i = 0; i < FFT_ITER(FFT_R0); ++i) {
      const fft_wi j = FFT_TID + i * FFT_T;
      if (M0 % FFT_T != 0 && j >= M0) break;
#if FFT_PRE == 3
      const int ma_ = j * lb_ * (FFT_SL / FFT_SNS);
      const fft_c a_ = FFT_TW2(ma_);
#endif
#pragma unroll
      for (int r = 0; r < FFT_R0; ++r) {
        FFT_LOAD(x[i * FFT_R0 + r], g0 + (int)FFT_TB, j + r * M0);
#if FFT_PRE == 3
        x[i * FFT_R0 + r] = fft_mul(x[i * FFT_R0 + r], r == 0 ? a_ : fft_mul(a_, FFT_CLOAD(tw_b, r * lb_)));
#endif
      }
    }
  }
#else
#if FFT_PRE == 3
#error "the split pass twiddle needs direct loads"
#endif
#pragma unroll
  for (int c = 0; c < FFT_CE; ++c)
    FFT_LOAD(x[c], g0 + FFT_COOP_B(FFT_IN_MODE, FFT_LID, c), FFT_COOP_E(FFT_IN_MODE, FFT_LID, c));
  FFT_XCHG_N(FFT_PUT_COOP(FFT_IN_MODE, 0), FFT_GET_IN(FFT_R0, 0, 0), FFT_PUT_COOP(FFT_IN_MODE, 1), FFT_GET_IN(FFT_R0, 1, 0));
#endif

  // ---- the transform ----
  FFT_RUN_PASSES(FFT_FIRST_LEAD)

#if FFT_BLUESTEIN
  // Convolution by multiplication with the kernel's spectrum (bq, already divided by FFT_N), then
  // the inverse transform as conj(F(conj(.))).
  {
    const int ML = FFT_N / FFT_RL;
#pragma unroll
    for (int i = 0; i < FFT_ITER(FFT_RL); ++i) {
      const fft_wi j = FFT_TID + i * FFT_T;
      if (ML % FFT_T != 0 && j >= ML) break;
#pragma unroll
      for (int k = 0; k < FFT_RL; ++k) {
        const fft_c p = fft_mul(x[i * FFT_RL + k], FFT_CLOAD(bq, j + k * FFT_NSL));
        x[i * FFT_RL + k] = fft_make(p.r, -p.i);
      }
    }
  }
#if FFT_NPASS > 0
  FFT_XP(Y, FFT_RL, FFT_NSL, FFT_R0);
#endif
  FFT_RUN_PASSES(Y)
#endif

  // ---- store ----
#if FFT_OUT_MODE == 0
  {
    const int ML = FFT_N / FFT_RL;
#pragma unroll
    for (int i = 0; i < FFT_ITER(FFT_RL); ++i) {
      const fft_wi j = FFT_TID + i * FFT_T;
      if (ML % FFT_T != 0 && j >= ML) break;
#pragma unroll
      for (int k = 0; k < FFT_RL; ++k) FFT_STORE(x[i * FFT_RL + k], g0 + (int)FFT_TB, j + k * FFT_NSL);
    }
  }
#else
#if FFT_PRIV && !FFT_USES_LOCAL
#error "staged store needs local memory"
#endif
  FFT_XCHG_Y(FFT_PUT_OUT(FFT_RL, FFT_NSL, 0, 0), FFT_GET_COOP(FFT_OUT_MODE, 0), FFT_PUT_OUT(FFT_RL, FFT_NSL, 1, 0),
             FFT_GET_COOP(FFT_OUT_MODE, 1));
#pragma unroll
  for (int c = 0; c < FFT_CE; ++c)
    FFT_STORE(x[c], g0 + FFT_COOP_B(FFT_OUT_MODE, FFT_LID, c), FFT_COOP_E(FFT_OUT_MODE, FFT_LID, c));
#endif
}
