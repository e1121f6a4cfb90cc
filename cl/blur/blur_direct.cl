// Direct 2-D Gaussian blur (after blur_common.cl):
//
//   out(x, y) = sum_{dy=-ry..ry} gy[dy] * sum_{dx=-rx..rx} gx[dx] * in(x + dx, y + dy)
//
// a full (2rx+1) x (2ry+1) window per output pixel; the window weight is gx[dx] * gy[dy] (each
// a normalised truncated Gaussian, r = ceil(3 sigma)), applied as a gx-weighted sum of each
// window row scaled by gy (same taps, one multiply per tap fewer). Weights: wts[0 .. 2rx] = gx,
// wts[2rx+1 .. 2rx+2ry+1] = gy, in a buffer, so a new sigma never recompiles.
//
//   work-group BLUR_D_LX x BLUR_D_LY; output tile LX x TY, TY = LY * BLUR_D_WPT
//   work-item (lx, ly) computes column x0 + lx, rows y0 + ly + k * LY (k < WPT)
//
//        x0-rx        x0      x0+LX  x0+LX+rx
//   y0-ry +-------------------------------+
//         |   halo (border-mapped loads)  |
//   y0    |      +--------------+         |   local tile (LX + 2rx) x (TY + 2ry) pixels,
//         |      |  output tile |         |   size set by the launcher (dynamic local memory)
//   y0+TY |      +--------------+         |
//         +-------------------------------+
//
// BLUR_D_LOCAL = 0 reads every tap from global memory instead (the launcher also takes this
// path when the halo tile does not fit the device's local memory).

// ---- tuning parameters ----
#ifndef BLUR_D_LX
#define BLUR_D_LX 16  // work-group width = output tile width (8, 16, 32, 64)
#endif
#ifndef BLUR_D_LY
#define BLUR_D_LY 8  // work-group height (1, 2, 4, 8, 16, 32)
#endif
#ifndef BLUR_D_WPT
#define BLUR_D_WPT 1  // output rows per work-item (1, 2, 4, 8)
#endif
#ifndef BLUR_D_LOCAL
#define BLUR_D_LOCAL 1  // 1: halo tile in local memory; 0: taps read from global memory (0, 1)
#endif

// ---- derived ----
#define BLUR_D_TY (BLUR_D_LY * BLUR_D_WPT)  // output tile height

__kernel __attribute__((reqd_work_group_size(BLUR_D_LX, BLUR_D_LY, 1))) void blur_direct(
    const int width, const int height, const int border, const int rx, const int ry, BLUR_WSPACE float* restrict wts,
    const __global blur_t* restrict in, const clf_index in_off, const clf_index in_pitch, __global blur_t* restrict out,
    const clf_index out_off, const clf_index out_pitch, __local blur_t* restrict tile) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * BLUR_D_LX, y0 = get_group_id(1) * BLUR_D_TY;
  const int x = x0 + lx;
  BLUR_WSPACE float* gx = wts;
  BLUR_WSPACE float* gy = wts + 2 * rx + 1;
  in += in_off;
  out += out_off;

#if BLUR_D_LOCAL
  const int tw = BLUR_D_LX + 2 * rx, th = BLUR_D_TY + 2 * ry;
  for (int r = ly; r < th; r += BLUR_D_LY) {
    const int sy = blur_index(y0 - ry + r, height, border);
    for (int c = lx; c < tw; c += BLUR_D_LX) {
      const int sx = blur_index(x0 - rx + c, width, border);
      tile[r * tw + c] = (sx < 0 || sy < 0) ? BLUR_ZERO : in[(clf_index)sy * in_pitch + sx];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x >= width) return;
  for (int k = 0; k < BLUR_D_WPT; ++k) {
    const int ty = ly + k * BLUR_D_LY;
    if (y0 + ty >= height) break;
    blur_t acc = BLUR_ZERO;
    for (int dy = 0; dy <= 2 * ry; ++dy) {
      const __local blur_t* row = tile + (ty + dy) * tw + lx;
      blur_t s = BLUR_ZERO;
      for (int dx = 0; dx <= 2 * rx; ++dx) s = CLF_MAD((blur_t)gx[dx], row[dx], s);
      acc = CLF_MAD((blur_t)gy[dy], s, acc);
    }
    out[(clf_index)(y0 + ty) * out_pitch + x] = acc;
  }
#else
  (void)tile;
  if (x >= width) return;
  const bool inside_x = x - rx >= 0 && x + rx < width;
  for (int k = 0; k < BLUR_D_WPT; ++k) {
    const int y = y0 + ly + k * BLUR_D_LY;
    if (y >= height) break;
    blur_t acc = BLUR_ZERO;
    for (int dy = 0; dy <= 2 * ry; ++dy) {
      const int sy = blur_index(y - ry + dy, height, border);
      if (sy < 0) continue;
      const __global blur_t* row = in + (clf_index)sy * in_pitch;
      blur_t s = BLUR_ZERO;
      if (inside_x) {
        for (int dx = 0; dx <= 2 * rx; ++dx) s = CLF_MAD((blur_t)gx[dx], row[x - rx + dx], s);
      } else {
        for (int dx = 0; dx <= 2 * rx; ++dx) {
          const int sx = blur_index(x - rx + dx, width, border);
          if (sx >= 0) s = CLF_MAD((blur_t)gx[dx], row[sx], s);
        }
      }
      acc = CLF_MAD((blur_t)gy[dy], s, acc);
    }
    out[(clf_index)y * out_pitch + x] = acc;
  }
#endif
}
