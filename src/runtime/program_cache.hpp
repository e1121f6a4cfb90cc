// Program building and the two-level compile cache (memory, then disk), for the queue context
// every routine starts from (runtime/queue.hpp).
#pragma once
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/errors.hpp"
#include "clforge/opencl.hpp"
#include "clforge/tuning.hpp"
#include "runtime/queue.hpp"

namespace clforge::detail {

/// The compiled program named `name` (in errors and logs) of the cl/common/*.cl helpers followed
/// by `files`, built with `build_options` (plus CLFORGE_BUILD_OPTIONS). Memory cache, then disk
/// cache, then compile. Throws BuildError with the log.
cl::Program build_program(const QueueContext& qc, const std::string& name, const std::vector<std::string>& files,
                          const std::string& build_options);
/// Whether build_program keeps the binaries of this device's programs in the disk cache
/// (CLFORGE_CACHE_BINARIES; by default every driver but PoCL's).
bool disk_cache_keeps_binaries(const DeviceInfo& dev);
/// A read-only buffer holding `bytes` of `data`, shared by every call in `context` that asks for
/// the same contents (bounded, most recently used kept; an empty table gets 4 zero bytes).
/// Kernels only read it. `what` names it in errors.
cl::Buffer constant_buffer(const cl::Context& context, const void* data, std::size_t bytes, const std::string& what);

/// A kernel object of a program for the calling thread (never shared between threads).
/// The values last bound to the scalar arguments of a kernel object that get_kernel gave this
/// thread (nullptr for any other object): detail::Args skips a clSetKernelArg that would bind the
/// same value again, so a repeated call binds little more than its buffers. Buffers are always
/// bound (a released buffer's handle may come back as another buffer).
struct ArgShadow {
  struct Slot {
    unsigned char kind = 0;  // 0: unknown, 1: value, 2: local memory size
    unsigned char size = 0;
    unsigned char bytes[8] = {};
  };
  std::vector<Slot> slots;
};
ArgShadow* arg_shadow(cl_kernel k);
cl::Kernel get_kernel(const cl::Program& program, const char* name);

/// Sets kernel arguments in order, converting errors into OpenCLError naming the index.
inline void set_args_from(cl::Kernel&, cl_uint) {}
template <typename T, typename... Rest>
void set_args_from(cl::Kernel& k, cl_uint index, const T& value, const Rest&... rest) {
  const cl_int st = k.setArg(index, value);
  if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "argument " + std::to_string(index));
  set_args_from(k, index + 1, rest...);
}
template <typename... Args>
void set_args(cl::Kernel& k, const Args&... args) {
  set_args_from(k, 0, args...);
}

}  // namespace clforge::detail
