// Internals of the blur family shared by its plan (blur_plan.cpp, blur_steps.cpp), its
// resolution (blur_resolve.cpp), its tuner and its tests: the resolved configuration of a plan,
// the tile sizes, the programs and the kernels' signatures.
#pragma once
#include <cstdint>
#include <string>

#include "blur/blur_route.hpp"
#include "clforge/blur.hpp"
#include "runtime/launch.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/plan_keys.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

// The routine name in argument errors and logs.
inline constexpr const char* kBlurRoutine = "gaussian_blur";

/// The family's kernel specs (the routing row and one per method) and its tuner target (listed
/// by src/library/families.cpp).
KernelSpec blur_spec();
KernelSpec blur_direct_spec();
KernelSpec blur_separable_spec();
KernelSpec blur_recursive_spec();
TuneTarget blur_tune_target();
/// The recursive split threshold's values a tune of these sizes searches: one per way of
/// splitting their passes, the reference's own value for its way (blur_tune.cpp).
std::vector<int> recursive_narrow_values(const std::vector<std::string>& sizes, int reference);

// The kernels' parameters, as cl/blur/*.cl declares them.
extern const KernelSignature kBlurDirect;    // blur_direct.cl
extern const KernelSignature kBlurRows;      // blur_separable.cl
extern const KernelSignature kBlurCols;      // blur_separable.cl
extern const KernelSignature kBlurSepFused;  // blur_separable.cl
extern const KernelSignature kBlurRecCols;   // blur_recursive.cl
extern const KernelSignature kBlurRecCarry;  // blur_recursive.cl
extern const KernelSignature kBlurRecLink;   // blur_recursive.cl
extern const KernelSignature kBlurRecApply;  // blur_recursive.cl
extern const KernelSignature kBlurU8ToF32;   // blur_convert.cl
extern const KernelSignature kBlurF32ToU8;   // blur_convert.cl

// Everything a plan needs, resolved once.
struct Resolved {
  BlurRoute route;
  std::size_t channels = 1;  // of the float kernels (4 for RGBA8)
  Configuration blur, direct, separable, recursive;
  int rx = 0, ry = 0;
  bool row_local = true, col_local = true;
};

std::uint64_t direct_tile_bytes(const Configuration& c, int rx, int ry, std::size_t px);

bool separable_row_vec(const Configuration& c, std::size_t channels, bool local);
/// Outputs per work-item along a row in the row pass, and columns per work-item in the column
/// pass (blur_separable.cl: BLUR_S_TX and BLUR_S_CVW); `local`: the pass uses its local tile.
std::size_t separable_row_outputs(const Configuration& c, std::size_t channels, bool local);
std::size_t separable_col_columns(const Configuration& c, std::size_t channels, bool local);

std::uint64_t row_tile_bytes(const Configuration& c, int r, std::size_t channels, bool vec);

std::uint64_t col_tile_bytes(const Configuration& c, int r, std::size_t channels);

/// The fused kernel (BLUR_S_FUSED > 0): output rows per work-group (BLUR_S_FUSED rounded up to a
/// multiple of BLUR_S_COL_WPT) and its tile of row-pass outputs.
std::size_t fused_rows(const Configuration& c);
std::uint64_t fused_tile_bytes(const Configuration& c, int ry, std::size_t channels);
/// Work-groups of the fused kernel on a width x height image (0 where the row does not fuse).
std::uint64_t fused_tiles(const Configuration& c, std::size_t width, std::size_t height, std::size_t channels);

Resolved resolve(const DeviceInfo& dev, std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& o,
                 const Tuning& tuning);

/// A direct or separable configuration as a database row of it runs at these radii, to be given
/// as explicit values (which resolve() takes as asked, or refuses): a fused tile that does not
/// fit the device, or whose halo rows add more than a quarter to the row pass, becomes the two
/// passes; local-memory taps whose tile does not fit become global ones (both separable passes
/// where either tile does not fit: the row keeps the pass whose tile fits). The tuner's
/// candidates run so (blur_tune.cpp).
ParamMap as_row_runs(ParamMap p, BlurMethod method, int rx, int ry, std::size_t channels, const DeviceInfo& dev);

// The program of each kernel from the resolved parameters alone. The direct kernel's
// configuration with the plan's local-tile choice:
Configuration direct_config(const Resolved& r);
cl::Program direct_program(const QueueContext& qc, const Resolved& r, bool long_index);

// Separable passes: `row` selects the row pass (else the column pass; with route.fused, the
// fused kernel's program, built from the column pass's configuration).
Configuration separable_config(const Resolved& r, bool row);

// Row weights of the float4 path: zero-padded to 2R + 4 taps, R = rx rounded up to a multiple of 4.
int row_vec_radius(int rx);
cl::Program separable_program(const QueueContext& qc, const Resolved& r, bool long_index, bool row);

// Recursive passes, with or without the transposed (fused) block store.
cl::Program recursive_program(const QueueContext& qc, const Resolved& r, bool long_index, bool fused);

// The RGBA8 conversion kernels.
cl::Program conversion_program(const QueueContext& qc, const Resolved& r, bool long_index);

// Every check of a blur that needs neither a buffer nor the device: sizes, format, method,
// border, sigmas, tuning override names and values.
void check_blur_request(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                        const Tuning& tuning);

// check_blur_request, then the resolved configuration and the checks that depend on it (the
// sigma of a recursive method that Auto picked, local tiles asked for by an override).
Resolved check_blur_options(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                            const Tuning& tuning, const DeviceInfo& dev);

}  // namespace clforge::detail
