// Overflow-proof size arithmetic and the one check of "this argument describes memory inside
// its buffer" that every routine and plan uses. Offsets, leading dimensions, strides,
// distances and pitches arrive as size_t from callers; every product and sum below is checked,
// so that a value near SIZE_MAX cannot wrap into a small extent that passes.
#pragma once
#include <climits>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "clforge/opencl.hpp"

namespace clforge::detail {

/// Limits that reach kernels: sizes and counts are passed as 32-bit int arguments, so they are
/// below 2^31; offsets and pitches switch the kernels to 64-bit indices (CLF_LONG_INDEX) when an
/// address can pass kMaxInt32Index.
inline constexpr std::size_t kMaxDim = INT_MAX;
inline constexpr std::size_t kMaxInt32Index = INT_MAX;

/// a + b and a * b, or nullopt when the result does not fit size_t.
inline std::optional<std::size_t> add_checked(std::size_t a, std::size_t b) {
  std::size_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<std::size_t> mul_checked(std::size_t a, std::size_t b) {
  std::size_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// a + b and a * b, throwing InvalidArgument("<routine>: <what> overflows ...") when they wrap.
std::size_t add_or_throw(std::size_t a, std::size_t b, const char* routine, std::string_view what);
std::size_t mul_or_throw(std::size_t a, std::size_t b, const char* routine, std::string_view what);

/// One axis of a strided region: `count` positions `stride` elements apart; `name` is the
/// argument that holds the stride (named in errors).
struct Axis {
  std::size_t count;
  std::size_t stride;
  const char* name;
};

/// Elements spanned by a region: 1 + sum (count_i - 1) * stride_i, or 0 when a count is 0.
/// Throws InvalidArgument naming the axis whose product or sum wraps.
std::size_t region_span(const char* routine, std::initializer_list<Axis> axes);

/// Elements spanned by `outer` runs of `inner` contiguous elements, `ld` apart (a matrix with
/// leading dimension ld): (outer - 1) * ld + inner, or 0 when either is 0. Checked.
std::size_t matrix_span(const char* routine, const char* ld_name, std::size_t outer, std::size_t inner, std::size_t ld);

/// Size in bytes of a cl::Buffer; 0 for a null buffer.
std::size_t buffer_bytes(const cl::Buffer& b);

/// Checks that `buffer` is not null and holds `span` elements of elem_size bytes starting at
/// element `offset`, with (offset + span) * elem_size computed without wrapping. `name` is the
/// argument (e.g. "c"); errors name it and its offset. Returns offset + span (the end, in elements).
std::size_t require_extent(const char* routine, std::string_view name, const cl::Buffer& buffer, std::size_t offset,
                           std::size_t span, std::size_t elem_size);

/// True when [a0, a1) and [b0, b1) share an element.
inline bool ranges_overlap(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
  return a0 < b1 && b0 < a1;
}

}  // namespace clforge::detail
