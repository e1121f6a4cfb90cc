// Recursive Gaussian along image columns (after blur_common.cl): Young-van Vliet (1995),
// third order, as a cascade of a first- and a second-order section in increment form
// (host/blur.hpp has the design and the double reference). One step, causal (forwards over x)
// or anti-causal (backwards over the causal output), on the state (s0, s1, s2):
//
//   s0' = s0 + k1 (x - s0);   s1' = s1 + g2 (s0' - s1) + c2 (s2 - s1);   s2' = s1
//
// The output is the anti-causal s1. A horizontal pass is a vertical pass of the transposed
// image: the launcher runs  vertical pass, transpose, vertical pass, transpose  (the transposes
// are TransposePlan steps, or fused into blur_rec_apply's store with BLUR_R_FUSE_T).
//
// Borders (Triggs & Sdika 2006): the input beyond the last sample is the constant x+ (clamp:
// the last sample, zero: 0); the anti-causal state after it is x+ + M (P - x+), P the causal
// state after the last sample, M from the host. Mirror extends each end by K mirrored samples
// first (the right margin enters through the impulse table g: sum_m g[m] w[n + m], plus
// A^K applied to the boundary state), then constants.
//
// Two schemes:
//  * blur_rec_cols (BLUR_R_BLOCK = 0, or a wide image): one work-item per column runs the whole
//    column forwards, storing the causal output in `out`, then backwards. Coalesced: work-items
//    of a group read neighbouring columns of one row. Parallelism = number of columns.
//  * blocks of L = BLUR_R_BLOCK rows (narrow images): parallelism = columns x blocks.
//      blur_rec_carry: per block, causal and anti-causal zero-state results: the causal state
//                      at its end (p) and sum_m g[m] w[m] (e)          -> carry buffer
//      blur_rec_link:  per column: the true causal state entering each block and the true
//                      anti-causal state leaving it (3x3 maps from the host). The column's nb
//                      blocks are split into runs of q blocks, one work-item each
//                      (BLUR_R_LINK_SPLIT per column): each run's zero-state result, the runs
//                      chained through local memory, then each run replayed from its true state.
//      blur_rec_apply: per block, the filter from those states; the causal output is staged in
//                      a local tile L x (LX + 1), whose anti-causal result is written either in
//                      place (coalesced rows) or transposed (BLUR_R_FUSE_T, coalesced L-runs).
//                      With BLUR_R_FUSE_T and LX = L the tile is also one whole block of the
//                      next (transposed) pass for L of its columns: with next_carry set, the
//                      kernel also writes that pass's blur_rec_carry results from the tile
//                      (carry_next, parameters prm_next), so the next pass skips its carry
//                      kernel and reads its input once less.
//    Carry buffer: 6 pixels per (block, column) from pixel carry_off on (the carries share one
//    scratch buffer with the intermediate images): [carry_off + (b * 6 + k) * cols + x],
//    k = p0 p1 p2 e0 e1 e2; blur_rec_link overwrites p with the entering state and e with the
//    leaving state.
//
// Parameter buffer prm (floats, from the host, per pass):
//   [0] k1 [1] g2 [2] c2 [4..12] M [13..21] A^K [22..30] A^L [31..39] A^Llast
//   [40..48] C(L) [49..57] C(Llast) [58..66] A^(L q) [67..75] A^(L (qlast - 1) + Llast)
//   [76 + 3m + j] g[m], m < max(L, K)
// A^n: the state after n zero-input steps; C(n): anti-causal state at a block start due to the
// causal state entering it; Llast = length of the last block (1..L); q = blocks per run of
// blur_rec_link, qlast = blocks of its last run.

// ---- tuning parameters ----
#ifndef BLUR_R_LX
#define BLUR_R_LX 32  // columns per work-group, all recursive kernels (16, 32, 64, 128, 256)
#endif
#ifndef BLUR_R_BLOCK
#define BLUR_R_BLOCK 64  // rows per block; 0: whole columns only (0, 16, 32, 64, 128, 256)
#endif
#ifndef BLUR_R_FUSE_T
#define BLUR_R_FUSE_T 0  // 1: blur_rec_apply writes its block transposed (0, 1)
#endif
#ifndef BLUR_R_LINK_SPLIT
// work-items per column in blur_rec_link, each linking one run of
// blocks (1, 2, 4, 8, 16)
#define BLUR_R_LINK_SPLIT 1
#endif
#ifndef BLUR_R_LINK_BATCH
#define BLUR_R_LINK_BATCH 4  // blocks whose carries blur_rec_link loads together (1, 2, 4, 8, 16)
#endif
#ifndef BLUR_R_BATCH
// global loads issued together before the recursion consumes them
// (latency hiding with few work-items per compute unit) (1, 2, 4, 8, 16)
#define BLUR_R_BATCH 8
#endif

// ---- layout of prm ----
#define RP_K1 0
#define RP_G2 1
#define RP_C2 2
#define RP_M 4
#define RP_AK 13
#define RP_AL 22
#define RP_ALAST 31
#define RP_CL 40
#define RP_CLAST 49
#define RP_AQ 58
#define RP_AQLAST 67
#define RP_G 76

#define REC_STEP(s0, s1, s2, x)                                   \
  do {                                                            \
    s0 = mad(k1, (x)-s0, s0);                                     \
    const blur_t rec_w_ = mad(g2, s0 - s1, mad(c2, s2 - s1, s1)); \
    s2 = s1;                                                      \
    s1 = rec_w_;                                                  \
  } while (0)

// Step m of a block's zero-state carry: the causal step on x, then the anti-causal zero-state
// sum (e0, e1, e2) += g[m] * s1 with the impulse table of prm (blur_rec_carry's results).
#define CARRY_STEP(prm, m, s0, s1, s2, e0, e1, e2, x)      \
  do {                                                     \
    REC_STEP(s0, s1, s2, x);                               \
    e0 = mad((blur_t)((prm)[RP_G + 3 * (m)]), s1, e0);     \
    e1 = mad((blur_t)((prm)[RP_G + 3 * (m) + 1]), s1, e1); \
    e2 = mad((blur_t)((prm)[RP_G + 3 * (m) + 2]), s1, e2); \
  } while (0)

// (o0, o1, o2) = m (v0, v1, v2), m row-major 3 x 3.
#define REC_MAT(m, v0, v1, v2, o0, o1, o2)           \
  do {                                               \
    const blur_t t0_ = v0, t1_ = v1, t2_ = v2;       \
    o0 = (m)[0] * t0_ + (m)[1] * t1_ + (m)[2] * t2_; \
    o1 = (m)[3] * t0_ + (m)[4] * t1_ + (m)[5] * t2_; \
    o2 = (m)[6] * t0_ + (m)[7] * t1_ + (m)[8] * t2_; \
  } while (0)

// The six carry values of one (block, column): c[k * cols], k = p0 p1 p2 e0 e1 e2.
inline void store_carry(__global blur_t* c, const int cols, const blur_t s0, const blur_t s1, const blur_t s2,
                        const blur_t e0, const blur_t e1, const blur_t e2) {
  c[0] = s0;
  c[cols] = s1;
  c[2 * cols] = s2;
  c[3 * cols] = e0;
  c[4 * cols] = e1;
  c[5 * cols] = e2;
}

// Sample i (any integer) of a column with n samples; 0 outside under the zero border.
inline blur_t rec_sample(const __global blur_t* col, const clf_index pitch, const int i, const int n,
                         const int border) {
  const int j = blur_index(i, n, border);
  return j < 0 ? BLUR_ZERO : col[(clf_index)j * pitch];
}

// Anti-causal state entering the column from below: consume the K-sample right margin
// (mirror) and the constant tail. (s0, s1, s2): causal state after the last sample.
inline void rec_right_boundary(const __global float* prm, const __global blur_t* col, const clf_index pitch,
                               const int n, const int border, const int K, blur_t s0, blur_t s1, blur_t s2, blur_t* a0,
                               blur_t* a1, blur_t* a2) {
  const blur_t k1 = (blur_t)prm[RP_K1], g2 = (blur_t)prm[RP_G2], c2 = (blur_t)prm[RP_C2];
  blur_t e0 = BLUR_ZERO, e1 = BLUR_ZERO, e2 = BLUR_ZERO;
  for (int m = 0; m < K; ++m) CARRY_STEP(prm, m, s0, s1, s2, e0, e1, e2, rec_sample(col, pitch, n + m, n, border));
  const blur_t last = border == BLUR_ZEROS ? BLUR_ZERO : rec_sample(col, pitch, n + K - 1, n, border);
  blur_t b0, b1, b2;
  REC_MAT(prm + RP_M, s0 - last, s1 - last, s2 - last, b0, b1, b2);
  b0 += last;
  b1 += last;
  b2 += last;
  if (K > 0) {
    REC_MAT(prm + RP_AK, b0, b1, b2, b0, b1, b2);
    b0 += e0;
    b1 += e1;
    b2 += e2;
  }
  *a0 = b0;
  *a1 = b1;
  *a2 = b2;
}

// Causal state entering the column from above: steady state of the first extended sample,
// then the K-sample left margin (mirror).
inline void rec_left_boundary(const __global float* prm, const __global blur_t* col, const clf_index pitch, const int n,
                              const int border, const int K, blur_t* s0, blur_t* s1, blur_t* s2) {
  const blur_t k1 = (blur_t)prm[RP_K1], g2 = (blur_t)prm[RP_G2], c2 = (blur_t)prm[RP_C2];
  const blur_t first = border == BLUR_ZEROS ? BLUR_ZERO : rec_sample(col, pitch, -K, n, border);
  blur_t u = first, w = first, v = first;
  for (int i = -K; i < 0; ++i) REC_STEP(u, w, v, rec_sample(col, pitch, i, n, border));
  *s0 = u;
  *s1 = w;
  *s2 = v;
}

// Whole columns: n rows, `cols` columns, one work-item per column. `out` holds the causal
// output between the two sweeps, so in and out must not overlap.
__kernel __attribute__((reqd_work_group_size(BLUR_R_LX, 1, 1))) void blur_rec_cols(
    const int n, const int cols, const int border, const int K, const __global float* restrict prm,
    const __global blur_t* restrict in, const clf_index in_off, const clf_index in_pitch, __global blur_t* restrict out,
    const clf_index out_off, const clf_index out_pitch) {
  const int x = get_global_id(0);
  if (x >= cols) return;
  const blur_t k1 = (blur_t)prm[RP_K1], g2 = (blur_t)prm[RP_G2], c2 = (blur_t)prm[RP_C2];
  const __global blur_t* col = in + in_off + x;
  __global blur_t* dst = out + out_off + x;
  blur_t s0, s1, s2;
  rec_left_boundary(prm, col, in_pitch, n, border, K, &s0, &s1, &s2);
  for (int i0 = 0; i0 < n; i0 += BLUR_R_BATCH) {
    blur_t v[BLUR_R_BATCH];
#pragma unroll
    for (int j = 0; j < BLUR_R_BATCH; ++j) v[j] = i0 + j < n ? col[(clf_index)(i0 + j) * in_pitch] : BLUR_ZERO;
#pragma unroll
    for (int j = 0; j < BLUR_R_BATCH; ++j)
      if (i0 + j < n) {
        REC_STEP(s0, s1, s2, v[j]);
        dst[(clf_index)(i0 + j) * out_pitch] = s1;
      }
  }
  blur_t a0, a1, a2;
  rec_right_boundary(prm, col, in_pitch, n, border, K, s0, s1, s2, &a0, &a1, &a2);
  for (int i0 = n - 1; i0 >= 0; i0 -= BLUR_R_BATCH) {
    blur_t v[BLUR_R_BATCH];
#pragma unroll
    for (int j = 0; j < BLUR_R_BATCH; ++j) v[j] = i0 - j >= 0 ? dst[(clf_index)(i0 - j) * out_pitch] : BLUR_ZERO;
#pragma unroll
    for (int j = 0; j < BLUR_R_BATCH; ++j)
      if (i0 - j >= 0) {
        REC_STEP(a0, a1, a2, v[j]);
        dst[(clf_index)(i0 - j) * out_pitch] = a1;
      }
  }
}

#if BLUR_R_BLOCK > 0

// Stage 1, per (column, block): zero-state causal pass; p = its end state, e = sum g[m] w[m].
__kernel __attribute__((reqd_work_group_size(BLUR_R_LX, 1, 1))) void blur_rec_carry(
    const int n, const int cols, const __global float* restrict prm, const __global blur_t* restrict in,
    const clf_index in_off, const clf_index in_pitch, __global blur_t* restrict carry, const clf_index carry_off) {
  const int x = get_global_id(0), b = get_global_id(1);
  if (x >= cols) return;
  carry += carry_off;
  const blur_t k1 = (blur_t)prm[RP_K1], g2 = (blur_t)prm[RP_G2], c2 = (blur_t)prm[RP_C2];
  const int s = b * BLUR_R_BLOCK, len = min(BLUR_R_BLOCK, n - s);
  const __global blur_t* col = in + in_off + x + (clf_index)s * in_pitch;
  blur_t s0 = BLUR_ZERO, s1 = BLUR_ZERO, s2 = BLUR_ZERO, e0 = BLUR_ZERO, e1 = BLUR_ZERO, e2 = BLUR_ZERO;
  for (int m0 = 0; m0 < len; m0 += BLUR_R_BATCH) {
    blur_t v[BLUR_R_BATCH];
#pragma unroll
    for (int j = 0; j < BLUR_R_BATCH; ++j) v[j] = m0 + j < len ? col[(clf_index)(m0 + j) * in_pitch] : BLUR_ZERO;
#pragma unroll
    for (int j = 0; j < BLUR_R_BATCH; ++j)
      if (m0 + j < len) {
        const int m = m0 + j;
        CARRY_STEP(prm, m, s0, s1, s2, e0, e1, e2, v[j]);
      }
  }
  store_carry(carry + (clf_index)b * 6 * cols + x, cols, s0, s1, s2, e0, e1, e2);
}

// Stage 2. The causal recursion over blocks is s' = A^len s + p_b, the anti-causal one
// a' = A^len a + C(len) s_b + e_b (s_b: causal state entering block b): both affine with powers
// of one matrix, so a run of blocks composes into (A^(sum of lengths), zero-state result).
// Forward chain over blocks [lo, hi) of one column from state s; with `store`, each block's
// entering state goes to the carry (over its p, which was read first).
inline void link_forward(const __global float* prm, __global blur_t* c, const clf_index stride, const int cols,
                         const int lo, const int hi, const int nb, const int store, blur_t* s0, blur_t* s1,
                         blur_t* s2) {
  for (int b0 = lo; b0 < hi; b0 += BLUR_R_LINK_BATCH) {
    blur_t p[3 * BLUR_R_LINK_BATCH];
#pragma unroll
    for (int j = 0; j < BLUR_R_LINK_BATCH; ++j)
      if (b0 + j < hi) {
        const __global blur_t* cb = c + (b0 + j) * stride;
        p[3 * j] = cb[0];
        p[3 * j + 1] = cb[cols];
        p[3 * j + 2] = cb[2 * cols];
      }
#pragma unroll
    for (int j = 0; j < BLUR_R_LINK_BATCH; ++j)
      if (b0 + j < hi) {
        const int b = b0 + j;
        if (store) {
          __global blur_t* cb = c + b * stride;
          cb[0] = *s0;
          cb[cols] = *s1;
          cb[2 * cols] = *s2;
        }
        REC_MAT(prm + (b + 1 < nb ? RP_AL : RP_ALAST), *s0, *s1, *s2, *s0, *s1, *s2);
        *s0 += p[3 * j];
        *s1 += p[3 * j + 1];
        *s2 += p[3 * j + 2];
      }
  }
}

// Backward chain over blocks hi - 1 down to lo from state a (entering block hi - 1 from below);
// with `store`, the state entering each block from below goes to the carry (over its e, which
// was read first).
inline void link_backward(const __global float* prm, __global blur_t* c, const clf_index stride, const int cols,
                          const int lo, const int hi, const int nb, const int store, blur_t* a0, blur_t* a1,
                          blur_t* a2) {
  for (int b0 = hi - 1; b0 >= lo; b0 -= BLUR_R_LINK_BATCH) {
    blur_t e[3 * BLUR_R_LINK_BATCH], p[3 * BLUR_R_LINK_BATCH];
#pragma unroll
    for (int j = 0; j < BLUR_R_LINK_BATCH; ++j)
      if (b0 - j >= lo) {
        const __global blur_t* cb = c + (b0 - j) * stride;
        p[3 * j] = cb[0];
        p[3 * j + 1] = cb[cols];
        p[3 * j + 2] = cb[2 * cols];
        e[3 * j] = cb[3 * cols];
        e[3 * j + 1] = cb[4 * cols];
        e[3 * j + 2] = cb[5 * cols];
      }
#pragma unroll
    for (int j = 0; j < BLUR_R_LINK_BATCH; ++j)
      if (b0 - j >= lo) {
        const int b = b0 - j;
        if (store) {
          __global blur_t* cb = c + b * stride;
          cb[3 * cols] = *a0;
          cb[4 * cols] = *a1;
          cb[5 * cols] = *a2;
        }
        const int last = b == nb - 1;
        blur_t t0, t1, t2;
        REC_MAT(prm + (last ? RP_ALAST : RP_AL), *a0, *a1, *a2, *a0, *a1, *a2);
        REC_MAT(prm + (last ? RP_CLAST : RP_CL), p[3 * j], p[3 * j + 1], p[3 * j + 2], t0, t1, t2);
        *a0 += t0 + e[3 * j];
        *a1 += t1 + e[3 * j + 1];
        *a2 += t2 + e[3 * j + 2];
      }
  }
}

// The runs of one column in order (backwards: from the last run up): each run's zero-state
// result in local memory (`rstep` apart) is replaced by the true state entering it, starting
// from (v0, v1, v2); a run maps its entering state v to A^(its length) v + its result.
inline void link_runs(const __global float* prm, __local blur_t* rs, const int rstep, const int runs,
                      const int backwards, blur_t v0, blur_t v1, blur_t v2) {
  for (int i = 0; i < runs; ++i) {
    const int r = backwards ? runs - 1 - i : i;
    __local blur_t* t = rs + r * rstep;
    const blur_t z0 = t[0], z1 = t[1], z2 = t[2];
    t[0] = v0;
    t[1] = v1;
    t[2] = v2;
    REC_MAT(prm + (r == runs - 1 ? RP_AQLAST : RP_AQ), v0, v1, v2, v0, v1, v2);
    v0 += z0;
    v1 += z1;
    v2 += z2;
  }
}

// Per column (local x) and run (local y): blocks [g q, min(nb, (g + 1) q)).
__kernel __attribute__((reqd_work_group_size(BLUR_R_LX, BLUR_R_LINK_SPLIT, 1))) void blur_rec_link(
    const int n, const int cols, const int nb, const int q, const int border, const int K,
    const __global float* restrict prm, const __global blur_t* restrict in, const clf_index in_off,
    const clf_index in_pitch, __global blur_t* restrict carry, const clf_index carry_off) {
  __local blur_t run_state[3 * BLUR_R_LINK_SPLIT * BLUR_R_LX];  // per run: zero-state result, then true state
  __local blur_t bottom[3 * BLUR_R_LX];                         // anti-causal state entering from below
  const int lx = get_local_id(0), g = get_local_id(1), x = get_group_id(0) * BLUR_R_LX + lx;
  const int live = x < cols, runs = (nb + q - 1) / q, lo = g * q, hi = min(nb, lo + q);
  const __global blur_t* col = in + in_off + x;
  __global blur_t* c = carry + carry_off + x;
  const clf_index stride = (clf_index)6 * cols;  // between blocks
  __local blur_t* rs = run_state + 3 * (g * BLUR_R_LX + lx);
  const int rstep = 3 * BLUR_R_LX;  // between the runs of one column
  blur_t s0 = BLUR_ZERO, s1 = BLUR_ZERO, s2 = BLUR_ZERO;
  // Forwards: zero-state result of each run; the runs chained in order; each run replayed.
  if (live) link_forward(prm, c, stride, cols, lo, hi, nb, 0, &s0, &s1, &s2);
  rs[0] = s0;
  rs[1] = s1;
  rs[2] = s2;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (live && g == 0) {
    rec_left_boundary(prm, col, in_pitch, n, border, K, &s0, &s1, &s2);
    link_runs(prm, rs, rstep, runs, 0, s0, s1, s2);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  s0 = rs[0];
  s1 = rs[1];
  s2 = rs[2];
  if (live && lo < hi) {
    link_forward(prm, c, stride, cols, lo, hi, nb, 1, &s0, &s1, &s2);
    if (hi == nb) {
      blur_t a0, a1, a2;
      rec_right_boundary(prm, col, in_pitch, n, border, K, s0, s1, s2, &a0, &a1, &a2);
      bottom[3 * lx] = a0;
      bottom[3 * lx + 1] = a1;
      bottom[3 * lx + 2] = a2;
    }
  }
  // Backwards, the same three steps from the bottom run up.
  blur_t a0 = BLUR_ZERO, a1 = BLUR_ZERO, a2 = BLUR_ZERO;
  if (live) link_backward(prm, c, stride, cols, lo, hi, nb, 0, &a0, &a1, &a2);
  barrier(CLK_LOCAL_MEM_FENCE);  // the forward replay's reads of rs are done; bottom is written
  rs[0] = a0;
  rs[1] = a1;
  rs[2] = a2;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (live && g == 0) {
    link_runs(prm, rs, rstep, runs, 1, bottom[3 * lx], bottom[3 * lx + 1], bottom[3 * lx + 2]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  a0 = rs[0];
  a1 = rs[1];
  a2 = rs[2];
  if (live && lo < hi) link_backward(prm, c, stride, cols, lo, hi, nb, 1, &a0, &a1, &a2);
}

// Stage 3, per (column, block): the filter from the linked states.
//   BLUR_R_FUSE_T = 0: out(row s + m, column x)      (same layout as in)
//   BLUR_R_FUSE_T = 1: out(row x, column s + m)      (transposed)
// in and out may be one buffer only when BLUR_R_FUSE_T = 0 and they describe the same image.
__kernel __attribute__((reqd_work_group_size(BLUR_R_LX, 1, 1))) void blur_rec_apply(
    const int n, const int cols, const __global float* restrict prm, const __global blur_t* in, const clf_index in_off,
    const clf_index in_pitch, const __global blur_t* restrict carry, const clf_index carry_off, __global blur_t* out,
    const clf_index out_off, const clf_index out_pitch, const int next_carry, const __global float* restrict prm_next,
    __global blur_t* restrict carry_next, const clf_index carry_next_off) {
  __local blur_t tile[BLUR_R_BLOCK * (BLUR_R_LX + 1)];
  const int lx = get_local_id(0), x0 = get_group_id(0) * BLUR_R_LX, x = x0 + lx, b = get_global_id(1);
  const blur_t k1 = (blur_t)prm[RP_K1], g2 = (blur_t)prm[RP_G2], c2 = (blur_t)prm[RP_C2];
  const int s = b * BLUR_R_BLOCK, len = min(BLUR_R_BLOCK, n - s);
  if (x < cols) {
    const __global blur_t* col = in + in_off + x + (clf_index)s * in_pitch;
    const __global blur_t* cb = carry + carry_off + (clf_index)b * 6 * cols + x;
    blur_t s0 = cb[0], s1 = cb[cols], s2 = cb[2 * cols];
    for (int m0 = 0; m0 < len; m0 += BLUR_R_BATCH) {
      blur_t v[BLUR_R_BATCH];
#pragma unroll
      for (int j = 0; j < BLUR_R_BATCH; ++j) v[j] = m0 + j < len ? col[(clf_index)(m0 + j) * in_pitch] : BLUR_ZERO;
#pragma unroll
      for (int j = 0; j < BLUR_R_BATCH; ++j)
        if (m0 + j < len) {
          REC_STEP(s0, s1, s2, v[j]);
          tile[(m0 + j) * (BLUR_R_LX + 1) + lx] = s1;
        }
    }
    s0 = cb[3 * cols];
    s1 = cb[4 * cols];
    s2 = cb[5 * cols];
#if BLUR_R_FUSE_T
    for (int m = len - 1; m >= 0; --m) {
      REC_STEP(s0, s1, s2, tile[m * (BLUR_R_LX + 1) + lx]);
      tile[m * (BLUR_R_LX + 1) + lx] = s1;
    }
#else
    __global blur_t* dst = out + out_off + x + (clf_index)s * out_pitch;
    for (int m = len - 1; m >= 0; --m) {
      REC_STEP(s0, s1, s2, tile[m * (BLUR_R_LX + 1) + lx]);
      dst[(clf_index)m * out_pitch] = s1;
    }
#endif
  }
#if BLUR_R_FUSE_T
  barrier(CLK_LOCAL_MEM_FENCE);
  // Output rows x0 .. x0 + LX - 1, each a run of len pixels starting at column s.
  for (int idx = lx; idx < BLUR_R_LX * BLUR_R_BLOCK; idx += BLUR_R_LX) {
    const int c = idx / BLUR_R_BLOCK, m = idx % BLUR_R_BLOCK;
    if (x0 + c < cols && m < len)
      out[out_off + (clf_index)(x0 + c) * out_pitch + s + m] = tile[m * (BLUR_R_LX + 1) + c];
  }
#if BLUR_R_LX == BLUR_R_BLOCK
  // The next pass's carry of its block x0 / L for its columns s .. s + len - 1 (this pass's
  // rows): tile row m is that pass's column s + m over its rows x0 .. x0 + len_next - 1
  // (exactly what blur_rec_carry would compute from `out`).
  if (next_carry && lx < len) {
    const blur_t k1 = (blur_t)prm_next[RP_K1], g2 = (blur_t)prm_next[RP_G2], c2 = (blur_t)prm_next[RP_C2];
    const int len_next = min(BLUR_R_BLOCK, cols - x0);
    blur_t s0 = BLUR_ZERO, s1 = BLUR_ZERO, s2 = BLUR_ZERO, e0 = BLUR_ZERO, e1 = BLUR_ZERO, e2 = BLUR_ZERO;
    for (int m = 0; m < len_next; ++m) CARRY_STEP(prm_next, m, s0, s1, s2, e0, e1, e2, tile[lx * (BLUR_R_LX + 1) + m]);
    store_carry(carry_next + carry_next_off + (clf_index)(x0 / BLUR_R_BLOCK) * 6 * n + s + lx, n, s0, s1, s2, e0, e1,
                e2);
  }
#endif
#endif
}

#endif  // BLUR_R_BLOCK > 0
