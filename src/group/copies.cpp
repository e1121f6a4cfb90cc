// Host<->device copies of a chunk's blocks (runner.hpp): one enqueue per block (a rectangle
// where either side is strided), and the host copies into and out of pinned staging buffers.
#include <pthread.h>
#include <signal.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "group/runner.hpp"

namespace clforge::detail::pipeline {

namespace {
// n bytes with streaming (non-temporal) stores where the target has them: the destination is
// read by a DMA engine (staging) or by the caller later, so the stores need not first read its
// lines into the cache, which would add a third of the copy's memory traffic.
void copy_streaming(char* dst, const char* src, std::size_t n) {
#if defined(__SSE2__)
  if (n < 4096) {
    std::memcpy(dst, src, n);
    return;
  }
  const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16;
  std::memcpy(dst, src, head);
  dst += head, src += head, n -= head;
  const std::size_t body = n / 64 * 64;
  for (std::size_t i = 0; i < body; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  _mm_sfence();  // the streamed lines are visible before the copy counts as done
  std::memcpy(dst + body, src + body, n - body);
#else
  std::memcpy(dst, src, n);
#endif
}

// Bytes [from, to) of a block (rows of row_bytes, counted packed) to or from its packed image.
void copy_part(const BlockCopy& b, char* packed, bool to_packed, std::size_t from, std::size_t to) {
  while (from < to) {
    const std::size_t r = from / b.row_bytes, in_row = from % b.row_bytes;
    const std::size_t n = std::min(b.row_bytes - in_row, to - from);
    char* h = b.host + r * b.pitch + in_row;
    char* p = packed + from;
    copy_streaming(to_packed ? p : h, to_packed ? h : p, n);
    from += n;
  }
}

// Host threads that copy parts of staged blocks, started once per process: starting threads for
// every block cost more than copying a part of a few MiB (on the H100 machine, pageable FFT
// calls in 8 MiB chunks were 1.6x slower than in 64 MiB ones while each copy started its own).
class CopyThreads {
 public:
  static CopyThreads& get() {
    // Never destroyed: its threads wait for work until the process ends.
    static CopyThreads& t = *new CopyThreads();
    return t;
  }
  std::size_t size() const { return threads_; }
  void run(std::function<void()> f) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      work_.push_back(std::move(f));
    }
    wake_.notify_one();
  }

 private:
  CopyThreads() {
    // The threads outlive the call that starts them: they take no signals (they inherit this
    // mask), which stay with the application's own threads and handlers.
    sigset_t all, prev;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &prev);
    const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
    for (std::size_t i = 0; i + 1 < std::min<std::size_t>(hw, 8); ++i) {
      try {
        std::thread([this] { serve(); }).detach();
        ++threads_;
      } catch (...) {  // fewer threads: the caller copies the rest
        break;
      }
    }
    pthread_sigmask(SIG_SETMASK, &prev, nullptr);
  }
  void serve() {
    for (;;) {
      std::function<void()> f;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return !work_.empty(); });
        f = std::move(work_.front());
        work_.pop_front();
      }
      f();
    }
  }
  std::size_t threads_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> work_;
};

}  // namespace

}  // namespace clforge::detail::pipeline

namespace clforge::detail {

cl::Buffer host_buffer(const cl::Context& context, cl_mem_flags flags, std::size_t bytes, void* host) {
  cl_int st = CL_SUCCESS;
  count_buffer();
  cl::Buffer b(context, flags | CL_MEM_USE_HOST_PTR, bytes, host, &st);
  check(st, "clCreateBuffer", "group chunk in host memory");
  return b;
}

void sync_to_host(cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes, cl::Event* done) {
  cl_int st = CL_SUCCESS;
  count_enqueue();
  void* p = queue.enqueueMapBuffer(buffer, CL_FALSE, CL_MAP_READ, 0, bytes, nullptr, nullptr, &st);
  check(st, "clEnqueueMapBuffer", "group chunk in host memory");
  count_enqueue();
  check(queue.enqueueUnmapMemObject(buffer, p, nullptr, done), "clEnqueueUnmapMemObject", "group chunk in host memory");
}

}  // namespace clforge::detail

namespace clforge::detail::pipeline {

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
  if (bytes / kPart < 2) return copy_part(b, packed, to_packed, 0, bytes);
  CopyThreads& helpers = CopyThreads::get();
  const std::size_t parts = std::min(bytes / kPart, helpers.size() + 1);
  if (parts < 2) return copy_part(b, packed, to_packed, 0, bytes);
  // Parts 1 .. parts-1 on the copy threads, part 0 here; back when all are done (nothing touches
  // the caller's memory after the call).
  const std::size_t step = ceil_div(bytes, parts);
  auto part = [&](std::size_t i) {
    copy_part(b, packed, to_packed, std::min(bytes, i * step), std::min(bytes, (i + 1) * step));
  };
  std::mutex m;
  std::condition_variable done;
  std::size_t left = parts - 1;
  std::size_t t = 1;
  try {
    for (; t < parts; ++t)
      helpers.run([&, i = t] {
        part(i);
        const std::lock_guard<std::mutex> lock(m);
        if (--left == 0) done.notify_one();
      });
  } catch (...) {  // not queued (no memory): those parts here
    for (std::size_t u = t; u < parts; ++u) part(u);
    const std::lock_guard<std::mutex> lock(m);
    left -= parts - t;
  }
  part(0);
  std::unique_lock<std::mutex> lock(m);
  done.wait(lock, [&] { return left == 0; });
}

}  // namespace clforge::detail::pipeline
