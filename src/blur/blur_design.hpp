// The Gaussian filters' design used by the blur launcher: weights, radii and the recursive
// filter's poles, boundary and block matrices passed to the kernels. The host references
// (host/blur.hpp) compute the filters from their definitions on their own, so the tests check
// this design rather than share it.
#pragma once
#include <array>
#include <vector>

#include "clforge/blur.hpp"

namespace clforge::detail {

/// r = ceil(truncate * sigma) (at least 1).
int gaussian_radius(double sigma, double truncate = 3.0);
/// The 2r+1 weights exp(-k^2 / (2 sigma^2)), k = -r..r, normalised to sum 1.
std::vector<double> gaussian_weights(double sigma, double truncate = 3.0);

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

}  // namespace clforge::detail
