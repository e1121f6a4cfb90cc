// Out-of-place matrix transpose: out (cols x rows) = in (rows x cols)^T, row-major,
// element size 4, 8 or 16 bytes (float, complex float, float4).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

namespace detail {
struct TransposeAccess;  // the library's own access (plans of other routines run transposes as steps)
}

/// What a TransposePlan computes: out (cols x rows) = in (rows x cols)^T, row-major, elements of
/// elem_size bytes (4, 8 or 16); offsets and leading dimensions count elements (ld 0: packed).
struct TransposeDesc {
  std::size_t rows = 0, cols = 0, elem_size = 4;
  std::size_t in_offset = 0, in_ld = 0;
  std::size_t out_offset = 0, out_ld = 0;
};

/// A transpose checked, resolved and compiled once, then enqueued any number of times on any
/// queue of the same context and device. enqueue() may run on several threads at once (each
/// thread uses its own kernel object).
class TransposePlan {
 public:
  /// Throws InvalidArgument (before anything is built) for zero or too large sizes, a bad element
  /// size, small leading dimensions, extents that overflow, or bad tuning overrides; BuildError
  /// when the kernel does not compile.
  TransposePlan(const cl::CommandQueue& queue, const TransposeDesc& desc, const Tuning& tuning = {});
  /// Waits for wait_list, transposes in into out; *event (if given) completes when it is done.
  /// Throws InvalidArgument, before anything is enqueued, for null or too-small buffers, in and
  /// out being one buffer, or a queue of another context or device.
  void enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  const TransposeDesc& desc() const;
  /// e.g. "transpose 1000x1000, 4-byte elements: local tiles of 32, 8 rows per work-item".
  std::string describe() const;
  /// The resolved tuning parameters and where each value came from.
  const Configuration& configuration() const;

  struct Impl;

 private:
  friend void transpose(cl::CommandQueue&, std::size_t, std::size_t, std::size_t, const MatrixRef&, const MatrixRef&,
                        const EventList&, cl::Event*, const Tuning&);
  friend struct detail::TransposeAccess;
  explicit TransposePlan(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

/// Transposes the rows x cols row-major matrix `in` (leading dimension in.ld >= cols) into
/// the cols x rows row-major matrix `out` (out.ld >= rows). elem_size is 4, 8 or 16 bytes;
/// offsets and leading dimensions count elements. Throws InvalidArgument (before anything
/// is enqueued) for zero sizes, bad element size, small ld, null or too-small buffers, or
/// in and out being the same buffer. Runs a TransposePlan from a bounded per-process cache: a
/// repeated call with the same shape, layout and tuning costs a lookup, not a resolution.
void transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const MatrixRef& in,
               const MatrixRef& out, const EventList& wait_list = {}, cl::Event* event = nullptr,
               const Tuning& tuning = {});

/// Host-vector convenience, blocking: a group call on the queue's device alone (bands of rows
/// through pinned staging, transfers overlapped with the transposes; clforge/group.hpp).
/// T is float, std::complex<float> or any 16-byte trivially copyable type.
template <typename T>
std::vector<T> transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, const std::vector<T>& in,
                         const Tuning& tuning = {});

}  // namespace clforge

#include "clforge/detail/transpose_impl.hpp"
