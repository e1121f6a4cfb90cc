// The commands of one BlurPlan enqueue: the kernels of each method with their arguments bound
// by name, the recursive method's transposes as TransposePlan steps, each after the one before
// in one detail::Execution, which leases the scratch buffer from the workspace pool.
#include <functional>
#include <stdexcept>

#include "blur/blur_plan_impl.hpp"
#include "runtime/errors.hpp"
#include "runtime/execution.hpp"
#include "runtime/launch.hpp"
#include "runtime/workspace.hpp"
#include "transpose/transpose_internal.hpp"

namespace clforge {
namespace detail {

const KernelSignature kBlurDirect{"blur_direct",
                                  {"width", "height", "border", "rx", "ry", "wts", "in", "in_off", "in_pitch", "out",
                                   "out_off", "out_pitch", "tile"}};
const KernelSignature kBlurRows{
    "blur_rows",
    {"width", "height", "border", "r", "wts", "in", "in_off", "in_pitch", "out", "out_off", "out_pitch", "tile4"}};
const KernelSignature kBlurCols{"blur_cols",
                                {"width", "height", "border", "r", "y_first", "rows", "wts", "in", "in_off", "in_pitch",
                                 "out", "out_off", "out_pitch", "tile"}};
const KernelSignature kBlurSepFused{"blur_sep_fused",
                                    {"width", "height", "border", "rx", "ry", "y_first", "rows", "wx", "wy", "in",
                                     "in_off", "in_pitch", "out", "out_off", "out_pitch", "tile"}};
const KernelSignature kBlurRecCols{
    "blur_rec_cols", {"n", "cols", "border", "K", "prm", "in", "in_off", "in_pitch", "out", "out_off", "out_pitch"}};
const KernelSignature kBlurRecCarry{"blur_rec_carry",
                                    {"n", "cols", "prm", "in", "in_off", "in_pitch", "carry", "carry_off"}};
const KernelSignature kBlurRecLink{
    "blur_rec_link", {"n", "cols", "nb", "q", "border", "K", "prm", "in", "in_off", "in_pitch", "carry", "carry_off"}};
const KernelSignature kBlurRecApply{"blur_rec_apply",
                                    {"n", "cols", "prm", "in", "in_off", "in_pitch", "carry", "carry_off", "out",
                                     "out_off", "out_pitch", "next_carry", "prm_next", "carry_next", "carry_next_off"}};
const KernelSignature kBlurU8ToF32{"blur_u8_to_f32",
                                   {"width", "height", "in", "in_off", "in_pitch", "out", "out_off", "out_pitch"}};
const KernelSignature kBlurF32ToU8{"blur_f32_to_u8",
                                   {"width", "height", "in", "in_off", "in_pitch", "out", "out_off", "out_pitch"}};

namespace {

// An image inside a buffer (offset and pitch in pixels).
struct Img {
  const cl::Buffer& buffer;
  std::size_t offset, pitch;
};

// One enqueue in flight: the plan, its execution, the leased scratch buffer and the output
// rows it writes (BlurRows: all of them unless a group band asks for its own).
struct Run {
  const BlurPlan::Impl& p;
  Execution& x;
  const cl::Buffer& scratch;
  BlurRows rows;
  long long width() const { return static_cast<long long>(p.desc.width); }
  long long height() const { return static_cast<long long>(p.desc.height); }
};

Args& images(Args& a, const Img& in, const Img& out) {
  return a.buffer("in", in.buffer)
      .index("in_off", in.offset)
      .index("in_pitch", in.pitch)
      .buffer("out", out.buffer)
      .index("out_off", out.offset)
      .index("out_pitch", out.pitch);
}

void run_direct(Run& c, const Img& in, const Img& out, bool last) {
  const BlurPlan::Impl& p = c.p;
  cl::Kernel k = get_kernel(p.direct, kBlurDirect.kernel);
  Args a(k, kBlurDirect, p.long_index);
  a.i32("width", c.width()).i32("height", c.height()).i32("border", p.border).i32("rx", p.res.rx).i32("ry", p.res.ry);
  a.buffer("wts", p.direct_weights).local("tile", p.direct_shape.local_bytes);
  images(a, in, out).finish();
  c.x.then(k, p.direct_shape.global, p.direct_shape.local, last);
}

void run_separable(Run& c, const Img& in, const Img& out, bool last) {
  const BlurPlan::Impl& p = c.p;
  // The column pass (or the fused kernel) covers the window's rows only: as many work-group rows
  // as they need.
  const std::size_t first = c.rows.count > 0 ? c.rows.first : 0,
                    count = c.rows.count > 0 ? c.rows.count : p.desc.height;
  const cl::NDRange& g = p.cols_shape.global;
  const cl::NDRange global(g[0], ceil_div(count, p.cols_rows_per_group) * p.cols_shape.local[1]);
  if (p.res.route.fused) {
    cl::Kernel k = get_kernel(p.cols, kBlurSepFused.kernel);
    Args a(k, kBlurSepFused, p.long_index);
    a.i32("width", c.width()).i32("height", c.height()).i32("border", p.border).i32("rx", p.res.rx).i32("ry", p.res.ry);
    a.i32("y_first", static_cast<long long>(first)).i32("rows", static_cast<long long>(count));
    a.buffer("wx", p.row_weights).buffer("wy", p.col_weights).local("tile", p.cols_shape.local_bytes);
    images(a, in, out).finish();
    c.x.then(k, global, p.cols_shape.local, last);
    return;
  }
  const Img tmp{c.scratch, p.scratch.tmp, p.desc.width};
  auto pass = [&](const cl::Program& prog, const KernelSignature& sig, const LaunchShape& shape, int r,
                  const cl::Buffer& weights, const char* tile, const Img& from, const Img& to,
                  const std::function<void(Args&)>& more, const cl::NDRange& global, bool is_last) {
    cl::Kernel k = get_kernel(prog, sig.kernel);
    Args a(k, sig, p.long_index);
    a.i32("width", c.width()).i32("height", c.height()).i32("border", p.border).i32("r", r);
    a.buffer("wts", weights).local(tile, shape.local_bytes);
    more(a);
    images(a, from, to).finish();
    c.x.then(k, global, shape.local, is_last);
  };
  pass(
      p.rows, kBlurRows, p.rows_shape, p.res.rx, p.row_weights, "tile4", in, tmp, [](Args&) {}, p.rows_shape.global,
      false);
  pass(
      p.cols, kBlurCols, p.cols_shape, p.res.ry, p.col_weights, "tile", tmp, out,
      [&](Args& a) { a.i32("y_first", static_cast<long long>(first)).i32("rows", static_cast<long long>(count)); },
      global, last);
}

// The following pass whose carries a pass's apply kernel also fills (route.carry_fused): its
// constants and the offset of its carries in the scratch. Empty (rp null): no carries written.
struct NextPass {
  const RecPass* rp = nullptr;
  std::size_t carry = 0;
};

// One vertical recursive pass over n rows x cols columns of `in`; writes `out` in the same
// layout, or transposed when the program has BLUR_R_FUSE_T (a blocked pass only). The block
// carries go to the scratch at pixel `carry`; with `have_carries` the previous pass already
// filled them there and this pass's carry kernel is skipped; with `next` its apply kernel fills
// the next pass's.
void recursive_pass(Run& c, const cl::Program& prog, std::size_t n, std::size_t cols, const RecPass& rp, const Img& in,
                    const Img& out, std::size_t carry, bool have_carries, const NextPass& next, bool last) {
  const BlurPlan::Impl& p = c.p;
  const std::size_t lx = p.rec_lx;
  const auto N = static_cast<long long>(n), C = static_cast<long long>(cols);
  if (rp.L == 0) {
    cl::Kernel k = get_kernel(prog, kBlurRecCols.kernel);
    Args a(k, kBlurRecCols, p.long_index);
    a.i32("n", N).i32("cols", C).i32("border", p.border).i32("K", rp.K).buffer("prm", rp.prm);
    images(a, in, out).finish();
    c.x.then(k, cl::NDRange(round_up(cols, lx)), cl::NDRange(lx), last);
    return;
  }
  // The arguments the block kernels share: sizes, the pass's table, the input and the carries.
  auto pass_args = [&](Args& a) -> Args& {
    return a.i32("n", N)
        .i32("cols", C)
        .buffer("prm", rp.prm)
        .buffer("in", in.buffer)
        .index("in_off", in.offset)
        .index("in_pitch", in.pitch)
        .buffer("carry", c.scratch)
        .index("carry_off", carry);
  };
  if (!have_carries) {
    cl::Kernel k = get_kernel(prog, kBlurRecCarry.kernel);
    Args a(k, kBlurRecCarry, p.long_index);
    pass_args(a).finish();
    c.x.then(k, cl::NDRange(round_up(cols, lx), rp.nb), cl::NDRange(lx, 1), false);
  }
  {
    cl::Kernel k = get_kernel(prog, kBlurRecLink.kernel);
    Args a(k, kBlurRecLink, p.long_index);
    a.i32("nb", static_cast<long long>(rp.nb)).i32("q", rp.q).i32("border", p.border).i32("K", rp.K);
    pass_args(a).finish();
    c.x.then(k, cl::NDRange(round_up(cols, lx), p.rec_split), cl::NDRange(lx, p.rec_split), false);
  }
  cl::Kernel k = get_kernel(prog, kBlurRecApply.kernel);
  Args a(k, kBlurRecApply, p.long_index);
  a.i32("n", N).i32("cols", C).buffer("prm", rp.prm).buffer("carry", c.scratch).index("carry_off", carry);
  // Without a next pass the kernel reads neither of the last three (next_carry = 0): they get
  // this pass's own table and carries, valid buffers it does not touch.
  a.i32("next_carry", next.rp != nullptr)
      .buffer("prm_next", next.rp != nullptr ? next.rp->prm : rp.prm)
      .buffer("carry_next", c.scratch)
      .index("carry_next_off", next.rp != nullptr ? next.carry : carry);
  images(a, in, out).finish();
  c.x.then(k, cl::NDRange(round_up(cols, lx), rp.nb), cl::NDRange(lx, 1), last);
}

void run_recursive(Run& c, const Img& in, const Img& out, bool last) {
  const BlurPlan::Impl& p = c.p;
  const BlurRoute& rt = p.res.route;
  const std::size_t W = p.desc.width, H = p.desc.height;
  const cl::Program& plain = p.recursive[0];
  const cl::Program& fused = p.recursive[1];
  const Img t{c.scratch, p.scratch.tmp, H};  // W x H: the image transposed
  // Vertical pass (sigma_y), ending transposed in tmp.
  if (rt.fused_y) {
    recursive_pass(c, fused, H, W, p.ry, in, t, p.scratch.carry_y, false,
                   rt.carry_fused ? NextPass{&p.rx, p.scratch.carry_x} : NextPass{}, false);
  } else {
    recursive_pass(c, plain, H, W, p.ry, in, out, p.scratch.carry_y, false, {}, false);
    transpose_step(*p.transpose_y, c.x, out.buffer, c.scratch, false);
  }
  // Horizontal pass (sigma_x) as a vertical pass of the transposed image, transposed back.
  if (rt.fused_x) {
    recursive_pass(c, fused, W, H, p.rx, t, out, p.scratch.carry_x, rt.carry_fused, {}, last);
  } else {
    recursive_pass(c, plain, W, H, p.rx, t, Img{c.scratch, p.scratch.tmp2, H}, p.scratch.carry_x, rt.carry_fused, {},
                   false);
    transpose_step(*p.transpose_x, c.x, c.scratch, out.buffer, last);
  }
}

void run_method(Run& c, const Img& in, const Img& out, bool last) {
  switch (c.p.res.route.method) {
    case BlurMethod::Direct:
      run_direct(c, in, out, last);
      break;
    case BlurMethod::Separable:
      run_separable(c, in, out, last);
      break;
    default:
      run_recursive(c, in, out, last);
      break;
  }
}

void convert(Run& c, const KernelSignature& sig, const Img& in, const Img& out, bool last) {
  cl::Kernel k = get_kernel(c.p.conversion, sig.kernel);
  Args a(k, sig, c.p.long_index);
  a.i32("width", c.width()).i32("height", c.height());
  images(a, in, out).finish();
  c.x.then(k, c.p.conv_shape.global, c.p.conv_shape.local, last);
}

}  // namespace
}  // namespace detail

void BlurPlan::Impl::run(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
                         cl::Event* event, detail::BlurRows rows) const {
  using namespace detail;
  if (rows.count > 0 && (!rows_window_supported() || rows.first + rows.count > desc.height))
    throw std::logic_error("blur: a part of the output rows asked of a plan that cannot write one");
  // The scratch comes from the pool: the first command waits for its previous user, and it
  // goes back with this enqueue's last use.
  Execution x(queue, wait, event);
  const cl::Buffer none;
  const cl::Buffer& s = scratch.pixels > 0 ? x.workspace(context, scratch.pixels * px, "blur scratch") : none;
  Run c{*this, x, s, rows};
  const Img src{in, desc.in_offset, desc.in_pitch}, dst{out, desc.out_offset, desc.out_pitch};
  if (desc.format == PixelFormat::RGBA8) {
    const std::size_t pixels = desc.width * desc.height;
    const Img a{s, scratch.conv, desc.width}, b{s, scratch.conv + pixels, desc.width};
    convert(c, kBlurU8ToF32, src, a, false);
    run_method(c, a, b, false);
    convert(c, kBlurF32ToU8, b, dst, true);
  } else {
    run_method(c, src, dst, true);
  }
  x.finish();
}

}  // namespace clforge
