// Seeded fills, poison and norm comparison (see data.hpp).
#include "host/data.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace clforge::host {

std::uint64_t default_seed() {
  if (const char* s = std::getenv("CLFORGE_TEST_SEED"); s != nullptr && *s != '\0') return std::strtoull(s, nullptr, 0);
  return static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
}

void fill_random(float* data, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    float v = dist(rng);
    data[i] = v == 0.0f ? 0.5f : v;  // never exact zeros
  }
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  fill_random(v.data(), n, seed);
  return v;
}

void poison(float* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) data[i] = std::numeric_limits<float>::quiet_NaN();
}

std::size_t count_written(const float* data, std::size_t n) {
  std::size_t c = 0;
  for (std::size_t i = 0; i < n; ++i) c += !std::isnan(data[i]);
  return c;
}

Comparison compare(const float* y, const double* ref, std::size_t n) {
  Comparison c;
  c.count = n;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(y[i])) {
      ++c.nonfinite;
      continue;
    }
    const double d = static_cast<double>(y[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
    c.max_abs_error = std::max(c.max_abs_error, std::fabs(d));
  }
  c.rel_error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

Comparison compare(const std::vector<float>& y, const std::vector<double>& ref) {
  return compare(y.data(), ref.data(), std::min(y.size(), ref.size()));
}

std::string Comparison::summary() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "rel error %.3e, max abs %.3e, non-finite %zu of %zu", rel_error, max_abs_error,
                nonfinite, count);
  return buf;
}

}  // namespace clforge::host
