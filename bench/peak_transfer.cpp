// Host<->device and launch-latency probes (see peak_internal.hpp). Transfers are timed on the
// host clock around enqueue and completion (what an application waits for; a driver's event
// on a pageable copy may cover only its last staged piece), 64 MiB each way from pinned host
// memory (a CL_MEM_ALLOC_HOST_PTR buffer kept mapped, the vendors' recipe for fast transfers)
// and from pageable memory (a std::vector), and both directions at once on two queues.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "bench/peak_internal.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "runtime/timing.hpp"

namespace clforge::bench::detail_peak {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A host buffer of pinned memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for the probe's life.
class Pinned {
 public:
  Pinned(Session& s, std::size_t bytes) : q_(s.queue) {
    cl_int st = CL_SUCCESS;
    buf_ = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &st);
    detail::check(st, "clCreateBuffer", "pinned host buffer");
    ptr_ = q_.enqueueMapBuffer(buf_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &st);
    detail::check(st, "clEnqueueMapBuffer", "pinned host buffer");
  }
  ~Pinned() {
    if (ptr_ != nullptr && q_.enqueueUnmapMemObject(buf_, ptr_) == CL_SUCCESS) q_.finish();
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  void* get() const { return ptr_; }

 private:
  cl::CommandQueue& q_;
  cl::Buffer buf_;
  void* ptr_ = nullptr;
};

std::size_t transfer_bytes(const DeviceInfo& dev) {
  std::size_t bytes = std::size_t{64} << 20;
  if (dev.max_alloc_size > 0) bytes = std::min<std::size_t>(bytes, dev.max_alloc_size);
  if (dev.global_mem_size > 0) bytes = std::min<std::size_t>(bytes, dev.global_mem_size / 8);
  return bytes / 64 * 64;
}

}  // namespace

void measure_transfers(Session& s, Report& report, Peaks& peaks) {
  const std::size_t bytes = transfer_bytes(s.entry.info);
  cl_int st = CL_SUCCESS;
  cl::Buffer up(s.context, CL_MEM_READ_WRITE, bytes, nullptr, &st);
  detail::check(st, "clCreateBuffer", "transfer probe buffer");
  cl::Buffer down = random_buffer(s.context, s.queue, bytes / 4, 23);
  cl::CommandQueue second(s.context, s.entry.device, 0, &st);
  detail::check(st, "clCreateCommandQueue", "second queue of the transfer probe");
  const std::vector<float> data = host::random_floats(bytes / 4, 29);
  std::vector<float> page_src(data), page_dst(bytes / 4);
  const Pinned pin_src(s, bytes), pin_dst(s, bytes);
  std::memcpy(pin_src.get(), data.data(), bytes);
  std::memset(pin_dst.get(), 0, bytes);

  const std::string shape = mib_text(static_cast<double>(bytes));
  const TimingPlan plan{1, 5, 50, 50, 0};
  for (const bool pinned : {true, false}) {
    const void* src = pinned ? pin_src.get() : static_cast<const void*>(page_src.data());
    void* dst = pinned ? pin_dst.get() : static_cast<void*>(page_dst.data());
    const std::string memory = pinned ? "pinned" : "pageable";
    const auto h2d = [&] {
      const auto t0 = Clock::now();
      detail::check(s.queue.enqueueWriteBuffer(up, CL_TRUE, 0, bytes, src), "clEnqueueWriteBuffer");
      return ms_since(t0);
    };
    const auto d2h = [&] {
      const auto t0 = Clock::now();
      detail::check(s.queue.enqueueReadBuffer(down, CL_TRUE, 0, bytes, dst), "clEnqueueReadBuffer");
      return ms_since(t0);
    };
    const auto both = [&] {
      const auto t0 = Clock::now();
      detail::check(s.queue.enqueueWriteBuffer(up, CL_FALSE, 0, bytes, src), "clEnqueueWriteBuffer");
      detail::check(second.enqueueReadBuffer(down, CL_FALSE, 0, bytes, dst), "clEnqueueReadBuffer");
      detail::check(s.queue.flush(), "clFlush");
      detail::check(second.finish(), "clFinish");
      detail::check(s.queue.finish(), "clFinish");
      return ms_since(t0);
    };
    const struct {
      const char* what;
      std::function<double()> run;
      double factor;
      double* peak;
    } probes[] = {{"host to device", h2d, 1, pinned ? &peaks.h2d_gbps : nullptr},
                  {"device to host", d2h, 1, pinned ? &peaks.d2h_gbps : nullptr},
                  {"both directions", both, 2, pinned ? &peaks.both_gbps : nullptr}};
    for (const auto& p : probes) {
      Record r = Record::of("peak", std::string(p.what) + " (" + memory + ")", shape);
      r.bytes = p.factor * static_cast<double>(bytes);
      r.timing = detail::sample_runs(plan, {p.run}).front();
      r.status = "ok (host wall clock)";
      r.params = {{"host_memory", pinned ? "CL_MEM_ALLOC_HOST_PTR buffer, mapped" : "std::vector"},
                  {"bytes_each_way", bytes},
                  {"queues", p.factor > 1 ? 2 : 1}};
      if (p.peak != nullptr) *p.peak = r.gbps();
      progress("peak " + r.library + " " + shape + ": " + std::to_string(r.gbps()) + " GB/s");
      report.add(r);
    }
  }
}

void measure_launch(Session& s, Report& report, Peaks& peaks) {
  cl::Kernel k = detail::get_kernel(peak_program(s, ""), "peak_empty");
  const auto enqueue = [&](cl::Event* e, const std::vector<cl::Event>* wait) {
    detail::check(s.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(1), cl::NullRange, wait, e),
                  "clEnqueueNDRangeKernel", "peak_empty");
  };
  constexpr int kBatch = 64;
  const TimingPlan plan{2, 10, 100, 20, 0};
  const std::string shape = "empty kernel";
  // Host: kBatch enqueues back to back, no events; the wait for them is not counted.
  const auto host_enqueue = [&] {
    const auto t0 = Clock::now();
    for (int i = 0; i < kBatch; ++i) enqueue(nullptr, nullptr);
    const double ms = ms_since(t0) / kBatch;
    detail::check(s.queue.finish(), "clFinish");
    return ms;
  };
  // Device: kBatch kernels held back by a user event until all are queued, so the device never
  // waits for the host; the median of START of one minus END of the one before.
  const auto device_gap = [&] {
    cl_int st = CL_SUCCESS;
    cl::UserEvent gate(s.context, &st);
    detail::check(st, "clCreateUserEvent");
    const std::vector<cl::Event> wait{gate};
    std::vector<cl::Event> ev(kBatch);
    for (int i = 0; i < kBatch; ++i) enqueue(&ev[i], i == 0 ? &wait : nullptr);
    detail::check(gate.setStatus(CL_COMPLETE), "clSetUserEventStatus");
    detail::check(s.queue.finish(), "clFinish");
    std::vector<double> gaps;
    for (int i = 1; i < kBatch; ++i)
      gaps.push_back(static_cast<double>(ev[i].getProfilingInfo<CL_PROFILING_COMMAND_START>()) -
                     static_cast<double>(ev[i - 1].getProfilingInfo<CL_PROFILING_COMMAND_END>()));
    return std::max(0.0, detail::summarize(gaps).median_ms) / 1e6;  // ns -> ms
  };
  const auto round_trip = [&] {
    const auto t0 = Clock::now();
    enqueue(nullptr, nullptr);
    detail::check(s.queue.finish(), "clFinish");
    return ms_since(t0);
  };
  const struct {
    const char* what;
    std::function<double()> run;
    double* peak;
    const char* how;
  } probes[] = {{"launch (host enqueue)", host_enqueue, &peaks.launch_enqueue_us,
                 "host clock over 64 clEnqueueNDRangeKernel back to back, per launch"},
                {"launch (device gap)", device_gap, &peaks.launch_gap_us,
                 "profiling START of a kernel minus END of the one before, 64 queued behind a user event, median"},
                {"launch (enqueue + finish)", round_trip, &peaks.launch_round_trip_us,
                 "host clock over clEnqueueNDRangeKernel + clFinish of one kernel"}};
  for (const auto& p : probes) {
    Record r = Record::of("peak", p.what, shape);
    r.timing = detail::sample_runs(plan, {p.run}).front();
    if (r.measured()) {
      *p.peak = r.timing.median_ms * 1000;
      r.status = "ok (" + std::string(p.how) + ")";
      r.params = {{"us", *p.peak}};
      progress("peak " + r.library + ": " + std::to_string(*p.peak) + " us");
    } else {
      r.timing = {};
      r.status = "failed: no positive time (" + std::string(p.how) + ")";
      progress("peak " + r.library + ": " + r.status);
    }
    report.add(r);
  }
}

}  // namespace clforge::bench::detail_peak
