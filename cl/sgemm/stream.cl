// SGEMM streaming kernel (family "sgemm_stream"): the register-blocked design of the GPU SGEMM
// literature (Volkov & Demmel 2008) in which one operand is staged in local memory and the
// other streams from global memory straight into registers, with a large C tile per
// work-group and few barriers.
//
// Packed operands as in cl/sgemm/xgemm.cl (internal column-major view, k-major and
// zero-padded): A[k][m] = ag[a_off + k * a_ld + m / SGS_MWI] (vectors of SGS_MWI),
// B[k][n] = bg[b_off + k * b_ld + n]; Mp is a multiple of SGS_WG * SGS_MWI, Np of SGS_N,
// Kp of SGS_K. For m < M, n < N: C[m + n * c_ld] = alpha * sum_k A[k][m] B[k][n] + beta * C.
//
// A work-group of SGS_WG work-items computes an (SGS_WG * SGS_MWI) x SGS_N tile of C;
// work-item t owns the SGS_MWI consecutive rows m0 + t * SGS_MWI .. and all SGS_N columns
// (SGS_N vectors of SGS_MWI accumulators):
//
//          n ->  SGS_N columns          B tile: SGS_K x SGS_N in local memory (every work-item
//        +--------------------+         reads the same word: a broadcast)
//   t=0  | SGS_MWI x SGS_N    |
//   t=1  |                    |         A: each work-item streams its SGS_MWI-vector of row k
//   ...  |                    |            from global memory; consecutive work-items read
//        +--------------------+            consecutive vectors (coalesced)
//
// With SGS_WG = 128, SGS_MWI = 2, SGS_N = 16, SGS_K = 32 this is the classic shape: 128
// work-items, a 256 x 16 tile of C (16 x 256 in the row-major view of the same product),
// 2 x 16 accumulators per work-item, a 32 x 16 tile in local memory and float2 loads
// streamed from global memory. C is written with guards at the edge tiles; beta == 0 never
// reads C.

// ---- tuning parameters ----
#ifndef SGS_WG
#define SGS_WG 128  // work-items per work-group (32, 64, 128, 256)
#endif
#ifndef SGS_MWI
#define SGS_MWI 2  // consecutive C rows per work-item, the streamed vector width (1, 2, 4, 8)
#endif
#ifndef SGS_N
#define SGS_N 16  // C columns per work-group, the width of the local tile (4, 8, 16, 32)
#endif
#ifndef SGS_K
#define SGS_K 32  // depth of the local tile (8, 16, 32, 64)
#endif

// ---- derived ----
#define SGS_MT (SGS_WG * SGS_MWI)  // C rows per work-group
#if SGS_N % 4 != 0
#error "SGS_N must be a multiple of 4"
#endif

#define SGS_CAT2(a, b) a##b
#define SGS_CAT(a, b) SGS_CAT2(a, b)
#if SGS_MWI == 1
typedef float realS;
#else
typedef SGS_CAT(float, SGS_MWI) realS;
#endif
// Components of v into the floats dst[0 ..]: component-wise on purpose (vstoren into private
// arrays is miscompiled by some PoCL versions).
#define SGS_UNPACK1(v, dst, o) dst[o] = (v);
#define SGS_UNPACK2(v, dst, o) \
  dst[o] = (v).s0;             \
  dst[(o) + 1] = (v).s1;
#define SGS_UNPACK4(v, dst, o) SGS_UNPACK2((v).lo, dst, o) SGS_UNPACK2((v).hi, dst, (o) + 2)
#define SGS_UNPACK8(v, dst, o) SGS_UNPACK4((v).lo, dst, o) SGS_UNPACK4((v).hi, dst, (o) + 4)

__kernel __attribute__((reqd_work_group_size(SGS_WG, 1, 1))) void sgemm_stream(
    const int M, const int N, const int Kp, const float alpha, const float beta, const __global realS* restrict ag,
    clf_index a_off, const clf_index a_ld, const clf_index a_z, const __global float* restrict bg, clf_index b_off,
    const clf_index b_ld, const clf_index b_z, __global float* cg, clf_index c_off, const clf_index c_ld,
    const clf_index c_z, const int c_vec, const __global clf_index* restrict zt, const clf_index zt_at,
    const int zt_on) {
  __local float4 bl[SGS_K * SGS_N / 4];
  __local float* bls = (__local float*)bl;
  const int t = get_local_id(0);
  const int gm = get_group_id(0), gn = get_group_id(1);
  // Product gz of a batch (a_z in vectors; one z group for a single product); C of a batch given
  // by offsets at its entry of the table zt (CLF_Z_OFFSET).
  const clf_index gz = get_group_id(2);
  a_off += gz * a_z;
  b_off += gz * b_z;
  c_off += CLF_Z_OFFSET(zt, zt_on, zt_at, gz, c_z);

  realS acc[SGS_N];
#pragma unroll
  for (int j = 0; j < SGS_N; ++j) acc[j] = (realS)(0.0f);

  const __global realS* ap = ag + a_off + gm * SGS_WG + t;
  const __global float* bp = bg + b_off + gn * SGS_N;

  for (int k0 = 0; k0 < Kp; k0 += SGS_K) {
    for (int i = t; i < SGS_K * SGS_N; i += SGS_WG) bls[i] = bp[(clf_index)(k0 + i / SGS_N) * b_ld + i % SGS_N];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < SGS_K; ++kk) {
      const realS a = ap[(clf_index)(k0 + kk) * a_ld];
#pragma unroll
      for (int j4 = 0; j4 < SGS_N / 4; ++j4) {
        const float4 b = bl[kk * (SGS_N / 4) + j4];
        acc[4 * j4 + 0] = CLF_MAD(a, (realS)(b.x), acc[4 * j4 + 0]);
        acc[4 * j4 + 1] = CLF_MAD(a, (realS)(b.y), acc[4 * j4 + 1]);
        acc[4 * j4 + 2] = CLF_MAD(a, (realS)(b.z), acc[4 * j4 + 2]);
        acc[4 * j4 + 3] = CLF_MAD(a, (realS)(b.w), acc[4 * j4 + 3]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  const int m = gm * SGS_MT + t * SGS_MWI;
  const int n0 = gn * SGS_N;
  __global float* cgo = cg + c_off;
  if (c_vec && gm * SGS_MT + SGS_MT <= M && n0 + SGS_N <= N) {
#pragma unroll
    for (int j = 0; j < SGS_N; ++j) {
      __global realS* cp = (__global realS*)(cgo + (clf_index)(n0 + j) * c_ld + m);
      if (beta == 0.0f)
        *cp = alpha * acc[j];
      else
        *cp = CLF_MAD((realS)(alpha), acc[j], beta * *cp);
    }
  } else {
    for (int j = 0; j < SGS_N; ++j) {
      const int n = n0 + j;
      if (n >= N) break;
      const realS rv = alpha * acc[j];
      float r[SGS_MWI];
      SGS_CAT(SGS_UNPACK, SGS_MWI)(rv, r, 0) __global float* cp = cgo + (clf_index)n * c_ld + m;
      for (int v = 0; v < SGS_MWI; ++v)
        if (m + v < M) cp[v] = beta == 0.0f ? r[v] : CLF_MAD(beta, cp[v], r[v]);
    }
  }
}
