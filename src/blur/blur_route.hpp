// The route of a blur: the method, whether each recursive pass is split into blocks and fuses
// its transpose, and the bytes its kernels read and write per pixel (the bandwidth bound's
// numerator), for BlurPlan::describe(), benchmarks and the command line.
#pragma once
#include <string>

#include "clforge/blur.hpp"
#include "clforge/device.hpp"

namespace clforge::detail {

struct BlurRoute {
  BlurMethod method = BlurMethod::Separable;
  bool blocked_y = false, blocked_x = false;  ///< recursive: vertical / horizontal pass split into blocks
  bool fused_y = false, fused_x = false;      ///< recursive: pass writes transposed (no separate transpose)
  bool carry_fused = false;                   ///< recursive: the vertical pass writes the horizontal one's carries
  bool local_tiles = true;                    ///< direct/separable: halo tiles in local memory (both passes)
  bool fused = false;                         ///< separable: both passes in one kernel (blur_sep_fused)
  /// Bytes read + written per pixel by the kernels (halo re-reads and carries not counted):
  /// direct 2P, separable 4P (2P fused), recursive per pass 4P whole-column / 3P blocked (2P for the
  /// horizontal pass when its carries come from the vertical one), plus 2P per separate
  /// transpose; P = bytes per float pixel (4 or 16); RGBA8 adds its conversions.
  double bytes_per_pixel = 0;
  std::string describe() const;  ///< e.g. "recursive (blocked+fused / blocked+fused)"
};

/// The recursive schemes, each with a database row of its own: "whole" (neither pass split into
/// blocks), "blocked" (a pass in blocks, separate transposes) and "fused" (a pass in blocks writing
/// its output transposed). BLUR_R_BLOCK, BLUR_R_NARROW and BLUR_R_FUSE_T choose the scheme: they
/// come from the family's row (variant "C", C the channels); the others from the scheme's row
/// (recursive_variant), which falls back to the family's where it has none.
inline const char* const kRecursiveSchemes[] = {"whole", "blocked", "fused"};
inline const char* const kRecursiveRouteParams[] = {"BLUR_R_BLOCK", "BLUR_R_NARROW", "BLUR_R_FUSE_T"};
/// The scheme of a recursive route: fused when a pass writes transposed, else blocked when a
/// pass is split, else whole.
const char* recursive_scheme(const BlurRoute& route);
/// The sub-variant of a scheme's row: "C:scheme" (C: 1 or 4 float channels).
std::string recursive_variant(std::size_t channels, const std::string& scheme);
/// `params` forced onto a scheme as `bench blur --method recursive-<scheme>` runs it: whole
/// columns (no blocks), or blocks (BLUR_R_BLOCK, 64 where it is 0) at every size, transposes
/// separate (blocked) or fused.
ParamMap force_recursive_scheme(ParamMap params, const std::string& scheme);

/// The route a blur of this size, format and options takes on `device` (no checks beyond the
/// tuning overrides').
BlurRoute blur_route(const DeviceInfo& device, std::size_t width, std::size_t height, PixelFormat format,
                     const BlurOptions& options, const Tuning& tuning);

/// The route of a plan.
const BlurRoute& route_of(const BlurPlan& plan);

}  // namespace clforge::detail
