// Event timing shared by the tuner and the benchmarks: warm-up runs, then repetitions until
// a minimum count and a minimum total time are reached; the median is what gets compared.
// Either one kernel's event (START to END) or everything enqueued between two marker kernels.
#pragma once
#include <functional>
#include <vector>

#include "clforge/opencl.hpp"

namespace clforge::detail {

/// Statistics of repeated timings, in milliseconds (all 0 with reps 0: nothing timed).
struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double q1_ms = 0, q3_ms = 0;  ///< first and third quartile (linear interpolation between samples)
  int reps = 0;
  /// Stopped after the first samples because the fastest of them exceeded
  /// TimingPlan::give_up_ms: the statistics are those of the samples taken.
  bool cut_short = false;
  /// (max - min) / median: the run-to-run spread.
  double spread() const { return median_ms > 0 ? (max_ms - min_ms) / median_ms : 0; }
};
Timing summarize(std::vector<double> samples_ms);

/// Timing settings: warm-up runs, then repetitions until both min_reps and min_time_ms are
/// reached (at most max_reps).
struct TimingPlan {
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 100;
  double min_time_ms = 50;
  /// time_region (and the benchmarks' CUDA event timing): when > 0, one repetition enqueues
  /// the work back to back N times between its two markers and counts the region / N, with N
  /// (1 to 32) chosen from the last warm-up so that a region lasts about this many
  /// milliseconds. The host's enqueue cost then overlaps the device's work instead of leaving
  /// the device idle inside the region (it does once per region, not once per call).
  double region_ms = 0;
  /// The cut-off of a candidate that cannot win (0: off, as in the benchmarks): after the warm-up
  /// and the first min(3, min_reps) samples, a run whose fastest sample so far exceeds this many
  /// milliseconds takes no more samples (Timing::cut_short).
  double give_up_ms = 0;
  /// When > 0, a run whose first warm-up run takes longer than this many milliseconds (a host
  /// peer taking seconds) takes no more warm-up runs and min(3, min_reps) samples: seven runs of
  /// several seconds add minutes to a benchmark and little certainty.
  double long_run_ms = 0;
};

/// The region length of the benchmarks and the tuner (TimingPlan::region_ms): one value so that
/// both time a routine the same way.
inline constexpr double kRegionMs = 2.0;

/// The sampling every timer here uses: `plan.warmup` runs of each candidate, `settle` (if any),
/// then rounds in which each candidate that still wants repetitions runs once (A B, B A, ...:
/// no one always goes first), until each has min_reps and min_time_ms of samples (at most
/// max_reps), or until plan.give_up_ms cuts it short. A run returns its milliseconds (or throws).
/// One Timing per run, in order.
std::vector<Timing> sample_runs(const TimingPlan& plan, const std::vector<std::function<double()>>& runs,
                                const std::function<void()>& settle = {});

/// Calls per region for a run that took `single_ms` alone (see TimingPlan::region_ms).
int region_calls(const TimingPlan& plan, double single_ms);

/// Milliseconds from the START of `start` to the END of `end` (profiling queue required).
double event_ms(const cl::Event& start, const cl::Event& end);

/// Times `enqueue`, which enqueues one run on `queue` and returns its (single) event.
Timing time_event(cl::CommandQueue& queue, const std::function<cl::Event()>& enqueue, const TimingPlan& plan = {});

/// Times everything `enqueue` puts on the in-order queue between two tiny marker kernels
/// (START of the first to END of the second), for work of several kernels.
Timing time_region(cl::CommandQueue& queue, const std::function<void()>& enqueue, const TimingPlan& plan = {});

/// time_region for several candidates at once, their regions interleaved (A B, B A, A B, ...)
/// until each has its repetitions: on a device whose speed drifts (a shared CPU), every
/// candidate sees the same conditions. One Timing per candidate, in order.
std::vector<Timing> time_regions(cl::CommandQueue& queue, const std::vector<std::function<void()>>& enqueues,
                                 const TimingPlan& plan = {});

}  // namespace clforge::detail
