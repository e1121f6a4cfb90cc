// `clforge tune ROUTINE` and `clforge tune all`: one subcommand per routine the tuner knows
// (tune_routines()) with the routine's own options (e.g. blur's --method and --sigma), sizes in the
// command line's grammar (tools/args.hpp), a progress bar on stderr, the summaries on stdout
// (tools/tune_report.cpp), Ctrl-C stopping early (the measurements stay in the tune cache for
// --resume; exit status 130), and --tuning-file writing the results as a tuning file. The work is
// clforge::tune() and clforge::tune_all().
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <iostream>
#include <set>
#include <sstream>

#include "bench/peak.hpp"
#include "bench/routines.hpp"
#include "runtime/files.hpp"
#include "runtime/strings.hpp"
#include "tools/cli.hpp"
#include "tools/tune_report.hpp"

namespace clforge::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_sigint(int) { g_stop.store(true); }

// --param NAME=v1,v2,... (the global option; for `tune` each gives the values to search).
std::map<std::string, std::vector<int>> parse_value_lists(const std::vector<std::string>& params) {
  std::map<std::string, std::vector<int>> lists;
  for (const auto& text : params) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
      throw InvalidArgument("--param '" + text + "' is not NAME=VALUE[,VALUE...]");
    const std::string name = detail::trim(text.substr(0, eq));
    std::stringstream rest(text.substr(eq + 1));
    std::string item;
    while (std::getline(rest, item, ',')) {
      ParamMap one;
      parse_param_assignment(name + "=" + item, one);
      auto& v = lists[name];
      if (std::find(v.begin(), v.end(), one[name]) == v.end()) v.push_back(one[name]);
    }
  }
  return lists;
}

class ProgressBar {
 public:
  ProgressBar() : tty_(::isatty(2) != 0) {}
  void update(const TuneProgress& p) {
    const int width = 24;
    const int fill = std::max(0, std::min(width, static_cast<int>(width * p.fraction)));
    char best[64] = "best -";
    if (p.best_ms > 0) {
      if (p.default_ms > 0)
        std::snprintf(best, sizeof best, "best %.4g ms (%.2fx)", p.best_ms, p.default_ms / p.best_ms);
      else
        std::snprintf(best, sizeof best, "best %.4g ms", p.best_ms);
    }
    char cached[48] = "";
    if (p.cached > 0) std::snprintf(cached, sizeof cached, " (%zu cached)", p.cached);
    const std::string eta = !p.class_done ? "ETA " + clock_text(p.eta_s) : g_stop.load() ? "stopped" : "done";
    char line[640];
    std::snprintf(line, sizeof line, "%s%s/%s [%s%s] %zu/%zu%s  %s  %s  %s", prefix.c_str(), p.routine.c_str(),
                  p.variant.c_str(), std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), p.done,
                  p.total, cached, clock_text(p.elapsed_s).c_str(), eta.c_str(), best);
    if (tty_) {
      std::fprintf(stderr, "\r%-110s", line);
      if (p.class_done) std::fprintf(stderr, "\n");
    } else if (p.class_done) {
      std::fprintf(stderr, "%s\n", line);
    } else {
      char last[64];
      if (p.status == CandidateStatus::Ok)
        std::snprintf(last, sizeof last, "%.4g ms%s", p.current_ms, p.current_cached ? " (cached)" : "");
      else
        std::snprintf(last, sizeof last, "%s%s", to_string(p.status), p.current_cached ? " (cached)" : "");
      std::fprintf(stderr, "%s | %s: %s\n", line, params_text(p.current).c_str(), last);
    }
    std::fflush(stderr);
    open_ = tty_ && !p.class_done;
  }
  void finish() {
    if (open_) std::fprintf(stderr, "\n");
    open_ = false;
  }
  std::string prefix;  ///< put before every line (tune all: the job and the time left)

 private:
  bool tty_;
  bool open_ = false;
};

constexpr const char* kThreadsHelp =
    "threads compiling candidates concurrently (default: up to 4, up to 8 with compile workers)";
constexpr const char* kWorkersHelp =
    "compile on threads of this process only (by default, where the disk cache keeps the device's binaries, "
    "each thread hands its compiles to a worker process: NVIDIA's driver serialises a process's compiles)";

// The options every tune command shares (the sizes aside).
TuneOptions options_of(Globals& g, const TuneArgs& a) {
  TuneOptions o;
  o.strategy = parse_tune_strategy(a.strategy);
  o.budget = a.budget;
  o.time_limit_s = a.time_s;
  o.param_values = parse_value_lists(g.params);
  o.dry_run = a.dry_run;
  o.store = !a.no_store;
  o.seed = a.seed;
  o.compile_threads = a.threads;
  if (!a.no_compile_workers) o.compile_worker = detail::own_executable();  // runs `clforge compile-worker P:D`
  o.finalists = a.finalists;
  o.resume = a.resume;
  o.replay = a.replay;
  o.cache_file = a.cache;
  o.min_gain = a.min_gain_pct / 100;
  o.sizes_per_class = a.sizes_per_class;
  for (const auto& [name, value] : a.routine_options)
    if (!value.empty()) o.routine_options[name] = value;
  g_stop.store(false);
  o.stop = &g_stop;
  return o;
}

// Runs `work` with Ctrl-C stopping it after the current candidate (its measurement reaches the
// tune cache); a second Ctrl-C ends the process at once (the cache holds every measurement
// finished before). The progress bar's line is closed either way.
template <class Work>
auto with_sigint(ProgressBar& bar, Work&& work) {
  struct sigaction sa {
  }, old{};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &sa, &old);
  try {
    auto r = work();
    sigaction(SIGINT, &old, nullptr);
    bar.finish();
    return r;
  } catch (...) {
    sigaction(SIGINT, &old, nullptr);
    bar.finish();
    throw;
  }
}

// A result's classes that should have been stored and were not: an error (exit status 1).
void check_stored(const TuneResult& r, const TuneArgs& a) {
  if (a.dry_run || a.no_store || a.replay || r.interrupted) return;
  for (const auto& c : r.classes)
    if (!c.stored && !c.no_gain)
      throw Error("tuning results of " + r.kernel + " variant " + c.variant + " were not stored: " + c.store_error);
}

void cmd_tune(Globals& g, TuneArgs& a) {
  TuneOptions o = options_of(g, a);
  a.shown.clear();
  for (const auto& text : a.sizes) {
    const Size z = parse_size(a.routine, text, true);
    o.sizes.push_back(tune_size(z));
    a.shown[o.sizes.back()] = text;
  }
  ProgressBar bar;
  o.progress = [&bar](const TuneProgress& p) { bar.update(p); };
  Session& s = g.session();
  const TuneResult r = with_sigint(bar, [&] { return tune(s.queue, a.routine, o); });
  print_summary(r, a);
  if (!a.tuning_file.empty() && !a.dry_run) write_results(r, s.entry.info, a);
  std::fflush(stdout);
  check_stored(r, a);
  if (r.interrupted) std::exit(130);
}

// The device's peaks, for the lookup and the seed order by peaks (docs/tuning.md): measured (copy
// probes and the quick FMA search, seconds) and stored before the first job when none are stored
// and this run stores its results. A resumed run takes those its first run stored: the seed order
// depends on them, and a resumed search takes the path of the run it continues.
// Without them the tune runs as before, so a probe that fails is reported and passed over.
void ensure_peaks(Session& s, const TuneArgs& a) {
  if (a.dry_run || a.no_store || a.replay || a.resume || stored_device_peaks(s.entry.info)) return;
  bench::Report report(s.entry.info);
  bench::Peaks p;
  try {
    p = bench::routine_peaks(s, report, false);
  } catch (const Error& e) {
    std::fprintf(stderr, "peaks of this device not measured (%s); tuning without them\n", e.what());
    return;
  }
  if (p.copy_gbps <= 0 || p.fma_gflops <= 0) return;
  store_device_peaks(s.entry.info, p.copy_gbps, p.fma_gflops);
  std::fprintf(stderr, "peaks of this device: copy %.1f GB/s, FMA %.1f GFLOP/s (stored in %s)\n", p.copy_gbps,
               p.fma_gflops, user_database_path(s.entry.info).c_str());
}

// The 1-D FFTs a bench case runs, in the tuner's sizes: a 1-D case itself (real input: `N@B:r`,
// the class of its complex FFT `M:real`); a 2-D or 3-D case its rows along the last axis (real:
// real-input rows) on every row of the batch, and along each other axis its columns, stride the
// axes after it and distance 1 (`N@B:t`, the class `N:cols`), one plane of them.
std::vector<Size> fft_tune_cases(Size z) {
  if (z.y == 0) return {z};
  std::vector<std::size_t> dims = z.fft_shape();
  const std::size_t last = dims.back(), batch = std::max<std::size_t>(z.batch, 1);
  if (z.real) dims.back() = last / 2 + 1;  // complex columns of the half spectrum
  Size rows;
  rows.routine = "fft";
  rows.x = last;
  rows.real = z.real;
  rows.batch = batch;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows.batch *= dims[i];
  std::vector<Size> out{rows};
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    Size cols;
    cols.routine = "fft";
    cols.x = dims[i];
    cols.batch = 1;
    for (std::size_t j = i + 1; j < dims.size(); ++j) cols.batch *= dims[j];
    cols.interleaved = true;
    out.push_back(cols);
  }
  return out;
}

// `bench all`'s sizes of a routine on the device (quick: `bench all --quick`'s), in the tuner's
// syntax: FFT lengths with the batch of their first (64 MiB, quick 16 MiB) case, and the 1-D
// FFTs of its real-input and 2-D/3-D cases (fft_tune_cases). Blur's depend on each job's method
// (set_blur_sizes).
std::vector<std::string> bench_all_sizes(const std::string& routine, const DeviceInfo& dev, bool quick) {
  bench::BenchOptions bo;
  bo.quick = quick;
  if (routine == "transpose") return bench::transpose_sizes(bo);
  if (routine.rfind("sgemm", 0) == 0) return bench::sgemm_sizes(bo, dev);
  std::vector<std::string> out;
  if (routine.rfind("fft", 0) != 0) return out;
  std::set<std::string> lengths;                   // "N", "N:t" or "N:r"
  for (const auto& s : bench::fft_sizes(bo, dev))  // "N[xM[xK]],batch=B|mib=M[,real]"
    for (const Size& c : fft_tune_cases(parse_size("fft", s)))
      if (lengths.insert(std::to_string(c.x) + (c.interleaved ? ":t" : c.real ? ":r" : "")).second)
        out.push_back(tune_size(c));
  return out;
}

// tune all's sizes: --size ROUTINE:SIZE where given, else the routine's sizes of bench all that it
// can tune (none: its own default sizes; blur's are set per job, set_blur_sizes), unless --own-sizes.
std::map<std::string, std::vector<std::string>> tune_all_sizes(Globals& g, TuneArgs& a) {
  std::map<std::string, std::vector<std::string>> sizes;
  a.shown.clear();
  for (const auto& text : a.sizes) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw UsageError("tune all: --size " + text + " is not ROUTINE:SIZE");
    const std::string routine = text.substr(0, colon), size = text.substr(colon + 1);
    sizes[routine].push_back(tune_size(parse_size(routine, size, true)));
    a.shown[sizes[routine].back()] = size;
  }
  if (a.own_sizes) return sizes;
  const DeviceInfo& dev = g.session().entry.info;
  for (const auto& info : tune_routines()) {
    if (sizes.count(info.name)) continue;
    std::vector<std::string> list = tunable_sizes(info.name, bench_all_sizes(info.name, dev, a.quick));
    if (!list.empty()) sizes[info.name] = std::move(list);
  }
  return sizes;
}

// tune all's blur jobs, unless --size blur:... or --own-sizes: each bench image at the sigmas of
// the job's method (bench::blur_tune_sizes), so that a row is timed on the paths those sigmas take.
void set_blur_sizes(std::vector<TuneAllJob>& jobs, const DeviceInfo& dev, const TuneArgs& a) {
  if (a.own_sizes) return;
  for (const auto& text : a.sizes)
    if (text.rfind("blur:", 0) == 0) return;
  bench::BenchOptions bo;
  bo.quick = a.quick;
  for (auto& job : jobs) {
    if (job.routine != "blur") continue;
    job.sizes.clear();
    for (const auto& s : bench::blur_tune_sizes(bo, dev, job.routine_options.at("method")))
      job.sizes.push_back(tune_size(parse_size("blur", s, true)));
  }
}

bool has_step(const TuneArgs& a, const char* step) {
  return std::find(a.steps.begin(), a.steps.end(), step) != a.steps.end();
}

// The share of tune all's time kept for the steps after the kernels (measured: seconds on a GPU,
// about a minute on two PoCL cores).
constexpr double kClosingShare = 0.1;

// tune all's steps after the kernels, at sizes by device type (--quick: small ones): where blur's
// method auto switches (tune blur-crossover), then each routine's chunk size and queue count on
// host data (tune group). Each stores what it measured unless --no-store; --replay skips them.
// None starts past `deadline` (the end of --time): a crossover scan stops at it, a group step
// measures no candidate after it, and a group step not started is listed as not run.
void run_closing_steps(Globals& g, const TuneArgs& a, std::chrono::steady_clock::time_point deadline) {
  if (a.replay) return;
  const bool cpu = g.session().entry.info.type == "CPU";
  const std::string crossover = a.quick ? "512x512" : "";
  const std::vector<std::pair<std::string, std::string>> group =
      a.quick ? std::vector<std::pair<std::string, std::string>>{{"fft", "256,mib=4"},
                                                                 {"sgemm", "256"},
                                                                 {"transpose", "512"},
                                                                 {"blur", "512x512"}}
      : cpu   ? std::vector<std::pair<std::string, std::string>>{{"fft", "1024,mib=64"},
                                                                 {"sgemm", "1024"},
                                                                 {"transpose", "4096"},
                                                                 {"blur", "2048x2048"}}
              : std::vector<std::pair<std::string, std::string>>{
                    {"fft", "1024,mib=256"}, {"sgemm", "4096"}, {"transpose", "8192"}, {"blur", "8192x8192"}};
  if (has_step(a, "crossover")) {
    if (a.dry_run)
      std::printf("blur crossover at %s: would time direct, separable and recursive over sigma 0.5 ... 50\n",
                  crossover.empty() ? (cpu ? "2048x2048" : "4096x4096") : crossover.c_str());
    else
      blur_crossover(g, crossover, !a.no_store, deadline);
  }
  if (!has_step(a, "group")) return;
  for (const auto& [routine, size] : group) {
    if (a.dry_run)
      std::printf("group %s at %s: would time chunk sizes x queue counts on host data\n", routine.c_str(),
                  size.c_str());
    else if (std::chrono::steady_clock::now() >= deadline)
      std::printf("group %s at %s: not run, the time budget is spent\n", routine.c_str(), size.c_str());
    else
      tune_group(g, routine, size, !a.no_store, deadline);
  }
  std::fflush(stdout);
}

void cmd_tune_all(Globals& g, TuneArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = a.time_s > 0 ? t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(a.time_s))
                                     : std::chrono::steady_clock::time_point::max();
  if (!has_step(a, "kernels")) return run_closing_steps(g, a, deadline);
  std::vector<TuneAllJob> jobs = tune_all_jobs(tune_all_sizes(g, a));
  set_blur_sizes(jobs, g.session().entry.info, a);
  TuneOptions o = options_of(g, a);
  if (a.time_s > 0 && (has_step(a, "crossover") || has_step(a, "group")))
    o.time_limit_s = a.time_s * (1 - kClosingShare);
  ProgressBar bar;
  o.progress = [&bar](const TuneProgress& p) { bar.update(p); };
  auto started = [&](std::size_t i) {
    const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.prefix = "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) +
                 (a.time_s > 0 ? ", " + clock_text(std::max(0.0, o.time_limit_s - used)) + " left" : std::string()) +
                 "] ";
  };
  Session& s = g.session();
  ensure_peaks(s, a);
  const TuneAllResult all = with_sigint(bar, [&] { return tune_all(s.queue, jobs, o, started); });
  for (const auto& r : all.results) print_summary(r, a);
  for (const auto& r : all.results) check_stored(r, a);
  if (all.interrupted) {
    if (!a.dry_run) print_all_table(all, !a.no_store);
    std::exit(130);
  }
  run_closing_steps(g, a, deadline);
  // The peers after the closing steps: clforge is benchmarked as it runs from now on.
  if (!a.dry_run)
    print_all_table(all, !a.no_store,
                    a.peers ? bench_class_peers(s, all, a.quick) : std::vector<std::vector<ClassPeer>>{});
  std::fflush(stdout);
}

void register_tune(Apps& apps, Globals& g) {
  static std::deque<TuneArgs> args;
  for (const auto& info : tune_routines()) {
    args.emplace_back();
    TuneArgs& a = args.back();
    a.routine = info.name;
    std::string defaults;
    for (const auto& d : info.default_sizes) defaults += (defaults.empty() ? "" : ", ") + d;
    const std::string kernel = info.kernel + (info.options.empty() ? "" : " (with the default options)");
    auto* cmd = apps.tune->add_subcommand(
        info.name, "search the parameters of " + kernel +
                       " on this device, verify each candidate, store the fastest in the user tuning database "
                       "(--param NAME=v1,v2,... restricts the values searched)");
    cmd->add_option("--size", a.sizes,
                    "problem size, repeatable: " + size_grammar(info.name) + " (default " + defaults + ")")
        ->check(size_validator(info.name, true));
    cmd->add_option("--strategy", a.strategy,
                    "search order; auto: model with --budget or --time, else anneal when the space is too large to "
                    "enumerate, else exhaustive")
        ->check(CLI::IsMember({"auto", "exhaustive", "random", "anneal", "model"}))
        ->capture_default_str();
    auto* budget = cmd->add_option("--budget", a.budget, "at most N candidates per size class, default included");
    auto* time = cmd->add_option("--time", a.time_s, "stop after SECONDS of wall-clock time (all size classes)");
    budget->excludes(time);
    cmd->add_flag("--dry-run", a.dry_run, "show the search space and the plan; compile, run and store nothing");
    cmd->add_flag("--no-store", a.no_store, "do not write the user tuning database");
    cmd->add_option("--tuning-file", a.tuning_file,
                    "also write the results to this JSON tuning file (usable as CLFORGE_TUNING_FILE)");
    cmd->add_option("--seed", a.seed, "seed of the random data and of the random, anneal and model strategies");
    cmd->add_option("--threads", a.threads, kThreadsHelp);
    cmd->add_flag("--no-compile-workers", a.no_compile_workers, kWorkersHelp);
    cmd->add_flag("--resume", a.resume,
                  "take the measurements of an earlier (interrupted) run of the same tune from the tune cache "
                  "instead of measuring them again, and continue its search (with its seed unless --seed is given)");
    cmd->add_flag("--replay", a.replay,
                  "search only the configurations the tune cache holds for these sizes and options, taking every "
                  "time from it: nothing compiled, run or stored (compares strategies on one measured run)");
    cmd->add_option("--cache", a.cache,
                    "the tune cache, where every measurement is appended as it is made (default: beside the user "
                    "tuning database, <user tuning dir>/<device>.tune-cache.jsonl, now in " +
                        user_tuning_dir() + "; off: none)")
        ->type_name("FILE");
    cmd->add_option("--min-gain", a.min_gain_pct,
                    "store the best only if it beats the current configuration (user database entry, else the "
                    "default) by more than PERCENT; otherwise store nothing")
        ->type_name("PERCENT")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd->add_option("--finalists", a.finalists,
                    "after the search, time its fastest N, the default and the current configuration again with "
                    "their repetitions interleaved and keep the fastest there (0: keep the search's fastest)")
        ->capture_default_str();
    for (const auto& opt : info.options) {
      auto* o = cmd->add_option("--" + opt.name, a.routine_options[opt.name],
                                opt.help + (opt.default_value.empty() ? "" : " (default " + opt.default_value + ")"));
      if (!opt.choices.empty()) o->check(CLI::IsMember(opt.choices));
    }
    cmd->fallthrough();  // --param and the other global options may follow the routine name
    cmd->callback([&g, &a] { cmd_tune(g, a); });
  }
}

// `tune all`: every routine and method in one command with one time budget.
void register_tune_all(Apps& apps, Globals& g) {
  static TuneArgs a;
  a.routine = "all";
  auto* cmd = apps.tune->add_subcommand(
      "all",
      "tune every routine the tuner knows, once per kernel-selecting option (blur: each method), sharing one "
      "time budget; a summary per routine and one closing table (before, after) of every size class");
  cmd->add_option("--size", a.sizes,
                  "ROUTINE:SIZE, repeatable: replaces that routine's sizes (e.g. fft:1024@8192, transpose:1024); "
                  "by default each routine tunes the size classes of bench all's sizes on the device");
  cmd->add_flag("--quick", a.quick, "the sizes of bench all --quick (fewer size classes)");
  cmd->add_flag("--own-sizes", a.own_sizes, "each routine's own default sizes (one size class each)");
  cmd->add_option("--steps", a.steps,
                  "what to run, in this order: kernels (every routine's parameters), crossover (tune "
                  "blur-crossover), group (tune group of each routine; with --time, these two take a tenth)")
      ->delimiter(',')
      ->check(CLI::IsMember({"kernels", "crossover", "group"}))
      ->capture_default_str();
  a.sizes_per_class = 2;
  cmd->add_option(
         "--sizes-per-class", a.sizes_per_class,
         "time each size class on at most N of its sizes, spread over their work (0: all; transpose: always all)")
      ->capture_default_str();
  cmd->add_option("--strategy", a.strategy, "search order of every routine (see tune ROUTINE --help)")
      ->check(CLI::IsMember({"auto", "exhaustive", "random", "anneal", "model"}))
      ->capture_default_str();
  auto* budget = cmd->add_option("--budget", a.budget, "at most N candidates per size class, default included");
  auto* time = cmd->add_option("--time", a.time_s,
                               "stop after SECONDS of wall-clock time in all; each routine gets the time left times "
                               "its share of the size classes left");
  budget->excludes(time);
  cmd->add_flag("--dry-run", a.dry_run, "show every routine's search space; compile, run and store nothing");
  cmd->add_flag("--no-store", a.no_store, "do not write the user tuning database");
  cmd->add_flag("--peers", a.peers,
                "after the tune (outside --time), run each size class's timed sizes through bench with their peers "
                "and add clforge's time, the best peer and clforge's speed against it to the closing table");
  cmd->add_option("--seed", a.seed, "seed of the random data and of the random, anneal and model strategies");
  cmd->add_option("--threads", a.threads, kThreadsHelp);
  cmd->add_flag("--no-compile-workers", a.no_compile_workers, kWorkersHelp);
  cmd->add_flag("--resume", a.resume,
                "continue an interrupted tune all: every routine takes its measurements from the tune cache");
  cmd->add_flag("--replay", a.replay, "replay every routine from the tune cache (see tune ROUTINE --help)");
  cmd->add_option("--cache", a.cache, "the tune cache (default: beside the user tuning database; off: none)")
      ->type_name("FILE");
  cmd->add_option("--min-gain", a.min_gain_pct, "store a routine's best only if it beats the current one by PERCENT")
      ->type_name("PERCENT")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--finalists", a.finalists, "candidates timed again in each run-off (see tune ROUTINE --help)")
      ->capture_default_str();
  cmd->fallthrough();
  cmd->callback([&g] { cmd_tune_all(g, a); });
}

CLFORGE_CLI_COMMANDS(register_tune);
CLFORGE_CLI_COMMANDS(register_tune_all);

}  // namespace
}  // namespace clforge::cli
