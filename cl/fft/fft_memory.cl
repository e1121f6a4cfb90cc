// Global memory of fft_local (fft.cl): element addresses of a transform or a pass, the
// operations on load (conjugation, pass twiddles, chirp) and on store (spectrum or chirp,
// conjugation, scaling). Follows fft_exchange.cl.

// ---- global memory ----
#if FFT_VEC
#define FFT_GLOAD(p, a) fft_from2(((__global const float2*)(p))[a])
#define FFT_GSTORE(p, a, v) (((__global float2*)(p))[a] = fft_to2(v))
FFT_INLINE fft_c fft_from2(const float2 v) { return fft_make(v.x, v.y); }
FFT_INLINE float2 fft_to2(const fft_c v) { return (float2)(v.r, v.i); }
#else
#define FFT_GLOAD(p, a) FFT_CLOAD(p, a)
#define FFT_GSTORE(p, a, v)                     \
  do {                                          \
    const fft_c s_ = (v);                       \
    ((__global float*)(p))[2 * (a)] = s_.r;     \
    ((__global float*)(p))[2 * (a) + 1] = s_.i; \
  } while (0)
#endif

// A pass of a multi-pass plan (FFT_SPLIT) has its index arithmetic in routine constants: L =
// FFT_SL kernel transforms per user transform, NS = FFT_SNS, radix FFT_N, so that the divisions
// by L and NS (per element in a staged access) become shifts or multiplications. In the column
// form (FFT_COLS) a launch's transform t is hi itself and lo the group's third index, so that the
// group's transforms are neighbouring user transforms at one lo (adjacent columns coalesce).
#if FFT_SPLIT
#if FFT_COLS
#define FFT_HI(t) (t)
#define FFT_LO(t) fft_lo
#else
#define FFT_HI(t) ((t) / FFT_SL)
#define FFT_LO(t) ((t) % FFT_SL)
#endif
#define FFT_IN_POS(lo, e) ((lo) + (e)*FFT_SL)
#define FFT_OUT_POS(lo, e) (((lo) / FFT_SNS) * (FFT_SNS * FFT_N) + (lo) % FFT_SNS + (e)*FFT_SNS)
// Pass twiddle exponent of element e of transform lo: W_Ntot^(e * (lo mod NS) * L / NS).
#define FFT_TW_M(lo, e) ((e) * ((lo) % FFT_SNS) * (FFT_SL / FFT_SNS))
#else
#define FFT_HI(t) (t)
#define FFT_LO(t) 0
#define FFT_IN_POS(lo, e) (e)
#define FFT_OUT_POS(lo, e) (e)
#endif
#if (FFT_PRE == 1 || FFT_PRE == 3) && !FFT_SPLIT
#error "pass twiddles belong to a pass (FFT_SPLIT)"
#endif

// W_Ntot^m from the two-level table: hi[m >> shift] * lo[m & (2^shift - 1)].
#define FFT_TW2(m) fft_mul(FFT_CLOAD(tw_hi, (m) >> tw_shift), FFT_CLOAD(tw_lo, (m) & ((1 << tw_shift) - 1)))

#if FFT_PRE == 1 && FFT_TWIDDLE != 1
#define FFT_PRE_OP(v, lo, e, pos) v = fft_mul(v, FFT_TW2(FFT_TW_M(lo, e)))
#elif FFT_PRE == 1
// The same twiddle computed (Ntot = FFT_SL * FFT_N): no table gathers, more arithmetic.
#define FFT_PRE_OP(v, lo, e, pos) v = fft_mul(v, fft_root(FFT_TW_M(lo, e), FFT_SL * FFT_N))
#elif FFT_PRE == 2
#define FFT_PRE_OP(v, lo, e, pos) v = fft_mul(v, FFT_CLOAD(aux_in, pos))
#elif FFT_PRE == 4
// A real-input plan's pre-processing (fft_real.cl's fft_real_pre, even n = 2 FFT_N) on the load of
// position k from the half spectrum X (FFT_N + 1 values): Z_k = (X_k + conj X_(m-k)) + i W_n^-k
// (X_k - conj X_(m-k)), m = FFT_N, X_0 and X_m taken as real, W_n^k = aux_in[k]; v arrives
// conjugated by cj_in, and leaves so. Expands inside FFT_LOAD (t_: the transform).
#if FFT_SPLIT || FFT_BLUESTEIN
#error "the real pre-processing on load needs a kernel of one whole transform"
#endif
FFT_INLINE fft_c fft_real_pre(fft_c a, fft_c b, const fft_c w, const int k, const float cj) {
  a.i *= cj;   // X_k
  b.i = -b.i;  // conj X_(m-k)
  if (k == 0) a.i = b.i = 0.0f;
  const fft_c s = fft_make(a.r - b.r, a.i - b.i);
  const fft_c u = fft_mul(fft_make(w.r, -w.i), s);  // W_n^-k (a - b)
  return fft_make(a.r + b.r - u.i, (a.i + b.i + u.r) * cj);
}
#define FFT_PRE_OP(v, lo, e, pos)                                                                  \
  v = fft_real_pre(v, FFT_GLOAD(in, FFT_GIDX(in_base, FFT_HI(t_), in_dh, FFT_N - (pos), FFT_INS)), \
                   FFT_CLOAD(aux_in, pos), (int)(pos), cj_in)
#else
#define FFT_PRE_OP(v, lo, e, pos)
#endif

// Element strides: the literal 1 where the plan's stride is 1 (FFT_IN_UNIT, FFT_OUT_UNIT), so that
// consecutive positions are consecutive addresses to the compiler.
#if defined(FFT_IN_UNIT) && FFT_IN_UNIT
#define FFT_INS 1
#else
#define FFT_INS in_S
#endif
#if defined(FFT_OUT_UNIT) && FFT_OUT_UNIT
#define FFT_OUTS 1
#else
#define FFT_OUTS out_S
#endif
// Index of position pos of transform hi: in the CPU form unsigned, pos (an fft_wi) not converted.
#if FFT_VEC
#define FFT_GIDX(off, hi, dh, pos, S) ((off) + (clf_index)(hi) * (dh) + (clf_index)(pos) * (S))
#else
#define FFT_GIDX(off, hi, dh, pos, S) ((fft_wi)((off) + (clf_index)(hi) * (dh)) + (pos) * (fft_wi)(S))
#endif

// Loads of real values (FFT_IN_REAL, an odd-length real plan's forward: offsets, distances and
// strides count floats) or of complex ones.
#if defined(FFT_IN_REAL) && FFT_IN_REAL
#define FFT_GLOAD_IN(p, a) fft_make(((__global const float*)(p))[a], 0.0f)
#else
#define FFT_GLOAD_IN(p, a) FFT_GLOAD(p, a)
#endif
// The Hermitian extension of a half spectrum of FFT_IN_HERM (odd) points on load (an odd-length
// real plan's inverse): position pos > n/2 reads conj X_(n-pos).
#if defined(FFT_IN_HERM) && FFT_IN_HERM
#define FFT_HERM_POS(pos) ((pos) > FFT_IN_HERM / 2 ? FFT_IN_HERM - (pos) : (pos))
#define FFT_HERM_CONJ(v, pos) ((v).i = (pos) > FFT_IN_HERM / 2 ? -(v).i : (v).i)
#else
#define FFT_HERM_POS(pos) (pos)
#define FFT_HERM_CONJ(v, pos)
#endif
// Stores of the real parts alone (FFT_OUT_REAL, an odd-length real plan's inverse: offsets,
// distances and strides count floats) or of complex values.
#if defined(FFT_OUT_REAL) && FFT_OUT_REAL
#define FFT_GSTORE_OUT(p, a, v) (((__global float*)(p))[a] = (v).r)
#else
#define FFT_GSTORE_OUT(p, a, v) FFT_GSTORE(p, a, v)
#endif

// dst = element e of transform t, conjugated by cj_in, pre-operation applied; zero outside.
// Without FFT_IN_CHECK the loads are unconditional: the transforms past the batch (in the last
// group) read the batch's last transform instead, and their results are not stored. A load in a
// branch joins as a two-float vector, which makes a compiler that vectorises across work-items
// (PoCL) leave the whole work-item loop scalar; on the H200 the register kernels gain too (64
// points at 512 MiB: 0.276 ms against 0.315 with the branch, 2026-11-23, bench fft).
#define FFT_LOAD(dst, t, e)                                                                     \
  do {                                                                                          \
    const int t_ = FFT_IN_CHECK ? (int)(t) : min((int)(t), total - 1);                          \
    const fft_wi e_ = (e);                                                                      \
    const int lo_ = FFT_LO(t_);                                                                 \
    const fft_wi pos_ = FFT_IN_POS(lo_, e_);                                                    \
    fft_c v_ = fft_make(0.0f, 0.0f);                                                            \
    if (!FFT_IN_CHECK || (t_ < total && pos_ < in_len)) {                                       \
      v_ = FFT_GLOAD_IN(in, FFT_GIDX(in_base, FFT_HI(t_), in_dh, FFT_HERM_POS(pos_), FFT_INS)); \
      FFT_HERM_CONJ(v_, pos_);                                                                  \
      v_.i *= cj_in;                                                                            \
      FFT_PRE_OP(v_, lo_, e_, pos_);                                                            \
    }                                                                                           \
    (dst) = v_;                                                                                 \
  } while (0)

#if FFT_POST == 1
#define FFT_POST_OP(v, pos) v = fft_mul(v, FFT_CLOAD(aux_out, pos))
#else
#define FFT_POST_OP(v, pos)
#endif

// Element e of transform t = val, post-operation, conjugated by cj_out and scaled.
#define FFT_STORE(val, t, e)                                                      \
  do {                                                                            \
    const int t_ = (t);                                                           \
    const fft_wi e_ = (e);                                                        \
    const int lo_ = FFT_LO(t_);                                                   \
    const fft_wi pos_ = FFT_OUT_POS(lo_, e_);                                     \
    if (t_ < total && (!FFT_OUT_CHECK || pos_ < out_len)) {                       \
      fft_c v_ = (val);                                                           \
      FFT_POST_OP(v_, pos_);                                                      \
      FFT_GSTORE_OUT(out, FFT_GIDX(out_base, FFT_HI(t_), out_dh, pos_, FFT_OUTS), \
                     fft_make(v_.r* scale, v_.i* cj_out* scale));                 \
    }                                                                             \
  } while (0)
