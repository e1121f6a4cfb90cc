// Seeded fills, poison and norm comparison (see data.hpp).
#include "host/data.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "host/parallel.hpp"

namespace clforge::host {

std::uint64_t default_seed() {
  if (const char* s = std::getenv("CLFORGE_TEST_SEED"); s != nullptr && *s != '\0') return std::strtoull(s, nullptr, 0);
  return static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
}

namespace {

std::uint64_t mix64(std::uint64_t x) {  // the SplitMix64 finaliser
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Values 2j and 2j+1 of the stream come from one 64-bit word of SplitMix64's sequence at
// position j (counter-based: any range can be filled on its own, so threads share the work
// and the result does not depend on how many there are).
void fill_range(float* data, std::size_t begin, std::size_t end, std::uint64_t key) {
  constexpr float scale = 1.0f / 16777216.0f;  // 2^-24
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint64_t w = mix64(key + (i / 2 + 1) * 0x9E3779B97F4A7C15ULL);
    const std::uint32_t bits = static_cast<std::uint32_t>(i % 2 ? w >> 40 : (w >> 8) & 0xFFFFFF);
    const float v = static_cast<float>(bits) * (2.0f * scale) - 1.0f;  // [-1, 1), steps of 2^-23
    data[i] = v == 0.0f ? 0.5f : v;                                    // never exact zeros
  }
}

}  // namespace

void fill_random(float* data, std::size_t n, std::uint64_t seed) {
  const std::uint64_t key = mix64(seed + 0x2545F4914F6CDD1DULL);
  parallel_for(n, 0, std::size_t{1} << 22, [&](std::size_t lo, std::size_t hi) { fill_range(data, lo, hi, key); });
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

NonFinite count_nonfinite(const float* data, std::size_t n) {
  // Exponent bits all set: NaN or infinity. Counted branch-free (vectorised) per chunk; the
  // first index is searched only in a chunk that has one.
  NonFinite out{0, n};
  std::mutex merge;
  parallel_for(n, 0, std::size_t{1} << 22, [&](std::size_t lo, std::size_t hi) {
    std::size_t count = 0, first = n;
    for (std::size_t i = lo; i < hi; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, data + i, sizeof bits);
      count += (bits & 0x7F800000u) == 0x7F800000u;
    }
    for (std::size_t i = lo; count > 0 && i < hi; ++i)
      if (!std::isfinite(data[i])) {
        first = i;
        break;
      }
    const std::lock_guard<std::mutex> lock(merge);
    out.count += count;
    out.first = std::min(out.first, first);
  });
  return out;
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
