// clFFT as a peer of `clforge bench fft` (built when CLFORGE_HAVE_CLFFT): one out-of-place
// forward plan per case (complex, or real to Hermitian interleaved, 1-D to 3-D), timed between
// marker kernels like clforge.
#include "clforge/fft.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bench/fft_peers.hpp"
#include "host/data.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"
#if CLFORGE_HAVE_CLFFT
#include <clFFT.h>
#endif

namespace clforge::bench {

#if CLFORGE_HAVE_CLFFT
namespace {
const char* clfft_status_name(clfftStatus s) {
  switch (s) {
    case CLFFT_SUCCESS:
      return "ok";
    case CLFFT_NOTIMPLEMENTED:
      return "CLFFT_NOTIMPLEMENTED";
    case CLFFT_INVALID_PLAN:
      return "CLFFT_INVALID_PLAN";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED:
      return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    default:
      return "clFFT error";
  }
}

// The layout of a case on a plan: clFFT lists lengths and strides fastest axis first; the
// rows contiguous (a real row of n_last floats, its Hermitian row of n_last/2 + 1 complex
// values, so the slower axes' strides differ between input and output).
void clfft_set_layout(clfftPlanHandle h, const FftCase& c) {
  const std::size_t rank = c.shape.size();
  const clfftDim dim = rank == 1 ? CLFFT_1D : rank == 2 ? CLFFT_2D : CLFFT_3D;
  const std::size_t out_last = c.real ? c.shape.back() / 2 + 1 : c.shape.back();
  std::size_t in_strides[3] = {1, 1, 1}, out_strides[3] = {1, 1, 1};
  for (std::size_t k = 1; k < rank; ++k) {
    in_strides[k] = in_strides[k - 1] * c.shape[rank - k];
    out_strides[k] = out_strides[k - 1] * (k == 1 ? out_last : c.shape[rank - k]);
  }
  clfftSetPlanPrecision(h, CLFFT_SINGLE);
  if (c.real)
    clfftSetLayout(h, CLFFT_REAL, CLFFT_HERMITIAN_INTERLEAVED);
  else
    clfftSetLayout(h, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
  clfftSetResultLocation(h, CLFFT_OUTOFPLACE);
  clfftSetPlanInStride(h, dim, in_strides);
  clfftSetPlanOutStride(h, dim, out_strides);
  clfftSetPlanBatchSize(h, c.batch);
  clfftSetPlanDistance(h, c.points(), c.out_floats() / 2);  // real or complex elements in, complex out
}

}  // namespace

Record run_clfft(Session& s, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c, const TimingPlan& plan) {
  Record r = make_record("clFFT", c);
  clfftPlanHandle h = 0;
  const std::size_t rank = c.shape.size();
  std::size_t len[3] = {1, 1, 1};
  for (std::size_t k = 0; k < rank; ++k) len[k] = c.shape[rank - 1 - k];
  auto fail = [&](const char* what, clfftStatus st) {
    r.status = std::string("refused: ") + what + " returned " + clfft_status_name(st) + " (" + std::to_string(st) + ")";
  };
  clfftStatus st = clfftCreateDefaultPlan(&h, s.context(), rank == 1 ? CLFFT_1D : rank == 2 ? CLFFT_2D : CLFFT_3D, len);
  if (st != CLFFT_SUCCESS) {
    fail("clfftCreateDefaultPlan", st);
    return r;
  }
  clfft_set_layout(h, c);
  cl_command_queue q = s.queue();
  st = clfftBakePlan(h, 1, &q, nullptr, nullptr);
  if (st != CLFFT_SUCCESS) {
    fail("clfftBakePlan", st);
    clfftDestroyPlan(&h);
    return r;
  }
  std::size_t tmp_bytes = 0;
  clfftGetTmpBufSize(h, &tmp_bytes);
  cl::Buffer tmp;
  if (tmp_bytes > 0) tmp = cl::Buffer(s.context, CL_MEM_READ_WRITE, tmp_bytes);
  cl_mem bin = in(), bout = out();
  auto enqueue = [&] {
    const clfftStatus e =
        clfftEnqueueTransform(h, CLFFT_FORWARD, 1, &q, 0, nullptr, nullptr, &bin, &bout, tmp_bytes ? tmp() : nullptr);
    if (e != CLFFT_SUCCESS) throw Error(std::string("clfftEnqueueTransform: ") + clfft_status_name(e));
  };
  try {
    poison_buffer(s.queue, out, c.out_bytes());
    enqueue();
    detail::check(s.queue.finish(), "clFinish");
    r.error = sampled_error(s.queue, in, out, c);
    r.timing = time_region(s.queue, enqueue, plan);
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  clfftDestroyPlan(&h);
  return r;
}
#endif

}  // namespace clforge::bench
