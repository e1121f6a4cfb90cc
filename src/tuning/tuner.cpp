// clforge::tune() behind `clforge tune`: resolves the routine's target and options, groups
// the sizes into size classes, builds each class's search space (tuner_space.cpp) from the
// kernel's declared values (pruned by its constraints and the device's limits), picks the
// strategy, tunes each class within its share of the time limit (ClassTuner: the shipped
// default first, candidates compiled in concurrent batches, verified against the host
// reference on poisoned outputs and timed with profiling events; tuner_class.cpp; each one
// appended to the tune cache, or taken from it on resume: tuner_cache.cpp), and stores the
// fastest verified one in the user database when it beats the current configuration
// (tuning.hpp, docs/tuning.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <set>
#include <sstream>

#include "clforge/errors.hpp"
#include "host/data.hpp"
#include "host/parallel.hpp"
#include "runtime/compile_workers.hpp"
#include "runtime/errors.hpp"
#include "runtime/log.hpp"
#include "runtime/strings.hpp"
#include "runtime/test_hook.hpp"
#include "tuning/tuner_internal.hpp"
#include "tuning/tuner_testing.hpp"

namespace clforge {

const char* to_string(TuneStrategy s) {
  switch (s) {
    case TuneStrategy::Auto:
      return "auto";
    case TuneStrategy::Exhaustive:
      return "exhaustive";
    case TuneStrategy::Random:
      return "random";
    case TuneStrategy::Anneal:
      return "anneal";
    case TuneStrategy::Model:
      return "model";
  }
  return "?";
}

TuneStrategy parse_tune_strategy(const std::string& name) {
  for (TuneStrategy s :
       {TuneStrategy::Auto, TuneStrategy::Exhaustive, TuneStrategy::Random, TuneStrategy::Anneal, TuneStrategy::Model})
    if (name == to_string(s)) return s;
  throw InvalidArgument("unknown tuning strategy '" + name + "' (known: auto, exhaustive, random, anneal, model)");
}

const char* to_string(CandidateStatus s) {
  switch (s) {
    case CandidateStatus::Ok:
      return "ok";
    case CandidateStatus::Rejected:
      return "rejected";
    case CandidateStatus::BuildFailed:
      return "build failed";
    case CandidateStatus::RunFailed:
      return "run failed";
  }
  return "?";
}

std::size_t TuneResult::tried() const {
  std::size_t n = 0;
  for (const auto& c : classes) n += c.tried;
  return n;
}
std::size_t TuneResult::rejected() const {
  std::size_t n = 0;
  for (const auto& c : classes) n += c.rejected;
  return n;
}
std::size_t TuneResult::build_failed() const {
  std::size_t n = 0;
  for (const auto& c : classes) n += c.build_failed;
  return n;
}
double TuneClassResult::candidates_per_min() const {
  return wall_s > 0 ? 60.0 * static_cast<double>(tried - cached) / wall_s : 0;
}
double TuneResult::candidates_per_min() const {
  double wall = 0, measured = 0;
  for (const auto& c : classes) {
    wall += c.wall_s;
    measured += static_cast<double>(c.tried - c.cached);
  }
  return wall > 0 ? 60.0 * measured / wall : 0;
}

namespace detail {
namespace {
TestHook<TuneFaultHook> g_fault;
TestHook<TuneOverlapHook> g_overlap;
}  // namespace

void set_tune_overlap(TuneOverlapHook hook) { g_overlap.set(std::move(hook)); }

std::optional<bool> tune_overlap() {
  const TuneOverlapHook hook = g_overlap.get();
  return hook ? std::optional<bool>(hook()) : std::nullopt;
}

void set_tune_fault(TuneFaultHook hook) { g_fault.set(std::move(hook)); }

TuneFault tune_fault(const ParamMap& candidate) {
  const TuneFaultHook hook = g_fault.get();
  return hook ? hook(candidate) : TuneFault{};
}

namespace {

std::string store_note(const TuneClassResult& c, TuneStrategy strategy,
                       const std::map<std::string, std::string>& routine_options) {
  std::ostringstream o;
  o.precision(4);
  o << "clforge tune, sizes";
  for (const auto& s : c.sizes) o << " " << s;
  for (const auto& [name, value] : routine_options) o << ", " << name << " " << value;
  o << ", " << to_string(strategy) << ", " << c.tried << " tried: " << c.best_ms << " ms";
  if (c.default_ms > 0) o << " vs default " << c.default_ms << " ms (" << c.speedup << "x)";
  return o.str();
}

// Every option of the target with its value: the caller's (checked) or the default.
std::map<std::string, std::string> option_values(const TuneTarget& t, const std::map<std::string, std::string>& given) {
  for (const auto& [name, value] : given) {
    const auto it =
        std::find_if(t.options.begin(), t.options.end(), [&](const TuneRoutineOption& o) { return o.name == name; });
    if (it == t.options.end()) {
      std::string known;
      for (const auto& o : t.options) known += (known.empty() ? "" : ", ") + o.name;
      throw InvalidArgument("routine " + t.routine + " has no tuning option '" + name + "'" +
                            (known.empty() ? std::string(" (it has none)") : " (options: " + known + ")"));
    }
    if (!it->choices.empty() && std::find(it->choices.begin(), it->choices.end(), value) == it->choices.end()) {
      std::string legal;
      for (const auto& c : it->choices) legal += (legal.empty() ? "" : ", ") + c;
      throw InvalidArgument("tuning option " + name + " of " + t.routine + ": '" + value + "' is not one of " + legal);
    }
  }
  std::map<std::string, std::string> values;
  for (const auto& o : t.options) {
    const auto it = given.find(o.name);
    values[o.name] = it != given.end() ? it->second : o.default_value;
  }
  return values;
}

// Whether the class's best is worth storing: it must not be the current configuration and must
// beat it (or the default, when the current one is the default) by more than min_gain. A
// current configuration that failed to verify or run is beaten by any verified one.
bool beats_current(const TuneClassResult& c, double min_gain) {
  if (c.best == c.current_params) return false;
  const double base_ms = c.current_params == c.default_params ? c.default_ms : c.current_ms;
  return base_ms <= 0 || base_ms / c.best_ms - 1.0 > min_gain;
}

// The checks made before any work: limits that are not negative and, for a run that measures,
// a queue with profiling.
void check_tune_request(cl::CommandQueue& queue, const TuneOptions& options) {
  require(options.time_limit_s >= 0, "tune", "the time limit must not be negative");
  require(options.min_gain >= 0, "tune", "the minimum gain must not be negative");
  if (!options.dry_run) {
    cl_command_queue_properties props = 0;
    check(queue.getInfo(CL_QUEUE_PROPERTIES, &props), "clGetCommandQueueInfo");
    require((props & CL_QUEUE_PROFILING_ENABLE) != 0, "tune", "the queue needs CL_QUEUE_PROFILING_ENABLE");
  }
}

// The result before anything is measured: what is tuned, for which device and where it is stored.
TuneResult start_result(const std::string& routine, const KernelSpec& spec,
                        const std::map<std::string, std::string>& routine_options, const DeviceInfo& dev,
                        const TuneOptions& options) {
  TuneResult result;
  result.routine = routine;
  result.kernel = spec.name;
  result.routine_options = routine_options;
  result.device = dev.name;
  result.database_path = user_database_path(dev);
  result.dry_run = options.dry_run;
  result.strategy = options.strategy;
  return result;
}

// Which of a class's sizes the search times, at most `k` (TuneOptions::sizes_per_class): with
// the target's measure of work, the sizes at the middles of k equal parts of the class sorted by
// work (its quartiles for two), else the first k; in the order they were asked for. On the H200
// the first two of bench all's small SGEMM class, 256^3 and 512^3, chose 32 x 16 tiles 1.9x
// faster there that the run-off found slower than the default over the class's 903^3 to 1024^3
// (tools/cold_start.py -d nvidia, 2026-11-30). Besides, every size the target finds cheap
// (TuneTarget::cheap_size): on the H200 (cold start of 2026-12-01) the small SGEMM class timed on
// 512^3 and 1024^3 climbed to 32 x 32 tiles, 1.49x faster there and 34 % slower on its
// 512 x 8192 x 512, and the run-off refused its three finalists for that size.
std::vector<bool> timed_sizes(const TuneTarget& target, const std::vector<std::string>& sizes, std::size_t k) {
  const std::size_t n = sizes.size();
  std::vector<bool> timed(n, k == 0 || n <= k);
  if (k == 0 || n <= k) return timed;
  if (target.cheap_size)
    for (std::size_t i = 0; i < n; ++i) timed[i] = target.cheap_size(sizes[i]);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  if (target.size_work) {
    std::vector<double> work(n);
    for (std::size_t i = 0; i < n; ++i) work[i] = target.size_work(sizes[i]);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return work[a] < work[b]; });
    for (std::size_t j = 0; j < k; ++j) timed[order[(2 * j + 1) * n / (2 * k)]] = true;
  } else {
    for (std::size_t j = 0; j < k; ++j) timed[j] = true;
  }
  return timed;
}

// The size classes of the sizes asked for (the target's defaults when none), in order of first
// appearance, each with its sizes once: those the search times (timed_sizes, every size when the
// target times every size) and the others, which go to the run-off.
void add_size_classes(const TuneTarget& target, const TuneOptions& options, std::vector<TuneClassResult>& classes) {
  const std::vector<std::string> sizes = options.sizes.empty() ? target.default_sizes : options.sizes;
  std::vector<std::vector<std::string>> all;
  for (const auto& size : sizes) {
    const std::string variant = target.variant_of(size);
    auto it =
        std::find_if(classes.begin(), classes.end(), [&](const TuneClassResult& c) { return c.variant == variant; });
    if (it == classes.end()) {
      classes.emplace_back();
      classes.back().variant = variant;
      all.emplace_back();
      it = classes.end() - 1;
    }
    auto& mine = all[static_cast<std::size_t>(it - classes.begin())];
    if (std::find(mine.begin(), mine.end(), size) == mine.end()) mine.push_back(size);
  }
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const std::vector<bool> timed = timed_sizes(target, all[c], target.time_every_size ? 0 : options.sizes_per_class);
    for (std::size_t i = 0; i < all[c].size(); ++i)
      (timed[i] ? classes[c].sizes : classes[c].runoff_sizes).push_back(all[c][i]);
  }
}

// The seed of the run: the caller's, else that of the cached run to continue (not for a replay,
// which starts a search of its own), else a fresh one.
std::uint64_t run_seed(const TuneOptions& options, const RunCache& cache) {
  std::uint64_t seed = options.seed;
  for (std::size_t i = 0; seed == 0 && !options.replay && i < cache.keys.size(); ++i) {
    const auto it = cache.cached.find(cache.keys[i].hash);
    if (it != cache.cached.end() && it->second.has_header) seed = it->second.seed;
  }
  return seed != 0 ? seed : host::default_seed();
}

// Each class's reference and current configuration, and its search space (counted in the class).
// The spaces are enumerated on threads, one class each: on the H200 (2026-12-01, `tune all --time
// 150`) the FFT's 43 classes took 10 s before the first of them started.
std::vector<Space> build_class_spaces(const TuneTarget& target, const KernelSpec& spec, const DeviceInfo& dev,
                                      const TuneOptions& options, std::uint64_t seed,
                                      std::vector<TuneClassResult>& classes) {
  std::vector<std::map<std::string, std::vector<int>>> values(classes.size(), options.param_values);
  for (std::size_t i = 0; i < classes.size(); ++i) {
    TuneClassResult& c = classes[i];
    // The reference: what the library uses without the user database. The current
    // configuration: what it uses now, the user database included (resolving it reports an
    // unreadable user database, with its path, before any work).
    c.default_params = resolve_configuration(spec.name, c.variant, dev, Tuning{{}, false}).values;
    c.current_params =
        options.store ? resolve_configuration(spec.name, c.variant, dev, Tuning{}).values : c.default_params;
    // The caller's value lists, then the target's narrowing of the parameters left open.
    if (target.narrow)
      for (auto& [name, vals] : target.narrow(c.variant, c.sizes, c.default_params, dev)) values[i].emplace(name, vals);
  }
  std::vector<Space> spaces(classes.size());
  std::vector<std::exception_ptr> errors(classes.size());
  host::parallel_for(classes.size(), 0, 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) try {
        spaces[i] = build_space(spec, values[i], classes[i].variant, dev, seed + 7 + 1000 * i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
  });
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    TuneClassResult& c = classes[i];
    const Space& s = spaces[i];
    c.space = s.total;
    c.illegal = s.illegal;
    c.unfit = s.unfit;
    c.candidates = s.candidates.size();
    c.sampled = s.sampled;
    c.draws = s.draws;
  }
  return spaces;
}

// The strategy Auto stands for: the model under a budget or time limit (it converges fastest in
// the replays of docs/tuning.md), else anneal a sampled space and try every candidate of an
// enumerated one. Exhaustive on a sampled space is refused.
TuneStrategy pick_strategy(TuneStrategy asked, const TuneOptions& options, const KernelSpec& spec,
                           const std::vector<Space>& spaces) {
  const bool any_sampled = std::any_of(spaces.begin(), spaces.end(), [](const Space& s) { return s.sampled; });
  TuneStrategy strategy = asked;
  if (strategy == TuneStrategy::Auto)
    strategy = options.budget != 0 || options.time_limit_s > 0 ? TuneStrategy::Model
               : any_sampled                                   ? TuneStrategy::Anneal
                                                               : TuneStrategy::Exhaustive;
  if (any_sampled && strategy == TuneStrategy::Exhaustive)
    throw InvalidArgument("the search space of " + spec.name + " has " + std::to_string(spaces.front().total) +
                          " combinations, too many to enumerate (at most " + std::to_string(kMaxSpace) +
                          "): use --strategy random or anneal, or restrict some parameters with --param");
  return strategy;
}

// When a class must stop: an equal share of the time left among the classes left, or never; at
// least half of an equal share of the whole time while the run is within one equal share past
// its end. A class whose instances or run-off take long (xgemm's large class: 4096^3 to 8192^3)
// overruns its share, and the classes after it had what was left: on the H200's cold start of
// 2026-12-01 the SGEMM kernels' batch classes, last in their jobs, each measured its default
// alone (128^3 x 10^4 at 0.48 of the shipped rows' speed). The job then overruns, and the
// routines after it in tune all share what is left; by one share at most, so that the FFT's 43
// classes (4 s each there) do not take the time of the routines after it.
Clock::time_point class_deadline(const TuneOptions& options, Clock::time_point start, std::size_t classes,
                                 std::size_t classes_left) {
  if (options.time_limit_s <= 0) return Clock::time_point::max();
  const double elapsed = seconds_since(start);
  const double left = options.time_limit_s - elapsed;
  const double equal = options.time_limit_s / static_cast<double>(classes);
  const double floor = std::min(0.5 * equal, options.time_limit_s + equal - elapsed);
  const double share = std::max({0.0, left / static_cast<double>(classes_left), floor});
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(share));
}

// Stores one row of a tuned class. A row of "*" reaches every variant without a row of its own
// at the same level or before it: the kernel's declared variants it would change keep what they
// resolved before (stored as their own rows, logged), since the class measured none of them (on
// the H200 the route's "*" row, direct products up to 384^3, ran strided batches of 256^3 on the
// direct kernel at half the speed, 2026-11-30). A class of such a variant that gains stores over it.
void store_class_row(const DeviceInfo& dev, const KernelSpec& spec, const std::string& variant, const ParamMap& params,
                     const std::string& note) {
  std::vector<std::pair<std::string, ParamMap>> before;
  if (variant == "*")
    for (const std::string& other : spec.variants)
      if (other != "*") before.emplace_back(other, resolve_configuration(spec.name, other, dev, Tuning{}).values);
  store_user_entry(dev, spec.name, variant, params, note);
  for (const auto& [other, values] : before) {
    if (resolve_configuration(spec.name, other, dev, Tuning{}).values == values) continue;
    store_user_entry(dev, spec.name, other, values, "kept when the row of * was stored: not measured by that tune");
    log(LogLevel::Info, "tune: kept " + spec.name + " variant " + other + " at " + describe_params(values));
  }
}

// What becomes of a tuned class: kept in the tune cache when the run was stopped, else stored
// in the user database when it beats the current configuration (or why it was not).
void settle_class(TuneClassResult& c, const TuneResult& result, const TuneCache& cache, const DeviceInfo& dev,
                  const TuneTarget& target, const KernelSpec& spec, const TuneOptions& options) {
  if (c.has_best)
    c.stored_rows = target.stored_rows ? target.stored_rows(c.variant, c.best, c.default_params, dev)
                                       : std::vector<std::pair<std::string, ParamMap>>{{c.variant, c.best}};
  // Stopped early, the measurements wait in the tune cache for a resumed run, which ends as an
  // uninterrupted one would; without a cache the best so far is all that is kept.
  const bool keep_for_resume = result.interrupted && cache.enabled();
  if (keep_for_resume) {
    log(LogLevel::Info, "tune: stopped; the " + std::to_string(c.tried) + " measurements of " + spec.name +
                            " variant " + c.variant + " are kept in " + cache.path());
  } else if (c.has_best && (!beats_current(c, options.min_gain) || c.stored_rows.empty())) {
    c.no_gain = true;
  } else if (options.store && c.has_best) {
    try {
      const std::string note = store_note(c, result.strategy, result.routine_options);
      for (const auto& [variant, params] : c.stored_rows) {
        store_class_row(dev, spec, variant, params, note);
        log(LogLevel::Info, "tune: stored " + spec.name + " variant " + variant + " " + describe_params(params) +
                                " in " + result.database_path);
      }
      c.stored = true;
    } catch (const Error& e) {
      c.store_error = e.what();
    }
  } else if (options.store && !c.has_best) {
    c.store_error = "no candidate verified; nothing stored";
  }
}

// The fastest configurations of the classes before class `i`, the latest first.
std::vector<ParamMap> sibling_bests(const std::vector<TuneClassResult>& classes, std::size_t i) {
  std::vector<ParamMap> out;
  for (std::size_t j = i; j-- > 0;)
    if (classes[j].has_best) out.push_back(classes[j].best);
  return out;
}

// The verified rows of the classes before class `i` with their log times relative to their
// class's reference (ClassTuner::set_prior_rows); none of a class whose reference failed.
std::vector<ClassTuner::PriorRow> prior_rows(const std::vector<TuneClassResult>& classes, std::size_t i) {
  std::vector<ClassTuner::PriorRow> out;
  for (std::size_t j = 0; j < i; ++j) {
    const TuneRow* ref = reference_row(classes[j].rows);
    if (ref == nullptr) continue;
    for (const TuneRow& r : classes[j].rows)
      if (r.status == CandidateStatus::Ok && r.ms > 0) out.push_back({r.params, std::log(r.ms / ref->ms)});
  }
  return out;
}
}  // namespace

std::unique_ptr<CompileWorkers> start_compile_workers(const TuneOptions& options, const QueueContext& qc) {
  if (options.compile_worker.empty() || options.dry_run || !compile_workers_apply(*qc.info)) return nullptr;
  if (compile_workers_for(qc.device()) != nullptr) return nullptr;
  return std::make_unique<CompileWorkers>(qc, options.compile_worker, compile_thread_count(options, true));
}
}  // namespace detail

std::vector<TuneRoutineInfo> tune_routines() {
  std::vector<TuneRoutineInfo> v;
  for (const auto& t : detail::all_tune_targets())
    v.push_back({t.routine, t.kernel, t.size_syntax, t.default_sizes, t.options, t.device_types});
  return v;
}

TuneResult tune(cl::CommandQueue& queue, const std::string& routine, const TuneOptions& asked) {
  using namespace detail;
  const TuneOptions options = replay_options(asked);
  const auto start = Clock::now();
  const TuneTarget& base = tune_target(routine);
  std::map<std::string, std::string> routine_options = option_values(base, options.routine_options);
  const TuneTarget target = base.configure ? base.configure(routine_options) : base;
  const KernelSpec& spec = kernel_spec(target.kernel);
  const QueueContext qc = queue_context_of(queue);
  const DeviceInfo& dev = *qc.info;
  if (const std::string skip = tune_target_skip(target, dev); !skip.empty())
    throw InvalidArgument("tune " + routine + ": " + spec.name + " is a " + skip + ", not tuned on \"" + dev.name +
                          "\" (a " + dev.type + " device), where the library never chooses it");
  check_tune_request(queue, options);

  TuneResult result = start_result(routine, spec, routine_options, dev, options);
  add_size_classes(target, options, result.classes);
  RunCache cache = open_run_cache(dev, spec, routine_options, options, result.classes);
  const std::uint64_t seed = run_seed(options, cache);
  result.seed = seed;
  result.cache_path = cache.file.path();

  // An unreadable user database is reported (with its path) before any work, also when
  // CLFORGE_TUNING=off keeps resolve_configuration from reading it.
  if (options.store) check_user_database(dev);
  std::vector<Space> spaces = build_class_spaces(target, spec, dev, options, seed, result.classes);
  if (options.replay) replay_spaces(cache.file, cache.keys, cache.cached, spec, spaces, result.classes);
  result.replay = options.replay;
  result.strategy = pick_strategy(result.strategy, options, spec, spaces);
  if (options.dry_run) {
    result.elapsed_s = seconds_since(start);
    return result;
  }

  const std::unique_ptr<CompileWorkers> workers = start_compile_workers(options, qc);
  const CompileWorkerScope worker_scope(workers.get());
  for (std::size_t i = 0; i < result.classes.size(); ++i) {
    TuneClassResult& c = result.classes[i];
    const Clock::time_point deadline = class_deadline(options, start, result.classes.size(), result.classes.size() - i);
    ClassCache class_cache = class_cache_for(cache, i, seed, options.resume, options.replay);
    // What the class's plans resolve now: a row an earlier class stored may be theirs too (a
    // sub-variant falls back to its family's rows: "16:real" to "16", "small:batch" to
    // "small"). Resolved before the run, a real-input class of the H200's cold start of
    // 2026-12-01 took the default as current, kept it and stored nothing, and its plans then
    // ran the complex class's row, 2.3x slower (real n = 32).
    if (options.store && i > 0) c.current_params = resolve_configuration(spec.name, c.variant, dev, Tuning{}).values;
    {
      ClassTuner tuner(queue, target, spec, options, result.strategy, c, seed + 1000 * i, start, deadline, i,
                       result.classes.size(), class_cache);
      tuner.set_sibling_seeds(sibling_bests(result.classes, i));
      tuner.set_prior_rows(prior_rows(result.classes, i));
      if (!tuner.run(spaces[i])) result.interrupted = true;
    }
    settle_class(c, result, cache.file, dev, target, spec, options);
    if (result.interrupted) break;
  }
  result.cache_error = cache.file.error();
  result.elapsed_s = seconds_since(start);
  return result;
}

}  // namespace clforge
