// clFFT as a peer of `clforge bench fft` (built when CLFORGE_HAVE_CLFFT): one out-of-place
// forward plan per case, timed between marker kernels like clforge.
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

}  // namespace

Record run_clfft(Session& s, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c, const TimingPlan& plan) {
  Record r = make_record("clFFT", c);
  clfftPlanHandle h = 0;
  std::size_t len[1] = {c.n};
  auto fail = [&](const char* what, clfftStatus st) {
    r.status = std::string("refused: ") + what + " returned " + clfft_status_name(st) + " (" + std::to_string(st) + ")";
  };
  clfftStatus st = clfftCreateDefaultPlan(&h, s.context(), CLFFT_1D, len);
  if (st != CLFFT_SUCCESS) {
    fail("clfftCreateDefaultPlan", st);
    return r;
  }
  std::size_t dist = c.n;
  clfftSetPlanPrecision(h, CLFFT_SINGLE);
  clfftSetLayout(h, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
  clfftSetResultLocation(h, CLFFT_OUTOFPLACE);
  clfftSetPlanBatchSize(h, c.batch);
  clfftSetPlanDistance(h, dist, dist);
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
    poison_buffer(s.queue, out, c.n * c.batch * 8);
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
