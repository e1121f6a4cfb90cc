// Double-precision blur references from the filters' definitions (see blur.hpp).
#include "host/blur.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "clforge/errors.hpp"
#include "host/parallel.hpp"

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

int gaussian_radius(double sigma, double truncate) {
  return std::max(1, static_cast<int>(std::ceil(truncate * sigma)));
}

std::vector<double> gaussian_weights(double sigma, double truncate) {
  const int r = gaussian_radius(sigma, truncate);
  std::vector<double> w(2 * static_cast<std::size_t>(r) + 1);
  double sum = 0;
  for (int k = -r; k <= r; ++k) {
    const double t = k / sigma;  // k^2 / sigma^2 as (k / sigma)^2: a tiny sigma gives 1 at k = 0, not 0 / 0
    sum += w[k + r] = std::exp(-0.5 * t * t);
  }
  for (double& v : w) v /= sum;
  return w;
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
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{1} << 16) / std::max<std::size_t>(w * c, 1));
  parallel_for(h, 0, grain, [&](std::size_t y0, std::size_t y1) {  // rows on threads, each row whole
    for (std::size_t y = y0; y < y1; ++y)
      for (int k = 0; k <= 2 * ry; ++k) {
        const long src = ty[y * (2 * ry + 1) + k];
        if (src < 0) continue;
        const float* row = in + static_cast<std::size_t>(src) * pitch * c;
        double* dst = tmp.data() + y * w * c;
        for (std::size_t i = 0; i < w * c; ++i) dst[i] += gy[k] * row[i];
      }
  });
  parallel_for(h, 0, grain, [&](std::size_t y0, std::size_t y1) {
    for (std::size_t y = y0; y < y1; ++y)
      for (std::size_t x = 0; x < w; ++x)
        for (int k = 0; k <= 2 * rx; ++k) {
          const long src = tx[x * (2 * rx + 1) + k];
          if (src < 0) continue;
          for (std::size_t ch = 0; ch < c; ++ch) out[(y * w + x) * c + ch] += gx[k] * tmp[(y * w + src) * c + ch];
        }
  });
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

namespace {

// The real root of z^3 - a1 z^2 - a2 z - a3 (the real pole), by bisection on [0, 1]: the
// polynomial is -a3 < 0 at 0 and B > 0 at 1 for every sigma in the library's range.
double real_pole(double a1, double a2, double a3) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double f = ((mid - a1) * mid - a2) * mid - a3;
    (f < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Length after which the tail of one pass's impulse response sums to less than 1e-17. With all
// three poles of modulus <= rho, |h[j]| <= B (j+1)(j+2)/2 rho^j, whose tail from n is at most
// B (n+1)(n+2)/2 rho^n / (1 - rho)^3.
std::size_t extension_length(const RecursiveGaussian& g) {
  const double a1 = g.b1 / g.b0, a2 = g.b2 / g.b0, a3 = g.b3 / g.b0;
  const double p = real_pole(a1, a2, a3);
  const double rho = std::max(p, std::sqrt(a3 / p));  // |complex pair|^2 = a3 / p
  const double target = std::log(1e-17) - std::log(g.B) + 3 * std::log1p(-rho);
  const double log_rho = std::log(rho);
  std::size_t n = 0;
  while (std::log(0.5 * (n + 1.0) * (n + 2.0)) + static_cast<double>(n) * log_rho >= target) ++n;
  return n;
}

}  // namespace

RecursiveGaussian recursive_gaussian(double sigma) {
  if (!(sigma >= 0.5) || !(sigma <= 4096))
    throw InvalidArgument("recursive Gaussian: sigma must be in [0.5, 4096] (got " + std::to_string(sigma) + ")");
  RecursiveGaussian g;
  g.sigma = sigma;
  g.q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330 : 3.97156 - 4.14554 * std::sqrt(1 - 0.26891 * sigma);
  const double q = g.q;
  g.b0 = 1.57825 + q * (2.44413 + q * (1.4281 + q * 0.422205));
  g.b1 = q * (2.44413 + q * (2.85619 + q * 1.26661));
  g.b2 = -q * q * (1.4281 + q * 1.26661);
  g.b3 = 0.422205 * q * q * q;
  g.B = 1 - (g.b1 + g.b2 + g.b3) / g.b0;
  g.extension = extension_length(g);
  return g;
}

long recursive_mirror_margin(double sigma, BlurBorder border) {
  return border == BlurBorder::Mirror ? static_cast<long>(std::ceil(6 * sigma)) : 0;
}

void recursive_line(const double* x, std::size_t n, std::size_t stride, double* y, const RecursiveGaussian& g,
                    BlurBorder border) {
  const long N = static_cast<long>(n), K = recursive_mirror_margin(g.sigma, border);
  const long lo = -K, hi = N + K + static_cast<long>(g.extension);
  auto sample = [&](long i) {  // the extended line
    if (border == BlurBorder::Zero && (i < 0 || i >= N)) return 0.0;
    const long j = blur_border_index(std::min(std::max(i, -K), N + K - 1), N, border);
    return x[static_cast<std::size_t>(j) * stride];
  };
  const double a1 = g.b1 / g.b0, a2 = g.b2 / g.b0, a3 = g.b3 / g.b0;
  std::vector<double> w(static_cast<std::size_t>(hi - lo));
  double w1 = sample(lo - 1), w2 = w1, w3 = w1;  // at rest on the leading constant
  for (long i = lo; i < hi; ++i) {
    const double u = sample(i), v = u + a1 * (w1 - u) + a2 * (w2 - u) + a3 * (w3 - u);
    w3 = w2;
    w2 = w1;
    w1 = w[i - lo] = v;
  }
  double y1 = w.back(), y2 = y1, y3 = y1;  // at rest on the causal output's far end
  for (long i = hi - 1; i >= 0; --i) {
    const double u = w[i - lo], v = u + a1 * (y1 - u) + a2 * (y2 - u) + a3 * (y3 - u);
    y3 = y2;
    y2 = y1;
    y1 = v;
    if (i < N) y[static_cast<std::size_t>(i) * stride] = v;
  }
}

std::vector<double> recursive_blur(const float* in, std::size_t w, std::size_t h, std::size_t c, std::size_t pitch,
                                   double sigma_x, double sigma_y, BlurBorder border) {
  const RecursiveGaussian gx = recursive_gaussian(sigma_x), gy = recursive_gaussian(sigma_y);
  std::vector<double> a(w * h * c), b(w * h * c);
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t i = 0; i < w * c; ++i) a[y * w * c + i] = in[y * pitch * c + i];
  // Columns, then rows, on threads (each line whole on one).
  parallel_for(w * c, 0, std::max<std::size_t>(1, (std::size_t{1} << 16) / std::max<std::size_t>(h, 1)),
               [&](std::size_t i0, std::size_t i1) {
                 for (std::size_t i = i0; i < i1; ++i) recursive_line(a.data() + i, h, w * c, b.data() + i, gy, border);
               });
  parallel_for(h, 0, std::max<std::size_t>(1, (std::size_t{1} << 16) / std::max<std::size_t>(w * c, 1)),
               [&](std::size_t y0, std::size_t y1) {
                 for (std::size_t y = y0; y < y1; ++y)
                   for (std::size_t ch = 0; ch < c; ++ch)
                     recursive_line(b.data() + y * w * c + ch, w, c, a.data() + y * w * c + ch, gx, border);
               });
  return a;
}

}  // namespace clforge::host
