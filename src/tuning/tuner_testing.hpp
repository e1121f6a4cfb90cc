// The tuner's test hook: a fault the tests inject into candidates (the rejection and run-off
// tests) through this header; no public header declares it.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "clforge/tuning.hpp"
#include "runtime/test_hook.hpp"

namespace clforge::detail {

/// Fault injected into one candidate.
struct TuneFault {
  bool corrupt_output = false;  ///< change one output value after the run, before verification
  double time_scale = 1.0;      ///< multiply the measured times (< 1 makes the candidate look faster)
  /// Per timed size (by index; missing: 1), multiplies time_scale there.
  std::vector<double> size_time_scale;
  /// Overwrites a whole transform or row of the output after the run, before verification
  /// (TuneInstance::fault_region): with finite wrong values, or with NaN.
  enum class Values { None, Wrong, NaN } region_values = Values::None;
  /// On a timed size, the region is one the sampled comparison covers (true) or skips (false).
  bool in_sample = false;
  /// The region is the transform's second output (TuneInstance::second_region) instead.
  bool second_output = false;
  /// The region fault applies to the check sizes too (which compare everything).
  bool on_check_sizes = true;
  /// Seconds each build of the candidate waits first (a slow compiler).
  double build_delay_s = 0;
  /// Called as the candidate's evaluation (verification, then timing) starts.
  std::function<void()> on_evaluate;
};

/// Called for each candidate before it runs, in every tune() call while set; the returned fault
/// is applied.
using TuneFaultHook = std::function<TuneFault(const ParamMap&)>;
/// Sets the hook (nullptr: none).
void set_tune_fault(TuneFaultHook hook);
/// The fault of a candidate (none without a hook).
TuneFault tune_fault(const ParamMap& candidate);

/// Sets the hook for its own lifetime.
using TuneFaultScope = HookScope<TuneFaultHook, set_tune_fault>;

/// Whether a size class evaluates a batch's candidates while the batch's others still compile
/// (ClassTuner::overlap_): while a hook is set, its answer; without one, the device's kind.
using TuneOverlapHook = std::function<bool()>;
void set_tune_overlap(TuneOverlapHook hook);
/// The hook's answer; nullopt without a hook.
std::optional<bool> tune_overlap();
using TuneOverlapScope = HookScope<TuneOverlapHook, set_tune_overlap>;

}  // namespace clforge::detail
