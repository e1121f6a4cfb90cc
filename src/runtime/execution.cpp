// One routine call's commands (see execution.hpp).
#include "runtime/execution.hpp"

#include <stdexcept>
#include <string>

#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"

namespace clforge::detail {

Deps::Deps(std::initializer_list<Step> steps) {
  for (Step s : steps) add(s);
}

Deps& Deps::add(Step s) {
  if (size_ == steps_.size()) throw std::logic_error("a launch waits for at most four launches");
  steps_[size_++] = s;
  return *this;
}

Execution::Execution(cl::CommandQueue& queue, const EventList& wait_list, cl::Event* event)
    : Execution(queue, wait_list, event, detail::in_order(queue)) {}

Execution::Execution(cl::CommandQueue& queue, const EventList& wait_list, cl::Event* event, bool in_order)
    : queue_(queue), in_order_(in_order), out_(event), start_(wait_list) {}

Execution::~Execution() {
  if (!finished_) drain();
}

const cl::Buffer& Execution::workspace(const cl::Context& context, std::size_t bytes, const std::string& what) {
  if (!events_.empty()) throw std::logic_error("a workspace is leased before the first launch of its call");
  leases_.push_back(std::make_unique<WorkspaceLease>(workspace_pool().acquire(context, bytes, what)));
  const EventList before = leases_.back()->waits(queue_);
  start_.insert(start_.end(), before.begin(), before.end());
  return leases_.back()->buffer();
}

EventList Execution::waits_for(const Deps& after) const {
  bool start = after.empty(), earlier = false;
  EventList waits;
  for (Step s : after) {
    if (s == kStart) {
      start = true;
    } else {
      earlier = true;
      if (!in_order_) waits.push_back(events_.at(s.index));
    }
  }
  // On an in-order queue a launch after an earlier launch of the call runs after the start anyway.
  if (start && !(in_order_ && earlier)) waits.insert(waits.end(), start_.begin(), start_.end());
  return waits;
}

Step Execution::launch(const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local, const Deps& after,
                       bool last, const std::string& tag) {
  const EventList waits = waits_for(after);
  const bool want = !in_order_ || (last && out_ != nullptr);
  cl::Event e;
  detail::launch(queue_, kernel, global, local, waits.empty() ? nullptr : &waits, want ? &e : nullptr, tag);
  for (Step s : after)
    if (!(s == kStart)) awaited_.at(s.index) = true;
  events_.push_back(e);
  awaited_.push_back(false);
  if (last) {
    output_ = e;
    has_output_ = true;
  }
  return Step{events_.size() - 1};
}

Step Execution::then(const cl::Kernel& kernel, const cl::NDRange& global, const cl::NDRange& local, bool last,
                     const std::string& tag) {
  const Deps after = events_.empty() ? Deps{kStart} : Deps{Step{events_.size() - 1}};
  return launch(kernel, global, local, after, last, tag);
}

void Execution::finish() {
  if (out_ != nullptr && !has_output_) enqueue_marker(queue_, start_, &output_);
  finished_ = true;
  if (in_order_) {
    for (auto& l : leases_) l->used_on(queue_);
  } else {
    EventList sinks;
    for (std::size_t i = 0; i < events_.size(); ++i)
      if (!awaited_[i]) sinks.push_back(events_[i]);
    for (auto& l : leases_) l->used_until(sinks);
  }
  if (out_ != nullptr) *out_ = output_;
}

void Execution::drain() noexcept {
  // Commands already enqueued may still use the workspaces: they go back to the pool only once
  // the queue is done. A failure here is logged, not thrown: the call's own error is on its way.
  if (leases_.empty() || events_.empty()) return;  // nothing enqueued: the earlier users stay
  const cl_int st = clFinish(queue_());
  for (auto& l : leases_) l->used_until({});
  if (st == CL_SUCCESS) return;
  try {
    log(LogLevel::Warning, "clFinish failed (" + std::to_string(st) + ") while a failed call drained its queue");
  } catch (...) {
  }
}

}  // namespace clforge::detail
