// Internals of the transpose family shared with its tuner and tests.
#pragma once
#include "runtime/launch.hpp"

namespace clforge::detail {

/// transpose_tiled's parameters (cl/transpose/transpose.cl), bound by name.
extern const KernelSignature kTransposeTiled;

}  // namespace clforge::detail
