// FFTW-based double-precision reference for batched strided FFTs (tests and benchmarks only;
// built into the clforge_host target, never into the library).
#pragma once
#include <cstddef>
#include <vector>

#include "host/fft.hpp"

namespace clforge::host {

/// Same contract as fft_batch() (host/fft.hpp), computed by FFTW in double precision:
/// transform b is in[offset + b * distance + k * stride] (float pairs), results contiguous,
/// multiplied by scale.
std::vector<cdouble> fftw_batch(const float* in, std::size_t n, std::size_t batch, std::size_t stride,
                                std::size_t distance, std::size_t offset, bool inverse, double scale = 1.0);

/// One multi-dimensional complex transform computed by FFTW in double precision: `in` holds
/// the product of `shape` float pairs, row-major (shape slowest axis first, 1 to 3 axes);
/// returns the result in the same order.
std::vector<cdouble> fftw_nd(const float* in, const std::vector<std::size_t>& shape, bool inverse);

}  // namespace clforge::host
