// The group layer's test hook: a fault the tests inject into the chunk pipeline
// (src/group/pipeline.cpp) through this header; no public header declares it.
#pragma once
#include <cstddef>
#include <functional>

#include "runtime/test_hook.hpp"

namespace clforge::detail {

/// Called on a device's thread before each of its chunks is enqueued, in every group call that
/// starts while it is set; an exception thrown there is that device failing on that chunk.
using GroupFault = std::function<void(std::size_t device, std::size_t chunk)>;
/// Sets the hook for the calls that start from now on (nullptr: none).
void set_group_fault(GroupFault fault);
/// The hook a call starting now runs (empty: none).
GroupFault group_fault();

/// Sets the hook for its own lifetime.
using GroupFaultScope = HookScope<GroupFault, set_group_fault>;

}  // namespace clforge::detail
