// Host<->device copies of a chunk's blocks (runner.hpp): one enqueue per block (a rectangle
// where either side is strided), and the host copies into and out of pinned staging buffers.
#include <algorithm>
#include <cstring>
#include <thread>

#include "group/runner.hpp"

namespace clforge::detail::pipeline {

namespace {
// Bytes [from, to) of a block (rows of row_bytes, counted packed) to or from its packed image.
void copy_part(const BlockCopy& b, char* packed, bool to_packed, std::size_t from, std::size_t to) {
  while (from < to) {
    const std::size_t r = from / b.row_bytes, in_row = from % b.row_bytes;
    const std::size_t n = std::min(b.row_bytes - in_row, to - from);
    char* h = b.host + r * b.pitch + in_row;
    char* p = packed + from;
    std::memcpy(to_packed ? p : h, to_packed ? h : p, n);
    from += n;
  }
}

}  // namespace

// One block between host memory (`host`, rows host_pitch apart) and a slot buffer, not blocking.
void enqueue_copy(cl::CommandQueue& q, bool to_device, const cl::Buffer& buf, const BlockCopy& b, void* host,
                  std::size_t host_pitch, cl::Event* ev) {
  count_enqueue();
  const std::size_t dev_pitch = b.device_pitch ? b.device_pitch : b.row_bytes;
  cl_int st;
  if (b.rows == 1 || (host_pitch == b.row_bytes && dev_pitch == b.row_bytes)) {  // one run of bytes
    st = to_device ? q.enqueueWriteBuffer(buf, CL_FALSE, b.device_offset, b.bytes(), host, nullptr, ev)
                   : q.enqueueReadBuffer(buf, CL_FALSE, b.device_offset, b.bytes(), host, nullptr, ev);
    check(st, to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", "group chunk");
    return;
  }
  const cl::array<cl::size_type, 3> buffer_origin = {b.device_offset, 0, 0}, host_origin = {0, 0, 0},
                                    region = {b.row_bytes, b.rows, 1};
  st = to_device ? q.enqueueWriteBufferRect(buf, CL_FALSE, buffer_origin, host_origin, region, dev_pitch, 0, host_pitch,
                                            0, host, nullptr, ev)
                 : q.enqueueReadBufferRect(buf, CL_FALSE, buffer_origin, host_origin, region, dev_pitch, 0, host_pitch,
                                           0, host, nullptr, ev);
  check(st, to_device ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect", "group chunk");
}

// A block to or from its packed image; large blocks on several threads (one core copies pageable
// memory at about 10 GB/s, a fifth of a PCIe 5 link).
void copy_rows(const BlockCopy& b, char* packed, bool to_packed) {
  constexpr std::size_t kPart = std::size_t{1} << 20;
  const std::size_t bytes = b.bytes();
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>({bytes / kPart, hw, 8});
  if (threads < 2) return copy_part(b, packed, to_packed, 0, bytes);
  std::vector<std::thread> pool;
  const std::size_t step = ceil_div(bytes, threads);
  try {
    for (std::size_t t = 1; t < threads; ++t)
      pool.emplace_back(copy_part, std::cref(b), packed, to_packed, t * step, std::min(bytes, (t + 1) * step));
  } catch (...) {  // no thread: the rest on this one
    copy_part(b, packed, to_packed, pool.size() * step + step, bytes);
  }
  copy_part(b, packed, to_packed, 0, std::min(bytes, step));
  for (auto& t : pool) t.join();
}

}  // namespace clforge::detail::pipeline
