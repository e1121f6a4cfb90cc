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
// (a pass, FFT_SPLIT: L = FFT_SL, NS = FFT_SNS; else hi = t, lo = 0; a pass in the column form,
// FFT_COLS: hi = t, lo = get_group_id(2), total counting user transforms). Element e of it is
// read from / written to
//   in : in_off  + r * in_dr  + hi * in_dh  + in_S  * (lo + e * L)
//   out: out_off + r * out_dr + hi * out_dh + out_S * ((lo / NS) * NS * FFT_N + lo % NS + e * NS)
// (the bracket is the element's "position"; e itself outside a pass). r = get_group_id(1) is a
// second batch level (the NDRange's second dimension: a multi-dimensional plan's other axis).
// Loads and stores are
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
//
// The kernel's parts come before this file, in this order (src/fft/fft_spec.cpp): the
// butterflies (fft_butterflies.cl, generated), the parameters and derived values
// (fft_params.cl), one pass in registers (fft_pass.cl), the exchanges and the pass sequence
// (fft_exchange.cl), and the global loads and stores (fft_memory.cl).

__kernel __attribute__((reqd_work_group_size(FFT_WGS, 1, 1))) void fft_local(
    const int total, __global const fft_c* FFT_RESTRICT in, const clf_index in_off, const clf_index in_dh,
    const clf_index in_S, const int in_len, __global fft_c* FFT_RESTRICT out, const clf_index out_off,
    const clf_index out_dh, const clf_index out_S, const int out_len, const float cj_in, const float cj_out,
    const float scale, __global const fft_c* restrict twl, __global const fft_c* restrict tw_hi,
    __global const fft_c* restrict tw_lo, const int tw_shift, __global const fft_c* restrict aux_in,
    __global const fft_c* restrict aux_out, __global const fft_c* restrict bq, __global const fft_c* restrict tw_b,
    const clf_index in_dr, const clf_index out_dr) {
  const clf_index in_base = in_off + (clf_index)get_group_id(1) * in_dr;
  const clf_index out_base = out_off + (clf_index)get_group_id(1) * out_dr;
#if FFT_COLS
  const int fft_lo = get_group_id(2);
#endif
#if FFT_USES_LOCAL
  __local fft_ltype buf[FFT_LSIZE];
#endif
#if FFT_POST == 3 && !(FFT_USES_LOCAL && !FFT_HALVE)
  __local fft_c zbuf[FFT_B * (FFT_N + 1)];
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
  FFT_XCHG_N(FFT_PUT_COOP(FFT_IN_MODE, 0), FFT_GET_IN(FFT_R0, 0, 0), FFT_PUT_COOP(FFT_IN_MODE, 1),
             FFT_GET_IN(FFT_R0, 1, 0));
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
#if FFT_POST >= 2
  // A real-input plan's post-processing (fft_real.cl's fft_real_post, even n = 2 FFT_N):
  // X_k = (Z_k + conj Z_(m-k)) / 2 - (i/2) W_n^k (Z_k - conj Z_(m-k)), k <= m = FFT_N, Z_m = Z_0,
  // W_n^k = aux_out[k] (FFT_N + 1 values per transform), written by FFT_POST_STORE from the halves
  // e = (Z_k + conj Z_(m-k)) / 2 and d = (Z_k - conj Z_(m-k)) / 2. FFT_POST 3 (a work-item holds
  // a transform): the group's transforms go to local memory (the rows of staged accesses where
  // the kernel has whole values there, else zbuf) and its work-items write consecutive outputs.
  // FFT_POST 2: work-item tid writes k = tid, tid + FFT_T, ... of its transform, Z_k and Z_(m-k)
  // through local memory in natural order: whole values in one round, halves in two (the real
  // parts' e and d kept in registers).
#if FFT_SPLIT || FFT_BLUESTEIN
#error "the real post-processing on store needs a kernel of one whole transform"
#endif
#if FFT_POST == 3 && FFT_USES_LOCAL && !FFT_HALVE
  FFT_POST_PUT(0);  // staged loads or stores: their rows hold the transforms
  for (int c_ = FFT_LID; c_ < FFT_B * (FFT_N + 1); c_ += FFT_WGS) {
    const int tb_ = c_ / (FFT_N + 1), k = c_ % (FFT_N + 1);
    fft_c a, b;
    FFT_LGET(buf, FFT_LOC(tb_, FFT_POST_A(k)), a, 0);
    FFT_LGET(buf, FFT_LOC(tb_, FFT_POST_B(k)), b, 0);
    if (g0 + tb_ < total) FFT_POST_STORE(g0 + tb_, k, FFT_POST_E(a, b), FFT_POST_D(a, b));
  }
#elif FFT_POST == 3
  FFT_UNROLL for (int p_ = 0; p_ < FFT_N; ++p_) zbuf[FFT_TB * (FFT_N + 1) + p_] = x[FFT_PRIV_AT(p_)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int c_ = FFT_LID; c_ < FFT_B * (FFT_N + 1); c_ += FFT_WGS) {
    const int tb_ = c_ / (FFT_N + 1), k = c_ % (FFT_N + 1);
    const fft_c a = zbuf[tb_ * (FFT_N + 1) + FFT_POST_A(k)], b = zbuf[tb_ * (FFT_N + 1) + FFT_POST_B(k)];
    if (g0 + tb_ < total) FFT_POST_STORE(g0 + tb_, k, FFT_POST_E(a, b), FFT_POST_D(a, b));
  }
#elif FFT_PRIV
#error "a work-item holding a transform post-processes through local memory (FFT_POST 3)"
#elif !FFT_HALVE
  FFT_POST_PUT(0);
  if (g0 + (int)FFT_TB < total) {
    for (int k = (int)FFT_TID; k <= FFT_N; k += FFT_T) {
      fft_c a, b;
      FFT_LGET(buf, FFT_LOC(FFT_TB, FFT_POST_A(k)), a, 0);
      FFT_LGET(buf, FFT_LOC(FFT_TB, FFT_POST_B(k)), b, 0);
      FFT_POST_STORE(g0 + (int)FFT_TB, k, FFT_POST_E(a, b), FFT_POST_D(a, b));
    }
  }
#elif FFT_HALVE == 1
  float er_[FFT_KP], dr_[FFT_KP];
  FFT_POST_PUT(0);
  FFT_UNROLL for (int s_ = 0; s_ < FFT_KP; ++s_) {
    const int k = (int)FFT_TID + s_ * FFT_T;
    const float a = buf[FFT_LOC(FFT_TB, FFT_POST_A(k))], b = buf[FFT_LOC(FFT_TB, FFT_POST_B(k))];
    er_[s_] = 0.5f * (a + b);
    dr_[s_] = 0.5f * (a - b);
  }
  FFT_POST_PUT(1);
  if (g0 + (int)FFT_TB < total) {
    FFT_UNROLL for (int s_ = 0; s_ < FFT_KP; ++s_) {
      const int k = (int)FFT_TID + s_ * FFT_T;
      const float a = buf[FFT_LOC(FFT_TB, FFT_POST_A(k))], b = buf[FFT_LOC(FFT_TB, FFT_POST_B(k))];
      if (FFT_KP * FFT_T == FFT_N + 1 || k <= FFT_N)
        FFT_POST_STORE(g0 + (int)FFT_TB, k, fft_make(er_[s_], 0.5f * (a - b)), fft_make(dr_[s_], 0.5f * (a + b)));
    }
  }
#else
#error "the real post-processing on store takes whole values or halves in local memory, not quarters"
#endif
#elif FFT_OUT_MODE == 0
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
