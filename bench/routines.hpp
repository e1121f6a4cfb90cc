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

}  // namespace clforge::bench
