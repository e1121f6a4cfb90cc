// One radix pass of fft_local in registers (fft.cl): work-item indices, complex arithmetic,
// the twiddles inside a kernel (tables or computed), the butterfly dispatch, and FFT_PASS.
// Follows fft_params.cl.

// Small helpers are functions (no loops inside). Everything that loops over registers is a macro
// expanded in the kernel body with literal bounds, so that every compiler unrolls it fully and the
// private arrays stay in registers (a loop bound that is a function parameter is only a constant
// after inlining, and some compilers unroll before they inline).
#define FFT_INLINE static inline __attribute__((always_inline))
#define FFT_UNROLL _Pragma("unroll")

// ---- work-item indices ----
// The kernel's two forms. GPUs (FFT_VEC 1): int indices. CPUs (FFT_VEC 0), where the compiler runs
// a group's work-items as a loop between barriers and vectorises across them (PoCL): unsigned
// indices (64-bit ones, size_t, would halve the vector width), and the work-item's indices are
// macros that read the local id where they are used, not variables set once: a variable set
// before a barrier and used after it is kept per work-item in memory, and the accesses it indexes
// become gathers and scatters instead of contiguous vectors.
#if FFT_VEC
typedef int fft_wi;
#define FFT_LID ((int)get_local_id(0))
#elif defined(CLF_LONG_INDEX) && CLF_LONG_INDEX
typedef size_t fft_wi;  // global indices past 2^32
#define FFT_LID get_local_id(0)
#else
typedef uint fft_wi;
#define FFT_LID ((uint)get_local_id(0))
#endif
#if FFT_B == 1
#define FFT_TB 0         // transform within the group
#define FFT_TID FFT_LID  // work-item within the transform
#elif FFT_TFAST
#define FFT_TB (FFT_LID % FFT_B)  // consecutive work-items: consecutive transforms
#define FFT_TID (FFT_LID / FFT_B)
#else
#define FFT_TB (FFT_LID / FFT_T)
#define FFT_TID (FFT_LID % FFT_T)
#endif
// Butterfly j's index within its group of NS (j mod NS): j itself where the pass has no more
// butterflies than NS (the last pass of every transform).
#define FFT_JJ(R, NS, j) ((FFT_N / (R)) <= (NS) ? (j) : (j) % (NS))

// ---- complex helpers ----
FFT_INLINE fft_c fft_make(const float r, const float i) {
  fft_c c;
  c.r = r;
  c.i = i;
  return c;
}

// A complex value read from a global table or buffer: one 8-byte access, or two floats (CPU
// compilers vectorise across work-items only over scalar types).
#if FFT_VEC
#define FFT_CLOAD(p, a) ((p)[a])
#else
#define FFT_CLOAD(p, a) fft_make(((__global const float*)(p))[2 * (a)], ((__global const float*)(p))[2 * (a) + 1])
#endif

FFT_INLINE fft_c fft_mul(const fft_c a, const fft_c b) {
  return fft_make(a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r);
}

// exp(-2 pi i k / n), 0 <= k < n (n a constant at every call), by sinpi/cospi of 2k/n after
// folding k into [0, n/4] (or [0, n/2]) with exact integer symmetries: the argument stays small
// and its rounding costs little, with no 2*pi rounding.
FFT_INLINE fft_c fft_root(int k, const int n) {
  float sy = -1.0f;  // W = (cos, -sin)
  if (2 * k > n) {
    k = n - k;
    sy = 1.0f;
  }
  float cs = 1.0f;
  if (n % 4 == 0 && 4 * k > n) {
    k = n / 2 - k;
    cs = -1.0f;
  }
  const float a = (float)(2 * k) / (float)n;
  return fft_make(cs * cospi(a), sy * sinpi(a));
}

// Twiddle r of butterfly jj (= j mod NS) in a pass of radix R: W_(NS*R)^(r * jj), 1 <= r < R.
// The table (FFT_TWIDDLE 0, computed in double on the host and rounded once) holds every pass's
// twiddles in pass order, each pass r-major: entry off + (r - 1) * NS + jj, so that the
// consecutive butterflies of a warp read consecutive entries (one or two cache lines per load;
// indexed as W_N^(r * jj * N / (NS * R)) in one length-N table, the same load touched up to 16).
FFT_INLINE fft_c fft_twiddle(__global const fft_c* restrict twl, const int off, const int r, const fft_wi jj,
                             const int NS, const int R) {
#if FFT_TWIDDLE != 1
  return FFT_CLOAD(twl, off + (r - 1) * NS + jj);
#else
  return fft_root(r * (int)jj, NS * R);
#endif
}

#if FFT_TWIDDLE >= 4
// Straight-line steps of the float products (S = FFT_TWSQ(R) and R are constants at every call):
// w^l, l < S, and w^h, h a multiple of S below R, from the table; w^r = w^(r - r mod S) * w^(r mod S).
#define FFT_TWLO(l) \
  if (S > (l)) p_[l] = FFT_CLOAD(twl, off + ((l)-1) * (NS) + jj);
#define FFT_TWHI(h) \
  if ((h) % S == 0 && R > (h)) p_[h] = FFT_CLOAD(twl, off + (S - 2 + (h) / S) * (NS) + jj);
#define FFT_TWPR(r) \
  if (R > (r) && (r) > S && (r) % S != 0) p_[r] = fft_mul(p_[(r) - (r) % S], p_[(r) % S]);
#endif

#if FFT_DOUBLE_TW
FFT_INLINE double2 fft_dmul(const double2 a, const double2 b) {
  return (double2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
// acc = acc * step in double, then v[r] *= acc rounded to float (one chain: step w, acc the
// powers; two chains: step w^2, acc the odd or the even powers).
#define FFT_DPOW(r, acc, step)                                      \
  if (R > (r)) {                                                    \
    acc = fft_dmul(acc, step);                                      \
    v[r] = fft_mul(v[r], fft_make((float)(acc).x, (float)(acc).y)); \
  }
#endif

// v[r] *= W_(NS*R)^(r * jj), 1 <= r < R (straight-line; R and NS are constants at every call).
FFT_INLINE void fft_twiddles(const int R, const int NS, fft_c* v, __global const fft_c* restrict twl, const int off,
                             const fft_wi jj) {
#if FFT_TWIDDLE >= 4
  if (FFT_TWP(R, NS)) {
    // w^l (l = 1 ... S - 1) at off + (l - 1) * NS + jj, then w^(h*S) at off + (S - 2 + h) * NS + jj
    // (each rounded once on the host); w^(h*S + l) as their product (indices known at compile
    // time: registers).
    const int S = FFT_TWSQ(R);
    fft_c p_[32];
    // clang-format off
    FFT_TWLO(1) FFT_TWLO(2) FFT_TWLO(3) FFT_TWLO(4) FFT_TWLO(5) FFT_TWLO(6) FFT_TWLO(7)
    FFT_TWHI(2) FFT_TWHI(4) FFT_TWHI(6) FFT_TWHI(8) FFT_TWHI(10) FFT_TWHI(12) FFT_TWHI(14) FFT_TWHI(16)
    FFT_TWHI(18) FFT_TWHI(20) FFT_TWHI(22) FFT_TWHI(24) FFT_TWHI(26) FFT_TWHI(28) FFT_TWHI(30)
    FFT_TWPR(3) FFT_TWPR(5) FFT_TWPR(6) FFT_TWPR(7) FFT_TWPR(9) FFT_TWPR(10) FFT_TWPR(11) FFT_TWPR(12) FFT_TWPR(13)
    FFT_TWPR(14) FFT_TWPR(15) FFT_TWPR(17) FFT_TWPR(18) FFT_TWPR(19) FFT_TWPR(20) FFT_TWPR(21) FFT_TWPR(22)
    FFT_TWPR(23) FFT_TWPR(25) FFT_TWPR(26) FFT_TWPR(27) FFT_TWPR(28) FFT_TWPR(29) FFT_TWPR(30) FFT_TWPR(31)
        // clang-format on
        FFT_UNROLL for (int r_ = 1; r_ < R; ++r_) v[r_] = fft_mul(v[r_], p_[r_]);
    return;
  }
#endif
#if FFT_DOUBLE_TW
  if (FFT_TWD(R, NS)) {
    // W_(NS*R)^jj in double at slots off + 2 jj; W^r = W^(r-1) * W in double (relative error
    // about r double roundings, far below one float rounding), then rounded once.
    const __global double* t_ = (const __global double*)(twl + off) + 2 * jj;
    const double2 w1 = (double2)(t_[0], t_[1]);
    double2 w = w1;
    v[1] = fft_mul(v[1], fft_make((float)w1.x, (float)w1.y));
#if FFT_DCHAIN == 2
    // Two chains of w^2 steps (odd and even powers): half the dependent products, more registers.
    if (R > 2) {
      const double2 w2 = fft_dmul(w1, w1);
      double2 we = w2;
      v[2] = fft_mul(v[2], fft_make((float)w2.x, (float)w2.y));
      // clang-format off
      FFT_DPOW(3, w, w2) FFT_DPOW(4, we, w2) FFT_DPOW(5, w, w2) FFT_DPOW(6, we, w2) FFT_DPOW(7, w, w2)
      FFT_DPOW(8, we, w2) FFT_DPOW(9, w, w2) FFT_DPOW(10, we, w2) FFT_DPOW(11, w, w2) FFT_DPOW(12, we, w2)
      FFT_DPOW(13, w, w2) FFT_DPOW(14, we, w2) FFT_DPOW(15, w, w2) FFT_DPOW(16, we, w2) FFT_DPOW(17, w, w2)
      FFT_DPOW(18, we, w2) FFT_DPOW(19, w, w2) FFT_DPOW(20, we, w2) FFT_DPOW(21, w, w2) FFT_DPOW(22, we, w2)
      FFT_DPOW(23, w, w2) FFT_DPOW(24, we, w2) FFT_DPOW(25, w, w2) FFT_DPOW(26, we, w2) FFT_DPOW(27, w, w2)
      FFT_DPOW(28, we, w2) FFT_DPOW(29, w, w2) FFT_DPOW(30, we, w2) FFT_DPOW(31, w, w2)
      // clang-format on
    }
#else
    // clang-format off
    FFT_DPOW(2, w, w1) FFT_DPOW(3, w, w1) FFT_DPOW(4, w, w1) FFT_DPOW(5, w, w1) FFT_DPOW(6, w, w1)
    FFT_DPOW(7, w, w1) FFT_DPOW(8, w, w1) FFT_DPOW(9, w, w1) FFT_DPOW(10, w, w1) FFT_DPOW(11, w, w1)
    FFT_DPOW(12, w, w1) FFT_DPOW(13, w, w1) FFT_DPOW(14, w, w1) FFT_DPOW(15, w, w1) FFT_DPOW(16, w, w1)
    FFT_DPOW(17, w, w1) FFT_DPOW(18, w, w1) FFT_DPOW(19, w, w1) FFT_DPOW(20, w, w1) FFT_DPOW(21, w, w1)
    FFT_DPOW(22, w, w1) FFT_DPOW(23, w, w1) FFT_DPOW(24, w, w1) FFT_DPOW(25, w, w1) FFT_DPOW(26, w, w1)
    FFT_DPOW(27, w, w1) FFT_DPOW(28, w, w1) FFT_DPOW(29, w, w1) FFT_DPOW(30, w, w1) FFT_DPOW(31, w, w1)
    // clang-format on
#endif
    return;
  }
#endif
  {
    if (R > 1) v[1] = fft_mul(v[1], fft_twiddle(twl, off, 1, jj, NS, R));
    if (R > 2) v[2] = fft_mul(v[2], fft_twiddle(twl, off, 2, jj, NS, R));
    if (R > 3) v[3] = fft_mul(v[3], fft_twiddle(twl, off, 3, jj, NS, R));
    if (R > 4) v[4] = fft_mul(v[4], fft_twiddle(twl, off, 4, jj, NS, R));
    if (R > 5) v[5] = fft_mul(v[5], fft_twiddle(twl, off, 5, jj, NS, R));
    if (R > 6) v[6] = fft_mul(v[6], fft_twiddle(twl, off, 6, jj, NS, R));
    if (R > 7) v[7] = fft_mul(v[7], fft_twiddle(twl, off, 7, jj, NS, R));
    if (R > 8) v[8] = fft_mul(v[8], fft_twiddle(twl, off, 8, jj, NS, R));
    if (R > 9) v[9] = fft_mul(v[9], fft_twiddle(twl, off, 9, jj, NS, R));
    if (R > 10) v[10] = fft_mul(v[10], fft_twiddle(twl, off, 10, jj, NS, R));
    if (R > 11) v[11] = fft_mul(v[11], fft_twiddle(twl, off, 11, jj, NS, R));
    if (R > 12) v[12] = fft_mul(v[12], fft_twiddle(twl, off, 12, jj, NS, R));
    if (R > 13) v[13] = fft_mul(v[13], fft_twiddle(twl, off, 13, jj, NS, R));
    if (R > 14) v[14] = fft_mul(v[14], fft_twiddle(twl, off, 14, jj, NS, R));
    if (R > 15) v[15] = fft_mul(v[15], fft_twiddle(twl, off, 15, jj, NS, R));
    if (R > 16) v[16] = fft_mul(v[16], fft_twiddle(twl, off, 16, jj, NS, R));
    if (R > 17) v[17] = fft_mul(v[17], fft_twiddle(twl, off, 17, jj, NS, R));
    if (R > 18) v[18] = fft_mul(v[18], fft_twiddle(twl, off, 18, jj, NS, R));
    if (R > 19) v[19] = fft_mul(v[19], fft_twiddle(twl, off, 19, jj, NS, R));
    if (R > 20) v[20] = fft_mul(v[20], fft_twiddle(twl, off, 20, jj, NS, R));
    if (R > 21) v[21] = fft_mul(v[21], fft_twiddle(twl, off, 21, jj, NS, R));
    if (R > 22) v[22] = fft_mul(v[22], fft_twiddle(twl, off, 22, jj, NS, R));
    if (R > 23) v[23] = fft_mul(v[23], fft_twiddle(twl, off, 23, jj, NS, R));
    if (R > 24) v[24] = fft_mul(v[24], fft_twiddle(twl, off, 24, jj, NS, R));
    if (R > 25) v[25] = fft_mul(v[25], fft_twiddle(twl, off, 25, jj, NS, R));
    if (R > 26) v[26] = fft_mul(v[26], fft_twiddle(twl, off, 26, jj, NS, R));
    if (R > 27) v[27] = fft_mul(v[27], fft_twiddle(twl, off, 27, jj, NS, R));
    if (R > 28) v[28] = fft_mul(v[28], fft_twiddle(twl, off, 28, jj, NS, R));
    if (R > 29) v[29] = fft_mul(v[29], fft_twiddle(twl, off, 29, jj, NS, R));
    if (R > 30) v[30] = fft_mul(v[30], fft_twiddle(twl, off, 30, jj, NS, R));
    if (R > 31) v[31] = fft_mul(v[31], fft_twiddle(twl, off, 31, jj, NS, R));
  }
}

FFT_INLINE void fft_butterfly(const int r, fft_c* v) {
  switch (r) {
    case 2:
      fft_bf2(v);
      break;
    case 3:
      fft_bf3(v);
      break;
    case 4:
      fft_bf4(v);
      break;
    case 5:
      fft_bf5(v);
      break;
    case 7:
      fft_bf7(v);
      break;
    case 8:
      fft_bf8(v);
      break;
    case 9:
      fft_bf9(v);
      break;
    case 11:
      fft_bf11(v);
      break;
    case 13:
      fft_bf13(v);
      break;
    case 15:
      fft_bf15(v);
      break;
    case 16:
      fft_bf16(v);
      break;
    case 25:
      fft_bf25(v);
      break;
    case 32:
      fft_bf32(v);
      break;
    default:
      break;
  }
}

// Butterfly i of this work-item in a pass of radix R: j = tid + i * FFT_T; the last iteration is
// partial when FFT_T does not divide the FFT_N / R butterflies.
#define FFT_HAS_J(R, j) ((FFT_N / (R)) % FFT_T == 0 || (j) < FFT_N / (R))

// One radix-R pass on the work-item's butterflies: twiddle, then butterfly, in registers.
#define FFT_PASS(R, NS, TWO)                                                          \
  do {                                                                                \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) {                             \
      const fft_wi j_ = FFT_TID + i_ * FFT_T;                                         \
      if (FFT_HAS_J(R, j_)) {                                                         \
        if ((NS) > 1) fft_twiddles(R, NS, x + i_ * (R), twl, TWO, FFT_JJ(R, NS, j_)); \
        fft_butterfly(R, x + i_ * (R));                                               \
      }                                                                               \
    }                                                                                 \
  } while (0)
