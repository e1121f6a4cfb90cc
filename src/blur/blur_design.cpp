// The Gaussian filters' design (see blur_design.hpp).
#include "blur/blur_design.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "clforge/errors.hpp"

namespace clforge::detail {

int gaussian_radius(double sigma, double truncate) {
  return std::max(1, static_cast<int>(std::ceil(truncate * sigma)));
}

std::vector<double> gaussian_weights(double sigma, double truncate) {
  const int r = gaussian_radius(sigma, truncate);
  std::vector<double> w(2 * r + 1);
  double sum = 0;
  // k / sigma first: for a tiny sigma sigma^2 underflows to 0, and 0 / 0 would make the centre
  // weight NaN; this way it is exp(0) = 1 and the others exp(-inf) = 0.
  for (int k = -r; k <= r; ++k) {
    const double t = k / sigma;
    sum += w[k + r] = std::exp(-0.5 * t * t);
  }
  for (double& v : w) v /= sum;
  return w;
}

RecursiveGaussian recursive_gaussian(double sigma) {
  if (!(sigma >= 0.5) || !(sigma <= 4096))
    throw InvalidArgument("recursive Gaussian: sigma must be in [0.5, 4096] (got " + std::to_string(sigma) + ")");
  RecursiveGaussian g;
  g.sigma = sigma;
  // Young & van Vliet, Signal Processing 44 (1995), eqs. 11b and 8c.
  g.q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330 : 3.97156 - 4.14554 * std::sqrt(1.0 - 0.26891 * sigma);
  const double q = g.q, q2 = q * q, q3 = q2 * q;
  g.b0 = 1.57825 + 2.44413 * q + 1.4281 * q2 + 0.422205 * q3;
  g.b1 = 2.44413 * q + 2.85619 * q2 + 1.26661 * q3;
  g.b2 = -(1.4281 * q2 + 1.26661 * q3);
  g.b3 = 0.422205 * q3;
  g.B = 1.0 - (g.b1 + g.b2 + g.b3) / g.b0;
  // Feedback polynomial z^3 - a1 z^2 - a2 z - a3 = (z - p1)(z^2 - c1 z - c2).
  const long double a1 = static_cast<long double>(g.b1) / g.b0, a2 = static_cast<long double>(g.b2) / g.b0,
                    a3 = static_cast<long double>(g.b3) / g.b0;
  long double z = 1.0L;  // Newton from 1 converges to the single real root, which lies in (0, 1)
  for (int i = 0; i < 100; ++i) {
    const long double f = ((z - a1) * z - a2) * z - a3, d = (3 * z - 2 * a1) * z - a2;
    const long double step = f / d;
    z -= step;
    if (std::fabs(static_cast<double>(step)) < 1e-19) break;
  }
  g.p1 = static_cast<double>(z);
  g.c1 = static_cast<double>(a1 - z);
  g.c2 = static_cast<double>(-a3 / z);
  g.k1 = static_cast<double>(1.0L - z);
  g.g2 = static_cast<double>(1.0L - (a1 - z) + a3 / z);
  return g;
}

int recursive_margin(double sigma, BlurBorder border) {
  return border == BlurBorder::Mirror ? static_cast<int>(std::ceil(6.0 * sigma)) : 0;
}

void recursive_step(double s[3], double x, const RecursiveGaussian& g) {
  const double u = s[0] + g.k1 * (x - s[0]);
  const double w = s[1] + g.g2 * (u - s[1]) + g.c2 * (s[2] - s[1]);
  s[0] = u;
  s[2] = s[1];
  s[1] = w;
}

Mat3 recursive_transition(const RecursiveGaussian& g, int steps) {
  Mat3 m{};
  for (int j = 0; j < 3; ++j) {
    double s[3] = {0, 0, 0};
    s[j] = 1;
    for (int t = 0; t < steps; ++t) recursive_step(s, 0, g);
    for (int i = 0; i < 3; ++i) m[i * 3 + j] = s[i];
  }
  return m;
}

namespace {
// Zero-input steps after which every mode has decayed below 1e-18.
int decay_length(const RecursiveGaussian& g) {
  const double rho = std::max(std::fabs(g.p1), std::sqrt(std::fabs(g.c2)));
  return static_cast<int>(std::ceil(42.0 / std::max(1e-9, 1.0 - rho))) + 16;
}
}  // namespace

Mat3 recursive_boundary(const RecursiveGaussian& g) {
  const int n = decay_length(g);
  std::vector<double> tail(n);
  Mat3 m{};
  for (int j = 0; j < 3; ++j) {
    double s[3] = {0, 0, 0};
    s[j] = 1;
    for (int t = 0; t < n; ++t) {
      recursive_step(s, 0, g);
      tail[t] = s[1];
    }
    double a[3] = {0, 0, 0};
    for (int t = n - 1; t >= 0; --t) recursive_step(a, tail[t], g);
    for (int i = 0; i < 3; ++i) m[i * 3 + j] = a[i];
  }
  return m;
}

Mat3 recursive_cross(const RecursiveGaussian& g, int L) {
  std::vector<double> w(std::max(L, 1));
  Mat3 m{};
  for (int j = 0; j < 3; ++j) {
    double s[3] = {0, 0, 0};
    s[j] = 1;
    for (int t = 0; t < L; ++t) {
      recursive_step(s, 0, g);
      w[t] = s[1];
    }
    double a[3] = {0, 0, 0};
    for (int t = L - 1; t >= 0; --t) recursive_step(a, w[t], g);
    for (int i = 0; i < 3; ++i) m[i * 3 + j] = a[i];
  }
  return m;
}

std::vector<double> recursive_impulse_table(const RecursiveGaussian& g, int n) {
  std::vector<double> t(3 * static_cast<std::size_t>(std::max(n, 0)));
  double s[3] = {0, 0, 0};
  for (int m = 0; m < n; ++m) {
    recursive_step(s, m == 0 ? 1.0 : 0.0, g);
    for (int j = 0; j < 3; ++j) t[3 * m + j] = s[j];
  }
  return t;
}

}  // namespace clforge::detail
