// Out-of-place matrix transpose: out (cols x rows) = in (rows x cols)^T, row-major,
// element size 4, 8 or 16 bytes (float, complex float, float4).
#pragma once
#include <cstddef>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

/// Transposes the rows x cols row-major matrix `in` (leading dimension in.ld >= cols) into
/// the cols x rows row-major matrix `out` (out.ld >= rows). elem_size is 4, 8 or 16 bytes;
/// offsets and leading dimensions count elements. Throws InvalidArgument (before anything
/// is enqueued) for zero sizes, bad element size, small ld, null or too-small buffers, or
/// in and out being the same buffer.
void transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size,
               const MatrixRef& in, const MatrixRef& out, const EventList& wait_list = {},
               cl::Event* event = nullptr, const Tuning& tuning = {});

/// Host-vector convenience: copies in, transposes on the device, copies back, blocking.
/// T is float, std::complex<float> or any 16-byte trivially copyable type.
template <typename T>
std::vector<T> transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols,
                         const std::vector<T>& in, const Tuning& tuning = {});

}  // namespace clforge

#include "clforge/detail/transpose_impl.hpp"
