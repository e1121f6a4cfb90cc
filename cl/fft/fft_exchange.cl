// Exchanges of fft_local (fft.cl) between passes and for staged global accesses: through local
// memory (whole values, halves or quarters), or inside one work-item's registers; and the
// sequence of passes with their exchanges (FFT_RUN_PASSES). Follows fft_pass.cl.

// ---- exchanges through local memory (h: 0 real parts, 1 imaginary parts when halving) ----
#if FFT_HALVE
#define FFT_LPUT(buf, idx, val, h) ((buf)[idx] = (h) ? (val).i : (val).r)
#define FFT_LGET(buf, idx, dst, h) \
  do {                             \
    if (h)                         \
      (dst).i = (buf)[idx];        \
    else                           \
      (dst).r = (buf)[idx];        \
  } while (0)
#elif FFT_VEC
#define FFT_LPUT(buf, idx, val, h) ((buf)[idx] = (val))
#define FFT_LGET(buf, idx, dst, h) ((dst) = (buf)[idx])
#else
#define FFT_LPUT(buf, idx, val, h) ((buf)[2 * (idx)] = (val).r, (buf)[2 * (idx) + 1] = (val).i)
#define FFT_LGET(buf, idx, dst, h) ((dst).r = (buf)[2 * (idx)], (dst).i = (buf)[2 * (idx) + 1])
#endif

// Exchanges in quarters (FFT_HALVE 2): each component moves in two rounds, positions [0, N/2)
// then [N/2, N) (q = 0, 1), through a row of N/2 slots. Which values belong to a round is known
// without looking at positions when the radices after the first are even (the launcher checks):
// the outputs of butterfly j of a pass (radix R, NS * R <= N/2) lie in [0, N/2) exactly when
// j < N/(2R), and the inputs j + r * N/R of the next pass exactly when r < R/2. So the round
// selects whole butterflies (a work-item's butterflies i, or its first or second half of
// work-items) and whole register indices, with no per-value test.
#if FFT_HALVE == 2
#define FFT_QPUT(R, j, q) ((((j) < FFT_N / (2 * (R))) ? 0 : 1) == (q))
#define FFT_QGET(R, r, q) ((((r) < (R) / 2) ? 0 : 1) == (q))
#define FFT_QOFF(q) ((q) * (FFT_N / 2))
#else
#define FFT_QPUT(R, j, q) 1
#define FFT_QGET(R, r, q) 1
#define FFT_QOFF(q) 0
#endif

// Outputs of a pass with radix R and NS into their Stockham positions (round q).
#define FFT_PUT_OUT(R, NS, h, q)                                                    \
  do {                                                                              \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) {                           \
      const fft_wi j_ = FFT_TID + i_ * FFT_T;                                       \
      if (FFT_HAS_J(R, j_) && FFT_QPUT(R, j_, q)) {                                 \
        const int base_ = (j_ / (NS)) * (NS) * (R) + (j_ % (NS)) - FFT_QOFF(q);     \
        FFT_UNROLL for (int k_ = 0; k_ < (R); ++k_)                                 \
            FFT_LPUT(buf, FFT_LOC(FFT_TB, base_ + k_ * (NS)), x[i_ * (R) + k_], h); \
      }                                                                             \
    }                                                                               \
  } while (0)

// Inputs of a pass with radix R from positions j + r * (FFT_N / R) into D (round q).
#define FFT_GET_INTO(D, R, h, q)                                                                        \
  do {                                                                                                  \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) {                                               \
      const fft_wi j_ = FFT_TID + i_ * FFT_T;                                                           \
      if (FFT_HAS_J(R, j_)) {                                                                           \
        FFT_UNROLL for (int r_ = 0; r_ < (R); ++r_) if (FFT_QGET(R, r_, q))                             \
            FFT_LGET(buf, FFT_LOC(FFT_TB, j_ + r_ * (FFT_N / (R)) - FFT_QOFF(q)), D[i_ * (R) + r_], h); \
      }                                                                                                 \
    }                                                                                                   \
  } while (0)
#define FFT_GET_IN(R, h, q) FFT_GET_INTO(x, R, h, q)

// In quarters the first round's reads would overwrite registers whose values the second round
// still writes out, so the reads go to y_ and move to x afterwards (indices known at compile
// time: register renaming; at most FFT_E values are live, half of each array, when every
// work-item writes half of its butterflies in each round).
#define FFT_TAKE_Y(R)                                                                             \
  do {                                                                                            \
    FFT_UNROLL for (int i_ = 0; i_ < FFT_ITER(R); ++i_) if (FFT_HAS_J(R, FFT_TID + i_ * FFT_T)) { \
      FFT_UNROLL for (int r_ = 0; r_ < (R); ++r_) x[i_ * (R) + r_] = y_[i_ * (R) + r_];           \
    }                                                                                             \
  } while (0)

// The same exchange inside one work-item (FFT_T == 1): a private array with indices known at
// compile time, so it is register renaming.
#define FFT_PRIV_EXCHANGE(RA, NSA, RB)                                                                            \
  do {                                                                                                            \
    fft_c ex_[FFT_N];                                                                                             \
    FFT_UNROLL for (int j_ = 0; j_ < FFT_N / (RA); ++j_) {                                                        \
      FFT_UNROLL for (int k_ = 0; k_ < (RA); ++k_) ex_[(j_ / (NSA)) * (NSA) * (RA) + (j_ % (NSA)) + k_ * (NSA)] = \
          x[j_ * (RA) + k_];                                                                                      \
    }                                                                                                             \
    FFT_UNROLL for (int j_ = 0; j_ < FFT_N / (RB); ++j_) {                                                        \
      FFT_UNROLL for (int r_ = 0; r_ < (RB); ++r_) x[j_ * (RB) + r_] = ex_[j_ + r_ * (FFT_N / (RB))];             \
    }                                                                                                             \
  } while (0)

// The real post-processing (fft.cl, FFT_POST 2, 3): X_k for k = tid + s * FFT_T <= FFT_N needs
// Z_k and Z_(m-k) (Z_m = Z_0), m = FFT_N, positions FFT_POST_A(k) and FFT_POST_B(k) (0 beyond
// FFT_N) of the last pass's outputs (radix FFT_RL, positions j + r * FFT_NSL). In registers
// (FFT_T == 1, FFT_POST 3) position p is x[FFT_PRIV_AT(p)]; FFT_POST_PUT writes component h of
// the outputs (whole values unless halving) to local memory in natural order.
#define FFT_KP ((FFT_N + FFT_T) / FFT_T)
#define FFT_PRIV_AT(p) (((p) % (FFT_N / FFT_RL)) * FFT_RL + (p) / (FFT_N / FFT_RL))
#define FFT_POST_A(k) ((k) >= FFT_N ? 0 : (k))
#define FFT_POST_B(k) (((k) == 0 || (k) > FFT_N) ? 0 : FFT_N - (k))
#define FFT_POST_E(a, b) fft_make(0.5f * ((a).r + (b).r), 0.5f * ((a).i - (b).i))
#define FFT_POST_D(a, b) fft_make(0.5f * ((a).r - (b).r), 0.5f * ((a).i + (b).i))
// X_k = e - i W_n^k d of transform t (of the launch), scaled, conjugated by cj_out.
#define FFT_POST_STORE(t, k, e, d)                                               \
  do {                                                                           \
    const fft_c e_ = (e), d_ = (d);                                              \
    const fft_c v_ = fft_mul(FFT_CLOAD(aux_out, k), fft_make(d_.i, -d_.r));      \
    FFT_GSTORE(out, FFT_GIDX(out_base, t, out_dh, k, FFT_OUTS),                  \
               fft_make((e_.r + v_.r) * scale, (e_.i + v_.i) * cj_out * scale)); \
  } while (0)
#define FFT_POST_PUT(h)                 \
  do {                                  \
    barrier(CLK_LOCAL_MEM_FENCE);       \
    FFT_PUT_OUT(FFT_RL, FFT_NSL, h, 0); \
    barrier(CLK_LOCAL_MEM_FENCE);       \
  } while (0)

// Staged element c of this work-item: transform b of the group and element e.
#define FFT_COOP_B(mode, lid, c) ((mode) == 1 ? ((lid) + (c)*FFT_WGS) / FFT_N : (lid) % FFT_B)
#define FFT_COOP_E(mode, lid, c) ((mode) == 1 ? ((lid) + (c)*FFT_WGS) % FFT_N : (lid) / FFT_B + (c)*FFT_T)

#define FFT_PUT_COOP(mode, h)                                                                           \
  do {                                                                                                  \
    FFT_UNROLL for (int c_ = 0; c_ < FFT_CE; ++c_)                                                      \
        FFT_LPUT(buf, FFT_LOC(FFT_COOP_B(mode, FFT_LID, c_), FFT_COOP_E(mode, FFT_LID, c_)), x[c_], h); \
  } while (0)

#define FFT_GET_COOP(mode, h)                                                                           \
  do {                                                                                                  \
    FFT_UNROLL for (int c_ = 0; c_ < FFT_CE; ++c_)                                                      \
        FFT_LGET(buf, FFT_LOC(FFT_COOP_B(mode, FFT_LID, c_), FFT_COOP_E(mode, FFT_LID, c_)), x[c_], h); \
  } while (0)

// ---- exchange sequences ----
// FFT_XCHG_N: write, barrier, read (twice, real then imaginary parts, when halving).
// FFT_XCHG_Y: the same after a barrier, because reads of an earlier exchange may be pending.
#if FFT_HALVE
#define FFT_XCHG_N(PUT0, GET0, PUT1, GET1) \
  do {                                     \
    PUT0;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    GET0;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    PUT1;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    GET1;                                  \
  } while (0)
#else
#define FFT_XCHG_N(PUT0, GET0, PUT1, GET1) \
  do {                                     \
    PUT0;                                  \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    GET0;                                  \
  } while (0)
#endif
#define FFT_XCHG_Y(PUT0, GET0, PUT1, GET1) \
  do {                                     \
    barrier(CLK_LOCAL_MEM_FENCE);          \
    FFT_XCHG_N(PUT0, GET0, PUT1, GET1);    \
  } while (0)

// From the outputs of a pass (radix RA, NSA) to the inputs of the next (radix RB).
#if FFT_PRIV
#define FFT_XP(LEAD, RA, NSA, RB) FFT_PRIV_EXCHANGE(RA, NSA, RB)
#elif FFT_HALVE == 2
#define FFT_XP(LEAD, RA, NSA, RB)                                                                       \
  do {                                                                                                  \
    fft_c y_[FFT_E];                                                                                    \
    FFT_XCHG_##LEAD(FFT_PUT_OUT(RA, NSA, 0, 0), FFT_GET_INTO(y_, RB, 0, 0), FFT_PUT_OUT(RA, NSA, 1, 0), \
                    FFT_GET_INTO(y_, RB, 1, 0));                                                        \
    FFT_XCHG_Y(FFT_PUT_OUT(RA, NSA, 0, 1), FFT_GET_INTO(y_, RB, 0, 1), FFT_PUT_OUT(RA, NSA, 1, 1),      \
               FFT_GET_INTO(y_, RB, 1, 1));                                                             \
    FFT_TAKE_Y(RB);                                                                                     \
  } while (0)
#else
#define FFT_XP(LEAD, RA, NSA, RB) \
  FFT_XCHG_##LEAD(FFT_PUT_OUT(RA, NSA, 0, 0), FFT_GET_IN(RB, 0, 0), FFT_PUT_OUT(RA, NSA, 1, 0), FFT_GET_IN(RB, 1, 0))
#endif

#if FFT_NPASS > 1
#define FFT_STEP1(LEAD)                  \
  FFT_XP(LEAD, FFT_R0, FFT_NS0, FFT_R1); \
  FFT_PASS(FFT_R1, FFT_NS1, FFT_TWO1);
#else
#define FFT_STEP1(LEAD)
#endif
#if FFT_NPASS > 2
#define FFT_STEP2                     \
  FFT_XP(Y, FFT_R1, FFT_NS1, FFT_R2); \
  FFT_PASS(FFT_R2, FFT_NS2, FFT_TWO2);
#else
#define FFT_STEP2
#endif
#if FFT_NPASS > 3
#define FFT_STEP3                     \
  FFT_XP(Y, FFT_R2, FFT_NS2, FFT_R3); \
  FFT_PASS(FFT_R3, FFT_NS3, FFT_TWO3);
#else
#define FFT_STEP3
#endif
#if FFT_NPASS > 4
#define FFT_STEP4                     \
  FFT_XP(Y, FFT_R3, FFT_NS3, FFT_R4); \
  FFT_PASS(FFT_R4, FFT_NS4, FFT_TWO4);
#else
#define FFT_STEP4
#endif
#if FFT_NPASS > 5
#define FFT_STEP5                     \
  FFT_XP(Y, FFT_R4, FFT_NS4, FFT_R5); \
  FFT_PASS(FFT_R5, FFT_NS5, FFT_TWO5);
#else
#define FFT_STEP5
#endif
#if FFT_NPASS > 6
#define FFT_STEP6                     \
  FFT_XP(Y, FFT_R5, FFT_NS5, FFT_R6); \
  FFT_PASS(FFT_R6, FFT_NS6, FFT_TWO6);
#else
#define FFT_STEP6
#endif
#if FFT_NPASS > 7
#define FFT_STEP7                     \
  FFT_XP(Y, FFT_R6, FFT_NS6, FFT_R7); \
  FFT_PASS(FFT_R7, FFT_NS7, FFT_TWO7);
#else
#define FFT_STEP7
#endif
#if FFT_NPASS > 8
#define FFT_STEP8                     \
  FFT_XP(Y, FFT_R7, FFT_NS7, FFT_R8); \
  FFT_PASS(FFT_R8, FFT_NS8, FFT_TWO8);
#else
#define FFT_STEP8
#endif
#if FFT_NPASS > 9
#define FFT_STEP9                     \
  FFT_XP(Y, FFT_R8, FFT_NS8, FFT_R9); \
  FFT_PASS(FFT_R9, FFT_NS9, FFT_TWO9);
#else
#define FFT_STEP9
#endif
#if FFT_NPASS > 10
#define FFT_STEP10                     \
  FFT_XP(Y, FFT_R9, FFT_NS9, FFT_R10); \
  FFT_PASS(FFT_R10, FFT_NS10, FFT_TWO10);
#else
#define FFT_STEP10
#endif
#if FFT_NPASS > 11
#define FFT_STEP11                       \
  FFT_XP(Y, FFT_R10, FFT_NS10, FFT_R11); \
  FFT_PASS(FFT_R11, FFT_NS11, FFT_TWO11);
#else
#define FFT_STEP11
#endif
#if FFT_NPASS > 0
#define FFT_RUN_PASSES(LEAD)           \
  FFT_PASS(FFT_R0, FFT_NS0, FFT_TWO0); \
  FFT_STEP1(LEAD) FFT_STEP2 FFT_STEP3 FFT_STEP4 FFT_STEP5 FFT_STEP6 FFT_STEP7 FFT_STEP8 FFT_STEP9 FFT_STEP10 FFT_STEP11
#else
#define FFT_RUN_PASSES(LEAD)
#endif
#if FFT_IN_MODE != 0
#define FFT_FIRST_LEAD Y
#else
#define FFT_FIRST_LEAD N
#endif
