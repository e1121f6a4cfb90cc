// `clforge bench all`: on each selected device, the peak probes and then every routine's
// benchmark against its peers (bench/routines.hpp), each routine isolated so that a failure
// becomes a "failed: ..." record; the results go to one folder as results.json, results.csv,
// report.md and SVG charts. `clforge bench compare` reads two such results and flags regressions.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "bench/routines.hpp"

namespace clforge::bench {

/// The routines bench all runs, in this order.
const std::vector<std::string>& all_routines();

/// Options of bench all.
struct AllResults;

struct AllOptions {
  std::vector<std::string> devices;  ///< {"all"}, or selectors as Session accepts them; empty: default_device
  std::string default_device;        ///< the global --device (empty: CLFORGE_DEVICE, else the first GPU)
  std::map<std::string, std::vector<std::string>> sizes;  ///< routine -> its sizes; absent: its (quick) list
  BenchOptions base;                                      ///< quick, tuning and timing plan shared by every routine
  BlurBenchOptions blur;
  std::string command_line;  ///< recorded in results.json and report.md
  /// Called with the results so far after each device (the CLI writes its files there, so
  /// a run stopped on a later device keeps complete results of the earlier ones).
  std::function<void(const AllResults&)> after_device;
};

/// Adds "ROUTINE:SIZE" (e.g. "sgemm:1024:NT", "fft:1024x64") to sizes; throws InvalidArgument
/// naming the text when ROUTINE is not one of all_routines().
void add_routine_size(std::map<std::string, std::vector<std::string>>& sizes, const std::string& text);

/// One device's results.
struct DeviceRun {
  explicit DeviceRun(const DeviceInfo& d) : report(d) {}
  Report report;  ///< peak probes first, then every routine's records
  Peaks peaks;
  double seconds = 0;
};

struct AllResults {
  std::string clforge_version, date, command_line;
  bool quick = false;
  std::vector<DeviceRun> devices;
};

/// Runs everything on every selected device, printing progress to stderr. Selectors are all
/// resolved first: one that matches no device throws UnsupportedDevice before anything runs.
/// A routine (or the peak probes) that throws leaves a record with status "failed: <what>".
AllResults run_all(const AllOptions& opt);

/// results.json: version, date, command line and per device its identity, driver, peer
/// library versions, peaks and every record (median, min, max, spread, size, params).
nlohmann::json results_json(const AllResults& r);
/// results.csv: the columns of Report::to_csv, one row per record of every device.
std::string results_csv(const AllResults& r);
/// report.md: per device a peaks table and per routine a table against the peers and peaks.
std::string report_markdown(const AllResults& r);
/// The SVG charts as (file name, document) pairs; report_markdown links the same names.
std::vector<std::pair<std::string, std::string>> report_charts(const AllResults& r);
/// Writes all of the above into dir (created when missing); returns the paths written.
std::vector<std::string> write_results(const AllResults& r, const std::string& dir);

/// Peer libraries and their versions: build-time versions of CLBlast, clFFT and VkFFT,
/// OpenBLAS's own config string when it loads, the CUDA version and sonames of cuBLAS and cuFFT
/// when they load, "not built" / "not found (...)" / "unknown" otherwise.
nlohmann::json peer_versions();

/// The regression rule of compare: the new median is slower than the old by more than
/// max(floor, spread of the old run, spread of the new run), spread = (max - min) / median.
struct CompareOptions {
  double floor = 0.02;
};
/// Compares two results (results.json of bench all, or the JSON of one `bench ROUTINE --out`),
/// matching records by (device name, routine, library, shape); prints every match with
/// new/old median time and throughput, regressions, and records found in one file only.
/// Returns 1 when any regression is flagged, else 0. Throws Error naming the file when one
/// cannot be read or is not such a JSON document.
int compare_results(const std::string& old_path, const std::string& new_path, std::ostream& out,
                    const CompareOptions& opt = {});

}  // namespace clforge::bench
