// Batched 1-D complex FFT for CPU devices (after fft_butterflies.cl): one work-item transforms
// FFT_LANES transforms at once, lane l of every value vector holding transform c0 + l.
//
// CPU compilers such as PoCL run a work-group as a loop over its work-items and vectorise across
// them only where no barrier or local memory intervenes; the kernels of fft.cl exchange through
// local memory between their passes, so on CPUs they run as scalar code. Here the vectors are
// explicit: every butterfly, twiddle and exchange works on FFT_LANES transforms in one vector
// operation, and the transforms never need a shuffle (lane l only ever meets lane l). A work-item
// keeps its transforms in two private arrays of FFT_N values (ping-pong between the passes,
// Stockham autosort: pass p with radix R reads v[j + r N/R], multiplies by W_(NS R)^(r (j mod NS)),
// runs the R-point butterfly and writes (j / NS) NS R + j mod NS + q NS, NS the product of the
// earlier radices; the last pass leaves natural order).
//
// Transforms come in rows: row = get_global_id(1), transform c < count of the row; element e of
// transform c at in[in_off + row in_dh + c in_dc + e in_S] (complex units), so every layout
// works; get_global_id(2) is a second batch level, level in_dr apart (a multi-dimensional
// plan's other axis). A plan of one launch has one row (in_dc the caller's distance); a plan of two launches
// (n = n1 n2, docs/fft.md) has a row per transform of the plan: the first launch transforms the
// n2 columns of length n1 (in_dc = the caller's stride) and multiplies element k1 of column j2 by
// W_n^(k1 j2) (FFT_LANE_TW, table tw2[k1 n2 + j2]), the second the n1 rows of length n2. Where
// a side's transforms are adjacent (FFT_IN_LUNIT, FFT_OUT_LUNIT: in_dc or out_dc 1, count a
// multiple of FFT_LANES) element e of a work-item's transforms is one contiguous vector;
// elsewhere loads gather element e of the lanes' transforms and stores scatter it. Lanes past
// `count` read the last transform again and store nothing.
//
// Work-groups of one work-item: each work-item is independent, and PoCL gives work-groups to its
// threads. A work-item's private arrays take 2 FFT_N FFT_LANES 8 bytes (2 MiB for 16384 points
// in 8 lanes); the database row's FFT_LANE_MAX bounds the lengths of one launch.
//
// Launches of a longer plan may multiply each loaded element or each result by a table indexed
// like the columns' input and the rows' output (FFT_LANE_PRE, FFT_LANE_POST: tab[c + e count]),
// and stop at a length (FFT_LANE_GLEN): the chirps and the spectrum of a Bluestein plan in four
// launches.
//
// Bluestein (FFT_LANE_BLUE, a length FFT_LANE_LEN with a prime factor above 13): the loads
// multiply element e < FFT_LANE_LEN by the chirp tw2[e] and pad with zeros to FFT_N (a power of
// two >= 2 FFT_LANE_LEN - 1); after the transform, the product with the chirp's spectrum tab,
// conjugated, is transformed again; the stores multiply by the conjugate chirp and conjugate
// (cj_out -1 forward).
//
// The inverse direction conjugates on load and store (cj_in, cj_out = -1), as fft.cl does.

// ---- tuning parameters ----
#ifndef FFT_LANES
#define FFT_LANES 8  // transforms per work-item = vector width (4, 8, 16)
#endif
// FFT_LANE_RADIX, FFT_LANE_MIN and FFT_LANE_MAX are the launcher's (radices, lengths): they
// reach the kernel as the routine constants below.

// ---- routine constants (from the launcher) ----
#ifndef FFT_N
#define FFT_N 64  // transform length
#endif
#ifndef FFT_NP
#define FFT_NP 3  // passes
#endif
#ifndef FFT_R1
#define FFT_R1 4  // radix of pass 1 (then FFT_R2 ... FFT_R8 for the passes that follow)
#endif
#ifndef FFT_R2
#define FFT_R2 4
#endif
#ifndef FFT_R3
#define FFT_R3 4
#endif
#ifndef FFT_LANE_TW
#define FFT_LANE_TW 0  // 1: multiply the result by tw2 (first launch of two)
#endif
#ifndef FFT_IN_LUNIT
#define FFT_IN_LUNIT 0  // 1: the lanes' transforms are adjacent on the input side (in_dc 1)
#endif
#ifndef FFT_OUT_LUNIT
#define FFT_OUT_LUNIT 0  // 1: the same on the output side
#endif
#ifndef FFT_LANE_BLUE
#define FFT_LANE_BLUE 0  // 1: Bluestein; FFT_N the convolution length, FFT_LANE_LEN the transform's
#endif
#ifndef FFT_LANE_LEN
#define FFT_LANE_LEN FFT_N
#endif
#ifndef FFT_LANE_PRE
#define FFT_LANE_PRE 0  // 1: multiply the loads by tab[c + e count] (lane c, element e)
#endif
#ifndef FFT_LANE_RPOST
#define FFT_LANE_RPOST 0  // 1: a real plan's post-processing on the store (W_n^k = tab[k])
#endif
#ifndef FFT_LANE_POST
#define FFT_LANE_POST 0  // 1: multiply the results by tab[c + e count]
#endif
#ifndef FFT_LANE_RODD
// An odd-length real plan's ends (offsets, distances and strides of the real side count floats):
// 1 the forward, loads of real values (imaginary parts zero) and stores of X_0 .. X_(n/2); 2 the
// inverse, loads of the Hermitian extension of the half spectrum (X_0 as real) and stores of the
// real parts. Both read and write lane by lane.
#define FFT_LANE_RODD 0
#endif
#ifndef FFT_LANE_GLEN
#define FFT_LANE_GLEN \
  0  // > 0: element c + e count from FFT_LANE_GLEN on reads as zero (with
     // FFT_LANE_PRE) or is not stored (with FFT_LANE_POST)
#endif
#ifndef FFT_IN_EUNIT
#define FFT_IN_EUNIT 0  // 1: a transform's elements are adjacent on the input side (in_S 1, FFT_N % FFT_LANES 0)
#endif
#ifndef FFT_OUT_EUNIT
#define FFT_OUT_EUNIT 0  // 1: the same on the output side
#endif

// ---- derived ----
#if FFT_LANES != 4 && FFT_LANES != 8 && FFT_LANES != 16
#error "FFT_LANES must be 4, 8 or 16"
#endif
#if FFT_NP < 1 || FFT_NP > 8
#error "FFT_NP must be 1 .. 8"
#endif
#if FFT_LANE_RODD && (FFT_IN_LUNIT || FFT_IN_EUNIT || FFT_OUT_LUNIT || FFT_OUT_EUNIT || FFT_LANE_RPOST || \
                      FFT_LANE_TW || FFT_LANE_PRE || FFT_LANE_POST)
#error "an odd-length real plan's ends read and write a one-launch transform lane by lane"
#endif
#define FFT_LANE_LOAD FFT_LANE_CAT(vload, FFT_LANES)
#define FFT_LANE_STORE FFT_LANE_CAT(vstore, FFT_LANES)
#define FFT_LANE_BF(R) FFT_LANE_CAT(fft_bf, R)
// Loops over a butterfly's values and a block's lanes unrolled in full: PoCL had left them as
// loops over private arrays (2026-11-26, `clforge -d cpu run fft --size N,mib=64`: 1.15-1.5x
// faster unrolled under PoCL 3.1 on the development machine, 1.2-2.2x under PoCL 5.0 on the H100
// machine's Xeon, n = 16 ... 65536). The loops over a transform's elements stay loops (unrolling
// them by 2 gained nothing).
#define FFT_LANE_UNROLL _Pragma("unroll")

// Transpose of a square block of FFT_LANES vectors in registers, v[i].s(k) <-> v[k].s(i): rounds
// d = FFT_LANES / 2 ... 1 swap the off-diagonal d x d blocks of every pair of rows d apart, each
// new row drawn from two old ones (one two-source shuffle; swizzles, not shuffle2(), which PoCL
// runs element by element).
#define FFT_TR_ROUND(v, d, LO, HI)                      \
  FFT_LANE_UNROLL for (int i = 0; i < FFT_LANES; ++i) { \
    if ((i & (d)) == 0) {                               \
      const FFT_LANE_T x_ = LO(v[i], v[i + (d)]);       \
      v[i + (d)] = HI(v[i], v[i + (d)]);                \
      v[i] = x_;                                        \
    }                                                   \
  }
#if FFT_LANES == 4
#define FFT_TR2_LO(a, b) (float4)(a.lo, b.lo)
#define FFT_TR2_HI(a, b) (float4)(a.hi, b.hi)
#define FFT_TR1_LO(a, b) (float4)(a.s0, b.s0, a.s2, b.s2)
#define FFT_TR1_HI(a, b) (float4)(a.s1, b.s1, a.s3, b.s3)
#define FFT_LANE_TRANSPOSE(v)                \
  FFT_TR_ROUND(v, 2, FFT_TR2_LO, FFT_TR2_HI) \
  FFT_TR_ROUND(v, 1, FFT_TR1_LO, FFT_TR1_HI)
#elif FFT_LANES == 8
#define FFT_TR4_LO(a, b) (float8)(a.lo, b.lo)
#define FFT_TR4_HI(a, b) (float8)(a.hi, b.hi)
#define FFT_TR2_LO(a, b) (float8)(a.s01, b.s01, a.s45, b.s45)
#define FFT_TR2_HI(a, b) (float8)(a.s23, b.s23, a.s67, b.s67)
#define FFT_TR1_LO(a, b) (float8)(a.s0, b.s0, a.s2, b.s2, a.s4, b.s4, a.s6, b.s6)
#define FFT_TR1_HI(a, b) (float8)(a.s1, b.s1, a.s3, b.s3, a.s5, b.s5, a.s7, b.s7)
#define FFT_LANE_TRANSPOSE(v)                \
  FFT_TR_ROUND(v, 4, FFT_TR4_LO, FFT_TR4_HI) \
  FFT_TR_ROUND(v, 2, FFT_TR2_LO, FFT_TR2_HI) \
  FFT_TR_ROUND(v, 1, FFT_TR1_LO, FFT_TR1_HI)
#else
#define FFT_TR8_LO(a, b) (float16)(a.lo, b.lo)
#define FFT_TR8_HI(a, b) (float16)(a.hi, b.hi)
#define FFT_TR4_LO(a, b) (float16)(a.s0123, b.s0123, a.s89ab, b.s89ab)
#define FFT_TR4_HI(a, b) (float16)(a.s4567, b.s4567, a.scdef, b.scdef)
#define FFT_TR2_LO(a, b) (float16)(a.s01, b.s01, a.s45, b.s45, a.s89, b.s89, a.scd, b.scd)
#define FFT_TR2_HI(a, b) (float16)(a.s23, b.s23, a.s67, b.s67, a.sab, b.sab, a.sef, b.sef)
#define FFT_TR1_LO(a, b) \
  (float16)(a.s0, b.s0, a.s2, b.s2, a.s4, b.s4, a.s6, b.s6, a.s8, b.s8, a.sa, b.sa, a.sc, b.sc, a.se, b.se)
#define FFT_TR1_HI(a, b) \
  (float16)(a.s1, b.s1, a.s3, b.s3, a.s5, b.s5, a.s7, b.s7, a.s9, b.s9, a.sb, b.sb, a.sd, b.sd, a.sf, b.sf)
#define FFT_LANE_TRANSPOSE(v)                \
  FFT_TR_ROUND(v, 8, FFT_TR8_LO, FFT_TR8_HI) \
  FFT_TR_ROUND(v, 4, FFT_TR4_LO, FFT_TR4_HI) \
  FFT_TR_ROUND(v, 2, FFT_TR2_LO, FFT_TR2_HI) \
  FFT_TR_ROUND(v, 1, FFT_TR1_LO, FFT_TR1_HI)
#endif

// Element e of FFT_LANES adjacent transforms: 2 FFT_LANES floats from p, split into the real
// parts (even) and imaginary parts (odd), and back.
#if FFT_LANES != 16
#if FFT_LANES == 4
#define FFT_LANE_T2 float8  // two values per lane
#define FFT_LANE_VLOAD2 vload8
#define FFT_LANE_VSTORE2 vstore8
#else
#define FFT_LANE_T2 float16
#define FFT_LANE_VLOAD2 vload16
#define FFT_LANE_VSTORE2 vstore16
#endif
#define FFT_LANE_VLOADC(p, re, im)                \
  {                                               \
    const FFT_LANE_T2 x_ = FFT_LANE_VLOAD2(0, p); \
    re = x_.even;                                 \
    im = x_.odd;                                  \
  }
#define FFT_LANE_VSTOREC(re, im, p) \
  {                                 \
    FFT_LANE_T2 x_;                 \
    x_.even = re;                   \
    x_.odd = im;                    \
    FFT_LANE_VSTORE2(x_, 0, p);     \
  }
#else
#define FFT_LANE_VLOADC(p, re, im)                        \
  {                                                       \
    const float16 x_ = vload16(0, p), y_ = vload16(1, p); \
    re = (float16)(x_.even, y_.even);                     \
    im = (float16)(x_.odd, y_.odd);                       \
  }
#define FFT_LANE_VSTOREC(re, im, p) \
  {                                 \
    float16 x_, y_;                 \
    x_.even = re.lo;                \
    x_.odd = im.lo;                 \
    y_.even = re.hi;                \
    y_.odd = im.hi;                 \
    vstore16(x_, 0, p);             \
    vstore16(y_, 1, p);             \
  }
#endif

// Lane by lane complex products: x w, and x times one value w for every lane.
static inline __attribute__((always_inline)) fft_c fft_lane_mul(const fft_c x, const fft_c w) {
  const fft_c o = {x.r * w.r - x.i * w.i, x.r * w.i + x.i * w.r};
  return o;
}
static inline __attribute__((always_inline)) fft_c fft_lane_twiddle(const fft_c x, const float2 w) {
  const fft_c wv = {(FFT_LANE_T)(w.x), (FFT_LANE_T)(w.y)};
  return fft_lane_mul(x, wv);
}

// Element e of the table t for this work-item's lanes c0 ... c0 + FFT_LANES - 1 of a row of
// `count` (index c + e count), multiplied into x.
#define FFT_LANE_TABLE_MUL(x, t, e)                                                        \
  {                                                                                        \
    fft_c w_;                                                                              \
    FFT_LANE_VLOADC((const __global float*)((t) + (clf_index)(e)*count + c0), w_.r, w_.i); \
    x = fft_lane_mul(x, w_);                                                               \
  }

// One Stockham pass of radix R after passes whose radices multiply to NS, from SRC to DST.
#define FFT_LANE_PASS(R, NS, SRC, DST)                                                                                 \
  for (int j = 0; j < FFT_N / (R); ++j) {                                                                              \
    const int k = j % (NS);                                                                                            \
    fft_c v[R];                                                                                                        \
    FFT_LANE_UNROLL for (int r = 0; r < (R); ++r) v[r] = SRC[j + r * (FFT_N / (R))];                                   \
    if ((NS) > 1) {                                                                                                    \
      FFT_LANE_UNROLL for (int r = 1; r < (R); ++r) v[r] = fft_lane_twiddle(v[r], tw[(FFT_N / ((NS) * (R))) * r * k]); \
    }                                                                                                                  \
    FFT_LANE_BF(R)(v);                                                                                                 \
    const int o = (j / (NS)) * (NS) * (R) + k;                                                                         \
    FFT_LANE_UNROLL for (int q = 0; q < (R); ++q) DST[o + q * (NS)] = v[q];                                            \
  }

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void fft_lanes(
    const int count, const __global float2* in, const clf_index in_off, const clf_index in_dh, const clf_index in_dc,
    const clf_index in_S, __global float2* out, const clf_index out_off, const clf_index out_dh, const clf_index out_dc,
    const clf_index out_S, const float cj_in, const float cj_out, const float scale, const __global float2* restrict tw,
    const __global float2* restrict tw2, const __global float2* restrict tab, const clf_index in_dr,
    const clf_index out_dr) {
  fft_c a[FFT_N], b[FFT_N];
  const int c0 = get_global_id(0) * FFT_LANES;
  const clf_index row = get_global_id(1), level = get_global_id(2);
  const __global float2* src = in + in_off + row * in_dh + level * in_dr;
  __global float2* dst = out + out_off + row * out_dh + level * out_dr;
#if FFT_LANE_RODD  // the real side's base, in floats
  const clf_index fbase =
      (FFT_LANE_RODD == 1 ? in_off + row * in_dh + level * in_dr : out_off + row * out_dh + level * out_dr);
#endif
  // A work-item whose lanes are all transforms of the batch: whole vectors where the side's
  // transforms are adjacent; the last one of a batch that is no multiple of FFT_LANES gathers.
  const bool lanes_whole = c0 + FFT_LANES <= count;
#if FFT_IN_LUNIT
  if (lanes_whole) {
    for (int e = 0; e < FFT_N; ++e) {  // element e of the lanes' adjacent transforms: one vector
      FFT_LANE_VLOADC((const __global float*)(src + c0 + (clf_index)e * in_S), a[e].r, a[e].i);
      a[e].i *= cj_in;
    }
  }
#endif
#if FFT_IN_EUNIT
  for (int e = 0; e < FFT_N; e += FFT_LANES) {  // elements e ... e + FFT_LANES - 1 of every lane
    FFT_LANE_T re[FFT_LANES], im[FFT_LANES];
    FFT_LANE_UNROLL for (int l = 0; l < FFT_LANES; ++l) {
      const int t = min(c0 + l, count - 1);
      FFT_LANE_VLOADC((const __global float*)(src + (clf_index)t * in_dc + e), re[l], im[l]);
    }
    FFT_LANE_TRANSPOSE(re)
    FFT_LANE_TRANSPOSE(im)
    FFT_LANE_UNROLL for (int k = 0; k < FFT_LANES; ++k) {
      a[e + k].r = re[k];
      a[e + k].i = im[k] * cj_in;
    }
  }
#else
  if (!(FFT_IN_LUNIT && lanes_whole)) {  // gathered lane by lane
    for (int e = 0; e < FFT_LANE_LEN; ++e) {
      float re[FFT_LANES], im[FFT_LANES];
      for (int l = 0; l < FFT_LANES; ++l) {
        const int t = min(c0 + l, count - 1);
#if FFT_LANE_RODD == 1
        const float2 x =
            (float2)(((const __global float*)in)[fbase + (clf_index)t * in_dc + (clf_index)e * in_S], 0.0f);
#elif FFT_LANE_RODD == 2
        const int h = FFT_LANE_LEN / 2;  // X_e, or conj X_(n-e) beyond n/2; X_0 taken as real
        float2 x = src[(clf_index)t * in_dc + (clf_index)(e <= h ? e : FFT_LANE_LEN - e) * in_S];
        x.y = e == 0 ? 0.0f : e <= h ? x.y : -x.y;
#elif FFT_LANE_GLEN && FFT_LANE_PRE
        const float2 x =
            t + e * count < FFT_LANE_GLEN ? src[(clf_index)t * in_dc + (clf_index)e * in_S] : (float2)(0.0f);
#else
        const float2 x = src[(clf_index)t * in_dc + (clf_index)e * in_S];
#endif
        re[l] = x.x;
        im[l] = x.y * cj_in;
      }
      a[e].r = FFT_LANE_LOAD(0, re);
      a[e].i = FFT_LANE_LOAD(0, im);
#if FFT_LANE_BLUE
      a[e] = fft_lane_twiddle(a[e], tw2[e]);  // the chirp
#endif
#if FFT_LANE_PRE
      FFT_LANE_TABLE_MUL(a[e], tab, e)
#endif
    }
#if FFT_LANE_BLUE
    for (int e = FFT_LANE_LEN; e < FFT_N; ++e) {  // zero padding to the convolution length
      a[e].r = 0.0f;
      a[e].i = 0.0f;
    }
#endif
  }
#endif
#if FFT_NP % 2
#define FFT_LANE_RESULT b
#else
#define FFT_LANE_RESULT a
#endif
  // One transform; Bluestein: then the product with the chirp's spectrum tab (1/FFT_N included),
  // conjugated, and the same transform again (an inverse one, conjugated back at the store).
  for (int rep = 0; rep <= FFT_LANE_BLUE; ++rep) {
    if (rep == 1) {
      for (int e = 0; e < FFT_N; ++e) {
        const fft_c y = fft_lane_twiddle(FFT_LANE_RESULT[e], tab[e]);
        a[e].r = y.r;
        a[e].i = -y.i;
      }
    }
    // Passes alternate between a and b; FFT_NS<p> is the product of the radices before pass p.
    FFT_LANE_PASS(FFT_R1, 1, a, b)
#if FFT_NP >= 2
#define FFT_NS2 (FFT_R1)
    FFT_LANE_PASS(FFT_R2, FFT_NS2, b, a)
#endif
#if FFT_NP >= 3
#define FFT_NS3 (FFT_NS2 * FFT_R2)
    FFT_LANE_PASS(FFT_R3, FFT_NS3, a, b)
#endif
#if FFT_NP >= 4
#define FFT_NS4 (FFT_NS3 * FFT_R3)
    FFT_LANE_PASS(FFT_R4, FFT_NS4, b, a)
#endif
#if FFT_NP >= 5
#define FFT_NS5 (FFT_NS4 * FFT_R4)
    FFT_LANE_PASS(FFT_R5, FFT_NS5, a, b)
#endif
#if FFT_NP >= 6
#define FFT_NS6 (FFT_NS5 * FFT_R5)
    FFT_LANE_PASS(FFT_R6, FFT_NS6, b, a)
#endif
#if FFT_NP >= 7
#define FFT_NS7 (FFT_NS6 * FFT_R6)
    FFT_LANE_PASS(FFT_R7, FFT_NS7, a, b)
#endif
#if FFT_NP >= 8
#define FFT_NS8 (FFT_NS7 * FFT_R7)
    FFT_LANE_PASS(FFT_R8, FFT_NS8, b, a)
#endif
  }
#if FFT_LANE_RPOST
  // A real plan's post-processing (fft_real.cl's fft_real_post, even n = 2 FFT_N): X_k = (Z_k +
  // conj Z_(m-k)) / 2 - (i/2) W_n^k (Z_k - conj Z_(m-k)), k = 0 .. m = FFT_N (Z_m = Z_0),
  // W_n^k = tab[k]; stored lane by lane (FFT_N + 1 values per transform).
#if FFT_LANE_BLUE || FFT_LANE_TW || FFT_LANE_POST || FFT_OUT_LUNIT || FFT_OUT_EUNIT
#error "the real post-processing stores a one-launch transform lane by lane"
#endif
  for (int k = 0; k <= FFT_N; ++k) {
    const fft_c za = FFT_LANE_RESULT[k == FFT_N ? 0 : k], zb = FFT_LANE_RESULT[k == 0 ? 0 : FFT_N - k];
    fft_c v;
    v.r = 0.5f * (za.i + zb.i);  // -i (Z_k - conj Z_(m-k)) / 2
    v.i = -0.5f * (za.r - zb.r);
    const fft_c w = fft_lane_twiddle(v, tab[k]);
    fft_c y;
    y.r = (0.5f * (za.r + zb.r) + w.r) * scale;
    y.i = (0.5f * (za.i - zb.i) + w.i) * scale * cj_out;
    float re[FFT_LANES], im[FFT_LANES];
    FFT_LANE_STORE(y.r, 0, re);
    FFT_LANE_STORE(y.i, 0, im);
    for (int l = 0; l < FFT_LANES; ++l)
      if (c0 + l < count) dst[(clf_index)(c0 + l) * out_dc + (clf_index)k * out_S] = (float2)(re[l], im[l]);
  }
#else
#if FFT_OUT_EUNIT && !FFT_OUT_LUNIT
  FFT_LANE_T ore[FFT_LANES], oim[FFT_LANES];
#endif
  for (int e = 0; e < FFT_LANE_LEN; ++e) {
    fft_c y = FFT_LANE_RESULT[e];
#if FFT_LANE_TW
    FFT_LANE_TABLE_MUL(y, tw2, e)
#endif
#if FFT_LANE_POST
    FFT_LANE_TABLE_MUL(y, tab, e)
#endif
#if FFT_LANE_BLUE
    const float2 w = tw2[e];
    y = fft_lane_twiddle(y, (float2)(w.x, -w.y));  // the conjugate chirp, before cj_out conjugates
#endif
    y.r *= scale;
    y.i *= scale * cj_out;
#if FFT_OUT_LUNIT
    if (lanes_whole) {
      FFT_LANE_VSTOREC(y.r, y.i, (__global float*)(dst + c0 + (clf_index)e * out_S));
      continue;
    }
#endif
#if FFT_OUT_EUNIT
    const int k = e % FFT_LANES;  // gathered over FFT_LANES elements, transposed, stored by lane
    ore[k] = y.r;
    oim[k] = y.i;
    if (k == FFT_LANES - 1) {
      FFT_LANE_TRANSPOSE(ore)
      FFT_LANE_TRANSPOSE(oim)
      FFT_LANE_UNROLL for (int l = 0; l < FFT_LANES; ++l) if (c0 + l < count)
          FFT_LANE_VSTOREC(ore[l], oim[l], (__global float*)(dst + (clf_index)(c0 + l) * out_dc + (e - k)));
    }
#else
    float re[FFT_LANES], im[FFT_LANES];
    FFT_LANE_STORE(y.r, 0, re);
    FFT_LANE_STORE(y.i, 0, im);
    for (int l = 0; l < FFT_LANES; ++l) {
      const int t = c0 + l;
      bool store = t < count;
#if FFT_LANE_GLEN && FFT_LANE_POST
      store = store && t + e * count < FFT_LANE_GLEN;  // in #if: a constant operand of && warns
#endif
#if FFT_LANE_RODD == 1
      store = store && e <= FFT_LANE_LEN / 2;          // the half spectrum
#endif
#if FFT_LANE_RODD == 2
      if (store) ((__global float*)out)[fbase + (clf_index)t * out_dc + (clf_index)e * out_S] = re[l];
#else
      if (store) dst[(clf_index)t * out_dc + (clf_index)e * out_S] = (float2)(re[l], im[l]);
#endif
    }
#endif
  }
#endif
}
