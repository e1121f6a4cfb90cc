// Counted buffer creation, blocking host transfers and markers (see host_io.hpp).
#include "runtime/host_io.hpp"

#include <atomic>

#include "runtime/errors.hpp"

namespace clforge::detail {

namespace {
std::atomic<std::uint64_t> g_buffers{0}, g_enqueued{0};
}  // namespace

Activity activity() { return {g_buffers.load(), g_enqueued.load()}; }
void count_buffer() { g_buffers.fetch_add(1, std::memory_order_relaxed); }
void count_enqueue() { g_enqueued.fetch_add(1, std::memory_order_relaxed); }

cl::Buffer device_buffer(const cl::Context& context, cl_mem_flags flags, std::size_t bytes, const std::string& what) {
  count_buffer();
  cl_int st = CL_SUCCESS;
  cl::Buffer b(context, flags, bytes, nullptr, &st);
  check(st, "clCreateBuffer", what + " of " + std::to_string(bytes) + " bytes");
  return b;
}

cl::Buffer upload(const cl::Context& context, cl_mem_flags flags, const void* data, std::size_t bytes,
                  const std::string& what) {
  count_buffer();
  cl_int st = CL_SUCCESS;
  cl::Buffer b(context, flags | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data), &st);
  check(st, "clCreateBuffer", what + " of " + std::to_string(bytes) + " bytes");
  return b;
}

void download(cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes, void* out, const EventList& after,
              const std::string& what) {
  count_enqueue();
  check(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, out, after.empty() ? nullptr : &after),
        "clEnqueueReadBuffer", what);
}

void enqueue_marker(cl::CommandQueue& queue, const EventList& wait, cl::Event* event) {
  count_enqueue();
  check(queue.enqueueMarkerWithWaitList(&wait, event), "clEnqueueMarkerWithWaitList");
}

}  // namespace clforge::detail
