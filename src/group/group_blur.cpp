// Group blur (clforge/group.hpp): bands of rows, each uploaded with the rows above and below
// that the filter reaches (its halo) and blurred as an image of its own; only the band's rows
// come back (a CPU device computes separable bands in the caller's memory instead, writing only
// the band's rows). Direct and separable reach r = ceil(3 sigma_y) rows, so a band's rows are computed
// from exactly the pixels the whole image's would be (bitwise equal). The recursive filter
// reaches infinitely far; its halo is where its impulse response has decayed below 2^-30 of
// its peak, and the band's edge rows enter as the filter's clamp border there.
#include "clforge/blur.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/plan_keys.hpp"

namespace clforge {

namespace detail {

std::size_t blur_halo_rows(BlurMethod m, double sigma_y) { return clforge::blur_halo_rows(m, sigma_y); }

}  // namespace detail

namespace {

// A device's blur plans by band height (bands differ at the image's top and bottom, and with
// their chunk's items).
struct BlurWork : detail::DeviceWork {
  BlurWork(cl::CommandQueue& queue, const BlurDesc& whole, std::size_t halo, std::size_t chunk, const Tuning& tuning)
      : whole(whole), halo(halo), plans(queue, tuning, [whole](std::size_t rows) {
          BlurDesc d = whole;
          d.height = rows;
          return d;
        }) {
    plans.get(std::min(whole.height, chunk + 2 * halo));  // the common band: arguments and kernels checked now
  }
  std::unique_ptr<detail::ChunkTask> task(std::size_t chunk, const detail::HostData& data) override;

  BlurDesc whole;
  std::size_t halo;
  detail::PlansBySize<BlurPlan, BlurDesc> plans;
};

class BlurTask : public detail::ChunkTask {
 public:
  BlurTask(BlurWork& work, std::size_t chunk, const detail::HostData& data)
      : w_(work),
        chunk_(chunk),
        px_(pixel_bytes(work.whole.format)),
        in_(static_cast<const char*>(data.a)),
        out_(static_cast<char*>(data.out)) {
    w_.plans.get(std::min(w_.whole.height, chunk + 2 * w_.halo));
  }

  std::vector<std::size_t> slot_buffers() const override {
    const std::size_t rows = std::min(w_.whole.height, chunk_ + 2 * w_.halo);
    return {rows * row(), rows * row()};
  }
  void inputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    const auto [r0, r1] = band(first, count);
    v.push_back({const_cast<char*>(in_) + r0 * row(), (r1 - r0) * row(), 1, 0, 0, 0, 0});
  }
  void outputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    const std::size_t r0 = band(first, count).first;
    v.push_back({out_ + first * row(), count * row(), 1, 0, 1, (first - r0) * row(), 0});
  }
  bool compute_in_host_memory(cl::CommandQueue& queue, const cl::Context& context, std::size_t first, std::size_t count,
                              cl::Event* done) override {
    // The band where it is: its plan reads the band's rows with their halo from the caller's
    // input and writes only the band's own rows into the caller's output (the halo rows there
    // belong to the neighbouring bands). The separable method of float images can.
    const auto [r0, r1] = band(first, count);
    const BlurPlan& p = w_.plans.get(r1 - r0);
    if (!p.writes_row_windows()) return false;
    const cl::Buffer bi =
        detail::host_buffer(context, CL_MEM_READ_ONLY, (r1 - r0) * row(), const_cast<char*>(in_) + r0 * row());
    const cl::Buffer bo = detail::host_buffer(context, CL_MEM_WRITE_ONLY, count * row(), out_ + first * row());
    p.enqueue_rows(queue, bi, bo, first - r0, count);
    detail::sync_to_host(queue, bo, count * row(), done);
    return true;
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t first,
               std::size_t count) override {
    const auto [r0, r1] = band(first, count);
    w_.plans.get(r1 - r0).enqueue(queue, b[0], b[1]);
  }

 private:
  std::size_t row() const { return w_.whole.width * px_; }
  std::pair<std::size_t, std::size_t> band(std::size_t first, std::size_t count) const {
    return {first > w_.halo ? first - w_.halo : 0, std::min(w_.whole.height, first + count + w_.halo)};
  }
  BlurWork& w_;
  std::size_t chunk_, px_;
  const char* in_;
  char* out_;
};

std::unique_ptr<detail::ChunkTask> BlurWork::task(std::size_t chunk, const detail::HostData& data) {
  return std::make_unique<BlurTask>(*this, chunk, data);
}

// The image's host bytes (the shape and options checked).
std::size_t blur_bytes(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options) {
  const char* what = "group gaussian_blur";
  detail::require(width > 0 && height > 0, what, "width and height must be at least 1");
  detail::require(format == PixelFormat::R32F || format == PixelFormat::RGBA32F || format == PixelFormat::RGBA8, what,
                  "unknown pixel format");
  for (double s : {options.sigma_x, options.sigma_y})
    detail::require(s > 0 && s <= 4096, what,
                    [&] { return "sigma must be in (0, 4096] (got " + std::to_string(s) + ")"; });
  return detail::mul_or_throw(detail::mul_or_throw(width, height, what, "width * height"), pixel_bytes(format), what,
                              "the image's bytes");
}

detail::HostData bind(std::size_t bytes, const void* in, void* out) {
  return detail::in_out_data("group gaussian_blur", bytes, in, out, false);
}

}  // namespace

struct GroupBlurPlan::Impl {
  std::size_t bytes;
  BlurMethod method;
  detail::GroupPlanCore core;
};

GroupBlurPlan::GroupBlurPlan(const DeviceGroup& group, std::size_t width, std::size_t height, PixelFormat format,
                             const BlurOptions& options, const SplitOptions& split) {
  const std::size_t bytes = blur_bytes(width, height, format, options);
  const Tuning tuning = split.tuning;
  BlurDesc whole = blur_desc(width, height, format, options);
  // One method for every device: Auto as the first device resolves it for the whole image.
  whole.method = options.method != BlurMethod::Auto ? options.method
                                                    : resolve_blur_method(group.queue(0), width, height, format,
                                                                          options.sigma_x, options.sigma_y, tuning);
  const std::size_t halo = blur_halo_rows(whole.method, options.sigma_y);
  detail::GroupJob job;
  job.routine = "blur";
  job.size_class = std::string(to_string(whole.method)) + " " + std::to_string(width) + "x" + std::to_string(height);
  job.items = height;
  job.item_bytes = width * pixel_bytes(format);
  job.min_chunk = std::min(height, 4 * halo);
  job.make_work = [whole, halo, tuning](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
    return std::make_unique<BlurWork>(queue, whole, halo, chunk, tuning);
  };
  impl_ = std::make_shared<const Impl>(Impl{bytes, whole.method, detail::GroupPlanCore(group, std::move(job), split)});
}

GroupRun GroupBlurPlan::execute(const void* in, void* out) const {
  return impl_->core.execute(bind(impl_->bytes, in, out));
}

BlurMethod GroupBlurPlan::method() const { return impl_->method; }

GroupRun gaussian_blur(const DeviceGroup& group, std::size_t width, std::size_t height, PixelFormat format,
                       const void* in, void* out, const BlurOptions& options, const SplitOptions& split) {
  bind(blur_bytes(width, height, format, options), in, out);  // the arrays checked before the plan builds anything
  return GroupBlurPlan(group, width, height, format, options, split).execute(in, out);
}

std::vector<float> gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, std::size_t channels,
                                 const std::vector<float>& in, const BlurOptions& options, const Tuning& tuning) {
  const char* what = "gaussian_blur";
  detail::require(channels == 1 || channels == 4, what,
                  [&] { return "channels must be 1 or 4 (got " + std::to_string(channels) + ")"; });
  const PixelFormat f = channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  check_blur_arguments(width, height, f, options, tuning);  // sizes, options, tuning, as gaussian_blur
  const std::size_t floats = detail::mul_or_throw(detail::mul_or_throw(width, height, what, "width * height"), channels,
                                                  what, "width * height * channels");
  detail::require(in.size() == floats, what, [&] {
    return "host vector holds " + std::to_string(in.size()) + " floats, width*height*channels is " +
           std::to_string(floats);
  });
  detail::require(queue() != nullptr, what, "null command queue");
  // A one-device group plan (no split, no calibration): bands through pinned staging, transfers
  // overlapped with the blur, on this thread.
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights = {1.0};
  o.tuning = tuning;
  std::vector<float> out(in.size());
  GroupBlurPlan(detail::queue_group(queue), width, height, f, options, o).execute(in.data(), out.data());
  return out;
}

}  // namespace clforge
