// Test runner: picks the device (CLFORGE_TEST_DEVICE, same syntax as --device), prints its
// identity and the seed, and exits 77 (CTest: skipped) when the machine has no OpenCL device.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "tests/support.hpp"

int main(int argc, char** argv) {
  if (clforge::list_devices().empty()) {
    std::printf("no OpenCL device on this machine: skipping\n");
    return 77;
  }
  const auto& s = clforge::test::session();
  std::printf("device: %s [%s, %s, arch '%s', driver %s] seed %llu\n", s.entry.info.name.c_str(),
              s.entry.info.vendor_key().c_str(), s.entry.info.type.c_str(), s.entry.info.architecture.c_str(),
              s.entry.info.driver_version.c_str(), static_cast<unsigned long long>(clforge::test::seed()));
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  return ctx.run();
}
