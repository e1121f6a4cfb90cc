// Double-precision GEMM reference (see gemm.hpp): the operands are converted to double in a
// dot-product friendly order (rows of op(A), columns of op(B), both contiguous in p), then
// every C element is a dot product with four partial sums; columns are split over threads.
#include "host/gemm.hpp"

#include <algorithm>
#include <cmath>

#include "host/parallel.hpp"

namespace clforge::host {

namespace {
// op(A)(i, p) and op(B)(p, j) of the stored matrices.
inline float op_a(const GemmShape& s, const float* a, std::size_t i, std::size_t p) {
  const bool contiguous_i = s.row_major == s.trans_a;  // column-major no-trans or row-major trans
  return contiguous_i ? a[i + p * s.lda] : a[i * s.lda + p];
}
inline float op_b(const GemmShape& s, const float* b, std::size_t p, std::size_t j) {
  const bool contiguous_p = s.row_major == s.trans_b;
  return contiguous_p ? b[p + j * s.ldb] : b[p * s.ldb + j];
}

double dot(const double* x, const double* y, std::size_t k) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    s0 += x[p] * y[p];
    s1 += x[p + 1] * y[p + 1];
    s2 += x[p + 2] * y[p + 2];
    s3 += x[p + 3] * y[p + 3];
  }
  for (; p < k; ++p) s0 += x[p] * y[p];
  return (s0 + s1) + (s2 + s3);
}

// sum |x_p| |y_p| (the magnitude the rounding errors of the dot product scale with).
double abs_dot(const double* x, const double* y, std::size_t k) {
  double s0 = 0, s1 = 0;
  std::size_t p = 0;
  for (; p + 2 <= k; p += 2) {
    s0 += std::fabs(x[p] * y[p]);
    s1 += std::fabs(x[p + 1] * y[p + 1]);
  }
  for (; p < k; ++p) s0 += std::fabs(x[p] * y[p]);
  return s0 + s1;
}

}  // namespace

GemmShape tight_gemm_shape(bool row_major, bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k) {
  GemmShape s{row_major, trans_a, trans_b, m, n, k, 0, 0, 0};
  auto ld = [&](std::size_t rows, std::size_t cols) { return std::max<std::size_t>(1, row_major ? cols : rows); };
  s.lda = trans_a ? ld(k, m) : ld(m, k);
  s.ldb = trans_b ? ld(n, k) : ld(k, n);
  s.ldc = ld(m, n);
  return s;
}

std::size_t gemm_span(const GemmShape& s, char which) {
  std::size_t rows = 0, cols = 0, ld = 0;
  if (which == 'a') {
    rows = s.trans_a ? s.k : s.m;
    cols = s.trans_a ? s.m : s.k;
    ld = s.lda;
  } else if (which == 'b') {
    rows = s.trans_b ? s.n : s.k;
    cols = s.trans_b ? s.k : s.n;
    ld = s.ldb;
  } else {
    rows = s.m;
    cols = s.n;
    ld = s.ldc;
  }
  if (rows == 0 || cols == 0) return 0;
  const std::size_t inner = s.row_major ? cols : rows, outer = s.row_major ? rows : cols;
  return (outer - 1) * ld + inner;
}

void gemm(const GemmShape& s, double alpha, const float* a, const float* b, double beta, const float* c, double* out,
          unsigned threads, double* magnitude) {
  const std::size_t m = s.m, n = s.n, k = alpha == 0.0 ? 0 : s.k;  // alpha == 0: A and B are not read
  std::vector<double> ar(m * k), bc(n * k);  // ar[i * k + p] = op(A)(i, p); bc[j * k + p] = op(B)(p, j)
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) ar[i * k + p] = op_a(s, a, i, p);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = 0; p < k; ++p) bc[j * k + p] = op_b(s, b, p, j);
  parallel_for(n, threads, 1, [&](std::size_t j0, std::size_t j1) {
    for (std::size_t j = j0; j < j1; ++j)
      for (std::size_t i = 0; i < m; ++i) {
        const std::size_t idx = gemm_c_index(s, i, j);
        const double ab = k == 0 ? 0.0 : dot(&ar[i * k], &bc[j * k], k);
        out[idx] = beta == 0.0 ? alpha * ab : alpha * ab + beta * static_cast<double>(c[idx]);
        if (magnitude != nullptr) {
          const double mab = k == 0 ? 0.0 : abs_dot(&ar[i * k], &bc[j * k], k);
          magnitude[idx] = std::fabs(alpha) * mab + (beta == 0.0 ? 0.0 : std::fabs(beta * c[idx]));
        }
      }
  });
}

void gemm_entries(const GemmShape& s, double alpha, const float* a, const float* b, double beta, const float* c,
                  const std::vector<std::pair<std::size_t, std::size_t>>& ij, std::vector<double>& out,
                  std::vector<double>* magnitude) {
  out.assign(ij.size(), 0.0);
  if (magnitude != nullptr) magnitude->assign(ij.size(), 0.0);
  const std::size_t k = alpha == 0.0 ? 0 : s.k;  // alpha == 0: A and B are not read
  // Entries over threads; each converts op(A)'s row once per run of entries in that row.
  parallel_for(ij.size(), 0, std::max<std::size_t>(1, (std::size_t{1} << 18) / std::max<std::size_t>(k, 1)),
               [&](std::size_t e0, std::size_t e1) {
                 std::vector<double> row(k), col(k);
                 std::size_t row_i = static_cast<std::size_t>(-1);
                 for (std::size_t e = e0; e < e1; ++e) {
                   const auto [i, j] = ij[e];
                   if (i != row_i)
                     for (std::size_t p = 0; p < k; ++p) row[p] = op_a(s, a, i, p);
                   row_i = i;
                   for (std::size_t p = 0; p < k; ++p) col[p] = op_b(s, b, p, j);
                   const std::size_t idx = gemm_c_index(s, i, j);
                   const double ab = k == 0 ? 0.0 : dot(row.data(), col.data(), k);
                   out[e] = beta == 0.0 ? alpha * ab : alpha * ab + beta * static_cast<double>(c[idx]);
                   if (magnitude != nullptr)
                     (*magnitude)[e] = std::fabs(alpha) * (k == 0 ? 0.0 : abs_dot(row.data(), col.data(), k)) +
                                       (beta == 0.0 ? 0.0 : std::fabs(beta * c[idx]));
                 }
               });
}

double gemm_scaled_error(const float* y, const double* ref, const double* magnitude, std::size_t n) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(y[i])) return HUGE_VAL;
    num += (y[i] - ref[i]) * (y[i] - ref[i]);
    den += magnitude[i] * magnitude[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double gemm_tolerance(std::size_t k) { return 2.0 * (static_cast<double>(k) + 4.0) * std::ldexp(1.0, -24); }

}  // namespace clforge::host
