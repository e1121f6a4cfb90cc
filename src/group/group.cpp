// DeviceGroup (a context and queues per device), its staging and slot buffer pools, pinned
// memory, and the split options' helpers.
#include <algorithm>
#include <cmath>
#include <set>

#include "clforge/errors.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/strings.hpp"

namespace clforge {

namespace {

std::shared_ptr<DeviceGroup::Impl> make_group(std::vector<DeviceEntry> devices, std::size_t queues) {
  detail::require(!devices.empty(), "DeviceGroup", "no devices");
  detail::require(queues >= 1 && queues <= 8, "DeviceGroup",
                  [&] { return "queues per device must be 1..8 (got " + std::to_string(queues) + ")"; });
  auto impl = std::make_shared<DeviceGroup::Impl>();
  std::set<cl_device_id> seen;
  for (auto& e : devices) {
    detail::require(seen.insert(e.device()).second, "DeviceGroup",
                    [&] { return "device " + e.info.index_string() + " (" + e.info.name + ") given twice"; });
    Session first(e);  // context and the first queue, under the first-contact lock
    DeviceGroup::Impl::Member m{
        first.entry, first.context, {first.queue}, std::make_unique<DeviceGroup::Impl::StagingPool>()};
    for (std::size_t q = 1; q < queues; ++q) {
      cl_int st = CL_SUCCESS;
      cl_command_queue cq = clCreateCommandQueue(m.context(), m.entry.device(), CL_QUEUE_PROFILING_ENABLE, &st);
      detail::check(st, "clCreateCommandQueue", "for " + m.entry.info.name);
      m.queues.emplace_back(cq, false);
    }
    impl->members.push_back(std::move(m));
  }
  return impl;
}

}  // namespace

DeviceGroup::DeviceGroup(const std::string& selectors, std::size_t queues)
    : impl_(make_group(select_devices(selectors), queues)) {}

DeviceGroup::DeviceGroup(std::vector<DeviceEntry> devices, std::size_t queues)
    : impl_(make_group(std::move(devices), queues)) {}

DeviceGroup::DeviceGroup(const cl::Context& context, const cl::Device& device, std::size_t queues)
    : impl_(std::make_shared<Impl>()) {
  detail::require(queues >= 1 && queues <= 8, "DeviceGroup",
                  [&] { return "queues per device must be 1..8 (got " + std::to_string(queues) + ")"; });
  DeviceEntry e{cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>(), true), device, clforge::describe(device)};
  DeviceGroup::Impl::Member m{e, context, {}, std::make_unique<DeviceGroup::Impl::StagingPool>()};
  for (std::size_t q = 0; q < queues; ++q) {
    cl_int st = CL_SUCCESS;
    cl_command_queue cq = clCreateCommandQueue(context(), device(), CL_QUEUE_PROFILING_ENABLE, &st);
    detail::check(st, "clCreateCommandQueue", "for " + e.info.name);
    m.queues.emplace_back(cq, false);
  }
  impl_->members.push_back(std::move(m));
}

std::size_t DeviceGroup::size() const { return impl_->members.size(); }
std::size_t DeviceGroup::queues() const { return impl_->members.front().queues.size(); }

const DeviceEntry& DeviceGroup::entry(std::size_t device) const { return impl_->members.at(device).entry; }
const cl::Context& DeviceGroup::context(std::size_t device) const { return impl_->members.at(device).context; }
cl::CommandQueue& DeviceGroup::queue(std::size_t device, std::size_t q) const {
  return impl_->members.at(device).queues.at(q);
}

std::string DeviceGroup::describe() const {
  std::string s;
  for (std::size_t d = 0; d < size(); ++d) {
    const auto& i = entry(d).info;
    s += (d ? ", " : "") + std::to_string(d) + ": " + i.name + " [" + i.type + "]";
  }
  return s;
}

namespace {

// Moves the smallest pooled entry of at least `bytes` into `out` (the caller holds the pool's
// lock); false when none is that large.
template <class T>
bool take_smallest(std::vector<T>& free, std::size_t& free_bytes, std::size_t bytes, T& out) {
  auto best = free.end();
  for (auto it = free.begin(); it != free.end(); ++it)
    if (it->bytes >= bytes && (best == free.end() || it->bytes < best->bytes)) best = it;
  if (best == free.end()) return false;
  out = std::move(*best);
  free_bytes -= out.bytes;
  free.erase(best);
  return true;
}

// The size a pooled buffer is made with: `bytes` rounded up to a quarter step of its power of
// two (at most a quarter more), so that chunks of nearly equal size (a blur band with or without
// its halo rows, a short last chunk) reuse one buffer instead of each creating its own inside a
// later call.
std::size_t pooled_size(std::size_t bytes) {
  std::size_t p = 1;
  while (p <= bytes / 2) p *= 2;  // the largest power of two <= bytes
  const std::size_t step = std::max<std::size_t>(p / 4, 4096);
  return (bytes + step - 1) / step * step;
}

}  // namespace

DeviceGroup::Impl::Staging DeviceGroup::Impl::acquire_staging(std::size_t d, std::size_t need) {
  const std::size_t bytes = pooled_size(need);
  Member& m = members.at(d);
  Staging s;
  {
    const std::lock_guard<std::mutex> lock(m.staging->mutex);
    if (take_smallest(m.staging->free, m.staging->free_bytes, bytes, s)) return s;
    ++m.staging->created, m.staging->created_bytes += bytes;
  }
  s.buffer = detail::device_buffer(m.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, "group staging buffer");
  cl_int st = CL_SUCCESS;
  detail::count_enqueue();
  s.ptr = static_cast<char*>(
      m.queues[0].enqueueMapBuffer(s.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &st));
  detail::check(st, "clEnqueueMapBuffer", "group staging buffer");
  s.bytes = bytes;
  return s;
}

void DeviceGroup::Impl::release_staging(std::size_t d, Staging s) {
  if (!s.ptr) return;
  Member& m = members.at(d);
  {
    const std::lock_guard<std::mutex> lock(m.staging->mutex);
    if (m.staging->free_bytes + s.bytes <= kStagingKeep) {
      m.staging->free_bytes += s.bytes;
      m.staging->free.push_back(std::move(s));
      return;
    }
  }
  detail::count_enqueue();
  m.queues[0].enqueueUnmapMemObject(s.buffer, s.ptr);
  m.queues[0].finish();
}

cl::Buffer DeviceGroup::Impl::acquire_device(std::size_t d, std::size_t need) {
  const std::size_t bytes = pooled_size(need);
  Member& m = members.at(d);
  {
    const std::lock_guard<std::mutex> lock(m.staging->mutex);
    StagingPool::DeviceBuffer b;
    if (take_smallest(m.staging->device_free, m.staging->device_free_bytes, bytes, b)) return b.buffer;
    ++m.staging->created, m.staging->created_bytes += bytes;
  }
  return detail::device_buffer(m.context, CL_MEM_READ_WRITE, bytes, "group slot buffer");
}

void DeviceGroup::Impl::release_device(std::size_t d, cl::Buffer buffer) {
  const std::size_t bytes = detail::buffer_bytes(buffer);
  if (bytes == 0) return;
  Member& m = members.at(d);
  const std::lock_guard<std::mutex> lock(m.staging->mutex);
  if (m.staging->device_free_bytes + bytes <= kStagingKeep) {
    m.staging->device_free_bytes += bytes;
    m.staging->device_free.push_back({std::move(buffer), bytes});
  }
}

DeviceGroup::Impl::~Impl() {
  for (Member& m : members) {
    try {
      for (Staging& s : m.staging->free) {
        detail::count_enqueue();
        m.queues[0].enqueueUnmapMemObject(s.buffer, s.ptr);
      }
      if (!m.staging->free.empty()) m.queues[0].finish();
    } catch (...) {
    }
  }
}

bool DeviceGroup::Impl::is_pinned(const void* p, std::size_t bytes) {
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  const std::lock_guard<std::mutex> lock(pinned_mutex);
  for (const auto& [lo, hi] : pinned)
    if (b >= lo && b <= hi && bytes <= hi - b) return true;
  return false;
}

struct PinnedMemory::Impl {
  std::shared_ptr<DeviceGroup::Impl> group;
  cl::CommandQueue queue;
  cl::Buffer buffer;
  void* data = nullptr;
  std::size_t bytes = 0;
  // Unregisters the range, unmaps the buffer and waits for that.
  ~Impl() {
    if (!data) return;
    {
      const auto b = reinterpret_cast<std::uintptr_t>(data);
      const std::lock_guard<std::mutex> lock(group->pinned_mutex);
      auto& v = group->pinned;
      v.erase(std::remove(v.begin(), v.end(), std::pair{b, b + bytes}), v.end());
    }
    try {
      detail::count_enqueue();
      queue.enqueueUnmapMemObject(buffer, data);
      queue.finish();
    } catch (...) {
    }
  }
};

PinnedMemory::PinnedMemory(const DeviceGroup& group, std::size_t bytes) : impl_(std::make_unique<Impl>()) {
  detail::require(bytes > 0, "PinnedMemory", "0 bytes");
  std::size_t d = 0;
  while (d + 1 < group.size() && group.entry(d).info.type == "CPU") ++d;
  impl_->group = detail::GroupAccess::impl(group);
  impl_->queue = group.queue(d, 0);
  impl_->buffer =
      detail::device_buffer(group.context(d), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, "pinned host memory");
  cl_int st = CL_SUCCESS;
  detail::count_enqueue();
  impl_->data = impl_->queue.enqueueMapBuffer(impl_->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr,
                                              nullptr, &st);
  detail::check(st, "clEnqueueMapBuffer", "pinned host memory");
  impl_->bytes = bytes;
  const auto b = reinterpret_cast<std::uintptr_t>(impl_->data);
  const std::lock_guard<std::mutex> lock(impl_->group->pinned_mutex);
  impl_->group->pinned.emplace_back(b, b + bytes);
}

PinnedMemory::~PinnedMemory() = default;
PinnedMemory::PinnedMemory(PinnedMemory&&) noexcept = default;
PinnedMemory& PinnedMemory::operator=(PinnedMemory&&) noexcept = default;
void* PinnedMemory::data() const { return impl_ ? impl_->data : nullptr; }
std::size_t PinnedMemory::size() const { return impl_ ? impl_->bytes : 0; }

const char* to_string(SplitMode m) {
  switch (m) {
    case SplitMode::Auto:
      return "auto";
    case SplitMode::Weights:
      return "weights";
    case SplitMode::Dynamic:
      return "dynamic";
  }
  return "?";
}

SplitMode parse_split_mode(const std::string& text) {
  const std::string t = detail::to_lower(detail::trim(text));
  for (SplitMode m : {SplitMode::Auto, SplitMode::Weights, SplitMode::Dynamic})
    if (t == to_string(m)) return m;
  throw InvalidArgument("unknown split mode '" + text + "' (auto, weights, dynamic)");
}

std::vector<double> cpu_percent_weights(const DeviceGroup& group, double percent) {
  detail::require(std::isfinite(percent) && percent >= 0 && percent <= 100, "cpu percent",
                  [&] { return "must be in 0..100 (got " + std::to_string(percent) + ")"; });
  std::size_t cpus = 0;
  for (std::size_t d = 0; d < group.size(); ++d) cpus += group.entry(d).info.type == "CPU";
  const std::size_t others = group.size() - cpus;
  detail::require(percent == 0 || cpus > 0, "cpu percent", "the group has no CPU device to give work to");
  detail::require(percent == 100 || others > 0, "cpu percent", "the group has only CPU devices");
  std::vector<double> w;
  for (std::size_t d = 0; d < group.size(); ++d)
    w.push_back(group.entry(d).info.type == "CPU" ? percent / static_cast<double>(cpus)
                                                  : (100 - percent) / static_cast<double>(others));
  return w;
}

}  // namespace clforge

namespace clforge::detail {

DeviceGroup queue_group(const cl::CommandQueue& queue) {
  static std::mutex mutex;
  static std::vector<std::pair<std::pair<cl_context, cl_device_id>, DeviceGroup>> groups;
  const cl::Context context = queue_context(queue);
  const cl::Device device = queue_device(queue);
  const std::pair<cl_context, cl_device_id> key{context(), device()};
  const std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [k, g] : groups)
    if (k == key) return g;
  if (groups.size() >= 8) groups.erase(groups.begin());  // the oldest; a call using it holds its own copy
  groups.emplace_back(key, DeviceGroup(context, device));
  return groups.back().second;
}

}  // namespace clforge::detail
