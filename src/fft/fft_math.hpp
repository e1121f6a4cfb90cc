// The host-side FFT in double precision the FFT plans need (the Bluestein kernel's spectrum) and
// their roots of unity. The references in host/fft.hpp have their own FFT, so the tests check
// this one rather than share it.
#pragma once
#include <complex>
#include <cstddef>
#include <vector>

namespace clforge::detail {

using cdouble = std::complex<double>;

/// exp(sign * 2 pi i k / n), folded to a small argument (accurate for large n).
cdouble unit_root(std::size_t k, std::size_t n, int sign);

/// y_k = sum_j x_j exp(sign * 2 pi i jk / n) in O(n log n) for any n >= 1 (unscaled).
std::vector<cdouble> fft_double(const std::vector<cdouble>& x, int sign = -1);

}  // namespace clforge::detail
