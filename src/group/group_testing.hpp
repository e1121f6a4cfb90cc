// The group layer's test hook: a fault the tests inject into the chunk pipeline
// (src/group/pipeline.cpp) through this header; no public header declares it.
#pragma once
#include <cstddef>
#include <functional>

namespace clforge::detail {

/// Called on a device's thread before each of its chunks is enqueued, in every group call that
/// starts while it is set; an exception thrown there is that device failing on that chunk.
using GroupFault = std::function<void(std::size_t device, std::size_t chunk)>;
/// Sets the hook for the calls that start from now on (nullptr: none).
void set_group_fault(GroupFault fault);
/// The hook a call starting now runs (empty: none).
GroupFault group_fault();

/// Sets the hook for its own lifetime.
class GroupFaultScope {
 public:
  explicit GroupFaultScope(GroupFault fault) { set_group_fault(std::move(fault)); }
  ~GroupFaultScope() { set_group_fault(nullptr); }
  GroupFaultScope(const GroupFaultScope&) = delete;
  GroupFaultScope& operator=(const GroupFaultScope&) = delete;
};

}  // namespace clforge::detail
