// The two ends of a real-input transform around the complex FFT (src/fft/fft_real.cpp,
// docs/fft.md "Real input"): n real values x_j per transform, their half spectrum X_k, k <= n/2
// (X_(n-k) = conj X_k gives the rest).
//
// Even n, m = n/2: the complex FFT of m points of z_j = x_(2j) + i x_(2j+1), then
//   X_k = (Z_k + conj Z_(m-k)) / 2 - (i/2) W_n^k (Z_k - conj Z_(m-k)),   Z_m = Z_0, k <= m;
// the inverse: Z_k = (X_k + conj X_(m-k)) + i W_n^-k (X_k - conj X_(m-k)), k < m, the inverse
// complex FFT of m points, and x_(2j) + i x_(2j+1) = z_j.
// Odd n: the complex FFT of n points of x_j + 0i, of which X_k, k <= n/2, is kept; the inverse
// extends X to the whole Hermitian spectrum and keeps the real parts.
// The imaginary parts of X_0 (and of X_(n/2) for even n) are ignored, as by FFTW and numpy.
//
//   fft_real_pack    real rows   -> complex rows   (before a forward transform)
//   fft_real_post    complex rows -> half spectrum (after it; scaled)
//   fft_real_pre     half spectrum -> complex rows (before an inverse transform)
//   fft_real_unpack  complex rows -> real rows     (after it; scaled)
//
// Element e of transform t is at off + t * dh + e * S on both sides: floats on the real side,
// float2 on the complex side (the scratch rows: dh = m or n, S = 1). Work-item (i, t) handles
// elements i, i + G, i + 2G, ... (G the NDRange's first size) of transforms t, t + H, ... < count
// of the launch (H its second size), or with FFT_REAL_CHUNK elements i P ... i P + P - 1 (P the
// elements over G, rounded up: CPUs, where a work-item's loop over consecutive elements reads
// vectors, and neighbouring work-items' elements a whole NDRange apart gathered element by
// element), groups of FFT_REAL_WG x FFT_REAL_TB work-items (several elements and transforms
// per group: on the H200 groups of one short row each were bound by the rate groups start at); tw[k] = W_n^k = exp(-2
// pi i k / n), k <= n/2, comes from the host (double precision). Every entry point takes the same parameters.

// ---- parameters ----
#ifndef FFT_REAL_WG
#define FFT_REAL_WG 64  // work-items per group along a transform (routine constant)
#endif
#ifndef FFT_REAL_TB
#define FFT_REAL_TB 4  // transforms per group (routine constant)
#endif
#define FFT_REAL_ATTR __attribute__((reqd_work_group_size(FFT_REAL_WG, FFT_REAL_TB, 1)))
// Elements j < items of transforms t < count, each work-item from its global ids in steps of the
// global sizes.
#ifndef FFT_REAL_CHUNK
#define FFT_REAL_CHUNK 0  // 1: a work-item's elements consecutive (tuning parameter, db/fft_real.json)
#endif
#if FFT_REAL_CHUNK
#define FFT_REAL_ELEMENTS(j, items)                                                                                 \
  for (clf_index t = get_global_id(1); t < count; t += get_global_size(1))                                          \
    for (int per_ = ((items) + (int)get_global_size(0) - 1) / (int)get_global_size(0), j = get_global_id(0) * per_, \
             end_ = min((int)(items), j + per_);                                                                    \
         j < end_; ++j)
#else
#define FFT_REAL_ELEMENTS(j, items)                                        \
  for (clf_index t = get_global_id(1); t < count; t += get_global_size(1)) \
    for (int j = get_global_id(0); j < (items); j += get_global_size(0))
#endif

inline float2 real_cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
inline float2 real_conj(float2 a) { return (float2)(a.x, -a.y); }

// Complex values per transform of the complex FFT: m = n/2 for even n, n for odd n.
inline int real_rows(int n) { return (n & 1) ? n : n / 2; }

__kernel FFT_REAL_ATTR void fft_real_pack(const int n, const int count, __global const float* restrict in,
                                          const clf_index in_off, const clf_index in_dh, const clf_index in_S,
                                          __global float2* restrict out, const clf_index out_off,
                                          const clf_index out_dh, const clf_index out_S, const float scale,
                                          __global const float2* restrict tw) {
  FFT_REAL_ELEMENTS(j, real_rows(n)) {
    const clf_index src = in_off + t * in_dh;
    float2 z;
    if (n & 1) {
      z = (float2)(in[src + (clf_index)j * in_S], 0.0f);
    } else {
      z = (float2)(in[src + (clf_index)(2 * j) * in_S], in[src + (clf_index)(2 * j + 1) * in_S]);
    }
    out[out_off + t * out_dh + (clf_index)j * out_S] = z;
  }
}

__kernel FFT_REAL_ATTR void fft_real_post(const int n, const int count, __global const float2* restrict in,
                                          const clf_index in_off, const clf_index in_dh, const clf_index in_S,
                                          __global float2* restrict out, const clf_index out_off,
                                          const clf_index out_dh, const clf_index out_S, const float scale,
                                          __global const float2* restrict tw) {
  const int h = n / 2;
  FFT_REAL_ELEMENTS(k, h + 1) {
    const clf_index src = in_off + t * in_dh;
    float2 x;
    if (n & 1) {
      x = in[src + (clf_index)k * in_S];
    } else {
      const float2 a = in[src + (clf_index)(k == h ? 0 : k) * in_S];
      const float2 b = real_conj(in[src + (clf_index)(k == 0 ? 0 : h - k) * in_S]);
      const float2 e = 0.5f * (a + b), d = 0.5f * (a - b);
      x = e + real_cmul(tw[k], (float2)(d.y, -d.x));  // E_k + W_n^k (-i d)
    }
    out[out_off + t * out_dh + (clf_index)k * out_S] = x * scale;
  }
}

__kernel FFT_REAL_ATTR void fft_real_pre(const int n, const int count, __global const float2* restrict in,
                                         const clf_index in_off, const clf_index in_dh, const clf_index in_S,
                                         __global float2* restrict out, const clf_index out_off, const clf_index out_dh,
                                         const clf_index out_S, const float scale, __global const float2* restrict tw) {
  const int h = n / 2;
  FFT_REAL_ELEMENTS(k, real_rows(n)) {
    const clf_index src = in_off + t * in_dh;
    float2 z;
    if (n & 1) {
      z = k <= h ? in[src + (clf_index)k * in_S] : real_conj(in[src + (clf_index)(n - k) * in_S]);
      if (k == 0) z.y = 0.0f;
    } else {
      float2 a = in[src + (clf_index)k * in_S];
      float2 b = real_conj(in[src + (clf_index)(h - k) * in_S]);
      if (k == 0) a.y = b.y = 0.0f;  // X_0 and X_(n/2) as real values
      const float2 w = real_cmul(real_conj(tw[k]), a - b);
      z = a + b + (float2)(-w.y, w.x);  // + i W_n^-k (a - b)
    }
    out[out_off + t * out_dh + (clf_index)k * out_S] = z;
  }
}

__kernel FFT_REAL_ATTR void fft_real_unpack(const int n, const int count, __global const float2* restrict in,
                                            const clf_index in_off, const clf_index in_dh, const clf_index in_S,
                                            __global float* restrict out, const clf_index out_off,
                                            const clf_index out_dh, const clf_index out_S, const float scale,
                                            __global const float2* restrict tw) {
  FFT_REAL_ELEMENTS(j, real_rows(n)) {
    const float2 z = in[in_off + t * in_dh + (clf_index)j * in_S] * scale;
    const clf_index dst = out_off + t * out_dh;
    if (n & 1) {
      out[dst + (clf_index)j * out_S] = z.x;
    } else {
      out[dst + (clf_index)(2 * j) * out_S] = z.x;
      out[dst + (clf_index)(2 * j + 1) * out_S] = z.y;
    }
  }
}
