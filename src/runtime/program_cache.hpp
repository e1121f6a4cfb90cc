// Program building and the two-level compile cache (memory, then disk), plus the per-queue
// context every routine starts from.
#pragma once
#include <CL/opencl.hpp>
#include <string>

#include "clforge/device.hpp"
#include "clforge/tuning.hpp"
#include "clforge/errors.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

/// What a routine needs to know about the queue it was given.
struct QueueContext {
  cl::Context context;
  cl::Device device;
  const DeviceInfo* info;  ///< cached identity, valid for the process lifetime
};
QueueContext queue_context_of(const cl::CommandQueue& queue);
/// Cached identity of a device.
const DeviceInfo& device_info(const cl::Device& device);

/// Build options: -cl-std=CL1.2, then -D NAME=VALUE for every parameter sorted by name except
/// those `spec` marks launcher_only (so that they do not split the caches), then `extra`
/// (routine constants such as -DTRA_ELEM=4).
std::string build_options(const KernelSpec& spec, const Configuration& cfg, const std::string& extra);
/// The same for the registered kernel cfg.kernel (every parameter when none is registered).
std::string build_options(const Configuration& cfg, const std::string& extra);

/// The compiled program of spec's files (cl/common/*.cl prepended) with cfg's parameters.
/// Memory cache, then disk cache, then compile. Throws BuildError with the log.
cl::Program get_program(const QueueContext& qc, const KernelSpec& spec, const Configuration& cfg,
                        const std::string& extra_options = {});

/// A read-only buffer holding `bytes` of `data`, shared by every call in `context` that asks for
/// the same contents (bounded, most recently used kept; an empty table gets 4 zero bytes).
/// Kernels only read it. `what` names it in errors.
cl::Buffer constant_buffer(const cl::Context& context, const void* data, std::size_t bytes, const std::string& what);

/// A kernel object of a program for the calling thread (never shared between threads).
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
