// The chunk pipeline of every group call (group_internal.hpp): the split (weights, dynamic, or
// auto from the devices' stored throughputs), the tasks, and one host thread per device running
// a DeviceRunner (src/group/runner.cpp; copies.cpp, resident.cpp), and per device
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
#include <numeric>
#include <optional>
#include <thread>

#include "group/runner.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/log.hpp"
#include "runtime/test_hook.hpp"

namespace clforge::detail {

namespace {

using namespace pipeline;

// Weights to boundaries: device d takes items [b[d], b[d+1]), boundaries on multiples of granule
// (the last one at `items`).
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
  // Devices of weight 0 at the end take nothing (a group plan made them no work): the last device
  // with a weight takes what rounding to granules left.
  for (std::size_t d = w.size(); d > 1 && w[d - 1] <= 0; --d) b[d - 1] = items;
  return b;
}

bool stages_on(Staging s, const DeviceEntry& e) {
  return s == Staging::On || (s == Staging::Auto && e.info.type != "CPU");
}

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

}  // namespace

HostData in_out_data(const char* what, std::size_t bytes, const void* in, void* out, bool same_allowed) {
  require(in != nullptr && out != nullptr, what, "null input or output");
  const auto i0 = reinterpret_cast<std::uintptr_t>(in), o0 = reinterpret_cast<std::uintptr_t>(out);
  require((same_allowed && i0 == o0) || !ranges_overlap(i0, i0 + bytes, o0, o0 + bytes), what,
          same_allowed ? "input and output overlap without being the same array" : "input and output overlap");
  HostData data;
  data.a = in;
  data.out = out;
  return data;
}

std::size_t plan_items(std::size_t chunk, std::size_t count) {
  std::size_t items = chunk;
  for (std::size_t k = 1; k <= 4; ++k) {
    const std::size_t smaller = ceil_div(chunk, std::size_t{1} << k);
    if (smaller < count) break;
    items = smaller;
  }
  return items;
}

namespace {

void check_weights(const char* what, const std::vector<double>& weights, std::size_t D) {
  require(weights.size() == D, what, [&] {
    return "split weights: " + std::to_string(weights.size()) + " given for " + std::to_string(D) + " devices";
  });
  double total = 0;
  for (double w : weights) {
    require(std::isfinite(w) && w >= 0, what, "split weights must be finite and >= 0");
    total += w;
  }
  require(total > 0, what, "split weights sum to 0");
}

// The split options against the group and job: InvalidArgument before anything is made.
void check_options(const DeviceGroup& group, const GroupJob& job, const SplitOptions& opt) {
  const char* what = job.routine;
  require(job.items > 0, what, "the job has no items");
  require(opt.queues <= group.queues(), what, [&] {
    return "split queues " + std::to_string(opt.queues) + " above the group's " + std::to_string(group.queues());
  });
  require(opt.mode == SplitMode::Auto || opt.mode == SplitMode::Weights || opt.mode == SplitMode::Dynamic, what,
          "unknown split mode");
  require(opt.staging == Staging::Auto || opt.staging == Staging::On || opt.staging == Staging::Off, what,
          "unknown staging");
  const auto& legal = group_chunk_kib_legal();
  require(
      opt.chunk_kib == 0 || std::find(legal.begin(), legal.end(), static_cast<long long>(opt.chunk_kib)) != legal.end(),
      what, [&] {
        return "split chunk_kib " + std::to_string(opt.chunk_kib) +
               " is not legal (a power of two from 64 to 65536, or 0)";
      });
  const AutoValues& a = opt.auto_values;
  for (const double v : {a.rate, a.alone, a.split})
    require(std::isfinite(v) && v >= 0, what, "split auto values: rates must be finite and >= 0");
  require(a.share >= 0 && a.share <= 100, what, "split auto values: share must be in 0..100");
  if (opt.mode == SplitMode::Weights) check_weights(what, opt.weights, group.size());
  require(opt.resident_reps >= 0, what, "split resident_reps must be >= 0");
  require(opt.resident_reps == 0 || opt.mode != SplitMode::Dynamic, what,
          "a resident run needs weights (Weights or Auto)");
}

// Each device's chunk (items) and queues: the split options' values, else the device's stored
// or shipped choice for the routine (chunk_kib capped so that every queue of every device can
// get work).
void size_chunks(const DeviceGroup& group, const GroupJob& job, const SplitOptions& opt, GroupRun& run) {
  const std::size_t D = group.size(), granule = std::max<std::size_t>(job.granule, 1);
  const bool use_store = group_store_enabled(opt.tuning);
  run.shares.resize(D);
  for (std::size_t d = 0; d < D; ++d) {
    const ChunkChoice choice = chunk_choice(group.entry(d).info, job.routine, use_store);
    DeviceShare& s = run.shares[d];
    s.device = d;
    s.name = group.entry(d).info.name;
    s.queues =
        opt.overlap ? std::min(opt.queues ? opt.queues : static_cast<std::size_t>(choice.queues), group.queues()) : 1;
    std::size_t chunk = opt.chunk;
    if (!chunk) {
      const std::size_t kib = opt.chunk_kib ? opt.chunk_kib : static_cast<std::size_t>(choice.chunk_kib);
      chunk = std::max<std::size_t>(1, kib * 1024 / std::max<std::size_t>(job.item_bytes, 1));
      chunk = std::min(chunk, ceil_div(job.items, D * s.queues));  // every queue of every device can get work
      chunk = std::max(chunk, job.min_chunk);
    }
    s.chunk = std::min(round_up(std::max(chunk, granule), granule), round_up(job.items, granule));
  }
}

// The mode that runs (run.mode) and its weights: Auto's choice (auto_split: Auto on two or more
// devices), one device alone, or a resident run's shares.
std::vector<double> choose_weights(std::size_t D, const SplitOptions& opt, AutoSplit* auto_split, GroupRun& run) {
  run.mode = opt.mode;
  std::vector<double> weights = opt.weights;
  if (D == 1) {
    run.mode = SplitMode::Weights;
    weights = {1.0};
  } else if (auto_split) {
    auto_split->choose(opt.overlap, run.mode, weights);
  }
  if (opt.resident_reps > 0) {
    if (run.mode == SplitMode::Dynamic) weights.assign(D, 1.0);  // Auto without every rate: equal shares
    run.mode = SplitMode::Weights;
    if (auto_split) auto_split->passive();
  }
  return weights;
}

// Every working device's task of one execution (plans of new sizes built here, before anything
// is allocated).
std::vector<std::unique_ptr<ChunkTask>> make_tasks(const std::vector<std::shared_ptr<DeviceWork>>& work,
                                                   const SplitOptions& opt, const HostData& data, const Shared& s,
                                                   GroupRun& run) {
  std::vector<std::unique_ptr<ChunkTask>> tasks(work.size());
  for (std::size_t d = 0; d < work.size(); ++d) {
    if (!s.dynamic && s.own[d].first == s.own[d].second) {
      run.shares[d].chunk = run.shares[d].queues = 0;
      continue;
    }
    if (opt.resident_reps > 0) {  // the whole share is one chunk
      run.shares[d].chunk = s.own[d].second - s.own[d].first;
      run.shares[d].queues = 1;
    }
    tasks[d] = work.at(d)->task(run.shares[d].chunk, data);
  }
  return tasks;
}

// What a call made inside its time: per device the buffers its pool created (count, bytes), and
// the programs compiled or loaded from disk (the debug log's "new buffers" and "programs").
struct Made {
  std::vector<std::pair<std::size_t, std::size_t>> buffers;
  std::uint64_t programs = 0;
};

Made made_so_far(const DeviceGroup& group) {
  Made m;
  for (std::size_t d = 0; d < group.size(); ++d) {
    auto& pool = *GroupAccess::impl(group)->members.at(d).staging;
    const std::lock_guard<std::mutex> lock(pool.mutex);
    m.buffers.emplace_back(pool.created, pool.created_bytes);
  }
  const CacheStats c = cache_stats();
  m.programs = c.compiles + c.disk_hits;
  return m;
}

Made made_since(const DeviceGroup& group, const Made& before) {
  Made now = made_so_far(group);
  for (std::size_t d = 0; d < now.buffers.size(); ++d) {
    now.buffers[d].first -= before.buffers[d].first;
    now.buffers[d].second -= before.buffers[d].second;
  }
  now.programs -= before.programs;
  return now;
}

// Runs every working device's chunks on a thread of its own and waits for them all (run.seconds).
std::vector<std::unique_ptr<DeviceRunner>> run_devices(const DeviceGroup& group, const SplitOptions& opt, Shared& s,
                                                       std::vector<std::unique_ptr<ChunkTask>>& tasks, GroupRun& run) {
  s.start = Clock::now();
  std::vector<std::unique_ptr<DeviceRunner>> runners(group.size());
  for (std::size_t d = 0; d < group.size(); ++d)
    if (tasks[d])
      runners[d] =
          std::make_unique<DeviceRunner>(s, d, *tasks[d], stages_on(opt.staging, group.entry(d)), run.shares[d]);
  std::vector<std::thread> threads;
  if (group.size() == 1) {  // one device: its chunks on the caller's thread
    if (runners[0]) runners[0]->run();
    run.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();
    return runners;
  }
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
  return runners;
}

void log_call(const GroupJob& job, const GroupRun& run, const Shared& s, const AutoSplit* auto_split,
              const Made& made) {
  const std::string step = auto_split ? auto_split->step() : std::string();
  std::string m = std::string("group ") + job.routine + ": " + std::to_string(run.seconds * 1e3) + " ms, " +
                  (!step.empty() ? step
                   : s.dynamic   ? std::string("dynamic")
                                 : std::string("weights")) +
                  (run.cold ? ", cold" : "") + ", programs built " + std::to_string(made.programs);
  for (std::size_t d = 0; d < run.shares.size(); ++d) {
    const DeviceShare& sh = run.shares[d];
    m += "; device " + std::to_string(d) + ": " + std::to_string(sh.items) + " items, " + std::to_string(sh.chunks) +
         " chunks, " + std::to_string(sh.seconds * 1e3) + " ms, new buffers " + std::to_string(made.buffers[d].first) +
         " (" + std::to_string(made.buffers[d].second >> 20) + " MiB)";
  }
  log(LogLevel::Debug, m);
}

// After a device failed: the outputs of every chunk that did not come back become NaN (0xFF
// bytes), so that no output looks complete that is not; then DeviceFailure.
[[noreturn]] void fail_call(const DeviceGroup& group, const GroupJob& job, const ChunkTask& any, const Shared& s) {
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
  throw DeviceFailure("group " + std::string(job.routine) + ": device " + std::to_string(s.failed_device) + " (" +
                          name + ") failed " + where + ": " + what_of(s.error),
                      s.failed_device, name, c.id, c.first, c.count);
}

// Auto's measurements, for later calls: each device's MB/s of host data (DeviceRunner::rate). A
// device that got no chunk past those in flight at its first completion (few, large chunks: the
// blur's bands on a GPU) counts its whole share over its time to the last one back, fill
// included: taking that device for a slow one (the call's time, set by the slowest device) once
// made a CPU device the "fastest" of an H100's group and Auto split a blur that the H100 does
// 2.5x faster alone. A device that got no chunk while the others did the job, its setup
// outlasting it (SGEMM's A on a slow device), gets a bound: at most one chunk in the call's time
// (a device set up but without any chunk back, its first launch compiling, gets none).
void record_auto(const GroupJob& job, const GroupRun& run, const std::vector<std::unique_ptr<DeviceRunner>>& runners,
                 AutoSplit& auto_split) {
  const std::size_t D = run.shares.size();
  const double bytes = static_cast<double>(job.item_bytes);
  double job_end = 0;  // the last chunk's completion
  for (const auto& sh : run.shares) job_end = std::max(job_end, sh.seconds);
  std::vector<double> measured(D, 0.0), bounds(D, 0.0);
  for (std::size_t d = 0; d < D; ++d) {
    if (!runners[d]) continue;
    const DeviceShare& sh = run.shares[d];
    measured[d] = runners[d]->rate(bytes);
    if (measured[d] <= 0 && runners[d]->prepared_at() > job_end)
      bounds[d] = std::max(static_cast<double>(sh.items + sh.chunk) * bytes / std::max(run.seconds, 1e-9) / 1e6, 1e-3);
  }
  // A whole call's MB/s of host data (argument checks and plans left out, as in GroupRun::seconds).
  auto_split.record(
      run, measured, bounds,
      static_cast<double>(job.items) * static_cast<double>(job.item_bytes) / std::max(run.seconds, 1e-9) / 1e6);
}

}  // namespace

namespace {
TestHook<GroupFault> g_fault;
}  // namespace

void set_group_fault(GroupFault fault) { g_fault.set(std::move(fault)); }

GroupFault group_fault() { return g_fault.get(); }

GroupPlanCore::GroupPlanCore(const DeviceGroup& group, GroupJob job, const SplitOptions& opt)
    : group_(group), job_(std::move(job)), options_(opt) {
  check_options(group_, job_, options_);
  size_chunks(group_, job_, options_, sized_);
  work_.resize(group_.size());
  for (std::size_t d = 0; d < group_.size(); ++d)
    if (options_.mode != SplitMode::Weights || group_.size() == 1 || options_.weights[d] > 0)
      work_[d] = job_.make_work(d, group_.queue(d, 0), sized_.shares[d].chunk);
}

GroupRun GroupPlanCore::execute(const HostData& data) const {
  const SplitOptions& opt = options_;
  std::optional<AutoSplit> auto_split;
  if (opt.mode == SplitMode::Auto && group_.size() > 1) auto_split.emplace(group_, job_.routine, job_.size_class, opt);
  GroupRun run = sized_;
  const std::vector<double> weights = choose_weights(group_.size(), opt, auto_split ? &*auto_split : nullptr, run);
  const std::size_t granule = std::max<std::size_t>(job_.granule, 1);
  Shared s;
  s.group = &group_;
  s.options = &opt;
  s.fault = group_fault();
  s.items = job_.items;
  s.dynamic = run.mode == SplitMode::Dynamic;
  if (!s.dynamic) {
    const auto b = boundaries(weights, job_.items, granule);
    for (std::size_t d = 0; d < group_.size(); ++d) s.own.emplace_back(b[d], b[d + 1]);
    run.weights = weights;
    s.steal = opt.mode == SplitMode::Auto && granule == 1;
  }
  std::vector<std::unique_ptr<ChunkTask>> tasks = make_tasks(work_, opt, data, s, run);
  if (opt.resident_reps > 0) {
    run_resident(group_, tasks, s.own, opt.resident_reps, run);
    return run;
  }
  const Made before = made_so_far(group_);
  const auto runners = run_devices(group_, opt, s, tasks, run);
  // A call in which a device created buffers (pinned staging, device memory) or programs were
  // built paid for them inside its time: as a measurement it makes its option look slower than
  // its later calls run (an H100's first call alone on pageable blur bands took 51-96 ms against
  // 20 ms), so Auto measures again in the next call.
  const Made made = made_since(group_, before);
  run.cold = made.programs > 0 ||
             std::any_of(made.buffers.begin(), made.buffers.end(), [](const auto& b) { return b.first > 0; });
  if (log_enabled(LogLevel::Debug)) log_call(job_, run, s, auto_split ? &*auto_split : nullptr, made);
  if (s.error) fail_call(group_, job_, *tasks[s.failed_device], s);
  if (auto_split) {
    run.calibrating = auto_split->calibrating();
    record_auto(job_, run, runners, *auto_split);
  }
  return run;
}

}  // namespace clforge::detail
