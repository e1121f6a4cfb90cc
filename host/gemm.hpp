// Double-precision GEMM reference for the sgemm tests, the benchmark and the tuner:
//   C = alpha * op(A) * op(B) + beta * C with BLAS semantics (beta == 0 does not read C).
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace clforge::host {

/// Storage of one GEMM call as BLAS describes it (see clforge/sgemm.hpp).
struct GemmShape {
  bool row_major = false;
  bool trans_a = false, trans_b = false;
  std::size_t m = 0, n = 0, k = 0;
  std::size_t lda = 0, ldb = 0, ldc = 0;
};

/// The shape with the tightest leading dimensions (at least 1) for its layout and transposes.
GemmShape tight_gemm_shape(bool row_major, bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k);

/// Index of element (i, j) of the m x n matrix C in its buffer (row- or column-major).
inline std::size_t gemm_c_index(const GemmShape& s, std::size_t i, std::size_t j) {
  return s.row_major ? i * s.ldc + j : i + j * s.ldc;
}

/// Elements spanned by an operand: 0 when it has none, else (outer - 1) * ld + inner.
std::size_t gemm_span(const GemmShape& s, char which);  // which: 'a', 'b' or 'c'

/// out[gemm_c_index(i, j)] = alpha * sum_p op(A)(i, p) op(B)(p, j) + beta * c[same index], in
/// double precision, for every i < m, j < n (other elements of out are left alone). c is not
/// read when beta == 0; a and b are not read when alpha == 0 or k == 0. a, b and c point at
/// the first element of each matrix (offsets already applied). Uses up to `threads` threads
/// (0: all hardware threads). If `magnitude` is not null it receives, at the same indices,
/// |alpha| * sum_p |op(A)(i, p) op(B)(p, j)| + |beta * c|: the size the rounding error of the
/// element scales with (the usual normalisation of GEMM error bounds, immune to cancellation).
void gemm(const GemmShape& s, double alpha, const float* a, const float* b, double beta, const float* c, double* out,
          unsigned threads = 0, double* magnitude = nullptr);

/// The same for a few (i, j) entries of C only: out[e] (and magnitude[e]) for ij[e] (for
/// checking large products).
void gemm_entries(const GemmShape& s, double alpha, const float* a, const float* b, double beta, const float* c,
                  const std::vector<std::pair<std::size_t, std::size_t>>& ij, std::vector<double>& out,
                  std::vector<double>* magnitude = nullptr);

/// ||y - ref||_2 / ||magnitude||_2 over n elements (infinite when y holds NaN or Inf): the
/// error measure the sgemm checks compare with gemm_tolerance(k).
double gemm_scaled_error(const float* y, const double* ref, const double* magnitude, std::size_t n);

/// 2 * (k + 4) * 2^-24: the bound on gemm_scaled_error for a single-precision GEMM with inner
/// dimension k (accumulation over k terms plus the alpha/beta update).
double gemm_tolerance(std::size_t k);

}  // namespace clforge::host
