// Benchmark harness shared by every `clforge bench` command: event timing (single kernel, or
// a region between two marker kernels so multi-kernel peers are timed whole; the library's
// src/runtime/timing.hpp, which the tuner uses too), statistics, and the result report
// (JSON, CSV, table) with device identity.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/opencl.hpp"
#include "runtime/timing.hpp"

namespace clforge::bench {

// Timing lives in the library (src/runtime/timing.hpp, also used by the tuner); the
// benchmarks use the same code under their own names.
using Timing = detail::Timing;
using TimingPlan = detail::TimingPlan;
using detail::summarize;
using detail::time_event;
using detail::time_region;
using detail::time_regions;

/// One measurement row of a report.
struct Record {
  std::string routine;        ///< "transpose", "sgemm", "peak", ...
  std::string library;        ///< "clforge", "CLBlast", "clFFT", "VkFFT", "cuBLAS", ...
  std::string shape;          ///< "8192x8192", "n=1024 batch=8192", ...
  std::string status = "ok";  ///< "ok", "refused: ...", "failed: ..."
  Timing timing;
  double bytes = 0;                                  ///< bytes moved (read + written) by one run, for GB/s
  double flops = 0;                                  ///< flops of one run, for GFLOP/s
  double error = -1;                                 ///< relative error against the host reference (-1: not checked)
  nlohmann::json params = nlohmann::json::object();  ///< parameters and their sources
  /// A record of `routine` by `library` on `shape`, nothing measured yet.
  static Record of(std::string routine, std::string library, std::string shape) {
    Record r;
    r.routine = std::move(routine);
    r.library = std::move(library);
    r.shape = std::move(shape);
    return r;
  }
  double gbps() const { return timing.median_ms > 0 ? bytes / timing.median_ms / 1e6 : 0; }
  double gflops() const { return timing.median_ms > 0 ? flops / timing.median_ms / 1e6 : 0; }
};

/// Results of one bench command on one device.
class Report {
 public:
  explicit Report(const DeviceInfo& device);
  void add(Record r);
  const std::vector<Record>& records() const { return records_; }
  nlohmann::json to_json() const;
  /// One row per record (the device column first); header: with the column names line.
  std::string to_csv(bool header = true) const;
  /// Fixed-width table: shape, library, median ms, GB/s, GFLOP/s, error, ratio to clforge.
  std::string to_table() const;
  /// Writes <path>.json / .csv when path ends in neither, else the named format.
  void write(const std::string& path) const;
  const DeviceInfo& device() const { return device_; }

 private:
  DeviceInfo device_;
  std::vector<Record> records_;
};

/// Numeric size key of a record, derived from its shape string, for ordering and plotting:
/// transpose "RxC" -> R*C elements, sgemm "MxNxK[ XX]" -> (M*N*K)^(1/3), fft "n=N batch=B" -> N,
/// blur "WxH s=S" -> W*H pixels, anything else -> the number the shape starts with (0: none).
double size_key(const Record& r);

/// The current time as UTC ISO 8601 ("2026-11-22T10:04:05Z").
std::string utc_now_iso();

/// Identity of a device as JSON (used in reports and tuning notes).
nlohmann::json device_json(const DeviceInfo& d);

/// A buffer filled with random floats in [-1, 1) (never zeros), written blocking.
cl::Buffer random_buffer(const cl::Context& ctx, cl::CommandQueue& queue, std::size_t floats, std::uint64_t seed);

/// Prints progress lines to stderr ("[3/12] transpose 8192x8192 clforge ... 0.21 ms").
void progress(const std::string& line);
/// Text put before every progress line from now on ("[device 1/2] "; empty: none).
void set_progress_prefix(const std::string& prefix);

}  // namespace clforge::bench
