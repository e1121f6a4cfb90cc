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

/// Adds "ROUTINE:SIZE" (e.g. "sgemm:1024:NT", "fft:1024,batch=64") to sizes; throws InvalidArgument
/// naming the text when ROUTINE is not one of all_routines().
void add_routine_size(std::map<std::string, std::vector<std::string>>& sizes, const std::string& text);

/// One device's results.
struct DeviceRun {
  explicit DeviceRun(const DeviceInfo& d) : report(d) {}
  Report report;  ///< peak probes first, then every routine's records
  Peaks peaks;
  double seconds = 0;
  nlohmann::json peers;  ///< peer library versions of the run (null: this process's peer_versions())
};

struct AllResults {
  std::string clforge_version, date, command_line;
  Provenance provenance;  ///< version, commit, host and OS of the run
  bool quick = false;
  std::vector<DeviceRun> devices;
  /// With more than one device: one job on all of them (bench_split, routine "split <routine>"),
  /// the group described as DeviceGroup::describe() says.
  std::string split_group;
  std::vector<Record> split;
};

/// The split section of bench all on these devices: each routine's case (quick: small sizes) on
/// the group with the auto split, against each device alone and without overlap; a case that
/// throws leaves a "failed: ..." record. Adds to res.split.
void run_split_section(const std::vector<DeviceEntry>& entries, bool quick, AllResults& res);

/// Runs everything on every selected device, printing progress to stderr. Selectors are all
/// resolved first: one that matches no device throws UnsupportedDevice before anything runs.
/// A routine (or the peak probes) that throws leaves a record with status "failed: <what>".
AllResults run_all(const AllOptions& opt);

/// results.json: provenance (version, commit, host, OS), date, command line and per device its
/// identity, driver, platform version, peer library versions, peaks and every record
/// (record_json: values not measured are null).
nlohmann::json results_json(const AllResults& r);
/// The results of a results.json (results_from_json(results_json(r)) draws the same report and
/// charts as r). Throws Error when the document is not the results of bench all.
AllResults results_from_json(const nlohmann::json& doc);
/// results.csv: the columns of Report::to_csv, one row per record of every device.
std::string results_csv(const AllResults& r);
/// report.md: per device a peaks table and per routine a table against the peers and peaks.
std::string report_markdown(const AllResults& r);
/// The SVG charts as (file name, document) pairs; report_markdown links the same names.
std::vector<std::pair<std::string, std::string>> report_charts(const AllResults& r);
/// Writes all of the above into dir (created when missing); returns the paths written.
std::vector<std::string> write_results(const AllResults& r, const std::string& dir);
/// Writes report.md and the SVG charts only (`clforge bench report`); returns the paths written.
std::vector<std::string> write_report(const AllResults& r, const std::string& dir);

/// The rule of bench compare. Records are matched by (device name, routine, library, shape),
/// or with by_shape by (routine, library, shape) so that two devices compare. For a record
/// timed in both files, with ratio = new median / old median and
///   tolerance = max(floor, spread old + spread new),  spread as Record::spread(),
/// the verdict is "slower" when ratio > 1 + tolerance, "faster" when ratio < 1 / (1 + tolerance),
/// else "no change"; a record timed before and not now is "not timed now".
struct CompareOptions {
  double floor = 0.02;
  bool by_shape = false;
};

/// One matched pair of records.
struct CompareRow {
  enum class Verdict { NoChange, Faster, Slower, Lost, Gained, NotTimed };
  std::string old_device, new_device;
  Record old_record, new_record;
  double ratio = 0;      ///< new median / old median (0: not timed in both)
  double tolerance = 0;  ///< the rule's tolerance (0: not timed in both)
  Verdict verdict = Verdict::NotTimed;
  /// "no change", "faster 1.25x", "slower 1.20x", "not timed now (failed: ...)", ...
  std::string verdict_text() const;
};

/// Result of compare: the matched rows (in the order of the old file; the k-th duplicate of a
/// key matched with the k-th) and the records of one file only ("device / routine / library / shape").
struct Comparison {
  std::vector<CompareRow> rows;
  std::vector<std::string> only_old, only_new;
  /// Rows that are slower or no longer timed: what makes compare exit with status 1.
  int regressions() const;
};

/// Compares two results, each results.json of bench all or the JSON of one `bench ROUTINE --out`.
/// Throws Error (naming `what`) when a document is neither.
Comparison compare_json(const nlohmann::json& old_doc, const nlohmann::json& new_doc, const CompareOptions& opt = {},
                        const std::string& old_name = "old", const std::string& new_name = "new");
/// Reads two such files, prints the rule, every row (old and new median, new/old time, the
/// tolerance and the verdict), the records of one file only and a summary. Returns 1 when a
/// row is slower or no longer timed, else 0. Throws Error naming the file when one cannot be
/// read or is not such a JSON document.
int compare_results(const std::string& old_path, const std::string& new_path, std::ostream& out,
                    const CompareOptions& opt = {});
/// The rule in words, for the command's help and output.
std::string compare_rule(const CompareOptions& opt);

}  // namespace clforge::bench
