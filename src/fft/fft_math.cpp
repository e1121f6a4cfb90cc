// Double-precision FFT of any length on the host (see fft_math.hpp): recursive mixed radix on a
// shared table of roots of unity, Bluestein for lengths with a large prime factor.
#include "fft/fft_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clforge::detail {

namespace {

const double kPi = 3.14159265358979323846264338327950288;

// exp(sign * 2 pi i k / n) with k folded into [0, n/2] first, so the argument stays small.
cdouble root_impl(std::size_t k, std::size_t n, int sign) {
  k %= n;
  bool flip = false;
  if (2 * k > n) {
    k = n - k;
    flip = true;
  }
  const double a = 2.0 * kPi * static_cast<double>(k) / static_cast<double>(n);
  const double s = std::sin(a) * (flip ? -1.0 : 1.0) * sign;
  return {std::cos(a), s};
}

std::size_t smallest_factor(std::size_t n) {
  for (std::size_t p = 2; p * p <= n; ++p)
    if (n % p == 0) return p;
  return n;
}

std::size_t largest_factor(std::size_t n) {
  std::size_t big = 1;
  for (std::size_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      big = p;
      n /= p;
    }
  return std::max(big, n);
}

// Decimation in time: n = p * m; sub-transforms of the p interleaved sequences, then p-point
// DFTs with twiddles. roots[k * rs] = exp(sign 2 pi i k / n) for this level.
void rec(const cdouble* in, std::size_t is, cdouble* out, std::size_t n, const std::vector<cdouble>& roots,
         std::size_t rs, std::vector<cdouble>& tmp) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const std::size_t p = smallest_factor(n), m = n / p;
  for (std::size_t r = 0; r < p; ++r) rec(in + r * is, is * p, out + r * m, m, roots, rs * p, tmp);
  const std::size_t big = roots.size();
  cdouble y[64];
  for (std::size_t k = 0; k < m; ++k) {
    for (std::size_t r = 0; r < p; ++r) y[r] = out[r * m + k];
    for (std::size_t q = 0; q < p; ++q) {
      const std::size_t kk = k + q * m;
      cdouble s = y[0];
      for (std::size_t r = 1; r < p; ++r) s += y[r] * roots[(r * kk % n) * rs % big];
      tmp[q] = s;
    }
    for (std::size_t q = 0; q < p; ++q) out[k + q * m] = tmp[q];
  }
}

std::vector<cdouble> mixed_radix(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<cdouble> roots(n), out(n), tmp(64);
  for (std::size_t k = 0; k < n; ++k) roots[k] = root_impl(k, n, sign);
  rec(x.data(), 1, out.data(), n, roots, 1, tmp);
  return out;
}

std::vector<cdouble> bluestein(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::size_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<cdouble> w(n), a(m), b(m);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t q = static_cast<std::size_t>((static_cast<unsigned long long>(k) * k) % (2 * n));
    w[k] = root_impl(q, 2 * n, sign);  // exp(sign pi i k^2 / n)
  }
  for (std::size_t k = 0; k < n; ++k) a[k] = x[k] * w[k];
  b[0] = std::conj(w[0]);
  for (std::size_t k = 1; k < n; ++k) b[k] = b[m - k] = std::conj(w[k]);
  const std::vector<cdouble> fa = mixed_radix(a, -1), fb = mixed_radix(b, -1);
  for (std::size_t k = 0; k < m; ++k) a[k] = fa[k] * fb[k];
  const std::vector<cdouble> c = mixed_radix(a, +1);
  std::vector<cdouble> y(n);
  for (std::size_t k = 0; k < n; ++k) y[k] = c[k] * w[k] / static_cast<double>(m);
  return y;
}

}  // namespace

cdouble unit_root(std::size_t k, std::size_t n, int sign) { return root_impl(k, n, sign); }

std::vector<cdouble> fft_double(const std::vector<cdouble>& x, int sign) {
  if (x.size() <= 1) return x;
  if (largest_factor(x.size()) > 64) return bluestein(x, sign);
  return mixed_radix(x, sign);
}

}  // namespace clforge::detail
