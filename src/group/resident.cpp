// The device-resident benchmark form of the group calls (SplitOptions::resident_reps): every
// share uploaded once, computed reps + 1 times by all devices at once (the first not counted; each
// device timed when its marker completes, polled), then downloaded.
#include <algorithm>
#include <chrono>
#include <thread>

#include "group/runner.hpp"
#include "runtime/timing.hpp"

namespace clforge::detail::pipeline {

void run_resident(const DeviceGroup& group, std::vector<std::unique_ptr<ChunkTask>>& tasks,
                  const std::vector<std::pair<std::size_t, std::size_t>>& own, int reps, GroupRun& run) {
  const std::size_t D = group.size();
  std::vector<std::vector<cl::Buffer>> buffers(D);
  auto finish_all = [&]() noexcept {
    for (std::size_t d = 0; d < D; ++d) try {
        if (tasks[d]) group.queue(d, 0).finish();
      } catch (...) {
      }
  };
  try {
    std::vector<BlockCopy> blocks;
    for (std::size_t d = 0; d < D; ++d) {
      if (!tasks[d]) continue;
      cl::CommandQueue& q = group.queue(d, 0);
      for (std::size_t b : tasks[d]->slot_buffers())
        buffers[d].push_back(
            device_buffer(group.context(d), CL_MEM_READ_WRITE, std::max<std::size_t>(b, 4), "group resident buffer"));
      tasks[d]->prepare(group.context(d), [&q](const cl::Buffer& buf, const BlockCopy& b) {
        enqueue_copy(q, true, buf, b, b.host, b.pitch, nullptr);
        q.finish();
      });
      blocks.clear();
      tasks[d]->inputs(own[d].first, own[d].second - own[d].first, blocks);
      for (const auto& b : blocks) enqueue_copy(q, true, buffers[d].at(b.buffer), b, b.host, b.pitch, nullptr);
      q.finish();
    }
    std::vector<std::vector<double>> device_ms(D);
    std::vector<double> all_ms;
    for (int r = 0; r <= reps; ++r) {
      const auto t0 = Clock::now();
      std::vector<cl::Event> done(D);
      for (std::size_t d = 0; d < D; ++d) {
        if (!tasks[d]) continue;
        cl::CommandQueue& q = group.queue(d, 0);
        tasks[d]->compute(q, buffers[d], own[d].first, own[d].second - own[d].first);
        count_enqueue();
        check(q.enqueueMarkerWithWaitList(nullptr, &done[d]), "clEnqueueMarkerWithWaitList", "group resident");
        q.flush();
      }
      // Each device's time is when its marker completes (polled without sleeping: a sleep of
      // 20 us lasts 50-80 us on a virtual machine, which a job of half a millisecond would count,
      // and one device's wait must not stretch another's).
      std::vector<bool> pending(D);
      for (std::size_t d = 0; d < D; ++d) pending[d] = tasks[d] != nullptr;
      while (std::any_of(pending.begin(), pending.end(), [](bool p) { return p; })) {
        for (std::size_t d = 0; d < D; ++d) {
          if (!pending[d]) continue;
          cl_int st = CL_QUEUED;
          check(done[d].getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &st), "clGetEventInfo", "group resident");
          if (st < 0) check(st, "group resident computation", group.entry(d).info.name);
          if (st != CL_COMPLETE) continue;
          pending[d] = false;
          if (r > 0) device_ms[d].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
        std::this_thread::yield();
      }
      if (r > 0) all_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    for (std::size_t d = 0; d < D; ++d) {
      if (!tasks[d]) continue;
      cl::CommandQueue& q = group.queue(d, 0);
      blocks.clear();
      tasks[d]->outputs(own[d].first, own[d].second - own[d].first, blocks);
      for (const auto& b : blocks) enqueue_copy(q, false, buffers[d].at(b.buffer), b, b.host, b.pitch, nullptr);
      q.finish();
      DeviceShare& sh = run.shares[d];
      sh.items = own[d].second - own[d].first;
      sh.chunks = 1;
      sh.seconds = summarize(device_ms[d]).median_ms / 1e3;
    }
    run.seconds = summarize(all_ms).median_ms / 1e3;
  } catch (...) {
    finish_all();
    throw;
  }
}

}  // namespace clforge::detail::pipeline
