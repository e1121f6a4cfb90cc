// Shared pieces of the sgemm tests (test_sgemm*.cpp): a call described as a Case, run on
// poisoned C with a guard tail through sgemm() or an SgemmPlan and checked against the
// double-precision host reference (host/gemm.hpp), and the tuning sets the cases sweep.
//
// Tolerance: ||C - C_ref||_F <= 2 * (k + 4) * 2^-24 * ||M||_F, where C_ref is the double
// reference and M = |alpha| |op(A)| |op(B)| + |beta| |C| (element-wise): a c*k*eps bound on
// the relative Frobenius error (single-precision accumulation over k terms plus the
// alpha/beta update), normalised by the magnitude of the terms as GEMM error bounds are, so
// that cancellation in a tiny product (1x1x1) cannot fail a correct result. The plain
// ||C - C_ref|| / ||C_ref|| is reported as well. Every element of C's buffer outside the
// m x n matrix (the offset prefix, the ld gaps and the guard tail of host/guard.hpp) is NaN before
// the call and must still hold the same bits afterwards. A strided batch is checked matrix by
// matrix against the same reference with the same bound (gaps between C's matrices included).
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "host/gemm.hpp"
#include "host/guard.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tests/support.hpp"

namespace clforge::sgemm_test {

struct Case {
  Layout layout = Layout::ColMajor;
  Transpose ta = Transpose::No, tb = Transpose::No;
  std::size_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  std::size_t pad_a = 0, pad_b = 0, pad_c = 0;    // ld beyond the minimum
  std::size_t off_a = 0, off_b = 0, off_c = 0;    // buffer offsets in elements
  bool nan_inputs = false;                        // A and B filled with NaN (must not be read)
  std::size_t batch = 1;                          // products of a strided batch (sgemm_strided_batched)
  bool broadcast_a = false, broadcast_b = false;  // stride 0: one A (B) for every product
  std::size_t gap = 0;                            // elements between one matrix's span and the next
  /// The offsets form (sgemm_batched): product i's A, B and C at offsets[0][i], [1][i], [2][i]
  /// (batch entries each; off_*, gap and broadcast unused). Empty: strided.
  std::array<std::vector<std::size_t>, 3> offsets;
  /// With the offsets form: a scalar pair per product (batch entries each). Empty: alpha, beta.
  std::vector<float> alphas, betas;
  float alpha_of(std::size_t i) const { return alphas.empty() ? alpha : alphas[i]; }
  float beta_of(std::size_t i) const { return betas.empty() ? beta : betas[i]; }
};

/// Offsets of a batch in the offsets form: C's matrices in a shuffled order, `gap` elements
/// apart; A's and B's shuffled too, and with `share` every other product reusing the A (and
/// B) of the product before; start `first` elements into each buffer.
std::array<std::vector<std::size_t>, 3> shuffled_offsets(const Case& c, std::uint64_t seed, bool share,
                                                         std::size_t first = 3);

std::string describe(const Case& c);
std::string describe(const Tuning& t);
double tolerance(std::size_t k);
double scaled_error(const std::vector<float>& y, const std::vector<double>& ref, const std::vector<double>& mag);
host::GemmShape shape_of(const Case& c);
/// Strides of A, B and C between the batch's matrices (0 for a broadcast operand).
std::array<std::size_t, 3> strides_of(const Case& c);
/// Where product i's matrix of operand `op` (0: A, 1: B, 2: C) starts in its buffer.
std::size_t matrix_at(const Case& c, int op, std::size_t i);
/// The plan description of a case (its leading dimensions and offsets).
SgemmDesc desc_of(const Case& c);

/// What one run of a case gave.
struct Outcome {
  double error = 0, tolerance = 0;     // scaled error and its bound
  std::size_t touched = 0, first = 0;  // elements outside the matrix that changed, the first one
  std::string summary;                 // host::compare's summary
  bool ok() const { return touched == 0 && error <= tolerance; }
};
/// One call on fresh random data (from `seed`) and poisoned C with guard tail, through `plan`
/// when given (its description must be desc_of(c)), else through sgemm() with `tuning`.
/// No doctest assertion: callable from several threads.
Outcome run_case(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue& queue,
                 const SgemmPlan* plan = nullptr);
/// run_case judged: "" when the matrix is within the tolerance of the reference and nothing
/// outside it changed, else what went wrong (the case, path, parameters, seed, errors) for the
/// caller's CHECK(sgemm_problem(...) == "") to print.
std::string sgemm_problem(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue* queue = nullptr,
                          const SgemmPlan* plan = nullptr);

/// The shipped row of a vendor class, resolved on a fake device of that class.
ParamMap vendor_row(VendorClass v, const std::string& kernel, const std::string& variant = "*");
/// Every distinct shipped configuration of a vendor class over the kernel's variants.
std::set<ParamMap> vendor_rows(VendorClass v, const std::string& kernel);

/// Overrides that force a path regardless of size.
ParamMap force(detail::SgemmPath p);
Tuning forced(detail::SgemmPath p, ParamMap extra = {});

inline const detail::SgemmPath kKernelPaths[] = {detail::SgemmPath::Direct, detail::SgemmPath::Xgemm,
                                                 detail::SgemmPath::Stream};

struct Dims {
  std::size_t m, n, k;
};
// The acceptance shapes that are cheap enough for every combination.
inline const Dims kSmall[] = {{1, 1, 1}, {1, 7, 1}, {17, 33, 5}, {64, 64, 64}, {65, 127, 33}};
inline const Transpose kT[] = {Transpose::No, Transpose::Yes};
inline const Layout kLayouts[] = {Layout::ColMajor, Layout::RowMajor};

/// A random configuration of a kernel family that passes its checks and fits this device.
/// Limited to at most 64 work-items and 64 accumulators per work-item so that PoCL's compile
/// time keeps the suite short; every other parameter ranges over its whole legal set.
ParamMap random_legal(const std::string& kernel, std::mt19937_64& rng);

}  // namespace clforge::sgemm_test
