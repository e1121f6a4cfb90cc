// `clforge bench all` (every routine against its peers on one or more devices, written to a
// results folder with report.md and SVG charts), `clforge bench report RESULTS.json --out DIR`
// (report.md and the charts drawn again from the results) and `clforge bench compare OLD.json
// NEW.json [--by shape]` (per record: no change, faster or slower). The work is in
// bench/bench_all.cpp and bench/compare.cpp.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/bench_all.hpp"
#include "clforge/errors.hpp"
#include "runtime/files.hpp"
#include "runtime/strings.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

struct AllArgs {
  std::string devices;
  std::vector<std::string> sizes;
  std::string out = "bench-results";
  bench::BlurBenchOptions blur;
  bool no_peers = false;
};

// The command line as typed (arguments with spaces or quotes quoted), for results.json.
std::string command_line() {
  const std::optional<std::string> raw = detail::read_file("/proc/self/cmdline");
  if (!raw || raw->empty()) return "clforge bench all";
  std::string out, arg;
  const auto flush = [&] {
    if (arg.find_first_of(" \t\"'") != std::string::npos) {
      std::string q = "'";
      for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      arg = q + "'";
    }
    out += (out.empty() ? "" : " ") + arg;
    arg.clear();
  };
  for (char c : *raw) {
    if (c == '\0')
      flush();
    else
      arg += c;
  }
  if (!arg.empty()) flush();
  return out;
}

void cmd_bench_all(Globals& g, const AllArgs& a) {
  bench::AllOptions o;
  std::string spec;
  for (char c : a.devices + ",") {
    if (c != ',') {
      spec += c;
      continue;
    }
    spec = detail::trim(spec);
    if (!spec.empty()) o.devices.push_back(spec);
    spec.clear();
  }
  o.default_device = g.device;
  int channels = 0;
  for (const auto& text : a.sizes) {
    const Size z = parse_routine_size(text);
    bench::add_routine_size(o.sizes, z.routine + ":" + bench_size(z));
    if (z.routine == "blur" && z.has_channels) {
      if (channels != 0 && channels != static_cast<int>(z.channels))
        throw UsageError("bench all: the blur sizes give different channels; the blur benchmark runs one count");
      channels = static_cast<int>(z.channels);
    }
  }
  o.base = g.bench_options();
  o.base.sizes.clear();
  o.base.peers = !a.no_peers;
  o.blur = a.blur;
  if (channels != 0) o.blur.channels = channels;
  o.command_line = command_line();

  o.after_device = [&a](const bench::AllResults& partial) { bench::write_results(partial, a.out); };
  const bench::AllResults res = bench::run_all(o);
  const std::vector<std::string> files = bench::write_results(res, a.out);
  for (std::size_t k = 0; k < res.devices.size(); ++k) {
    const auto& run = res.devices[k];
    int timed = 0, other = 0;
    for (const auto& r : run.report.records()) (r.status.rfind("ok", 0) == 0 ? timed : other)++;
    std::printf("device %zu/%zu \"%s\": %d measurements, %d not timed (refused, skipped or failed), %.1f s\n", k + 1,
                res.devices.size(), run.report.device().name.c_str(), timed, other, run.seconds);
  }
  std::printf("%zu files written to %s: results.json, results.csv, report.md and %zu SVG charts\n", files.size(),
              a.out.c_str(), files.size() - 3);
}

void register_bench_all(Apps& apps, Globals& g) {
  static AllArgs a;
  auto* all = apps.bench->add_subcommand(
      "all",
      "peaks and every routine (transpose, sgemm, fft, blur) against its peers on one or more devices; writes "
      "results.json, results.csv, report.md and SVG charts into --out");
  all->add_option("--devices", a.devices,
                  "'all', or a comma-separated list of device selectors (index, P:D, gpu, cpu, vendor or name "
                  "substring), e.g. nvidia,cpu or 0:0,1:0; default: --device, else the first GPU");
  all->add_flag("--quick", g.quick, "each routine's short size list and few repetitions (under 2 minutes on a GPU)");
  all->add_flag("--no-peers", a.no_peers,
                "clforge alone: no peer library runs (for comparisons that take the peers from another run, "
                "as tools/cold_start.py's default and tuned runs)");
  all->add_option("--size", a.sizes,
                  "ROUTINE:SIZE, repeatable; replaces that routine's size list; SIZE as in the routine's own "
                  "bench command (e.g. --size transpose:64 --size sgemm:1024,trans=NT --size fft:64,batch=16 "
                  "--size blur:1920x1080,channels=4)")
      ->check(routine_size_validator());
  add_out_option(all, a.out, "results.json, results.csv, report.md and SVG charts")->capture_default_str();
  all->add_option("--sigmas", a.blur.sigmas, "blur: sigmas (default 0.8,2,5,10,20; --quick 2,10)")->delimiter(',');
  all->add_option("--methods", a.blur.methods,
                  "blur: methods (default: direct, separable, recursive and the three recursive schemes)")
      ->delimiter(',');
  all->callback([&g] { cmd_bench_all(g, a); });

  static std::string results_path, report_out;
  auto* report = apps.bench->add_subcommand(
      "report",
      "draw report.md and the SVG charts again from the results.json of bench all (no device is used); "
      "results.json and results.csv are not written");
  report->add_option("results", results_path, "results.json of bench all")->required();
  report->add_option("--out", report_out, "output folder (created when missing)")->required();
  report->callback([] {
    const std::optional<std::string> text = detail::read_file(results_path);
    if (!text) throw Error("bench report: cannot read " + results_path);
    bench::AllResults res;
    try {
      res = bench::results_from_json(nlohmann::json::parse(*text));
    } catch (const nlohmann::json::exception& e) {
      throw Error("bench report: " + results_path + ": " + e.what());
    } catch (const Error& e) {
      throw Error("bench report: " + results_path + ": " + e.what());
    }
    const std::vector<std::string> files = bench::write_report(res, report_out);
    std::printf("%zu files written to %s: report.md and %zu SVG charts\n", files.size(), report_out.c_str(),
                files.size() - 1);
  });

  static std::string old_path, new_path, by = "device";
  static double floor_percent = 2;
  auto* cmp = apps.bench->add_subcommand(
      "compare",
      "compare two results (results.json in the --out folder of bench all or of bench ROUTINE) record by record, "
      "each row with old and new median, new/old time, its tolerance and a verdict: " +
          bench::compare_rule({}) +
          " (the 2 % is --floor). Exit status 1 when a record is slower or no longer timed, or when a file cannot "
          "be read");
  cmp->add_option("old", old_path, "the earlier results (JSON)")->required();
  cmp->add_option("new", new_path, "the later results (JSON)")->required();
  cmp->add_option("--floor", floor_percent, "smallest tolerance in percent")->capture_default_str();
  cmp->add_option("--by", by,
                  "match records by device name, routine, library and shape (device), or by routine, library and "
                  "shape only (shape: compares two devices)")
      ->check(CLI::IsMember({"device", "shape"}))
      ->capture_default_str();
  cmp->callback([] {
    bench::CompareOptions o;
    o.floor = floor_percent / 100;
    o.by_shape = by == "shape";
    const int rc = bench::compare_results(old_path, new_path, std::cout, o);
    std::cout.flush();
    if (rc != 0) std::exit(rc);  // regressions: exit status 1, after the full listing
  });
}

CLFORGE_CLI_COMMANDS(register_bench_all);

}  // namespace
}  // namespace clforge::cli
