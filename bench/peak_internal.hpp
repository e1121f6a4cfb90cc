// What the peak probes' files (peak.cpp, peak_fma.cpp, peak_transfer.cpp) share: the probe
// kernels' program and each probe family's entry. Internal to the bench library.
#pragma once
#include <string>

#include "bench/peak.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge::bench::detail_peak {

/// cl/bench/peak.cl built for the session's device with `options` ("-DPEAK_VW=4 ...").
cl::Program peak_program(Session& s, const std::string& options);
/// "128 MiB".
std::string mib_text(double bytes);

/// The FMA search (peak_fma.cpp): sets fma_gflops and fma_config, adds one record per vector
/// width ("fma float1" ... "fma float16": the best configuration of that width, all of them
/// timed again interleaved) and "fma" (the best of those).
void measure_fma(Session& s, Report& report, Peaks& peaks, bool quick);
/// Host<->device bandwidth, pinned and pageable, each way and both at once (peak_transfer.cpp).
void measure_transfers(Session& s, Report& report, Peaks& peaks);
/// Launch latency of an empty kernel: host enqueue, device gap, round trip (peak_transfer.cpp).
void measure_launch(Session& s, Report& report, Peaks& peaks);

}  // namespace clforge::bench::detail_peak
