// Test-data helpers shared by tests, benchmarks and the tuner: seeded random fills (never
// zeros), NaN poison with guard tails, and relative-norm comparison against a reference.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace clforge::host {

/// Seed for a run: CLFORGE_TEST_SEED if set, else a fresh one from the clock.
std::uint64_t default_seed();

/// n uniform values in [-1, 1) (multiples of 2^-23, never 0) from a counter-based SplitMix64
/// stream keyed by seed; large fills use every hardware thread, with the same result.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed);
void fill_random(float* data, std::size_t n, std::uint64_t seed);

/// Fills with quiet NaN (poison), so unwritten outputs are caught.
void poison(float* data, std::size_t n);
inline std::vector<float> poisoned(std::size_t n) {
  std::vector<float> v(n);
  poison(v.data(), n);
  return v;
}
/// Number of elements that are not NaN (poison) in [data, data + n).
std::size_t count_written(const float* data, std::size_t n);
/// NaN and infinite values in [data, data + n): how many, and the index of the first (n when
/// none). Large ranges are scanned on every hardware thread.
struct NonFinite {
  std::size_t count = 0;
  std::size_t first = 0;
};
NonFinite count_nonfinite(const float* data, std::size_t n);

/// Comparison of a result against a double-precision reference.
struct Comparison {
  double rel_error = 0;  ///< ||y - ref||_2 / ||ref||_2 (or ||y - ref|| when ref == 0)
  double max_abs_error = 0;
  std::size_t nonfinite = 0;  ///< NaN/Inf in y (counted as failures)
  std::size_t count = 0;
  bool ok(double tolerance) const { return nonfinite == 0 && rel_error <= tolerance; }
  std::string summary() const;
};
Comparison compare(const float* y, const double* ref, std::size_t n);
Comparison compare(const std::vector<float>& y, const std::vector<double>& ref);

}  // namespace clforge::host
