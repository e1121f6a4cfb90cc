// SGEMM helpers (family "sgemm_pack"): packing an operand into the k-major, zero-padded form
// the tiled kernels read, and scaling C by beta when there is nothing to multiply.
//
// Packed operand P (Kp rows of Xp floats, row pitch d_ld, Kp >= K, Xp >= X):
//   P[d_off + p * d_ld + x] = op(p, x) for p < K and x < X, 0 elsewhere (the padding),
// or, with panels of d_pw > 0 columns (sgemm_xgemm's PANEL; d_pw a power of two dividing Xp),
//   P[d_off + ((x / d_pw) * Kp + p) * d_pw + x % d_pw] = op(p, x) likewise,
// where the source element op(p, x) of the user's (internal column-major) matrix is
//   sgemm_pack_copy:  src[s_off + p * s_ld + x]   (x contiguous: A not transposed, B transposed)
//   sgemm_pack_trans: src[s_off + x * s_ld + p]   (p contiguous: A transposed, B not transposed)
// Zero padding makes the tiled kernels' edge tiles contribute nothing, so their inner loops
// need no guards. A strided batch packs matrix z = get_group_id(2) from s_off + z * s_z into
// d_off + z * d_z (one z group and strides 0 for a single product); a batch given by offsets
// (zt_on) reads matrix z at the entry of the offsets table zt that CLF_Z_OFFSET names.
//
// A work-group of PACK_TILE x (PACK_TILE / PACK_WPT) work-items moves one PACK_TILE x
// PACK_TILE tile; each work-item moves PACK_WPT rows of it. sgemm_pack_trans goes through a
// local tile (one padding column against bank conflicts) so that both the reads (along p)
// and the writes (along x) are coalesced.
//
// With PACK_VW > 1 (CPUs: PoCL runs a work-group as a loop over its work-items, and the local
// tile's column reads and the barrier keep that loop scalar) each work-item moves a square
// block of PACK_VW x PACK_VW elements (PACK_WPT = PACK_VW^2 keeps the work-group's shape):
// PACK_VW vectors loaded along the source's rows and stored along the packed rows, turned in
// registers by sgemm_pack_trans. A block that reaches past K, X, Kp or Xp, or whose packed row
// would cross a panel (d_pw < PACK_VW), moves element by element.

// ---- tuning parameters ----
#ifndef PACK_TILE
#define PACK_TILE 16  // tile edge in elements (8, 16, 32, 64)
#endif
#ifndef PACK_WPT
#define PACK_WPT 4  // tile rows moved by each work-item (1, 2, 4, 8, 16, 64)
#endif
#ifndef PACK_VW
#define PACK_VW 1  // 1: rows of the tile; 2, 4, 8: square register blocks (PACK_WPT = PACK_VW^2)
#endif

// ---- derived ----
#define PACK_LY (PACK_TILE / PACK_WPT)  // work-group height
#if PACK_WPT > PACK_TILE
#error "PACK_WPT must not exceed PACK_TILE"
#endif
#if PACK_VW > 1 && PACK_WPT != PACK_VW * PACK_VW
#error "register blocks need PACK_WPT = PACK_VW^2"
#endif
#define PACK_CAT2(a, b) a##b
#define PACK_CAT(a, b) PACK_CAT2(a, b)
#define PACK_VLOAD PACK_CAT(vload, PACK_VW)
#define PACK_VSTORE PACK_CAT(vstore, PACK_VW)

// Index of packed element (p, x): rows of d_ld floats, or panels of d_pw columns (a power of
// two: shifts and masks, which vectorize across work-items where divisions do not).
inline clf_index pack_at(const int p, const int x, const int Kp, const clf_index d_ld, const int d_pw) {
  if (d_pw == 0) return (clf_index)p * d_ld + x;
  const int sh = 31 - clz(d_pw);
  return (((clf_index)(x >> sh) * Kp + p) << sh) + (x & (d_pw - 1));
}

#if PACK_VW > 1
// The block of work-item (lx, ly) in tile (tx, ty): origin (p0, x0) of PACK_VW x PACK_VW
// elements, blocks numbered along x first.
#define PACK_BLOCKS (PACK_TILE / PACK_VW)  // blocks along a tile edge
inline void pack_block(const int tx, const int ty, int* p0, int* x0) {
  const int b = get_local_id(1) * PACK_TILE + get_local_id(0);
  *x0 = tx * PACK_TILE + (b % PACK_BLOCKS) * PACK_VW;
  *p0 = ty * PACK_TILE + (b / PACK_BLOCKS) * PACK_VW;
}
// Whole vectors: the source block lies inside K x X, the packed one inside Kp x Xp, and each
// packed row of the block inside one panel.
inline bool pack_whole(const int p0, const int x0, const int K, const int X, const int Kp, const int Xp,
                       const int d_pw) {
  return p0 + PACK_VW <= K && x0 + PACK_VW <= X && p0 + PACK_VW <= Kp && x0 + PACK_VW <= Xp &&
         (d_pw == 0 || d_pw >= PACK_VW);
}
// Element by element, zeros outside K x X: op(p, x) at src[p * sp + x * sx].
inline void pack_block_scalar(const int p0, const int x0, const int K, const int X, const int Kp, const int Xp,
                              const __global float* restrict src, const clf_index sp, const clf_index sx,
                              __global float* restrict dst, const clf_index d_ld, const int d_pw) {
  for (int i = 0; i < PACK_VW; ++i)
    for (int j = 0; j < PACK_VW; ++j) {
      const int p = p0 + i, x = x0 + j;
      if (p < Kp && x < Xp) dst[pack_at(p, x, Kp, d_ld, d_pw)] = (p < K && x < X) ? src[p * sp + x * sx] : 0.0f;
    }
}
// The work-item's block: true where it moves as whole vectors, else moved here element by element.
inline bool pack_vectors(const int tx, const int ty, int* p0, int* x0, const int K, const int X, const int Kp,
                         const int Xp, const __global float* restrict src, const clf_index sp, const clf_index sx,
                         __global float* restrict dst, const clf_index d_ld, const int d_pw) {
  pack_block(tx, ty, p0, x0);
  if (pack_whole(*p0, *x0, K, X, Kp, Xp, d_pw)) return true;
  pack_block_scalar(*p0, *x0, K, X, Kp, Xp, src, sp, sx, dst, d_ld, d_pw);
  return false;
}
#endif

// Tile (tx, ty) of the operand whose source element op(p, x) is src[p * s_ld + x] (copy).
inline void pack_copy_tile(const int tx, const int ty, const int K, const int X, const int Kp, const int Xp,
                           const __global float* restrict src, const clf_index s_ld, __global float* restrict dst,
                           const clf_index d_ld, const int d_pw) {
#if PACK_VW > 1
  int p0, x0;
  if (!pack_vectors(tx, ty, &p0, &x0, K, X, Kp, Xp, src, s_ld, 1, dst, d_ld, d_pw)) return;
#pragma unroll
  for (int i = 0; i < PACK_VW; ++i)
    PACK_VSTORE(PACK_VLOAD(0, src + (clf_index)(p0 + i) * s_ld + x0), 0, dst + pack_at(p0 + i, x0, Kp, d_ld, d_pw));
#else
  const int x = tx * PACK_TILE + get_local_id(0);
  const int p0 = ty * PACK_TILE + get_local_id(1);
#pragma unroll
  for (int w = 0; w < PACK_WPT; ++w) {
    const int p = p0 + w * PACK_LY;
    if (p < Kp && x < Xp) dst[pack_at(p, x, Kp, d_ld, d_pw)] = (p < K && x < X) ? src[(clf_index)p * s_ld + x] : 0.0f;
  }
#endif
}

// Tile (tx, ty) of the operand whose source element op(p, x) is src[x * s_ld + p] (turned),
// in two halves around a barrier of the caller's (PACK_VW 1: through `tile`, PACK_TILE x
// (PACK_TILE + 1) floats of local memory): pack_trans_load, then pack_trans_store. With PACK_VW > 1
// the load moves the whole tile and the store nothing (no barrier needed).
inline void pack_trans_load(const int tx, const int ty, const int K, const int X, const int Kp, const int Xp,
                            const __global float* restrict src, const clf_index s_ld, __global float* restrict dst,
                            const clf_index d_ld, const int d_pw, __local float* tile) {
#if PACK_VW > 1
  int p0, x0;
  if (!pack_vectors(tx, ty, &p0, &x0, K, X, Kp, Xp, src, 1, s_ld, dst, d_ld, d_pw)) return;
  // Rows x0 + i of the source (along p) into a private block, its columns out as packed rows.
  float b[PACK_VW][PACK_VW];
#pragma unroll
  for (int i = 0; i < PACK_VW; ++i) PACK_VSTORE(PACK_VLOAD(0, src + (clf_index)(x0 + i) * s_ld + p0), 0, b[i]);
#pragma unroll
  for (int j = 0; j < PACK_VW; ++j) {
    float col[PACK_VW];
#pragma unroll
    for (int i = 0; i < PACK_VW; ++i) col[i] = b[i][j];
    PACK_VSTORE(PACK_VLOAD(0, col), 0, dst + pack_at(p0 + j, x0, Kp, d_ld, d_pw));
  }
#else
  // Work-item lx walks along p (contiguous in the source), rows are x.
  const int lx = get_local_id(0), ly = get_local_id(1);
#pragma unroll
  for (int w = 0; w < PACK_WPT; ++w) {
    const int xr = ly + w * PACK_LY;
    const int x = tx * PACK_TILE + xr, p = ty * PACK_TILE + lx;
    tile[xr * (PACK_TILE + 1) + lx] = (x < X && p < K) ? src[(clf_index)x * s_ld + p] : 0.0f;
  }
#endif
}
inline void pack_trans_store(const int tx, const int ty, const int Kp, const int Xp, __global float* restrict dst,
                             const clf_index d_ld, const int d_pw, __local const float* tile) {
#if PACK_VW == 1
  // Work-item lx walks along x (contiguous in the packed operand), rows are p.
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x = tx * PACK_TILE + lx;
#pragma unroll
  for (int w = 0; w < PACK_WPT; ++w) {
    const int pr = ly + w * PACK_LY;
    const int p = ty * PACK_TILE + pr;
    if (x < Xp && p < Kp) dst[pack_at(p, x, Kp, d_ld, d_pw)] = tile[lx * (PACK_TILE + 1) + pr];
  }
#endif
}

__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_LY, 1))) void sgemm_pack_copy(
    const int K, const int X, const int Kp, const int Xp, const __global float* restrict src, const clf_index s_off,
    const clf_index s_ld, const clf_index s_z, __global float* restrict dst, const clf_index d_off,
    const clf_index d_ld, const int d_pw, const clf_index d_z, const __global clf_index* restrict zt,
    const clf_index zt_at, const int zt_on) {
  src += s_off + CLF_Z_OFFSET(zt, zt_on, zt_at, (clf_index)get_group_id(2), s_z);
  dst += d_off + (clf_index)get_group_id(2) * d_z;
  pack_copy_tile(get_group_id(0), get_group_id(1), K, X, Kp, Xp, src, s_ld, dst, d_ld, d_pw);
}

__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_LY, 1))) void sgemm_pack_trans(
    const int K, const int X, const int Kp, const int Xp, const __global float* restrict src, const clf_index s_off,
    const clf_index s_ld, const clf_index s_z, __global float* restrict dst, const clf_index d_off,
    const clf_index d_ld, const int d_pw, const clf_index d_z, const __global clf_index* restrict zt,
    const clf_index zt_at, const int zt_on) {
  __local float tile[PACK_TILE * (PACK_TILE + 1)];
  src += s_off + CLF_Z_OFFSET(zt, zt_on, zt_at, (clf_index)get_group_id(2), s_z);
  dst += d_off + (clf_index)get_group_id(2) * d_z;
  const int tx = get_group_id(0), ty = get_group_id(1);
  pack_trans_load(tx, ty, K, X, Kp, Xp, src, s_ld, dst, d_ld, d_pw, tile);
#if PACK_VW == 1
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  pack_trans_store(tx, ty, Kp, Xp, dst, d_ld, d_pw, tile);
}

// Both operands of a product in one launch (a launch less than two packs): the work-groups of
// the first a_tiles columns of tiles pack A, the others B (tile column x - a_tiles), each as
// sgemm_pack_copy (*_tr 0) or sgemm_pack_trans (1) would with its own arguments, into one dst.
// Work-group z packs matrix z of an operand that has a_n (b_n) matrices and nothing past them.
// The barrier of a turned tile is every work-group's, outside the branches: with the barrier
// inside the branch (uniform in each work-group) PoCL 3.1 lost stores of B's last tile where it
// reached past Xp.
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_LY, 1))) void sgemm_pack_pair(
    const int K, const int Kp, __global float* restrict dst, const __global clf_index* restrict zt, const int zt_on,
    const int a_tiles, const int a_n, const int a_tr, const int a_X, const int a_Xp,
    const __global float* restrict a_src, const clf_index a_off, const clf_index a_ld, const clf_index a_z,
    const clf_index a_zt_at, const clf_index a_doff, const int a_pw, const clf_index a_dz, const int b_n,
    const int b_tr, const int b_X, const int b_Xp, const __global float* restrict b_src, const clf_index b_off,
    const clf_index b_ld, const clf_index b_z, const clf_index b_zt_at, const clf_index b_doff, const int b_pw,
    const clf_index b_dz) {
  __local float tile[PACK_TILE * (PACK_TILE + 1)];
  const int gx = get_group_id(0), ty = get_group_id(1), z = get_group_id(2);
  const bool on_b = gx >= a_tiles;
  const bool active = z < (on_b ? b_n : a_n), turned = active && (on_b ? b_tr : a_tr);
  const int zz = active ? z : 0;  // an idle work-group reads no offsets table past its rows
  const int X = on_b ? b_X : a_X, Xp = on_b ? b_Xp : a_Xp, pw = on_b ? b_pw : a_pw;
  const clf_index ld = on_b ? b_ld : a_ld;
  const __global float* src = on_b ? b_src + b_off + CLF_Z_OFFSET(zt, zt_on, b_zt_at, (clf_index)zz, b_z)
                                   : a_src + a_off + CLF_Z_OFFSET(zt, zt_on, a_zt_at, (clf_index)zz, a_z);
  __global float* d = dst + (on_b ? b_doff + (clf_index)zz * b_dz : a_doff + (clf_index)zz * a_dz);
  const int tx = on_b ? gx - a_tiles : gx;
  if (turned)
    pack_trans_load(tx, ty, K, X, Kp, Xp, src, ld, d, Xp, pw, tile);
  else if (active)
    pack_copy_tile(tx, ty, K, X, Kp, Xp, src, ld, d, Xp, pw);
#if PACK_VW == 1
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  if (turned) pack_trans_store(tx, ty, Kp, Xp, d, Xp, pw, tile);
}

// C[m + n * c_ld] = sum over s < S of W[w_off + s * w_split + m + n * w_ld] + beta * C
// (beta == 0: C is not read), for m < M, n < N. Two uses: S = 0 is the whole routine when
// k == 0 or alpha == 0 (C = beta * C, W not read); S >= 2 adds split-k slices (see
// cl/sgemm/xgemm.cl), which already hold alpha times their partial products. With S = 0 work-group
// z scales matrix z of a batch, c_z elements after the one before (or at its entry of the
// offsets table zt).
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_LY, 1))) void sgemm_sum_scale(
    const int M, const int N, const int S, const __global float* w, const clf_index w_off, const clf_index w_ld,
    const clf_index w_split, const float beta, __global float* c, const clf_index c_off, const clf_index c_ld,
    const clf_index c_z, const __global clf_index* restrict zt, const clf_index zt_at, const int zt_on) {
  const int m = get_group_id(0) * PACK_TILE + get_local_id(0);
  const int n0 = get_group_id(1) * PACK_TILE + get_local_id(1);
  if (m >= M) return;
  c += c_off + CLF_Z_OFFSET(zt, zt_on, zt_at, (clf_index)get_group_id(2), c_z);
#pragma unroll
  for (int wi = 0; wi < PACK_WPT; ++wi) {
    const int n = n0 + wi * PACK_LY;
    if (n < N) {
      const __global float* x = w + w_off + (clf_index)n * w_ld + m;
      float sum = 0.0f;
      for (int sl = 0; sl < S; ++sl) sum += x[(clf_index)sl * w_split];
      __global float* p = c + (clf_index)n * c_ld + m;
      *p = beta == 0.0f ? sum : CLF_MAD(beta, *p, sum);
    }
  }
}
