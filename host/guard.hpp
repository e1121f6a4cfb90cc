// The output harness of every routine's tests and of the tuner: an output region poisoned before
// a device run, with a guard tail after the result's layout, and after the run the count of
// elements outside the result that no longer hold their poison. The result itself is compared
// with a reference through host::compare (data.hpp) against a tolerance the caller states; the
// inputs come from host::random_floats with the run's seed.
#pragma once
#include <cstddef>
#include <vector>

namespace clforge::host {

/// Elements after the end of an output's layout that must keep their poison: a kernel that
/// writes past its output changes them. The tuner's device-side output has the same tail.
inline constexpr std::size_t kGuardTail = 127;

/// The host image of a device output: `span` elements (the result's layout, gaps included)
/// followed by kGuardTail guard elements, each `elem_bytes` bytes, all holding a poison: quiet
/// NaN (float elements), a byte pattern (8-bit pixels), or given contents (the input of an
/// in-place run). Upload data() before the run; after it, every element that is not part of
/// the result must still hold its poison bit for bit (bits, since NaN != NaN).
class PoisonedOutput {
 public:
  /// Quiet-NaN poison; elem_bytes is a multiple of 4 (float elements).
  explicit PoisonedOutput(std::size_t span, std::size_t elem_bytes = 4);
  /// `pattern` in every byte.
  PoisonedOutput(std::size_t span, std::size_t elem_bytes, unsigned char pattern);
  /// `contents` as the poison; they already include the guard tail.
  PoisonedOutput(const std::vector<float>& contents, std::size_t elem_bytes);

  std::size_t elements() const { return bytes_.size() / elem_bytes_; }  ///< span + kGuardTail
  std::size_t bytes() const { return bytes_.size(); }
  const unsigned char* data() const { return bytes_.data(); }
  /// The poison as floats (bytes() / 4 of them): the buffer to upload, or the start of an
  /// expected image for an exact comparison.
  std::vector<float> floats() const;

  /// Elements i with !inside[i] whose bytes in `after` (bytes() long) differ from the poison;
  /// `first`, when given, receives the first of them.
  std::size_t changed_outside(const void* after, const std::vector<bool>& inside, std::size_t* first = nullptr) const;
  /// Elements whose bytes in `after` differ from `expected` (both bytes() long), inside the
  /// result or not: for exact results; `first` as above.
  std::size_t differences(const void* after, const void* expected, std::size_t* first = nullptr) const;

 private:
  std::vector<unsigned char> bytes_;
  std::size_t elem_bytes_;
};

/// Marks the elements offset + r * pitch + [0, len), r < rows, of a mask: the result of a
/// pitched 2-D layout (image rows, matrix columns).
void mark_rows(std::vector<bool>& mask, std::size_t offset, std::size_t rows, std::size_t len, std::size_t pitch);

/// Guard values out[n .. n + kGuardTail) (those below `size`) that are no longer NaN.
std::size_t guard_hits(const float* out, std::size_t n, std::size_t size);

}  // namespace clforge::host
