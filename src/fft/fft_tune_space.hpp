// The FFT tuner's search space of one length (src/fft/fft_tune_space.cpp): the values of each
// parameter that can change the kernels a length runs, one representative per group that cannot.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "clforge/runtime.hpp"
#include "clforge/tuning.hpp"

namespace clforge::detail {

using Narrowed = std::map<std::string, std::vector<int>>;

/// The values searched for length n (TuneTarget::narrow of `tune fft`): `strided` where a timed
/// size is interleaved, `passes` for a length longer than every kernel (its split and its passes'
/// kernels); `reference` the class's default configuration.
Narrowed fft_narrow_length(std::size_t n, bool strided, bool passes, const ParamMap& reference, const DeviceInfo& dev);

}  // namespace clforge::detail
