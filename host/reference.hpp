// Host reference implementations (double precision where rounding matters), used by tests,
// benchmarks and the tuner to verify every device result.
#pragma once
#include <cstddef>
#include <vector>

namespace clforge::host {

/// out[c * out_ld + r] = in[r * in_ld + c] for elements of elem_size bytes (exact copy).
void transpose(std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in, std::size_t in_ld, void* out,
               std::size_t out_ld);

}  // namespace clforge::host
