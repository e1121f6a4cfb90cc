// The parts of the chunk pipeline (src/group/pipeline.cpp) that run on the devices' threads:
// the state the threads share, the host<->device copies of a chunk's blocks, and DeviceRunner,
// which runs one device's chunks through its slots (one in-order queue each): upload, compute,
// download, chunk k on slot k % queues; a slot is reused once its previous download completed
// (and, when staged, was copied out). Internal to the group layer.
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

class DeviceRunner {
 public:
  DeviceRunner(Shared& s, std::size_t d, ChunkTask& task, bool staging, DeviceShare& share)
      : s_(s),
        d_(d),
        task_(task),
        staging_(staging),
        in_host_memory_(!staging && s.group->entry(d).info.type == "CPU"),
        share_(share),
        slots_(share.queues) {}

  void run() {
    Chunk current;
    try {
      setup();
      if (!s_.dynamic) {
        const std::lock_guard<std::mutex> lock(s_.own_mutex);
        const auto& [first, last] = s_.own[d_];
        planned_chunks_ = std::max<std::size_t>(1, ceil_div(last - first, std::max<std::size_t>(share_.chunk, 1)));
      }
      prepared_at_ = std::chrono::duration<double>(Clock::now() - s_.start).count();
      for (std::size_t k = 0;; ++k) {
        Slot& slot = slots_[k % slots_.size()];
        if (slot.busy) complete(slot);
        if (s_.abort) break;
        if (!take(current)) break;
        if (s_.options->fault) s_.options->fault(d_, current.id);
        enqueue(slot, current);
        if (!s_.options->overlap) complete(slot);
      }
      for (Slot& slot : slots_)
        if (slot.busy) complete(slot);
    } catch (...) {
      s_.fail(d_, pending_ ? pending_chunk_ : current, std::current_exception());
    }
    drain();
  }

 private:
  // Queues now; the slots' device buffers at the first chunk (as many slots as the device's share
  // has chunks, every slot in a dynamic run: a job of one chunk allocates one slot's).
  void setup() {
    for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].queue = s_.group->queue(d_, i);
    task_.prepare(s_.group->context(d_), [this](const cl::Buffer& buf, const BlockCopy& b) {
      Slot& slot = slots_[0];
      if (staged(b)) {
        stage(slot, b.bytes(), 0);
        copy_rows(b, slot.in.ptr, true);
        cl::Event ev;
        enqueue_copy(slot.queue, true, buf, b, slot.in.ptr, b.row_bytes, &ev);
        check(ev.wait(), "clWaitForEvents", "group upload");
      } else {
        cl::Event ev;
        enqueue_copy(slot.queue, true, buf, b, b.host, b.pitch, &ev);
        check(ev.wait(), "clWaitForEvents", "group upload");
      }
    });
  }

  bool take(Chunk& c) {
    const std::size_t chunk = share_.chunk;
    if (s_.dynamic) {
      const std::size_t first = s_.next_item.fetch_add(chunk);
      if (first >= s_.items) return false;
      c = {s_.next_id.fetch_add(1), first, std::min(chunk, s_.items - first)};
      return true;
    }
    const std::lock_guard<std::mutex> lock(s_.own_mutex);
    auto& [first, last] = s_.own[d_];
    if (first < last) {
      c = {s_.next_id.fetch_add(1), first, std::min(chunk, last - first)};
      first += c.count;
      return true;
    }
    if (!s_.steal) return false;
    // The device with the most items not yet taken gives up a chunk from the end of its share
    // (those items were never enqueued anywhere).
    std::size_t victim = s_.own.size(), most = 0;
    for (std::size_t q = 0; q < s_.own.size(); ++q)
      if (s_.own[q].second - s_.own[q].first > most) most = s_.own[q].second - s_.own[q].first, victim = q;
    if (most == 0) return false;
    const std::size_t count = std::min(chunk, most);
    s_.own[victim].second -= count;
    c = {s_.next_id.fetch_add(1), s_.own[victim].second, count};
    ++share_.stolen;
    return true;
  }

  bool staged(const BlockCopy& b) {
    if (!staging_) return false;
    const std::size_t span = (b.rows - 1) * b.pitch + b.row_bytes;
    return !GroupAccess::impl(*s_.group)->is_pinned(b.host, span);
  }

  // Staging buffers of at least the bytes a chunk moves, from the group's pool.
  void stage(Slot& slot, std::size_t in_bytes, std::size_t out_bytes) {
    auto& impl = *GroupAccess::impl(*s_.group);
    for (auto [buf, need] : {std::pair{&slot.in, in_bytes}, std::pair{&slot.out, out_bytes}}) {
      if (need <= buf->bytes) continue;
      impl.release_staging(d_, std::move(*buf));
      *buf = {};
      *buf = impl.acquire_staging(d_, need);
    }
  }

  void enqueue(Slot& slot, const Chunk& c) {
    pending_ = true;
    pending_chunk_ = c;
    if (in_host_memory_) {  // a CPU device computing where the caller's arrays are: no slots, no copies
      cl::Event done;
      if (task_.compute_in_host_memory(slot.queue, s_.group->context(d_), c.first, c.count, &done)) {
        slot.outs.clear();
        slot.out_staged.clear();
        return in_flight(slot, c, done);
      }
    }
    // The device buffers of every slot this device will use, at its first chunk: a call that
    // takes buffers from the pool one slot at a time creates some inside a later call, which
    // Auto then has to measure again (GroupRun::cold).
    if (slot.buffers.empty())
      for (std::size_t i = 0; i < slots_used(); ++i) {
        Slot& other = slots_[(&slot - slots_.data() + i) % slots_.size()];
        if (other.buffers.empty())
          for (std::size_t b : task_.slot_buffers())
            other.buffers.push_back(GroupAccess::impl(*s_.group)->acquire_device(d_, std::max<std::size_t>(b, 4)));
      }
    ins_.clear();
    slot.outs.clear();
    task_.inputs(c.first, c.count, ins_);
    task_.outputs(c.first, c.count, slot.outs);
    in_staged_.clear();
    slot.out_staged.clear();
    std::size_t in_bytes = 0, out_bytes = 0;
    for (const auto& b : ins_) {
      in_staged_.push_back(staged(b));
      if (in_staged_.back()) in_bytes += b.bytes();
    }
    for (const auto& b : slot.outs) {
      slot.out_staged.push_back(staged(b));
      if (slot.out_staged.back()) out_bytes += b.bytes();
    }
    if (in_bytes || out_bytes) {
      if (!staged_all_)  // every slot's staging buffers at the first staged chunk, as above
        for (std::size_t i = 0; i < slots_used(); ++i)
          stage(slots_[(&slot - slots_.data() + i) % slots_.size()], in_bytes, out_bytes);
      staged_all_ = true;
      stage(slot, in_bytes, out_bytes);
      share_.staged = true;
    }
    std::size_t off = 0;
    for (std::size_t i = 0; i < ins_.size(); ++i) {
      const BlockCopy& b = ins_[i];
      if (in_staged_[i]) {
        copy_rows(b, slot.in.ptr + off, true);
        enqueue_copy(slot.queue, true, slot.buffers.at(b.buffer), b, slot.in.ptr + off, b.row_bytes, nullptr);
        off += b.bytes();
      } else {
        enqueue_copy(slot.queue, true, slot.buffers.at(b.buffer), b, b.host, b.pitch, nullptr);
      }
    }
    task_.compute(slot.queue, slot.buffers, c.first, c.count);
    off = 0;
    cl::Event last;
    for (std::size_t i = 0; i < slot.outs.size(); ++i) {
      const BlockCopy& b = slot.outs[i];
      if (slot.out_staged[i]) {
        enqueue_copy(slot.queue, false, slot.buffers.at(b.buffer), b, slot.out.ptr + off, b.row_bytes, &last);
        off += b.bytes();
      } else {
        enqueue_copy(slot.queue, false, slot.buffers.at(b.buffer), b, b.host, b.pitch, &last);
      }
    }
    in_flight(slot, c, last);
  }

  // The slot's commands for chunk c are enqueued; `done` completes when its results are on the host.
  void in_flight(Slot& slot, const Chunk& c, const cl::Event& done) {
    slot.queue.flush();
    slot.done = done;
    slot.chunk = c;
    slot.busy = true;
    ++enqueued_;
    pending_ = false;
  }

  void complete(Slot& slot) {
    pending_ = true;
    pending_chunk_ = slot.chunk;
    slot.busy = false;
    if (slot.done()) check(slot.done.wait(), "clWaitForEvents", "group chunk download");
    std::size_t off = 0;
    for (std::size_t i = 0; i < slot.outs.size(); ++i)
      if (slot.out_staged[i]) {
        copy_rows(slot.outs[i], slot.out.ptr + off, false);
        off += slot.outs[i].bytes();
      }
    {
      const std::lock_guard<std::mutex> lock(s_.mutex);
      s_.finished.emplace_back(slot.chunk.first, slot.chunk.count);
    }
    ++share_.chunks;
    share_.items += slot.chunk.count;
    share_.seconds = std::chrono::duration<double>(Clock::now() - s_.start).count();
    if (share_.chunks == 1) warm_chunks_ = enqueued_;
    if (share_.chunks == warm_chunks_) {
      first_items_ = share_.items;
      first_seconds_ = share_.seconds;
    }
    pending_ = false;
  }

  // After the last chunk or a failure: nothing of this device still runs or touches host memory;
  // the staging buffers go back to the pool.
  void drain() noexcept {
    auto& impl = *GroupAccess::impl(*s_.group);
    for (Slot& slot : slots_) {
      try {
        if (slot.queue()) slot.queue.finish();
        impl.release_staging(d_, std::move(slot.in));
        impl.release_staging(d_, std::move(slot.out));
        for (cl::Buffer& b : slot.buffers) impl.release_device(d_, std::move(b));
        slot.buffers.clear();
      } catch (...) {
      }
    }
  }

  Shared& s_;
  std::size_t d_;
  ChunkTask& task_;
  bool staging_;
  bool in_host_memory_;  // a CPU device without staging: tasks that can compute in host memory do
  DeviceShare& share_;
  std::vector<Slot> slots_;
  bool staged_all_ = false;
  std::size_t planned_chunks_ = 0;  // of its own share when it started (0: dynamic)
  // Slots the device will use: all of them in a dynamic run, else as many as its share's chunks.
  std::size_t slots_used() const {
    return planned_chunks_ == 0 ? slots_.size() : std::min(slots_.size(), planned_chunks_);
  }
  std::vector<BlockCopy> ins_;
  std::vector<bool> in_staged_;
  bool pending_ = false;
  Chunk pending_chunk_;

 public:
  // Items and seconds when the chunks in flight at the first completion were back: the first
  // chunk's time holds the kernels' first-launch compilation on some drivers, and the chunks
  // queued behind it finish right after it, so a rate is measured over the chunks after those
  // (warm_chunks_ of them).
  double prepared_at_ = 0;  // seconds from the start when its setup (queues, shared operands) was done
  std::size_t enqueued_ = 0;
  std::size_t warm_chunks_ = 0;
  std::size_t first_items_ = 0;
  double first_seconds_ = 0;
};

}  // namespace clforge::detail::pipeline
