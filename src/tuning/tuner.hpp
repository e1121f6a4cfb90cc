// The tuner's view of a routine family: a tuning target says how to make inputs for a problem
// size, run the routine with explicit parameters, and verify the output against the host
// reference, and which database variant (size class) a size belongs to. The tuner does the
// rest: tuner.cpp (clforge::tune, storing), tuner_space.cpp (space, pruning), tuner_class.cpp
// (compiling, verifying, timing), tuner_anneal.cpp and tuner_runoff.cpp; the pieces declared
// here for targets are in tune_instance.cpp. docs/tuning.md shows how to add one.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/opencl.hpp"
#include "clforge/tuning.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

/// Result of checking one output against the host reference.
struct Verdict {
  bool ok = false;
  double error = 0;     ///< relative error (or 1 for a mismatch of an exact routine)
  std::string message;  ///< what is wrong ("" when ok)
};

/// How much of an output a tuning instance compares with the host reference. The output is
/// always scanned entirely for NaN, infinite (unwritten) values and guard tail hits.
enum class Verification {
  Full,     ///< every value (the check sizes: odd shapes, partial tiles)
  Sampled,  ///< a seeded sample (the timed sizes): the host reference is computed for it alone
  /// None (the run-off's sizes the search did not time: timed, never checked): no host reference.
  /// On the H200 (2026-12-01, `tune all --time 150`) the references of such sizes took 13 of the
  /// recursive blur's 17 s (its 8192^2 images, whose reference is the whole image).
  None
};

/// One problem size on the device: inputs filled with random data, outputs allocated with a
/// guard tail, and the host reference computed once (for the whole output, or for the sample).
class TuneInstance {
 public:
  virtual ~TuneInstance() = default;
  /// "64x64, 4-byte elements".
  virtual std::string label() const = 0;
  /// Compiles every program a run with cfg needs (through get_program, same options as the
  /// launcher). Called from worker threads, concurrently for different configurations.
  virtual void build(const QueueContext& qc, const Configuration& cfg) const = 0;
  /// Fills the outputs (and guard tails) with NaN.
  virtual void poison(cl::CommandQueue& queue) = 0;
  /// Enqueues one run of the routine with exactly these parameters (Tuning{params, false})
  /// and returns the event to time: a single kernel's event, or, for routines that enqueue
  /// several kernels, an empty cl::Event (the tuner then times between two marker kernels).
  virtual cl::Event run(cl::CommandQueue& queue, const ParamMap& params) = 0;
  /// Reads the whole output back (guard tails included) as floats, into a host copy the instance
  /// keeps across candidates (the tuner may change it before check).
  virtual std::vector<float>& read_output(cl::CommandQueue& queue) = 0;
  /// Compares an output read by read_output with the host reference; guard tails must still
  /// hold NaN.
  virtual Verdict check(const std::vector<float>& output) const = 0;
  /// The output values (indices into read_output's vector) of one whole transform, row or
  /// column: of one the comparison covers (in_sample) or of one a sampled comparison skips. A
  /// fully verified instance gives the same values either way. The tuner's fault hook writes
  /// there (tuner_testing.hpp).
  virtual std::vector<std::size_t> fault_region(bool in_sample) const = 0;
  /// The values of a second output of fault_region's transform that check compares on its own
  /// (a real-input FFT's round trip); empty where the instance has none.
  virtual std::vector<std::size_t> second_region(bool /*in_sample*/) const { return {}; }
};

/// `want` indices of [0, count), sorted, without repeats: 0, count - 1 and random others drawn
/// with `seed` (every index when count <= want).
std::vector<std::size_t> sample_indices(std::size_t count, std::size_t want, std::uint64_t seed);
/// For TuneInstance::fault_region: of a `sample` made by sample_indices(count, ...), the first
/// index (in_sample), or the first index it skips; count / 2 when it holds every index.
std::size_t fault_index(const std::vector<std::size_t>& sample, std::size_t count, bool in_sample);

/// The read-only input of a tuning instance holding `data` (`what` names it in errors).
cl::Buffer input_buffer(const cl::Context& context, const std::vector<float>& data, const std::string& what);

/// The output of a tuning instance: n floats followed by a guard tail of kGuard floats that
/// must still hold NaN after a run (an out-of-bounds write shows there). One piece for every
/// routine's TuneInstance: allocation, poisoning, reading back and the size and guard checks.
/// The plans of a tuning instance's most recent candidates, by parameters: TuneInstance::build
/// makes a candidate's plan (on a worker thread, concurrently for the candidates of a batch) and
/// run() enqueues it, so the tuner times the code users run; the run-off returns to a few earlier
/// ones. get() makes a plan that was never built or was dropped since.
template <typename Plan>
class CandidatePlans {
 public:
  static constexpr std::size_t kKept = 64;
  void keep(const ParamMap& params, std::shared_ptr<const Plan> plan) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (plans_.emplace(params, std::move(plan)).second) order_.push_back(params);
    while (order_.size() > kKept) {
      plans_.erase(order_.front());
      order_.pop_front();
    }
  }
  std::shared_ptr<const Plan> get(const ParamMap& params,
                                  const std::function<std::shared_ptr<const Plan>()>& make) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = plans_.find(params);
      if (it != plans_.end()) return it->second;
    }
    std::shared_ptr<const Plan> plan = make();
    keep(params, plan);
    return plan;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::map<ParamMap, std::shared_ptr<const Plan>> plans_;
  mutable std::deque<ParamMap> order_;
};

class GuardedOutput {
 public:
  static constexpr std::size_t kGuard = 127;
  GuardedOutput() = default;
  /// A buffer of n + kGuard floats; `what` names it in an allocation error. `pad`: the index of
  /// one value between two outputs that nothing writes (it aligns the second), which scan()
  /// skips; none by default.
  GuardedOutput(const cl::Context& context, std::size_t n, const std::string& what,
                std::size_t pad = static_cast<std::size_t>(-1));
  const cl::Buffer& buffer() const { return buffer_; }
  std::size_t size() const { return n_; }
  /// Fills output and guard with NaN and waits.
  void poison(cl::CommandQueue& queue) const;
  /// Output and guard, as TuneInstance::read_output returns them, into a host copy kept across
  /// reads (an output of 64 MiB is not allocated again for every candidate).
  std::vector<float>& read(cl::CommandQueue& queue);
  /// False when `out` has the n + kGuard values read() returns; else true, with `v` set to the
  /// rejection (its message names the mismatch).
  bool wrong_size(const std::vector<float>& out, Verdict& v) const;
  /// Guard values of `out` that are no longer NaN.
  std::size_t guard_hits(const std::vector<float>& out) const;
  /// The scan of a sampled verification: false when `out` has the wrong size, holds NaN or
  /// infinite values anywhere in the n outputs but the pad, or a touched guard; v then says so (`what` names
  /// the output in the message). True (v untouched) when clean.
  bool scan(const std::vector<float>& out, const std::string& what, Verdict& v) const;
  /// Appends "N guard values after <what> were overwritten" to message (after "; " when it is
  /// not empty) when the guard was touched; returns whether it was intact.
  bool note_guard(const std::vector<float>& out, const std::string& what, std::string& message) const;

 private:
  cl::Buffer buffer_;
  std::size_t n_ = 0, pad_ = static_cast<std::size_t>(-1);
  std::vector<float> host_;
};

/// How the tuner drives one routine family.
struct TuneTarget {
  std::string routine;      ///< CLI name: `clforge tune <routine>`
  std::string kernel;       ///< KernelSpec name whose parameters are tuned
  std::string size_syntax;  ///< help text
  std::vector<std::string> default_sizes;
  /// The database variant (size class) a size is stored under: exactly what the launcher
  /// passes to resolve_configuration for that size. Throws InvalidArgument on bad syntax.
  std::function<std::string(const std::string& size)> variant_of;
  /// Extra sizes verified (not timed) for every candidate of a variant whose class times `sizes`:
  /// odd shapes that exercise partial tiles, so a candidate correct only on round sizes is rejected.
  std::function<std::vector<std::string>(const std::string& variant, const std::vector<std::string>& sizes)>
      check_sizes;
  /// Allocates and fills one size on the queue's context, verified in full or on a sample.
  std::function<std::unique_ptr<TuneInstance>(cl::CommandQueue& queue, const std::string& size, std::uint64_t seed,
                                              Verification verification)>
      make;
  /// The device types (DeviceInfo::type: "CPU", "GPU", ...) the target's kernel is meant for;
  /// empty: every device. `clforge tune all` skips a target on other devices and tune() refuses.
  std::vector<std::string> device_types;
  /// Every size of a class is timed by every candidate: TuneOptions::sizes_per_class and
  /// screen_costly_sizes do not apply. For a target whose one class stands for many shapes that
  /// run different kernels (the SGEMM route), where any subset would decide for the others, or
  /// whose candidates are cheap and whose one row serves shapes that want different things
  /// (the transpose).
  bool time_every_size = false;
  /// A size whose instance costs little to make and to run (SGEMM: operands of at most 64 MiB):
  /// the search times it beside TuneOptions::sizes_per_class's picks, so that a class's row is
  /// chosen on every shape it serves where that is cheap (screen_costly_sizes still applies).
  std::function<bool(const std::string& size)> cheap_size;
  /// Whether tune all keeps one of bench all's sizes for the target (tunable_sizes()); none: all.
  std::function<bool(const std::string& size)> tune_all_keeps;
  /// The size tune all times for one of bench all's sizes it keeps (tunable_sizes()), of the same
  /// size class; none: the size itself (SGEMM: a strided batch cut to the products whose operands
  /// fill 256 MiB).
  std::function<std::string(const std::string& size)> tune_all_size;
  /// A routine whose plans this target's kernel runs instead on the devices the target applies
  /// to (the CPU lane kernel: the FFT's); tune all weighs that routine's jobs as one term there.
  std::string supersedes;
  /// Parameters of which one value reshapes the whole work (the split of an FFT length run as
  /// passes): right after the earlier classes' winners, each of their searched values is tried
  /// on the best configuration so far, before the shipped rows and the strategy's order.
  std::vector<std::string> seed_axes;
  /// The seed axes try the values next to the best configuration's in the class's value list
  /// (one step down, one up), in the order of seed_axes, not every value: a star of single steps
  /// around a start far from the optimum in every coupled parameter (an SGEMM tile, its work-items
  /// and vector widths), then around each new best while one moves it and the class's share
  /// holds two more stars (a climb; a star ends at the batch that moves the best), then the
  /// strategy's order (the model strategy combines the steps that gained).
  bool seed_neighbours = false;
  /// Seed axes stepped together, after the single steps (with seed_neighbours): each link's axes
  /// one step down at once, then one step up. A single step changes a balance that the kernel's
  /// speed depends on (an SGEMM tile against its work-items: 64 x 64 of 8 x 8 to 128 x 64 doubles
  /// each work-item's share), which a link keeps (128 x 128 of 16 x 16: the same share, four times
  /// the work-items).
  std::vector<std::vector<std::string>> seed_links;
  /// Seed axes whose star also tries the last value of the class's list (with seed_neighbours),
  /// after the single steps, before the links: an axis whose speed is not monotone in it, where
  /// the step next to the best loses and the end wins (SGEMM's KWI: unrolling 4 of a k tile's 16
  /// steps runs slower than 2, unrolling all 16 faster than both).
  std::vector<std::string> seed_ends;
  /// The work of a size in a unit of the target's own (values compared within one class only):
  /// the run-off leaves out a size the search did not time whose work is more than four times
  /// the largest timed size's without making its instance (its host data, reference and device
  /// buffers), as it would after timing a first run. None: every such size is made and probed.
  std::function<double(const std::string& size)> size_work;

  // Optional parts.
  /// The values searched for a size class when the caller does not restrict a parameter
  /// (default: every legal value): values that cannot change the work of the class's sizes
  /// are collapsed to one (the reference's where it is among them), and values that would make
  /// the routine use other database entries than the class's are left out, as are forms the
  /// device's kind does not run well (the blur's fused kernel off CPUs). `reference` is the
  /// configuration measured first.
  std::function<std::map<std::string, std::vector<int>>(const std::string& variant,
                                                        const std::vector<std::string>& sizes,
                                                        const ParamMap& reference, const DeviceInfo& device)>
      narrow;
  /// The rows a class's best is stored as, (variant, parameters) (default: the best under the
  /// class's variant; none: the best is what the library runs now, nothing to store).
  /// `reference` is the class's default configuration. The FFT's lengths run as
  /// passes store their length's row and every pass row the plan resolves with the best.
  std::function<std::vector<std::pair<std::string, ParamMap>>(const std::string& variant, const ParamMap& best,
                                                              const ParamMap& reference, const DeviceInfo& device)>
      stored_rows;
  /// Settings beyond the sizes (TuneOptions::routine_options, CLI --NAME).
  std::vector<TuneRoutineOption> options;
  /// The target for the given option values (every declared option present; "" where the
  /// caller gave none and the option has no default, which configure replaces with the value
  /// it derives): e.g. the kernel of a method and the parameters of its instances. Throws
  /// InvalidArgument naming a bad value.
  std::function<TuneTarget(std::map<std::string, std::string>& values)> configure;
};

/// Every routine the tuner knows, in `clforge tune` order: the families declare their targets
/// and the library layer (src/library/families.cpp) lists them; lookup by name
/// (tune_registry.cpp; InvalidArgument naming the known ones).
const std::vector<TuneTarget>& all_tune_targets();
/// Why the target is not tuned on the device ("" when it is): "CPU kernel" for a target meant
/// for CPUs alone on another device.
std::string tune_target_skip(const TuneTarget& target, const DeviceInfo& device);
const TuneTarget& tune_target(const std::string& routine);

/// A count from 1 to max inside a size string (e.g. "256" of "256@64"); InvalidArgument naming
/// the routine, the whole size and the size syntax otherwise.
std::size_t parse_size_count(const std::string& text, const std::string& routine, const std::string& size,
                             const std::string& syntax, std::size_t max);

/// Throws TuningError naming the user database of the device when it exists but does not
/// parse or validate (defined in database.cpp; run before tuning so no work is lost).
void check_user_database(const DeviceInfo& device);

/// The terms of a size class's search space in the model strategy's surrogate (tuner_model.cpp: a
/// ridge regression on one-hot parameter values): 1 + the sum over the parameters of their
/// searched value counts less one, `narrowed`'s where it names the parameter (TuneTarget::narrow),
/// else the kernel's legal values. About as many measurements as terms pass before its ranking
/// means anything, so a class has that much to find, whatever the number of points.
double space_terms(const KernelSpec& spec, const std::map<std::string, std::vector<int>>& narrowed);
/// tune_all()'s share weight of a job on the device: 0 for a job skipped there, else the sum over
/// its size classes of the terms of each class's space, narrowed as tune() narrows it.
double tune_all_weight(const TuneAllJob& job, const DeviceInfo& device);
/// tune_all_weight of each job, but one term for a job whose routine another job's target
/// supersedes on the device (TuneTarget::supersedes), marked in `superseded` where given.
std::vector<double> tune_all_job_weights(const std::vector<TuneAllJob>& jobs, const DeviceInfo& device,
                                         std::vector<char>* superseded = nullptr);
/// The weights tune_all() shares its time by: each job's tune_all_weight, raised to the mean
/// weight of the jobs that run (weight > 0), so that a job of a small space next to many large
/// classes still gets at least half an even share of the time; a superseded job (nonzero in
/// `superseded`) keeps its one term and stays out of the mean.
std::vector<double> tune_all_shares(std::vector<double> weights, const std::vector<char>& superseded = {});

class CompileWorkers;
/// The compile workers of a tune run (TuneOptions::compile_worker) for the device of `qc`, or
/// nullptr: none asked for, none apply to the device (compile_workers_apply), a dry run, or a
/// pool already serves the device (tune_all's, shared by its jobs). Register it with a
/// CompileWorkerScope while it is in use.
std::unique_ptr<CompileWorkers> start_compile_workers(const TuneOptions& options, const QueueContext& qc);

}  // namespace clforge::detail
