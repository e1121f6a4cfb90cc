// The parts of the chunk pipeline (src/group/pipeline.cpp) that run on the devices' threads:
// the state the threads share, the host<->device copies of a chunk's blocks, and DeviceRunner
// (runner.cpp), which runs one device's chunks through its slots (one in-order queue each):
// upload, compute, download, chunk k on slot k % queues; a slot is reused once its previous
// download completed (and, when staged, was copied out). Internal to the group layer.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "group/group_internal.hpp"
#include "group/group_testing.hpp"
#include "runtime/errors.hpp"
#include "runtime/host_io.hpp"

namespace clforge::detail::pipeline {

using Clock = std::chrono::steady_clock;

struct Chunk {
  std::size_t id = 0, first = 0, count = 0;
};

// What the device threads share.
struct Shared {
  const DeviceGroup* group = nullptr;
  const SplitOptions* options = nullptr;
  GroupFault fault;  // the tests' hook (group_testing.hpp), as the call started
  std::size_t items = 0;
  bool dynamic = false;
  std::atomic<std::size_t> next_item{0};                 // Dynamic: first item of the next chunk
  std::atomic<std::size_t> next_id{0};                   // chunk numbers in the order chunks are taken
  std::vector<std::pair<std::size_t, std::size_t>> own;  // Weights: each device's [first, last) not yet taken
  bool steal = false;    // Auto: a device done with its share takes chunks from the end of another's
  std::mutex own_mutex;  // guards own
  std::atomic<bool> abort{false};
  std::mutex mutex;                                           // guards finished and the failure
  std::vector<std::pair<std::size_t, std::size_t>> finished;  // (first, count) of chunks back on the host
  std::exception_ptr error;
  std::size_t failed_device = 0;
  Chunk failed_chunk;
  Clock::time_point start;

  void fail(std::size_t d, const Chunk& c, std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!error) {
      error = std::move(e);
      failed_device = d;
      failed_chunk = c;
    }
    abort = true;
  }
};

// One block between host memory (`host`, rows host_pitch apart) and a slot buffer, not blocking.
void enqueue_copy(cl::CommandQueue& q, bool to_device, const cl::Buffer& buf, const BlockCopy& b, void* host,
                  std::size_t host_pitch, cl::Event* ev);
// A block to or from its packed image; large blocks on several threads.
void copy_rows(const BlockCopy& b, char* packed, bool to_packed);

// The resident benchmark (SplitOptions::resident_reps), src/group/resident.cpp.
void run_resident(const DeviceGroup& group, std::vector<std::unique_ptr<ChunkTask>>& tasks,
                  const std::vector<std::pair<std::size_t, std::size_t>>& own, int reps, GroupRun& run);

using StagingBuffer = DeviceGroup::Impl::Staging;

struct Slot {
  cl::CommandQueue queue;
  std::vector<cl::Buffer> buffers;
  StagingBuffer in, out;  // from the group's pool, given back when the device is done
  bool busy = false;
  Chunk chunk;
  cl::Event done;
  std::vector<BlockCopy> outs;
  std::vector<bool> out_staged;
};

// Runs one device's chunks through its slots (src/group/runner.cpp).
class DeviceRunner {
 public:
  DeviceRunner(Shared& s, std::size_t d, ChunkTask& task, bool staging, DeviceShare& share);
  /// Takes and runs chunks until none is left or a device failed (Shared::fail), then waits for
  /// everything of this device and gives its buffers back. Never throws.
  void run();
  /// MB/s of host data after the chunks that were in flight at its first completion (the first
  /// chunk's time holds the kernels' first-launch compilation on some drivers, and the chunks
  /// queued behind it finish right after it); over its whole share, fill included, where no
  /// chunk came back after those; 0 without chunks.
  double rate(double item_bytes) const;
  /// Seconds from the start of the chunks when its setup (queues, shared operands) was done.
  double prepared_at() const { return prepared_at_; }

 private:
  void setup();
  bool take(Chunk& c);
  bool take_from_others(Chunk& c);
  bool staged(const BlockCopy& b) const;
  void stage(Slot& slot, std::size_t in_bytes, std::size_t out_bytes);
  void upload(const cl::Buffer& buf, const BlockCopy& b);
  void enqueue(Slot& slot, const Chunk& c);
  void take_buffers(Slot& slot);
  void stage_blocks(Slot& slot);
  void enqueue_transfers(Slot& slot, bool inputs, cl::Event* last);
  void in_flight(Slot& slot, const Chunk& c, const cl::Event& done);
  void complete(Slot& slot);
  void drain() noexcept;
  // Slots the device will use: all of them in a dynamic run, else as many as its share's chunks.
  std::size_t slots_used() const {
    return planned_chunks_ == 0 ? slots_.size() : std::min(slots_.size(), planned_chunks_);
  }
  // The i-th slot after `slot`, in the order chunks go to them.
  Slot& slot_after(const Slot& slot, std::size_t i) { return slots_[(&slot - slots_.data() + i) % slots_.size()]; }

  Shared& s_;
  std::size_t d_;
  ChunkTask& task_;
  bool staging_;
  bool in_host_memory_;  // a CPU device without staging: tasks that can compute in host memory do
  DeviceShare& share_;
  std::vector<Slot> slots_;
  bool staged_all_ = false;
  std::size_t planned_chunks_ = 0;  // of its own share when it started (0: dynamic)
  std::vector<BlockCopy> ins_;
  std::vector<bool> in_staged_;
  bool pending_ = false;  // a chunk's commands are being enqueued or completed (a failure names it)
  Chunk pending_chunk_;
  double prepared_at_ = 0;
  // Items and seconds when the chunks in flight at the first completion were back (warm_chunks_
  // of them): rate() counts what came after.
  std::size_t enqueued_ = 0;
  std::size_t warm_chunks_ = 0;
  std::size_t first_items_ = 0;
  double first_seconds_ = 0;
};

}  // namespace clforge::detail::pipeline
