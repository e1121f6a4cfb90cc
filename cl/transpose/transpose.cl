// Out-of-place transpose of a rows x cols row-major matrix:  out[c * out_ld + r] = in[r * in_ld + c].
//
// One work-group moves one TRA_TILE x TRA_TILE tile through local memory so that both the
// global reads (along input rows) and the global writes (along output rows) are coalesced.
//
//   work-group: (TRA_TILE / TRA_VW) x (TRA_TILE / TRA_WPT) work-items
//   work-item (lx, ly) reads input rows  ly + k * (TRA_TILE / TRA_WPT), k < TRA_WPT,
//                       columns lx * TRA_VW .. + TRA_VW - 1
//   and writes output rows (input columns) in the same pattern from the transposed tile.
//
//        input tile (by, bx)                   output tile (bx, by)
//        +---------------+                      +---------------+
//   ly ->| - - - - - - - |   local [T][T+PAD]   | |             |
//        |               |  ----------------->  | |   columns   |
//        +---------------+                      +---------------+
//
// Element type from the routine constant TRA_ELEM_SIZE (4: float, 8: float2, 16: float4).

// ---- tuning parameters ----
#ifndef TRA_TILE
#define TRA_TILE 16  // tile edge in elements (4, 8, 16, 32, 64)
#endif
#ifndef TRA_WPT
#define TRA_WPT 1    // rows of the tile each work-item moves (1, 2, 4, 8, 16)
#endif
#ifndef TRA_VW
#define TRA_VW 1     // consecutive columns each work-item moves (1, 2, 4, 8)
#endif
#ifndef TRA_PAD
#define TRA_PAD 1    // extra local-memory column per tile row against bank conflicts (0, 1)
#endif
#ifndef TRA_DIAG
#define TRA_DIAG 0   // diagonal (skewed) work-group mapping against partition camping (0, 1)
#endif
#ifndef TRA_LOCAL
#define TRA_LOCAL 1  // 1: exchange through a local-memory tile; 0: each work-item transposes a
                     // TRA_WPT x TRA_VW block in registers (no barrier; suits CPUs)
#endif

// ---- routine constants ----
#ifndef TRA_ELEM_SIZE
#define TRA_ELEM_SIZE 4
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
#define TRA_ROW (TRA_TILE + TRA_PAD)       // padded local row
#define TRA_LX (TRA_TILE / TRA_VW)         // work-group width
#define TRA_LY (TRA_TILE / TRA_WPT)        // work-group height
#if TRA_WPT > TRA_TILE || TRA_VW > TRA_TILE
#error "TRA_WPT and TRA_VW must not exceed TRA_TILE"
#endif

__kernel __attribute__((reqd_work_group_size(TRA_LX, TRA_LY, 1)))
void transpose_tiled(const int rows, const int cols,
                     const __global tra_t* restrict in, const clf_index in_off, const clf_index in_ld,
                     __global tra_t* restrict out, const clf_index out_off, const clf_index out_ld) {
#if TRA_LOCAL
  __local tra_t tile[TRA_TILE * TRA_ROW];
#else
  const int tile = 0;
#endif

  const int gx = get_num_groups(0);  // tiles along input columns
  const int gy = get_num_groups(1);  // tiles along input rows
#if TRA_DIAG
  // Skewed mapping: consecutive work-groups touch different memory partitions.
  const int bid = get_group_id(0) + gx * get_group_id(1);
  const int by = bid % gy;
  const int bx = (bid / gy + by) % gx;
#else
  const int bx = get_group_id(0);
  const int by = get_group_id(1);
#endif
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  const int row0 = by * TRA_TILE;  // first input row of the tile
  const int col0 = bx * TRA_TILE;  // first input column of the tile
  const bool full = row0 + TRA_TILE <= rows && col0 + TRA_TILE <= cols;

  in += in_off;
  out += out_off;

#if TRA_LOCAL == 0
  // Register blocks: work-item (lx, ly) owns input rows row0 + ly * TRA_WPT + k and columns
  // col0 + lx * TRA_VW + v; it reads TRA_WPT row segments and writes TRA_VW row segments.
  tra_t blk[TRA_WPT][TRA_VW];
  const int r0 = row0 + ly * TRA_WPT, c0 = col0 + lx * TRA_VW;
  if (full) {
#pragma unroll
    for (int k = 0; k < TRA_WPT; ++k)
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) blk[k][v] = in[(clf_index)(r0 + k) * in_ld + c0 + v];
#pragma unroll
    for (int v = 0; v < TRA_VW; ++v)
#pragma unroll
      for (int k = 0; k < TRA_WPT; ++k) out[(clf_index)(c0 + v) * out_ld + r0 + k] = blk[k][v];
  } else {
    for (int k = 0; k < TRA_WPT; ++k)
      for (int v = 0; v < TRA_VW; ++v)
        if (r0 + k < rows && c0 + v < cols) blk[k][v] = in[(clf_index)(r0 + k) * in_ld + c0 + v];
    for (int v = 0; v < TRA_VW; ++v)
      for (int k = 0; k < TRA_WPT; ++k)
        if (r0 + k < rows && c0 + v < cols) out[(clf_index)(c0 + v) * out_ld + r0 + k] = blk[k][v];
  }
  (void)tile;
#else
  // Load: tile[r][c] = in[row0 + r][col0 + c]
  if (full) {
#pragma unroll
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
      const __global tra_t* src = in + (clf_index)(row0 + r) * in_ld + col0 + lx * TRA_VW;
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) tile[r * TRA_ROW + lx * TRA_VW + v] = src[v];
    }
  } else {
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
      for (int v = 0; v < TRA_VW; ++v) {
        const int c = lx * TRA_VW + v;
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
      __global tra_t* dst = out + (clf_index)(col0 + r) * out_ld + row0 + lx * TRA_VW;
#pragma unroll
      for (int v = 0; v < TRA_VW; ++v) dst[v] = tile[(lx * TRA_VW + v) * TRA_ROW + r];
    }
  } else {
    for (int k = 0; k < TRA_WPT; ++k) {
      const int r = ly + k * TRA_LY;
      for (int v = 0; v < TRA_VW; ++v) {
        const int c = lx * TRA_VW + v;
        if (col0 + r < cols && row0 + c < rows) out[(clf_index)(col0 + r) * out_ld + row0 + c] = tile[c * TRA_ROW + r];
      }
    }
  }
#endif
}
