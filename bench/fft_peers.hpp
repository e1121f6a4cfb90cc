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
#include "bench/sizes.hpp"

namespace clforge::bench {

/// One case of bench fft: a contiguous batch of out-of-place forward transforms, complex or
/// real-input (R2C), 1-D, 2-D or 3-D (row-major, the last axis fastest). A real transform reads
/// points() floats and writes its half spectrum: n_last/2 + 1 complex values per row along the
/// last axis (FFTW's, cuFFT's and numpy.fft.rfftn's layout).
struct FftCase {
  std::vector<std::size_t> shape;  ///< lengths, slowest axis first (1 to 3)
  std::size_t batch = 0;
  bool real = false;

  /// From a size of the grammar (bench/sizes.hpp): its batch, else a batch whose larger buffer
  /// holds mib MiB, else 64 MiB, at most max_alloc bytes (0: no limit). Throws InvalidArgument
  /// for layout=interleaved and for a batch whose bytes do not fit a size_t.
  static FftCase of(const Size& z, std::size_t max_alloc);
  /// The same from the size's text.
  static FftCase parse(const std::string& text, std::size_t max_alloc = 0);
  std::size_t points() const;      ///< product of the lengths
  std::size_t in_floats() const;   ///< per transform: points (real) or 2 * points
  std::size_t out_floats() const;  ///< per transform: 2 * points, real 2 * (points / n_last) * (n_last/2 + 1)
  std::size_t in_bytes() const { return 4 * in_floats() * batch; }    ///< of the batch
  std::size_t out_bytes() const { return 4 * out_floats() * batch; }  ///< of the batch
  /// "n=1024 batch=16", "real n=1024 batch=16", "2-D n=1024x1024 batch=1", "3-D n=256x256x256 batch=1",
  /// "real 2-D n=4096x4096 batch=1".
  std::string label() const;
  /// The size in the grammar, which reads back as this case ("256x256,batch=64", "1000,batch=8,real",
  /// "4096x4096,batch=1,real").
  std::string text() const;
  /// Relative L2 error allowed to single precision: fft_tolerance of each axis, summed.
  double tolerance() const;
};

// Transforms whose error is checked: first, last and evenly spread between, at least 8 and
// enough to hold 2^16 points (at most 1024 transforms). The error is the largest over the
// sample, so a sample of 8 short transforms is a noisy statistic (n = 32: 256 points); every
// library is checked on the same sample.
std::vector<std::size_t> sample_of(std::size_t batch, std::size_t points);

// Largest relative L2 error over the sampled transforms against FFTW in double (NaN when an
// output is not finite); read(b, x, y) fills the input x (in_floats) and output y (out_floats)
// of transform b.
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
/// cache dir, one out-of-place fftwf_plan_many_dft or fftwf_plan_many_dft_r2c (rank 1 to 3)
/// over the case's batch (the layout of clforge's rows), timed on the host clock around fftwf_execute. The plan and
/// host arrays live in `state`, made on the first call of a case (input read from `in`) and kept for its rounds.
struct FftwCaseState;
Record run_fftw(std::shared_ptr<FftwCaseState>& state, Session& s, const cl::Buffer& in, const FftCase& c,
                const TimingPlan& plan);
/// FFTW's version and threads for the peers ("fftw-3.3.10-sse2-avx, 16 threads"), or "not built".
std::string fftw_version_text();

}  // namespace clforge::bench
