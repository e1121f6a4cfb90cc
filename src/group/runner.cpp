// DeviceRunner (runner.hpp): one device's chunks on its own thread, each through a slot (an
// in-order queue with its device buffers and, for pageable memory on GPUs, pinned staging
// buffers): upload, compute, download; chunk k on slot k % queues, a slot reused once its
// previous chunk is back on the host.
#include "group/runner.hpp"

namespace clforge::detail::pipeline {

DeviceRunner::DeviceRunner(Shared& s, std::size_t d, ChunkTask& task, bool staging, DeviceShare& share)
    : s_(s),
      d_(d),
      task_(task),
      staging_(staging),
      in_host_memory_(!staging && s.group->entry(d).info.type == "CPU"),
      share_(share),
      slots_(share.queues) {}

void DeviceRunner::run() {
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
      if (s_.fault) s_.fault(d_, current.id);
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

double DeviceRunner::rate(double item_bytes) const {
  if (share_.chunks == 0 || share_.seconds <= 0) return 0;
  if (share_.chunks <= warm_chunks_) return static_cast<double>(share_.items) * item_bytes / share_.seconds / 1e6;
  const double secs = share_.seconds - first_seconds_;
  return secs <= 0 ? 0.0 : static_cast<double>(share_.items - first_items_) * item_bytes / secs / 1e6;
}

// Queues now; the slots' device buffers at the first chunk (as many slots as the device's share
// has chunks, every slot in a dynamic run: a job of one chunk allocates one slot's).
void DeviceRunner::setup() {
  for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].queue = s_.group->queue(d_, i);
  task_.prepare(s_.group->context(d_), [this](const cl::Buffer& buf, const BlockCopy& b) { upload(buf, b); });
}

// A block of the task's shared operands (prepare), blocking, through slot 0's staging buffer
// where the device stages.
void DeviceRunner::upload(const cl::Buffer& buf, const BlockCopy& b) {
  Slot& slot = slots_[0];
  cl::Event ev;
  if (staged(b)) {
    stage(slot, b.bytes(), 0);
    copy_rows(b, slot.in.ptr, true);
    enqueue_copy(slot.queue, true, buf, b, slot.in.ptr, b.row_bytes, &ev);
  } else {
    enqueue_copy(slot.queue, true, buf, b, b.host, b.pitch, &ev);
  }
  check(ev.wait(), "clWaitForEvents", "group upload");
}

bool DeviceRunner::take(Chunk& c) {
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
  return s_.steal && take_from_others(c);
}

// The device with the most items not yet taken gives up a chunk from the end of its share
// (those items were never enqueued anywhere). The caller holds own_mutex.
bool DeviceRunner::take_from_others(Chunk& c) {
  std::size_t victim = s_.own.size(), most = 0;
  for (std::size_t q = 0; q < s_.own.size(); ++q)
    if (s_.own[q].second - s_.own[q].first > most) most = s_.own[q].second - s_.own[q].first, victim = q;
  if (most == 0) return false;
  const std::size_t count = std::min(share_.chunk, most);
  s_.own[victim].second -= count;
  c = {s_.next_id.fetch_add(1), s_.own[victim].second, count};
  ++share_.stolen;
  return true;
}

bool DeviceRunner::staged(const BlockCopy& b) const {
  if (!staging_) return false;
  const std::size_t span = (b.rows - 1) * b.pitch + b.row_bytes;
  return !GroupAccess::impl(*s_.group)->is_pinned(b.host, span);
}

// Staging buffers of at least the bytes a chunk moves, from the group's pool.
void DeviceRunner::stage(Slot& slot, std::size_t in_bytes, std::size_t out_bytes) {
  auto& impl = *GroupAccess::impl(*s_.group);
  for (auto [buf, need] : {std::pair{&slot.in, in_bytes}, std::pair{&slot.out, out_bytes}}) {
    if (need <= buf->bytes) continue;
    impl.release_staging(d_, std::move(*buf));
    *buf = {};
    *buf = impl.acquire_staging(d_, need);
  }
}

void DeviceRunner::enqueue(Slot& slot, const Chunk& c) {
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
  take_buffers(slot);
  ins_.clear();
  slot.outs.clear();
  task_.inputs(c.first, c.count, ins_);
  task_.outputs(c.first, c.count, slot.outs);
  stage_blocks(slot);
  enqueue_transfers(slot, true, nullptr);
  task_.compute(slot.queue, slot.buffers, c.first, c.count);
  cl::Event last;
  enqueue_transfers(slot, false, &last);
  in_flight(slot, c, last);
}

// The device buffers of every slot this device will use, at its first chunk: a call that takes
// buffers from the pool one slot at a time creates some inside a later call, which Auto then has
// to measure again (GroupRun::cold).
void DeviceRunner::take_buffers(Slot& slot) {
  if (!slot.buffers.empty()) return;
  for (std::size_t i = 0; i < slots_used(); ++i) {
    Slot& other = slot_after(slot, i);
    if (other.buffers.empty())
      for (std::size_t b : task_.slot_buffers())
        other.buffers.push_back(GroupAccess::impl(*s_.group)->acquire_device(d_, std::max<std::size_t>(b, 4)));
  }
}

// Which of the chunk's blocks go through staging, and staging buffers large enough for them.
void DeviceRunner::stage_blocks(Slot& slot) {
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
  if (!in_bytes && !out_bytes) return;
  if (!staged_all_)  // every slot's staging buffers at the first staged chunk, as take_buffers
    for (std::size_t i = 0; i < slots_used(); ++i) stage(slot_after(slot, i), in_bytes, out_bytes);
  staged_all_ = true;
  stage(slot, in_bytes, out_bytes);
  share_.staged = true;
}

// The chunk's uploads (staged ones copied into the staging buffer first), or its downloads
// (*last: the event of the last one).
void DeviceRunner::enqueue_transfers(Slot& slot, bool inputs, cl::Event* last) {
  const std::vector<BlockCopy>& blocks = inputs ? ins_ : slot.outs;
  const std::vector<bool>& staged_blocks = inputs ? in_staged_ : slot.out_staged;
  char* staging = inputs ? slot.in.ptr : slot.out.ptr;
  std::size_t off = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const BlockCopy& b = blocks[i];
    if (staged_blocks[i]) {
      if (inputs) copy_rows(b, staging + off, true);
      enqueue_copy(slot.queue, inputs, slot.buffers.at(b.buffer), b, staging + off, b.row_bytes, last);
      off += b.bytes();
    } else {
      enqueue_copy(slot.queue, inputs, slot.buffers.at(b.buffer), b, b.host, b.pitch, last);
    }
  }
}

// The slot's commands for chunk c are enqueued; `done` completes when its results are on the host.
void DeviceRunner::in_flight(Slot& slot, const Chunk& c, const cl::Event& done) {
  slot.queue.flush();
  slot.done = done;
  slot.chunk = c;
  slot.busy = true;
  ++enqueued_;
  pending_ = false;
}

void DeviceRunner::complete(Slot& slot) {
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
void DeviceRunner::drain() noexcept {
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

}  // namespace clforge::detail::pipeline
