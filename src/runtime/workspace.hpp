// Device scratch buffers shared by the calls on one context: a call takes a free buffer (or
// allocates one), enqueues its work after the buffer's last use, and gives it back with its own
// last use (WorkspaceLease), so calls on any queue of the context may run concurrently. A last
// use on an in-order queue is that queue (no event: the next call on the same queue needs no
// wait at all, a call on another queue waits for a marker enqueued then); on an out-of-order
// queue it is the events of the commands. A buffer is kept for reuse up to kMaxCachedBytes or an
// eighth of the smallest global memory of the context's devices, whichever is larger (a large
// blur or FFT would otherwise allocate its scratch on every call); at most kMaxIdlePerContext
// idle buffers per context.
#pragma once
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/opencl.hpp"

namespace clforge::detail {

constexpr std::size_t kMaxCachedBytes = std::size_t(512) << 20;
constexpr std::size_t kMaxIdlePerContext = 2;

struct Workspace {
  cl_context context = nullptr;
  cl::Buffer buffer;
  std::size_t bytes = 0;
  bool keep = true;        // goes back to the pool's idle list when released
  EventList last_use;      // commands that use the buffer and may still run, or
  cl::CommandQueue queue;  // the in-order queue whose commands used it last (then last_use is empty)
};

class WorkspacePool {
 public:
  /// A buffer of at least `bytes` in ctx (`what` names a new one in errors).
  Workspace acquire(const cl::Context& ctx, std::size_t bytes, const std::string& what);
  void release(Workspace w);

 private:
  std::mutex mutex_;
  std::vector<Workspace> idle_;
};

/// The process's pool (never destroyed: releasing OpenCL objects during static destruction can
/// outlive the driver).
WorkspacePool& workspace_pool();

/// Gives the workspace back with the event of the last command that used it, also when a
/// later launch throws.
class WorkspaceLease {
 public:
  explicit WorkspaceLease(Workspace w) : w_(std::move(w)) {}
  ~WorkspaceLease() { workspace_pool().release(std::move(w_)); }
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  const cl::Buffer& buffer() const { return w_.buffer; }
  /// What the first command of a call on `queue` must wait for besides the call's wait list:
  /// nothing after commands of the same in-order queue, a marker on the in-order queue that used
  /// the buffer last (flushed), else the events of the last use.
  EventList waits(const cl::CommandQueue& queue) const;
  /// The last use: these commands' events (empty: none may still run).
  void used_until(EventList events) {
    w_.last_use = std::move(events);
    w_.queue = cl::CommandQueue();
  }
  /// The last use: the commands enqueued so far on this in-order queue.
  void used_on(const cl::CommandQueue& in_order_queue) {
    w_.last_use.clear();
    w_.queue = in_order_queue;
  }

 private:
  Workspace w_;
};

}  // namespace clforge::detail
