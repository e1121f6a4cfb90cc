// Benchmark harness (see harness.hpp): device identity, records as JSON and CSV (values not
// measured as null / empty fields), provenance, the report's files. Progress is in progress.cpp.
#include "bench/harness.hpp"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <sstream>
#include <thread>

#include "clforge/errors.hpp"
#include "clforge/version.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "runtime/files.hpp"

namespace clforge::bench {

Timing time_host(const std::function<void()>& run, const TimingPlan& plan) {
  int calls = 1;
  const auto once = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) run();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / calls;
    if (calls == 1) calls = detail::region_calls(plan, ms);
    return ms;
  };
  return detail::sample_runs(plan, {once}).front();
}

int host_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
    double points = v.empty() ? 0 : 1;
    for (double d : v) points *= d;
    return points;
  }
  const std::vector<double> v = dims(s, 0);
  if (v.empty()) return 0;
  if (r.routine == "sgemm" && v.size() == 3) return std::round(std::cbrt(v[0] * v[1] * v[2]) * 1000) / 1000;
  if ((r.routine == "transpose" || r.routine == "blur") && v.size() == 2) return v[0] * v[1];
  if ((r.routine == "transpose" || r.routine == "blur") && v.size() == 1) return v[0] * v[0];
  return v[0];
}

std::string fft_kind(const Record& r) {
  if (r.routine != "fft") return "";
  for (const char* kind : {"real 2-D", "real 3-D", "real", "2-D", "3-D"})
    if (r.shape.rfind(std::string(kind) + " ", 0) == 0) return kind;
  return "";
}

std::string utc_now_iso() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return date;
}

double Record::spread() const {
  if (!measured()) return 0;
  double s = std::max(0.0, timing.q3_ms - timing.q1_ms) / timing.median_ms;
  if (round_medians_ms.size() >= 2) {
    const auto [lo, hi] = std::minmax_element(round_medians_ms.begin(), round_medians_ms.end());
    s = std::max(s, (*hi - *lo) / timing.median_ms);
  }
  return s;
}

Provenance provenance() {
  static const Provenance p = [] {
    Provenance v;
    v.clforge_version = version_string;
    v.commit = build_commit();
    char host[256] = {};
    v.host = gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
    struct utsname u {};
    v.os = uname(&u) == 0 ? std::string(u.sysname) + " " + u.release + " " + u.version + " " + u.machine : "unknown";
    return v;
  }();
  return p;
}

namespace {

nlohmann::json number_or_null(bool present, double v) {
  return present && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::optional<double> number_of(const nlohmann::json& m, const char* key) {
  const auto it = m.find(key);
  if (it == m.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The version of the library a record measured: clforge's own (blur records name a method),
// a peer's from peer_versions(), nothing for the peak probes and libraries it does not know.
std::string library_version(const Record& r, const nlohmann::json& peers) {
  if (r.routine == "peak") return "";
  if (r.library == "clforge" || r.routine == "blur" || r.routine == "overhead") return version_string;
  const auto it = peers.find(r.library);
  return it != peers.end() && it->is_string() ? it->get<std::string>() : "";
}

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

// A CSV number, or an empty field when it was not measured.
std::string csv_number(bool present, double v) {
  if (!present || !std::isfinite(v)) return "";
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

}  // namespace

nlohmann::json record_json(const Record& r) {
  const bool t = r.measured();
  return {{"routine", r.routine},
          {"library", r.library},
          {"shape", r.shape},
          {"size", size_key(r)},
          {"status", r.status},
          {"median_ms", number_or_null(t, r.timing.median_ms)},
          {"min_ms", number_or_null(t, r.timing.min_ms)},
          {"max_ms", number_or_null(t, r.timing.max_ms)},
          {"q1_ms", number_or_null(t, r.timing.q1_ms)},
          {"q3_ms", number_or_null(t, r.timing.q3_ms)},
          {"round_medians_ms", t ? nlohmann::json(r.round_medians_ms) : nlohmann::json(nullptr)},
          {"reps", t ? nlohmann::json(r.timing.reps) : nlohmann::json(nullptr)},
          {"spread", number_or_null(t, r.spread())},
          {"bytes", r.bytes},
          {"flops", r.flops},
          {"gbps", number_or_null(t && r.bytes > 0, r.gbps())},
          {"gflops", number_or_null(t && r.flops > 0, r.gflops())},
          {"error", number_or_null(r.error_checked(), r.error)},
          {"params", r.params}};
}

Record record_from_json(const nlohmann::json& m) {
  Record r = Record::of(m.at("routine").get<std::string>(), m.at("library").get<std::string>(),
                        m.at("shape").get<std::string>());
  const auto status = m.find("status");
  if (status != m.end() && status->is_string()) r.status = status->get<std::string>();
  const std::optional<double> median = number_of(m, "median_ms");
  if (median && *median > 0) {
    Timing& t = r.timing;
    t.median_ms = *median;
    t.min_ms = number_of(m, "min_ms").value_or(t.median_ms);
    t.max_ms = number_of(m, "max_ms").value_or(t.median_ms);
    t.q1_ms = number_of(m, "q1_ms").value_or(t.min_ms);
    t.q3_ms = number_of(m, "q3_ms").value_or(t.max_ms);
    t.reps = std::max(1, static_cast<int>(number_of(m, "reps").value_or(1)));
    const auto rounds = m.find("round_medians_ms");
    if (rounds != m.end() && rounds->is_array())
      for (const auto& v : *rounds)
        if (v.is_number()) r.round_medians_ms.push_back(v.get<double>());
  }
  r.bytes = number_of(m, "bytes").value_or(0);
  r.flops = number_of(m, "flops").value_or(0);
  r.error = number_of(m, "error").value_or(-1);
  const auto params = m.find("params");
  if (params != m.end() && params->is_object()) r.params = *params;
  return r;
}

Report::Report(const DeviceInfo& device) : device_(device) {}

void Report::add(Record r) { records_.push_back(std::move(r)); }

nlohmann::json Report::to_json() const {
  const Provenance p = provenance();
  nlohmann::json j;
  j["clforge_version"] = p.clforge_version;
  j["commit"] = p.commit;
  j["host"] = p.host;
  j["os"] = p.os;
  j["date"] = utc_now_iso();
  j["device"] = device_json(device_);
  j["peers"] = peer_versions();
  j["measurements"] = nlohmann::json::array();
  for (const auto& r : records_) j["measurements"].push_back(record_json(r));
  return j;
}

std::string Report::to_csv(bool header) const {
  std::ostringstream o;
  o.precision(10);
  if (header)
    o << "device,routine,library,shape,status,median_ms,min_ms,max_ms,q1_ms,q3_ms,round_medians_ms,reps,gbps,gflops,"
         "error,spread,bytes,flops,size,library_version,driver,platform_version,clforge_version,commit,host,os\n";
  const Provenance p = provenance();
  const nlohmann::json peers = peer_versions();
  for (const auto& r : records_) {
    const bool t = r.measured();
    std::string rounds;
    for (double v : r.round_medians_ms) rounds += (rounds.empty() ? "" : ";") + csv_number(t, v);
    o << csv_text(device_.name) << ',' << csv_text(r.routine) << ',' << csv_text(r.library) << ',' << csv_text(r.shape)
      << ',' << csv_text(r.status) << ',' << csv_number(t, r.timing.median_ms) << ',' << csv_number(t, r.timing.min_ms)
      << ',' << csv_number(t, r.timing.max_ms) << ',' << csv_number(t, r.timing.q1_ms) << ','
      << csv_number(t, r.timing.q3_ms) << ',' << rounds << ',' << csv_number(t, r.timing.reps) << ','
      << csv_number(t && r.bytes > 0, r.gbps()) << ',' << csv_number(t && r.flops > 0, r.gflops()) << ','
      << csv_number(r.error_checked(), r.error) << ',' << csv_number(t, r.spread()) << ',' << r.bytes << ',' << r.flops
      << ',' << size_key(r) << ',' << csv_text(library_version(r, peers)) << ',' << csv_text(device_.driver_version)
      << ',' << csv_text(device_.platform_version) << ',' << csv_text(p.clforge_version) << ',' << csv_text(p.commit)
      << ',' << csv_text(p.host) << ',' << csv_text(p.os) << '\n';
  }
  return o.str();
}

std::string Report::to_table() const {
  std::ostringstream o;
  char line[512];
  // The shape column holds the default lists' longest label, "real 3-D n=256x256x256 batch=1".
  std::snprintf(line, sizeof line, "%-12s %-30s %-10s %11s %10s %10s %10s  %s\n", "routine", "shape", "library",
                "median ms", "GB/s", "GFLOP/s", "rel err", "status");
  o << "device: " << device_.name << " (" << device_.platform_name << ", driver " << device_.driver_version << ")\n"
    << line;
  const auto cell = [](bool present, const char* format, double v) {
    char b[32];
    if (present && std::isfinite(v))
      std::snprintf(b, sizeof b, format, v);
    else
      std::snprintf(b, sizeof b, "-");
    return std::string(b);
  };
  for (const auto& r : records_) {
    const bool t = r.measured();
    std::snprintf(line, sizeof line, "%-12s %-30s %-10s %11s %10s %10s %10s  %s\n", r.routine.c_str(), r.shape.c_str(),
                  r.library.c_str(), cell(t, "%.4f", r.timing.median_ms).c_str(),
                  cell(t && r.bytes > 0, "%.1f", r.gbps()).c_str(), cell(t && r.flops > 0, "%.1f", r.gflops()).c_str(),
                  cell(r.error_checked(), "%.2e", r.error).c_str(), r.status.c_str());
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

nlohmann::json params_json(const Configuration& cfg) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : cfg.values) j[k] = {{"value", v}, {"source", cfg.sources.at(k)}};
  return j;
}

std::pair<std::size_t, std::size_t> parse_shape(const std::string& s) {
  const auto x = s.find('x');
  if (x == std::string::npos) return {std::stoul(s), std::stoul(s)};
  return {std::stoul(s.substr(0, x)), std::stoul(s.substr(x + 1))};
}

}  // namespace clforge::bench
