// Benchmark harness (see harness.hpp).
#include "bench/harness.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
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

double size_key(const Record& r) {
  // Leading unsigned numbers separated by 'x': "8192x512x8192 NT" -> {8192, 512, 8192}.
  auto dims = [](const std::string& text, std::size_t pos) {
    std::vector<double> v;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      std::size_t end = pos;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      v.push_back(std::stod(text.substr(pos, end - pos)));
      if (end >= text.size() || text[end] != 'x') break;
      pos = end + 1;
    }
    return v;
  };
  const std::string& s = r.shape;
  if (r.routine == "fft") {
    const auto n = s.find("n=");
    const auto v = n == std::string::npos ? std::vector<double>{} : dims(s, n + 2);
    return v.empty() ? 0 : v[0];
  }
  const std::vector<double> v = dims(s, 0);
  if (v.empty()) return 0;
  if (r.routine == "sgemm" && v.size() == 3) return std::round(std::cbrt(v[0] * v[1] * v[2]) * 1000) / 1000;
  if ((r.routine == "transpose" || r.routine == "blur") && v.size() == 2) return v[0] * v[1];
  if ((r.routine == "transpose" || r.routine == "blur") && v.size() == 1) return v[0] * v[0];
  return v[0];
}

std::string utc_now_iso() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return date;
}

Report::Report(const DeviceInfo& device) : device_(device) {}

void Report::add(Record r) { records_.push_back(std::move(r)); }

nlohmann::json Report::to_json() const {
  nlohmann::json j;
  j["clforge_version"] = version_string;
  j["date"] = utc_now_iso();
  j["device"] = device_json(device_);
  j["measurements"] = nlohmann::json::array();
  for (const auto& r : records_) {
    j["measurements"].push_back({{"routine", r.routine},
                                 {"library", r.library},
                                 {"shape", r.shape},
                                 {"size", size_key(r)},
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

namespace {
// A quoted CSV field: inner quotes doubled, line breaks flattened so each record stays one row.
std::string csv_text(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"')
      o += "\"\"";
    else if (ch == '\n' || ch == '\r')
      o += ' ';
    else
      o += ch;
  }
  return o + '"';
}
}  // namespace

std::string Report::to_csv(bool header) const {
  std::ostringstream o;
  o.precision(10);
  if (header)
    o << "device,routine,library,shape,status,median_ms,min_ms,max_ms,reps,gbps,gflops,error,spread,bytes,flops,size\n";
  for (const auto& r : records_) {
    o << csv_text(device_.name) << ',' << csv_text(r.routine) << ',' << csv_text(r.library) << ',' << csv_text(r.shape)
      << ',' << csv_text(r.status) << ',' << r.timing.median_ms << ',' << r.timing.min_ms << ',' << r.timing.max_ms
      << ',' << r.timing.reps << ',' << r.gbps() << ',' << r.gflops() << ',' << r.error << ',' << r.timing.spread()
      << ',' << r.bytes << ',' << r.flops << ',' << size_key(r) << '\n';
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
    if (r.error >= 0)
      std::snprintf(err, sizeof err, "%.2e", r.error);
    else
      std::snprintf(err, sizeof err, "-");
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

namespace {
std::string& progress_prefix() {
  static std::string p;
  return p;
}
}  // namespace

void progress(const std::string& line) { std::cerr << progress_prefix() << line << std::endl; }

void set_progress_prefix(const std::string& prefix) { progress_prefix() = prefix; }

}  // namespace clforge::bench
