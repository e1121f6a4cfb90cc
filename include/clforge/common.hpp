// Types shared by every routine: a matrix in a cl::Buffer, and the event arguments.
#pragma once
#include <cstddef>
#include <vector>

#include "clforge/opencl.hpp"

namespace clforge {

/// A 2-D array inside a cl::Buffer: offset and leading dimension (row pitch for row-major,
/// column pitch for column-major) counted in elements, not bytes.
struct MatrixRef {
  cl::Buffer buffer;
  std::size_t offset = 0;
  std::size_t ld = 0;
};

/// Events every routine takes: it waits for wait_list and, if event is not null, stores
/// an event that completes when all of the routine's work is done.
using EventList = std::vector<cl::Event>;

}  // namespace clforge
