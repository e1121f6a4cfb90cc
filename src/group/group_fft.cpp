// Group FFT (clforge/group.hpp): the batch split in chunks of transforms; each device runs a
// chunk on an out-of-place FftPlan of `chunk` transforms, or of chunk / 2^k for a short chunk
// (plan_items), and brings back only the chunk's own transforms. A CPU device without staging
// transforms its chunks where they are, in the caller's arrays (compute_in_host_memory).
#include "clforge/fft.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/plan_keys.hpp"

namespace clforge {

namespace {

class FftTask : public detail::ChunkTask {
 public:
  FftTask(cl::CommandQueue& queue, std::size_t n, std::size_t chunk, const char* in, char* out, bool inverse,
          const Tuning& tuning)
      : plans_(queue, tuning, [n](std::size_t b) { return desc(n, b); }),
        in_place_(queue, tuning,
                  [n](std::size_t b) {
                    FftDesc d = desc(n, b);
                    d.in_place = true;
                    return d;
                  }),
        bytes_(n * 8),
        chunk_(chunk),
        in_(in),
        out_(out),
        inverse_(inverse) {
    plans_.get(chunk);
  }

  std::vector<std::size_t> slot_buffers() const override { return {chunk_ * bytes_, chunk_ * bytes_}; }
  void inputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    v.push_back({const_cast<char*>(in_) + first * bytes_, count * bytes_, 1, 0, 0, 0, 0});
  }
  void outputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    v.push_back({out_ + first * bytes_, count * bytes_, 1, 0, 1, 0, 0});
  }
  bool compute_in_host_memory(cl::CommandQueue& queue, const cl::Context& context, std::size_t first, std::size_t count,
                              cl::Event* done) override {
    // The chunk's transforms where they are: a plan of exactly `count` transforms on buffers over
    // the caller's arrays; mapping the output then makes the result visible in host memory.
    const std::size_t bytes = count * bytes_;
    char* in = const_cast<char*>(in_) + first * bytes_;
    char* out = out_ + first * bytes_;
    const cl::Buffer bi = detail::host_buffer(context, in == out ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY, bytes, in);
    cl::Buffer bo = bi;
    if (in == out) {
      const FftPlan& plan = in_place_.get(count);
      if (inverse_)
        plan.inverse(queue, bi, bi);
      else
        plan.forward(queue, bi, bi);
    } else {
      bo = detail::host_buffer(context, CL_MEM_WRITE_ONLY, bytes, out);
      const FftPlan& plan = plans_.get(count);
      if (inverse_)
        plan.inverse(queue, bi, bo);
      else
        plan.forward(queue, bi, bo);
    }
    detail::sync_to_host(queue, bo, bytes, done);
    return true;
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t, std::size_t count) override {
    const FftPlan& plan = plans_.get(detail::plan_items(chunk_, count));
    if (inverse_)
      plan.inverse(queue, b[0], b[1]);
    else
      plan.forward(queue, b[0], b[1]);
  }

 private:
  static FftDesc desc(std::size_t n, std::size_t chunk) {
    FftDesc d;
    d.n = n;
    d.batch = chunk;
    return d;
  }
  detail::PlansBySize<FftPlan, FftDesc> plans_, in_place_;
  std::size_t bytes_, chunk_;
  const char* in_;
  char* out_;
  bool inverse_;
};

}  // namespace

GroupRun fft(const DeviceGroup& group, std::size_t n, std::size_t batch, const std::complex<float>* in,
             std::complex<float>* out, bool inverse, const SplitOptions& options) {
  const char* what = "group fft";
  detail::require(n > 0 && batch > 0, what, "n and batch must be at least 1");
  detail::require(in != nullptr && out != nullptr, what, "null input or output");
  const std::size_t elems = detail::mul_or_throw(n, batch, what, "n * batch");
  const std::size_t bytes = detail::mul_or_throw(elems, 8, what, "n * batch * 8 bytes");
  const auto* i0 = reinterpret_cast<const char*>(in);
  const auto* o0 = reinterpret_cast<const char*>(out);
  detail::require(i0 == o0 || !detail::ranges_overlap(
                                  reinterpret_cast<std::uintptr_t>(i0), reinterpret_cast<std::uintptr_t>(i0) + bytes,
                                  reinterpret_cast<std::uintptr_t>(o0), reinterpret_cast<std::uintptr_t>(o0) + bytes),
                  what, "input and output overlap without being the same array");
  const Tuning tuning = options.tuning;
  detail::GroupJob job;
  job.routine = "fft";
  job.size_class = "n=" + std::to_string(n);
  job.items = batch;
  job.item_bytes = n * 8;
  job.make_task = [&](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
    return std::make_unique<FftTask>(queue, n, chunk, i0, reinterpret_cast<char*>(out), inverse, tuning);
  };
  return detail::run_group_job(group, job, options);
}

std::vector<std::complex<float>> fft(cl::CommandQueue& queue, const std::vector<std::complex<float>>& x, std::size_t n,
                                     bool inverse, const Tuning& tuning) {
  const char* what = "fft";
  detail::require(n >= 1, what, "n must be at least 1 (got 0)");
  detail::require(!x.empty() && x.size() % n == 0, what, [&] {
    return "host vector holds " + std::to_string(x.size()) +
           " elements, not a positive multiple of n = " + std::to_string(n);
  });
  // The pipeline of a one-device group on the queue's device: chunks through pinned staging,
  // upload, transform and download overlapped.
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights = {1.0};
  o.tuning = tuning;
  std::vector<std::complex<float>> y(x.size());
  fft(detail::queue_group(queue), n, x.size() / n, x.data(), y.data(), inverse, o);
  return y;
}

}  // namespace clforge
