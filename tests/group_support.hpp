// The device group of the group suite: CLFORGE_TEST_GROUP's selectors, else every device (CTest
// runs the suite with POCL_DEVICES="pthread pthread", so PoCL exposes two).
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "clforge/group.hpp"
#include "host/gemm.hpp"

namespace clforge::test {

inline const DeviceGroup& group() {
  static const DeviceGroup g([] {
    const char* s = std::getenv("CLFORGE_TEST_GROUP");
    return std::string(s ? s : "all");
  }());
  return g;
}

/// A group call repeated while it was cold (buffers or programs made inside it, which Auto
/// measures again, at most twice), so that a test sees one of Auto's steps per call.
template <class Call>
GroupRun warm(const Call& call) {
  GroupRun r = call();
  for (int k = 0; k < 2 && r.cold; ++k) r = call();
  return r;
}

/// C of a host GEMM after a call: the scaled error inside C against the double reference (ref,
/// mag: host::gemm's), and how many elements in the gaps between C's rows or columns differ
/// bytewise from `before` (C as it was before the call: the call must not touch them).
struct GemmCheck {
  double error = 0;
  std::size_t gaps_changed = 0;
};
inline GemmCheck check_gemm_c(const host::GemmShape& s, const std::vector<float>& c, const std::vector<float>& before,
                              const std::vector<double>& ref, const std::vector<double>& mag) {
  std::vector<float> inside;
  std::vector<double> ref_in, mag_in;
  std::vector<bool> in_c(c.size(), false);
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t j = 0; j < s.n; ++j) {
      const std::size_t at = host::gemm_c_index(s, i, j);
      in_c[at] = true;
      inside.push_back(c[at]);
      ref_in.push_back(ref[at]);
      mag_in.push_back(mag[at]);
    }
  GemmCheck r;
  r.error = host::gemm_scaled_error(inside.data(), ref_in.data(), mag_in.data(), inside.size());
  for (std::size_t e = 0; e < c.size(); ++e) r.gaps_changed += !in_c[e] && std::memcmp(&c[e], &before[e], 4) != 0;
  return r;
}

}  // namespace clforge::test
