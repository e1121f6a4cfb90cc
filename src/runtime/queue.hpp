// What a command queue belongs to: its context and device with the device's cached identity
// (QueueContext, where every routine starts), and the check that a plan is enqueued on a queue
// of the context and device it was built for.
#pragma once
#include "clforge/device.hpp"
#include "clforge/opencl.hpp"

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

/// Context and device of a queue, throwing OpenCLError on failure.
cl::Context queue_context(const cl::CommandQueue& q);
cl::Device queue_device(const cl::CommandQueue& q);

/// Throws InvalidArgument("<routine>: ...") unless `queue` is a queue of this context and device
/// (a plan's enqueue on a queue the plan was not built for).
void require_plan_queue(const char* routine, const cl::CommandQueue& queue, cl_context context, cl_device_id device);

}  // namespace clforge::detail
