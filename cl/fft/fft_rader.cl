// The two ends of Rader's algorithm for a prime length n = FFT_RADER_N (src/fft/fft_rader.cpp,
// docs/fft.md "Rader"). With g a primitive root modulo n and m = n - 1,
//   X_0 = sum_j x_j,   X_(g^-q) = x_0 + sum_(r < m) x_(g^r) b_(q-r mod m),   b_k = W_n^(g^-k):
// a cyclic convolution of length m, which the plan's FFT launches between these two kernels
// compute (forward FFT, times FFT(b) / m, inverse FFT).
//
// fft_rader_in gathers a_q = x_(g^q) (perm[q] = g^q mod n) into the scratch row of its transform
// and writes x_0 and each work-group's partial sum of its a_q to the side values;
// fft_rader_out writes X_0 = x_0 + the partial sums and X_j = x_0 + c_(perm[j - 1]) (the q with
// g^-q = j) from the convolution c.
//
// Work-group w serves transform t = w / (groups per transform) of the launch: fft_rader_in
// FFT_RADER_G groups of about m / G values each, fft_rader_out ceil(n / FFT_RADER_WG) groups of
// FFT_RADER_WG outputs. Element e of transform t is at off + t * dh + e * S on both sides (the
// scratch side: dh = m, S = 1); its side values at side_off + t * (FFT_RADER_G + 1): x_0, then
// the G partial sums. Loads are conjugated by cj_in, stores by cj_out and scaled (the inverse
// transform is conj(F(conj(x))), as in fft.cl).

// ---- parameters (defaults: the transform of 17 points, one gather group of 256) ----
#ifndef FFT_RADER_N
#define FFT_RADER_N 17  // the prime length (routine constant)
#endif
#ifndef FFT_RADER_G
#define FFT_RADER_G 1  // gather work-groups per transform (routine constant)
#endif
#ifndef FFT_RADER_WG
#define FFT_RADER_WG 256  // work-items per group (tuning parameter)
#endif
#if (FFT_RADER_WG & (FFT_RADER_WG - 1)) != 0
#error "FFT_RADER_WG must be a power of two (the gather's sums are a tree)"
#endif

#define RADER_M (FFT_RADER_N - 1)
#define RADER_PER ((RADER_M + FFT_RADER_G - 1) / FFT_RADER_G)

__kernel __attribute__((reqd_work_group_size(FFT_RADER_WG, 1, 1))) void fft_rader_in(
    __global const float2* restrict in, const clf_index in_off, const clf_index in_dh, const clf_index in_S,
    __global float2* restrict out, const clf_index out_off, const clf_index out_dh, const clf_index out_S,
    const float cj_in, const float cj_out, const float scale, __global const uint* restrict perm,
    __global float2* restrict side, const clf_index side_off) {
  __local float2 part[FFT_RADER_WG];
  const int w = get_group_id(0), lid = get_local_id(0);
  const int t = w / FFT_RADER_G, g = w % FFT_RADER_G;
  const clf_index src = in_off + (clf_index)t * in_dh;
  const clf_index dst = out_off + (clf_index)t * out_dh;
  const int q1 = min(RADER_M, (g + 1) * RADER_PER);
  float2 s = (float2)(0.0f, 0.0f);
  for (int q = g * RADER_PER + lid; q < q1; q += FFT_RADER_WG) {
    float2 v = in[src + (clf_index)perm[q] * in_S];
    v.y *= cj_in;
    out[dst + (clf_index)q * out_S] = v;
    s += v;
  }
  part[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = FFT_RADER_WG / 2; h > 0; h >>= 1) {
    if (lid < h) part[lid] += part[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    __global float2* sv = side + side_off + (clf_index)t * (FFT_RADER_G + 1);
    sv[1 + g] = part[0];
    if (g == 0) {
      float2 x0 = in[src];
      x0.y *= cj_in;
      sv[0] = x0;
    }
  }
}

__kernel __attribute__((reqd_work_group_size(FFT_RADER_WG, 1, 1))) void fft_rader_out(
    __global const float2* restrict in, const clf_index in_off, const clf_index in_dh, const clf_index in_S,
    __global float2* restrict out, const clf_index out_off, const clf_index out_dh, const clf_index out_S,
    const float cj_in, const float cj_out, const float scale, __global const uint* restrict perm,
    __global const float2* restrict side, const clf_index side_off) {
  const int per = (FFT_RADER_N + FFT_RADER_WG - 1) / FFT_RADER_WG;
  const int w = get_group_id(0);
  const int t = w / per;
  const int j = (w % per) * FFT_RADER_WG + (int)get_local_id(0);
  if (j >= FFT_RADER_N) return;
  __global const float2* sv = side + side_off + (clf_index)t * (FFT_RADER_G + 1);
  float2 v = sv[0];
  if (j == 0) {
    for (int g = 0; g < FFT_RADER_G; ++g) v += sv[1 + g];
  } else {
    v += in[in_off + (clf_index)t * in_dh + (clf_index)perm[j - 1] * in_S];
  }
  out[out_off + (clf_index)t * out_dh + (clf_index)j * out_S] = (float2)(v.x * scale, v.y * cj_out * scale);
}
