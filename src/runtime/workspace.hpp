// Device scratch buffers shared by the calls on one context: a call takes a free buffer (or
// allocates one), enqueues its work with the buffer's last use as a dependency, and gives it
// back with the event of its own last command (WorkspaceLease), so calls on any queue of the
// context may run concurrently. Buffers of more than kMaxCachedBytes are not kept; at most
// kMaxIdlePerContext idle buffers per context.
#pragma once
#include <CL/opencl.hpp>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/common.hpp"

namespace clforge::detail {

constexpr std::size_t kMaxCachedBytes = std::size_t(512) << 20;
constexpr std::size_t kMaxIdlePerContext = 2;

struct Workspace {
  cl_context context = nullptr;
  cl::Buffer buffer;
  std::size_t bytes = 0;
  EventList last_use;  // commands that use the buffer and may still run
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
  const EventList& last_use() const { return w_.last_use; }
  void used_until(EventList events) { w_.last_use = std::move(events); }

 private:
  Workspace w_;
};

}  // namespace clforge::detail
