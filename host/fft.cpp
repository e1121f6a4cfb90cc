// Double-precision FFT references (see fft.hpp): recursive mixed radix on a shared table of
// roots of unity, Bluestein for lengths with a large prime factor.
#include "host/fft.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clforge::host {

namespace {

const double kPi = 3.14159265358979323846264338327950288;

// exp(sign * 2 pi i k / n) with k folded into [0, n/2] first, so the argument stays small.
cdouble root(std::size_t k, std::size_t n, int sign) {
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
  for (std::size_t k = 0; k < n; ++k) roots[k] = root(k, n, sign);
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
    w[k] = root(q, 2 * n, sign);  // exp(sign pi i k^2 / n)
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

std::vector<cdouble> dft(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<cdouble> y(n);
  for (std::size_t k = 0; k < n; ++k) {
    cdouble s = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const auto jk = static_cast<std::size_t>((static_cast<unsigned long long>(j) * k) % n);
      s += x[j] * root(jk, n, sign);
    }
    y[k] = s;
  }
  return y;
}

std::vector<cdouble> fft(const std::vector<cdouble>& x, int sign) {
  if (x.size() <= 1) return x;
  if (largest_factor(x.size()) > 64) return bluestein(x, sign);
  return mixed_radix(x, sign);
}

std::vector<cdouble> fft_batch(const float* in, std::size_t n, std::size_t batch, std::size_t stride,
                               std::size_t distance, std::size_t offset, bool inverse, double scale) {
  std::vector<cdouble> out(n * batch), x(n);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = offset + b * distance + k * stride;
      x[k] = cdouble(in[2 * i], in[2 * i + 1]);
    }
    const std::vector<cdouble> y = fft(x, inverse ? +1 : -1);
    for (std::size_t k = 0; k < n; ++k) out[b * n + k] = y[k] * scale;
  }
  return out;
}

FftError fft_compare(const float* out, std::size_t n, std::size_t batch, std::size_t stride, std::size_t distance,
                     std::size_t offset, const std::vector<cdouble>& ref) {
  FftError e;
  for (std::size_t b = 0; b < batch; ++b) {
    double num = 0, den = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = offset + b * distance + k * stride;
      const double re = out[2 * i], im = out[2 * i + 1];
      if (!std::isfinite(re) || !std::isfinite(im)) {
        ++e.nonfinite;
        continue;
      }
      const cdouble d = cdouble(re, im) - ref[b * n + k];
      num += std::norm(d);
      den += std::norm(ref[b * n + k]);
      e.max_abs = std::max(e.max_abs, std::abs(d));
    }
    const double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    if (rel > e.max_rel_l2) {
      e.max_rel_l2 = rel;
      e.worst = b;
    }
  }
  return e;
}

double fft_tolerance(std::size_t n) {
  const double lg = n > 1 ? std::log2(static_cast<double>(n)) : 0.0;
  std::size_t m = n;
  for (std::size_t p : {2, 3, 5, 7, 11, 13})
    while (m > 1 && m % p == 0) m /= p;
  const bool bluestein = m != 1;
  return (bluestein ? 3.0 : 1.0) * (2.0e-7 + 6.0e-8 * lg);
}

double fft_round_trip_tolerance(std::size_t n) { return 2 * fft_tolerance(n); }

}  // namespace clforge::host
