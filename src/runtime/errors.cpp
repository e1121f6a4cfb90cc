// OpenCL status names, the exception constructors and the argument checks every routine uses.
#include "runtime/errors.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include "runtime/host_io.hpp"
#include "runtime/log.hpp"
#include "runtime/util.hpp"

namespace clforge {

std::string cl_error_name(int code) {
  switch (code) {
#define CLF_CASE(x) \
  case x:           \
    return #x;
    CLF_CASE(CL_SUCCESS) CLF_CASE(CL_DEVICE_NOT_FOUND) CLF_CASE(CL_DEVICE_NOT_AVAILABLE)
    CLF_CASE(CL_COMPILER_NOT_AVAILABLE) CLF_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE) CLF_CASE(CL_OUT_OF_RESOURCES)
    CLF_CASE(CL_OUT_OF_HOST_MEMORY) CLF_CASE(CL_PROFILING_INFO_NOT_AVAILABLE) CLF_CASE(CL_MEM_COPY_OVERLAP)
    CLF_CASE(CL_IMAGE_FORMAT_MISMATCH) CLF_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED) CLF_CASE(CL_BUILD_PROGRAM_FAILURE)
    CLF_CASE(CL_MAP_FAILURE) CLF_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLF_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) CLF_CASE(CL_COMPILE_PROGRAM_FAILURE)
    CLF_CASE(CL_LINKER_NOT_AVAILABLE) CLF_CASE(CL_LINK_PROGRAM_FAILURE) CLF_CASE(CL_DEVICE_PARTITION_FAILED)
    CLF_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) CLF_CASE(CL_INVALID_VALUE) CLF_CASE(CL_INVALID_DEVICE_TYPE)
    CLF_CASE(CL_INVALID_PLATFORM) CLF_CASE(CL_INVALID_DEVICE) CLF_CASE(CL_INVALID_CONTEXT)
    CLF_CASE(CL_INVALID_QUEUE_PROPERTIES) CLF_CASE(CL_INVALID_COMMAND_QUEUE) CLF_CASE(CL_INVALID_HOST_PTR)
    CLF_CASE(CL_INVALID_MEM_OBJECT) CLF_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) CLF_CASE(CL_INVALID_IMAGE_SIZE)
    CLF_CASE(CL_INVALID_SAMPLER) CLF_CASE(CL_INVALID_BINARY) CLF_CASE(CL_INVALID_BUILD_OPTIONS)
    CLF_CASE(CL_INVALID_PROGRAM) CLF_CASE(CL_INVALID_PROGRAM_EXECUTABLE) CLF_CASE(CL_INVALID_KERNEL_NAME)
    CLF_CASE(CL_INVALID_KERNEL_DEFINITION) CLF_CASE(CL_INVALID_KERNEL) CLF_CASE(CL_INVALID_ARG_INDEX)
    CLF_CASE(CL_INVALID_ARG_VALUE) CLF_CASE(CL_INVALID_ARG_SIZE) CLF_CASE(CL_INVALID_KERNEL_ARGS)
    CLF_CASE(CL_INVALID_WORK_DIMENSION) CLF_CASE(CL_INVALID_WORK_GROUP_SIZE) CLF_CASE(CL_INVALID_WORK_ITEM_SIZE)
    CLF_CASE(CL_INVALID_GLOBAL_OFFSET) CLF_CASE(CL_INVALID_EVENT_WAIT_LIST) CLF_CASE(CL_INVALID_EVENT)
    CLF_CASE(CL_INVALID_OPERATION) CLF_CASE(CL_INVALID_GL_OBJECT) CLF_CASE(CL_INVALID_BUFFER_SIZE)
    CLF_CASE(CL_INVALID_MIP_LEVEL) CLF_CASE(CL_INVALID_GLOBAL_WORK_SIZE) CLF_CASE(CL_INVALID_PROPERTY)
    CLF_CASE(CL_INVALID_IMAGE_DESCRIPTOR) CLF_CASE(CL_INVALID_COMPILER_OPTIONS) CLF_CASE(CL_INVALID_LINKER_OPTIONS)
    CLF_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CLF_CASE
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

OpenCLError::OpenCLError(int code, std::string call, const std::string& context)
    : Error(call + ": " + cl_error_name(code) + " (" + std::to_string(code) + ")" +
            (context.empty() ? std::string() : " " + context)),
      code_(code),
      call_(std::move(call)) {}

std::string OpenCLError::code_name() const { return cl_error_name(code_); }

namespace detail {

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

namespace {
// CLFORGE_PROFILE_KERNELS=1: every launch logs (level info) its kernel, sizes and device time
// when it completes, from the event's profiling counters (the queue needs profiling enabled).
bool kernel_profiling() {
  static const bool on = [] {
    const auto v = env("CLFORGE_PROFILE_KERNELS");
    return v && !v->empty() && *v != "0";
  }();
  return on;
}

std::string range_text(const cl::NDRange& r) {
  std::string s;
  for (cl_uint i = 0; i < r.dimensions(); ++i) s += (i ? "x" : "") + std::to_string(r[i]);
  return s.empty() ? "-" : s;
}

void CL_CALLBACK profile_done(cl_event ev, cl_int status, void* data) {
  const std::unique_ptr<std::string> what(static_cast<std::string*>(data));
  cl_ulong a = 0, b = 0;
  if (status != CL_COMPLETE || clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr) != CL_SUCCESS ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr) != CL_SUCCESS) {
    log(LogLevel::Info, "profile: " + *what + " (no profiling information: status " + std::to_string(status) + ")");
    return;
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.4f", static_cast<double>(b - a) * 1e-6);
  log(LogLevel::Info, "profile: " + *what + " " + ms + " ms");
}
}  // namespace

void launch(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local,
            const EventList* wait_list, cl::Event* event, const std::string& tag) {
  if (kernel_profiling() && log_enabled(LogLevel::Info)) {
    cl::Event own;
    launch_plain(queue, kernel, global, local, wait_list, &own);
    std::string name;
    kernel.getInfo(CL_KERNEL_FUNCTION_NAME, &name);
    auto* what = new std::string(name + (tag.empty() ? "" : " [" + tag + "]") + " global " + range_text(global) +
                                 " local " + range_text(local));
    if (clSetEventCallback(own(), CL_COMPLETE, profile_done, what) != CL_SUCCESS) delete what;
    if (event != nullptr) *event = own;
    return;
  }
  launch_plain(queue, kernel, global, local, wait_list, event);
}

void launch_plain(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local,
                  const EventList* wait_list, cl::Event* event) {
  std::vector<cl_event> waits;
  if (wait_list != nullptr)
    for (const auto& e : *wait_list) waits.push_back(e());
  cl_event ev = nullptr;
  count_enqueue();
  const cl_int st = clEnqueueNDRangeKernel(queue(), kernel(), static_cast<cl_uint>(global.dimensions()), nullptr,
                                           global, local.dimensions() ? static_cast<const size_t*>(local) : nullptr,
                                           static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                           event != nullptr ? &ev : nullptr);
  if (st != CL_SUCCESS) {
    std::string name;
    kernel.getInfo(CL_KERNEL_FUNCTION_NAME, &name);
    throw OpenCLError(st, "clEnqueueNDRangeKernel", "launching " + name);
  }
  if (event != nullptr) *event = cl::Event(ev, false);
}

}  // namespace detail
}  // namespace clforge
