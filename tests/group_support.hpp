// The device group of the group suite: CLFORGE_TEST_GROUP's selectors, else every device (CTest
// runs the suite with POCL_DEVICES="pthread pthread", so PoCL exposes two).
#pragma once
#include <cstdlib>
#include <string>

#include "clforge/group.hpp"

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

}  // namespace clforge::test
