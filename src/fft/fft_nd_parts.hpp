// Pieces of the multi-dimensional plans shared by the complex (fft_nd.cpp) and the real-input
// (fft_real_nd.cpp) ones: the checks of a multi-dimensional layout and the 1-D description of
// one axis pass with its repeats.
#pragma once
#include <vector>

#include "fft/fft_plan_impl.hpp"

namespace clforge::fft_plan_parts {

constexpr std::size_t kMaxRank = 3;

// Elements the layout spans from its offset (checked arithmetic: names the stride or distance that wraps).
std::size_t nd_span(const char* side, const FftNdLayout& l, const std::vector<std::size_t>& shape, std::size_t batch);
// The layout with its strides and distance checked and their defaults filled in, spanning less
// than 2^40 elements from offset 0 (so that sums of its steps cannot wrap).
FftNdLayout checked_nd_layout(const char* side, FftNdLayout l, const std::vector<std::size_t>& shape,
                              std::size_t batch);
// Throws unless no two elements of a written layout share memory.
void require_nd_disjoint(const char* what, const FftNdLayout& l, const std::vector<std::size_t>& shape,
                         std::size_t batch);

// The 1-D description of the pass along `axis` of the checked description d: it reads d.in
// (`first`) or d.out and writes d.out, in place where d is or where it is not the first pass;
// the largest level of the batch and the other axes is its batch, the others its `repeats`.
FftDesc pass_desc(const FftNdDesc& d, std::size_t axis, bool first, std::vector<Repeat>& repeats);

// A level of a pass: `count` positions, `in` and `out` elements apart on the two sides.
struct Level {
  std::size_t count, in, out;
};
// A level of adjacent transforms becomes a pass' batch from this many transforms on.
constexpr std::size_t kAdjacentBatch = 16;
// The levels of a pass along `axis` reading `in` and writing d.out (the batch and the other
// axes), merged where one nests contiguously around another: the one with the smallest input
// distance first where it has kAdjacentBatch transforms or more, then the others, largest first.
std::vector<Level> pass_levels(const FftNdDesc& d, const FftNdLayout& in, std::size_t axis);
// The first level (a single position when there is none) as the batch, the others as `repeats`;
// moves the two offsets to the repeats' last position.
Level split_levels(const std::vector<Level>& levels, std::vector<Repeat>& repeats, std::size_t& in_offset,
                   std::size_t& out_offset);

// describe()'s words for the positions a pass' steps run at ("" at one).
inline std::string positions_text(const FftSteps& st) {
  const std::size_t inner = st.in_kernel.count, positions = repeat_positions(st.repeats) * inner;
  if (positions == 1) return "";
  return " at " + std::to_string(positions) + " positions" +
         (inner > 1 ? " (" + std::to_string(inner) + " in each launch)" : "");
}

// Launches of one execution of `st`, steps of plan p: per position of its repeats and chunk of its batch.
inline std::size_t steps_launches(const FftPlan::Impl& p, const FftSteps& st) {
  return repeat_positions(st.repeats) * ((p.desc.batch + st.chunk - 1) / st.chunk) * st.stages.size();
}

}  // namespace clforge::fft_plan_parts
