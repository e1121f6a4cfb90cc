// Each routine's benchmark against its peers, run by `clforge bench <routine>` and
// `clforge bench all`. Every function adds Records to the report (clforge and each peer,
// same device, same run, random data) and verifies clforge's output against the host reference.
#pragma once
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "bench/peak.hpp"
#include "clforge/tuning.hpp"

namespace clforge::bench {

struct BenchOptions {
  bool quick = false;               ///< small size list (tests, --quick)
  std::vector<std::string> sizes;   ///< explicit sizes (routine-specific syntax); empty: the default list
  Tuning tuning;                    ///< overrides for clforge's parameters
  TimingPlan plan;
};

/// clforge transpose vs CLBlast Omatcopy and the copy bandwidth. sizes: "RxC" or "N" (square).
void bench_transpose(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks);

/// clforge FFT vs clFFT and VkFFT (child process): out-of-place forward, contiguous batches.
/// sizes: "N" (64 MiB batch), "NxBATCH" or "N@MIB"; default n = 8 ... 2^20, 1000, 3000, 4095,
/// 1009, 65537 at 64 MiB and 512 MiB.
void bench_fft(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks);

/// clforge sgemm vs CLBlast Gemm (same device, same run), OpenBLAS cblas_sgemm on CPU devices
/// (host wall clock) and the FMA peak. sizes: "N" (square) or "MxNxK", optionally ":NT" etc.
void bench_sgemm(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks);

}  // namespace clforge::bench
