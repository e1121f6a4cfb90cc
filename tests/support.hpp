// Shared pieces of the test suite: the device session, the seed, scoped environment, and the
// check of the bad-argument tests.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "clforge/clforge.hpp"
#include "host/data.hpp"

namespace clforge::test {

/// The session every test uses (device from CLFORGE_TEST_DEVICE, else the default choice).
inline Session& session() {
  static Session s([] {
    const char* d = std::getenv("CLFORGE_TEST_DEVICE");
    return std::string(d ? d : "");
  }());
  return s;
}

/// Base seed of this run (printed by main; CLFORGE_TEST_SEED overrides).
inline std::uint64_t seed() {
  static const std::uint64_t s = host::default_seed();
  return s;
}

/// CLFORGE_LONG_TESTS (a boolean: 1/0, on/off, true/false, yes/no): run the long cases too.
bool long_tests();

/// This device's limits under another identity: a vendor class, an architecture, a name and a
/// CL_DEVICE_VENDOR (unchanged when empty), so that the shipped rows of that identity resolve
/// for it and run here.
inline DeviceInfo fake_device(VendorClass v, const std::string& architecture = "",
                              const std::string& name = "no such device", const std::string& vendor = "") {
  DeviceInfo d = session().entry.info;
  d.vendor_class = v;
  d.name = name;
  d.architecture = architecture;
  d.type = v == VendorClass::CPU ? "CPU" : "GPU";
  if (!vendor.empty()) d.vendor = vendor;
  return d;
}

/// The shipped row of a vendor class for a kernel and variant, resolved on such a device, as
/// overrides.
inline ParamMap vendor_row(const std::string& kernel, VendorClass v, const std::string& variant) {
  return resolve_configuration(kernel, variant, fake_device(v), Tuning{{}, false}).values;
}

/// Sets an environment variable for a scope and restores the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

/// A fresh empty temp folder under the build tree's test area.
std::string temp_dir(const std::string& tag);

// Writes text to dir/name (creating dir) and returns the path.
std::string write_file(const std::string& dir, const std::string& name, const std::string& text);

/// Parameter names of `kernel` as cl/<file> declares them (the text between its "(" and ")").
std::vector<std::string> declared_params(const std::string& file, const std::string& kernel);
/// Parameter names of a compiled kernel (CL_KERNEL_ARG_NAME; build the program with
/// -cl-kernel-arg-info). Empty when the implementation keeps no argument information.
std::vector<std::string> compiled_params(const cl::Program& program, const char* kernel);

/// Runs a shell command; returns its exit status (-1 when it did not exit normally) and its
/// stdout and stderr together in output.
int run_command(const std::string& cmd, std::string& output);

/// A float rows x cols transpose through a TransposePlan made for the call (its kernels resolved
/// through the program cache, from the current kernel sources), on the session's queue.
std::vector<float> transpose_by_new_plan(std::size_t rows, std::size_t cols, const std::vector<float>& in,
                                         const Tuning& tuning);

/// Checks that fn throws InvalidArgument whose what() contains `needle`; no exception fails the
/// test case, another exception type propagates (and fails it too).
void expect_invalid_argument(const std::function<void()>& fn, const std::string& needle);

}  // namespace clforge::test
