// `clforge tune ROUTINE`: one subcommand per routine the tuner knows (tune_routines()) with the
// routine's own options (e.g. blur's --method and --sigma), sizes in the command line's grammar
// (tools/args.hpp), a progress bar on stderr, a summary table on stdout, Ctrl-C stopping early
// (the measurements stay in the tune cache for --resume; exit status 130), and --tuning-file
// writing the results as a tuning file. The work is clforge::tune().
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
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/files.hpp"
#include "runtime/strings.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_sigint(int) { g_stop.store(true); }

struct TuneArgs {
  std::string routine;
  std::vector<std::string> sizes;
  std::string strategy = "auto";
  std::size_t budget = 0;
  double time_s = 0;
  bool dry_run = false;
  bool no_store = false;
  std::string tuning_file;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  std::size_t finalists = TuneOptions{}.finalists;
  bool resume = false;
  std::string cache;
  double min_gain_pct = TuneOptions{}.min_gain * 100;
  std::map<std::string, std::string> routine_options;  // --NAME VALUE of the routine ("" : not given)
  std::map<std::string, std::string> shown;            // tuner size -> the size as given
};

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

std::string clock_text(double s) {
  if (s < 0) return "--:--";
  const long t = static_cast<long>(s + 0.5);
  char b[32];
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}

std::string params_text(const ParamMap& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
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

// A size as the tuner reports it, in the command line's grammar: as it was given, else as
// reported (the tuners' default sizes are plain N or WxH, which read the same in both).
std::string shown_size(const TuneArgs& a, const std::string& size) {
  const auto it = a.shown.find(size);
  return it != a.shown.end() ? it->second : size;
}

void print_summary(const TuneResult& r, const TuneArgs& a) {
  for (const auto& c : r.classes) {
    std::string sizes;
    for (const auto& s : c.sizes) sizes += (sizes.empty() ? "" : ", ") + shown_size(a, s);
    for (const auto& [name, value] : r.routine_options) sizes += ", " + name + " " + value;
    std::printf("%s variant %s on \"%s\", sizes %s\n", r.routine.c_str(), c.variant.c_str(), r.device.c_str(),
                sizes.c_str());
    if (c.sampled)
      std::printf(
          "  space %zu, too large to enumerate: of %zu random draws %zu illegal, %zu do not fit the device, "
          "%zu candidates\n",
          c.space, c.draws, c.illegal, c.unfit, c.candidates);
    else
      std::printf("  space %zu: %zu illegal, %zu do not fit the device, %zu candidates\n", c.space, c.illegal, c.unfit,
                  c.candidates);
    if (r.dry_run) {
      std::printf("  default: %s\n", params_text(c.default_params).c_str());
      std::size_t planned = c.candidates + 1;
      if (a.budget != 0) planned = std::min(planned, a.budget);
      std::printf("  dry run: would evaluate up to %zu (%s%s), store under variant %s in %s\n", planned,
                  to_string(r.strategy), a.time_s > 0 ? (", " + clock_text(a.time_s) + " limit").c_str() : "",
                  c.variant.c_str(), r.database_path.c_str());
      continue;
    }
    const std::string from_cache = c.cached > 0 ? " (" + std::to_string(c.cached) + " from the tune cache)" : "";
    std::printf("  tried %zu%s: %zu ok, %zu rejected (wrong result), %zu failed to build, %zu failed to run\n", c.tried,
                from_cache.c_str(), c.tried - c.rejected - c.build_failed - c.run_failed, c.rejected, c.build_failed,
                c.run_failed);
    std::vector<const TuneRow*> ok;
    for (const auto& row : c.rows)
      if (row.status == CandidateStatus::Ok) ok.push_back(&row);
    std::sort(ok.begin(), ok.end(), [](const TuneRow* x, const TuneRow* y) { return x->ms < y->ms; });
    std::printf("  %-8s %12s %10s  %s\n", "", "median ms", "speed-up", "parameters");
    const TuneRow *def = nullptr, *cur = nullptr;
    for (const auto& row : c.rows) {
      if (row.is_default) def = &row;
      if (row.is_current && !row.is_default) cur = &row;
    }
    // Speed-ups against the default's time in the same timing (search or run-off).
    double base_ms = def != nullptr && def->status == CandidateStatus::Ok ? def->ms : 0;
    auto line = [&](const char* tag, const TuneRow& row) {
      char speed[32] = "-";
      if (base_ms > 0 && row.status == CandidateStatus::Ok)
        std::snprintf(speed, sizeof speed, "%.2fx", base_ms / row.ms);
      if (row.status == CandidateStatus::Ok)
        std::printf("  %-8s %12.4f %10s  %s\n", tag, row.ms, speed, params_text(row.params).c_str());
      else
        std::printf("  %-8s %12s %10s  %s (%s: %s)\n", tag, "-", "-", params_text(row.params).c_str(),
                    to_string(row.status), row.message.c_str());
    };
    if (c.runoff.empty() && c.has_best) {
      for (const auto* row : ok)
        if (row->params == c.best) {
          line("best", *row);
          break;
        }
    }
    if (def != nullptr) line("default", *def);
    if (cur != nullptr) line("current", *cur);
    const std::size_t show = std::min<std::size_t>(ok.size(), 10);
    if (show > 1) {
      std::printf("  fastest %zu of the search:\n", show);
      for (std::size_t i = 0; i < show; ++i) line(("#" + std::to_string(i + 1)).c_str(), *ok[i]);
    }
    if (!c.runoff.empty()) {
      std::printf("  run-off (repetitions interleaved), fastest first:\n");
      base_ms = c.default_ms;
      for (const auto& row : c.runoff)
        line(row.params == c.best ? "best" : row.is_default ? "default" : row.is_current ? "current" : "", row);
    }
    std::size_t shown_fail = 0;
    for (const auto& row : c.rows)
      if (row.status != CandidateStatus::Ok && !row.is_default && shown_fail++ < 5) line("failed", row);
    if (c.has_best && c.speedup > 0)
      std::printf("  speed-up over the shipped default: %.3fx\n", c.speedup);
    else if (c.has_best)
      std::printf("  speed-up over the shipped default: - (the default did not verify or run)\n");
    if (r.strategy == TuneStrategy::Exhaustive && c.tried < c.candidates && !r.interrupted)
      std::printf(
          "  note: the budget covered %zu of %zu candidates in declaration order; --strategy random or "
          "anneal spreads a budget over the whole space\n",
          c.tried, c.candidates);
    if (c.stored)
      std::printf("  stored in %s (kernel %s, variant %s)\n", r.database_path.c_str(), r.kernel.c_str(),
                  c.variant.c_str());
    else if (a.no_store)
      std::printf("  nothing stored (--no-store)\n");
    else if (r.interrupted && c.store_error.empty())
      ;  // said once below
    else if (c.no_gain)
      std::printf("  no configuration beat the current one by more than %g %%; nothing stored\n", a.min_gain_pct);
    else
      std::printf("  NOT stored: %s\n", c.store_error.c_str());
  }
  if (!r.cache_error.empty()) std::printf("tune cache: %s\n", r.cache_error.c_str());
  if (r.interrupted) {
    // The class stopped is the last one that began.
    const TuneClassResult* last = nullptr;
    for (const auto& c : r.classes)
      if (c.tried > 0) last = &c;
    if (!r.cache_path.empty() && r.cache_error.empty())
      std::printf(
          "interrupted: the measurements are kept in %s; to continue, run the same command with --resume (seed "
          "%llu)\n",
          r.cache_path.c_str(), static_cast<unsigned long long>(r.seed));
    else
      std::printf("interrupted: %s\n",
                  last != nullptr && last->stored ? "the best configuration so far was stored" : "nothing stored");
  }
  std::printf("%zu candidates in %s\n", r.tried(), clock_text(r.elapsed_s).c_str());
}

// The results as a tuning file: usable as CLFORGE_TUNING_FILE, or as rows for cl/db/<kernel>.json.
void write_results(const TuneResult& r, const DeviceInfo& dev, const TuneArgs& a) {
  nlohmann::json j;
  j["kernel"] = r.kernel;
  if (!r.routine_options.empty()) j["routine_options"] = r.routine_options;
  j["comment"] = "clforge tune " + r.routine + " on \"" + dev.name + "\" (" + dev.platform_name + ", driver " +
                 dev.driver_version + ")";
  j["entries"] = nlohmann::json::array();
  j["results"] = nlohmann::json::array();
  for (const auto& c : r.classes) {
    std::vector<std::string> sizes;
    for (const auto& size : c.sizes) sizes.push_back(shown_size(a, size));
    nlohmann::json res = {{"variant", c.variant},
                          {"sizes", sizes},
                          {"space", c.space},
                          {"illegal", c.illegal},
                          {"unfit", c.unfit},
                          {"candidates", c.candidates},
                          {"sampled", c.sampled},
                          {"draws", c.draws},
                          {"tried", c.tried},
                          {"rejected", c.rejected},
                          {"build_failed", c.build_failed},
                          {"run_failed", c.run_failed},
                          {"default", c.default_params},
                          {"default_ms", c.default_ms},
                          {"strategy", to_string(r.strategy)}};
    res["cached"] = c.cached;
    res["current"] = c.current_params;
    res["current_ms"] = c.current_ms;
    if (c.has_best) {
      res["best"] = c.best;
      res["best_ms"] = c.best_ms;
      res["speedup"] = c.speedup;
      nlohmann::json e = {{"kernel", r.kernel}, {"variant", c.variant}, {"params", c.best}, {"time_ms", c.best_ms}};
      if (!dev.architecture.empty()) {
        e["vendor"] = dev.vendor_key();
        e["architecture"] = dev.architecture;
      } else {
        e["device"] = dev.name;
      }
      e["note"] = "default " + std::to_string(c.default_ms) + " ms, tuned " + std::to_string(c.best_ms) + " ms";
      j["entries"].push_back(e);
    }
    res["rows"] = nlohmann::json::array();
    for (const auto& row : c.rows)
      res["rows"].push_back({{"params", row.params},
                             {"status", to_string(row.status)},
                             {"ms", row.ms},
                             {"error", row.error},
                             {"message", row.message},
                             {"default", row.is_default},
                             {"cached", row.cached}});
    res["runoff"] = nlohmann::json::array();
    for (const auto& row : c.runoff)
      res["runoff"].push_back({{"params", row.params}, {"ms", row.ms}, {"default", row.is_default}});
    j["results"].push_back(res);
  }
  detail::write_file_atomic(a.tuning_file, j.dump(2) + "\n");
  std::printf("results written to %s\n", a.tuning_file.c_str());
}

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
  o.finalists = a.finalists;
  o.resume = a.resume;
  o.cache_file = a.cache;
  o.min_gain = a.min_gain_pct / 100;
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
  if (a.dry_run || a.no_store || r.interrupted) return;
  for (const auto& c : r.classes)
    if (!c.stored && !c.no_gain)
      throw Error("tuning results of " + r.kernel + " variant " + c.variant + " were not stored: " + c.store_error);
}

void cmd_tune(Globals& g, TuneArgs& a) {
  TuneOptions o = options_of(g, a);
  a.shown.clear();
  for (const auto& text : a.sizes) {
    const Size z = parse_size(a.routine, text);
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

// `tune all`'s closing table: per job and size class, the time before (the configuration the
// library used: the user database's entry, else the shipped default), the search's best, and
// whether it was stored (--no-store: "off"); then the jobs the time budget left out.
void print_all_table(const TuneAllResult& all, bool store) {
  std::printf("\ntune all: %zu of %zu jobs in %s\n", all.results.size(), all.jobs.size(),
              clock_text(all.elapsed_s).c_str());
  std::printf("%-28s %-22s %8s %10s %10s %10s %8s  %s\n", "job", "variant", "tried", "default ms", "before ms",
              "best ms", "gain", "stored");
  for (std::size_t i = 0; i < all.results.size(); ++i)
    for (const auto& c : all.results[i].classes) {
      const double before = c.current_ms > 0 ? c.current_ms : c.default_ms;
      const double best = c.has_best && c.best_ms > 0 ? c.best_ms : before;
      char gain[16] = "-";
      if (before > 0 && best > 0) std::snprintf(gain, sizeof gain, "%.2fx", before / best);
      const char* stored = !store ? "off" : c.stored ? "yes" : c.no_gain ? "no gain" : "no";
      std::printf("%-28s %-22s %8zu %10.4g %10.4g %10.4g %8s  %s\n", all.jobs[i].name().c_str(), c.variant.c_str(),
                  c.tried, c.default_ms, before, best, gain, stored);
    }
  for (std::size_t i = all.results.size(); i < all.jobs.size(); ++i)
    std::printf("%-28s %s\n", all.jobs[i].name().c_str(),
                all.interrupted ? "not run (interrupted)" : "not run (time spent)");
}

void cmd_tune_all(Globals& g, TuneArgs& a) {
  std::map<std::string, std::vector<std::string>> sizes;
  a.shown.clear();
  for (const auto& text : a.sizes) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw UsageError("tune all: --size " + text + " is not ROUTINE:SIZE");
    const std::string routine = text.substr(0, colon), size = text.substr(colon + 1);
    sizes[routine].push_back(tune_size(parse_size(routine, size)));
    a.shown[sizes[routine].back()] = size;
  }
  const std::vector<TuneAllJob> jobs = tune_all_jobs(sizes);
  TuneOptions o = options_of(g, a);
  ProgressBar bar;
  o.progress = [&bar](const TuneProgress& p) { bar.update(p); };
  const auto t0 = std::chrono::steady_clock::now();
  auto started = [&](std::size_t i) {
    const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.prefix = "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) +
                 (a.time_s > 0 ? ", " + clock_text(std::max(0.0, a.time_s - used)) + " left" : std::string()) + "] ";
  };
  Session& s = g.session();
  const TuneAllResult all = with_sigint(bar, [&] { return tune_all(s.queue, jobs, o, started); });
  for (const auto& r : all.results) print_summary(r, a);
  if (!a.dry_run) print_all_table(all, !a.no_store);
  std::fflush(stdout);
  for (const auto& r : all.results) check_stored(r, a);
  if (all.interrupted) std::exit(130);
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
        ->check(size_validator(info.name));
    cmd->add_option("--strategy", a.strategy,
                    "search order; auto: anneal when the space is too large to enumerate, else random with --budget or "
                    "--time, else exhaustive")
        ->check(CLI::IsMember({"auto", "exhaustive", "random", "anneal"}))
        ->capture_default_str();
    auto* budget = cmd->add_option("--budget", a.budget, "at most N candidates per size class, default included");
    auto* time = cmd->add_option("--time", a.time_s, "stop after SECONDS of wall-clock time (all size classes)");
    budget->excludes(time);
    cmd->add_flag("--dry-run", a.dry_run, "show the search space and the plan; compile, run and store nothing");
    cmd->add_flag("--no-store", a.no_store, "do not write the user tuning database");
    cmd->add_option("--tuning-file", a.tuning_file,
                    "also write the results to this JSON tuning file (usable as CLFORGE_TUNING_FILE)");
    cmd->add_option("--seed", a.seed, "seed of the random data and of the random and anneal strategies");
    cmd->add_option("--threads", a.threads, "threads compiling candidates concurrently (default: up to 4)");
    cmd->add_flag("--resume", a.resume,
                  "take the measurements of an earlier (interrupted) run of the same tune from the tune cache "
                  "instead of measuring them again, and continue its search (with its seed unless --seed is given)");
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
                  "ROUTINE:SIZE, repeatable: replaces that routine's default sizes (e.g. fft:1024,mib=64, "
                  "transpose:1024)");
  cmd->add_option("--strategy", a.strategy, "search order of every routine (see tune ROUTINE --help)")
      ->check(CLI::IsMember({"auto", "exhaustive", "random", "anneal"}))
      ->capture_default_str();
  auto* budget = cmd->add_option("--budget", a.budget, "at most N candidates per size class, default included");
  auto* time = cmd->add_option("--time", a.time_s,
                               "stop after SECONDS of wall-clock time in all; each routine gets the time left divided "
                               "by the routines left");
  budget->excludes(time);
  cmd->add_flag("--dry-run", a.dry_run, "show every routine's search space; compile, run and store nothing");
  cmd->add_flag("--no-store", a.no_store, "do not write the user tuning database");
  cmd->add_option("--seed", a.seed, "seed of the random data and of the random and anneal strategies");
  cmd->add_option("--threads", a.threads, "threads compiling candidates concurrently (default: up to 4)");
  cmd->add_flag("--resume", a.resume,
                "continue an interrupted tune all: every routine takes its measurements from the tune cache");
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
