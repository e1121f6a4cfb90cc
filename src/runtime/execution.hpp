// One routine call's commands on a queue (an Execution): the workspaces it leases, its launches
// with the launches each one waits for, the caller's output event, and the drain when the call
// fails half-way. A plan's run only describes its launches:
//
//   Execution x(queue, wait_list, event);
//   const cl::Buffer& ws = x.workspace(context, bytes, "sgemm packing workspace");
//   const Step a = x.launch(pack_a, ...);                       // after the start
//   const Step b = x.launch(pack_b, ...);                       // after the start
//   x.launch(multiply, ..., Deps{a, b}, true);                  // the join; the caller's event
//   x.finish();                                                 // the workspaces' last use
//
// The start is the caller's wait list and the earlier users of the workspaces. On an in-order
// queue the commands run in order: only a launch that waits for nothing enqueued before it
// carries the start's events, and only the call's final launch makes an event (when the caller
// asked for one); the workspaces go back with the queue as their last use. On an out-of-order
// queue every launch makes an event and waits for exactly the events of the launches it names
// (and the start's, when it names the start or nothing); the workspaces go back with the events
// of the launches no other launch waits for.
#pragma once
#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/opencl.hpp"
#include "runtime/workspace.hpp"

namespace clforge::detail {

/// A launch of an Execution, as later launches name it among the launches they wait for.
struct Step {
  std::size_t index;
  bool operator==(const Step& o) const { return index == o.index; }
};

/// The launches one launch waits for: at most four, or the call's start (Execution::kStart).
/// Empty means the start.
class Deps {
 public:
  Deps() = default;
  Deps(std::initializer_list<Step> steps);
  /// Adds a launch (at most four in all).
  Deps& add(Step s);
  const Step* begin() const { return steps_.data(); }
  const Step* end() const { return steps_.data() + size_; }
  bool empty() const { return size_ == 0; }

 private:
  std::array<Step, 4> steps_{};
  std::size_t size_ = 0;
};

class Execution {
 public:
  /// The call's start: the caller's wait list and the earlier users of the leased workspaces.
  static constexpr Step kStart{static_cast<std::size_t>(-1)};

  /// `event` (may be null) receives the event of the launch marked last, at finish().
  Execution(cl::CommandQueue& queue, const EventList& wait_list, cl::Event* event);
  /// The same when the caller already knows whether the queue is in order.
  Execution(cl::CommandQueue& queue, const EventList& wait_list, cl::Event* event, bool in_order);
  /// Without finish() (an exception left the run): waits for the commands enqueued so far,
  /// then gives the workspaces back with nothing pending. Never throws.
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  /// Leases a scratch buffer of at least `bytes` from the workspace pool for this call (`what`
  /// names a new one in errors). Only before the first launch: the start waits for its earlier
  /// users.
  const cl::Buffer& workspace(const cl::Context& context, std::size_t bytes, const std::string& what);

  /// Enqueues a kernel after the launches `after` (empty: after the start). `last` marks the
  /// call's final command, whose event becomes the caller's. `tag` names the launch in the
  /// kernel profile (CLFORGE_PROFILE_KERNELS).
  Step launch(const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local, const Deps& after,
              bool last = false, const std::string& tag = {});
  /// The next command of a chain: a launch after the previous launch (the start for the first).
  Step then(const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local, bool last = false,
            const std::string& tag = {});

  /// Every launch is enqueued: the workspaces' last use is recorded and the caller's event set
  /// (a marker after the start when no launch was marked last).
  void finish();

  /// The event of launch s: on an out-of-order queue every launch's; on an in-order queue only
  /// the final launch's, when the caller asked for an event (else an empty event).
  const cl::Event& event(Step s) const { return events_.at(s.index); }
  cl::CommandQueue& queue() { return queue_; }
  bool in_order() const { return in_order_; }

 private:
  // The events a launch after `after` waits for.
  EventList waits_for(const Deps& after) const;
  void drain() noexcept;

  cl::CommandQueue& queue_;
  bool in_order_;
  cl::Event* out_;
  EventList start_;
  std::vector<std::unique_ptr<WorkspaceLease>> leases_;
  std::vector<cl::Event> events_;  // per launch (see event())
  std::vector<bool> awaited_;      // per launch: a later launch waits for it
  cl::Event output_;
  bool has_output_ = false;
  bool finished_ = false;
};

}  // namespace clforge::detail
