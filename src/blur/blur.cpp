// Gaussian blur entry points: the free functions check every argument, then run a BlurPlan
// from a bounded per-process cache (names and tuning spaces in blur_specs.cpp, resolution in
// blur_resolve.cpp, the plan in blur_plan.cpp and blur_steps.cpp; docs/blur.md has the design).
#include "clforge/blur.hpp"

#include <cstring>

#include "blur/blur_plan_impl.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/plan_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {
namespace {

const char* const kRoutine = "gaussian_blur";

// The plan of a description from the process's plan cache. Every argument was checked by the
// caller.
std::shared_ptr<const BlurPlan> cached_blur_plan(const QueueContext& qc, const BlurDesc& d, const Tuning& tuning) {
  return cached_plan<BlurPlan>(tuning_fingerprint(*qc.info, tuning), d, qc.context(), qc.device(),
                               [&] { return BlurPlanAccess::make(qc, d, tuning); });
}

}  // namespace

BlurDesc desc_of(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& o) {
  BlurDesc d;
  d.width = width;
  d.height = height;
  d.format = format;
  d.sigma_x = o.sigma_x;
  d.sigma_y = o.sigma_y;
  d.border = o.border;
  d.method = o.method;
  return d;
}

}  // namespace detail

BlurMethod gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                         const ImageRef& in, const ImageRef& out, const BlurOptions& options,
                         const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  const char* R = kRoutine;
  // Every argument is checked before a plan is looked up or built (the plan's constructor
  // checks what depends on the resolution, also before it builds anything).
  check_blur_request(width, height, format, options, tuning);
  require(in.pitch >= width, R, [&] {
    return "in.pitch (" + std::to_string(in.pitch) + ") is smaller than the width (" + std::to_string(width) + ")";
  });
  require(out.pitch >= width, R, [&] {
    return "out.pitch (" + std::to_string(out.pitch) + ") is smaller than the width (" + std::to_string(width) + ")";
  });
  require(queue() != nullptr, R, "null command queue");
  BlurDesc d = desc_of(width, height, format, options);
  d.in_offset = in.offset;
  d.in_pitch = in.pitch;
  d.out_offset = out.offset;
  d.out_pitch = out.pitch;
  const QueueContext qc = queue_context_of(queue);
  check_blur_buffers(d, qc.context, in.buffer, out.buffer);
  const auto plan = cached_blur_plan(qc, d, tuning);
  BlurPlanAccess::impl(*plan).run(queue, in.buffer, out.buffer, wait_list, event);  // checked above, same queue
  return plan->method();
}

BlurMethod resolve_blur_method(const cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                               double sigma_x, double sigma_y, const Tuning& tuning) {
  BlurOptions o;
  o.sigma_x = sigma_x;
  o.sigma_y = sigma_y;
  return detail::blur_route(*detail::queue_context_of(queue).info, width, height, format, o, tuning).method;
}

}  // namespace clforge
