// Shared by the Gaussian blur kernels: the pixel type and the border index mapping.
//
// Images are row-major; a pixel is one blur_t (float for one channel, float4 for four
// interleaved channels). Offsets and row pitches count pixels. The border mode is a run-time
// argument (it only affects loads at tile edges, never an inner loop):
//   0 clamp   ... a a | a b c      (edge pixel repeated)
//   1 mirror  ... c b a | a b c    (reflection about the edge, period 2n)
//   2 zero    ... 0 0 | a b c

// ---- routine constants ----
#ifndef BLUR_C
#define BLUR_C 1  // channels per pixel (1: float, 4: float4)
#endif

#if BLUR_C == 1
typedef float blur_t;
#define BLUR_ZERO 0.0f
#elif BLUR_C == 4
typedef float4 blur_t;
#define BLUR_ZERO ((float4)(0.0f))
#else
#error "BLUR_C must be 1 or 4"
#endif

#ifndef BLUR_WEIGHTS_GLOBAL
// 1: weights in __global memory (more than the 64 KiB of __constant
// that every device guarantees)
#define BLUR_WEIGHTS_GLOBAL 0
#endif
#if BLUR_WEIGHTS_GLOBAL
#define BLUR_WSPACE __global const
#else
#define BLUR_WSPACE __constant
#endif

#define BLUR_CLAMP 0
#define BLUR_MIRROR 1
#define BLUR_ZEROS 2

// Index of sample i of an n-sample line under the border mode; -1 for a zero sample.
inline int blur_index(int i, const int n, const int border) {
  if (i >= 0 && i < n) return i;
  if (border == BLUR_CLAMP) return i < 0 ? 0 : n - 1;
  if (border == BLUR_MIRROR) {
    const int p = 2 * n;
    int m = i % p;
    if (m < 0) m += p;
    return m < n ? m : p - 1 - m;
  }
  return -1;
}

// Pixel (col, row) of an image under the border mode (both indices may be outside).
inline blur_t blur_load(const __global blur_t* img, const clf_index pitch, int col, int row, const int width,
                        const int height, const int border) {
  const int c = blur_index(col, width, border), r = blur_index(row, height, border);
  return (c < 0 || r < 0) ? BLUR_ZERO : img[(clf_index)r * pitch + c];
}
