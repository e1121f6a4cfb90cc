// Tuning parameters: each kernel declares its parameters once (names, legal values,
// constraints); values are looked up in a chain of JSON databases and passed to the
// OpenCL compiler as -D NAME=VALUE.
//
// Lookup, first hit per parameter wins:
//   explicit overrides (API, CLI --param)
//   CLFORGE_TUNING_FILE
//   user database written by `clforge tune` (per device, unless disabled)
//   shipped database: exact device name -> architecture -> vendor class -> "default"
// Each level is searched for the exact variant (e.g. element size, FFT length) first,
// then for the kernel's generic "*" variant. Where the device's peaks are stored in its user
// database (store_device_peaks, `clforge peak`), each database's rows of other devices of its
// type that carry the peaks they were tuned at come after its device and architecture rows,
// nearest by peaks first: those of its vendor class before its vendor rows, the others after
// them, all before "default" (docs/tuning.md).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clforge/device.hpp"

namespace clforge {

using ParamMap = std::map<std::string, int>;

/// Per-call tuning options accepted by every routine.
struct Tuning {
  ParamMap overrides;         ///< explicit values; an unknown name throws InvalidArgument
  bool user_database = true;  ///< false: ignore the user database (also CLFORGE_TUNING=off)
};

/// One declared parameter of a kernel.
struct ParamInfo {
  std::string name;
  int default_value = 0;
  std::vector<int> legal;  ///< the values a database or override may use
  std::string help;
  bool launcher_only = false;  ///< read by the host alone: left out of the kernel's build options
};

/// The resolved parameter set for (kernel, variant, device), with where each value came from.
struct Configuration {
  std::string kernel;
  std::string variant;
  ParamMap values;
  std::map<std::string, std::string> sources;  ///< name -> "override", "file:<path> [NVIDIA]", ...
  std::vector<std::string> notes;              ///< fallbacks applied to fit the device
  int at(const std::string& name) const;       ///< throws Error on unknown name
};

/// Names of every kernel family with a tuning space ("transpose", "sgemm", ...).
std::vector<std::string> tunable_kernels();
/// Declared parameters of one kernel. Throws InvalidArgument for an unknown kernel.
std::vector<ParamInfo> kernel_parameters(const std::string& kernel);

/// Resolves the parameters of a kernel for a device. Database values that do not fit the
/// device are shrunk to a fitting configuration (recorded in notes); explicit overrides that
/// do not fit throw InvalidArgument. Bad database files throw TuningError.
Configuration resolve_configuration(const std::string& kernel, const std::string& variant, const DeviceInfo& device,
                                    const Tuning& tuning = {});

/// Parses "NAME=VALUE" into overrides; throws InvalidArgument on malformed text.
void parse_param_assignment(const std::string& text, ParamMap& into);

/// The user database file for a device (inside user_tuning_dir()).
std::string user_database_path(const DeviceInfo& device);

/// Writes (kernel, variant) -> values into the user database of a device, atomically
/// (temp file then rename). An existing file that cannot be parsed is not overwritten:
/// TuningError names it.
/// The row carries the device's stored peaks (store_device_peaks) when there are any.
void store_user_entry(const DeviceInfo& device, const std::string& kernel, const std::string& variant,
                      const ParamMap& values, const std::string& note = {});

/// A device's measured ceilings (`clforge peak`).
struct DevicePeaks {
  double copy_gbs = 0;    ///< copy bandwidth in GB/s (bytes read + written per second)
  double fma_gflops = 0;  ///< FMA throughput in GFLOP/s (float)
};

/// Stores the peaks of a device in its user database (the "peaks" object beside its entries,
/// written atomically), replacing any stored before. From then on the lookup with the user
/// database takes the rows of the devices nearest by peaks where the device has no rows of its
/// own, and the tuner's seed candidates come nearest first. Throws InvalidArgument for a value that
/// is not a positive number, TuningError (file left as it is) when the file cannot be parsed.
void store_device_peaks(const DeviceInfo& device, double copy_gbs, double fma_gflops);

/// The peaks stored for a device; nullopt when none are. Throws TuningError, naming the file and
/// the key, when the file or its peaks object cannot be parsed.
std::optional<DevicePeaks> stored_device_peaks(const DeviceInfo& device);

// ====================================================================================
// The tuner: search, verify, time and store parameters from a program (`clforge tune` is
// a thin front end over tune()). docs/tuning.md describes the whole procedure.
//
// For each size class of the routine (the database variant the routine's launcher looks
// up, e.g. the element size "4" for transpose), the tuner
//   1. builds the search space: the kernel's declared legal values (or the subset given in
//      TuneOptions::param_values), minus combinations the kernel's check rejects, minus those
//      that do not fit the device (work-group size, local memory);
//   2. measures the reference first: the configuration the library uses without the user
//      database (shipped database, CLFORGE_TUNING_FILE if set), called "default", then the
//      "current" configuration (with the user database) where it differs;
//   3. takes candidates in strategy order, compiles a batch of them concurrently (a build
//      failure is counted and skipped; its log goes to the log hook at Debug level), and
//      for each, once built (in the order the builds end; on CPU devices in batch order once
//      the whole batch is): runs it on random data with NaN-poisoned outputs, verifies the
//      result against the host reference (a wrong result is counted as rejected, never kept),
//      and times it with profiling events (median of repetitions); under a time limit a class
//      that stops gaining ends early;
//   4. times the fastest again beside the default and the current one (the run-off), and
//      stores the fastest there in the user database of this device under (kernel, variant),
//      atomically, unless it beats the current configuration by no more than
//      TuneOptions::min_gain.
// Every evaluated candidate is appended to the tune cache as it is measured; a later call
// with TuneOptions::resume takes the cached measurements instead of measuring them again.
// The lookup order above applies to later calls unchanged: the stored user entry comes
// after overrides and CLFORGE_TUNING_FILE and before the shipped database, and is ignored
// with Tuning::user_database = false or CLFORGE_TUNING=off. The variant stored is exactly the
// one the routine's launcher resolves (exact variant first, then "*").
// ====================================================================================

/// Search order over the candidate space.
enum class TuneStrategy {
  Auto,        ///< Model when a budget or time limit is given, else Anneal when the space is too
               ///< large to enumerate (sampled), else Exhaustive
  Exhaustive,  ///< every candidate in declaration order (values in the order declared)
  Random,      ///< the space shuffled with TuneOptions::seed
  Anneal,      ///< simulated annealing: neighbours differ in one parameter by one step
  /// Model-guided: after a small random batch, a ridge regression of log(time) on each
  /// parameter's value (fitted to every measurement of the size class, failures as slow ones,
  /// and at a quarter of the weight to those of the classes tuned before it in the same call,
  /// which then replace the random batch) ranks the candidates not yet tried; each batch takes
  /// the best predicted, less an exploration bonus for values seldom measured, with a share of
  /// random picks.
  Model
};
/// "auto", "exhaustive", "random", "anneal", "model".
const char* to_string(TuneStrategy s);
/// Parses the names above; throws InvalidArgument otherwise.
TuneStrategy parse_tune_strategy(const std::string& name);

/// What happened to one evaluated candidate.
enum class CandidateStatus {
  Ok,           ///< verified and timed
  Rejected,     ///< wrong result against the host reference (or outputs left unwritten)
  BuildFailed,  ///< the OpenCL compiler refused it
  RunFailed     ///< an OpenCL error while running it (e.g. CL_OUT_OF_RESOURCES)
};
/// "ok", "rejected", "build failed", "run failed".
const char* to_string(CandidateStatus s);

/// Progress report after each evaluated candidate, and once more when a size class is over.
struct TuneProgress {
  std::string routine;
  std::string variant;     ///< size class being tuned
  std::size_t done = 0;    ///< candidates evaluated in this size class, default included
  std::size_t cached = 0;  ///< of done, taken from the tune cache (TuneOptions::resume)
  std::size_t total = 0;   ///< planned for this size class (space or budget, whichever is smaller)
  std::size_t class_index = 0, class_count = 1;
  /// Share of the size class done, 0 to 1: done / total, or the share of the class's time
  /// limit used when that is larger (a --time run ends long before it has tried the space).
  double fraction = 0;
  /// The last report of the size class: its search and run-off are over (current is empty).
  bool class_done = false;
  double elapsed_s = 0;         ///< since tune() started
  double eta_s = -1;            ///< estimate of the time left for this size class; -1: unknown
  ParamMap current;             ///< the candidate just evaluated
  bool current_cached = false;  ///< its result came from the tune cache
  CandidateStatus status = CandidateStatus::Ok;
  double current_ms = 0;  ///< its time (Ok only)
  double best_ms = 0;     ///< fastest verified so far in this size class (0: none yet)
  double default_ms = 0;  ///< the reference (0: not measured)
  ParamMap best;
};

/// Settings of one tune() call. Every field has a usable default.
struct TuneOptions {
  /// Problem sizes in the routine's syntax (tune_routines() lists it); empty: the routine's
  /// default sizes. Sizes of the same size class are tuned together (score: geometric mean
  /// of their median times); each size class gets its own search and its own stored entry.
  std::vector<std::string> sizes;
  /// At most this many sizes per size class are timed by the search: for a routine that
  /// measures a size's work (SGEMM, FFT), those at the middles of equal parts of the class
  /// sorted by work (for two, its quartiles), else the first ones of `sizes` in that class;
  /// the run-off times the others (0: the search times every size). tune_all() over many
  /// sizes uses it to keep each candidate's evaluation short.
  std::size_t sizes_per_class = 0;
  TuneStrategy strategy = TuneStrategy::Auto;
  /// At most this many candidates evaluated per size class, the default and the current
  /// configuration included (they are evaluated whatever the budget; 0: no limit).
  std::size_t budget = 0;
  /// Wall-clock limit in seconds for the whole call, split evenly over the size classes left
  /// (0: none). Checked between candidates; the default is always measured.
  double time_limit_s = 0;
  /// Values to search per parameter (each must be legal); parameters not named take all
  /// their legal values (or the subset the routine's target narrows them to for a size class).
  std::map<std::string, std::vector<int>> param_values;
  /// Settings of the routine beyond its sizes, by name, e.g. {"method", "recursive"} and
  /// {"sigma", "10"} for blur (tune_routines() lists each routine's options); options not
  /// named take their defaults. An unknown name or value throws InvalidArgument.
  std::map<std::string, std::string> routine_options;
  /// Only build the space and report its counts: nothing compiled, run or stored.
  bool dry_run = false;
  /// Write the best configuration to the user database (checked for readability first).
  bool store = true;
  /// The best is stored only when it is faster than the current configuration (what the
  /// library uses now: the user database's entry, else the default) by more than this
  /// fraction of the best's time (0.02: 2 %); otherwise nothing is stored
  /// (TuneClassResult::no_gain). Must not be negative.
  double min_gain = 0.02;
  /// The tune cache: every evaluated candidate (parameters, time, or why it was rejected or
  /// failed, and its verification error) is appended to this file as it is measured (one JSON
  /// line each, written and fsync'd at once; a torn last line is skipped when read), under a key
  /// of the device (name, platform, driver), kernel, size class, sizes, routine options, clforge
  /// version, kernel sources and CLFORGE_BUILD_OPTIONS. A call without resume drops the
  /// records of its keys first. "": tune_cache_path() of the device; "off": no cache.
  std::string cache_file;
  /// Take the measurements the tune cache holds for this call's keys instead of measuring them
  /// again, and continue that run (with its seed when seed is 0): the search takes the same
  /// path, so with the same measurements it ends as an uninterrupted run would.
  bool resume = false;
  /// Replay a measured run: each size class searches only the configurations the tune cache
  /// holds for its key, and every result is taken from the cache (nothing compiled, run or
  /// stored; no run-off; the cache is not written). The same measurements for every strategy,
  /// so strategies are compared without device time or timing noise. Throws InvalidArgument,
  /// before any work, when there is no cache ("off") or it holds no measurement of a class's
  /// default configuration (every run measures it first, so the key's records are missing).
  bool replay = false;
  /// Seed of the random data, the random order and annealing (0: the resumed run's seed, else
  /// CLFORGE_TEST_SEED or clock).
  std::uint64_t seed = 0;
  /// Threads compiling candidates concurrently (0: min(4, hardware threads), or min(8, hardware
  /// threads) with compile workers); 1: no threads.
  unsigned compile_threads = 0;
  /// An executable that serves compiles when run as `EXE compile-worker P:D` (the clforge CLI
  /// does): each compile thread then hands its builds to a worker process of its own. Some
  /// drivers (NVIDIA's) serialise the compiles of one process, so threads alone do not overlap
  /// them. Used where the disk cache keeps the device's binaries (the workers leave them there):
  /// every driver but PoCL by default. "": compile on threads of this process.
  std::string compile_worker;
  /// Timing of each candidate: warm-up runs, then repetitions until both counts are met.
  int warmup = 1, min_reps = 5, max_reps = 50;
  double min_time_ms = 20;
  /// A candidate stops being timed on a size when the fastest of its first min(3, min_reps)
  /// samples there is slower than this factor times the best verified candidate's median on that
  /// size (TuneRow::cut_short); the default and the current configuration are always timed in
  /// full. 1.3: a candidate that would tie the best has its fastest sample above 1.3 times the
  /// best's median only under severe noise. 0: every candidate timed in full.
  double give_up = 1.3;
  /// The run-off: after the search, this many of its fastest verified candidates and the
  /// default are timed again, their repetitions interleaved on each size (twice the search's
  /// repetitions and minimum time), and the fastest there is the result. The search times each
  /// candidate alone, so on a device whose speed drifts (a shared CPU) its fastest may owe its
  /// place to a quiet moment. 0: no run-off, the search's fastest is the result.
  std::size_t finalists = 3;
  /// The search times each candidate on the class's cheap timed sizes only and the run-off on
  /// all of them (with finalists > 0): a size is left to the run-off when the first candidate
  /// timed (the default, unless it failed) took there more than twice its time on its fastest
  /// size and more than min_time_ms / min_reps (so that its repetitions, not the minimum time,
  /// set what timing it costs). tune_all() sets it: SGEMM's large class is timed on 4096^3 in
  /// the search and on 8192^3 too in the run-off. false: every timed size in the search.
  bool screen_costly_sizes = false;
  /// Called after every evaluated candidate, and once more when a size class is over
  /// (TuneProgress::class_done), from the calling thread.
  std::function<void(const TuneProgress&)> progress;
  /// Set (e.g. from a signal handler or the progress callback) to stop after the current
  /// candidate (TuneResult::interrupted). The measurements stay in the tune cache, and nothing is
  /// stored: a call with resume continues the search. Without a tune cache ("off", or one that
  /// could not be written) the best configuration so far is stored instead.
  const std::atomic<bool>* stop = nullptr;
};

/// One evaluated candidate.
struct TuneRow {
  ParamMap params;
  CandidateStatus status = CandidateStatus::Ok;
  double ms = 0;            ///< geometric mean over the class's sizes of the median time (Ok only)
  double error = 0;         ///< largest relative error found by verification
  std::string message;      ///< why it was rejected or failed
  bool is_default = false;  ///< the reference configuration
  bool is_current = false;  ///< the current configuration (TuneClassResult::current_params; may be the default)
  bool cached = false;      ///< taken from the tune cache, not measured by this call
  /// Its timing stopped early: the fastest of its first samples on a size was already slower
  /// than the cut-off (TuneOptions::give_up, times the best's median there), so it cannot win.
  /// ms then scores the samples taken (the cut-off for sizes not timed): at least the cut-off on
  /// the size that stopped it. Such a row never becomes the best and takes no part in the run-off.
  bool cut_short = false;
  /// Run-off only: on one of the class's timed sizes it is slower than the current configuration
  /// by more than it is faster as a geometric mean (it trades that shape for the others), so it
  /// is never the best; message names the size. Such a trade is measured only where a class
  /// has several sizes and a run-off (TuneOptions::finalists > 0).
  bool trades_sizes = false;
  /// Verified on the class's check sizes too (odd shapes compared in full), not only on the
  /// sample of its timed sizes. The references are checked there with their first run, another
  /// candidate only when it is about to be the class's result (the run-off's fastest, else the
  /// search's; the next while one is rejected): a candidate that does not win costs no
  /// check-size programs. A row wrong there is Rejected. Routines without check sizes: true.
  bool checked = false;
  /// Where its time went, in seconds: compiling its programs (wall time on a compile thread),
  /// verifying it (poison, run, read back and check on every size) and timing it.
  double compile_s = 0, verify_s = 0, timing_s = 0;
};

/// The outcome for one size class (one stored database entry).
struct TuneClassResult {
  std::string variant;             ///< database variant the entry is stored under
  std::vector<std::string> sizes;  ///< sizes timed for it
  /// The class's other sizes (past TuneOptions::sizes_per_class): the search does not time
  /// them, the run-off does, so that a row stored for the class serves them too.
  std::vector<std::string> runoff_sizes;
  std::size_t space = 0;       ///< product of the value lists
  std::size_t illegal = 0;     ///< pruned by the kernel's constraints (of the draws, if sampled)
  std::size_t unfit = 0;       ///< pruned by the device's limits (of the draws, if sampled)
  std::size_t candidates = 0;  ///< left to search (space - illegal - unfit; of the draws, if sampled)
  /// The space had more than 4 million combinations: it was not enumerated but sampled (up to
  /// 400000 random draws, 20000 admissible candidates kept); the anneal and model strategies
  /// still step to any admissible neighbour, sampled or not. A replay (TuneOptions::replay)
  /// searches the cached configurations only: never sampled, and candidates counts them.
  bool sampled = false;
  std::size_t draws = 0;   ///< combinations drawn (sampled) or enumerated
  std::size_t tried = 0;   ///< evaluated, default included
  std::size_t cached = 0;  ///< of tried, taken from the tune cache
  std::size_t rejected = 0, build_failed = 0, run_failed = 0;
  ParamMap default_params;
  double default_ms = 0;  ///< 0 when the default did not verify or run
  /// What the library uses now for the class (the user database's entry over the default; the
  /// default when store is off). Evaluated after the default when it differs from it.
  ParamMap current_params;
  double current_ms = 0;  ///< 0 when the current configuration did not verify or run
  bool has_best = false;
  ParamMap best;
  double best_ms = 0;
  double speedup = 0;         ///< default_ms / best_ms (0 when either is missing)
  std::vector<TuneRow> rows;  ///< every evaluated candidate in evaluation order
  /// The run-off (TuneOptions::finalists), fastest first, when one was held: its times are
  /// the ones default_ms, best_ms and speedup report (rows keep the search's).
  std::vector<TuneRow> runoff;
  bool stored = false;  ///< written to the user database
  /// The rows the best is stored as, (variant, parameters): the class's variant alone, or for an
  /// FFT length run as passes its length's row and the pass rows its plan resolves
  /// (`pass<length>`, `pass<length>:later`). Set whenever there is a best, stored or not.
  std::vector<std::pair<std::string, ParamMap>> stored_rows;
  /// Where the class's time went: the sums over its measured rows (cached rows cost nothing),
  /// compile time summed over the compile threads (TuneClassResult::compile_threads ran them).
  double compile_s = 0, verify_s = 0, timing_s = 0;
  unsigned compile_threads = 1;
  double setup_s = 0;  ///< making the instances: inputs, outputs and host references
  double wall_s = 0;   ///< the class from its instances made to its run-off done (setup included)
  /// Parts of wall_s after the search: the run-off (the untimed sizes' instances included) and
  /// the result's verification on the check sizes (their builds included).
  double runoff_s = 0, settle_s = 0;
  /// Candidates compiled but not measured: the class's time ended while their batch compiled.
  std::size_t built_unmeasured = 0;
  /// Candidates whose compile was given up past the class's time: far slower than the class's others.
  std::size_t builds_given_up = 0;
  /// Seconds of its share the class left to the classes after it, having stopped gaining: past
  /// half its share, two batches and as many candidates as it took to find its best went by
  /// without making the best 2 % faster (0: it searched until its share or budget ended).
  double share_left_s = 0;
  std::size_t cut_short = 0;  ///< rows whose timing the cut-off stopped (TuneRow::cut_short)
  /// Measured candidates (tried - cached) per minute of wall_s (0 when none was measured).
  double candidates_per_min() const;
  /// Nothing stored: the best is the current configuration, or beats it by no more than
  /// TuneOptions::min_gain.
  bool no_gain = false;
  std::string store_error;  ///< why it was not written, when store was asked for (not no_gain)
};

/// The outcome of one tune() call.
struct TuneResult {
  std::string routine, kernel, device;
  std::map<std::string, std::string> routine_options;  ///< every option of the routine with the value used
  std::string database_path;                           ///< the user database of the device
  TuneStrategy strategy = TuneStrategy::Exhaustive;    ///< the strategy used (Auto resolved)
  std::uint64_t seed = 0;                              ///< the seed used
  std::string cache_path;                              ///< the tune cache ("" when off)
  std::string cache_error;  ///< why the cache could not be read or written ("" when it could)
  std::vector<TuneClassResult> classes;
  bool interrupted = false;  ///< stopped through TuneOptions::stop
  bool dry_run = false;
  /// tune_all() only: why the job did not run on this device ("CPU kernel": the routine's kernel
  /// is meant for other device types, TuneRoutineInfo::device_types); "" when it ran.
  std::string skipped;
  bool replay = false;  ///< TuneOptions::replay: every result came from the tune cache
  double elapsed_s = 0;
  std::size_t tried() const;
  std::size_t rejected() const;
  std::size_t build_failed() const;
  /// Measured candidates (cached ones excluded) per minute of the classes' wall time.
  double candidates_per_min() const;
};

/// A setting of a routine's tuning beyond its sizes (TuneOptions::routine_options; the CLI
/// option --NAME).
struct TuneRoutineOption {
  std::string name;  ///< "method"
  std::string help;
  std::string default_value;         ///< the value used when the option is not given ("" : see help)
  std::vector<std::string> choices;  ///< the legal values; empty: any value the routine parses
};

/// A routine the tuner knows.
struct TuneRoutineInfo {
  std::string name;         ///< "transpose"
  std::string kernel;       ///< the kernel whose parameters it tunes (with default options)
  std::string size_syntax;  ///< help text for TuneOptions::sizes
  std::vector<std::string> default_sizes;
  std::vector<TuneRoutineOption> options;
  /// The device types (DeviceInfo::type) its kernel is meant for; empty: every device. tune()
  /// on another device throws InvalidArgument, and tune_all() skips it.
  std::vector<std::string> device_types;
};
std::vector<TuneRoutineInfo> tune_routines();

/// The default tune cache of a device (TuneOptions::cache_file): beside its user database in
/// user_tuning_dir(), the database's name with ".tune-cache.jsonl" for ".json".
std::string tune_cache_path(const DeviceInfo& device);

/// Tunes `routine` for the device of `queue` (which needs CL_QUEUE_PROFILING_ENABLE).
/// Throws InvalidArgument for an unknown routine, size, parameter or value; TuningError when
/// the user database exists but cannot be parsed (its path in the message; the file is left
/// as it is). Candidate failures are counted in the result, not thrown.
TuneResult tune(cl::CommandQueue& queue, const std::string& routine, const TuneOptions& options = {});

/// One tune() call of tune_all(): a routine with the options that select its kernel or method.
struct TuneAllJob {
  std::string routine;                                 ///< a tune_routines() name
  std::map<std::string, std::string> routine_options;  ///< e.g. {"method", "recursive"} for blur
  std::vector<std::string> sizes;                      ///< empty: the routine's default sizes
  /// "transpose", "blur method=recursive".
  std::string name() const;
};

/// Every routine of tune_routines(), once per choice of each option that has a fixed list of
/// choices (blur's method: separable, direct, recursive), in tune_routines() order; each with
/// `sizes[routine]` where given (sizes in the routine's syntax), else its default sizes. Throws
/// InvalidArgument for a sizes key that names no routine.
std::vector<TuneAllJob> tune_all_jobs(const std::map<std::string, std::vector<std::string>>& sizes = {});

/// The sizes of `sizes`, in order, that tune() of the routine takes as a size class of its
/// kernel; the others are left out (e.g. FFT lengths run as Bluestein passes, or lengths that
/// are not Rader's for fft_rader, or SGEMM route products above 4096^3; a smooth FFT length
/// longer than one kernel is kept: its class tunes its pass rows). Throws InvalidArgument for an
/// unknown routine.
std::vector<std::string> tunable_sizes(const std::string& routine, const std::vector<std::string>& sizes);

/// What tune_all() did: one result per job that ran or was skipped (TuneResult::skipped), in order.
struct TuneAllResult {
  std::vector<TuneAllJob> jobs;
  std::vector<TuneResult> results;
  bool interrupted = false;  ///< a job was stopped through TuneOptions::stop; the jobs after it did not run
  double elapsed_s = 0;
};

/// tune() of every job with one set of options: each job's sizes and routine options replace
/// options.sizes and options.routine_options, and options.time_limit_s (0: none) is shared: each
/// job gets the time left times its share of the weights of the jobs left (a job's weight: the sum over its
/// size classes, the distinct variants of its sizes, of the terms the model strategy fits for each
/// class's space), so a job that ends early leaves its time to the jobs after it. Each job runs with
/// TuneOptions::screen_costly_sizes set. TuneOptions::resume
/// applies to every job (each continues from the tune cache). A job whose routine is meant for other device types is
/// skipped (a result with only routine and skipped set). `started(index)` is called before job `index` runs. Throws as
/// tune() does, before the first job runs for an argument every job shares.
TuneAllResult tune_all(cl::CommandQueue& queue, const std::vector<TuneAllJob>& jobs, const TuneOptions& options = {},
                       const std::function<void(std::size_t)>& started = {});

}  // namespace clforge
