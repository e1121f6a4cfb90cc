// The VkFFT side of `clforge bench fft`: on CPU devices run in a child process (`clforge bench
// fft-vkfft-child`) so that a crash inside VkFFT cannot end the benchmark; on GPUs in-process.
#pragma once
#include <cstddef>
#include <string>

#include "bench/fft_peers.hpp"
#include "bench/harness.hpp"

namespace clforge::bench {

/// Plans, checks (FFTW, sampled transforms) and times one VkFFT forward transform of the case's
/// contiguous batch (C2C or R2C of 1 to 3 axes) on the session's device; returns one line
/// "VKFFT ok <median ms> <min ms> <max ms> <reps> <error> <q1 ms> <q3 ms>" or
/// "VKFFT <refused|failed>: why".
std::string vkfft_answer(Session& s, const FftCase& c, const TimingPlan& plan);

/// The child process's side: prints vkfft_answer's line for the case of `size` (FftCase::text()).
int fft_vkfft_child(Session& s, const std::string& size, const TimingPlan& plan);

}  // namespace clforge::bench
