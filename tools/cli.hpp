// The clforge command line: global options and how each routine family adds its commands.
// A family's file defines a registrar and calls CLFORGE_CLI_COMMANDS(fn) at namespace scope;
// main() calls every registrar with the root app and the shared `run`, `bench` and `tune`
// subcommands. Exit status: 0 success, 1 failure, 2 usage error (UsageError, CLI11's parse
// errors, a CLFORGE_* boolean that is not one).
#pragma once
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/routines.hpp"
#include "bench/split.hpp"
#include "clforge/clforge.hpp"
#include "tools/args.hpp"

namespace clforge::cli {

/// The options of a command run on a device group (`run ROUTINE --devices`, `bench split`).
struct SplitArgs {
  std::string devices;           ///< --devices: DeviceGroup selectors ("nvidia,cpu", "all", "0,2")
  std::string split = "auto";    ///< --split auto|weights|dynamic
  std::vector<double> weights;   ///< --weights W,W,...: one per device (implies --split weights)
  double cpu_percent = -1;       ///< --cpu-percent P: CPU devices get P % (implies --split weights)
  std::size_t chunk = 0;         ///< --chunk: items per chunk (0: the "group" parameters)
  std::size_t queues = 0;        ///< --queues: queues per device (0: the "group" parameters)
  std::string staging = "auto";  ///< --staging auto|on|off
  bool no_overlap = false;       ///< --no-overlap
  int reps = 5;                  ///< --reps: timed calls
  bool mpi = false;              ///< --mpi: across the ranks of mpirun (--devices per rank, '|' between)
  /// The SplitOptions these ask for on `group` (UsageError for contradictions).
  SplitOptions options(const DeviceGroup& group, const Tuning& tuning) const;
};

/// Adds --devices (required when `devices_required`), --split, --weights, --cpu-percent,
/// --chunk, --queues, --staging, --no-overlap and --reps.
void add_split_options(CLI::App* app, SplitArgs& a, bool devices_required);

struct Globals {
  std::string device;               ///< --device (else CLFORGE_DEVICE, else first GPU)
  std::vector<std::string> params;  ///< --param NAME=VALUE, repeatable
  bool no_user_tuning = false;      ///< --no-user-tuning
  std::string out;                  ///< --out: output folder of bench and peak
  bool quick = false;               ///< --quick for bench
  std::vector<std::string> sizes;   ///< --size, repeatable, for bench (checked by size_validator)
  int rounds = 0;                   ///< --rounds for bench fft (0: the device's default)
  int verbosity = 0;                ///< -v: log info, -vv: debug
  SplitArgs split;                  ///< run ROUTINE --devices ..., bench split

  Tuning tuning() const;  ///< overrides from --param (one value each), user database flag
  Session& session();     ///< opened on first use
  /// --quick, --rounds, --param and (for a routine) --size in the benchmarks' syntax.
  bench::BenchOptions bench_options(const std::string& routine = {}) const;

 private:
  std::unique_ptr<Session> session_;
};

struct Apps {
  CLI::App* root;
  CLI::App* run;
  CLI::App* bench;
  CLI::App* tune;
};

using Registrar = void (*)(Apps&, Globals&);
bool register_commands(Registrar r);
#define CLFORGE_CLI_CAT2(a, b) a##b
#define CLFORGE_CLI_CAT(a, b) CLFORGE_CLI_CAT2(a, b)
#define CLFORGE_CLI_COMMANDS(fn) \
  static const bool CLFORGE_CLI_CAT(clforge_cli_registered_, __LINE__) = ::clforge::cli::register_commands(fn)

/// A count given on the command line: a whole number in [lo, 2^31 - 1] (a negative number is
/// refused, not wrapped into a huge size_t).
inline CLI::Range size_range(std::size_t lo = 1) { return CLI::Range(lo, std::size_t{2147483647}); }

/// Checks a --size value as a size of `routine` (tools/args.hpp): a refused one is a usage error.
CLI::Validator size_validator(const std::string& routine, bool tune = false);
/// Checks "ROUTINE:SIZE" (bench all --size).
CLI::Validator routine_size_validator();
/// Checks --param NAME=VALUE[,VALUE...]: a parameter some kernel declares, integer values.
CLI::Validator param_validator();

/// Adds a run command's --size for `routine` (one size of the size grammar, checked, default shown):
/// "WHAT: <grammar>", then `more` when given.
CLI::Option* add_run_size_option(CLI::App* app, std::string& size, const std::string& routine, const std::string& what,
                                 const std::string& more = "");
/// `run ROUTINE --devices ...`: the case on the group of g.split.devices, checked and timed
/// (bench::run_split); throws Error when the result is wrong.
void run_on_group(Globals& g, const bench::SplitCase& c);

/// `run ROUTINE --mpi` / `bench split ROUTINE --mpi`: the case across the MPI ranks (each on its
/// own devices), checked on rank 0 (tools/cmd_mpi.cpp); throws Error when the result is wrong or
/// clforge was built without MPI. `bench` adds the table of ranks alone against all together.
void run_on_ranks(Globals& g, const bench::SplitCase& c, bool bench);

/// Adds --out FOLDER (checked: a folder or a path that does not exist yet).
CLI::Option* add_out_option(CLI::App* app, std::string& out, const std::string& what);
/// Adds --size (sizes of `routine`), --quick and --out to a bench subcommand.
void add_bench_options(CLI::App* app, Globals& g, const std::string& routine);
/// Prints `table` (default: the report's table) on stdout and, with --out, writes results.json,
/// results.csv and report.md (the table) into that folder.
void finish_report(const bench::Report& report, const Globals& g, std::string table = {});

/// `tune blur-crossover` on the session's device (tools/cmd_blur.cpp): where method auto switches;
/// stored in the user database unless !store. size "": the device's default image. No sigma is
/// measured past `deadline`; a scan it cut before recursive overtook separable stores nothing.
void blur_crossover(Globals& g, const std::string& size, bool store,
                    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());
/// `tune group ROUTINE --size SIZE` on the session's device alone (tools/cmd_tune_group.cpp): the
/// chunk size and queue count of its group calls, stored in the group store unless !store. No
/// candidate is measured past `deadline`; the fastest of those measured counts.
void tune_group(Globals& g, const std::string& routine, const std::string& size, bool store,
                std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace clforge::cli
