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
// flight have completed, so no older entry is referenced when PoCL loads the wider one. Other
// platforms pass straight through.
#pragma once
#include "clforge/opencl.hpp"

namespace clforge::detail {

/// Whether launches on this queue's device go through the guard (a PoCL device).
bool pocl_guarded(const cl::CommandQueue& queue);

/// Called before a launch on a guarded queue: waits where the launch could load a second
/// work-group function of a key with one in flight (see above).
void pocl_before_launch(const cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                        const cl::NDRange& local);

/// Called after that launch was enqueued, with its event.
void pocl_after_launch(const cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& local,
                       const cl::Event& launched);

/// Launches that had to wait (tests).
unsigned long long pocl_guard_waits();

}  // namespace clforge::detail
