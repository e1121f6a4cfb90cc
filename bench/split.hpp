// Group calls from the command line: `clforge run ROUTINE --devices ...` (one call on host data,
// checked against the host reference, then timed) and `clforge bench split` (the group against
// each device alone and against the same split without overlap, same run), also the split
// section of `bench all` with several devices. One HostJob per routine holds the host data, the
// call and the check, so that both commands run and judge a case alike.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "clforge/group.hpp"

namespace clforge::bench {

/// One group case.
struct SplitCase {
  std::string routine;              ///< fft, sgemm, transpose, blur
  std::size_t x = 0, y = 0, z = 0;  ///< fft n, batch; sgemm m, n, k; transpose rows, cols; blur width, height
  bool inverse = false;             ///< fft
  bool row_major = false, trans_a = false, trans_b = false;  ///< sgemm
  float alpha = 1.0f, beta = 0.0f;                           ///< sgemm
  std::size_t elem = 4;                                      ///< transpose: bytes per element
  double sigma = 5;                                          ///< blur (both axes)
  BlurMethod method = BlurMethod::Auto;                      ///< blur
  BlurBorder border = BlurBorder::Clamp;                     ///< blur
  std::size_t channels = 1;                                  ///< blur: 1 or 4 floats per pixel
  bool pinned = false;  ///< the host arrays in PinnedMemory of the group (else pageable std::vector)
  /// "n=1024 batch=8192", "2048x2048x2048 NN", "4096x4096 elem=4", "4096x4096 sigma 5".
  std::string shape() const;
};

/// A case's host data, its call and its check.
class HostJob {
 public:
  virtual ~HostJob() = default;
  /// Puts the output back as before a call (poisoned; sgemm with beta != 0: the original C).
  virtual void reset() = 0;
  /// One group call on the data.
  virtual GroupRun run(const DeviceGroup& group, const SplitOptions& split) = 0;
  /// The last call's error against the double host reference (relative; transpose: 0 when exact,
  /// infinite otherwise) and the bound it must stay within.
  virtual double error() = 0;
  virtual double tolerance() const = 0;
  /// A host array of the job by name: "in" and "out" (fft, transpose, blur), "a", "b" and "out"
  /// (C) for sgemm; for distributing the job over MPI ranks. Throws InvalidArgument otherwise.
  virtual float* array(const std::string& name) = 0;
  /// One call of the library's host-vector overload on `queue` where the routine has one to
  /// compare with (fft); false when it has none.
  virtual bool host_vector(cl::CommandQueue& /*queue*/) { return false; }
  double bytes = 0;  ///< host bytes read and written by one call
  double flops = 0;  ///< flops of one call (0: not a flop count routine)
};

/// The job of a case (allocates and fills its host data, pinned in `group` when c.pinned).
/// Throws InvalidArgument for an unknown routine.
std::unique_ptr<HostJob> make_host_job(const SplitCase& c, const DeviceGroup& group);

/// `run ROUTINE --devices`: one call, checked, then `reps` timed calls; prints the split, each
/// device's share and time, the median time and throughput. Returns false when the check fails.
bool run_split(const DeviceGroup& group, const SplitCase& c, const SplitOptions& split, int reps);

/// What `bench split` measures of a case.
struct SplitBenchOptions {
  SplitOptions split;  ///< the group's split (mode, weights, chunk, queues, staging)
  int reps = 5;        ///< timed calls per configuration (the median counts)
  bool print = true;   ///< print the table on stdout
};

/// The case on the group with `o.split`, the same without overlap, and each device alone (weight
/// 1 for it, 0 for the others), each timed over `reps` whole calls (wall clock, host data to
/// host data), interleaved so that drift hits all alike. Adds records to `report` (routine
/// "split <routine>", libraries "group <mode>", "group <mode> no overlap", "device <d> alone", and
/// for fft "host-vector fft() on device 0", the library's host-vector overload from pageable memory)
/// and prints the table of shares, times, throughputs and speed-ups.
void bench_split(const DeviceGroup& group, Report& report, const SplitCase& c, const SplitBenchOptions& o);

}  // namespace clforge::bench
