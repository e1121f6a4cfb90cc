// Device buffers made by the library and the host transfers of the host-vector overloads, in
// one place, so that (1) every buffer the library creates and every command it enqueues is
// counted (the argument-safety tests assert that a refused call changed neither), and (2) no
// transfer can still read or write caller memory after a host-vector call returns or throws.
#pragma once
#include <cstdint>
#include <string>

#include "clforge/common.hpp"
#include "clforge/opencl.hpp"

namespace clforge::detail {

/// Buffers created and commands enqueued by the library in this process (monotonic).
struct Activity {
  std::uint64_t buffers = 0;
  std::uint64_t enqueued = 0;
};
Activity activity();
void count_buffer();
void count_enqueue();

/// A new device buffer of `bytes` (> 0) in `context`; `what` names it in errors.
cl::Buffer device_buffer(const cl::Context& context, cl_mem_flags flags, std::size_t bytes, const std::string& what);

/// A new device buffer holding a copy of `bytes` (> 0) of host memory. The copy is made during
/// creation (CL_MEM_COPY_HOST_PTR): `data` is not read after this returns.
cl::Buffer upload(const cl::Context& context, cl_mem_flags flags, const void* data, std::size_t bytes,
                  const std::string& what);

/// Copies `bytes` of `buffer` into host memory after the events in `after`, blocking: when it
/// returns or throws, no command writes `out` any more.
void download(cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes, void* out, const EventList& after,
              const std::string& what);

/// An event that completes when the wait list has (clEnqueueMarkerWithWaitList).
void enqueue_marker(cl::CommandQueue& queue, const EventList& wait, cl::Event* event);

}  // namespace clforge::detail
