// Host side of the Gaussian blur: double-precision references computed from the definitions
// alone (nothing here comes from the library's own filter design, so a wrong coefficient in the
// library shows up as a test failure):
// - the truncated Gaussian: weights exp(-k^2 / (2 sigma^2)), k = -r..r, normalised to sum 1,
//   radius r = max(1, ceil(truncate * sigma)); applied directly or separably;
// - the recursive Gaussian of Young & van Vliet (1995): the published q(sigma), b0..b3 and B,
//   run in the direct form (causal, then anti-causal) over an explicitly extended line.
#pragma once
#include <cstddef>
#include <vector>

#include "clforge/blur.hpp"

namespace clforge::host {

/// Index of sample i of an n-sample line under a border mode (see BlurBorder); -1 when the
/// sample is outside and the border is Zero.
long blur_border_index(long i, long n, BlurBorder border);

/// r = ceil(truncate * sigma), at least 1 (the library's definition: a blur always has taps on
/// both sides of the centre, however small sigma is).
int gaussian_radius(double sigma, double truncate = 3.0);
/// The 2r+1 weights exp(-k^2 / (2 sigma^2)), k = -r..r, normalised to sum 1.
std::vector<double> gaussian_weights(double sigma, double truncate = 3.0);

/// Truncated Gaussian blur (radius ceil(truncate * sigma) per axis, normalised weights) of a
/// w x h image of c interleaved float channels with row pitch `pitch` pixels; the result is
/// compact (w * h * c doubles). Computed separably in double: equal to the direct 2-D sum up
/// to double rounding. With a large truncate (e.g. 8) it serves as the exact Gaussian.
std::vector<double> gaussian_blur(const float* in, std::size_t w, std::size_t h, std::size_t c, std::size_t pitch,
                                  double sigma_x, double sigma_y, BlurBorder border, double truncate = 3.0);
/// The same blur as the direct 2-D window sum (O(r^2) per pixel); for small images only.
std::vector<double> gaussian_blur_direct(const float* in, std::size_t w, std::size_t h, std::size_t c,
                                         std::size_t pitch, double sigma_x, double sigma_y, BlurBorder border);

/// Bound on the relative L2 error of a single-precision direct or separable blur against
/// gaussian_blur() (same truncation): each output sums 2r+1 products per axis in float.
double truncated_blur_tolerance(double sigma_x, double sigma_y);
/// Bound on the relative L2 error of the single-precision recursive filter against
/// recursive_blur(): rounding in the recursions grows about linearly with sigma (cascade form).
double recursive_blur_tolerance(double sigma_x, double sigma_y);

/// Young & van Vliet, "Recursive implementation of the Gaussian filter", Signal Processing 44
/// (1995) 139-151, eqs. 11b and 8c:
///   q = 0.98711 sigma - 0.96330                         (sigma >= 2.5)
///   q = 3.97156 - 4.14554 sqrt(1 - 0.26891 sigma)       (0.5 <= sigma < 2.5)
///   b0 = 1.57825 + 2.44413 q + 1.4281 q^2 + 0.422205 q^3
///   b1 = 2.44413 q + 2.85619 q^2 + 1.26661 q^3
///   b2 = -(1.4281 q^2 + 1.26661 q^3),   b3 = 0.422205 q^3
///   B  = 1 - (b1 + b2 + b3) / b0
/// One pass: y[n] = B x[n] + (b1 y[n-1] + b2 y[n-2] + b3 y[n-3]) / b0; the anti-causal pass is
/// the same recursion run backwards over the causal output. The reference evaluates it with B
/// replaced by its definition, y[n] = x[n] + sum_i (b_i / b0) (y[n-i] - x[n]): the same filter,
/// whose unit DC gain then holds exactly in floating point (1 - (b1 + b2 + b3) / b0 loses most
/// of its digits to cancellation at large sigma, and the recursion would amplify that).
struct RecursiveGaussian {
  double sigma = 0, q = 0;
  double b0 = 0, b1 = 0, b2 = 0, b3 = 0, B = 0;
  /// Samples after which the pass's impulse-response tail sums to less than 1e-17: how far
  /// the reference extends a line past its end.
  std::size_t extension = 0;
};
/// The coefficients for one sigma; throws InvalidArgument outside [0.5, 4096] (the library's
/// range; below 0.5 the published fit of q breaks down).
RecursiveGaussian recursive_gaussian(double sigma);

/// Mirrored samples on each side before the constant extension of a recursive Mirror border:
/// K = ceil(6 sigma) (0 for Clamp and Zero), as the library documents it.
long recursive_mirror_margin(double sigma, BlurBorder border);

/// The recursive filter of one line of n samples (stride in samples), in double. The line is
/// extended as the library defines its borders: Clamp by the edge values, Zero by zeros, Mirror
/// by K mirrored samples (blur_border_index) and then constants (the outermost mirrored
/// values). The causal pass starts at rest on the leading constant (exact: the filter has unit
/// DC gain); the trailing constant is written out for g.extension samples, after which the
/// anti-causal pass starts at rest on the causal output, with an error below 1e-17 of the
/// input's magnitude.
void recursive_line(const double* x, std::size_t n, std::size_t stride, double* y, const RecursiveGaussian& g,
                    BlurBorder border);
/// Recursive blur of an image (layout as gaussian_blur): columns with sigma_y, then rows
/// with sigma_x. Compact double result.
std::vector<double> recursive_blur(const float* in, std::size_t w, std::size_t h, std::size_t c, std::size_t pitch,
                                   double sigma_x, double sigma_y, BlurBorder border);

}  // namespace clforge::host
