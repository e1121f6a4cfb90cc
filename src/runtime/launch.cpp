// The launch layer (see launch.hpp): arguments by name, event chains, the enqueue of a kernel
// and the optional per-launch profile.
#include "runtime/launch.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "runtime/environment.hpp"
#include "runtime/errors.hpp"
#include "runtime/host_io.hpp"
#include "runtime/log.hpp"
#include "runtime/pocl_guard.hpp"

namespace clforge::detail {

Args::Args(cl::Kernel& kernel, const KernelSignature& sig, bool long_index)
    : kernel_(kernel), sig_(sig), long_(long_index), shadow_(arg_shadow(kernel())) {
  if (shadow_ != nullptr && shadow_->slots.size() < sig.args.size()) shadow_->slots.resize(sig.args.size());
}

bool Args::same_as_before(cl_uint i, unsigned char kind, const void* bytes, std::size_t size) {
  if (shadow_ == nullptr || size > sizeof(ArgShadow::Slot::bytes)) return false;
  const ArgShadow::Slot& s = shadow_->slots[i];
  if (s.kind != kind || s.size != size) return false;
  // Values are at most 8 bytes: compare them as one word (slots keep unused bytes zero).
  std::uint64_t have = 0, want = 0;
  std::memcpy(&have, s.bytes, sizeof have);
  std::memcpy(&want, bytes, size);
  if (have != want) return false;
  set_ |= 1ull << i;
  return true;
}

void Args::remember(cl_uint i, unsigned char kind, const void* bytes, std::size_t size) {
  if (shadow_ == nullptr) return;
  ArgShadow::Slot& s = shadow_->slots[i];
  if (size > sizeof s.bytes) {
    s.kind = 0;
    return;
  }
  s.kind = kind;
  s.size = static_cast<unsigned char>(size);
  std::memset(s.bytes, 0, sizeof s.bytes);
  std::memcpy(s.bytes, bytes, size);
}

void Args::forget(cl_uint i) {
  if (shadow_ != nullptr) shadow_->slots[i].kind = 0;
}

// The search starts after the argument set last: a launcher that binds in declaration order
// pays one comparison per argument (a plan binds every argument on every enqueue). Names are
// string literals, usually merged by the linker with the signature's: an equal pointer settles
// it without reading the text.
cl_uint Args::position(const char* name) {
  const std::size_t n = sig_.args.size();
  for (std::size_t k = 0, i = next_; k < n; ++k, i = i + 1 == n ? 0 : i + 1)
    if (sig_.args[i] == name) {
      next_ = i + 1 == n ? 0 : i + 1;
      return static_cast<cl_uint>(i);
    }
  for (std::size_t k = 0, i = next_; k < n; ++k, i = i + 1 == n ? 0 : i + 1)
    if (std::strcmp(sig_.args[i], name) == 0) {
      next_ = i + 1 == n ? 0 : i + 1;
      return static_cast<cl_uint>(i);
    }
  throw Error(std::string("kernel ") + sig_.kernel + " has no argument named " + name);
}

Args& Args::index(const char* name, std::size_t v) {
  return long_ ? set(name, static_cast<cl_long>(v)) : set(name, static_cast<cl_int>(v));
}

Args& Args::local(const char* name, std::size_t bytes) {
  const std::size_t n = bytes > 16 ? bytes : 16;
  const cl_uint i = position(name);
  if (same_as_before(i, 2, &n, sizeof n)) return *this;
  const cl_int st = kernel_.setArg(i, cl::Local(n));
  if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", std::string(sig_.kernel) + " argument " + name);
  set_ |= 1ull << i;
  remember(i, 2, &n, sizeof n);
  note_arg(kernel_, i, n, nullptr);
  return *this;
}

void Args::finish() const {
  for (std::size_t i = 0; i < sig_.args.size(); ++i)
    if ((set_ >> i & 1) == 0)
      throw Error(std::string("kernel ") + sig_.kernel + ": argument " + sig_.args[i] + " not set");
}

bool in_order(const cl::CommandQueue& queue) {
  cl_command_queue_properties props = 0;
  check(clGetCommandQueueInfo(queue(), CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr), "clGetCommandQueueInfo");
  return (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
}

namespace {
// CLFORGE_PROFILE_KERNELS=1: every launch logs (level info) its kernel, sizes and device time
// when it completes, from the event's profiling counters (the queue needs profiling enabled).
// A value that is not a boolean throws Error naming the variable (at every launch: a static
// whose initialiser throws is initialised again on the next call).
bool kernel_profiling() {
  static const bool on = env_bool("CLFORGE_PROFILE_KERNELS").value_or(false);
  return on;
}

std::string range_text(const cl::NDRange& r) {
  std::string s;
  for (cl_uint i = 0; i < r.dimensions(); ++i) s += (i ? "x" : "") + std::to_string(r[i]);
  return s.empty() ? "-" : s;
}

void CL_CALLBACK profile_done(cl_event ev, cl_int status, void* data) {
  const std::unique_ptr<std::string> what(static_cast<std::string*>(data));
  cl_ulong a = 0, b = 0;
  if (status != CL_COMPLETE ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr) != CL_SUCCESS ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr) != CL_SUCCESS) {
    log(LogLevel::Info, "profile: " + *what + " (no profiling information: status " + std::to_string(status) + ")");
    return;
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.4f", static_cast<double>(b - a) * 1e-6);
  log(LogLevel::Info, "profile: " + *what + " " + ms + " ms");
}
}  // namespace

void launch(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local,
            const EventList* wait_list, cl::Event* event, const std::string& tag) {
  if (kernel_profiling() && log_enabled(LogLevel::Info)) {
    cl::Event own;
    launch_plain(queue, kernel, global, local, wait_list, &own);
    std::string name;
    kernel.getInfo(CL_KERNEL_FUNCTION_NAME, &name);
    auto* what = new std::string(name + (tag.empty() ? "" : " [" + tag + "]") + " global " + range_text(global) +
                                 " local " + range_text(local));
    if (clSetEventCallback(own(), CL_COMPLETE, profile_done, what) != CL_SUCCESS) delete what;
    if (event != nullptr) *event = own;
    return;
  }
  launch_plain(queue, kernel, global, local, wait_list, event);
}

namespace {
thread_local LaunchRecorder* t_recorder = nullptr;
}  // namespace

std::atomic<int> Args::recorders_alive{0};

LaunchRecorder::LaunchRecorder() : outer_(t_recorder) {
  t_recorder = this;
  Args::recorders_alive.fetch_add(1, std::memory_order_relaxed);
}
LaunchRecorder::~LaunchRecorder() {
  Args::recorders_alive.fetch_sub(1, std::memory_order_relaxed);
  t_recorder = outer_;
}

void Args::record_arg(const cl::Kernel& kernel, cl_uint i, std::size_t size, const void* value) {
  if (t_recorder == nullptr) return;
  RecordedLaunch::Arg a{i, size, {}};
  if (value != nullptr) {
    const auto* b = static_cast<const unsigned char*>(value);
    a.value.assign(b, b + size);
  }
  t_recorder->pending_.emplace_back(kernel(), std::move(a));
}

void replay_launches(cl::CommandQueue& queue, const std::vector<RecordedLaunch>& launches) {
  for (const RecordedLaunch& l : launches) {
    for (const RecordedLaunch::Arg& a : l.args) {
      const cl_int st = clSetKernelArg(l.kernel(), a.index, a.size,
                                       a.value.empty() ? nullptr : static_cast<const void*>(a.value.data()));
      if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "replaying a recorded binding");
    }
    cl_event ev = nullptr;
    const cl_int st = clEnqueueNDRangeKernel(
        queue(), l.kernel(), static_cast<cl_uint>(l.global.dimensions()), nullptr, l.global,
        l.local.dimensions() ? static_cast<const size_t*>(l.local) : nullptr, 0, nullptr, l.event ? &ev : nullptr);
    if (st != CL_SUCCESS) throw OpenCLError(st, "clEnqueueNDRangeKernel", "replaying a recorded launch");
    if (ev != nullptr) clReleaseEvent(ev);
  }
}

void launch_plain(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                  const cl::NDRange& local, const EventList* wait_list, cl::Event* event) {
  if (t_recorder != nullptr) {
    RecordedLaunch r{kernel, {}, global, local, event != nullptr};
    auto& pending = t_recorder->pending_;
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->first == kernel()) {
        r.args.push_back(std::move(it->second));
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    t_recorder->launches_.push_back(std::move(r));
  }
  std::vector<cl_event> waits;
  if (wait_list != nullptr)
    for (const auto& e : *wait_list) waits.push_back(e());
  cl_device_id device = nullptr;
  const bool guarded = pocl_guarded(queue, &device);
  PoclLaunchKey guard_key;
  if (guarded) guard_key = pocl_before_launch(queue, device, kernel, global, local);
  cl_event ev = nullptr;
  count_enqueue();
  const cl_int st = clEnqueueNDRangeKernel(queue(), kernel(), static_cast<cl_uint>(global.dimensions()), nullptr,
                                           global, local.dimensions() ? static_cast<const size_t*>(local) : nullptr,
                                           static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                                           event != nullptr || guarded ? &ev : nullptr);
  if (st != CL_SUCCESS) {
    if (guarded) pocl_launch_abandoned(guard_key);
    std::string name;
    kernel.getInfo(CL_KERNEL_FUNCTION_NAME, &name);
    throw OpenCLError(st, "clEnqueueNDRangeKernel", "launching " + name);
  }
  const cl::Event launched = ev != nullptr ? cl::Event(ev, false) : cl::Event();
  if (guarded) pocl_after_launch(queue, guard_key, launched);
  if (event != nullptr) *event = launched;
}

}  // namespace clforge::detail
