// Out-of-place transpose of a rows x cols row-major matrix:  out[c * out_ld + r] = in[r * in_ld + c].
//
// TRA_LOCAL = 1: one work-group moves one TRA_TILE x TRA_TILE tile through local memory so that
// both the global reads (along input rows) and the global writes (along output rows) are
// coalesced.
//
//   work-group: (TRA_TILE / TRA_VW) x (TRA_TILE / TRA_WPT) work-items
//   work-item (lx, ly) reads input rows  ly + k * (TRA_TILE / TRA_WPT), k < TRA_WPT,
//                       columns lx * TRA_VW .. + TRA_VW - 1 (one vector) where the launcher
//                       found that side aligned, else columns lx + v * (TRA_TILE / TRA_VW),
//                       v < TRA_VW (each load of a work-group row reads consecutive elements),
//   and writes output rows (input columns) in the same pattern from the transposed tile.
//
//        input tile (by, bx)                   output tile (bx, by)
//        +---------------+                      +---------------+
//   ly ->| - - - - - - - |   local [T][T+PAD]   | |             |
//        |               |  ----------------->  | |   columns   |
//        +---------------+                      +---------------+
//
// TRA_LOCAL = 0: no local memory and no barrier; each work-item transposes a TRA_WPT x TRA_VW
// block in registers: TRA_WPT vector loads along input rows, TRA_VW vector stores of TRA_WPT
// elements along output rows (suits CPUs, where a work-group is a loop over work-items). Floats
// aligned both ways with TRA_WPT a multiple of TRA_VW = 4 or 8 go as square blocks turned by
// vector shuffles, optionally stored around the caches (TRA_NT; see TRA_SQUARE_BLOCK below).
//
// Routine constants: TRA_ELEM_SIZE (4: float, 8: float2, 16: float4); TRA_ALIGN_IN and
// TRA_ALIGN_OUT (float elements only): the launcher checked that leading dimensions and offsets
// are multiples of the vector widths, so whole vectors are loaded/stored through vector pointers.

// ---- tuning parameters ----
#ifndef TRA_TILE
#define TRA_TILE 16  // tile edge in elements (4, 8, 16, 32, 64)
#endif
#ifndef TRA_WPT
#define TRA_WPT 1  // rows of the tile each work-item moves (1, 2, 4, 8, 16)
#endif
#ifndef TRA_VW
#define TRA_VW 1  // consecutive columns each work-item moves (1, 2, 4, 8)
#endif
#ifndef TRA_PAD
#define TRA_PAD 1  // extra local-memory column per tile row against bank conflicts (0, 1)
#endif
#ifndef TRA_DIAG
#define TRA_DIAG 0  // diagonal (skewed) work-group mapping against partition camping (0, 1)
#endif
#ifndef TRA_SWZ
#define TRA_SWZ 0  // band swizzle: consecutive work-groups walk down bands TRA_SWZ tiles wide (0: off)
#endif
#ifndef TRA_LOCAL
#define TRA_LOCAL 1  // 1: exchange through a local-memory tile; 0: register blocks (no barrier)
#endif
#ifndef TRA_NT
#define TRA_NT 0  // square register blocks: non-temporal (streaming) stores where the compiler has them
#endif

// ---- routine constants ----
#ifndef TRA_ELEM_SIZE
#define TRA_ELEM_SIZE 4
#endif
#ifndef TRA_ALIGN_IN
#define TRA_ALIGN_IN 0
#endif
#ifndef TRA_ALIGN_OUT
#define TRA_ALIGN_OUT 0
#endif

#if TRA_ELEM_SIZE == 4
typedef float tra_t;
#elif TRA_ELEM_SIZE == 8
typedef float2 tra_t;
#elif TRA_ELEM_SIZE == 16
typedef float4 tra_t;
#else
#error "TRA_ELEM_SIZE must be 4, 8 or 16"
#endif

// ---- derived ----
#define TRA_ROW (TRA_TILE + TRA_PAD)  // padded local row
#define TRA_LX (TRA_TILE / TRA_VW)    // work-group width
#define TRA_LY (TRA_TILE / TRA_WPT)   // work-group height
#if TRA_WPT > TRA_TILE || TRA_VW > TRA_TILE
#error "TRA_WPT and TRA_VW must not exceed TRA_TILE"
#endif
#define TRA_CAT2(a, b) a##b
#define TRA_CAT(a, b) TRA_CAT2(a, b)
// Vector of n floats (n = 1 is a plain float).
#define TRA_VEC_1 float
#define TRA_VEC_2 float2
#define TRA_VEC_4 float4
#define TRA_VEC_8 float8
#define TRA_VEC_16 float16
#define TRA_VEC(n) TRA_CAT(TRA_VEC_, n)

// Copies n consecutive floats between a global vector and a private array, component by
// component (vloadn/vstoren on private arrays were miscompiled by PoCL 3.1 for some
// work-group shapes; explicit components are safe everywhere).
#define TRA_GET(n, dst, src) TRA_CAT(TRA_GET_, n)(dst, src)
#define TRA_GET_1(d, src) (d)[0] = *(src)
#define TRA_GET_2(d, src)                             \
  do {                                                \
    const float2 t_ = *(const __global float2*)(src); \
    (d)[0] = t_.s0;                                   \
    (d)[1] = t_.s1;                                   \
  } while (0)
#define TRA_GET_4(d, src)                             \
  do {                                                \
    const float4 t_ = *(const __global float4*)(src); \
    (d)[0] = t_.s0;                                   \
    (d)[1] = t_.s1;                                   \
    (d)[2] = t_.s2;                                   \
    (d)[3] = t_.s3;                                   \
  } while (0)
#define TRA_GET_8(d, src)                             \
  do {                                                \
    const float8 t_ = *(const __global float8*)(src); \
    (d)[0] = t_.s0;                                   \
    (d)[1] = t_.s1;                                   \
    (d)[2] = t_.s2;                                   \
    (d)[3] = t_.s3;                                   \
    (d)[4] = t_.s4;                                   \
    (d)[5] = t_.s5;                                   \
    (d)[6] = t_.s6;                                   \
    (d)[7] = t_.s7;                                   \
  } while (0)
#define TRA_PUT(n, dst, src) TRA_CAT(TRA_PUT_, n)(dst, src)
#define TRA_PUT_1(dst, x) *(dst) = (x)[0]
#define TRA_PUT_2(dst, x) *(__global float2*)(dst) = (float2)((x)[0], (x)[1])
#define TRA_PUT_4(dst, x) *(__global float4*)(dst) = (float4)((x)[0], (x)[1], (x)[2], (x)[3])
#define TRA_PUT_8(dst, x) \
  *(__global float8*)(dst) = (float8)((x)[0], (x)[1], (x)[2], (x)[3], (x)[4], (x)[5], (x)[6], (x)[7])
#define TRA_PUT_16(dst, x)                                                                                      \
  *(__global float16*)(dst) = (float16)((x)[0], (x)[1], (x)[2], (x)[3], (x)[4], (x)[5], (x)[6], (x)[7], (x)[8], \
                                        (x)[9], (x)[10], (x)[11], (x)[12], (x)[13], (x)[14], (x)[15])

// Square register blocks of floats turned by shuffles (TRA_LOCAL = 0, floats, both sides aligned,
// TRA_VW = 4 or 8 and TRA_WPT a multiple of it): a work-item moves TRA_WPT / TRA_VW square blocks
// down its column strip. TRA_SQUARE_BLOCK(r) loads rows r + k (k < TRA_VW) as vectors a0, a1, ...
// and stores output row c0 + v from r on as (a0.sv, a1.sv, ...); with TRA_WPT = 16 each output
// row gets a whole 64-byte line from one work-item.
#if TRA_LOCAL == 0 && TRA_ELEM_SIZE == 4 && (TRA_VW == 4 || TRA_VW == 8) && TRA_WPT % TRA_VW == 0
#define TRA_SQUARE_VEC 1
#else
#define TRA_SQUARE_VEC 0
#endif
// Odd output rows on CPUs (TRA_PHASED): floats, register blocks of 16 rows, non-temporal stores,
// an output side off the vector grid; see the kernel.
#if TRA_LOCAL == 0 && TRA_ELEM_SIZE == 4 && !TRA_ALIGN_OUT && TRA_WPT == 16 && TRA_NT
#define TRA_PHASED 1
#else
#define TRA_PHASED 0
#endif
#if TRA_ALIGN_IN
#define TRA_ROW_AT(r, k) (*(const __global TRA_VEC(TRA_VW)*)(in + (clf_index)((r) + (k)) * in_ld + c0))
#else
#define TRA_ROW_AT(r, k) TRA_CAT(vload, TRA_VW)(0, in + (clf_index)((r) + (k)) * in_ld + c0)
#endif
// TRA_NT = 1: output vectors go around the caches (a CPU then neither reads the output lines
// before writing them nor evicts the input for them); plain stores where the compiler has no
// non-temporal store.
#if TRA_NT && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define TRA_STORE(dst, x) __builtin_nontemporal_store((x), (dst))
#endif
#endif
#ifndef TRA_STORE
#define TRA_STORE(dst, x) (*(dst) = (x))
#endif
#define TRA_COL_PTR(r, v) ((__global TRA_VEC(TRA_VW)*)(out + (clf_index)(c0 + (v)) * out_ld + (r)))
#if TRA_ALIGN_OUT
#define TRA_PUT_COL(r, v, x) TRA_STORE(TRA_COL_PTR(r, v), x)
#else
#define TRA_PUT_COL(r, v, x) TRA_CAT(vstore, TRA_VW)(x, 0, out + (clf_index)(c0 + (v)) * out_ld + (r))
#endif
#if TRA_SQUARE_VEC && TRA_VW == 4
#define TRA_C4(c) (float4)(a0.c, a1.c, a2.c, a3.c)
#define TRA_SQUARE_BLOCK(r)                                                                                  \
  do {                                                                                                       \
    const float4 a0 = TRA_ROW_AT(r, 0), a1 = TRA_ROW_AT(r, 1), a2 = TRA_ROW_AT(r, 2), a3 = TRA_ROW_AT(r, 3); \
    TRA_PUT_COL(r, 0, TRA_C4(s0));                                                                           \
    TRA_PUT_COL(r, 1, TRA_C4(s1));                                                                           \
    TRA_PUT_COL(r, 2, TRA_C4(s2));                                                                           \
    TRA_PUT_COL(r, 3, TRA_C4(s3));                                                                           \
  } while (0)
#elif TRA_SQUARE_VEC && TRA_VW == 8
#define TRA_C8(c) (float8)(a0.c, a1.c, a2.c, a3.c, a4.c, a5.c, a6.c, a7.c)
#define TRA_SQUARE_BLOCK(r)                                                                                  \
  do {                                                                                                       \
    const float8 a0 = TRA_ROW_AT(r, 0), a1 = TRA_ROW_AT(r, 1), a2 = TRA_ROW_AT(r, 2), a3 = TRA_ROW_AT(r, 3), \
                 a4 = TRA_ROW_AT(r, 4), a5 = TRA_ROW_AT(r, 5), a6 = TRA_ROW_AT(r, 6), a7 = TRA_ROW_AT(r, 7); \
    TRA_PUT_COL(r, 0, TRA_C8(s0));                                                                           \
    TRA_PUT_COL(r, 1, TRA_C8(s1));                                                                           \
    TRA_PUT_COL(r, 2, TRA_C8(s2));                                                                           \
    TRA_PUT_COL(r, 3, TRA_C8(s3));                                                                           \
    TRA_PUT_COL(r, 4, TRA_C8(s4));                                                                           \
    TRA_PUT_COL(r, 5, TRA_C8(s5));                                                                           \
    TRA_PUT_COL(r, 6, TRA_C8(s6));                                                                           \
    TRA_PUT_COL(r, 7, TRA_C8(s7));                                                                           \
  } while (0)
#endif

__kernel __attribute__((reqd_work_group_size(TRA_LX, TRA_LY, 1))) void transpose_tiled(
    const int rows, const int cols, const __global tra_t* restrict in, const clf_index in_off, const clf_index in_ld,
    __global tra_t* restrict out, const clf_index out_off, const clf_index out_ld) {
  const int gx = get_num_groups(0);  // tiles along input columns
  const int gy = get_num_groups(1);  // tiles along input rows
#if TRA_DIAG
  // Skewed mapping: consecutive work-groups touch different memory partitions.
  const int bid = get_group_id(0) + gx * get_group_id(1);
  const int by = bid % gy;
  const int bx = (bid / gy + by) % gx;
#elif TRA_SWZ
  // Band swizzle: the groups of one wave cover a compact block of tiles (TRA_SWZ tiles wide,
  // many tall), so both the rows they read and the rows they write stay within few DRAM pages
  // instead of one 128-byte piece of every output row (power-of-two strides hit few channels).
  const int bid = get_group_id(0) + gx * get_group_id(1);
  const int band = bid / (TRA_SWZ * gy);
  const int rem = bid - band * (TRA_SWZ * gy);
  const int width = min(TRA_SWZ, gx - band * TRA_SWZ);
  const int bx = band * TRA_SWZ + rem % width;
  const int by = rem / width;
#else
  const int bx = get_group_id(0);
  const int by = get_group_id(1);
  (void)gx;
  (void)gy;
#endif
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  const int row0 = by * TRA_TILE;  // first input row of the tile
  const int col0 = bx * TRA_TILE;  // first input column of the tile
  const bool full = row0 + TRA_TILE <= rows && col0 + TRA_TILE <= cols;

  in += in_off;
  out += out_off;

#if TRA_PHASED
  // Output rows off the 64-byte grid (TRA_PHASED): work-item (lx, ly) writes, in each output row
  // c0 + v, the 16 floats of one whole 64-byte line, block b = its 16-row block of the input,
  // starting at that row's own line boundary e0 + 16 (b - 1) (e0: the first line boundary of
  // the row, 0 .. 15 floats in), so no line is written twice and every full line goes around
  // the caches; the last block also writes the row's tail past its last full line.
  (void)full;
  const int c0 = col0 + lx * TRA_VW;
  const int b = by * TRA_LY + ly, last = get_num_groups(1) * TRA_LY - 1;
  for (int v = 0; v < TRA_VW; ++v) {
    const int c = c0 + v;
    if (c >= cols) break;
    __global float* orow = out + (clf_index)c * out_ld;
    const int e0 = (16 - (int)(((size_t)orow >> 2) & 15)) & 15;
    const int s = e0 + 16 * (b - 1);
    const __global float* icol = in + c;
    if (s >= 0 && s + 16 <= rows) {
      float16 x;
      x.s0 = icol[(clf_index)(s + 0) * in_ld];
      x.s1 = icol[(clf_index)(s + 1) * in_ld];
      x.s2 = icol[(clf_index)(s + 2) * in_ld];
      x.s3 = icol[(clf_index)(s + 3) * in_ld];
      x.s4 = icol[(clf_index)(s + 4) * in_ld];
      x.s5 = icol[(clf_index)(s + 5) * in_ld];
      x.s6 = icol[(clf_index)(s + 6) * in_ld];
      x.s7 = icol[(clf_index)(s + 7) * in_ld];
      x.s8 = icol[(clf_index)(s + 8) * in_ld];
      x.s9 = icol[(clf_index)(s + 9) * in_ld];
      x.sa = icol[(clf_index)(s + 10) * in_ld];
      x.sb = icol[(clf_index)(s + 11) * in_ld];
      x.sc = icol[(clf_index)(s + 12) * in_ld];
      x.sd = icol[(clf_index)(s + 13) * in_ld];
      x.se = icol[(clf_index)(s + 14) * in_ld];
      x.sf = icol[(clf_index)(s + 15) * in_ld];
      TRA_STORE((__global float16*)(orow + s), x);
    } else {
      for (int r = max(s, 0); r < min(s + 16, rows); ++r) orow[r] = icol[(clf_index)r * in_ld];
    }
    if (b == last)
      for (int r = max(s + 16, 0); r < rows; ++r) orow[r] = icol[(clf_index)r * in_ld];
  }
#elif TRA_LOCAL == 0
  // Register blocks: work-item (lx, ly) owns input rows r0 + k and columns c0 + v.
  tra_t blk[TRA_WPT][TRA_VW];
  const int r0 = row0 + ly * TRA_WPT, c0 = col0 + lx * TRA_VW;
  if (full) {
#if TRA_SQUARE_VEC
    // Square float blocks, aligned both ways: TRA_VW row vectors in, TRA_VW column vectors out,
    // each block turned by vector shuffles (no scalar array for a compiler that vectorises
    // across work-items, as PoCL does, to turn into gathers and scatters).
#pragma unroll
    for (int b = 0; b < TRA_WPT; b += TRA_VW) TRA_SQUARE_BLOCK(r0 + b);
#else
#if TRA_ALIGN_IN
#pragma unroll
    for (int k = 0; k < TRA_WPT; ++k) TRA_GET(TRA_VW, blk[k], in + (clf_index)(r0 + k) * in_ld + c0);
#else
#pragma unroll
    for (int k = 0; k < TRA_WPT; ++k)
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) blk[k][v] = in[(clf_index)(r0 + k) * in_ld + c0 + v];
#endif
#if TRA_ALIGN_OUT
#pragma unroll
    for (int v = 0; v < TRA_VW; ++v) {
      tra_t col[TRA_WPT];
#pragma unroll
      for (int k = 0; k < TRA_WPT; ++k) col[k] = blk[k][v];
      TRA_PUT(TRA_WPT, out + (clf_index)(c0 + v) * out_ld + r0, col);
    }
#else
#pragma unroll
    for (int v = 0; v < TRA_VW; ++v)
#pragma unroll
      for (int k = 0; k < TRA_WPT; ++k) out[(clf_index)(c0 + v) * out_ld + r0 + k] = blk[k][v];
#endif
#endif  // TRA_SQUARE_VEC
  } else {
    for (int k = 0; k < TRA_WPT; ++k)
      for (int v = 0; v < TRA_VW; ++v)
        if (r0 + k < rows && c0 + v < cols) blk[k][v] = in[(clf_index)(r0 + k) * in_ld + c0 + v];
    for (int v = 0; v < TRA_VW; ++v)
      for (int k = 0; k < TRA_WPT; ++k)
        if (r0 + k < rows && c0 + v < cols) out[(clf_index)(c0 + v) * out_ld + r0 + k] = blk[k][v];
  }
#else
  __local tra_t tile[TRA_TILE * TRA_ROW];
  // Load: tile[r][c] = in[row0 + r][col0 + c]
  if (full) {
#pragma unroll
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
#if TRA_ALIGN_IN
      const __global tra_t* src = in + (clf_index)(row0 + r) * in_ld + col0 + lx * TRA_VW;
      tra_t v4[TRA_VW];
      TRA_GET(TRA_VW, v4, src);
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) tile[r * TRA_ROW + lx * TRA_VW + v] = v4[v];
#else
      // No whole vectors: a work-item's columns interleave with the others' (lx + v * TRA_LX),
      // so that each load of a work-group row reads consecutive elements.
      const __global tra_t* src = in + (clf_index)(row0 + r) * in_ld + col0 + lx;
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) tile[r * TRA_ROW + lx + v * TRA_LX] = src[v * TRA_LX];
#endif
    }
  } else {
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
      for (int v = 0; v < TRA_VW; ++v) {
        const int c = lx + v * TRA_LX;
        if (row0 + r < rows && col0 + c < cols) tile[r * TRA_ROW + c] = in[(clf_index)(row0 + r) * in_ld + col0 + c];
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Store: out[col0 + r][row0 + c] = tile[c][r]
  if (full) {
#pragma unroll
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
#if TRA_ALIGN_OUT
      __global tra_t* dst = out + (clf_index)(col0 + r) * out_ld + row0 + lx * TRA_VW;
      tra_t v4[TRA_VW];
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) v4[v] = tile[(lx * TRA_VW + v) * TRA_ROW + r];
      TRA_PUT(TRA_VW, dst, v4);
#else
      __global tra_t* dst = out + (clf_index)(col0 + r) * out_ld + row0 + lx;  // interleaved, as the load
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) dst[v * TRA_LX] = tile[(lx + v * TRA_LX) * TRA_ROW + r];
#endif
    }
  } else {
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
      for (int v = 0; v < TRA_VW; ++v) {
        const int c = lx + v * TRA_LX;
        if (col0 + r < cols && row0 + c < rows) out[(clf_index)(col0 + r) * out_ld + row0 + c] = tile[c * TRA_ROW + r];
      }
    }
  }
#endif
}
