// Internals of the transpose family shared with its tuner, its tests and the plans of other
// routines that run transposes as steps of their own command chains (the blur's recursive method).
#pragma once
#include "clforge/transpose.hpp"
#include "runtime/execution.hpp"
#include "runtime/launch.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/plan_keys.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

// The routine name in argument errors and logs.
inline constexpr const char* kTransposeRoutine = "transpose";

/// The family's kernel spec and tuner target (listed by src/library/families.cpp).
KernelSpec transpose_spec();
TuneTarget transpose_tune_target();

/// The variant a transpose resolves: its element size in bytes ("4", "8", "16"), with ":large"
/// for a matrix of kLargeTransposeBytes or more ("4:large": 4096 x 4096 floats), which falls back
/// to the element size's rows. One row need not serve both: on the H200 a row tuned on 1024^2 to
/// 16384^2 together ran 1024^2 at 0.57 to 0.65 of the shipped row while doubling the large ones'
/// speed (docs/tuning.md, the cold starts of 2026-12-01). A large float matrix whose leading
/// dimensions or offsets leave the float4 grid (`on_grid` false) resolves "4:large:odd", which
/// falls back to the rows of "4": its tiles move element by element, which wants other shapes
/// (docs/transpose.md).
inline constexpr std::size_t kLargeTransposeBytes = std::size_t{16} << 20;
std::string transpose_variant(std::size_t rows, std::size_t cols, std::size_t elem_size, bool on_grid = true);

/// transpose_tiled's parameters (cl/transpose/transpose.cl), bound by name.
extern const KernelSignature kTransposeTiled;

/// A TransposePlan from a queue's context and device (for plans built without a queue, e.g. by
/// the tuner's worker threads). Checks the description like the public constructor.
TransposePlan make_transpose_plan(const QueueContext& qc, const TransposeDesc& desc, const Tuning& tuning);

/// Enqueues `plan` as the next command of execution x without checking the buffers or the
/// queue: the caller built the plan for exactly these buffers' layout and checked them. `last`
/// marks the call's final command (whose event becomes the caller's).
void transpose_step(const TransposePlan& plan, Execution& x, const cl::Buffer& in, const cl::Buffer& out, bool last);

}  // namespace clforge::detail
