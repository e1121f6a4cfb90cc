// Double-precision FFT references (see fft.hpp): recursive decimation in time over the factors
// 2, 3, 5 and 7 on one table of roots of unity; Bluestein's chirp convolution (through a
// power-of-two transform) for lengths with any other prime factor.
#include "host/fft.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "host/parallel.hpp"

namespace clforge::host {

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

// Decimation in time: a length n = p * m transform (p its smallest factor) from the p length-m
// transforms of the inputs r, r + p, r + 2p, ... . The output k + q m is
// sum_r W_n^(r k) W_p^(r q) X_r[k]. roots[j * rs] = W_n^j = exp(sign 2 pi i j / n).
void decimate(const cdouble* in, std::size_t is, cdouble* out, std::size_t n, const std::vector<cdouble>& roots,
              std::size_t rs) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  std::size_t p = 2;
  while (n % p != 0) ++p;
  const std::size_t m = n / p;
  for (std::size_t r = 0; r < p; ++r) decimate(in + r * is, is * p, out + r * m, m, roots, rs * p);
  cdouble t[7], y[7];
  for (std::size_t k = 0; k < m; ++k) {
    for (std::size_t r = 0; r < p; ++r) t[r] = out[r * m + k] * roots[r * k * rs];  // r k < n
    for (std::size_t q = 0; q < p; ++q) {
      y[q] = 0;
      for (std::size_t r = 0; r < p; ++r) y[q] += t[r] * roots[(r * q % p) * m * rs];  // W_p = W_n^m
    }
    for (std::size_t q = 0; q < p; ++q) out[k + q * m] = y[q];
  }
}

// True when n has no prime factor above 7.
bool smooth(std::size_t n) {
  for (std::size_t p : {2, 3, 5, 7})
    while (n % p == 0) n /= p;
  return n == 1;
}

std::vector<cdouble> mixed_radix(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<cdouble> roots(n), y(n);
  for (std::size_t j = 0; j < n; ++j) roots[j] = unit_root(j, n, sign);
  decimate(x.data(), 1, y.data(), n, roots, 1);
  return y;
}

// y_k = conj(c_k) sum_j (x_j conj(c_j)) c_(k-j) with the chirp c_j = exp(-sign pi i j^2 / n)
// (2 j k = j^2 + k^2 - (k - j)^2): a cyclic convolution of length m >= 2n - 1, a power of two.
std::vector<cdouble> bluestein(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::size_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  std::vector<cdouble> chirp(n), a(m), b(m);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t j2 = static_cast<std::size_t>(static_cast<unsigned long long>(j) * j % (2 * n));
    chirp[j] = unit_root(j2, 2 * n, -sign);
    a[j] = x[j] * std::conj(chirp[j]);
    b[j] = chirp[j];
    if (j > 0) b[m - j] = chirp[j];
  }
  const std::vector<cdouble> fa = mixed_radix(a, -1), fb = mixed_radix(b, -1);
  for (std::size_t i = 0; i < m; ++i) a[i] = fa[i] * fb[i];
  const std::vector<cdouble> conv = mixed_radix(a, +1);
  std::vector<cdouble> y(n);
  for (std::size_t k = 0; k < n; ++k) y[k] = std::conj(chirp[k]) * conv[k] / static_cast<double>(m);
  return y;
}

}  // namespace

cdouble unit_root(std::size_t k, std::size_t n, int sign) {
  // Angle 2 pi u / (8n) with u = 8 (k mod n) in [0, 8n); each fold is exact in integers.
  std::size_t u = 8 * (k % n);
  const std::size_t full = 8 * n;
  bool neg_sin = false, neg_cos = false, swap = false;
  if (u > full / 2) {  // a -> 2 pi - a
    u = full - u;
    neg_sin = true;
  }
  if (u > full / 4) {  // a -> pi - a
    u = full / 2 - u;
    neg_cos = true;
  }
  if (u > full / 8) {  // a -> pi / 2 - a
    u = full / 4 - u;
    swap = true;
  }
  const double a = kPi * static_cast<double>(u) / (4.0 * static_cast<double>(n));
  double c = std::cos(a), s = std::sin(a);
  if (swap) std::swap(c, s);
  if (neg_cos) c = -c;
  if (neg_sin) s = -s;
  return {c, sign < 0 ? -s : s};
}

std::vector<cdouble> dft(const std::vector<cdouble>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<cdouble> y(n);
  for (std::size_t k = 0; k < n; ++k) {
    cdouble s = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const auto jk = static_cast<std::size_t>((static_cast<unsigned long long>(j) * k) % n);
      s += x[j] * unit_root(jk, n, sign);
    }
    y[k] = s;
  }
  return y;
}

std::vector<cdouble> fft(const std::vector<cdouble>& x, int sign) {
  if (x.size() <= 1) return x;
  return smooth(x.size()) ? mixed_radix(x, sign) : bluestein(x, sign);
}

std::vector<cdouble> fft_batch(const float* in, std::size_t n, std::size_t batch, std::size_t stride,
                               std::size_t distance, std::size_t offset, bool inverse, double scale) {
  std::vector<cdouble> out(n * batch);
  // Transforms on threads, each whole on one (the tuner's check of 37 transforms of 65537 points,
  // Bluestein's three 2^18-point transforms each, took 20 s of a class's setup on two cores).
  parallel_for(batch, 0, std::max<std::size_t>(1, (std::size_t{1} << 16) / std::max<std::size_t>(n, 1)),
               [&](std::size_t b0, std::size_t b1) {
                 std::vector<cdouble> x(n);
                 for (std::size_t b = b0; b < b1; ++b) {
                   for (std::size_t k = 0; k < n; ++k) {
                     const std::size_t i = offset + b * distance + k * stride;
                     x[k] = cdouble(in[2 * i], in[2 * i + 1]);
                   }
                   const std::vector<cdouble> y = fft(x, inverse ? +1 : -1);
                   for (std::size_t k = 0; k < n; ++k) out[b * n + k] = y[k] * scale;
                 }
               });
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
