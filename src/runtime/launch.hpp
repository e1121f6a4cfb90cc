// The launch layer every routine's plan goes through: kernel arguments bound by name, commands
// chained by events, and the one enqueue of a kernel (with the optional per-launch profile).
#pragma once
#include <atomic>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/errors.hpp"
#include "clforge/opencl.hpp"
#include "runtime/program_cache.hpp"

namespace clforge::detail {

/// A kernel's parameter names in order, as its .cl file declares them. Declared once beside
/// the launcher; tests check them against the compiled kernel (CL_KERNEL_ARG_NAME).
struct KernelSignature {
  const char* kernel;
  std::vector<const char*> args;
};

/// Sets the arguments of one kernel by name: no argument index is counted by hand outside this
/// class. Index arguments (offsets, leading dimensions, pitches) are cl_int, or cl_long when the
/// kernel was built with CLF_LONG_INDEX (long_index). finish() checks that every argument was set.
class Args {
 public:
  Args(cl::Kernel& kernel, const KernelSignature& sig, bool long_index = false);
  Args& buffer(const char* name, const cl::Buffer& b) { return set(name, b); }
  Args& i32(const char* name, long long v) { return set(name, static_cast<cl_int>(v)); }
  Args& f32(const char* name, float v) { return set(name, v); }
  Args& index(const char* name, std::size_t v);
  Args& local(const char* name, std::size_t bytes);
  template <typename T>
  Args& set(const char* name, const T& value) {
    const cl_uint i = position(name);
    if constexpr (std::is_arithmetic_v<T>) {
      if (same_as_before(i, 1, &value, sizeof value)) return *this;
    } else {
      forget(i);
    }
    const cl_int st = kernel_.setArg(i, value);
    if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", std::string(sig_.kernel) + " argument " + name);
    set_ |= 1ull << i;
    if constexpr (std::is_arithmetic_v<T>) {
      remember(i, 1, &value, sizeof value);
      note_arg(kernel_, i, sizeof value, &value);
    } else {
      static_assert(std::is_base_of_v<cl::Memory, T>, "Args::set takes numbers and memory objects");
      const cl_mem m = value();
      note_arg(kernel_, i, sizeof m, &m);
    }
    return *this;
  }
  /// Throws Error naming the first argument that was not set.
  void finish() const;

 private:
  cl_uint position(const char* name);
  // The kernel object's shadow (ArgShadow): whether argument i holds this value already (then it
  // counts as set), and what it holds after a clSetKernelArg.
  bool same_as_before(cl_uint i, unsigned char kind, const void* bytes, std::size_t size);
  // Tells a LaunchRecorder of this thread, if any, what was bound (value nullptr: local memory).
  // Binding is on every launch's path: while no recorder lives anywhere it costs one load.
  static void note_arg(const cl::Kernel& kernel, cl_uint i, std::size_t size, const void* value) {
    if (recorders_alive.load(std::memory_order_relaxed) != 0) record_arg(kernel, i, size, value);
  }
  static void record_arg(const cl::Kernel& kernel, cl_uint i, std::size_t size, const void* value);
  static std::atomic<int> recorders_alive;  // LaunchRecorders of every thread
  friend class LaunchRecorder;
  void remember(cl_uint i, unsigned char kind, const void* bytes, std::size_t size);
  void forget(cl_uint i);
  cl::Kernel& kernel_;
  const KernelSignature& sig_;
  bool long_;
  unsigned long long set_ = 0;
  std::size_t next_ = 0;  // where the next name lookup starts
  ArgShadow* shadow_ = nullptr;
};

/// Enqueues a kernel over a global range (already rounded up to local) with the wait list and
/// optional output event; converts errors into OpenCLError naming the kernel. `tag` names the
/// launch's role in the kernel profile (CLFORGE_PROFILE_KERNELS), e.g. an FFT plan's pass.
void launch(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local,
            const EventList* wait_list, cl::Event* event, const std::string& tag = {});
/// launch without the optional kernel profile.
void launch_plain(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                  const cl::NDRange& local, const EventList* wait_list, cl::Event* event);

/// One kernel launch as launch_plain enqueued it, with the arguments bound on its kernel object
/// since that object's previous launch (what Args set: an argument Args skipped because the
/// kernel already held its value is not there), for LaunchRecorder.
struct RecordedLaunch {
  struct Arg {
    cl_uint index;
    std::size_t size;
    std::vector<unsigned char> value;  ///< empty: local memory of `size` bytes
  };
  cl::Kernel kernel;
  std::vector<Arg> args;
  cl::NDRange global, local;
  bool event;
};

/// Records the argument bindings and kernel launches made on this thread while it lives (nested
/// recorders: the innermost records). `clforge bench overhead` replays one call's record to
/// measure what the driver alone charges for that call's launches (replay_launches).
class LaunchRecorder {
 public:
  LaunchRecorder();
  ~LaunchRecorder();
  LaunchRecorder(const LaunchRecorder&) = delete;
  LaunchRecorder& operator=(const LaunchRecorder&) = delete;
  const std::vector<RecordedLaunch>& launches() const { return launches_; }

 private:
  friend class Args;
  friend void launch_plain(cl::CommandQueue&, const cl::Kernel&, const cl::NDRange&, const cl::NDRange&,
                           const EventList*, cl::Event*);
  std::vector<RecordedLaunch> launches_;
  std::vector<std::pair<cl_kernel, RecordedLaunch::Arg>> pending_;  // bound, not launched yet
  LaunchRecorder* outer_;
};

/// Issues a record again, in order, through the OpenCL C API only: each launch's argument
/// bindings (clSetKernelArg), then the launch (clEnqueueNDRangeKernel) with the same ranges and
/// an event where the original made one (released at once); wait lists are not replayed (on an
/// in-order queue a call's own commands wait for none).
void replay_launches(cl::CommandQueue& queue, const std::vector<RecordedLaunch>& launches);

/// Whether a queue executes in order (no CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE).
bool in_order(const cl::CommandQueue& queue);

}  // namespace clforge::detail
