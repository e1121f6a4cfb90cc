// The device's measured ceilings: copy bandwidth and FMA throughput, used by every
// benchmark to state "% of peak" from numbers taken in the same run.
#pragma once
#include "bench/harness.hpp"
#include "clforge/device.hpp"

namespace clforge::bench {

/// 0: not measured (written as null).
struct Peaks {
  double copy_gbps = 0;  ///< best of clEnqueueCopyBuffer and the copy kernel (read + write)
  double fma_gflops = 0;
};

/// Runs the probes on the session's device, adding one Record per probe to report.
/// bytes: size of the copy buffers (each of in and out).
Peaks measure_peaks(Session& s, Report& report, std::size_t bytes, bool with_flop_ladder = true);

}  // namespace clforge::bench
