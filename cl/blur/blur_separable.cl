// Separable Gaussian blur (after blur_common.cl): a row pass then a column pass,
//
//   tmp(x, y) = sum_{k=-r..r} w[k + r] * in(x + k, y)      (blur_rows, r = rx)
//   out(x, y) = sum_{k=-r..r} w[k + r] * tmp(x, y + k)     (blur_cols, r = ry)
//
// with w the normalised truncated Gaussian (r = ceil(3 sigma)) in a __constant buffer, so a new
// sigma never recompiles. Each pass reads its input once from global memory into a local tile
// with a halo of r pixels each side (loads are border-mapped there, nowhere else) and writes
// its output once.
//
// blur_rows: work-group BLUR_S_ROW_LX x BLUR_S_ROW_LY; one image row per ly. With one channel and
//   BLUR_S_ROW_VW = 4 each work-item computes 4 consecutive outputs from float4 local reads:
//   the weights are zero-padded to wp[0 .. 2R+3], R = r rounded up to a multiple of 4, and
//     out[x0 + 4 lx + j] = sum_m sum_s wp[4m + s] * tile[4 lx + j + 4m + s]
//   which is 16 FMAs per float4 read of local memory. The launcher passes wp for that case.
//   Tile row (pixels): [x0 - R, x0 + TX + R + 4), TX = LX * VW.
//
// blur_cols: work-group BLUR_S_COL_LX x BLUR_S_COL_LY; work-item (lx, ly) computes column x0 + lx
//   (columns x0 + CVW lx .. + CVW - 1 with BLUR_S_COL_VW = CVW), rows y0 + ly * WPT + k
//   (k < BLUR_S_COL_WPT) with a sliding window in registers (each local read feeds WPT FMAs).
//   Tile: (TY + 2r) rows x LX columns, TY = LY * WPT. Only output rows [y_first, y_first + rows)
//   are computed, row y written at out row y - y_first (the whole image: 0, height; a band of a
//   group call that computes in host memory: its own rows, not its halo).
//
//   rows:   tile ly: |halo R|  x0 .. x0+TX  |halo R+4|      cols:  rows y0-r .. y0+TY+r
//                                                                   x0 .. x0+LX (coalesced)
// Local tiles are dynamic (kernel argument), sized by the launcher from r.
// BLUR_S_LOCAL = 0: no tiles, every tap reads global memory (suits CPUs; the launcher also
// takes it when a tile does not fit the device's local memory). With one channel a work-item
// then computes BLUR_S_ROW_VW consecutive row outputs and BLUR_S_COL_VW consecutive columns as
// explicit float vectors (vloadn of the taps): CPU compilers such as PoCL vectorise explicit
// vector code at full width, while their vectorisation across work-items stops at barriers and
// local memory. The row pass keeps four accumulators (taps k mod 4) so its FMAs do not wait on
// each other; the column window already gives WPT independent ones. Work-items whose vector
// reaches past an image edge compute their outputs one by one.
//
// blur_sep_fused (BLUR_S_FUSED = F > 0): both passes in one kernel, for CPUs (local memory is
//   cache there). A work-group of the column pass's shape (NW = LX * LY work-items) computes
//   output rows y0 .. y0 + FY (FY = F rounded up to a multiple of WPT) of TX = LX * CVW
//   columns: first the row pass of the FY + 2 ry source rows they reach (border-mapped; rows of
//   a zero border are zero) into a local tile, from global-memory taps as blur_rows without
//   tiles, then the column pass from that tile with the register window of blur_cols. Work-item
//   t takes whole tile rows t, t + NW, ... in the row pass and blocks of WPT output rows across
//   the whole tile width in the column pass, so that each reads and writes runs of TX pixels (a
//   CPU runs a work-group's work-items one after the other: a work-item that took one column of
//   vectors down the tile would read a few cache lines from every row, which defeats the
//   prefetchers). The row pass's output never goes to global memory: 2 pixels of traffic per
//   pixel instead of 4, for (FY + 2 ry) / FY times the row pass's arithmetic.

// ---- tuning parameters ----
#ifndef BLUR_S_ROW_LX
#define BLUR_S_ROW_LX 64  // row pass work-group width (16, 32, 64, 128, 256)
#endif
#ifndef BLUR_S_ROW_LY
#define BLUR_S_ROW_LY 1  // row pass work-group height = image rows per work-group (1, 2, 4, 8)
#endif
#ifndef BLUR_S_ROW_VW
#define BLUR_S_ROW_VW 1  // consecutive row outputs per work-item, one channel (1, 4, 8, 16; local tiles: 4 or 1)
#endif
#ifndef BLUR_S_COL_LX
#define BLUR_S_COL_LX 32  // column pass work-group width (16, 32, 64, 128)
#endif
#ifndef BLUR_S_COL_LY
#define BLUR_S_COL_LY 8  // column pass work-group height (1, 2, 4, 8, 16)
#endif
#ifndef BLUR_S_COL_WPT
#define BLUR_S_COL_WPT 4  // consecutive column outputs per work-item (1, 2, 4, 8, 16)
#endif
#ifndef BLUR_S_COL_VW
#define BLUR_S_COL_VW 1  // consecutive columns per work-item, one channel, global-memory taps only (1, 4, 8, 16)
#endif
#ifndef BLUR_S_LOCAL
#define BLUR_S_LOCAL 1  // 1: local tiles with halo; 0: taps read from global memory (0, 1)
#endif
#ifndef BLUR_S_FUSED
#define BLUR_S_FUSED 0  // output rows per work-group of blur_sep_fused; 0: two passes (0, 16 .. 256)
#endif

// ---- derived ----
#if BLUR_S_LOCAL && BLUR_C == 1 && BLUR_S_ROW_VW == 4
#define BLUR_S_VEC 1  // float4 sliding row window
#else
#define BLUR_S_VEC 0
#endif
#if !BLUR_S_LOCAL && BLUR_C == 1
#define BLUR_S_RVW BLUR_S_ROW_VW  // row outputs per work-item of the global-tap row pass
#define BLUR_S_CVW BLUR_S_COL_VW  // columns per work-item of the global-tap column pass
#else
#define BLUR_S_RVW 1
#define BLUR_S_CVW 1
#endif
#define BLUR_S_TX (BLUR_S_ROW_LX * (BLUR_S_VEC ? 4 : BLUR_S_RVW))  // row outputs per work-group row
#define BLUR_S_TY (BLUR_S_COL_LY * BLUR_S_COL_WPT)
#define BLUR_S_FY \
  ((BLUR_S_FUSED + BLUR_S_COL_WPT - 1) / BLUR_S_COL_WPT * BLUR_S_COL_WPT)  // fused: output rows per group
#if BLUR_S_ROW_VW != 1 && BLUR_S_ROW_VW != 4 && BLUR_S_ROW_VW != 8 && BLUR_S_ROW_VW != 16
#error "BLUR_S_ROW_VW must be 1, 4, 8 or 16"
#endif
#if BLUR_S_COL_VW != 1 && BLUR_S_COL_VW != 4 && BLUR_S_COL_VW != 8 && BLUR_S_COL_VW != 16
#error "BLUR_S_COL_VW must be 1, 4, 8 or 16"
#endif
#define BLUR_S_CAT2(a, b) a##b
#define BLUR_S_CAT(a, b) BLUR_S_CAT2(a, b)
#define BLUR_S_RT BLUR_S_CAT(float, BLUR_S_RVW)  // row-pass vector (BLUR_S_RVW > 1 only)
#define BLUR_S_RLOAD BLUR_S_CAT(vload, BLUR_S_RVW)
#define BLUR_S_RSTORE BLUR_S_CAT(vstore, BLUR_S_RVW)
#if BLUR_S_CVW > 1
#define BLUR_S_CT BLUR_S_CAT(float, BLUR_S_CVW)  // column-pass value: BLUR_S_CVW columns
#define BLUR_S_CLOAD BLUR_S_CAT(vload, BLUR_S_CVW)
#define BLUR_S_CSTORE BLUR_S_CAT(vstore, BLUR_S_CVW)
#define BLUR_S_CZERO ((BLUR_S_CT)(0.0f))
#else
#define BLUR_S_CT blur_t
#define BLUR_S_CZERO BLUR_ZERO
#endif

// Row outputs x .. x + V - 1 as one V-float vector T from global-memory taps, s0 = row + x - r (the
// window inside the row): four accumulators (taps k mod 4), so that the FMAs do not wait on each other.
#define BLUR_S_ROW_VEC_FN(NAME, T, VLOAD)                                        \
  inline T NAME(const __global float* s0, const int r, BLUR_WSPACE float* wts) { \
    T a0 = (T)(0.0f), a1 = a0, a2 = a0, a3 = a0;                                 \
    int k = 0;                                                                   \
    for (; k + 3 <= 2 * r; k += 4) {                                             \
      a0 = CLF_MAD((T)wts[k], VLOAD(0, s0 + k), a0);                             \
      a1 = CLF_MAD((T)wts[k + 1], VLOAD(0, s0 + k + 1), a1);                     \
      a2 = CLF_MAD((T)wts[k + 2], VLOAD(0, s0 + k + 2), a2);                     \
      a3 = CLF_MAD((T)wts[k + 3], VLOAD(0, s0 + k + 3), a3);                     \
    }                                                                            \
    for (; k <= 2 * r; ++k) a0 = CLF_MAD((T)wts[k], VLOAD(0, s0 + k), a0);       \
    return (a0 + a1) + (a2 + a3);                                                \
  }
#if BLUR_S_RVW > 1
BLUR_S_ROW_VEC_FN(blur_row_vec_r, BLUR_S_RT, BLUR_S_RLOAD)
#endif
#if BLUR_S_CVW > 1 && BLUR_S_FUSED
BLUR_S_ROW_VEC_FN(blur_row_vec_c, BLUR_S_CT, BLUR_S_CLOAD)
#endif

// Rotating register window of the column passes: with BLUR_S_COL_AT(i) tile row i (row y0 - r + i
// of the image), acc[k] = sum_t w[t] * row (base + k + t), k < BLUR_S_COL_WPT. During tap t,
// win[(t + k) % WPT] holds tile row base + t + k, so output k adds w[t] * win[(t + k) % WPT]. Taps
// go in chunks of WPT (t0 a multiple of WPT), which makes every index a compile-time constant: no
// register moves, no local arrays.
#define BLUR_S_COL_WINDOW(acc, base, r, wts)                                                                    \
  do {                                                                                                          \
    BLUR_S_CT win[BLUR_S_COL_WPT];                                                                              \
    _Pragma("unroll") for (int k = 0; k < BLUR_S_COL_WPT; ++k) acc[k] = BLUR_S_CZERO;                           \
    _Pragma("unroll") for (int k = 0; k + 1 < BLUR_S_COL_WPT; ++k) win[k] = BLUR_S_COL_AT((base) + k);          \
    for (int t0 = 0; t0 <= 2 * (r); t0 += BLUR_S_COL_WPT) {                                                     \
      _Pragma("unroll") for (int j = 0; j < BLUR_S_COL_WPT; ++j) {                                              \
        if (t0 + j <= 2 * (r)) {                                                                                \
          win[(j + BLUR_S_COL_WPT - 1) % BLUR_S_COL_WPT] = BLUR_S_COL_AT((base) + t0 + j + BLUR_S_COL_WPT - 1); \
          const BLUR_S_CT wt = (BLUR_S_CT)((wts)[t0 + j]);                                                      \
          _Pragma("unroll") for (int k = 0; k < BLUR_S_COL_WPT; ++k) acc[k] =                                   \
              CLF_MAD(wt, win[(j + k) % BLUR_S_COL_WPT], acc[k]);                                               \
        }                                                                                                       \
      }                                                                                                         \
    }                                                                                                           \
  } while (0)

// Output x of row `src` from global-memory taps, border-mapped where the window leaves the row.
inline blur_t blur_row_out(const __global blur_t* src, const int x, const int width, const int border, const int r,
                           BLUR_WSPACE float* wts) {
  blur_t acc = BLUR_ZERO;
  if (x - r >= 0 && x + r < width) {
    for (int k = 0; k <= 2 * r; ++k) acc = CLF_MAD((blur_t)wts[k], src[x - r + k], acc);
  } else {
    for (int k = 0; k <= 2 * r; ++k) {
      const int sx = blur_index(x - r + k, width, border);
      if (sx >= 0) acc = CLF_MAD((blur_t)wts[k], src[sx], acc);
    }
  }
  return acc;
}

// Row `row` (border-mapped) of columns x .. x + BLUR_S_CVW - 1, for the variant without local memory.
inline BLUR_S_CT blur_col_at(const __global blur_t* in, const clf_index pitch, const int x, const int row,
                             const int height, const int border) {
  const int sy = blur_index(row, height, border);
#if BLUR_S_CVW > 1
  return sy < 0 ? BLUR_S_CZERO : BLUR_S_CLOAD(0, in + (clf_index)sy * pitch + x);
#else
  return sy < 0 ? BLUR_ZERO : in[(clf_index)sy * pitch + x];
#endif
}

__kernel __attribute__((reqd_work_group_size(BLUR_S_ROW_LX, BLUR_S_ROW_LY, 1))) void blur_rows(
    const int width, const int height, const int border, const int r, BLUR_WSPACE float* restrict wts,
    const __global blur_t* restrict in, const clf_index in_off, const clf_index in_pitch, __global blur_t* restrict out,
    const clf_index out_off, const clf_index out_pitch, __local float4* restrict tile4) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * BLUR_S_TX;
  const int y = get_group_id(1) * BLUR_S_ROW_LY + ly;
  in += in_off;
  out += out_off;
#if BLUR_S_LOCAL
#if BLUR_S_VEC
  const int R = (r + 3) & ~3;
  const int tw = BLUR_S_TX + 2 * R + 4;  // floats per tile row, a multiple of 4
#else
  const int R = r;
  const int tw = BLUR_S_TX + 2 * R;
#endif
  __local blur_t* trow = (__local blur_t*)tile4 + ly * tw;
  if (y < height) {
    const __global blur_t* src = in + (clf_index)y * in_pitch;
    if (x0 - R >= 0 && x0 - R + tw <= width) {
      for (int c = lx; c < tw; c += BLUR_S_ROW_LX) trow[c] = src[x0 - R + c];
    } else {
      for (int c = lx; c < tw; c += BLUR_S_ROW_LX) {
        const int sx = blur_index(x0 - R + c, width, border);
        trow[c] = sx < 0 ? BLUR_ZERO : src[sx];
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (y >= height) return;
  __global blur_t* dst = out + (clf_index)y * out_pitch;
#if BLUR_S_VEC
  const __local float4* t4 = (const __local float4*)trow + lx;
  BLUR_WSPACE float4* w4 = (BLUR_WSPACE float4*)wts;
  const int groups = R / 2 + 1;  // weight float4s: wp has 2R + 4 entries
  // Taps 4m .. 4m+3 of outputs 4lx+j read floats 4(lx+m)+j .. +3 of the pair (a, b) = (t4[m],
  // t4[m+1]); two steps per iteration let a and b swap roles without moves.
  float4 a = t4[0], acc = (float4)(0.0f);
#define BLUR_S_ROW_STEP(A, B, W)                                                             \
  acc.x = CLF_MAD(W.x, A.x, CLF_MAD(W.y, A.y, CLF_MAD(W.z, A.z, CLF_MAD(W.w, A.w, acc.x)))); \
  acc.y = CLF_MAD(W.x, A.y, CLF_MAD(W.y, A.z, CLF_MAD(W.z, A.w, CLF_MAD(W.w, B.x, acc.y)))); \
  acc.z = CLF_MAD(W.x, A.z, CLF_MAD(W.y, A.w, CLF_MAD(W.z, B.x, CLF_MAD(W.w, B.y, acc.z)))); \
  acc.w = CLF_MAD(W.x, A.w, CLF_MAD(W.y, B.x, CLF_MAD(W.z, B.y, CLF_MAD(W.w, B.z, acc.w))))
  int m = 0;
  for (; m + 1 < groups; m += 2) {
    const float4 b = t4[m + 1], c = t4[m + 2];
    const float4 w0 = w4[m], w1 = w4[m + 1];
    BLUR_S_ROW_STEP(a, b, w0);
    BLUR_S_ROW_STEP(b, c, w1);
    a = c;
  }
  if (m < groups) {
    const float4 b = t4[m + 1];
    const float4 w0 = w4[m];
    BLUR_S_ROW_STEP(a, b, w0);
  }
#undef BLUR_S_ROW_STEP
  const int xo = x0 + 4 * lx;
  if (xo + 3 < width) {
    vstore4(acc, 0, dst + xo);
  } else {
    if (xo < width) dst[xo] = acc.x;
    if (xo + 1 < width) dst[xo + 1] = acc.y;
    if (xo + 2 < width) dst[xo + 2] = acc.z;
  }
#else
  const int x = x0 + lx;
  if (x >= width) return;
  const __local blur_t* t = trow + lx;
  blur_t acc = BLUR_ZERO;
  for (int k = 0; k <= 2 * r; ++k) acc = CLF_MAD((blur_t)wts[k], t[k], acc);
  dst[x] = acc;
#endif
#else  // no local memory
  (void)tile4;
  const int x = x0 + lx * BLUR_S_RVW;
  if (x >= width || y >= height) return;
  const __global blur_t* src = in + (clf_index)y * in_pitch;
  __global blur_t* dst = out + (clf_index)y * out_pitch;
#if BLUR_S_RVW > 1
  if (x - r >= 0 && x + BLUR_S_RVW - 1 + r < width) {
    BLUR_S_RSTORE(blur_row_vec_r(src + x - r, r, wts), 0, dst + x);
    return;
  }
  for (int j = 0; j < BLUR_S_RVW && x + j < width; ++j) dst[x + j] = blur_row_out(src, x + j, width, border, r, wts);
#else
  dst[x] = blur_row_out(src, x, width, border, r, wts);
#endif
#endif
}

__kernel __attribute__((reqd_work_group_size(BLUR_S_COL_LX, BLUR_S_COL_LY, 1))) void blur_cols(
    const int width, const int height, const int border, const int r, const int y_first, const int rows,
    BLUR_WSPACE float* restrict wts, const __global blur_t* restrict in, const clf_index in_off,
    const clf_index in_pitch, __global blur_t* restrict out, const clf_index out_off, const clf_index out_pitch,
    __local blur_t* restrict tile) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x = (get_group_id(0) * BLUR_S_COL_LX + lx) * BLUR_S_CVW;  // first column
  const int y0 = y_first + get_group_id(1) * BLUR_S_TY;
  const int y_end =
      y_first + rows;  // output rows [y_first, y_end) of the height-row image, row y at out row y - y_first
  const int base = ly * BLUR_S_COL_WPT;  // first output row of this work-item, relative to y0
  in += in_off;
  out += out_off;
#if BLUR_S_LOCAL
  const int th = BLUR_S_TY + 2 * r;
  for (int i = ly; i < th; i += BLUR_S_COL_LY) {
    const int sy = blur_index(y0 - r + i, height, border);
    tile[i * BLUR_S_COL_LX + lx] = (x < width && sy >= 0) ? in[(clf_index)sy * in_pitch + x] : BLUR_ZERO;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#define BLUR_S_COL_AT(i) tile[(i)*BLUR_S_COL_LX + lx]
#else
  (void)tile;
#define BLUR_S_COL_AT(i) blur_col_at(in, in_pitch, x, y0 - r + (i), height, border)
#endif
  if (x >= width || y0 + base >= y_end) return;
#if BLUR_S_CVW > 1
  if (x + BLUR_S_CVW > width) {  // the columns left at the right edge, one by one
    for (int c = x; c < width; ++c)
      for (int k = 0; k < BLUR_S_COL_WPT && y0 + base + k < y_end; ++k) {
        float acc = 0.0f;
        for (int t = 0; t <= 2 * r; ++t) {
          const int sy = blur_index(y0 + base + k - r + t, height, border);
          if (sy >= 0) acc = CLF_MAD(wts[t], in[(clf_index)sy * in_pitch + c], acc);
        }
        out[(clf_index)(y0 + base + k - y_first) * out_pitch + c] = acc;
      }
    return;
  }
#endif
  BLUR_S_CT acc[BLUR_S_COL_WPT];
  BLUR_S_COL_WINDOW(acc, base, r, wts);
#undef BLUR_S_COL_AT
#pragma unroll
  for (int k = 0; k < BLUR_S_COL_WPT; ++k)
    if (y0 + base + k < y_end) {
#if BLUR_S_CVW > 1
      BLUR_S_CSTORE(acc[k], 0, out + (clf_index)(y0 + base + k - y_first) * out_pitch + x);
#else
      out[(clf_index)(y0 + base + k - y_first) * out_pitch + x] = acc[k];
#endif
    }
}

#if BLUR_S_FUSED
#if BLUR_S_LOCAL
#error "blur_sep_fused reads its row taps from global memory: build it with BLUR_S_LOCAL = 0"
#endif
// Row-pass outputs of columns x .. x + BLUR_S_CVW - 1 of row `src`, zero past the right edge.
inline BLUR_S_CT blur_row_cols(const __global blur_t* src, const int x, const int width, const int border, const int r,
                               BLUR_WSPACE float* wts) {
  if (x >= width) return BLUR_S_CZERO;
#if BLUR_S_CVW > 1
  if (x - r >= 0 && x + BLUR_S_CVW - 1 + r < width) return blur_row_vec_c(src + x - r, r, wts);
  float v[BLUR_S_CVW];
  for (int j = 0; j < BLUR_S_CVW; ++j) v[j] = x + j < width ? blur_row_out(src, x + j, width, border, r, wts) : 0.0f;
  return BLUR_S_CLOAD(0, v);
#else
  return blur_row_out(src, x, width, border, r, wts);
#endif
}

// Output rows [y_first, y_first + rows) as blur_cols writes them; tile: (FY + 2 ry) x LX values
// of BLUR_S_CVW columns.
__kernel __attribute__((reqd_work_group_size(BLUR_S_COL_LX, BLUR_S_COL_LY, 1))) void blur_sep_fused(
    const int width, const int height, const int border, const int rx, const int ry, const int y_first, const int rows,
    BLUR_WSPACE float* restrict wx, BLUR_WSPACE float* restrict wy, const __global blur_t* restrict in,
    const clf_index in_off, const clf_index in_pitch, __global blur_t* restrict out, const clf_index out_off,
    const clf_index out_pitch, __local BLUR_S_CT* restrict tile) {
  const int nw = BLUR_S_COL_LX * BLUR_S_COL_LY, t = get_local_id(1) * BLUR_S_COL_LX + get_local_id(0);
  const int x0 = get_group_id(0) * BLUR_S_COL_LX * BLUR_S_CVW;  // first column
  const int y0 = y_first + get_group_id(1) * BLUR_S_FY;
  const int y_end = y_first + rows;
  const int vecs = min(BLUR_S_COL_LX, (width - x0 + BLUR_S_CVW - 1) / BLUR_S_CVW);  // tile columns inside the image
  in += in_off;
  out += out_off;
  const int th = BLUR_S_FY + 2 * ry;
  for (int i = t; i < th; i += nw) {
    const int sy = blur_index(y0 - ry + i, height, border);
    const __global blur_t* src = in + (clf_index)(sy < 0 ? 0 : sy) * in_pitch;
    for (int c = 0; c < vecs; ++c)
      tile[i * BLUR_S_COL_LX + c] =
          sy < 0 ? BLUR_S_CZERO : blur_row_cols(src, x0 + c * BLUR_S_CVW, width, border, rx, wx);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int base = t * BLUR_S_COL_WPT; base < BLUR_S_FY && y0 + base < y_end; base += nw * BLUR_S_COL_WPT) {
    for (int c = 0; c < vecs; ++c) {
      const int x = x0 + c * BLUR_S_CVW;
#define BLUR_S_COL_AT(i) tile[(i)*BLUR_S_COL_LX + c]
      BLUR_S_CT acc[BLUR_S_COL_WPT];
      BLUR_S_COL_WINDOW(acc, base, ry, wy);
#undef BLUR_S_COL_AT
#pragma unroll
      for (int k = 0; k < BLUR_S_COL_WPT; ++k) {
        if (y0 + base + k >= y_end) break;
        __global blur_t* dst = out + (clf_index)(y0 + base + k - y_first) * out_pitch;
#if BLUR_S_CVW > 1
        if (x + BLUR_S_CVW <= width) {
          BLUR_S_CSTORE(acc[k], 0, dst + x);
        } else {
          float v[BLUR_S_CVW];
          BLUR_S_CSTORE(acc[k], 0, v);
          for (int j = 0; x + j < width; ++j) dst[x + j] = v[j];
        }
#else
        dst[x] = acc[k];
#endif
      }
    }
  }
}
#endif
