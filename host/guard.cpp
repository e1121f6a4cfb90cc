// Poisoned outputs with guard tails (see guard.hpp).
#include "host/guard.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace clforge::host {

PoisonedOutput::PoisonedOutput(std::size_t span, std::size_t elem_bytes)
    : bytes_((span + kGuardTail) * elem_bytes), elem_bytes_(elem_bytes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 0; i + 4 <= bytes_.size(); i += 4) std::memcpy(bytes_.data() + i, &nan, 4);
}

PoisonedOutput::PoisonedOutput(std::size_t span, std::size_t elem_bytes, unsigned char pattern)
    : bytes_((span + kGuardTail) * elem_bytes, pattern), elem_bytes_(elem_bytes) {}

PoisonedOutput::PoisonedOutput(const std::vector<float>& contents, std::size_t elem_bytes)
    : bytes_(contents.size() * 4), elem_bytes_(elem_bytes) {
  if (!bytes_.empty()) std::memcpy(bytes_.data(), contents.data(), bytes_.size());
}

std::vector<float> PoisonedOutput::floats() const {
  std::vector<float> f(bytes_.size() / 4);
  if (!f.empty()) std::memcpy(f.data(), bytes_.data(), f.size() * 4);
  return f;
}

std::size_t PoisonedOutput::changed_outside(const void* after, const std::vector<bool>& inside,
                                            std::size_t* first) const {
  const auto* a = static_cast<const unsigned char*>(after);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < elements(); ++i) {
    if (i < inside.size() && inside[i]) continue;
    if (std::memcmp(a + i * elem_bytes_, bytes_.data() + i * elem_bytes_, elem_bytes_) == 0) continue;
    if (changed++ == 0 && first != nullptr) *first = i;
  }
  return changed;
}

std::size_t PoisonedOutput::differences(const void* after, const void* expected, std::size_t* first) const {
  const auto* a = static_cast<const unsigned char*>(after);
  const auto* e = static_cast<const unsigned char*>(expected);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < elements(); ++i)
    if (std::memcmp(a + i * elem_bytes_, e + i * elem_bytes_, elem_bytes_) != 0 && differ++ == 0 && first != nullptr)
      *first = i;
  return differ;
}

void mark_rows(std::vector<bool>& mask, std::size_t offset, std::size_t rows, std::size_t len, std::size_t pitch) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < len; ++i) mask[offset + r * pitch + i] = true;
}

std::size_t guard_hits(const float* out, std::size_t n, std::size_t size) {
  std::size_t hits = 0;
  for (std::size_t i = n; i < n + kGuardTail && i < size; ++i) hits += !std::isnan(out[i]);
  return hits;
}

}  // namespace clforge::host
