// Internal error helpers: one check() for every OpenCL status and argument checks shared
// by all routines.
#pragma once
#include <CL/opencl.hpp>
#include <cstddef>
#include <string>

#include "clforge/common.hpp"
#include "clforge/errors.hpp"

namespace clforge::detail {

/// Throws OpenCLError(status, call, context) unless status is CL_SUCCESS.
inline void check(cl_int status, const char* call, const std::string& context = {}) {
  if (status != CL_SUCCESS) throw OpenCLError(status, call, context);
}

/// Throws InvalidArgument("<routine>: <message>") when cond is false.
inline void require(bool cond, const char* routine, const std::string& message) {
  if (!cond) throw InvalidArgument(std::string(routine) + ": " + message);
}

/// Context and device of a queue, throwing OpenCLError on failure.
cl::Context queue_context(const cl::CommandQueue& q);
cl::Device queue_device(const cl::CommandQueue& q);

/// Enqueues a kernel over a global range (already rounded up to local) with the wait list
/// and optional output event; converts errors into OpenCLError naming the kernel. `tag` names
/// the launch's role in the kernel profile (e.g. an FFT plan's pass).
void launch(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
            const cl::NDRange& local, const EventList* wait_list, cl::Event* event,
            const std::string& tag = {});
// launch without the optional kernel profile (CLFORGE_PROFILE_KERNELS).
void launch_plain(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                  const cl::NDRange& local, const EventList* wait_list, cl::Event* event);

inline std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }
inline std::size_t ceil_div(std::size_t x, std::size_t m) { return (x + m - 1) / m; }

}  // namespace clforge::detail
