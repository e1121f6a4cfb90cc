// The fields of each routine's plan description as plan-cache key bytes (desc_plan_key finds
// them by argument-dependent lookup): one list per description, shared by the free functions'
// caches, the families' own plans and the group's plans by size.
#pragma once
#include <string>

#include "clforge/blur.hpp"
#include "clforge/fft.hpp"
#include "clforge/sgemm.hpp"
#include "clforge/transpose.hpp"
#include "runtime/plan_cache.hpp"

namespace clforge {

/// Every field of an SgemmDesc (alpha and beta by their bits; the offset lists with their lengths).
inline std::string desc_key(const SgemmDesc& d) {
  std::string key = detail::key_bytes(d.layout, d.trans_a, d.trans_b, d.m, d.n, d.k, d.alpha, d.beta, d.a_offset,
                                      d.a_ld, d.b_offset, d.b_ld, d.c_offset, d.c_ld, d.batch, d.a_stride, d.b_stride,
                                      d.c_stride, d.a_offsets.size(), d.b_offsets.size(), d.c_offsets.size());
  for (const auto* v : {&d.a_offsets, &d.b_offsets, &d.c_offsets})
    key.append(reinterpret_cast<const char*>(v->data()), v->size() * sizeof(std::size_t));
  return key;
}

/// Every field of a TransposeDesc.
inline std::string desc_key(const TransposeDesc& d) {
  return detail::key_bytes(d.rows, d.cols, d.elem_size, d.in_offset, d.in_ld, d.out_offset, d.out_ld);
}

/// Every field of a BlurDesc (the sigmas by their bits).
inline std::string desc_key(const BlurDesc& d) {
  return detail::key_bytes(d.width, d.height, d.format, d.sigma_x, d.sigma_y, d.border, d.method, d.in_offset,
                           d.in_pitch, d.out_offset, d.out_pitch);
}

/// Every field of an FftDesc.
inline std::string desc_key(const FftDesc& d) {
  return detail::key_bytes(d.n, d.batch, d.in_place, d.in.stride, d.in.distance, d.in.offset, d.out.stride,
                           d.out.distance, d.out.offset, d.forward_scaling, d.inverse_scaling);
}

}  // namespace clforge
