// Event timing (see timing.hpp). Used by the tuner (library) and by bench/harness.
#include "runtime/timing.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "runtime/errors.hpp"
#include "runtime/launch.hpp"
#include "runtime/queue.hpp"

namespace clforge::detail {

Timing summarize(std::vector<double> s) {
  Timing t;
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  t.reps = static_cast<int>(s.size());
  t.min_ms = s.front();
  t.max_ms = s.back();
  t.median_ms = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  // Quartiles: linear interpolation at position q (n - 1) between the sorted samples.
  const auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(s.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
  };
  t.q1_ms = quantile(0.25);
  t.q3_ms = quantile(0.75);
  return t;
}

double event_ms(const cl::Event& start, const cl::Event& end) {
  cl_ulong a = 0, b = 0;
  check(start.getProfilingInfo(CL_PROFILING_COMMAND_START, &a), "clGetEventProfilingInfo");
  check(end.getProfilingInfo(CL_PROFILING_COMMAND_END, &b), "clGetEventProfilingInfo");
  return static_cast<double>(b - a) * 1e-6;
}

int region_calls(const TimingPlan& plan, double single_ms) {
  if (plan.region_ms <= 0 || !(single_ms > 0)) return 1;
  return static_cast<int>(std::clamp(std::ceil(plan.region_ms / single_ms), 1.0, 32.0));
}

std::vector<Timing> sample_runs(const TimingPlan& plan, const std::vector<std::function<double()>>& runs,
                                const std::function<void()>& settle) {
  const std::size_t n = runs.size();
  std::vector<bool> long_run(n, false);
  for (int w = 0; w < plan.warmup; ++w)
    for (std::size_t i = 0; i < n; ++i) {
      if (long_run[i]) continue;
      const double ms = runs[i]();
      long_run[i] = plan.long_run_ms > 0 && ms > plan.long_run_ms;
    }
  if (settle) settle();
  std::vector<std::vector<double>> samples(n);
  std::vector<double> total(n, 0), fastest(n, 0);
  std::vector<bool> cut(n, false);
  const int probe = std::min(3, plan.min_reps);
  const auto wants_more = [&](std::size_t i) {
    const int k = static_cast<int>(samples[i].size());
    if (cut[i]) return false;
    const int min_reps = long_run[i] ? probe : plan.min_reps;
    return k < plan.max_reps && (k < min_reps || total[i] < plan.min_time_ms);
  };
  for (int round = 0;; ++round) {
    bool any = false;
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = round % 2 ? n - 1 - j : j;
      if (!wants_more(i)) continue;
      const double ms = runs[i]();
      samples[i].push_back(ms);
      total[i] += ms;
      fastest[i] = samples[i].size() == 1 ? ms : std::min(fastest[i], ms);
      // The fastest sample only falls with more samples: one look after the probe decides.
      if (plan.give_up_ms > 0 && static_cast<int>(samples[i].size()) == probe && fastest[i] > plan.give_up_ms)
        cut[i] = true;
      any = true;
    }
    if (!any) break;
  }
  std::vector<Timing> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(summarize(std::move(samples[i])));
    out.back().cut_short = cut[i];
  }
  return out;
}

namespace {

// A marker kernel per context: one work-item writing one int.
struct Marker {
  cl::Kernel kernel;
  cl::Buffer buffer;
};
Marker& marker_for(cl::CommandQueue& queue) {
  static std::mutex m;
  static std::map<cl_context, Marker> markers;
  std::lock_guard<std::mutex> lock(m);
  const cl::Context ctx = queue_context(queue);
  auto it = markers.find(ctx());
  if (it != markers.end()) return it->second;
  const char* src = "__kernel void clf_marker(__global int* p) { p[0] = 1; }";
  cl::Program prog(ctx, src, false);
  const cl::Device dev = queue_device(queue);
  check(prog.build(std::vector<cl::Device>{dev}), "clBuildProgram", "marker kernel");
  static const KernelSignature sig{"clf_marker", {"p"}};
  Marker mk{cl::Kernel(prog, sig.kernel), cl::Buffer(ctx, CL_MEM_READ_WRITE, 64)};
  Args(mk.kernel, sig).buffer("p", mk.buffer).finish();
  return markers.emplace(ctx(), mk).first->second;
}

}  // namespace

Timing time_event(cl::CommandQueue& queue, const std::function<cl::Event()>& enqueue, const TimingPlan& plan) {
  return sample_runs(plan, {[&] {
                       cl::Event e = enqueue();
                       check(e.wait(), "clWaitForEvents");
                       return event_ms(e, e);
                     }},
                     [&] { check(queue.finish(), "clFinish"); })
      .front();
}

std::vector<Timing> time_regions(cl::CommandQueue& queue, const std::vector<std::function<void()>>& enqueues,
                                 const TimingPlan& plan) {
  Marker& mk = marker_for(queue);
  std::vector<std::function<double()>> runs;
  for (const auto& enqueue : enqueues) {
    // Calls per region: grows after the first (warm-up) region when plan.region_ms asks for it.
    runs.push_back([&mk, &queue, &plan, &enqueue, calls = 1]() mutable {
      cl::Event a, b;
      check(queue.enqueueNDRangeKernel(mk.kernel, cl::NullRange, cl::NDRange(1), cl::NDRange(1), nullptr, &a),
            "clEnqueueNDRangeKernel", "marker");
      for (int c = 0; c < calls; ++c) enqueue();
      check(queue.enqueueNDRangeKernel(mk.kernel, cl::NullRange, cl::NDRange(1), cl::NDRange(1), nullptr, &b),
            "clEnqueueNDRangeKernel", "marker");
      check(b.wait(), "clWaitForEvents");
      const double ms = event_ms(a, b) / calls;
      if (calls == 1) calls = region_calls(plan, ms);
      return ms;
    });
  }
  return sample_runs(plan, runs, [&] { check(queue.finish(), "clFinish"); });
}

Timing time_region(cl::CommandQueue& queue, const std::function<void()>& enqueue, const TimingPlan& plan) {
  return time_regions(queue, {enqueue}, plan).front();
}

}  // namespace clforge::detail
