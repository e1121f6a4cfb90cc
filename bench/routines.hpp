// Each routine's benchmark against its peers, run by `clforge bench <routine>` and
// `clforge bench all`. Every function adds Records to the report (clforge and each peer,
// same device, same run, random data) and verifies clforge's output against the host reference.
#pragma once
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "bench/peak.hpp"
#include "clforge/blur.hpp"
#include "clforge/tuning.hpp"

namespace clforge::bench {

struct BenchOptions {
  bool quick = false;              ///< small size list (tests, --quick)
  std::vector<std::string> sizes;  ///< explicit sizes (routine-specific syntax); empty: the default list
  Tuning tuning;                   ///< overrides for clforge's parameters
  /// Every library alike: back-to-back calls between the markers (or CUDA events) of a
  /// repetition, so that a region lasts about 2 ms (TimingPlan::region_ms); a run of more
  /// than 500 ms (OpenCV's CPU blur at large σ) gets one warm-up and three samples.
  TimingPlan plan{2, 5, 100, 50, detail::kRegionMs, 0, 500};
  /// Rounds per case of the benchmarks that run their libraries one after another (fft): each
  /// round runs every library once (round k starts with library k) and a library's figure is
  /// the median of its rounds' medians. 0: 3 on CPU devices (whose speed drifts when shared)
  /// unless quick, else 1.
  int rounds = 0;
  /// false: clforge's records alone, no peer library runs (bench all --no-peers: runs whose
  /// comparison takes its peers from another run, as the cold-start protocol's).
  bool peers = true;
};

/// The rounds `opt` asks for on `dev` (BenchOptions::rounds).
int bench_rounds(const BenchOptions& opt, const DeviceInfo& dev);

/// clforge transpose vs CLBlast Omatcopy and the copy bandwidth. sizes: "RxC" or "N" (square).
void bench_transpose(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks);

/// clforge FFT vs clFFT, VkFFT (a child process on CPU devices), on NVIDIA devices where
/// libcufft loads cuFFT, and on CPU devices FFTW float on the host: out-of-place forward,
/// contiguous batches; complex 1-D (FftPlan), real-input 1-D R2C (RealFftPlan) and complex 2-D,
/// 3-D (FftNdPlan). sizes: the grammar of bench/sizes.hpp ("N", "NxM", "NxMxK", ",batch=B",
/// ",mib=M", ",real" for 1-D; default batch: 64 MiB in the larger buffer); default: complex
/// n = 8 ... 2^20, 1000, 3000, 4095, 1009, 65537 at 64 MiB and 512 MiB, R2C at the same lengths
/// (64 MiB), and single 1024^2, 4096^2, 8192^2, 1000^2, 256^3 and 64 x 256^2 (CPU devices: n up
/// to 2^16 and the others, 64 MiB only, nine R2C lengths, smaller N-D shapes).
void bench_fft(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks);

/// clforge sgemm vs CLBlast Gemm (same device, same run), OpenBLAS cblas_sgemm on CPU devices
/// (host wall clock, its kernels named: bench/openblas.hpp), cuBLAS on NVIDIA devices where
/// libcublas loads, and the FMA peak. sizes: "N" (square) or "MxNxK", optionally ":NT" etc.
void bench_sgemm(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks);

/// Options of the blur benchmark beyond BenchOptions (empty lists: the defaults).
struct BlurBenchOptions {
  std::vector<double> sigmas;             ///< default 0.8, 2, 5, 10, 20
  std::vector<std::string> methods;       ///< direct, separable, recursive, recursive-whole/-blocked/-fused
  int channels = 1;                       ///< 1: R32F, 4: RGBA32F
  BlurBorder border = BlurBorder::Clamp;  ///< of every method and peer
  int verify_pixels = 2000;               ///< output pixels checked against the host (0: none)
};
/// clforge Gaussian blur: MP/s per method and sigma beside each method's bandwidth bound
/// (bytes read + written per pixel / copy bandwidth measured in the same run), and the peers on
/// the same image and sigma (bench/blur_peers.hpp: OpenCV on the host and through OpenCL on the
/// same device, NPP on NVIDIA devices) with clforge / best peer per method and sigma.
/// sizes: "WxH" or "N" (square); default 4096x4096 (16 MP) and 8192x8192 (64 MP); 16 MP only on CPU devices.
void bench_blur(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks,
                const BlurBenchOptions& blur = {});

/// The sizes each benchmark runs with `opt` on `dev`, in its own size syntax (fft: "N,batch=B"
/// with ",real" or "NxM,batch=B" for its real and N-D cases;
/// blur: the images). `clforge tune all` tunes the size classes of these lists.
std::vector<std::string> transpose_sizes(const BenchOptions& opt);
std::vector<std::string> sgemm_sizes(const BenchOptions& opt, const DeviceInfo& dev);
std::vector<std::string> fft_sizes(const BenchOptions& opt, const DeviceInfo& dev);
std::vector<std::string> blur_sizes(const BenchOptions& opt, const DeviceInfo& dev);
/// The cases `clforge tune all` times a blur method on ("direct", "separable", "recursive" or a
/// recursive scheme "recursive-..."): each image of blur_sizes at the smallest and the largest
/// sigma of the benchmark's list that it runs the method at, "WxH,sigma=S". A row tuned at one
/// sigma may never have run the path another sigma takes (separable: fused passes up to a halo).
std::vector<std::string> blur_tune_sizes(const BenchOptions& opt, const DeviceInfo& dev, const std::string& method);

/// The cases each benchmark runs with `opt` on `dev`, i.e. its progress steps: its sizes (fft:
/// throws InvalidArgument for a size it cannot read), blur: images x sigmas x (methods + 1, the
/// peers' step).
std::size_t transpose_cases(const BenchOptions& opt);
std::size_t sgemm_cases(const BenchOptions& opt, const DeviceInfo& dev);
std::size_t fft_cases(const BenchOptions& opt, const DeviceInfo& dev);
std::size_t blur_cases(const BenchOptions& opt, const DeviceInfo& dev, const BlurBenchOptions& blur = {});

/// Host cost of repeated small calls (64x64 transpose, 64^3 sgemm, n = 64 x 16 FFT, 64^2 blur of
/// each method) beside their device span; one "overhead" record per call, figures in params.
void bench_overhead(Session& s, Report& report);

}  // namespace clforge::bench
