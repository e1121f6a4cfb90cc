// `clforge bench overhead`: what a repeated small call costs the host. Each case enqueues the
// same call back to back (kCalls per round, five rounds, medians) and records, side by side:
// the host's time per call, the device span per call (END of the first call's last command to
// END of the last call's, over kCalls - 1 calls), the commands the call enqueues, the driver's
// time for those launches alone, and the host time per call beyond them. The launches alone are
// the call's own kernel launches, recorded (detail::LaunchRecorder) and replayed back to back
// in each round right after the calls: the same kernel objects, the same clSetKernelArg
// bindings the call made, the same ranges and events, through the OpenCL C API only.
// Everything else the call does (checks, plan lookup, argument names and shadows, chains,
// leases) is "beyond the launches". The cost of one empty kernel's enqueue is kept beside it as
// the floor of any launch. A small call whose host time reaches its device span is host-bound.
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "bench/routines.hpp"
#include "clforge/clforge.hpp"
#include "host/data.hpp"
#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/program_cache.hpp"

namespace clforge::bench {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCalls = 200;
constexpr int kRounds = 5;

double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Cost {
  double host_us = 0, span_us = 0, launches = 0, replay_us = 0;
};

// `call(event)` enqueues one call; event is non-null on the first and last call of a round.
Cost measure(cl::CommandQueue& q, const std::function<void(cl::Event*)>& call) {
  call(nullptr);  // builds and caches
  std::vector<detail::RecordedLaunch> launches;
  const auto before_one = detail::activity().enqueued;
  {
    detail::LaunchRecorder recorder;
    call(nullptr);
    launches = recorder.launches();
  }
  const auto commands = detail::activity().enqueued - before_one;
  if (commands != launches.size())
    throw Error("bench overhead: a call enqueued " + std::to_string(commands) + " commands but launched " +
                std::to_string(launches.size()) + " kernels; the replay would not match it");
  q.finish();
  std::vector<double> host, span, replay;
  for (int r = 0; r < kRounds; ++r) {
    cl::Event first, last;
    const auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) call(i == 0 ? &first : i == kCalls - 1 ? &last : nullptr);
    host.push_back(us_since(t0) / kCalls);
    q.finish();
    cl_ulong a = 0, b = 0;
    first.getProfilingInfo(CL_PROFILING_COMMAND_END, &a);
    last.getProfilingInfo(CL_PROFILING_COMMAND_END, &b);
    span.push_back(static_cast<double>(b - a) * 1e-3 / (kCalls - 1));
    const auto t1 = Clock::now();
    for (int i = 0; i < kCalls; ++i) detail::replay_launches(q, launches);
    replay.push_back(us_since(t1) / kCalls);
    q.finish();
  }
  return {median(host), median(span), static_cast<double>(commands), median(replay)};
}

// Host cost of enqueueing one empty kernel (the floor of any launch).
double launch_cost_us(Session& s) {
  cl::Program p(s.context, "__kernel void clf_empty(__global int* x) {}");
  p.build();
  static const detail::KernelSignature sig{"clf_empty", {"x"}};
  cl::Kernel k(p, sig.kernel);
  cl::Buffer b(s.context, CL_MEM_READ_WRITE, 64);
  detail::Args(k, sig).buffer("x", b).finish();
  std::vector<double> per;
  for (int r = 0; r < kRounds; ++r) {
    s.queue.finish();
    const auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
    per.push_back(us_since(t0) / kCalls);
  }
  s.queue.finish();
  return median(per);
}

}  // namespace

void bench_overhead(Session& s, Report& report) {
  cl::CommandQueue& q = s.queue;
  const double launch_us = launch_cost_us(s);
  auto add = [&](const std::string& shape, const Cost& c) {
    Record r = Record::of("overhead", "clforge", shape);
    r.timing.median_ms = r.timing.min_ms = r.timing.max_ms = r.timing.q1_ms = r.timing.q3_ms = c.host_us * 1e-3;
    r.timing.reps = kRounds;
    r.params["host_us_per_call"] = c.host_us;
    r.params["device_span_us_per_call"] = c.span_us;
    r.params["commands_per_call"] = c.launches;
    r.params["launches_alone_us_per_call"] = c.replay_us;
    r.params["host_us_beyond_launches"] = c.host_us - c.replay_us;
    r.params["empty_launch_us"] = launch_us;
    r.params["host_us_beyond_empty_launches"] = c.host_us - c.launches * launch_us;
    report.add(r);
  };
  const std::size_t n = 64;
  const std::vector<float> data = host::random_floats(4 * n * n, 1);
  cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * 4, const_cast<float*>(data.data()));
  cl::Buffer b(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * 4, const_cast<float*>(data.data()));
  cl::Buffer c(s.context, CL_MEM_READ_WRITE, data.size() * 4);
  add("transpose 64x64", measure(q, [&](cl::Event* ev) { transpose(q, n, n, 4, {a, 0, n}, {c, 0, n}, {}, ev); }));
  add("sgemm 64x64x64", measure(q, [&](cl::Event* ev) {
        sgemm(q, Layout::ColMajor, Transpose::No, Transpose::No, n, n, n, 1.0f, {a, 0, n}, {b, 0, n}, 0.0f, {c, 0, n},
              {}, ev);
      }));
  FftDesc d;
  d.n = 64;
  d.batch = 16;
  const FftPlan plan(q, d);
  add("fft n=64 batch=16", measure(q, [&](cl::Event* ev) { plan.forward(a, c, {}, ev); }));
  // A multi-pass plan (65536 points are passes on every shipped row): each execution leases its
  // scratch from the workspace pool.
  FftDesc dp;
  dp.n = 65536;
  const FftPlan passes(q, dp);
  const std::vector<float> long_data = host::random_floats(2 * dp.n, 2);
  cl::Buffer la(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, long_data.size() * 4,
                const_cast<float*>(long_data.data()));
  cl::Buffer lc(s.context, CL_MEM_READ_WRITE, long_data.size() * 4);
  add("fft n=65536 batch=1 (passes)", measure(q, [&](cl::Event* ev) { passes.forward(la, lc, {}, ev); }));
  for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive}) {
    BlurOptions o;
    o.sigma_x = o.sigma_y = 2;
    o.method = m;
    add(std::string("blur 64x64 ") + to_string(m), measure(q, [&](cl::Event* ev) {
          gaussian_blur(q, n, n, PixelFormat::R32F, {a, 0, n}, {c, 0, n}, o, {}, ev);
        }));
  }
}

}  // namespace clforge::bench
