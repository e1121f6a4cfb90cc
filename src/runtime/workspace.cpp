// The shared workspace pool (see workspace.hpp).
#include "runtime/workspace.hpp"

#include <algorithm>

#include "runtime/errors.hpp"
#include "runtime/host_io.hpp"

namespace clforge::detail {

namespace {
// The largest buffer the pool keeps for a context (see workspace.hpp).
std::size_t kept_bytes_limit(const cl::Context& ctx) {
  std::vector<cl::Device> devices;
  check(ctx.getInfo(CL_CONTEXT_DEVICES, &devices), "clGetContextInfo");
  cl_ulong smallest = 0;
  for (const auto& d : devices) {
    cl_ulong mem = 0;
    check(d.getInfo(CL_DEVICE_GLOBAL_MEM_SIZE, &mem), "clGetDeviceInfo");
    if (smallest == 0 || mem < smallest) smallest = mem;
  }
  return std::max<std::size_t>(kMaxCachedBytes, static_cast<std::size_t>(smallest / 8));
}
}  // namespace

Workspace WorkspacePool::acquire(const cl::Context& ctx, std::size_t bytes, const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if (it->context == ctx() && it->bytes >= bytes && (best == idle_.end() || it->bytes < best->bytes)) best = it;
    if (best != idle_.end()) {
      Workspace w = std::move(*best);
      idle_.erase(best);
      return w;
    }
  }
  Workspace w;
  w.context = ctx();
  w.bytes = bytes;
  w.keep = bytes <= kept_bytes_limit(ctx);
  w.buffer = device_buffer(ctx, CL_MEM_READ_WRITE, bytes, what);
  return w;
}

void WorkspacePool::release(Workspace w) {
  if (!w.keep) return;
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t same = 0;
  for (const auto& x : idle_) same += x.context == w.context;
  if (same >= kMaxIdlePerContext) {
    // Drop the smallest idle buffer of this context if the new one is larger.
    auto smallest = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if (it->context == w.context && (smallest == idle_.end() || it->bytes < smallest->bytes)) smallest = it;
    if (smallest == idle_.end() || smallest->bytes >= w.bytes) return;
    idle_.erase(smallest);
  }
  idle_.push_back(std::move(w));
}

EventList WorkspaceLease::waits(const cl::CommandQueue& queue) const {
  if (w_.queue() == nullptr) return w_.last_use;
  if (w_.queue() == queue()) return {};  // the same in-order queue runs the call after them
  cl::CommandQueue last = w_.queue;
  cl::Event marker;
  enqueue_marker(last, {}, &marker);  // completes after every command enqueued there so far
  check(clFlush(last()), "clFlush");  // another queue waits for it: it must be submitted
  return {marker};
}

WorkspacePool& workspace_pool() {
  static WorkspacePool* pool = new WorkspacePool;
  return *pool;
}

}  // namespace clforge::detail
