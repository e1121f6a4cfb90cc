// Group FFT (clforge/group.hpp): the batch split in chunks of transforms; each device runs a
// chunk on an out-of-place FftPlan of `chunk` transforms, or of chunk / 2^k for a short chunk
// (plan_items), and brings back only the chunk's own transforms. A CPU device without staging
// transforms its chunks where they are, in the caller's arrays (compute_in_host_memory).
#include "clforge/fft.hpp"
#include "clforge/group.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/plan_keys.hpp"

namespace clforge {

namespace {

FftDesc fft_desc(std::size_t n, std::size_t batch, bool in_place) {
  FftDesc d;
  d.n = n;
  d.batch = batch;
  d.in_place = in_place;
  return d;
}

// A device's FFT plans by chunk size, out of place and in place.
struct FftWork : detail::DeviceWork {
  FftWork(cl::CommandQueue& queue, std::size_t n, std::size_t chunk, const Tuning& tuning)
      : n(n),
        plans(queue, tuning, [n](std::size_t b) { return fft_desc(n, b, false); }),
        in_place(queue, tuning, [n](std::size_t b) { return fft_desc(n, b, true); }) {
    plans.get(chunk);
  }
  std::unique_ptr<detail::ChunkTask> task(std::size_t chunk, const detail::HostData& data) override;

  std::size_t n;
  detail::PlansBySize<FftPlan, FftDesc> plans, in_place;
};

class FftTask : public detail::ChunkTask {
 public:
  FftTask(FftWork& work, std::size_t chunk, const detail::HostData& data)
      : work_(work),
        bytes_(work.n * 8),
        chunk_(chunk),
        in_(static_cast<const char*>(data.a)),
        out_(static_cast<char*>(data.out)),
        direction_(data.inverse ? FftDirection::Inverse : FftDirection::Forward) {
    work_.plans.get(chunk);
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
      work_.in_place.get(count).enqueue(queue, direction_, bi, bi);
    } else {
      bo = detail::host_buffer(context, CL_MEM_WRITE_ONLY, bytes, out);
      work_.plans.get(count).enqueue(queue, direction_, bi, bo);
    }
    detail::sync_to_host(queue, bo, bytes, done);
    return true;
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t, std::size_t count) override {
    work_.plans.get(detail::plan_items(chunk_, count)).enqueue(queue, direction_, b[0], b[1]);
  }

 private:
  FftWork& work_;
  std::size_t bytes_, chunk_;
  const char* in_;
  char* out_;
  FftDirection direction_;
};

std::unique_ptr<detail::ChunkTask> FftWork::task(std::size_t chunk, const detail::HostData& data) {
  return std::make_unique<FftTask>(*this, chunk, data);
}

}  // namespace

struct GroupFftPlan::Impl {
  std::size_t n, batch, bytes;
  detail::GroupPlanCore core;
};

namespace {

// The job's host bytes (n and batch checked).
std::size_t fft_bytes(std::size_t n, std::size_t batch) {
  const char* what = "group fft";
  detail::require(n > 0 && batch > 0, what, "n and batch must be at least 1");
  const std::size_t elems = detail::mul_or_throw(n, batch, what, "n * batch");
  return detail::mul_or_throw(elems, 8, what, "n * batch * 8 bytes");
}

detail::HostData bind(std::size_t bytes, FftDirection direction, const std::complex<float>* in,
                      std::complex<float>* out) {
  detail::HostData data = detail::in_out_data("group fft", bytes, in, out, true);
  detail::require(direction == FftDirection::Forward || direction == FftDirection::Inverse, "group fft",
                  "unknown direction");
  data.inverse = direction == FftDirection::Inverse;
  return data;
}

}  // namespace

GroupFftPlan::GroupFftPlan(const DeviceGroup& group, std::size_t n, std::size_t batch, const SplitOptions& options) {
  const std::size_t bytes = fft_bytes(n, batch);
  const Tuning tuning = options.tuning;
  detail::GroupJob job;
  job.routine = "fft";
  job.size_class = "n=" + std::to_string(n);
  job.items = batch;
  job.item_bytes = n * 8;
  job.make_work = [n, tuning](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
    return std::make_unique<FftWork>(queue, n, chunk, tuning);
  };
  impl_ = std::make_shared<const Impl>(Impl{n, batch, bytes, detail::GroupPlanCore(group, std::move(job), options)});
}

GroupRun GroupFftPlan::execute(FftDirection direction, const std::complex<float>* in, std::complex<float>* out) const {
  return impl_->core.execute(bind(impl_->bytes, direction, in, out));
}

GroupRun GroupFftPlan::forward(const std::complex<float>* in, std::complex<float>* out) const {
  return execute(FftDirection::Forward, in, out);
}

GroupRun GroupFftPlan::inverse(const std::complex<float>* in, std::complex<float>* out) const {
  return execute(FftDirection::Inverse, in, out);
}

std::size_t GroupFftPlan::n() const { return impl_->n; }
std::size_t GroupFftPlan::batch() const { return impl_->batch; }

GroupRun fft(const DeviceGroup& group, std::size_t n, std::size_t batch, const std::complex<float>* in,
             std::complex<float>* out, bool inverse, const SplitOptions& options) {
  const FftDirection direction = inverse ? FftDirection::Inverse : FftDirection::Forward;
  bind(fft_bytes(n, batch), direction, in, out);  // the arrays checked before the plan builds anything
  return GroupFftPlan(group, n, batch, options).execute(direction, in, out);
}

std::vector<std::complex<float>> fft(cl::CommandQueue& queue, const std::vector<std::complex<float>>& x, std::size_t n,
                                     bool inverse, const Tuning& tuning) {
  const char* what = "fft";
  detail::require(n >= 1, what, "n must be at least 1 (got 0)");
  detail::require(!x.empty() && x.size() % n == 0, what, [&] {
    return "host vector holds " + std::to_string(x.size()) +
           " elements, not a positive multiple of n = " + std::to_string(n);
  });
  // A one-device group plan on the queue's device (no split, no calibration): chunks through
  // pinned staging, upload, transform and download overlapped, on this thread.
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights = {1.0};
  o.tuning = tuning;
  std::vector<std::complex<float>> y(x.size());
  GroupFftPlan(detail::queue_group(queue), n, x.size() / n, o)
      .execute(inverse ? FftDirection::Inverse : FftDirection::Forward, x.data(), y.data());
  return y;
}

}  // namespace clforge
