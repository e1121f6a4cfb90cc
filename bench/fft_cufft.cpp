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
  int (*exec_r2c)(int, void*, void*) = nullptr;
  int (*destroy)(int) = nullptr;
  Cufft() : cuda::Library(cuda::open_library(cuda::kCufftSonames)) {
    if (!problem.empty()) return;
    bind(plan_many, "cufftPlanMany");
    bind(exec_c2c, "cufftExecC2C");
    bind(exec_r2c, "cufftExecR2C");
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

// cufftPlanMany of a case: rank 1 to 3 with the lengths slowest first (cuFFT's order, as
// clforge's), the basic (contiguous) layout (null embeds; R2C: real rows of n_last floats,
// complex rows of n_last/2 + 1 values), C2C or R2C; 0 or the cufftResult.
int cufft_plan_case(const Cufft& cf, int* handle, const FftCase& c) {
  int dims[3] = {0, 0, 0};
  for (std::size_t k = 0; k < c.shape.size(); ++k) dims[k] = static_cast<int>(c.shape[k]);
  const int rank = static_cast<int>(c.shape.size()), batch = static_cast<int>(c.batch);
  const int idist = static_cast<int>(c.points());  // real or complex elements
  const int odist = static_cast<int>(c.out_floats() / 2);
  const int type = c.real ? 0x2a /* CUFFT_R2C */ : 0x29 /* CUFFT_C2C */;
  return cf.plan_many(handle, rank, dims, nullptr, 1, idist, nullptr, 1, odist, type, batch);
}

// cuFFT on the same input as clforge (read back from `in`): out-of-place forward C2C or R2C
// (1 to 3 axes) of the contiguous batch on the default stream, checked on sampled transforms,
// timed with cudaEvents.
}  // namespace

Record run_cufft(Session& s, const cl::Buffer& in, const FftCase& c, const TimingPlan& plan) {
  Record r = make_record("cuFFT", c);
  r.status = cuda::refusal(s.entry.info, cuda::kCufftSonames, cufft);
  if (!r.status.empty()) return r;
  const Cufft& cf = cufft();
  if (c.points() > 0x7fffffff || c.batch > 0x7fffffff) {
    r.status = "refused: a length or the batch does not fit cufftPlanMany's int";
    return r;
  }
  const std::size_t in_bytes = c.in_bytes(), out_bytes = c.out_bytes();
  const std::size_t ib = 4 * c.in_floats(), ob = 4 * c.out_floats();  // per transform
  std::vector<float> x(c.in_floats() * c.batch);
  detail::check(s.queue.enqueueReadBuffer(in, CL_TRUE, 0, in_bytes, x.data()), "clEnqueueReadBuffer");
  const cuda::Runtime& rt = *cf.runtime;
  cuda::DeviceBuffer din(rt, in_bytes), dout(rt, out_bytes);
  if (!din.upload(x.data(), in_bytes) || !dout.poison(out_bytes)) {
    r.status = "refused: cudaMalloc/cudaMemcpy of " + std::to_string(in_bytes + out_bytes) + " bytes failed";
    return r;
  }
  int handle = 0;
  const int planned = cufft_plan_case(cf, &handle, c);
  if (planned != 0) {
    r.status = "refused: cufftPlanMany returned " + cufft_result(planned);
    return r;
  }
  const auto exec = [&] {
    const int e = c.real ? cf.exec_r2c(handle, din.get(), dout.get())
                         : cf.exec_c2c(handle, din.get(), dout.get(), -1 /* CUFFT_FORWARD */);
    if (e != 0) throw Error(std::string(c.real ? "cufftExecR2C" : "cufftExecC2C") + " returned " + cufft_result(e));
  };
  try {
    exec();
    if (rt.device_synchronize() != 0) throw Error("cudaDeviceSynchronize failed");
    r.error = sampled_error(c, [&](std::size_t b, float* xb, float* yb) {
      std::memcpy(xb, x.data() + b * c.in_floats(), ib);
      if (!dout.download(yb, ob, b * ob)) throw Error("cudaMemcpy failed");
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
