// Internals of the blur family shared by its launcher (blur.cpp) and its resolution
// (blur_resolve.cpp): the resolved configuration of a call, the tile sizes, the programs.
#pragma once
#include <cstdint>
#include <string>

#include "blur/blur_plan.hpp"
#include "clforge/blur.hpp"
#include "runtime/program_cache.hpp"

namespace clforge::detail {

// Everything one call needs, resolved once.
struct Resolved {
  BlurPlan plan;
  std::size_t channels = 1;  // of the float kernels (4 for RGBA8)
  Configuration blur, direct, separable, recursive;
  int rx = 0, ry = 0;
  bool row_local = true, col_local = true;
};

std::uint64_t direct_tile_bytes(const Configuration& c, int rx, int ry, std::size_t px);

bool separable_row_vec(const Configuration& c, std::size_t channels, bool local);

std::uint64_t row_tile_bytes(const Configuration& c, int r, std::size_t channels, bool vec);

std::uint64_t col_tile_bytes(const Configuration& c, int r, std::size_t channels);

Resolved resolve(const DeviceInfo& dev, std::size_t width, std::size_t height, PixelFormat format,
                 const BlurOptions& o, const Tuning& tuning);

// 64-bit indices when an address of the images or of the scratch (carries: 6 per pixel) can
// pass 2^31 - 1.
bool blur_long_index(std::size_t width, std::size_t height, const ImageRef& in, const ImageRef& out);

// The program of each kernel of a call, from the resolved parameters alone: the launcher and
// blur_build_programs (the tuner's prebuild) compile through these, so both use one set of
// options. The direct kernel's configuration with the call's local-tile choice:
Configuration direct_config(const Resolved& r);
cl::Program direct_program(const QueueContext& qc, const Resolved& r, bool long_index);

// Separable passes: `row` selects the row pass (else the column pass).
Configuration separable_config(const Resolved& r, bool row);

// Row weights of the float4 path: zero-padded to 2R + 4 taps, R = rx rounded up to a multiple of 4.
int row_vec_radius(int rx);
cl::Program separable_program(const QueueContext& qc, const Resolved& r, bool long_index, bool row);

// Recursive passes, with or without the transposed (fused) block store.
cl::Program recursive_program(const QueueContext& qc, const Resolved& r, bool long_index, bool fused);

// The RGBA8 conversion kernels.
cl::Program conversion_program(const QueueContext& qc, const Resolved& r, bool long_index);

// Every check of a call that needs no buffer (sizes, format, method, border, sigmas, tuning
// overrides), then the resolved configuration: shared by the buffer and host-vector forms.
Resolved check_blur_options(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                            const Tuning& tuning, const DeviceInfo& dev);

}  // namespace clforge::detail
