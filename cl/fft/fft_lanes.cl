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
// (complex units), so every layout works. Lanes past the launch's `count` transforms read the
// last transform again and store nothing.
//
// Work-groups of one work-item: each work-item is independent, and PoCL gives work-groups to its
// threads. A work-item's private arrays take 2 FFT_N FFT_LANES 8 bytes (2 MiB for 16384 points
// in 8 lanes); the database row's FFT_LANE_MAX bounds the lengths that come here.
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
  for (int e = 0; e < FFT_N; ++e) {
    float re[FFT_LANES], im[FFT_LANES];
    FFT_LANE_STORE(FFT_LANE_RESULT[e].r * scale, 0, re);
    FFT_LANE_STORE(FFT_LANE_RESULT[e].i * (scale * cj_out), 0, im);
    for (int l = 0; l < FFT_LANES; ++l) {
      const int t = t0 + l;
      if (t < count) out[out_off + (clf_index)t * out_dh + (clf_index)e * out_S] = (float2)(re[l], im[l]);
    }
  }
}
