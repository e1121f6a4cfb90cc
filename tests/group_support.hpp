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

}  // namespace clforge::test
