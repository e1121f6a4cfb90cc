// The MPI component's test hook: a fault the tests inject into a rank's part of a collective
// call through this header; no public header declares it.
#pragma once
#include <functional>

namespace clforge::detail {

/// Called on every rank before its local work, in every collective call while set; an exception
/// thrown there is that rank failing.
using MpiFault = std::function<void(int rank)>;
/// Sets the hook (nullptr: none).
void set_mpi_fault(MpiFault fault);
/// Runs the hook, if one is set, for `rank`.
void run_mpi_fault(int rank);

}  // namespace clforge::detail
