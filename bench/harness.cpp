// Benchmark harness (see harness.hpp).
#include "bench/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "clforge/errors.hpp"
#include "clforge/version.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "runtime/util.hpp"

namespace clforge::bench {

Timing summarize(std::vector<double> s) {
  Timing t;
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  t.reps = static_cast<int>(s.size());
  t.min_ms = s.front();
  t.max_ms = s.back();
  t.median_ms = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  return t;
}

namespace {

double event_ms(const cl::Event& start, const cl::Event& end) {
  cl_ulong a = 0, b = 0;
  detail::check(start.getProfilingInfo(CL_PROFILING_COMMAND_START, &a), "clGetEventProfilingInfo");
  detail::check(end.getProfilingInfo(CL_PROFILING_COMMAND_END, &b), "clGetEventProfilingInfo");
  return static_cast<double>(b - a) * 1e-6;
}

template <typename RunOnce>
Timing repeat(cl::CommandQueue& queue, const TimingPlan& plan, RunOnce run_once) {
  for (int i = 0; i < plan.warmup; ++i) run_once();
  detail::check(queue.finish(), "clFinish");
  std::vector<double> samples;
  double total = 0;
  while (static_cast<int>(samples.size()) < plan.max_reps &&
         (static_cast<int>(samples.size()) < plan.min_reps || total < plan.min_time_ms)) {
    const double ms = run_once();
    samples.push_back(ms);
    total += ms;
  }
  return summarize(samples);
}

// A marker kernel per context: one work-item writing one int.
struct Marker {
  cl::Kernel kernel;
  cl::Buffer buffer;
};
Marker& marker_for(cl::CommandQueue& queue) {
  static std::mutex m;
  static std::map<cl_context, Marker> markers;
  std::lock_guard<std::mutex> lock(m);
  const cl::Context ctx = detail::queue_context(queue);
  auto it = markers.find(ctx());
  if (it != markers.end()) return it->second;
  const char* src = "__kernel void clf_marker(__global int* p) { p[0] = 1; }";
  cl::Program prog(ctx, src, false);
  const cl::Device dev = detail::queue_device(queue);
  detail::check(prog.build(std::vector<cl::Device>{dev}), "clBuildProgram", "marker kernel");
  Marker mk{cl::Kernel(prog, "clf_marker"), cl::Buffer(ctx, CL_MEM_READ_WRITE, 64)};
  mk.kernel.setArg(0, mk.buffer);
  return markers.emplace(ctx(), mk).first->second;
}

}  // namespace

Timing time_event(cl::CommandQueue& queue, const std::function<cl::Event()>& enqueue, const TimingPlan& plan) {
  return repeat(queue, plan, [&] {
    cl::Event e = enqueue();
    detail::check(e.wait(), "clWaitForEvents");
    return event_ms(e, e);
  });
}

Timing time_region(cl::CommandQueue& queue, const std::function<void()>& enqueue, const TimingPlan& plan) {
  Marker& mk = marker_for(queue);
  return repeat(queue, plan, [&] {
    cl::Event a, b;
    detail::check(queue.enqueueNDRangeKernel(mk.kernel, cl::NullRange, cl::NDRange(1), cl::NDRange(1), nullptr, &a),
                  "clEnqueueNDRangeKernel", "marker");
    enqueue();
    detail::check(queue.enqueueNDRangeKernel(mk.kernel, cl::NullRange, cl::NDRange(1), cl::NDRange(1), nullptr, &b),
                  "clEnqueueNDRangeKernel", "marker");
    detail::check(b.wait(), "clWaitForEvents");
    return event_ms(a, b);
  });
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"platform", d.platform_name},
          {"platform_version", d.platform_version},
          {"vendor", d.vendor},
          {"vendor_class", d.vendor_key()},
          {"type", d.type},
          {"architecture", d.architecture},
          {"driver", d.driver_version},
          {"compute_units", d.compute_units},
          {"max_clock_mhz", d.max_clock_mhz},
          {"local_mem_bytes", d.local_mem_size},
          {"global_mem_bytes", d.global_mem_size},
          {"max_work_group_size", d.max_work_group_size}};
}

Report::Report(const DeviceInfo& device) : device_(device) {}

void Report::add(Record r) { records_.push_back(std::move(r)); }

nlohmann::json Report::to_json() const {
  nlohmann::json j;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["clforge_version"] = version_string;
  j["date"] = date;
  j["device"] = device_json(device_);
  j["measurements"] = nlohmann::json::array();
  for (const auto& r : records_) {
    j["measurements"].push_back({{"routine", r.routine},
                                 {"library", r.library},
                                 {"shape", r.shape},
                                 {"status", r.status},
                                 {"median_ms", r.timing.median_ms},
                                 {"min_ms", r.timing.min_ms},
                                 {"max_ms", r.timing.max_ms},
                                 {"spread", r.timing.spread()},
                                 {"reps", r.timing.reps},
                                 {"bytes", r.bytes},
                                 {"flops", r.flops},
                                 {"gbps", r.gbps()},
                                 {"gflops", r.gflops()},
                                 {"error", r.error},
                                 {"params", r.params}});
  }
  return j;
}

std::string Report::to_csv() const {
  std::ostringstream o;
  o << "device,routine,library,shape,status,median_ms,min_ms,max_ms,reps,gbps,gflops,error\n";
  for (const auto& r : records_) {
    o << '"' << device_.name << "\"," << r.routine << ',' << r.library << ",\"" << r.shape << "\",\"" << r.status
      << "\"," << r.timing.median_ms << ',' << r.timing.min_ms << ',' << r.timing.max_ms << ',' << r.timing.reps << ','
      << r.gbps() << ',' << r.gflops() << ',' << r.error << '\n';
  }
  return o.str();
}

std::string Report::to_table() const {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "%-12s %-28s %-10s %11s %10s %10s %10s  %s\n", "routine", "shape", "library",
                "median ms", "GB/s", "GFLOP/s", "rel err", "status");
  o << "device: " << device_.name << " (" << device_.platform_name << ", driver " << device_.driver_version << ")\n"
    << line;
  for (const auto& r : records_) {
    char err[32];
    if (r.error >= 0) std::snprintf(err, sizeof err, "%.2e", r.error);
    else std::snprintf(err, sizeof err, "-");
    std::snprintf(line, sizeof line, "%-12s %-28s %-10s %11.4f %10.1f %10.1f %10s  %s\n", r.routine.c_str(),
                  r.shape.c_str(), r.library.c_str(), r.timing.median_ms, r.gbps(), r.gflops(), err, r.status.c_str());
    o << line;
  }
  return o.str();
}

void Report::write(const std::string& path) const {
  auto ends_with = [&](const char* s) {
    const std::string e(s);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends_with(".json")) {
    detail::write_file_atomic(path, to_json().dump(2) + "\n");
  } else if (ends_with(".csv")) {
    detail::write_file_atomic(path, to_csv());
  } else {
    detail::write_file_atomic(path + ".json", to_json().dump(2) + "\n");
    detail::write_file_atomic(path + ".csv", to_csv());
  }
}

cl::Buffer random_buffer(const cl::Context& ctx, cl::CommandQueue& queue, std::size_t floats, std::uint64_t seed) {
  std::vector<float> host = host::random_floats(floats, seed);
  cl_int st = CL_SUCCESS;
  cl::Buffer b(ctx, CL_MEM_READ_WRITE, floats * sizeof(float), nullptr, &st);
  detail::check(st, "clCreateBuffer", "benchmark input of " + std::to_string(floats * 4) + " bytes");
  detail::check(queue.enqueueWriteBuffer(b, CL_TRUE, 0, floats * sizeof(float), host.data()), "clEnqueueWriteBuffer");
  return b;
}

void progress(const std::string& line) {
  std::cerr << line << std::endl;
}

}  // namespace clforge::bench
