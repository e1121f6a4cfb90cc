// Versions of the peer libraries the benchmarks compare against, for results.json and
// report.md: the headers' versions for the linked ones (CLBlast, clFFT) and VkFFT (header
// only), FFTW's and OpenCV's own version strings and thread counts, OpenBLAS's config string and
// kernels, and the CUDA libraries' sonames for the ones loaded at run time. Kept in its own file so that only
// this one includes the large vkFFT.h beside bench_fft.cpp.
#include <string>

#include "bench/bench_all.hpp"
#include "bench/blur_peers.hpp"
#include "bench/fft_peers.hpp"
#include "bench/openblas.hpp"
#if CLFORGE_BENCH_CUDA
#include "bench/cuda_runtime.hpp"
#endif

#if CLFORGE_HAVE_CLBLAST
#include <clblast.h>
#endif
#if CLFORGE_HAVE_CLFFT
#include <clFFT.h>
#endif
#include "bench/vkfft_include.hpp"

namespace clforge::bench {

namespace {
std::string dotted(long major, long minor, long patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}
}  // namespace

nlohmann::json peer_versions() {
  nlohmann::json j = nlohmann::json::object();
#if CLFORGE_HAVE_CLBLAST
  j["CLBlast"] = dotted(CLBLAST_VERSION_MAJOR, CLBLAST_VERSION_MINOR, CLBLAST_VERSION_PATCH);
#else
  j["CLBlast"] = "not built";
#endif
#if CLFORGE_HAVE_CLFFT && defined(clfftVersionMajor)
  j["clFFT"] = dotted(clfftVersionMajor, clfftVersionMinor, clfftVersionPatch);
#elif CLFORGE_HAVE_CLFFT
  j["clFFT"] = "unknown";
#else
  j["clFFT"] = "not built";
#endif
#if CLFORGE_HAVE_VKFFT
  const long v = VkFFTGetVersion();  // X.XX.XX as one number: 10226 is 1.2.26
  j["VkFFT"] = dotted(v / 10000, v / 100 % 100, v % 100);
#else
  j["VkFFT"] = "not built";
#endif
  j["OpenBLAS"] = openblas().describe();
  j["FFTW"] = fftw_version_text();
  j["OpenCV"] = opencv_version_text();
#if CLFORGE_BENCH_CUDA
  j["cuBLAS"] = cuda::describe(cuda::kCublasSonames);
  j["cuFFT"] = cuda::describe(cuda::kCufftSonames);
  j["NPP"] = cuda::describe(cuda::kNppSonames);
#else
  j["cuBLAS"] = "not built";
  j["cuFFT"] = "not built";
  j["NPP"] = "not built";
#endif
  return j;
}

}  // namespace clforge::bench
