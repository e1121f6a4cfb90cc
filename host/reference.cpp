// Host references (see reference.hpp).
#include "host/reference.hpp"

#include <cstring>

namespace clforge::host {

void transpose(std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in, std::size_t in_ld, void* out,
               std::size_t out_ld) {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      std::memcpy(dst + (c * out_ld + r) * elem_size, src + (r * in_ld + c) * elem_size, elem_size);
}

}  // namespace clforge::host
