// Host references and the recursive filter's design (see blur.hpp).
#include "host/blur.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "clforge/errors.hpp"

namespace clforge::host {

long blur_border_index(long i, long n, BlurBorder border) {
  if (i >= 0 && i < n) return i;
  switch (border) {
    case BlurBorder::Clamp:
      return i < 0 ? 0 : n - 1;
    case BlurBorder::Mirror: {
      const long p = 2 * n;
      long m = i % p;
      if (m < 0) m += p;
      return m < n ? m : p - 1 - m;
    }
    case BlurBorder::Zero:
      break;
  }
  return -1;
}

double truncated_blur_tolerance(double sigma_x, double sigma_y) {
  return 16 * std::numeric_limits<float>::epsilon() * (gaussian_radius(sigma_x) + gaussian_radius(sigma_y) + 2);
}

double recursive_blur_tolerance(double sigma_x, double sigma_y) { return 2e-6 * (1 + std::max(sigma_x, sigma_y)); }

namespace {

// Source index of every tap of every output position along one axis (-1: zero sample).
std::vector<long> tap_table(long n, int r, BlurBorder border) {
  std::vector<long> t(static_cast<std::size_t>(n) * (2 * r + 1));
  for (long i = 0; i < n; ++i)
    for (int k = -r; k <= r; ++k) t[i * (2 * r + 1) + k + r] = blur_border_index(i + k, n, border);
  return t;
}

}  // namespace

std::vector<double> gaussian_blur(const float* in, std::size_t w, std::size_t h, std::size_t c, std::size_t pitch,
                                  double sigma_x, double sigma_y, BlurBorder border, double truncate) {
  const std::vector<double> gx = gaussian_weights(sigma_x, truncate), gy = gaussian_weights(sigma_y, truncate);
  const int rx = static_cast<int>(gx.size() / 2), ry = static_cast<int>(gy.size() / 2);
  const std::vector<long> ty = tap_table(static_cast<long>(h), ry, border),
                          tx = tap_table(static_cast<long>(w), rx, border);
  std::vector<double> tmp(w * h * c), out(w * h * c);
  for (std::size_t y = 0; y < h; ++y)
    for (int k = 0; k <= 2 * ry; ++k) {
      const long src = ty[y * (2 * ry + 1) + k];
      if (src < 0) continue;
      const float* row = in + static_cast<std::size_t>(src) * pitch * c;
      double* dst = tmp.data() + y * w * c;
      for (std::size_t i = 0; i < w * c; ++i) dst[i] += gy[k] * row[i];
    }
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x)
      for (int k = 0; k <= 2 * rx; ++k) {
        const long src = tx[x * (2 * rx + 1) + k];
        if (src < 0) continue;
        for (std::size_t ch = 0; ch < c; ++ch) out[(y * w + x) * c + ch] += gx[k] * tmp[(y * w + src) * c + ch];
      }
  return out;
}

std::vector<double> gaussian_blur_direct(const float* in, std::size_t w, std::size_t h, std::size_t c,
                                         std::size_t pitch, double sigma_x, double sigma_y, BlurBorder border) {
  const std::vector<double> gx = gaussian_weights(sigma_x), gy = gaussian_weights(sigma_y);
  const long rx = static_cast<long>(gx.size() / 2), ry = static_cast<long>(gy.size() / 2);
  std::vector<double> out(w * h * c);
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x)
      for (long dy = -ry; dy <= ry; ++dy) {
        const long sy = blur_border_index(static_cast<long>(y) + dy, static_cast<long>(h), border);
        if (sy < 0) continue;
        for (long dx = -rx; dx <= rx; ++dx) {
          const long sx = blur_border_index(static_cast<long>(x) + dx, static_cast<long>(w), border);
          if (sx < 0) continue;
          const double wt = gy[dy + ry] * gx[dx + rx];
          for (std::size_t ch = 0; ch < c; ++ch)
            out[(y * w + x) * c + ch] += wt * in[(static_cast<std::size_t>(sy) * pitch + sx) * c + ch];
        }
      }
  return out;
}

// ---------------------------------------------------------------- recursive Gaussian

void recursive_line(const double* x, std::size_t n, std::size_t stride, double* y, const RecursiveGaussian& g,
                    BlurBorder border) {
  const long N = static_cast<long>(n), K = recursive_margin(g.sigma, border);
  auto ext = [&](long i) {
    const long j = blur_border_index(i, N, border);
    return j < 0 ? 0.0 : x[static_cast<std::size_t>(j) * stride];
  };
  const double first = border == BlurBorder::Zero ? 0.0 : ext(-K);
  const double last = border == BlurBorder::Zero ? 0.0 : ext(N + K - 1);
  std::vector<double> w(static_cast<std::size_t>(N + 2 * K));
  double s[3] = {first, first, first};
  for (long i = -K; i < N + K; ++i) {
    recursive_step(s, ext(i), g);
    w[i + K] = s[1];
  }
  const Mat3 M = recursive_boundary(g);
  double a[3];
  for (int i = 0; i < 3; ++i)
    a[i] = last + M[i * 3] * (s[0] - last) + M[i * 3 + 1] * (s[1] - last) + M[i * 3 + 2] * (s[2] - last);
  for (long i = N + K - 1; i >= 0; --i) {
    recursive_step(a, w[i + K], g);
    if (i < N) y[static_cast<std::size_t>(i) * stride] = a[1];
  }
}

void recursive_line_extended(const double* x, std::size_t n, double* y, const RecursiveGaussian& g, BlurBorder border,
                             std::size_t extension) {
  const long N = static_cast<long>(n), K = recursive_margin(g.sigma, border), E = static_cast<long>(extension);
  auto ext = [&](long i) {
    if (border == BlurBorder::Zero && (i < 0 || i >= N)) return 0.0;
    i = std::min(std::max(i, -K), N + K - 1);  // constants beyond the margin
    const long j = blur_border_index(i, N, border);
    return j < 0 ? 0.0 : x[j];
  };
  const long lo = -K - E, hi = N + K + E;
  std::vector<double> w(static_cast<std::size_t>(hi - lo));
  const double first = ext(lo);
  double s[3] = {first, first, first};
  for (long i = lo; i < hi; ++i) {
    recursive_step(s, ext(i), g);
    w[i - lo] = s[1];
  }
  const double last = ext(hi - 1);
  double a[3] = {last, last, last};
  for (long i = hi - 1; i >= 0; --i) {
    recursive_step(a, w[i - lo], g);
    if (i < N) y[i] = a[1];
  }
}

std::vector<double> recursive_blur(const float* in, std::size_t w, std::size_t h, std::size_t c, std::size_t pitch,
                                   double sigma_x, double sigma_y, BlurBorder border) {
  const RecursiveGaussian gx = recursive_gaussian(sigma_x), gy = recursive_gaussian(sigma_y);
  std::vector<double> a(w * h * c), b(w * h * c);
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t i = 0; i < w * c; ++i) a[y * w * c + i] = in[y * pitch * c + i];
  for (std::size_t i = 0; i < w * c; ++i) recursive_line(a.data() + i, h, w * c, b.data() + i, gy, border);
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t ch = 0; ch < c; ++ch)
      recursive_line(b.data() + y * w * c + ch, w, c, a.data() + y * w * c + ch, gx, border);
  return a;
}

}  // namespace clforge::host
