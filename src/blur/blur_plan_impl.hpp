// The inside of a BlurPlan: what its constructor checked, resolved, built and laid out
// (blur_plan.cpp), and the commands each enqueue runs from it (blur_steps.cpp).
#pragma once
#include <memory>
#include <vector>

#include "blur/blur_internal.hpp"
#include "clforge/blur.hpp"
#include "clforge/transpose.hpp"

namespace clforge {
namespace detail {

// The constants of one recursive pass over n rows: margin K, block length L (0: whole
// columns), blocks and the length of the last, blocks per run of the link kernel and of its
// last run, the parameter buffer (layout in cl/blur/blur_recursive.cl).
struct RecPass {
  int K = 0, L = 0, last = 0, q = 0, qlast = 0;
  std::size_t nb = 1;
  cl::Buffer prm;
};

// The scratch of one enqueue: a single buffer of `pixels` float pixels (Impl::px bytes each)
// from the workspace pool, its regions at these pixel offsets: the intermediate images (tmp:
// the transposed image between the recursive passes or the separable row pass's output;
// tmp2: the recursive horizontal pass's output before its separate transpose), the carries of
// the recursive passes (one region shared by both passes unless the vertical pass writes the
// horizontal pass's carries), and the float4 copies of an RGBA8 input and output (conv, two
// images).
struct ScratchLayout {
  std::size_t pixels = 0;
  std::size_t tmp = 0, tmp2 = 0, carry_y = 0, carry_x = 0, conv = 0;
};

// The output rows an enqueue writes: rows [first, first + count) of the blurred image, row y at
// the output's row y - first; count 0: the whole image. Only the separable method of float
// images writes a part (rows_window_supported): a group band in host memory writes its own rows
// and leaves its halo rows, which belong to its neighbours, untouched.
struct BlurRows {
  std::size_t first = 0, count = 0;
};

// A kernel's launch shape and dynamic local memory.
struct LaunchShape {
  cl::NDRange global, local;
  std::size_t local_bytes = 0;
};

}  // namespace detail

struct BlurPlan::Impl {
  BlurDesc desc;  // pitches resolved
  cl::Context context;
  cl_device_id device = nullptr;
  detail::Resolved res;
  std::vector<Configuration> configs;
  bool long_index = false;
  int border = 0;      // as the kernels take it: 0 clamp, 1 mirror, 2 zero
  std::size_t px = 4;  // bytes per float pixel of the blur kernels (16 for RGBA8's float4 copies)

  // Programs of the method's kernels (those the plan runs are built; a fused separable blur's
  // kernel is in `cols`, with cols_shape), launch shapes.
  cl::Program direct, rows, cols, conversion;
  cl::Program recursive[2];  // index: fused (transposed block store)
  detail::LaunchShape direct_shape, rows_shape, cols_shape, conv_shape;
  std::size_t cols_rows_per_group = 1;  // output rows of one column-pass (or fused) work-group
  std::size_t rec_lx = 0, rec_split = 1;

  // Constant tables, made once.
  cl::Buffer direct_weights, row_weights, col_weights;
  detail::RecPass ry, rx;  // vertical (sigma_y) and horizontal (sigma_x) recursive passes

  // The recursive method's separate transposes: the vertical pass's output into tmp, and the
  // horizontal pass's output (tmp2) into the destination.
  std::shared_ptr<const TransposePlan> transpose_y, transpose_x;

  detail::ScratchLayout scratch;

  // Enqueues without checks (the caller checked the buffers and the queue; a part of the rows
  // only where rows_window_supported).
  void run(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
           cl::Event* event, detail::BlurRows rows = {}) const;
  bool rows_window_supported() const {
    return res.route.method == BlurMethod::Separable && desc.format != PixelFormat::RGBA8;
  }
};

namespace detail {

struct BlurPlanAccess {
  /// Checks, resolves and builds a plan for the queue context's device (BlurPlan's constructor,
  /// and the tuner's worker threads, which have no queue).
  static BlurPlan make(const QueueContext& qc, const BlurDesc& desc, const Tuning& tuning);
  static const BlurPlan::Impl& impl(const BlurPlan& plan) { return *plan.impl_; }
};

/// The checks of BlurPlan::enqueue that concern the buffers: both hold the described images
/// (`out` its first out_rows rows), belong to `context`, and are two buffers.
void check_blur_buffers(const BlurDesc& desc, const cl::Context& context, const cl::Buffer& in, const cl::Buffer& out,
                        std::size_t out_rows);

}  // namespace detail
}  // namespace clforge
