// Host side of the Gaussian blur: double-precision references (truncated Gaussian, direct and
// separable; the recursive Young-van Vliet filter) and the recursive filter's design (poles,
// boundary and block matrices) that the device launcher passes to its kernels, so that the
// kernels and the reference share one definition of the filter.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "blur/blur_design.hpp"
#include "clforge/blur.hpp"

namespace clforge::host {

// The filters' design lives with the product (src/blur/blur_design.hpp); the references use it
// under these names.
using detail::gaussian_radius;
using detail::gaussian_weights;
using detail::Mat3;
using detail::recursive_boundary;
using detail::recursive_cross;
using detail::recursive_gaussian;
using detail::recursive_impulse_table;
using detail::recursive_margin;
using detail::recursive_step;
using detail::recursive_transition;
using detail::RecursiveGaussian;

/// Index of sample i of an n-sample line under a border mode (see BlurBorder); -1 when the
/// sample is outside and the border is Zero.
long blur_border_index(long i, long n, BlurBorder border);

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
