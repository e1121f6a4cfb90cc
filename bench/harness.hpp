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
#include "clforge/tuning.hpp"
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

/// One measurement row of a report. A value that was not measured (a refused or failed
/// record's times, an error that was not checked) is written as null in JSON and as an empty
/// field in CSV, never as 0.
struct Record {
  std::string routine;        ///< "transpose", "sgemm", "peak", ...
  std::string library;        ///< "clforge", "CLBlast", "clFFT", "VkFFT", "cuBLAS", ...
  std::string shape;          ///< "8192x8192", "n=1024 batch=8192", ...
  std::string status = "ok";  ///< "ok", "refused: ...", "failed: ..."
  Timing timing;              ///< reps 0: not timed
  /// The median of each round where a benchmark runs its libraries in rounds (fft): the record's
  /// median is the median of these. Empty: one round, the timing itself.
  std::vector<double> round_medians_ms;
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
  /// Whether the record holds a timing (whatever its status says of the result).
  bool measured() const { return timing.reps > 0 && timing.median_ms > 0; }
  /// Whether the error was checked (a finite value, 0 or more).
  bool error_checked() const { return error >= 0; }
  double gbps() const { return measured() ? bytes / timing.median_ms / 1e6 : 0; }
  double gflops() const { return measured() ? flops / timing.median_ms / 1e6 : 0; }
  /// The relative spread of the median, the tolerance unit of bench compare:
  /// max((q3 - q1) / median over the repetitions, (largest - smallest round median) / median);
  /// 0 when not measured.
  double spread() const;
};

/// Where and from what a result was measured: clforge's version and git commit, the host and
/// its operating system.
struct Provenance {
  std::string clforge_version;  ///< "0.1.0"
  std::string commit;           ///< the commit the bench was built from, "-dirty" appended with local changes
  std::string host;             ///< host name
  std::string os;               ///< uname: system, release, version, machine
};
/// The provenance of this process.
Provenance provenance();
/// The git commit of the sources this program was built from (embedded at build time;
/// "unknown" when built outside a git work tree).
const char* build_commit();

/// Results of one bench command on one device.
class Report {
 public:
  explicit Report(const DeviceInfo& device);
  void add(Record r);
  const std::vector<Record>& records() const { return records_; }
  /// Provenance, date, device, peer versions and every record (record_json).
  nlohmann::json to_json() const;
  /// One row per record (the device column first, the provenance and versions last);
  /// header: with the column names line.
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

/// A kernel's parameters as a record's params: {"NAME": {"value": V, "source": S}, ...}.
nlohmann::json params_json(const Configuration& cfg);

/// One record as JSON: what it is, status, the timing (median, min, max, quartiles, round
/// medians, reps, spread), bytes, flops, throughput, error and params; values not measured are null.
nlohmann::json record_json(const Record& r);
/// The record of record_json's JSON (and of older files, where missing quartiles are taken as
/// min and max). Throws nlohmann::json::exception when routine, library or shape is missing.
Record record_from_json(const nlohmann::json& j);

/// Peer libraries and their versions: build-time versions of CLBlast, clFFT and VkFFT,
/// FFTW's and OpenCV's version strings, OpenBLAS's own config string when it loads, the CUDA
/// version and sonames of cuBLAS, cuFFT and NPP when they load, "not built" / "not found (...)" / "unknown" otherwise.
nlohmann::json peer_versions();

/// Numeric size key of a record, derived from its shape string, for ordering and plotting:
/// transpose "RxC" -> R*C elements, sgemm "MxNxK[ XX]" -> (M*N*K)^(1/3), fft "[KIND ]n=N batch=B"
/// -> N (2-D, 3-D "n=NxM[xK]": the points N*M[*K]), blur "WxH s=S" -> W*H pixels, anything else
/// -> the number the shape starts with (0: none).
double size_key(const Record& r);
/// The kind of an fft record, from its shape's first words: "" (complex 1-D), "real" (1-D),
/// "2-D", "3-D", "real 2-D" or "real 3-D"; "" for other routines.
std::string fft_kind(const Record& r);

/// Times `run` (a host call that returns when its work is done) on the host clock with the
/// sampling of the device timers (detail::sample_runs): back-to-back calls per sample so that a
/// sample lasts about plan.region_ms, as time_region does. The host peers' timer (FFTW, OpenCV).
Timing time_host(const std::function<void()>& run, const TimingPlan& plan);

/// The CPUs this process may run on (its affinity mask), else the hardware threads: the
/// threads of the host peers (FFTW, OpenCV).
int host_threads();

/// The current time as UTC ISO 8601 ("2026-11-22T10:04:05Z").
std::string utc_now_iso();

/// Identity of a device as JSON (used in reports and tuning notes).
nlohmann::json device_json(const DeviceInfo& d);

/// A buffer filled with random floats in [-1, 1) (never zeros), written blocking.
cl::Buffer random_buffer(const cl::Context& ctx, cl::CommandQueue& queue, std::size_t floats, std::uint64_t seed);

/// Progress on stderr, counted in steps (a benchmark case: one shape, or one blur image, sigma
/// and method, against every library; the peak probes: one step). Each measurement's line
/// carries the step and an estimate of the time left, "[3/12, ETA 1m05s] ...", when there are
/// two steps or more. On a terminal the measurement lines replace each other on one line;
/// otherwise each is a line of its own.
/// A scope opens a count of `steps` when none is open and closes it when it goes; inside an
/// open count it adds nothing (bench all opens one over every device and routine, a single
/// bench command gets one from its routine).
class ProgressScope {
 public:
  explicit ProgressScope(std::size_t steps);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  bool owner_ = false;
};
/// The next step starts.
void progress_step();
/// Steps before `done` are over (a routine that stopped early leaves its remaining steps).
void progress_done(std::size_t done);
/// A measurement's line (see ProgressScope).
void progress(const std::string& line);
/// A line that stays on a terminal too (device and routine headers, failures).
void progress_note(const std::string& line);
/// Clears the updating line of a terminal before something else is printed there.
void progress_clear();
/// Text put before every progress line from now on ("[device 1/2] "; empty: none).
void set_progress_prefix(const std::string& prefix);
/// "1h02m", "3m05s", "42s": an ETA's text.
std::string duration_text(double seconds);

// "W" (square) or "WxH" as two sizes: the shapes of the transpose and blur benchmarks.
std::pair<std::size_t, std::size_t> parse_shape(const std::string& s);

}  // namespace clforge::bench
