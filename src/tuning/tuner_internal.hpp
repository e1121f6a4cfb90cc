// The tuner's internal parts, shared by its files: the search space of a size class
// (tuner_space.cpp) and the tuner of one size class (ClassTuner): compiling, verifying, timing
// and recording candidates (tuner_class.cpp), the annealing walk (tuner_anneal.cpp), the
// model-guided search (tuner_model.cpp) and the run-off (tuner_runoff.cpp); measurements go to and
// come from the tune cache (tuner_cache.hpp), which a replay searches alone (tuner_replay.cpp).
// clforge::tune() (tuner.cpp) drives them and stores the results.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "clforge/opencl.hpp"
#include "clforge/tuning.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/timing.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"
#include "tuning/tuner_cache.hpp"
#include "tuning/tuner_testing.hpp"

namespace clforge::detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Threads compiling a batch of candidates (TuneOptions::compile_threads), with or without
// compile workers (each thread then waits on a worker process, so more of them pay).
inline unsigned compile_thread_count(const TuneOptions& opt, bool workers) {
  if (opt.compile_threads != 0) return opt.compile_threads;
  return std::max(1u, std::min(workers ? 8u : 4u, std::thread::hardware_concurrency()));
}

// Adds the seconds of its lifetime to `into`, however the scope ends (a throw included).
struct AddSeconds {
  double& into;
  Clock::time_point t0 = Clock::now();
  ~AddSeconds() { into += seconds_since(t0); }
};

// Spaces up to this many combinations are enumerated; a larger one is sampled (build_space).
inline constexpr std::size_t kMaxSpace = 4000000;

// ------------------------------------------------------------------ search space

// A set of points of one space, each by its values in the space's name order: far cheaper than
// a set of maps for the spaces of 10^5 - 10^6 points. A map with other names is never in it.
class PointSet {
 public:
  explicit PointSet(std::vector<std::string> names) : names_(std::move(names)) {}
  bool insert(const ParamMap& p);               // false: held already; std::logic_error for other names
  bool insert_values(std::vector<int> values);  // the values in the names' order
  bool contains(const ParamMap& p) const;

 private:
  bool key(const ParamMap& p, std::vector<int>& out) const;
  struct Hash {
    std::size_t operator()(const std::vector<int>& v) const;
  };
  std::vector<std::string> names_;
  std::unordered_set<std::vector<int>, Hash> set_;
};

/// A point of a space by the position of each parameter's value among its searched values
/// (-1: not one of them), in the space's parameter order: a few bytes a point where a ParamMap
/// takes a tree of strings (spaces hold up to 10^6 candidates).
using Code = std::vector<int>;

struct Space {
  std::vector<std::string> names;        // spec parameter order
  std::vector<std::vector<int>> values;  // values searched per parameter
  std::vector<Code> candidates;          // legal and fitting: all (enumeration order) or a sample
  std::size_t total = 0, illegal = 0, unfit = 0;
  bool sampled = false;                             // candidates are a random sample; illegal/unfit count draws
  std::size_t draws = 0;                            // combinations drawn (sampled) or enumerated
  std::function<bool(const ParamMap&)> admissible;  // legal and fitting (any point of the space)

  /// Candidate i as parameters, and as values in the parameter order.
  ParamMap candidate(std::size_t i) const;
  std::vector<int> candidate_values(std::size_t i) const;
  /// The code of p (positions -1 where p lacks a parameter or its value is not searched).
  Code code(const ParamMap& p) const;
};

// The space of one size class: the kernel's declared values, or restrict_to's lists for the
// parameters it names (InvalidArgument for an unknown parameter or an illegal value), pruned by
// the kernel's constraints and the device's limits; enumerated, or sampled with `seed` when it
// is larger than kMaxSpace.
Space build_space(const KernelSpec& spec, const std::map<std::string, std::vector<int>>& restrict_to,
                  const std::string& variant, const DeviceInfo& dev, std::uint64_t seed);

// The class's reference row as the search measured it (verified, timed), or null.
inline const TuneRow* reference_row(const std::vector<TuneRow>& rows) {
  const auto it = std::find_if(rows.begin(), rows.end(), [](const TuneRow& r) {
    return r.is_default && r.status == CandidateStatus::Ok && r.ms > 0;
  });
  return it == rows.end() ? nullptr : &*it;
}

// Whether p is a point of the space: each searched parameter set to one of its searched values,
// and the combination admissible.
bool space_holds(const Space& space, const ParamMap& p);
// The point of the space nearest p: each parameter whose value the space does not search set to
// the nearest searched value (the smaller of two as near; the first where p lacks it), and where
// that combination is not admissible, the candidate differing from it in the fewest parameters
// (the first of them in the space's order). Where a neighbouring class's winner lands in this
// class's space, e.g. an FFT length above the default's FFT_LOCAL_MAX, whose space holds the one
// limit that makes it one kernel (and only the local-memory halvings that fit).
ParamMap project_onto(const Space& space, const ParamMap& p);
// A point of the space that keeps p's value of `axis`: p itself when it is one, else p with one
// other parameter changed, else (max_changes 2) two (each to the values nearest p's first,
// parameters in the space's order); none when no such point exists. A seed axis's step (an
// SGEMM work-group of 16 x 8 work-items) made admissible by the parameters coupled to it (the
// tile-loading shape).
std::optional<ParamMap> repair_keeping(const Space& space, const ParamMap& p, const std::string& axis,
                                       int max_changes = 2);
// The same, keeping p's values of every parameter in `kept` (a seed link's step: TuneTarget::seed_links).
std::optional<ParamMap> repair_keeping(const Space& space, const ParamMap& p, const std::vector<std::string>& kept,
                                       int max_changes = 2);
// The one-step neighbours of p that are points of the space: each parameter to the next or
// previous value in its list, where that is no point of the space with one other parameter
// changed (repair_keeping); the model strategy's local moves around its best candidates.
std::vector<ParamMap> space_neighbours(const Space& space, const ParamMap& p);

struct Peaks;

// The shipped rows of the kernel for the variant (exact or "*"), each completed with `defaults`
// for the parameters it does not name, that are points of the space (their values among those
// searched, legal, fitting the device), without repeats. Without the device's peaks (nullptr):
// rows matching the device first, then rows of its vendor class, then the others, each group in
// file order. With them, in the lookup's tiers (nearest.hpp: own rows, rows of the vendor class
// nearest by peaks first, vendor rows, other vendor classes' rows nearest first, default), then
// the rows that do not apply, those of its vendor class first. On a device nobody tuned for, the
// configurations that are fast on similar devices are the likeliest to be fast here.
std::vector<ParamMap> seed_candidates(const KernelSpec& spec, const Space& space, const std::string& variant,
                                      const ParamMap& defaults, const DeviceInfo& dev, const Peaks* peaks);

// ------------------------------------------------------------------ one size class

// How the tuner samples a candidate's runs (TuneOptions' warm-up, repetitions and minimum time,
// regions of back-to-back calls, and runs of over 5 minimum times sampled as the benchmarks'
// host peers are: one warm-up, three samples).
TimingPlan tune_timing_plan(const TuneOptions& opt);

// The tune cache as a size class sees it.
struct ClassCache {
  TuneCache* file = nullptr;         // where each evaluated candidate is appended (nullptr: nowhere)
  std::string key;                   // the class's key there
  std::map<ParamMap, TuneRow> rows;  // results taken instead of measuring (resume, replay)
  bool replay = false;               // every result comes from rows: no instances are made
};

// The tune cache of a run: the file, each class's key and, on resume, what the file holds for them.
struct RunCache {
  TuneCache file;
  std::vector<CacheKey> keys;
  std::map<std::string, CachedRun> cached;
};

RunCache open_run_cache(const DeviceInfo& dev, const KernelSpec& spec,
                        const std::map<std::string, std::string>& routine_options, const TuneOptions& options,
                        const std::vector<TuneClassResult>& classes);
// The tune cache as class i sees it: its key, the rows cached for it, and a run header written
// unless the class continues its own run (or replays it: then nothing is written).
ClassCache class_cache_for(RunCache& cache, std::size_t i, std::uint64_t seed, bool resume, bool replay);

// A replay's options (TuneOptions::replay): nothing stored, no run-off; InvalidArgument without a
// tune cache. Other options are returned as they are.
TuneOptions replay_options(const TuneOptions& asked);
// Restricts each class's space to the configurations the cache holds for its key (counted in the
// class); InvalidArgument when the cache cannot be read, holds nothing for a class or lacks the
// class's default (which a replay takes first, as every run measures it first).
void replay_spaces(const TuneCache& file, const std::vector<CacheKey>& keys,
                   const std::map<std::string, CachedRun>& cached, const KernelSpec& spec, std::vector<Space>& spaces,
                   std::vector<TuneClassResult>& classes);

// TuneOptions::screen_costly_sizes: which timed sizes the search times, from the first timed
// candidate's median per size (true: searched; false: left to the run-off). Every size when
// there is one.
std::vector<bool> searched_sizes(const std::vector<double>& first_ms, double min_time_ms, int min_reps);
class ClassTuner {
 public:
  ClassTuner(cl::CommandQueue& queue, const TuneTarget& target, const KernelSpec& spec, const TuneOptions& opt,
             TuneStrategy strategy, TuneClassResult& out, std::uint64_t seed, Clock::time_point start,
             Clock::time_point deadline, std::size_t class_index, std::size_t class_count, ClassCache& cache);

  // Returns false when stopped through the stop flag.
  bool run(const Space& space);
  // The fastest configurations of the size classes tuned before this one in the same call,
  // nearest first: the first of them (as many as a batch of --threads holds, at least two) are
  // evaluated first among the seeds, projected onto this class's space, so that each class
  // starts from what its neighbours found.
  void set_sibling_seeds(std::vector<ParamMap> seeds) { siblings_ = std::move(seeds); }
  // What the size classes tuned before this one in the same call measured: each verified row's
  // configuration with its log time relative to its class's reference (prior_rows, tuner.cpp).
  // The model strategy fits them beside the class's own rows, at a quarter of their weight and
  // shifted to this class's reference time, and ranks its first batch by that fit instead of
  // drawing it at random.
  struct PriorRow {
    ParamMap params;
    double log_ratio = 0;
  };
  void set_prior_rows(std::vector<PriorRow> rows) { prior_ = std::move(rows); }

 private:
  bool stopped() const { return opt_.stop != nullptr && opt_.stop->load(); }
  std::size_t left() const { return r_.tried >= total_ ? 0 : total_ - r_.tried; }
  bool may_continue() const { return !stopped() && left() > 0 && Clock::now() < deadline_; }
  // A compiled candidate may still be evaluated past the class's share: until `until` (the
  // batch's compiles ended plus as long again: the evaluations then cost at most what the
  // compiles did) and within the run's --time. On the H200 (tune all, 2026-11-30) a first
  // batch of FFT candidates compiled past the share of 4 s and was dropped whole, so most
  // classes measured the default alone.
  bool may_finish(Clock::time_point until) const {
    return !stopped() && left() > 0 && Clock::now() < until && !run_time_is_up();
  }
  // The run's --time, or this class's deadline where that ends later (class_deadline's floor).
  bool run_time_is_up() const {
    return opt_.time_limit_s > 0 && seconds_since(start_) >= opt_.time_limit_s && Clock::now() >= deadline_;
  }
  // Another batch is started only if the last one (compiles and evaluations) would still end
  // before the time limit, so that a --time run ends within its budget rather than after it,
  // and while the class still gains (stalled).
  bool may_start_batch() const {
    return may_continue() &&
           (deadline_ == Clock::time_point::max() || (Clock::now() + last_batch_ <= deadline_ && !stalled()));
  }
  // Under a time limit, past half its share, the class has gone two batches and as many
  // candidates as it took to find its best without making the best kStarMove faster: the rest
  // of its share goes to the classes after it (class_deadline) and, at a tune all job's end, to
  // the jobs after it. On the H200 (cold start of 2026-12-01) the direct blur's class found its
  // best at its 38th candidate of 184 and the fused recursive blur's at its 2nd of 55, while the
  // FFT's classes of 3000 to 2^20 points measured 2 to 5 candidates each. Not while a climb
  // (climb()) goes on: its stars end at their first move and stop where one makes none.
  bool stalled() const;
  // p as KernelSpec::canonical represents it on the device (p itself without one); whether p, or
  // a configuration that builds the same kernel, was visited; visit records p so.
  ParamMap representative(const ParamMap& p) const;
  bool visited(const ParamMap& p) const;
  void visit(const ParamMap& p);
  // Whether p is worth adding to a batch being gathered: not visited, and no member of `batch`
  // builds the same kernel (two raw configurations of one representative would build it twice).
  bool fresh_for(const std::vector<ParamMap>& batch, const ParamMap& p) const;

  // Compiles the batch concurrently and evaluates its members on this thread: where overlap_
  // says so, the references first, then those the tune cache holds, then the others in the order
  // their builds end, each as soon as it has; else in order once every build has ended. A member
  // the cache holds is taken from it, neither compiled nor run. Its first `references` members
  // (the default and the current configuration) are evaluated past the time limit too; with
  // `whole` (the class's first batch) the others are built and evaluated past the class's share,
  // within the run's time.
  void evaluate_batch(const std::vector<ParamMap>& batch, std::size_t references, bool whole = false);
  // The candidates of `order` not evaluated yet, in batches of --threads, while the budget and
  // time allow another batch; until_moved: up to the first batch that makes the best kStarMove
  // of what it was or faster (a star's early end). Returns how many of `order` it went through.
  std::size_t evaluate_in_order(const std::vector<ParamMap>& order, bool until_moved = false);
  static constexpr double kStarMove = 0.98;
  // After the references, before the strategy's order: the fastest of the earlier size classes
  // (set_sibling_seeds), then each searched value of the target's seed axes on the best so far
  // (TuneTarget::seed_axes), then the shipped rows of other devices (seed_candidates), nearest
  // first; those that are points of the space, within the budget and time. With
  // TuneTarget::seed_neighbours, then the star around each new best while one moves it and the
  // class's share holds two more stars at the last one's pace.
  void evaluate_seeds(const Space& space);
  // Each searched value of the target's seed axes on `base` (TuneTarget::seed_axes); some may be
  // no point of the space. With TuneTarget::seed_neighbours the steps are star_steps instead.
  std::vector<ParamMap> axis_seeds(const Space& space, const ParamMap& base) const;
  // A climb's star on `base` (TuneTarget::seed_neighbours): the steps of each seed axis, the
  // ends of TuneTarget::seed_ends (end_step), then the steps of each seed link (link_steps), from
  // the unit `first` on and round; unit[i] is points[i]'s (the seed axes' index, then the ends',
  // then the links'; kNone for a point of no unit: a lead, another device's row).
  struct Star {
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<ParamMap> points;
    std::vector<std::size_t> unit;
  };
  Star star_steps(const Space& space, const ParamMap& base, std::size_t first) const;
  // The climb after the first star (evaluate_seeds): stars around each new best, each starting
  // at the unit after the last one its predecessor reached, led by the move that made the new
  // best carried on (pattern_step) and the predecessor's gaining steps combined (combined_step).
  void climb(const Space& space, ParamMap centre, double centre_ms, Star star, std::size_t went, Clock::duration pace);
  // The new best moved on as far again from the old centre (each parameter the move changed one
  // more step the same way: Hooke and Jeeves's pattern move), made a point of the space keeping
  // those (repair_keeping); nullopt when no parameter can go on.
  static std::optional<ParamMap> pattern_step(const Space& space, const ParamMap& centre, const ParamMap& best);
  // The new best with the other steps of a star that were faster than its centre applied where
  // they change an axis the best keeps at the centre's value; nullopt when that is no other point.
  std::optional<ParamMap> combined_step(const Space& space, const ParamMap& centre, double centre_ms,
                                        const std::vector<ParamMap>& steps, const ParamMap& best) const;
  // The steps of one seed link on `base`: its axes one step down together, then one step up, each
  // made a point of the space keeping the link's values (repair_keeping); none past a list's end.
  static void link_steps(const Space& space, const ParamMap& base, const std::vector<std::string>& link,
                         std::vector<ParamMap>& out);
  // `base` with `axis` at the last value of its list, made a point of the space keeping it
  // (repair_keeping); none where `base` has it there already or no repair holds it.
  static void end_step(const Space& space, const ParamMap& base, const std::string& axis, std::vector<ParamMap>& out);
  // Makes the instances: the timed sizes verified on a sample, the check sizes in full.
  void make_instances();
  // Verifies one candidate on the timed sizes (outputs poisoned; with `check`, on the check sizes
  // too), then times it there; may_cut: its timing may stop at the cut-off (not for the
  // references, which are verified on the check sizes too).
  TuneRow evaluate(const ParamMap& p, const TuneFault& fault, const std::exception_ptr& build_error, bool may_cut,
                   bool check);
  // Runs and checks the candidate on the timed sizes (with `check`, on the check sizes next);
  // false (row rejected) at the first wrong one.
  bool verify(const ParamMap& p, const TuneFault& fault, TuneRow& row, bool check);
  // Builds a verified candidate's programs for the check sizes and verifies it there, once
  // (TuneRow::checked): for the candidate about to be the class's result (settle_best). False
  // when it is rejected there (or fails to build or run: its status says, the class counts it,
  // and the tune cache records it again with that status). A replay has no instances: its rows
  // stay as the cache recorded them.
  bool check_row(TuneRow& row);
  // The class's result: the run-off's fastest that trades no size (else the search's fastest)
  // that passes the check sizes, the next one while one is rejected there (check_row).
  void settle_best();
  // The verified rows timed in full (not cut short), fastest first (stable: search order on ties).
  std::vector<TuneRow*> timed_rows();
  // One batch's builds (tuner_build.cpp), on up to threads_ threads from its construction on.
  // Per candidate: its error, build time, whether every instance was built (or failed to),
  // whether its compile was given up, and when its build ended. Past the class's time no
  // candidate's build starts (but the first batch's), past the run's no instance's. Past the
  // class's time a compile that has run kGiveUpFactor times the class's typical compile (at least
  // kGiveUpMinS) is given up (CompileGiveUpScope: a worker process's compile ends; one in this
  // process cannot), the references' and the first batch's never. wait(i) returns once candidate
  // i's build has ended, watching the others meanwhile; finish() skips the builds not started and
  // waits for those running (the destructor too).
  class BatchBuild {
   public:
    BatchBuild(const ClassTuner& tuner, const std::vector<ParamMap>& batch, std::size_t references, bool whole,
               const std::vector<const TuneRow*>& cached, const std::vector<TuneFault>& faults);
    ~BatchBuild() { finish(); }
    BatchBuild(const BatchBuild&) = delete;
    BatchBuild& operator=(const BatchBuild&) = delete;
    void wait(std::size_t i);
    // The lowest index whose build has ended that `taken` does not hold, once there is one
    // (watching the others meanwhile); the batch's size when `taken` holds every index.
    std::size_t wait_any(const std::vector<char>& taken);
    void wait_all();
    void finish();

    std::vector<std::exception_ptr> errors;
    std::vector<double> compile_s;
    std::vector<char> built, given_up;
    std::vector<char> started;  // its build began (marked in the tune cache)
    std::vector<Clock::time_point> ended;

   private:
    void build_one(std::size_t i);
    void watch();
    const ClassTuner& tuner_;
    const std::vector<ParamMap>& batch_;
    const std::size_t references_;
    const bool whole_;
    const std::vector<const TuneRow*>& cached_;
    const std::vector<TuneFault>& faults_;
    std::vector<std::atomic<bool>> give_up_;
    std::vector<std::atomic<std::int64_t>> running_since_;  // steady-clock ns while building, else 0
    std::vector<char> done_;                                // under mutex_
    std::atomic<std::size_t> next_{0};
    std::atomic<bool> skip_rest_{false};
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::thread> pool_;
  };
  double typical_compile_s() const;
  static void simulated_compile(double seconds, const std::atomic<bool>& give_up);
  static constexpr double kGiveUpFactor = 4, kGiveUpMinS = 2;
  static constexpr int kWatchMs = 50;
  // Runs and checks the candidate on each instance of `group` (timed: the timed sizes, whose
  // single_event_ it sets); false (row rejected) at the first wrong one.
  bool verify_group(std::vector<std::unique_ptr<TuneInstance>>& group, const ParamMap& p, const TuneFault& fault,
                    bool timed, TuneRow& row);
  // Runs `body` for the row of `p`, turning a build error or a failed run into its status.
  void guarded(const ParamMap& p, TuneRow& row, const std::function<void()>& body);
  // The configuration the tuner builds for `p`.
  Configuration config_of(const ParamMap& p) const;
  // The fault hook's answer for a candidate, asked once per candidate (tuner_testing.hpp).
  const TuneFault& fault_of(const ParamMap& p);
  // The fault hook's corruption of one output (tuner_testing.hpp).
  static void apply_fault(const TuneFault& fault, const TuneInstance& inst, bool timed, std::vector<float>& out);
  // Times a verified candidate on the timed sizes (row.ms, cut_short, timing_s).
  void time_candidate(const ParamMap& p, const TuneFault& fault, bool may_cut, TuneRow& row);

  // A candidate's score: the geometric mean over the class's timed sizes of its median times
  // (log_ms of each, summed), each scaled by the fault hook's time_scale. The floor (a timer that
  // read 0) applies to the measured time, so that scales set candidates apart whatever it read.
  static double log_ms(const Timing& t, double scale) {
    return std::log(std::max(t.median_ms, 1e-9)) + std::log(scale);
  }
  // The fault hook's scale of a candidate's time on timed size k.
  static double fault_scale(const TuneFault& f, std::size_t k) {
    return f.time_scale * (k < f.size_time_scale.size() ? f.size_time_scale[k] : 1.0);
  }
  double class_score(double log_sum, std::size_t sizes) const {
    return std::exp(log_sum / static_cast<double>(std::max<std::size_t>(1, sizes)));
  }
  bool searched(std::size_t k) const { return searched_.empty() || searched_[k]; }
  void update_speedup() { r_.speedup = r_.default_ms > 0 && r_.best_ms > 0 ? r_.default_ms / r_.best_ms : 0; }

  // The run-off (TuneOptions::finalists) after the search (tuner_runoff.cpp): each size's label
  // and, per finalist, its log time on each size (logs[i][k]).
  struct RunoffTimes {
    std::vector<std::string> labels;
    std::vector<std::vector<double>> logs;
  };
  void runoff();
  void time_runoff_size(const std::vector<const TuneRow*>& finalists, TuneInstance& inst, RunoffTimes& times);
  // The class's untimed sizes: each timed (time_runoff_size) unless far costlier than the timed ones.
  void time_untimed_sizes(std::vector<const TuneRow*>& finalists, RunoffTimes& times);
  // Narrows the run-off to its leader and the references (the run's time is up at `size`).
  void keep_leader(std::vector<const TuneRow*>& finalists, RunoffTimes& times, const std::string& size);
  // Marks the run-off rows that trade a size for the others against the current configuration
  // (TuneRow::trades_sizes).
  void mark_size_trades(const std::vector<const TuneRow*>& finalists, const RunoffTimes& times);

  // Counts a row's failed status (rejected, failed to build or to run) in the class.
  void count_failure(CandidateStatus status);
  // Logs a rejected row and why.
  void log_rejected(const TuneRow& row) const;
  // Counts the row, keeps the best so far and reports progress.
  void record(const TuneRow& row);
  // Calls the progress callback: after `row`, or with class_done when row is nullptr.
  void report(const TuneRow* row);

  // The anneal strategy's walk through the space (tuner_anneal.cpp).
  void anneal(const Space& space);
  // The model strategy's surrogate-guided batches (tuner_model.cpp).
  void model(const Space& space);

  cl::CommandQueue& queue_;
  QueueContext qc_;
  const TuneTarget& target_;
  const KernelSpec& spec_;
  const TuneOptions& opt_;
  TuneStrategy strategy_;
  TuneClassResult& r_;
  std::mt19937_64 rng_;
  std::uint64_t seed_;
  Clock::time_point start_, class_start_, deadline_;
  std::size_t class_index_, class_count_;
  TimingPlan plan_;
  unsigned threads_ = 1;
  // A batch's candidates are evaluated while its others still compile: on devices other than CPUs,
  // whose timings the compiles would disturb (tuner_testing.hpp's hook may say otherwise).
  bool overlap_ = false;
  std::size_t total_ = 0;
  ClassCache& cache_;
  std::vector<ParamMap> siblings_;
  std::vector<PriorRow> prior_;
  Clock::duration last_batch_{0};  // duration of the last evaluate_batch
  // stalled's record: the batches begun, and at the last move of the best by kStarMove (or its
  // first), that best, the candidates tried and the batch.
  std::size_t batches_ = 0, batches_at_move_ = 0, tried_at_move_ = 0;
  bool climbing_ = false;  // the seeds' star and the climb after it (evaluate_seeds)
  double move_ref_ms_ = 0;
  std::vector<std::unique_ptr<TuneInstance>> timed_, checked_;
  std::map<ParamMap, TuneFault> faults_;  // fault_of's answers
  std::vector<bool> single_event_;        // per timed size: one kernel's event (else between markers)
  std::vector<double> best_size_ms_;      // per timed size: the median (scaled) of the best timed in full
  std::vector<bool> searched_;            // per timed size: timed in the search (empty: every one)
  double best_full_ms_ = 0;               // that candidate's score
  PointSet valid_{{}};                    // the candidates
  // The configurations evaluated (or given up), as KernelSpec::canonical represents them on the
  // device: one that builds the kernel of a visited one is visited too.
  std::set<ParamMap> visited_;
};

}  // namespace clforge::detail
