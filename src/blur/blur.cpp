// Gaussian blur entry points: the free functions check every argument, then run a BlurPlan
// from a bounded per-process cache (names and tuning spaces in blur_specs.cpp, resolution in
// blur_resolve.cpp, the plan in blur_plan.cpp and blur_steps.cpp; docs/blur.md has the design).
#include "clforge/blur.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "blur/blur_design.hpp"
#include "blur/blur_internal.hpp"
#include "blur/blur_plan_impl.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/plan_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {
namespace {

// The plan of a description from the process's plan cache. Every argument was checked by the
// caller.
std::shared_ptr<const BlurPlan> cached_blur_plan(const QueueContext& qc, const BlurDesc& d, const Tuning& tuning) {
  return cached_plan<BlurPlan>(tuning_fingerprint(*qc.info, tuning), d, qc.context(), qc.device(),
                               [&] { return BlurPlanAccess::make(qc, d, tuning); });
}

}  // namespace
}  // namespace detail

BlurMethod gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                         const ImageRef& in, const ImageRef& out, const BlurOptions& options,
                         const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  // Every argument is checked before a plan is looked up or built (the plan's constructor
  // checks what depends on the resolution, also before it builds anything).
  check_blur_request(width, height, format, options, tuning);
  require(in.pitch >= width, kBlurRoutine, [&] {
    return "in.pitch (" + std::to_string(in.pitch) + ") is smaller than the width (" + std::to_string(width) + ")";
  });
  require(out.pitch >= width, kBlurRoutine, [&] {
    return "out.pitch (" + std::to_string(out.pitch) + ") is smaller than the width (" + std::to_string(width) + ")";
  });
  require(queue() != nullptr, kBlurRoutine, "null command queue");
  BlurDesc d = blur_desc(width, height, format, options);
  d.in_offset = in.offset;
  d.in_pitch = in.pitch;
  d.out_offset = out.offset;
  d.out_pitch = out.pitch;
  const QueueContext qc = queue_context_of(queue);
  check_blur_buffers(d, qc.context, in.buffer, out.buffer, d.height);
  const auto plan = cached_blur_plan(qc, d, tuning);
  BlurPlanAccess::impl(*plan).run(queue, in.buffer, out.buffer, wait_list, event);  // checked above, same queue
  return plan->method();
}

BlurDesc blur_desc(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options) {
  BlurDesc d;
  d.width = width;
  d.height = height;
  d.format = format;
  d.sigma_x = options.sigma_x;
  d.sigma_y = options.sigma_y;
  d.border = options.border;
  d.method = options.method;
  return d;
}

void check_blur_arguments(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                          const Tuning& tuning) {
  detail::check_blur_request(width, height, format, options, tuning);
}

std::size_t blur_halo_rows(BlurMethod method, double sigma_y) {
  if (method != BlurMethod::Recursive) return static_cast<std::size_t>(detail::gaussian_radius(sigma_y));
  // The slowest pole of the cascade (a real pole p1 and a complex pair of modulus sqrt(-c2))
  // sets the decay of the impulse response: rho^h <= 2^-30.
  const detail::RecursiveGaussian g = detail::recursive_gaussian(sigma_y);
  const double rho = std::max(g.p1, std::sqrt(std::max(0.0, -g.c2)));
  return static_cast<std::size_t>(std::ceil(30 * std::log(2.0) / -std::log(rho))) + 1;
}

BlurMethod resolve_blur_method(const cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                               double sigma_x, double sigma_y, const Tuning& tuning) {
  BlurOptions o;
  o.sigma_x = sigma_x;
  o.sigma_y = sigma_y;
  return detail::blur_route(*detail::queue_context_of(queue).info, width, height, format, o, tuning).method;
}

}  // namespace clforge
