// The device's measured ceilings, used by every benchmark to state "% of peak" from numbers
// taken in the same run: copy bandwidth on buffers larger than the last-level cache, FMA
// throughput from a searched vectorised probe, host<->device bandwidth and launch latency.
// peak.cpp runs them (copy probes there), peak_fma.cpp the FMA search, peak_transfer.cpp the
// host<->device and launch probes.
#pragma once
#include <string>

#include "bench/harness.hpp"
#include "clforge/device.hpp"

namespace clforge::bench {

/// 0: not measured (written as null).
struct Peaks {
  double copy_gbps = 0;             ///< best of clEnqueueCopyBuffer and the copy kernel (read + write)
  double fma_gflops = 0;            ///< best configuration of the FMA search
  std::string fma_config;           ///< its configuration, "float16 x 8 chains, work-group 256, 32768 work-items"
  double copy_bytes = 0;            ///< size of each copy buffer (in and out)
  double cache_bytes = 0;           ///< the last-level cache the copy buffers outsize (0: unknown)
  double h2d_gbps = 0;              ///< host to device, pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped)
  double d2h_gbps = 0;              ///< device to host, pinned
  double both_gbps = 0;             ///< both directions at once on two queues, pinned (bytes of both)
  double launch_enqueue_us = 0;     ///< host time to enqueue one empty kernel, back to back
  double launch_gap_us = 0;         ///< device time from one empty kernel's end to the next one's start
  double launch_round_trip_us = 0;  ///< one empty kernel enqueued and waited for (clFinish)
};

/// What measure_peaks runs.
struct PeakOptions {
  /// Smallest size of each copy buffer: raised to 4 x the last-level cache (the larger of
  /// CL_DEVICE_GLOBAL_MEM_CACHE_SIZE and, on CPU devices, the host's) and to 64 MiB (GPUs:
  /// 512 MiB), then lowered to what the device allows (max allocation, a quarter of its memory).
  std::size_t copy_bytes = std::size_t{256} << 20;
  bool flop_ladder = true;    ///< the copy kernel with 3, 6 and 24 extra flops per element
  bool transfers = true;      ///< host<->device (pinned and pageable) and launch latency
  bool quick_search = false;  ///< FMA search: every width with 8 chains, then 4 and 16 for the best
};

/// Runs the probes on the session's device, adding their records (routine "peak") to report.
Peaks measure_peaks(Session& s, Report& report, const PeakOptions& opt);
/// The same with copy buffers of at least `bytes`; with_flop_ladder also runs the flop ladder
/// and the transfer and launch probes, without it the FMA search is the quick one.
Peaks measure_peaks(Session& s, Report& report, std::size_t bytes, bool with_flop_ladder = true);
/// The peaks one routine's benchmark (and the tuner's) compares with: copy buffers of at least
/// 16 MiB (quick) or 256 MiB and at most half the device's largest allocation, the quick FMA
/// search, no flop ladder.
Peaks routine_peaks(Session& s, Report& report, bool quick);

/// The peaks as JSON (values not measured are null), for results.json.
nlohmann::json peaks_json(const Peaks& p);

}  // namespace clforge::bench
