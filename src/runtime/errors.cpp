// OpenCL status names, the exception constructors and the argument checks every routine uses.
#include "runtime/errors.hpp"

#include <string>

#include "runtime/util.hpp"

namespace clforge {

std::string cl_error_name(int code) {
  switch (code) {
#define CLF_CASE(x) \
  case x:           \
    return #x;
    // clang-format off
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
    // clang-format on
#undef CLF_CASE
                                                                                default : return "CL_UNKNOWN_ERROR";
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

void require_plan_queue(const char* routine, const cl::CommandQueue& queue, cl_context context, cl_device_id device) {
  require(queue() != nullptr, routine, "null command queue");
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  check(clGetCommandQueueInfo(queue(), CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetCommandQueueInfo");
  check(clGetCommandQueueInfo(queue(), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr), "clGetCommandQueueInfo");
  require(ctx == context && dev == device, routine, "the queue belongs to another context or device than the plan");
}

}  // namespace detail
}  // namespace clforge
