// SGEMM, general tiled kernel (family "sgemm_xgemm"), on packed operands. Parameter names
// follow CLBlast's Xgemm (MWG NWG KWG MDIMC NDIMC MDIMA NDIMB KWI VWM VWN STRM STRN SA SB),
// plus DBUF (double-buffered local memory).
//
// In clforge's internal column-major view (a row-major call is the column-major product
// C^T = B^T A^T, see src/sgemm/sgemm.cpp) this computes, for m < M and n < N,
//   C[m + n * c_ld] = alpha * sum_k A[k][m] * B[k][n] + beta * C[m + n * c_ld]
// where the operands are "k-major": row k of A holds op(A)(m, k) for every m contiguously,
// row k of B holds op(B)(k, n) for every n contiguously:
//   A[k][m] = ag[a_off + k * a_ld + m / VWM] (vectors of VWM), rows padded with zeros to
//             Mp = multiple of MWG columns and Kp = multiple of KWG rows,
//   B[k][n] = bg[b_off + k * b_ld + n / VWN] likewise (Np = multiple of NWG).
// The launcher packs (copies, transposes, zero-pads) the user's matrices into this form with
// cl/sgemm/pack.cl, or passes a user matrix straight through when it already has it. With
// both operands k-major, each k step is an outer product of a column segment of A with a row
// segment of B: the tiles are copied into local memory row by row as they come (no transpose,
// so local stores never conflict and need no padding), and the work-items read them back as
// whole vectors. C is read and written in the user's buffer with bounds guards at the edge
// tiles; beta == 0 never reads C (NaN already in C does not leak into the result).
//
// Work-group (gm, gn) computes the MWG x NWG tile of C at rows gm*MWG, columns gn*NWG with
// MDIMC x NDIMC work-items. Work-item (i, j) holds an MWI x NWI register block
// (MWI = MWG/MDIMC, NWI = NWG/NDIMC) as NWI x (MWI/VWM) vectors:
//
//        <------------- MWG (m) ------------>          STRM = 0: work-item i owns the MWI
//     k  | v0 v1 v2 ... (vectors of VWM)    |          consecutive rows i*MWI ..
//     |  |                                  |          STRM = 1: vectors i, i + MDIMC,
//     v  | A tile: KWG x MWG, local alm     |          i + 2*MDIMC, ... (a warp reads one
//                                                      contiguous row segment: no bank conflict)
// Loading a tile: the MDIMC*NDIMC work-items are re-shaped as MDIMA x (WGS/MDIMA) for A (and
// NDIMB x (WGS/NDIMB) for B); consecutive work-items read consecutive VWM-vectors of a row,
// so every global load is coalesced, whatever STRM says.
//
// The third dimension: work-group (gm, gn, gz) starts its A, B and C gz * a_z, gz * b_z and
// gz * c_z further on (a_z, b_z in vectors) and at k tile gz * k_z, and runs kt_split k tiles.
// Split k (launcher's choice, sgemm_route SGEMM_SPLITK): k_z = kt_split, a_z and b_z the rows
// of kt_split k tiles, and alpha times the partial product goes to slice gz of a workspace
// (c_z = the slice stride, beta = 0); sgemm_sum_scale in cl/sgemm/pack.cl then adds the slices
// into C. A strided batch: k_z = 0, and the strides are those between the batch's matrices. A
// batch given by offsets (zt_on): C of product gz at the entry zt[zt_at + 3 gz] of the offsets
// table (CLF_Z_OFFSET), A and B packed at their strides.
// A single product: one z group, kt_split = Kp / KWG, C directly.
//
// PANEL = 1: the launcher packs each operand in panels of one work-group's width (MWG columns
// of A, NWG of B): panel g holds rows 0 .. Kp-1 of its columns contiguously, so a_ld (b_ld) is
// the panel's width in vectors and panel g starts Kp * a_ld vectors after panel g - 1. A
// work-group then walks its operands as two contiguous streams instead of one row segment per
// k step a whole padded row apart (CPUs: one cache line and TLB page after the other).
//
// SA = 0 / SB = 0 read that operand straight from global memory in the inner loop (CPUs:
// local memory is ordinary memory there and barriers cost; caches do the staging). DBUF = 1
// keeps two local tiles: the next tile is fetched into registers while the current one is
// used, then stored into the other buffer, one barrier per tile (GPUs: hides global latency).

// ---- tuning parameters ----
#ifndef MWG
#define MWG 64  // C tile rows (m) per work-group (8 .. 256)
#endif
#ifndef NWG
#define NWG 64  // C tile columns (n) per work-group (8 .. 256)
#endif
#ifndef KWG
#define KWG 16  // depth of a k tile (4 .. 64)
#endif
#ifndef MDIMC
#define MDIMC 8  // work-items along m (work-group dimension 0)
#endif
#ifndef NDIMC
#define NDIMC 8  // work-items along n (work-group dimension 1)
#endif
#ifndef MDIMA
#define MDIMA 8  // work-items along m when loading the A tile (in VWM vectors)
#endif
#ifndef NDIMB
#define NDIMB 8  // work-items along n when loading the B tile (in VWN vectors)
#endif
#ifndef KWI
#define KWI 2  // unroll factor of the loop over a k tile (divides KWG)
#endif
#ifndef VWM
#define VWM 1  // vector width along m: A loads, C accumulators and stores (1, 2, 4, 8, 16)
#endif
#ifndef VWN
#define VWN 1  // vector width along n: B loads (1, 2, 4, 8, 16)
#endif
#ifndef STRM
#define STRM 0  // 0: a work-item's m vectors are contiguous; 1: strided by MDIMC vectors
#endif
#ifndef STRN
#define STRN 0  // 0: a work-item's n vectors are contiguous; 1: strided by NDIMC vectors
#endif
#ifndef SA
#define SA 1  // stage the A tile in local memory (0: read A from global in the inner loop)
#endif
#ifndef SB
#define SB 1  // stage the B tile in local memory
#endif
#ifndef DBUF
#define DBUF 0  // double-buffered local tiles with register prefetch (needs SA or SB)
#endif
#ifndef PANEL
#define PANEL 0  // 1: operands packed in panels of one work-group's width (see above)
#endif
#ifndef NVRREG
// not used in the source: on NVIDIA's OpenCL the launcher passes it as
// -cl-nv-maxrregcount (0: the compiler's choice), to trade registers for occupancy
#define NVRREG 0
#endif

// ---- derived ----
#define WGS (MDIMC * NDIMC)  // work-items per work-group
#define MWI (MWG / MDIMC)    // C rows per work-item
#define NWI (NWG / NDIMC)    // C columns per work-item
#define MVI (MWI / VWM)      // A / C vectors per work-item along m
#define NVI (NWI / VWN)      // B vectors per work-item along n
#define MVG (MWG / VWM)      // vectors in a row of the A tile
#define NVG (NWG / VWN)      // vectors in a row of the B tile
#define KDIMA (WGS / MDIMA)  // loader rows for A
#define KDIMB (WGS / NDIMB)  // loader rows for B
#define MVA (MVG / MDIMA)    // A vectors per loader work-item along m
#define NVB (NVG / NDIMB)    // B vectors per loader work-item along n
#define KWA (KWG / KDIMA)    // A rows per loader work-item
#define KWB (KWG / KDIMB)    // B rows per loader work-item
#define NBUF (DBUF + 1)

#if MWG % (MDIMC * VWM) != 0 || NWG % (NDIMC * VWN) != 0
#error "MWG must be a multiple of MDIMC*VWM and NWG of NDIMC*VWN"
#endif
#if KWG % KWI != 0
#error "KWI must divide KWG"
#endif
#if SA && (WGS % MDIMA != 0 || MVG % MDIMA != 0 || KWG % KDIMA != 0)
#error "MDIMA must divide MDIMC*NDIMC and MWG/VWM, and KWG must be a multiple of MDIMC*NDIMC/MDIMA"
#endif
#if SB && (WGS % NDIMB != 0 || NVG % NDIMB != 0 || KWG % KDIMB != 0)
#error "NDIMB must divide MDIMC*NDIMC and NWG/VWN, and KWG must be a multiple of MDIMC*NDIMC/NDIMB"
#endif
#if DBUF && !SA && !SB
#error "DBUF needs SA or SB"
#endif

#define XG_CAT2(a, b) a##b
#define XG_CAT(a, b) XG_CAT2(a, b)
#if VWM == 1
typedef float realM;
#else
typedef XG_CAT(float, VWM) realM;
#endif
#if VWN == 1
typedef float realN;
#else
typedef XG_CAT(float, VWN) realN;
#endif
#if (VWM != 1 && VWM != 2 && VWM != 4 && VWM != 8 && VWM != 16) || \
    (VWN != 1 && VWN != 2 && VWN != 4 && VWN != 8 && VWN != 16)
#error "VWM and VWN must be 1, 2, 4, 8 or 16"
#endif

// Copies the components of vector v (width 1 .. 16) into the floats dst[o], dst[o+1], ...
// Component-wise on purpose: vstoren into private arrays is miscompiled by some PoCL versions.
#define XG_UNPACK1(v, dst, o) dst[o] = (v);
#define XG_UNPACK2(v, dst, o) \
  dst[o] = (v).s0;            \
  dst[(o) + 1] = (v).s1;
#define XG_UNPACK4(v, dst, o) XG_UNPACK2((v).lo, dst, o) XG_UNPACK2((v).hi, dst, (o) + 2)
#define XG_UNPACK8(v, dst, o) XG_UNPACK4((v).lo, dst, o) XG_UNPACK4((v).hi, dst, (o) + 4)
#define XG_UNPACK16(v, dst, o) XG_UNPACK8((v).lo, dst, o) XG_UNPACK8((v).hi, dst, (o) + 8)
#define XG_UNPACKM(v, dst, o) XG_CAT(XG_UNPACK, VWM)(v, dst, o)
#define XG_UNPACKN(v, dst, o) XG_CAT(XG_UNPACK, VWN)(v, dst, o)

// Vector index (within a tile row) of a work-item's mi-th A vector and ni-th B vector.
#if STRM == 0
#define XG_MV(lid0, mi) ((lid0)*MVI + (mi))
#else
#define XG_MV(lid0, mi) ((lid0) + (mi)*MDIMC)
#endif
#if STRN == 0
#define XG_NV(lid1, ni) ((lid1)*NVI + (ni))
#else
#define XG_NV(lid1, ni) ((lid1) + (ni)*NDIMC)
#endif

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1))) void sgemm_xgemm(
    const int M, const int N, const int Kp, const float alpha, const float beta, const __global realM* restrict ag,
    clf_index a_off, const clf_index a_ld, const clf_index a_z, const __global realN* restrict bg, clf_index b_off,
    const clf_index b_ld, const clf_index b_z, __global float* cg, clf_index c_off, const clf_index c_ld,
    const clf_index c_z, const int c_vec, const int kt_split, const int k_z, const __global clf_index* restrict zt,
    const clf_index zt_at, const int zt_on) {
  const int lid0 = get_local_id(0);
  const int lid1 = get_local_id(1);
  const int gm = get_group_id(0);
  const int gn = get_group_id(1);
  // This group's k tiles (all of them without a split), and its operands and output: a k
  // slice's or a batch product's.
  const int gz = get_group_id(2);
  const int kt0 = gz * k_z;
  a_off += (clf_index)gz * a_z;
  b_off += (clf_index)gz * b_z;
  c_off += CLF_Z_OFFSET(zt, zt_on, zt_at, gz, c_z);
#if SA || SB
  const int tid = lid1 * MDIMC + lid0;
#endif
  // Vectors from one work-group's columns of an operand to the next one's.
#if PANEL
  const clf_index a_panel = (clf_index)Kp * a_ld, b_panel = (clf_index)Kp * b_ld;
#else
  const clf_index a_panel = MVG, b_panel = NVG;
#endif

#if SA
  __local realM alm[NBUF * KWG * MVG];
  const int la0 = tid % MDIMA, la1 = tid / MDIMA;
  // This work-item's first A element to load: row la1, vector la0 of the tile.
  const __global realM* agl = ag + a_off + (clf_index)la1 * a_ld + gm * a_panel + la0;
  realM ar[KWA][MVA];
#else
  const __global realM* agc = ag + a_off + gm * a_panel;  // row 0 of the A tile
#endif
#if SB
  __local realN blm[NBUF * KWG * NVG];
  const int lb0 = tid % NDIMB, lb1 = tid / NDIMB;
  const __global realN* bgl = bg + b_off + (clf_index)lb1 * b_ld + gn * b_panel + lb0;
  realN br[KWB][NVB];
#else
  const __global realN* bgc = bg + b_off + gn * b_panel;
#endif

  realM cpm[NWI][MVI];
#pragma unroll
  for (int ni = 0; ni < NWI; ++ni)
#pragma unroll
    for (int mi = 0; mi < MVI; ++mi) cpm[ni][mi] = (realM)(0.0f);

  const int ktiles = min(Kp / KWG - kt0, kt_split);

  // One iteration per k tile. With DBUF the loop starts one tile early: iteration kt fetches
  // tile kt + 1 into registers, computes on the local buffer kt & 1, then stores the fetched
  // tile into the other buffer (one barrier per tile). Without DBUF: fetch, store, barrier,
  // compute, barrier.
  for (int kt = -DBUF; kt < ktiles; ++kt) {
    const int kf = kt + DBUF;  // tile fetched in this iteration
#if SA || SB
    if (kf < ktiles) {
#if SA
#pragma unroll
      for (int ka = 0; ka < KWA; ++ka)
#pragma unroll
        for (int ma = 0; ma < MVA; ++ma) ar[ka][ma] = agl[(clf_index)(kf * KWG + ka * KDIMA) * a_ld + ma * MDIMA];
#endif
#if SB
#pragma unroll
      for (int kb = 0; kb < KWB; ++kb)
#pragma unroll
        for (int nb = 0; nb < NVB; ++nb) br[kb][nb] = bgl[(clf_index)(kf * KWG + kb * KDIMB) * b_ld + nb * NDIMB];
#endif
    }
#endif
#if (SA || SB) && !DBUF
    {
#if SA
#pragma unroll
      for (int ka = 0; ka < KWA; ++ka)
#pragma unroll
        for (int ma = 0; ma < MVA; ++ma) alm[(la1 + ka * KDIMA) * MVG + la0 + ma * MDIMA] = ar[ka][ma];
#endif
#if SB
#pragma unroll
      for (int kb = 0; kb < KWB; ++kb)
#pragma unroll
        for (int nb = 0; nb < NVB; ++nb) blm[(lb1 + kb * KDIMB) * NVG + lb0 + nb * NDIMB] = br[kb][nb];
#endif
      barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif

    if (kt >= 0) {
      const int k0 = kt * KWG;
#if DBUF
      const int cur = kt & 1;
#else
      const int cur = 0;
#endif
      for (int kk = 0; kk < KWG; kk += KWI) {
#pragma unroll
        for (int ki = 0; ki < KWI; ++ki) {
          const int k = kk + ki;
          realM apm[MVI];
#pragma unroll
          for (int mi = 0; mi < MVI; ++mi) {
#if SA
            apm[mi] = alm[(cur * KWG + k) * MVG + XG_MV(lid0, mi)];
#else
            apm[mi] = agc[(clf_index)(k0 + k) * a_ld + XG_MV(lid0, mi)];
#endif
          }
          float bpm[NWI];
#pragma unroll
          for (int ni = 0; ni < NVI; ++ni) {
#if SB
            const realN v = blm[(cur * KWG + k) * NVG + XG_NV(lid1, ni)];
#else
            const realN v = bgc[(clf_index)(k0 + k) * b_ld + XG_NV(lid1, ni)];
#endif
            XG_UNPACKN(v, bpm, ni * VWN)
          }
#pragma unroll
          for (int ni = 0; ni < NWI; ++ni)
#pragma unroll
            for (int mi = 0; mi < MVI; ++mi) cpm[ni][mi] = CLF_MAD(apm[mi], (realM)(bpm[ni]), cpm[ni][mi]);
        }
      }
      (void)k0;
      (void)cur;
    }

#if (SA || SB) && DBUF
    if (kf < ktiles) {
      const int nxt = kf & 1;
#if SA
#pragma unroll
      for (int ka = 0; ka < KWA; ++ka)
#pragma unroll
        for (int ma = 0; ma < MVA; ++ma) alm[(nxt * KWG + la1 + ka * KDIMA) * MVG + la0 + ma * MDIMA] = ar[ka][ma];
#endif
#if SB
#pragma unroll
      for (int kb = 0; kb < KWB; ++kb)
#pragma unroll
        for (int nb = 0; nb < NVB; ++nb) blm[(nxt * KWG + lb1 + kb * KDIMB) * NVG + lb0 + nb * NDIMB] = br[kb][nb];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#elif SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

  // C = alpha * AB + beta * C in the user's buffer. Interior tiles of an aligned C store
  // whole vectors; edge tiles check every element.
  const int m0 = gm * MWG, n0 = gn * NWG;
  __global float* cgo = cg + c_off;
  if (c_vec && m0 + MWG <= M && n0 + NWG <= N) {
#pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      const int n = n0 + XG_NV(lid1, ni / VWN) * VWN + ni % VWN;
#pragma unroll
      for (int mi = 0; mi < MVI; ++mi) {
        const int m = m0 + XG_MV(lid0, mi) * VWM;
        __global realM* cp = (__global realM*)(cgo + (clf_index)n * c_ld + m);
        if (beta == 0.0f)
          *cp = alpha * cpm[ni][mi];
        else
          *cp = CLF_MAD((realM)(alpha), cpm[ni][mi], beta * *cp);
      }
    }
  } else {
    for (int ni = 0; ni < NWI; ++ni) {
      const int n = n0 + XG_NV(lid1, ni / VWN) * VWN + ni % VWN;
      if (n >= N) continue;
      for (int mi = 0; mi < MVI; ++mi) {
        const int m = m0 + XG_MV(lid0, mi) * VWM;
        const realM rv = alpha * cpm[ni][mi];
        float r[VWM];
        XG_UNPACKM(rv, r, 0)
        __global float* cp = cgo + (clf_index)n * c_ld + m;
        for (int v = 0; v < VWM; ++v) {
          if (m + v < M) cp[v] = beta == 0.0f ? r[v] : CLF_MAD(beta, cp[v], r[v]);
        }
      }
    }
  }
}
