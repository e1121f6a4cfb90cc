// The group layer's internals: the chunk pipeline that every family's group entry point runs
// (src/group/pipeline.cpp), Auto's split (auto_split.cpp, over the group store), and the
// DeviceGroup's state. A family describes its job as items (transforms, columns, rows) and, per device, a
// ChunkTask: which host blocks a chunk reads and writes and how the device computes it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/group.hpp"
#include "group/group_store.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge {

struct DeviceGroup::Impl {
  /// A mapped CL_MEM_ALLOC_HOST_PTR buffer: pinned host memory the device transfers at full speed.
  struct Staging {
    cl::Buffer buffer;
    char* ptr = nullptr;
    std::size_t bytes = 0;
  };
  /// Staging buffers of one device kept between calls (allocating pinned memory costs far more
  /// than copying into it), at most kStagingKeep bytes of them.
  struct StagingPool {
    std::mutex mutex;
    std::vector<Staging> free;
    std::size_t free_bytes = 0;
    /// The slots' device buffers, kept between calls too (a driver may allocate device memory
    /// only at a buffer's first use, inside the call's pipeline).
    struct DeviceBuffer {
      cl::Buffer buffer;
      std::size_t bytes = 0;
    };
    std::vector<DeviceBuffer> device_free;
    std::size_t device_free_bytes = 0;
    /// Buffers this pool had to create (staging and device), for the debug log of each call.
    std::size_t created = 0, created_bytes = 0;
  };
  static constexpr std::size_t kStagingKeep = std::size_t{1} << 30;
  struct Member {
    DeviceEntry entry;
    cl::Context context;
    std::vector<cl::CommandQueue> queues;
    std::unique_ptr<StagingPool> staging = std::make_unique<StagingPool>();
  };
  std::vector<Member> members;
  /// A staging buffer of at least `bytes` for device d (from the pool, else new and mapped).
  Staging acquire_staging(std::size_t d, std::size_t bytes);
  /// Gives it back (its transfers must be complete); unmaps what the pool does not keep.
  void release_staging(std::size_t d, Staging s);
  /// A device buffer of device d of at least `bytes` (from the pool, else new), and back (its
  /// commands complete); at most kStagingKeep bytes of them are kept.
  cl::Buffer acquire_device(std::size_t d, std::size_t bytes);
  void release_device(std::size_t d, cl::Buffer buffer);
  ~Impl();
  /// The PinnedMemory ranges of the group, [begin, end) addresses.
  std::mutex pinned_mutex;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pinned;
  bool is_pinned(const void* p, std::size_t bytes);
};

}  // namespace clforge

namespace clforge::detail {

/// Rows of bytes in host memory (rows x row_bytes, pitch apart) and their image on the device at
/// `device_offset` of the slot buffer number `buffer`, rows device_pitch apart (0: packed).
struct BlockCopy {
  char* host = nullptr;  ///< first byte of the first row (inputs are only read)
  std::size_t row_bytes = 0, rows = 1, pitch = 0;
  std::size_t buffer = 0;
  std::size_t device_offset = 0, device_pitch = 0;
  std::size_t bytes() const { return row_bytes * rows; }
};

/// One device's part of a job: built on the caller's thread before anything is allocated (plans
/// are made there, so a bad argument throws before any work), then used by that device's thread.
class ChunkTask {
 public:
  virtual ~ChunkTask() = default;
  /// Bytes of each device buffer of a slot (one slot per queue), enough for any chunk.
  virtual std::vector<std::size_t> slot_buffers() const = 0;
  /// Writes a host block into a device buffer (at block.device_offset) the way the pipeline
  /// moves chunks (through staging where it would stage), blocking.
  using Upload = std::function<void(const cl::Buffer&, const BlockCopy&)>;
  /// Called on the device's thread before its first chunk (e.g. sgemm uploads A).
  virtual void prepare(const cl::Context& /*context*/, const Upload& /*upload*/) {}
  /// The host blocks that chunk [first, first + count) reads, and those it writes.
  virtual void inputs(std::size_t first, std::size_t count, std::vector<BlockCopy>& out) const = 0;
  virtual void outputs(std::size_t first, std::size_t count, std::vector<BlockCopy>& out) const = 0;
  /// Enqueues the computation of the chunk on `queue` (in order after its uploads).
  virtual void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& buffers, std::size_t first,
                       std::size_t count) = 0;
  /// For a device that computes in host memory (a CPU device without staging): enqueues the
  /// chunk's computation on buffers over the caller's memory itself (CL_MEM_USE_HOST_PTR), no
  /// slot buffers and no copies, and *done when its result is in host memory; false where the
  /// task cannot (then the chunk goes through the slots).
  virtual bool compute_in_host_memory(cl::CommandQueue& /*queue*/, const cl::Context& /*context*/,
                                      std::size_t /*first*/, std::size_t /*count*/, cl::Event* /*done*/) {
    return false;
  }
};

/// The host arrays of one execution of a group plan: `a` and `b` are read (b: sgemm's B), `out`
/// is written (and read where the routine reads its output: sgemm with beta != 0).
struct HostData {
  const void* a = nullptr;
  const void* b = nullptr;
  void* out = nullptr;
  bool inverse = false;  ///< the FFT's direction
};

/// An execution's input and output arrays of `bytes` each, checked: not null, and not
/// overlapping unless `same_allowed` and they are the same array (InvalidArgument naming `what`).
HostData in_out_data(const char* what, std::size_t bytes, const void* in, void* out, bool same_allowed);

/// A device's part of a group plan, made once with the plan: the family's plans on that device
/// (by chunk size), from which every execution makes the device's task over its host arrays.
class DeviceWork {
 public:
  virtual ~DeviceWork() = default;
  /// The task of one execution; `chunk` is the device's chunk (the whole share in a resident run).
  /// Called on the caller's thread before anything is allocated; may be called by several
  /// executions at once.
  virtual std::unique_ptr<ChunkTask> task(std::size_t chunk, const HostData& data) = 0;
};

/// A job for the pipeline: `items` items of `item_bytes` host bytes each (for the chunk size),
/// and the factory of each device's work (called on the caller's thread, device by device, when
/// the plan is made; it builds the device's plan of `chunk` items, so that a bad argument throws
/// there).
struct GroupJob {
  const char* routine = "";  ///< "fft", "sgemm", ... (errors, the group store's keys)
  std::string size_class;    ///< calibration key beside the routine, e.g. "n=1024"
  std::size_t items = 0;
  std::size_t item_bytes = 1;
  /// Chunks hold a multiple of this many items (except the last).
  std::size_t granule = 1;
  /// Chunks of at least this many items unless SplitOptions::chunk says otherwise (blur: four
  /// times the halo, so that the rows a band computes again stay below half of its own).
  std::size_t min_chunk = 1;
  std::function<std::unique_ptr<DeviceWork>(std::size_t device, cl::CommandQueue& queue, std::size_t chunk)> make_work;
};

/// The items of the plan that a task runs a chunk of `count` items on (count <= chunk): the
/// smallest of chunk, chunk / 2, ..., chunk / 16 (each rounded up) that holds them. A short last
/// chunk then costs about its own items, with at most five plans a task.
std::size_t plan_items(std::size_t chunk, std::size_t count);

/// A family's plans by size for one device's task: the plan of `size` items is the family's
/// plan of desc(size), made on the task's queue. Plans are shared through a process-wide cache
/// (keyed like the free functions' plans: tuning fingerprint, context, device, description), so
/// that a call's plans cost a lookup after the first call.
/// The task makes its chunk's plan when it is made (on the caller's thread, where a bad argument
/// throws before any work); the smaller ones describe the same job on fewer items.
template <class Plan, class Desc>
class PlansBySize {
 public:
  PlansBySize(const cl::CommandQueue& queue, const Tuning& tuning, std::function<Desc(std::size_t)> desc)
      : queue_(queue), tuning_(tuning), desc_(std::move(desc)) {
    const QueueContext qc = queue_context_of(queue);
    context_ = qc.context();
    device_ = qc.device();
    fingerprint_ = tuning_fingerprint(*qc.info, tuning);
  }
  const Plan& get(std::size_t size) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = plans_.find(size);
    if (it == plans_.end()) {
      const Desc d = desc_(size);
      it = plans_
               .emplace(size,
                        cached_plan<Plan>(fingerprint_, d, context_, device_, [&] { return Plan(queue_, d, tuning_); }))
               .first;
    }
    return *it->second;
  }

 private:
  cl::CommandQueue queue_;
  Tuning tuning_;
  std::function<Desc(std::size_t)> desc_;
  cl_context context_ = nullptr;
  cl_device_id device_ = nullptr;
  std::string fingerprint_;
  std::mutex mutex_;
  std::map<std::size_t, std::shared_ptr<const Plan>> plans_;
};

/// A buffer over host memory (CL_MEM_USE_HOST_PTR | flags) for compute_in_host_memory, and the
/// map and unmap of its `bytes` that make a device's writes visible there (*done: the unmap).
cl::Buffer host_buffer(const cl::Context& context, cl_mem_flags flags, std::size_t bytes, void* host);
void sync_to_host(cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes, cl::Event* done);

/// The group's shared state (the pinned ranges).
struct GroupAccess {
  static const std::shared_ptr<DeviceGroup::Impl>& impl(const DeviceGroup& g) { return g.impl_; }
};

/// A group job decided once (src/group/pipeline.cpp): the split options checked, each device's
/// chunk and queues, and each device's work (its plans), for every device that can get work
/// (Weights: a weight above 0). execute() runs the job on a call's host arrays: chooses the
/// split (Auto: from the group store, calibrating over calls), makes every working device's
/// task, then runs each device's chunks on its own thread (a one-device group on the caller's
/// thread, without Auto). On a device failure every thread stops taking chunks, all enqueued
/// work is waited for, the outputs of unfinished chunks are filled with 0xFF bytes (NaN for
/// float data) and DeviceFailure is thrown. Copies share the plan; executions may run at once.
class GroupPlanCore {
 public:
  GroupPlanCore(const DeviceGroup& group, GroupJob job, const SplitOptions& options);
  GroupRun execute(const HostData& data) const;
  const DeviceGroup& group() const { return group_; }

 private:
  DeviceGroup group_;
  GroupJob job_;
  SplitOptions options_;
  GroupRun sized_;  // each device's chunk and queues
  std::vector<std::shared_ptr<DeviceWork>> work_;
};

/// Rows above and below a band of an image that a method's vertical filter reaches: r = ceil(3
/// sigma) for direct and separable; for the recursive filter the distance at which its impulse
/// response has decayed below 2^-30 of its peak (src/group/group_blur.cpp).
std::size_t blur_halo_rows(BlurMethod m, double sigma_y);

/// A one-device group on the context and device of `queue` (its own in-order queues), kept for
/// the next call (at most 8 such groups). The host-vector overloads run through it, so that they
/// pipeline their transfers like the group calls.
DeviceGroup queue_group(const cl::CommandQueue& queue);

/// Auto's weights from the devices' measured rates (all > 0): the rates, with 0 for a device
/// whose rate is under 4 % of their sum.
std::vector<double> auto_weights(const std::vector<double>& rates);

/// Auto's share chain: the share (percent of their rates the devices other than `fastest`
/// get) that a split which ran at `share` calls for: the one whose shares, in proportion to each
/// device's rate over its whole share in that run (items over its time to its last chunk back),
/// would have ended every device together (`share` where the run tells nothing).
double balanced_share(const GroupRun& run, std::size_t fastest, int share);
/// The next share of a chain after a split that lost: balanced_share rounded where it is below 0.9
/// `share`, else half of `share` (the split lost by more than its balance).
int next_share(const GroupRun& run, std::size_t fastest, int share);

/// Throughputs remembered in this process by key: the auto split's rates when the user database
/// is off, each MPI rank's last rate per routine. 0 when none.
double remembered_rate(const std::string& key);
void remember_rate(const std::string& key, double rate);

/// SplitMode::Auto's part of one group call (src/group/auto_split.cpp, docs/group.md): reads each
/// device's rate, alone and split rates and share for the call's size class from the group store
/// (and what this process measured since; SplitOptions::auto_values first), chooses the split the
/// call runs and what it measures, and after the call stores what it measured (unless the call
/// was cold: GroupRun::cold).
class AutoSplit {
 public:
  AutoSplit(const DeviceGroup& group, const char* routine, const std::string& size_class, const SplitOptions& options);
  /// Auto's mode and weights for this call (a group of two or more devices): Dynamic while a
  /// rate is missing (the call measures them when it overlaps), else weights by the rates, or one
  /// device alone.
  void choose(bool overlap, SplitMode& mode, std::vector<double>& weights);
  /// The call measures nothing (resident runs).
  void passive();
  /// Whether the call measures a step (GroupRun::calibrating).
  bool calibrating() const;
  /// The step, for the debug log ("" when the call is not Auto's).
  std::string step() const;
  /// After the call: each device's MB/s after its first chunks (0: none), the upper bound for a
  /// device whose setup outlasted the job (0: none), and the whole call's MB/s of host data.
  void record(const GroupRun& run, const std::vector<double>& measured, const std::vector<double>& bounds,
              double whole);

 private:
  // Whether a cold call's measurement of `step` is left to the next call (at most kColdRepeats).
  bool repeat_cold(const GroupRun& run, const std::string& step);
  // The split measured on the fastest device `b`'s record: its rate, or the next share of a chain.
  void record_split(const GroupRun& run, std::size_t b, double whole);
  // Writes `fields` of `values` on device d's record (in the process only when the store is off).
  void save(std::size_t d, const GroupRecord& values, unsigned fields, const char* note);

  const DeviceGroup& group_;
  std::size_t D_;
  AutoValues given_;  // the caller's values (never replaced by measured ones)
  bool use_store_;    // the group store is read and written (else the process keeps the values)
  std::vector<std::string> variants_;
  std::vector<double> rate_, alone_, split_;
  std::vector<int> shares_;    // each device's share (of the others, when it is the fastest)
  bool measure_ = false;       // a dynamic run measuring every device's rate beside the others
  std::size_t measure_alone_;  // a device alone, measuring its whole call
  std::size_t measure_split_;  // the split by the rates, measuring its whole call (on the fastest's record)
  std::size_t decided_;        // the fastest device, when the call chose from both measured options
  bool decided_alone_ = false;
  bool exploring_ = false;   // this decided call runs the option not chosen
  std::string explore_key_;  // the process's count of decided calls of this size class
  int share_ = 100;          // the fastest device's share
};

}  // namespace clforge::detail
