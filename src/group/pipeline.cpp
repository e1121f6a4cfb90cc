// The chunk pipeline of every group call (group_internal.hpp): the split (weights, dynamic, or
// auto from the devices' stored throughputs), one host thread per device, and per device
// `queues` slots, each an in-order queue with its own device buffers (and pinned staging buffers
// for blocks of pageable memory on GPUs). Chunk k of a device goes to slot k % queues: upload,
// compute and download are enqueued on that slot's queue, so chunk k+1 uploads while chunk k
// computes while chunk k-1 comes back. A slot is reused only after its previous chunk's download
// completed (and, when staged, was copied out).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <thread>

#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/host_io.hpp"
#include "runtime/log.hpp"
#include "runtime/timing.hpp"

namespace clforge::detail {

namespace {

using Clock = std::chrono::steady_clock;

struct Chunk {
  std::size_t id = 0, first = 0, count = 0;
};

// Weights to boundaries: device d takes items [b[d], b[d+1]), boundaries on multiples of granule.
std::vector<std::size_t> boundaries(const std::vector<double>& w, std::size_t items, std::size_t granule) {
  double total = 0;
  for (double x : w) total += x;
  std::vector<std::size_t> b(w.size() + 1, 0);
  double cum = 0;
  for (std::size_t d = 0; d + 1 < w.size(); ++d) {
    cum += w[d];
    const double at = static_cast<double>(items) * (cum / total) / static_cast<double>(granule);
    b[d + 1] = std::max(b[d], std::min(static_cast<std::size_t>(std::llround(at)) * granule, items));
  }
  b.back() = items;
  return b;
}

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

bool stages_on(Staging s, const DeviceEntry& e) {
  return s == Staging::On || (s == Staging::Auto && e.info.type != "CPU");
}

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
      : s_(s), d_(d), task_(task), staging_(staging), share_(share), slots_(share.queues) {}

  void run() {
    Chunk current;
    try {
      setup();
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
  // Queues now; a slot's device buffers when it takes its first chunk (a job of one chunk
  // allocates one slot's).
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
    if (slot.buffers.empty())
      for (std::size_t b : task_.slot_buffers())
        slot.buffers.push_back(
            device_buffer(s_.group->context(d_), CL_MEM_READ_WRITE, std::max<std::size_t>(b, 4), "group slot buffer"));
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
    slot.queue.flush();
    slot.done = last;
    slot.chunk = c;
    slot.busy = true;
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
    if (share_.chunks == 1) {
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
      } catch (...) {
      }
    }
  }

  Shared& s_;
  std::size_t d_;
  ChunkTask& task_;
  bool staging_;
  DeviceShare& share_;
  std::vector<Slot> slots_;
  std::vector<BlockCopy> ins_;
  std::vector<bool> in_staged_;
  bool pending_ = false;
  Chunk pending_chunk_;

 public:
  // Items and seconds when the first chunk was back (its time holds the kernels' first-launch
  // compilation on some drivers, so rates are measured after it).
  std::size_t first_items_ = 0;
  double first_seconds_ = 0;
};

std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

// The items no finished chunk covers, as (first, count) ranges.
std::vector<std::pair<std::size_t, std::size_t>> unfinished(std::vector<std::pair<std::size_t, std::size_t>> done,
                                                            std::size_t items) {
  std::sort(done.begin(), done.end());
  std::vector<std::pair<std::size_t, std::size_t>> gaps;
  std::size_t at = 0;
  for (const auto& [first, count] : done) {
    if (first > at) gaps.emplace_back(at, first - at);
    at = std::max(at, first + count);
  }
  if (at < items) gaps.emplace_back(at, items - at);
  return gaps;
}

std::mutex& rates_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, double>& rates() {
  static std::map<std::string, double> m;
  return m;
}
std::string rate_key(const char* routine, const DeviceInfo& i) {
  return std::string(routine) + "|" + i.name + "|" + i.driver_version;
}

// The resident benchmark (SplitOptions::resident_reps): every share uploaded once, computed
// reps + 1 times by all devices at once (the first not counted), downloaded. Errors propagate
// after every queue is finished.
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
      // Each device's time is when its marker completes (polled, so one device's wait does not
      // stretch another's).
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
        std::this_thread::sleep_for(std::chrono::microseconds(20));
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

}  // namespace

double remembered_rate(const std::string& key) {
  const std::lock_guard<std::mutex> lock(rates_mutex());
  const auto it = rates().find(key);
  return it == rates().end() ? 0.0 : it->second;
}

void remember_rate(const std::string& key, double rate) {
  const std::lock_guard<std::mutex> lock(rates_mutex());
  rates()[key] = rate;
}

Tuning family_tuning(const Tuning& t) {
  Tuning out = t;
  for (const auto& p : group_spec().params) out.overrides.erase(p.name);
  return out;
}

GroupRun run_group_job(const DeviceGroup& group, const GroupJob& job, const SplitOptions& opt) {
  const char* what = job.routine;
  const std::size_t D = group.size();
  require(job.items > 0, what, "the job has no items");
  require(opt.queues <= group.queues(), what, [&] {
    return "split queues " + std::to_string(opt.queues) + " above the group's " + std::to_string(group.queues());
  });
  require(opt.mode == SplitMode::Auto || opt.mode == SplitMode::Weights || opt.mode == SplitMode::Dynamic, what,
          "unknown split mode");
  require(opt.staging == Staging::Auto || opt.staging == Staging::On || opt.staging == Staging::Off, what,
          "unknown staging");
  if (opt.mode == SplitMode::Weights) {
    require(opt.weights.size() == D, what, [&] {
      return "split weights: " + std::to_string(opt.weights.size()) + " given for " + std::to_string(D) + " devices";
    });
    double total = 0;
    for (double w : opt.weights) {
      require(std::isfinite(w) && w >= 0, what, "split weights must be finite and >= 0");
      total += w;
    }
    require(total > 0, what, "split weights sum to 0");
  }
  // Each device's "group" parameters for this routine.
  Tuning group_tuning;
  for (const auto& p : group_spec().params) {
    const auto it = opt.tuning.overrides.find(p.name);
    if (it != opt.tuning.overrides.end()) group_tuning.overrides.insert(*it);
  }
  group_tuning.user_database = opt.tuning.user_database;
  const std::size_t granule = std::max<std::size_t>(job.granule, 1);
  GroupRun run;
  run.shares.resize(D);
  std::vector<double> rate(D, 0);
  for (std::size_t d = 0; d < D; ++d) {
    const Configuration cfg = resolve_configuration("group", what, group.entry(d).info, group_tuning);
    DeviceShare& s = run.shares[d];
    s.device = d;
    s.name = group.entry(d).info.name;
    s.queues = opt.overlap ? std::min(opt.queues ? opt.queues : static_cast<std::size_t>(cfg.at("GROUP_QUEUES")),
                                      group.queues())
                           : 1;
    std::size_t chunk = opt.chunk;
    if (!chunk) {
      chunk = std::max<std::size_t>(
          1, static_cast<std::size_t>(cfg.at("GROUP_CHUNK_KIB")) * 1024 / std::max<std::size_t>(job.item_bytes, 1));
      chunk = std::min(chunk, ceil_div(job.items, D * s.queues));  // every queue of every device can get work
      chunk = std::max(chunk, job.min_chunk);
    }
    s.chunk = std::min(round_up(std::max(chunk, granule), granule), round_up(job.items, granule));
    rate[d] = cfg.at("GROUP_RATE");
    if (rate[d] == 0 && !opt.tuning.user_database) rate[d] = remembered_rate(rate_key(what, group.entry(d).info));
  }
  run.mode = opt.mode;
  std::vector<double> weights = opt.weights;
  bool measure = false;
  if (D == 1) {
    run.mode = SplitMode::Weights;
    weights = {1.0};
  } else if (run.mode == SplitMode::Auto) {
    measure = std::any_of(rate.begin(), rate.end(), [](double r) { return r <= 0; });
    run.mode = measure ? SplitMode::Dynamic : SplitMode::Weights;
    weights = rate;
  }
  if (opt.resident_reps > 0) {
    require(opt.mode != SplitMode::Dynamic, what, "a resident run needs weights (Weights or Auto)");
    if (run.mode == SplitMode::Dynamic) weights.assign(D, 1.0);  // Auto without every rate: equal shares
    run.mode = SplitMode::Weights;
    measure = false;
  }

  Shared s;
  s.group = &group;
  s.options = &opt;
  s.items = job.items;
  s.dynamic = run.mode == SplitMode::Dynamic;
  if (!s.dynamic) {
    const auto b = boundaries(weights, job.items, granule);
    for (std::size_t d = 0; d < D; ++d) s.own.emplace_back(b[d], b[d + 1]);
    run.weights = weights;
    s.steal = opt.mode == SplitMode::Auto && granule == 1;
  }
  // Every working device's task (plans built here, before anything is allocated).
  std::vector<std::unique_ptr<ChunkTask>> tasks(D);
  for (std::size_t d = 0; d < D; ++d) {
    if (!s.dynamic && s.own[d].first == s.own[d].second) {
      run.shares[d].chunk = run.shares[d].queues = 0;
      continue;
    }
    if (opt.resident_reps > 0) {  // the whole share is one chunk
      run.shares[d].chunk = s.own[d].second - s.own[d].first;
      run.shares[d].queues = 1;
    }
    tasks[d] = job.make_task(d, group.queue(d, 0), run.shares[d].chunk);
  }
  if (opt.resident_reps > 0) {
    run_resident(group, tasks, s.own, opt.resident_reps, run);
    return run;
  }

  s.start = Clock::now();
  std::vector<std::unique_ptr<DeviceRunner>> runners(D);
  for (std::size_t d = 0; d < D; ++d)
    if (tasks[d])
      runners[d] =
          std::make_unique<DeviceRunner>(s, d, *tasks[d], stages_on(opt.staging, group.entry(d)), run.shares[d]);
  std::vector<std::thread> threads;
  try {
    for (auto& r : runners)
      if (r) threads.emplace_back([&r] { r->run(); });
  } catch (...) {
    s.abort = true;
    for (auto& t : threads) t.join();
    throw;
  }
  for (auto& t : threads) t.join();
  run.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();

  if (s.error) {
    // Unfinished chunks become NaN (0xFF bytes): no output looks complete that is not.
    const ChunkTask& any = *tasks[s.failed_device];
    for (const auto& [first, count] : unfinished(s.finished, job.items)) {
      std::vector<BlockCopy> outs;
      any.outputs(first, count, outs);
      for (const auto& b : outs)
        for (std::size_t r = 0; r < b.rows; ++r) std::memset(b.host + r * b.pitch, 0xFF, b.row_bytes);
    }
    const std::string name = group.entry(s.failed_device).info.name;
    const Chunk& c = s.failed_chunk;
    const std::string where = c.count == 0 ? "before its first chunk (buffers, shared operands)"
                                           : "on chunk " + std::to_string(c.id) + " (items " + std::to_string(c.first) +
                                                 ".." + std::to_string(c.first + c.count - 1) + ")";
    throw DeviceFailure("group " + std::string(what) + ": device " + std::to_string(s.failed_device) + " (" + name +
                            ") failed " + where + ": " + what_of(s.error),
                        s.failed_device, name, c.id, c.first, c.count);
  }
  if (measure) {
    // Auto's measurement: each device's MB/s of host data in this dynamic run after its first
    // chunk, for later calls (a device with fewer than two chunks is measured by a later call).
    for (std::size_t d = 0; d < D; ++d) {
      const DeviceShare& sh = run.shares[d];
      if (!runners[d] || sh.chunks < 2) continue;
      const double secs = sh.seconds - runners[d]->first_seconds_;
      if (secs <= 0) continue;
      const double mbs =
          static_cast<double>(sh.items - runners[d]->first_items_) * static_cast<double>(job.item_bytes) / secs / 1e6;
      const DeviceInfo& info = group.entry(d).info;
      if (opt.tuning.user_database) {
        try {
          store_user_entry(info, "group", what, {{"GROUP_RATE", quantize_rate(mbs)}},
                           "auto split: measured in a dynamic run");
        } catch (const std::exception& e) {
          log(LogLevel::Warning, std::string("group: the measured rate was not stored: ") + e.what());
        }
      } else {
        remember_rate(rate_key(what, info), mbs);
      }
    }
  }
  return run;
}

}  // namespace clforge::detail
