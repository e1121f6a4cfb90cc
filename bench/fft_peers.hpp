// What clforge's FFT bench shares with its peers' runners (one file each: fft_clfft.cpp,
// fft_cufft.cpp, fft_fftw.cpp, fft_vkfft.cpp): the case, the sampled error check against FFTW, the record and
// its progress line.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "bench/routines.hpp"

namespace clforge::bench {

struct FftCase {
  std::size_t n = 0, batch = 0;
  std::string label() const { return "n=" + std::to_string(n) + " batch=" + std::to_string(batch); }
};

// Transforms whose error is checked: first, last and evenly spread between, at least 8 and
// enough to hold 2^16 points (at most 1024 transforms). The error is the largest over the
// sample, so a sample of 8 short transforms is a noisy statistic (n = 32: 256 points); every
// library is checked on the same sample.
std::vector<std::size_t> sample_of(std::size_t batch, std::size_t n);

// Largest relative L2 error over the sampled transforms against FFTW (NaN when an output is
// not finite); read(b, x, y) fills the input x and output y of transform b (n complex each).
double sampled_error(const FftCase& c, const std::function<void(std::size_t, float*, float*)>& read,
                     bool inverse = false);

// The same for contiguous transforms in OpenCL buffers.
double sampled_error(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c);

void poison_buffer(cl::CommandQueue& q, const cl::Buffer& b, std::size_t bytes);

Record make_record(const std::string& library, const FftCase& c);

// The progress line of a record; `note` follows the library ("round 2/3").
void report_line(const Record& r, const std::string& note = "");

/// clFFT, cuFFT (on NVIDIA, libcufft loaded at run time) and VkFFT (in a child process on CPU
/// devices) on the same case; each returns a record whose status says why it did not run.
Record run_clfft(Session& s, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c, const TimingPlan& plan);
Record run_cufft(Session& s, const cl::Buffer& in, const FftCase& c, const TimingPlan& plan);
Record run_vkfft_child(Session& s, const FftCase& c, const BenchOptions& opt);
Record run_vkfft_here(Session& s, const FftCase& c, const BenchOptions& opt);

/// FFTW float on the host, the peer of CPU devices (fft_fftw.cpp, built when CLFORGE_HAVE_FFTWF):
/// threaded over the CPUs this process may use, FFTW_MEASURE with its wisdom kept in the user
/// cache dir, one out-of-place fftwf_plan_many_dft over the case's batch (the layout of
/// clforge's rows), timed on the host clock around fftwf_execute. The plan and host arrays
/// live in `state`, made on the first call of a case (input read from `in`) and kept for its rounds.
struct FftwCaseState;
Record run_fftw(std::shared_ptr<FftwCaseState>& state, Session& s, const cl::Buffer& in, const FftCase& c,
                const TimingPlan& plan);
/// FFTW's version and threads for the peers ("fftw-3.3.10-sse2-avx, 16 threads"), or "not built".
std::string fftw_version_text();

}  // namespace clforge::bench
