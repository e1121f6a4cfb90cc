// SGEMM direct kernel (family "sgemm_direct"): small and odd shapes straight from the user's
// buffers, with no packing pass. Parameter names follow CLBlast's XgemmDirect (WGD MDIMCD
// NDIMCD MDIMAD NDIMBD KWID VWMD VWND PADA PADB).
//
// In clforge's internal column-major view (row-major calls are mapped onto it by swapping
// the operands, see src/sgemm/sgemm.cpp), for m < M, n < N:
//   C[m + n * c_ld] = alpha * sum_k op(A)(m, k) * op(B)(k, n) + beta * C[m + n * c_ld]
//   op(A)(m, k) = a[a_off + m + k * a_ld]  (entry points *_n*)  or a[a_off + k + m * a_ld]  (*_t*)
//   op(B)(k, n) = b[b_off + k + n * b_ld]  (*_?n)               or b[b_off + n + k * b_ld]  (*_?t)
// One program holds the four entry points sgemm_direct_nn, _nt, _tn, _tt.
// A batch: work-group z computes product z, its matrices a_z, b_z and c_z elements after the
// first ones (the launcher passes 0 and one z group for a single product), or with zt_on at the
// offsets in row z of the table zt (columns A, B, C; CLF_Z_OFFSET in cl/common/common.cl).
//
// Work-group (gm, gn): MDIMCD x NDIMCD work-items compute the WGD x WGD tile of C at rows
// gm*WGD, columns gn*WGD, each work-item a (WGD/MDIMCD) x (WGD/NDIMCD) register block whose
// rows are VWMD-vectors strided by MDIMCD*VWMD (and columns VWND-groups strided likewise),
// so that neighbouring work-items read neighbouring local-memory words.
// Per k tile of depth WGD, the A and B tiles are loaded with bounds guards (zeros outside the
// matrices) into local memory as alm[k][m] (row length WGD + PADA) and blm[k][n] (WGD + PADB).
// Loads are coalesced along whichever index is contiguous in the user's matrix: MDIMAD
// (NDIMBD) consecutive work-items walk along it. When that index is k, consecutive work-items
// write one local column; PADA / PADB = 1 spreads those writes over the banks.
// C is written with bounds guards; beta == 0 never reads C.

// ---- tuning parameters ----
#ifndef WGD
#define WGD 32  // C tile edge and k-tile depth (8, 16, 32, 64, 128)
#endif
#ifndef MDIMCD
#define MDIMCD 8  // work-items along m (work-group dimension 0)
#endif
#ifndef NDIMCD
#define NDIMCD 8  // work-items along n (work-group dimension 1)
#endif
#ifndef MDIMAD
#define MDIMAD 8  // work-items along the contiguous index when loading the A tile
#endif
#ifndef NDIMBD
#define NDIMBD 8  // work-items along the contiguous index when loading the B tile
#endif
#ifndef KWID
#define KWID 2  // unroll factor of the loop over a k tile (divides WGD)
#endif
#ifndef VWMD
#define VWMD 1  // consecutive C rows per register vector (1, 2, 4, 8)
#endif
#ifndef VWND
#define VWND 1  // consecutive C columns per register group (1, 2, 4, 8)
#endif
#ifndef PADA
#define PADA 1  // local-memory padding of an A tile row (0, 1)
#endif
#ifndef PADB
#define PADB 1  // local-memory padding of a B tile row (0, 1)
#endif

// ---- derived ----
#define WGSD (MDIMCD * NDIMCD)
#define MWID (WGD / MDIMCD)  // C rows per work-item
#define NWID (WGD / NDIMCD)  // C columns per work-item
#define MVID (MWID / VWMD)   // row vectors per work-item
#define NVID (NWID / VWND)   // column groups per work-item
#define KDIMAD (WGSD / MDIMAD)
#define KDIMBD (WGSD / NDIMBD)
#define ALD (WGD + PADA)  // local row pitch of the A tile
#define BLD (WGD + PADB)

#if WGD % (MDIMCD * VWMD) != 0 || WGD % (NDIMCD * VWND) != 0
#error "WGD must be a multiple of MDIMCD*VWMD and of NDIMCD*VWND"
#endif
#if WGSD % MDIMAD != 0 || WGD % MDIMAD != 0 || WGD % KDIMAD != 0
#error "MDIMAD must divide MDIMCD*NDIMCD and WGD, and MDIMCD*NDIMCD/MDIMAD must divide WGD"
#endif
#if WGSD % NDIMBD != 0 || WGD % NDIMBD != 0 || WGD % KDIMBD != 0
#error "NDIMBD must divide MDIMCD*NDIMCD and WGD, and MDIMCD*NDIMCD/NDIMBD must divide WGD"
#endif
#if WGD % KWID != 0
#error "KWID must divide WGD"
#endif

#define XD_CAT2(a, b) a##b
#define XD_CAT(a, b) XD_CAT2(a, b)
#if VWMD == 1
typedef float realMD;
#define XD_LOADM(p) (*(p))
#define XD_STOREM(v, p) (*(p) = (v))
#else
typedef XD_CAT(float, VWMD) realMD;
#define XD_LOADM(p) XD_CAT(vload, VWMD)(0, p)
#define XD_STOREM(v, p) XD_CAT(vstore, VWMD)(v, 0, p)
#endif
// Components of v into the floats dst[0 ..]: component-wise on purpose (vstoren into private
// arrays is miscompiled by some PoCL versions; XD_STOREM is used on global memory only).
#define XD_UNPACK1(v, dst, o) dst[o] = (v);
#define XD_UNPACK2(v, dst, o) \
  dst[o] = (v).s0;            \
  dst[(o) + 1] = (v).s1;
#define XD_UNPACK4(v, dst, o) XD_UNPACK2((v).lo, dst, o) XD_UNPACK2((v).hi, dst, (o) + 2)
#define XD_UNPACK8(v, dst, o) XD_UNPACK4((v).lo, dst, o) XD_UNPACK4((v).hi, dst, (o) + 4)

// Local row index of a work-item's mi-th row vector (times VWMD) and ni-th column group.
#define XD_M(lid0, mi) (((lid0) + (mi)*MDIMCD) * VWMD)
#define XD_N(lid1, ni) (((lid1) + (ni)*NDIMCD) * VWND)

void sgemm_direct_body(const int M, const int N, const int K, const float alpha, const float beta,
                       const __global float* restrict a, const clf_index a_ld, const __global float* restrict b,
                       const clf_index b_ld, __global float* c, const clf_index c_ld, const int a_t, const int b_t,
                       __local float* alm, __local float* blm) {
  const int lid0 = get_local_id(0), lid1 = get_local_id(1);
  const int tid = lid1 * MDIMCD + lid0;
  const int m0 = get_group_id(0) * WGD, n0 = get_group_id(1) * WGD;
  const int la0 = tid % MDIMAD, la1 = tid / MDIMAD;
  const int lb0 = tid % NDIMBD, lb1 = tid / NDIMBD;

  realMD cpm[NWID][MVID];
#pragma unroll
  for (int ni = 0; ni < NWID; ++ni)
#pragma unroll
    for (int mi = 0; mi < MVID; ++mi) cpm[ni][mi] = (realMD)(0.0f);

  for (int k0 = 0; k0 < K; k0 += WGD) {
    // A tile: alm[kk][mm] = op(A)(m0 + mm, k0 + kk). The contiguous index goes to la0.
    // (The guarded tile loads are left rolled: unrolling them buys little and costs compile time.)
    for (int y = 0; y < WGD / KDIMAD; ++y)
      for (int x = 0; x < WGD / MDIMAD; ++x) {
        const int fast = la0 + x * MDIMAD, slow = la1 + y * KDIMAD;
        const int mm = a_t ? slow : fast, kk = a_t ? fast : slow;
        const int m = m0 + mm, k = k0 + kk;
        float v = 0.0f;
        if (m < M && k < K) v = a_t ? a[(clf_index)m * a_ld + k] : a[(clf_index)k * a_ld + m];
        alm[kk * ALD + mm] = v;
      }
    // B tile: blm[kk][nn] = op(B)(k0 + kk, n0 + nn).
    for (int y = 0; y < WGD / KDIMBD; ++y)
      for (int x = 0; x < WGD / NDIMBD; ++x) {
        const int fast = lb0 + x * NDIMBD, slow = lb1 + y * KDIMBD;
        const int nn = b_t ? fast : slow, kk = b_t ? slow : fast;
        const int n = n0 + nn, k = k0 + kk;
        float v = 0.0f;
        if (n < N && k < K) v = b_t ? b[(clf_index)k * b_ld + n] : b[(clf_index)n * b_ld + k];
        blm[kk * BLD + nn] = v;
      }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int kb = 0; kb < WGD; kb += KWID) {
#pragma unroll
      for (int ki = 0; ki < KWID; ++ki) {
        const int kk = kb + ki;
        realMD apm[MVID];
#pragma unroll
        for (int mi = 0; mi < MVID; ++mi) apm[mi] = XD_LOADM(alm + kk * ALD + XD_M(lid0, mi));
        float bpm[NWID];
#pragma unroll
        for (int ni = 0; ni < NVID; ++ni)
#pragma unroll
          for (int v = 0; v < VWND; ++v) bpm[ni * VWND + v] = blm[kk * BLD + XD_N(lid1, ni) + v];
#pragma unroll
        for (int ni = 0; ni < NWID; ++ni)
#pragma unroll
          for (int mi = 0; mi < MVID; ++mi) cpm[ni][mi] = CLF_MAD(apm[mi], (realMD)(bpm[ni]), cpm[ni][mi]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  const bool full = m0 + WGD <= M && n0 + WGD <= N;
#pragma unroll
  for (int ni = 0; ni < NWID; ++ni) {
    const int n = n0 + XD_N(lid1, ni / VWND) + ni % VWND;
#pragma unroll
    for (int mi = 0; mi < MVID; ++mi) {
      const int m = m0 + XD_M(lid0, mi);
      __global float* cp = c + (clf_index)n * c_ld + m;
      const realMD r = alpha * cpm[ni][mi];
      if (full) {
        if (beta == 0.0f)
          XD_STOREM(r, cp);
        else
          XD_STOREM(CLF_MAD((realMD)(beta), XD_LOADM(cp), r), cp);
      } else if (n < N) {
        float rs[VWMD];
        XD_CAT(XD_UNPACK, VWMD)
        (r, rs, 0) for (int v = 0; v < VWMD; ++v) if (m + v < M) cp[v] =
            beta == 0.0f ? rs[v] : CLF_MAD(beta, cp[v], rs[v]);
      }
    }
  }
}

#define SGEMM_DIRECT_ENTRY(name, at, bt)                                                                            \
  __kernel __attribute__((reqd_work_group_size(MDIMCD, NDIMCD, 1))) void name(                                      \
      const int M, const int N, const int K, const float alpha, const float beta, const __global float* restrict a, \
      const clf_index a_off, const clf_index a_ld, const clf_index a_z, const __global float* restrict b,           \
      const clf_index b_off, const clf_index b_ld, const clf_index b_z, __global float* c, const clf_index c_off,   \
      const clf_index c_ld, const clf_index c_z, const __global clf_index* restrict zt, const clf_index zt_at,      \
      const int zt_on) {                                                                                            \
    __local float alm[WGD * ALD];                                                                                   \
    __local float blm[WGD * BLD];                                                                                   \
    const clf_index z = get_group_id(2);                                                                            \
    sgemm_direct_body(M, N, K, alpha, beta, a + a_off + CLF_Z_OFFSET(zt, zt_on, zt_at, z, a_z), a_ld,               \
                      b + b_off + CLF_Z_OFFSET(zt, zt_on, zt_at + 1, z, b_z), b_ld,                                 \
                      c + c_off + CLF_Z_OFFSET(zt, zt_on, zt_at + 2, z, c_z), c_ld, at, bt, alm, blm);              \
  }

SGEMM_DIRECT_ENTRY(sgemm_direct_nn, 0, 0)
SGEMM_DIRECT_ENTRY(sgemm_direct_nt, 0, 1)
SGEMM_DIRECT_ENTRY(sgemm_direct_tn, 1, 0)
SGEMM_DIRECT_ENTRY(sgemm_direct_tt, 1, 1)
