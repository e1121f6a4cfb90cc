// Double-precision FFT references (see fft.hpp): recursive mixed radix on a shared table of
// roots of unity, Bluestein for lengths with a large prime factor.
#include "host/fft.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clforge::host {

std::vector<cdouble> dft(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<cdouble> y(n);
  for (std::size_t k = 0; k < n; ++k) {
    cdouble s = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const auto jk = static_cast<std::size_t>((static_cast<unsigned long long>(j) * k) % n);
      s += x[j] * detail::unit_root(jk, n, sign);
    }
    y[k] = s;
  }
  return y;
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
