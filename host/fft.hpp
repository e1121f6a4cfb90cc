// Double-precision DFT/FFT references that need no FFTW and share nothing with the library's
// own FFT code: a direct O(n^2) DFT, an FFT for any length (mixed radix over the factors 2, 3,
// 5 and 7, Bluestein's chirp convolution for the other lengths), both on their own roots of
// unity, and batched strided helpers. The tuner and tests use the batched reference and the
// per-transform error.
#pragma once
#include <complex>
#include <cstddef>
#include <vector>

namespace clforge::host {

using cdouble = std::complex<double>;

/// exp(sign * 2 pi i k / n), with the angle folded into [0, pi/4] by exact integer arithmetic
/// first, so that it stays accurate to a few ulp for any n.
cdouble unit_root(std::size_t k, std::size_t n, int sign);

/// y_k = sum_j x_j exp(sign * 2 pi i jk / n), O(n^2). sign is -1 (forward) or +1 (inverse).
std::vector<cdouble> dft(const std::vector<cdouble>& x, int sign = -1);

/// The same result in O(n log n) for any n >= 1 (unscaled).
std::vector<cdouble> fft(const std::vector<cdouble>& x, int sign = -1);

/// Batched strided reference: transform b of the input is the complex (float pair) sequence
/// in[offset + b * distance + k * stride], k < n; returns the results contiguously
/// (transform b at [b * n, (b + 1) * n)), multiplied by scale.
std::vector<cdouble> fft_batch(const float* in, std::size_t n, std::size_t batch, std::size_t stride,
                               std::size_t distance, std::size_t offset, bool inverse, double scale = 1.0);

/// Error of a device result against a contiguous reference, per transform.
struct FftError {
  double max_rel_l2 = 0;      ///< largest ||y_b - ref_b|| / ||ref_b|| over the transforms
  double max_abs = 0;         ///< largest |y - ref| over all elements
  std::size_t worst = 0;      ///< transform with the largest relative error
  std::size_t nonfinite = 0;  ///< NaN or Inf results (never acceptable)
};
/// out is the device output (float pairs) with the given layout; ref from fft_batch().
FftError fft_compare(const float* out, std::size_t n, std::size_t batch, std::size_t stride, std::size_t distance,
                     std::size_t offset, const std::vector<cdouble>& ref);

/// Tolerance on the relative L2 error per transform for single precision: grows with
/// log2(n) (rounding adds up over the passes), with a larger constant for Bluestein lengths
/// (three transforms and two chirp multiplications in a row).
double fft_tolerance(std::size_t n);
/// Tolerance on the relative L2 error of a forward then inverse (1/n) round trip against the
/// input: two transforms, twice fft_tolerance(n).
double fft_round_trip_tolerance(std::size_t n);

}  // namespace clforge::host
