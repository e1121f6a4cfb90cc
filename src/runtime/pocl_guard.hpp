// A guard against a PoCL defect that aborts the process (seen with PoCL 3.1 and 5.0).
//
// PoCL's CPU drivers keep each kernel's loaded work-group function in a process-wide cache keyed
// by the kernel's hash and local size, specialised for the widest grid dimension it was first
// launched with; a launch with a wider grid loads a second entry of the same key. When a
// command completes, PoCL releases the *first* entry of its key in the cache, not the one the
// command took: if a narrower launch of an older entry is still running when a wider launch's
// entry is created, and completes after it, PoCL finds the wider entry with no reference left
// and aborts ("pocl_release_dlhandle_cache: Assertion `found->ref_count > 0' failed"). Group
// calls meet this on CPU devices: bands of different heights run on two queues at once.
//
// On PoCL devices every launch is recorded by (device, kernel name, local size); a launch wider
// than any earlier one of its program under that key first waits until the key's launches in
// flight have completed, so no older entry is referenced when PoCL loads the wider one. Launches
// of other threads count from the moment they pass the guard: a wider launch also waits for
// those not yet enqueued, and the key's launches wait while a wider one is between the guard
// and its enqueue (8 threads launching one kernel at different widths had aborted PoCL now and
// then: tests/test_runtime.cpp's concurrent case under ASan, 2 of about 30 runs). Only the
// last launch per in-order queue is kept (its completion implies the earlier ones'), so a launch
// costs a few lookups however many are queued. Other platforms pass straight through.
#pragma once
#include <array>
#include <string>

#include "clforge/opencl.hpp"

namespace clforge::detail {

/// Whether launches on this queue's device go through the guard (a PoCL device); the queue's
/// device in *device when given (one query per launch serves both).
bool pocl_guarded(const cl::CommandQueue& queue, cl_device_id* device = nullptr);

/// A launch as the guard knows it: PoCL's key of its work-group function, widened to the name.
struct PoclLaunchKey {
  cl_device_id device = nullptr;
  std::string name;
  std::array<std::size_t, 3> local{1, 1, 1};
  bool widening = false;  ///< this launch widens its program's grid (not part of the order)
  bool operator<(const PoclLaunchKey& o) const;
};

/// Called before a launch on a guarded queue: waits where the launch could load a second
/// work-group function of a key with one in flight (see above). Returns the launch's key.
PoclLaunchKey pocl_before_launch(const cl::CommandQueue& queue, cl_device_id device, const cl::Kernel& kernel,
                                 const cl::NDRange& global, const cl::NDRange& local);

/// Called after that launch was enqueued, with its key and event.
void pocl_after_launch(const cl::CommandQueue& queue, const PoclLaunchKey& key, const cl::Event& launched);

/// Called instead where the launch was not enqueued (its enqueue failed).
void pocl_launch_abandoned(const PoclLaunchKey& key);

/// Launches that had to wait (tests).
unsigned long long pocl_guard_waits();

}  // namespace clforge::detail
