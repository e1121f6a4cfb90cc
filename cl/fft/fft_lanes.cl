// Batched 1-D complex FFT for CPU devices (after fft_butterflies.cl): one work-item transforms
// FFT_LANES transforms at once, lane l of every value vector holding transform t0 + l.
//
// CPU compilers such as PoCL run a work-group as a loop over its work-items and vectorise across
// them only where no barrier or local memory intervenes; the kernels of fft.cl exchange through
// local memory between their passes, so on CPUs they run as scalar code. Here the vectors are
// explicit: every butterfly, twiddle and exchange works on FFT_LANES transforms in one vector
// operation, and the transforms never need a shuffle (lane l only ever meets lane l). A work-item
// keeps its transforms in two private arrays of FFT_N values (ping-pong between the passes,
// Stockham autosort: pass p with radix R reads v[j + r N/R], multiplies by W_(NS R)^(r (j mod NS)),
// runs the R-point butterfly and writes (j / NS) NS R + j mod NS + q NS, NS the product of the
// earlier radices; the last pass leaves natural order). Loads gather element e of the lanes'
// transforms, stores scatter it: element e of transform t at in[in_off + t in_dh + e in_S]
// (complex units), so every layout works; with 8 lanes and adjacent elements they move blocks of
// 8 elements per transform and transpose them in registers (below). Lanes past the launch's
// `count` transforms read the last transform again and store nothing.
//
// Work-groups of one work-item: each work-item is independent, and PoCL gives work-groups to its
// threads. A work-item's private arrays take 2 FFT_N FFT_LANES 8 bytes (512 KiB for 4096 points
// in 8 lanes); the launcher keeps that within the device's limit (FFT_LANE_MAX).
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

#ifndef FFT_IN_UNIT
#define FFT_IN_UNIT 0  // 1: the input's elements are adjacent (in_S = 1)
#endif
#ifndef FFT_OUT_UNIT
#define FFT_OUT_UNIT 0  // 1: the output's elements are adjacent (out_S = 1)
#endif

// ---- derived ----
#if FFT_LANES != 4 && FFT_LANES != 8 && FFT_LANES != 16
#error "FFT_LANES must be 4, 8 or 16"
#endif
#if FFT_NP < 1 || FFT_NP > 8
#error "FFT_NP must be 1 .. 8"
#endif
#define FFT_LANE_LOAD FFT_LANE_CAT(vload, FFT_LANES)
#define FFT_LANE_STORE FFT_LANE_CAT(vstore, FFT_LANES)
#define FFT_LANE_BF(R) FFT_LANE_CAT(fft_bf, R)

// With 8 lanes and adjacent elements, loads and stores move 8 elements of one transform as one
// float16 and turn 8 such rows into 8 columns (element k of the 8 lanes' transforms) with an
// 8 x 8 transpose of complex values in registers (three rounds of shuffles), instead of gathering
// and scattering element by element.
#define FFT_LANE_BLOCK_IN (FFT_LANES == 8 && FFT_IN_UNIT && FFT_N % 8 == 0)
#define FFT_LANE_BLOCK_OUT (FFT_LANES == 8 && FFT_OUT_UNIT && FFT_N % 8 == 0)

#if FFT_LANE_BLOCK_IN || FFT_LANE_BLOCK_OUT
// Rows x[0..7] of 8 complex values each become columns: x[k] holds value k of every former row.
static inline __attribute__((always_inline)) void fft_lane_transpose8(float16* x) {
  float16 s[8], t[8];
  for (int p = 0; p < 8; p += 2) {  // pairs of rows, single values interleaved
    s[p] = shuffle2(x[p], x[p + 1], (uint16)(0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29));
    s[p + 1] = shuffle2(x[p], x[p + 1], (uint16)(2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31));
  }
  for (int q = 0; q < 8; q += 4)  // pairs of values
    for (int o = 0; o < 2; ++o) {
      t[q + o] = shuffle2(s[q + o], s[q + o + 2], (uint16)(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27));
      t[q + o + 2] =
          shuffle2(s[q + o], s[q + o + 2], (uint16)(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31));
    }
  for (int o = 0; o < 4; ++o) {  // quadruples of values
    x[o] = shuffle2(t[o], t[o + 4], (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
    x[o + 4] = shuffle2(t[o], t[o + 4], (uint16)(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
  }
}
#endif

static inline __attribute__((always_inline)) fft_c fft_lane_twiddle(const fft_c x, const float2 w) {
  const fft_c o = {x.r * w.x - x.i * w.y, x.r * w.y + x.i * w.x};
  return o;
}

// One Stockham pass of radix R after passes whose radices multiply to NS, from SRC to DST.
#define FFT_LANE_PASS(R, NS, SRC, DST)                                                                 \
  for (int j = 0; j < FFT_N / (R); ++j) {                                                              \
    const int k = j % (NS);                                                                            \
    fft_c v[R];                                                                                        \
    for (int r = 0; r < (R); ++r) v[r] = SRC[j + r * (FFT_N / (R))];                                   \
    if ((NS) > 1) {                                                                                    \
      for (int r = 1; r < (R); ++r) v[r] = fft_lane_twiddle(v[r], tw[(FFT_N / ((NS) * (R))) * r * k]); \
    }                                                                                                  \
    FFT_LANE_BF(R)(v);                                                                                 \
    const int o = (j / (NS)) * (NS) * (R) + k;                                                         \
    for (int q = 0; q < (R); ++q) DST[o + q * (NS)] = v[q];                                            \
  }

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void fft_lanes(
    const int count, const __global float2* in, const clf_index in_off, const clf_index in_dh, const clf_index in_S,
    __global float2* out, const clf_index out_off, const clf_index out_dh, const clf_index out_S, const float cj_in,
    const float cj_out, const float scale, const __global float2* restrict tw) {
  fft_c a[FFT_N], b[FFT_N];
  const int t0 = get_global_id(0) * FFT_LANES;
#if FFT_LANE_BLOCK_IN
  for (int e0 = 0; e0 < FFT_N; e0 += 8) {
    float16 x[8];
    for (int l = 0; l < 8; ++l)
      x[l] = vload16(0, (const __global float*)(in + in_off + (clf_index)min(t0 + l, count - 1) * in_dh + e0));
    fft_lane_transpose8(x);
    for (int k = 0; k < 8; ++k) {
      a[e0 + k].r = x[k].even;
      a[e0 + k].i = x[k].odd * cj_in;
    }
  }
#else
  for (int e = 0; e < FFT_N; ++e) {
    float re[FFT_LANES], im[FFT_LANES];
    for (int l = 0; l < FFT_LANES; ++l) {
      const int t = min(t0 + l, count - 1);
      const float2 x = in[in_off + (clf_index)t * in_dh + (clf_index)e * in_S];
      re[l] = x.x;
      im[l] = x.y * cj_in;
    }
    a[e].r = FFT_LANE_LOAD(0, re);
    a[e].i = FFT_LANE_LOAD(0, im);
  }
#endif
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
#if FFT_NP % 2
#define FFT_LANE_RESULT b
#else
#define FFT_LANE_RESULT a
#endif
#if FFT_LANE_BLOCK_OUT
  for (int e0 = 0; e0 < FFT_N; e0 += 8) {
    float16 x[8];
    for (int k = 0; k < 8; ++k)
      x[k] = shuffle2(FFT_LANE_RESULT[e0 + k].r * scale, FFT_LANE_RESULT[e0 + k].i * (scale * cj_out),
                      (uint16)(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
    fft_lane_transpose8(x);
    for (int l = 0; l < 8; ++l)
      if (t0 + l < count) vstore16(x[l], 0, (__global float*)(out + out_off + (clf_index)(t0 + l) * out_dh + e0));
  }
#else
  for (int e = 0; e < FFT_N; ++e) {
    float re[FFT_LANES], im[FFT_LANES];
    FFT_LANE_STORE(FFT_LANE_RESULT[e].r * scale, 0, re);
    FFT_LANE_STORE(FFT_LANE_RESULT[e].i * (scale * cj_out), 0, im);
    for (int l = 0; l < FFT_LANES; ++l) {
      const int t = t0 + l;
      if (t < count) out[out_off + (clf_index)t * out_dh + (clf_index)e * out_S] = (float2)(re[l], im[l]);
    }
  }
#endif
}
