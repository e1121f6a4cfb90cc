// Template bodies of the host-vector overloads in transpose.hpp.
#pragma once
#include <type_traits>

#include "clforge/errors.hpp"

namespace clforge {
namespace detail {
/// Throws InvalidArgument unless a host vector of `count` elements holds a rows x cols matrix
/// of elem_size-byte elements that transpose() accepts.
void transpose_host_check(std::size_t rows, std::size_t cols, std::size_t elem_size, std::size_t count);
void transpose_host(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                    void* out, const Tuning& tuning);
}  // namespace detail

template <typename T>
std::vector<T> transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, const std::vector<T>& in,
                         const Tuning& tuning) {
  static_assert(std::is_trivially_copyable<T>::value && (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16),
                "transpose: element must be 4, 8 or 16 bytes");
  detail::transpose_host_check(rows, cols, sizeof(T), in.size());
  std::vector<T> out(rows * cols);
  detail::transpose_host(queue, rows, cols, sizeof(T), in.data(), out.data(), tuning);
  return out;
}

}  // namespace clforge
