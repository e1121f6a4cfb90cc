// Host side of the Gaussian blur: double-precision references (truncated Gaussian, direct and
// separable; the recursive Young-van Vliet filter) and the recursive filter's design (poles,
// boundary and block matrices) that the device launcher passes to its kernels, so that the
// kernels and the reference share one definition of the filter.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "clforge/blur.hpp"

namespace clforge::host {

/// Index of sample i of an n-sample line under a border mode (see BlurBorder); -1 when the
/// sample is outside and the border is Zero.
long blur_border_index(long i, long n, BlurBorder border);

/// r = ceil(truncate * sigma) (at least 1).
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

// ---------------------------------------------------------------- recursive Gaussian
/// Young & van Vliet (1995) third-order recursive Gaussian, factored into a real pole p1 and a
/// complex pair (c1 = 2 Re p, c2 = -|p|^2) so that it runs as a cascade of a first- and a
/// second-order section, each with unit DC gain, in increment form (far less float rounding
/// error at large sigma than the direct form). One step of a direction, on the state
/// s = (u, w, w_prev) with input x:
///   u' = u + k1 (x - u);   w' = w + g2 (u' - w) + c2 (w_prev - w);   s' = (u', w', w)
/// The causal pass runs this forwards over x, the anti-causal pass backwards over the causal
/// output; the filter output is the anti-causal w.
struct RecursiveGaussian {
  double sigma = 0, q = 0;
  double b0 = 0, b1 = 0, b2 = 0, b3 = 0, B = 0;  ///< the published direct-form coefficients
  double p1 = 0, c1 = 0, c2 = 0;                 ///< cascade poles
  double k1 = 0, g2 = 0;                         ///< section gains 1 - p1, 1 - c1 - c2
};
/// The design for one sigma; throws InvalidArgument below 0.5 (where the published fit of q
/// breaks down) and above 4096.
RecursiveGaussian recursive_gaussian(double sigma);

/// Mirror border: the line is extended by K = ceil(6 sigma) mirrored samples on each side,
/// then by constants; K = 0 for Clamp and Zero (exact infinite extension).
int recursive_margin(double sigma, BlurBorder border);

using Mat3 = std::array<double, 9>;  ///< row-major 3 x 3
/// One step of either direction on the state s (see RecursiveGaussian).
void recursive_step(double s[3], double x, const RecursiveGaussian& g);
/// State transition of `steps` zero-input steps.
Mat3 recursive_transition(const RecursiveGaussian& g, int steps);
/// Triggs-Sdika boundary map: with the input constant at x+ after the last sample and the
/// causal state P after the last sample, the anti-causal state after it (having consumed the
/// infinite constant tail) is x+ + M (P - x+). Computed by simulating the decaying tail.
Mat3 recursive_boundary(const RecursiveGaussian& g);
/// Block coupling: anti-causal state at the start of an L-sample block due to the causal
/// state entering the block (zero input, zero anti-causal state at the block end).
Mat3 recursive_cross(const RecursiveGaussian& g, int L);
/// g[3 m + j]: component j of the anti-causal state after consuming an impulse and then m
/// zero samples, m < n. The anti-causal state at a block start from the zero state at its end
/// is sum_m g[m] * w[m] over the block's causal outputs w.
std::vector<double> recursive_impulse_table(const RecursiveGaussian& g, int n);

/// The recursive filter of one line of n samples (stride in samples), in double.
void recursive_line(const double* x, std::size_t n, std::size_t stride, double* y, const RecursiveGaussian& g,
                    BlurBorder border);
/// Recursive blur of an image (layout as gaussian_blur): columns with sigma_y, then rows
/// with sigma_x. Compact double result.
std::vector<double> recursive_blur(const float* in, std::size_t w, std::size_t h, std::size_t c, std::size_t pitch,
                                   double sigma_x, double sigma_y, BlurBorder border);
/// The same filter on a line, with the boundary handled by explicitly extending the input by
/// `extension` samples per side (constants beyond the mirror margin); for checking the
/// boundary matrix.
void recursive_line_extended(const double* x, std::size_t n, double* y, const RecursiveGaussian& g, BlurBorder border,
                             std::size_t extension);

}  // namespace clforge::host
