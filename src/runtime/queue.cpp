// Queue identity: the context and device a queue belongs to (OpenCL C queries), and each
// device's DeviceInfo, described once per process.
#include "runtime/queue.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "runtime/errors.hpp"

namespace clforge::detail {
namespace {

std::mutex g_info_mutex;
std::map<cl_device_id, std::unique_ptr<DeviceInfo>> g_infos;

}  // namespace

const DeviceInfo& device_info(const cl::Device& device) {
  std::lock_guard<std::mutex> lock(g_info_mutex);
  auto& slot = g_infos[device()];
  if (!slot) slot = std::make_unique<DeviceInfo>(describe(device));
  return *slot;
}

QueueContext queue_context_of(const cl::CommandQueue& queue) {
  require(queue() != nullptr, "clforge", "null command queue");
  QueueContext qc{queue_context(queue), queue_device(queue), nullptr};
  qc.info = &device_info(qc.device);
  return qc;
}

cl::Context queue_context(const cl::CommandQueue& q) {
  cl_context ctx = nullptr;
  check(clGetCommandQueueInfo(q(), CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetCommandQueueInfo");
  return cl::Context(ctx, true);
}

cl::Device queue_device(const cl::CommandQueue& q) {
  cl_device_id dev = nullptr;
  check(clGetCommandQueueInfo(q(), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr), "clGetCommandQueueInfo");
  return cl::Device(dev, true);
}

void require_plan_queue(const char* routine, const cl::CommandQueue& queue, cl_context context, cl_device_id device) {
  require(queue() != nullptr, routine, "null command queue");
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  check(clGetCommandQueueInfo(queue(), CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetCommandQueueInfo");
  check(clGetCommandQueueInfo(queue(), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr), "clGetCommandQueueInfo");
  require(ctx == context && dev == device, routine, "the queue belongs to another context or device than the plan");
}

}  // namespace clforge::detail
