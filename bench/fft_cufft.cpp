// cuFFT as a peer of `clforge bench fft` on NVIDIA devices (left out only when built with
// -DCLFORGE_WITH_CUDA=OFF; the library is loaded at run time, timed with CUDA events).
#include "clforge/fft.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bench/fft_peers.hpp"
#include "host/data.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"
#if CLFORGE_BENCH_CUDA
#include "bench/cuda_runtime.hpp"
#endif

namespace clforge::bench {

#if CLFORGE_BENCH_CUDA
namespace {
// cuFFT of CUDA 11-13 (libcufft.so.10-12) with its libcudart, loaded at run time.
struct Cufft : cuda::Library {
  int (*plan_many)(int*, int, int*, int*, int, int, int*, int, int, int, int) = nullptr;
  int (*exec_c2c)(int, void*, void*, int) = nullptr;
  int (*destroy)(int) = nullptr;
  Cufft() : cuda::Library(cuda::open_library(cuda::kCufftSonames)) {
    if (!problem.empty()) return;
    bind(plan_many, "cufftPlanMany");
    bind(exec_c2c, "cufftExecC2C");
    bind(destroy, "cufftDestroy");
  }
};
const Cufft& cufft() {
  static const Cufft* c = new Cufft;
  return *c;
}

std::string cufft_result(int r) {
  static const char* const names[] = {"CUFFT_SUCCESS",      "CUFFT_INVALID_PLAN",  "CUFFT_ALLOC_FAILED",
                                      "CUFFT_INVALID_TYPE", "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR",
                                      "CUFFT_EXEC_FAILED",  "CUFFT_SETUP_FAILED",  "CUFFT_INVALID_SIZE"};
  return (r >= 0 && r < 9 ? std::string(names[r]) + " " : std::string()) + "(" + std::to_string(r) + ")";
}

// cuFFT on the same input as clforge (read back from `in`): out-of-place forward C2C of the
// contiguous batch on the default stream, checked on sampled transforms, timed with cudaEvents.
}  // namespace

Record run_cufft(Session& s, const cl::Buffer& in, const FftCase& c, const TimingPlan& plan) {
  Record r = make_record("cuFFT", c);
  r.status = cuda::refusal(s.entry.info, cuda::kCufftSonames, cufft);
  if (!r.status.empty()) return r;
  const Cufft& cf = cufft();
  if (c.n > 0x7fffffff || c.batch > 0x7fffffff) {
    r.status = "refused: n or batch does not fit cufftPlanMany's int";
    return r;
  }
  const std::size_t bytes = c.n * c.batch * 8;
  std::vector<float> x(2 * c.n * c.batch);
  detail::check(s.queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, x.data()), "clEnqueueReadBuffer");
  const cuda::Runtime& rt = *cf.runtime;
  cuda::DeviceBuffer din(rt, bytes), dout(rt, bytes);
  if (!din.upload(x.data(), bytes) || !dout.poison(bytes)) {
    r.status = "refused: cudaMalloc/cudaMemcpy of " + std::to_string(bytes) + " bytes failed";
    return r;
  }
  int handle = 0, n = static_cast<int>(c.n);
  const int planned =
      cf.plan_many(&handle, 1, &n, nullptr, 1, n, nullptr, 1, n, 0x29 /* CUFFT_C2C */, static_cast<int>(c.batch));
  if (planned != 0) {
    r.status = "refused: cufftPlanMany returned " + cufft_result(planned);
    return r;
  }
  const auto exec = [&] {
    const int e = cf.exec_c2c(handle, din.get(), dout.get(), -1 /* CUFFT_FORWARD */);
    if (e != 0) throw Error("cufftExecC2C returned " + cufft_result(e));
  };
  try {
    exec();
    if (rt.device_synchronize() != 0) throw Error("cudaDeviceSynchronize failed");
    r.error = sampled_error(c, [&](std::size_t b, float* xb, float* yb) {
      std::memcpy(xb, x.data() + 2 * b * c.n, c.n * 8);
      if (!dout.download(yb, c.n * 8, b * c.n * 8)) throw Error("cudaMemcpy failed");
    });
    r.timing = cuda::time_events(rt, exec, plan);
    r.status = "ok (cudaEvent timing, " + cf.from + ")";
  } catch (const Error& e) {
    r.status = std::string("failed: ") + e.what();
  }
  cf.destroy(handle);
  return r;
}
#endif

}  // namespace clforge::bench
