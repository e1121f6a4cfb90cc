// BlurPlan: the checks that need no buffer, the resolution, the programs, the constant tables
// and the scratch layout, all made once by the constructor; enqueue() checks the buffers and
// runs the steps (blur_steps.cpp). docs/blur.md has the design.
#include <algorithm>
#include <cstdio>

#include "blur/blur_design.hpp"
#include "blur/blur_plan_impl.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "transpose/transpose_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {
namespace {

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

cl::Buffer constants(const QueueContext& qc, const std::vector<float>& v, const char* what) {
  return constant_buffer(qc.context, v.data(), v.size() * sizeof(float), std::string("blur ") + what);
}

// The parameter table of one recursive pass (layout in cl/blur/blur_recursive.cl).
std::vector<float> recursive_parameters(const RecursiveGaussian& g, const RecPass& p) {
  const int G = std::max(p.L, p.K);
  std::vector<float> t(76 + 3 * static_cast<std::size_t>(G), 0.0f);
  t[0] = static_cast<float>(g.k1);
  t[1] = static_cast<float>(g.g2);
  t[2] = static_cast<float>(g.c2);
  auto put = [&](std::size_t at, const Mat3& m) {
    for (int i = 0; i < 9; ++i) t[at + i] = static_cast<float>(m[i]);
  };
  put(4, recursive_boundary(g));
  put(13, recursive_transition(g, p.K));
  if (p.L > 0) {
    put(22, recursive_transition(g, p.L));
    put(31, recursive_transition(g, p.last));
    put(40, recursive_cross(g, p.L));
    put(49, recursive_cross(g, p.last));
    put(58, recursive_transition(g, p.L * p.q));
    put(67, recursive_transition(g, p.L * (p.qlast - 1) + p.last));
  }
  const std::vector<double> imp = recursive_impulse_table(g, G);
  for (std::size_t i = 0; i < imp.size(); ++i) t[76 + i] = static_cast<float>(imp[i]);
  return t;
}

// The shape of one recursive pass over n rows (its parameter buffer comes later, once every
// check has passed).
RecPass rec_pass(const Resolved& r, std::size_t n, double sigma, BlurBorder border, bool blocked) {
  RecPass p;
  p.K = recursive_margin(sigma, border);
  if (blocked) {
    p.L = r.recursive.at("BLUR_R_BLOCK");
    p.nb = ceil_div(n, p.L);
    p.last = static_cast<int>(n - (p.nb - 1) * p.L);
    p.q = static_cast<int>(ceil_div(p.nb, r.recursive.at("BLUR_R_LINK_SPLIT")));
    p.qlast = static_cast<int>(p.nb - (ceil_div(p.nb, p.q) - 1) * p.q);
  }
  return p;
}

BlurDesc packed(BlurDesc d) {
  if (d.in_pitch == 0) d.in_pitch = d.width;
  if (d.out_pitch == 0) d.out_pitch = d.width;
  return d;
}

BlurOptions options_of(const BlurDesc& d) {
  BlurOptions o;
  o.sigma_x = d.sigma_x;
  o.sigma_y = d.sigma_y;
  o.border = d.border;
  o.method = d.method;
  return o;
}

// Pixels spanned by one side's image, checked: the end (offset + extent) in pixels.
std::size_t image_end(const BlurDesc& d, bool in) {
  const std::size_t pitch = in ? d.in_pitch : d.out_pitch, offset = in ? d.in_offset : d.out_offset;
  const std::string_view side = in ? "in" : "out";
  require(pitch >= d.width, kBlurRoutine, [&] {
    return std::string(side) + ".pitch (" + std::to_string(pitch) + ") is smaller than the width (" +
           std::to_string(d.width) + ")";
  });
  const std::size_t span = matrix_span(kBlurRoutine, in ? "in.pitch" : "out.pitch", d.height, d.width, pitch);
  const std::size_t end = add_or_throw(offset, span, kBlurRoutine,
                                       in ? "in.offset plus the image's extent" : "out.offset plus the image's extent");
  mul_or_throw(end, pixel_bytes(d.format), kBlurRoutine, in ? "in's extent in bytes" : "out's extent in bytes");
  return end;
}

}  // namespace

void check_blur_buffers(const BlurDesc& d, const cl::Context& context, const cl::Buffer& in, const cl::Buffer& out,
                        std::size_t out_rows) {
  const std::size_t pb = pixel_bytes(d.format);
  require_extent(kBlurRoutine, "in", in, d.in_offset,
                 matrix_span(kBlurRoutine, "in.pitch", d.height, d.width, d.in_pitch), pb);
  require_extent(kBlurRoutine, "out", out, d.out_offset,
                 matrix_span(kBlurRoutine, "out.pitch", out_rows, d.width, d.out_pitch), pb);
  require(in() != out(), kBlurRoutine, "in and out must be different buffers (the blur is out-of-place)");
  for (const cl::Buffer* b : {&in, &out}) {
    cl_context c = nullptr;
    check(clGetMemObjectInfo((*b)(), CL_MEM_CONTEXT, sizeof c, &c, nullptr), "clGetMemObjectInfo");
    require(
        c == context(), kBlurRoutine,
        b == &in ? "in belongs to another context than the queue" : "out belongs to another context than the queue");
  }
}

namespace {

// A plan under construction: where it is built, its description's resolution, and 64-bit
// indexing.
struct Build {
  const QueueContext& qc;
  BlurPlan::Impl& im;
  const Resolved& res;
  const Tuning& tuning;
  bool li;
  std::size_t width() const { return im.desc.width; }
  std::size_t height() const { return im.desc.height; }
};

// Builds a program's kernels too, so that a missing one fails here, not at the first enqueue.
void kernel_of(const cl::Program& p, const KernelSignature& sig) { get_kernel(p, sig.kernel); }

// The scratch layout in float pixels (and the recursive passes, which size the carries).
void lay_out_scratch(BlurPlan::Impl& im, const Resolved& res) {
  const BlurDesc& desc = im.desc;
  const BlurRoute& rt = res.route;
  const std::size_t W = desc.width, H = desc.height, pixels = W * H;  // below 2^60
  ScratchLayout& s = im.scratch;
  std::size_t at = 0;
  auto region = [&](std::size_t n) {
    const std::size_t off = at;
    at = add_or_throw(at, n, kBlurRoutine, "the scratch size");
    return off;
  };
  if (desc.format == PixelFormat::RGBA8) s.conv = region(mul_or_throw(pixels, 2, kBlurRoutine, "the scratch size"));
  if (rt.method == BlurMethod::Separable && !rt.fused) s.tmp = region(pixels);
  if (rt.method == BlurMethod::Recursive) {
    im.ry = rec_pass(res, H, desc.sigma_y, desc.border, rt.blocked_y);
    im.rx = rec_pass(res, W, desc.sigma_x, desc.border, rt.blocked_x);
    auto carries = [&](const RecPass& p, std::size_t cols) {
      return p.L > 0 ? mul_or_throw(mul_or_throw(p.nb, 6, kBlurRoutine, "the scratch size"), cols, kBlurRoutine,
                                    "the scratch size")
                     : 0;
    };
    const std::size_t cy = carries(im.ry, W), cx = carries(im.rx, H);
    s.tmp = region(pixels);
    if (!rt.fused_x) s.tmp2 = region(pixels);
    if (rt.carry_fused) {
      s.carry_y = region(cy);
      s.carry_x = region(cx);
    } else {
      s.carry_y = s.carry_x = region(std::max(cy, cx));  // the passes run one after the other
    }
  }
  s.pixels = at;
  mul_or_throw(at, im.px, kBlurRoutine, "the scratch size in bytes");
}

void build_direct(Build& b) {
  const Resolved& res = b.res;
  const Configuration cfg = direct_config(res);
  b.im.direct = direct_program(b.qc, res, b.li);
  kernel_of(b.im.direct, kBlurDirect);
  const std::size_t lx = cfg.at("BLUR_D_LX"), ly = cfg.at("BLUR_D_LY"), ty = ly * cfg.at("BLUR_D_WPT");
  b.im.direct_shape = {cl::NDRange(round_up(b.width(), lx), ceil_div(b.height(), ty) * ly), cl::NDRange(lx, ly),
                       res.row_local ? direct_tile_bytes(cfg, res.rx, res.ry, b.im.px) : 0};
  b.im.configs.push_back(res.direct);
}

void build_fused(Build& b) {
  const Resolved& res = b.res;
  const Configuration cc = separable_config(res, false);
  b.im.cols = separable_program(b.qc, res, b.li, false);
  kernel_of(b.im.cols, kBlurSepFused);
  const std::size_t cx = cc.at("BLUR_S_COL_LX"), cy = cc.at("BLUR_S_COL_LY"), fy = fused_rows(cc),
                    tc = cx * separable_col_columns(cc, res.channels, false);
  b.im.cols_rows_per_group = fy;
  b.im.cols_shape = {cl::NDRange(ceil_div(b.width(), tc) * cx, ceil_div(b.height(), fy) * cy), cl::NDRange(cx, cy),
                     fused_tile_bytes(cc, res.ry, res.channels)};
  b.im.configs.push_back(res.separable);
}

void build_separable(Build& b) {
  const Resolved& res = b.res;
  BlurPlan::Impl& im = b.im;
  const Configuration rc = separable_config(res, true), cc = separable_config(res, false);
  const bool vec = separable_row_vec(rc, res.channels, res.row_local);
  im.rows = separable_program(b.qc, res, b.li, true);
  im.cols = separable_program(b.qc, res, b.li, false);
  kernel_of(im.rows, kBlurRows);
  kernel_of(im.cols, kBlurCols);
  const std::size_t lx = rc.at("BLUR_S_ROW_LX"), ly = rc.at("BLUR_S_ROW_LY"),
                    tx = lx * separable_row_outputs(rc, res.channels, res.row_local);
  im.rows_shape = {cl::NDRange(ceil_div(b.width(), tx) * lx, round_up(b.height(), ly)), cl::NDRange(lx, ly),
                   res.row_local ? row_tile_bytes(rc, res.rx, res.channels, vec) : 0};
  const std::size_t cx = cc.at("BLUR_S_COL_LX"), cy = cc.at("BLUR_S_COL_LY"), ty = cy * cc.at("BLUR_S_COL_WPT"),
                    tc = cx * separable_col_columns(cc, res.channels, res.col_local);
  im.cols_rows_per_group = ty;
  im.cols_shape = {cl::NDRange(ceil_div(b.width(), tc) * cx, ceil_div(b.height(), ty) * cy), cl::NDRange(cx, cy),
                   res.col_local ? col_tile_bytes(cc, res.ry, res.channels) : 0};
  im.configs.push_back(res.separable);
}

// A separate transpose of the recursive method, built for exactly the layout it moves.
std::shared_ptr<const TransposePlan> rec_transpose(Build& b, std::size_t rows, std::size_t cols, std::size_t in_off,
                                                   std::size_t in_ld, std::size_t out_off, std::size_t out_ld) {
  TransposeDesc t;
  t.rows = rows;
  t.cols = cols;
  t.elem_size = b.im.px;
  t.in_offset = in_off;
  t.in_ld = in_ld;
  t.out_offset = out_off;
  t.out_ld = out_ld;
  auto plan = std::make_shared<const TransposePlan>(make_transpose_plan(b.qc, t, Tuning{{}, b.tuning.user_database}));
  b.im.configs.push_back(plan->configuration());
  return plan;
}

void build_recursive(Build& b) {
  const Resolved& res = b.res;
  const BlurRoute& rt = res.route;
  BlurPlan::Impl& im = b.im;
  for (bool fused : {false, true}) {
    if (!(fused ? rt.fused_y || rt.fused_x : !rt.fused_y || !rt.fused_x)) continue;
    cl::Program& p = im.recursive[fused ? 1 : 0];
    p = recursive_program(b.qc, res, b.li, fused);
    kernel_of(p, kBlurRecCols);
    if (res.recursive.at("BLUR_R_BLOCK") > 0)
      for (const KernelSignature* k : {&kBlurRecCarry, &kBlurRecLink, &kBlurRecApply}) kernel_of(p, *k);
  }
  im.rec_lx = res.recursive.at("BLUR_R_LX");
  im.rec_split = res.recursive.at("BLUR_R_LINK_SPLIT");
  im.configs.push_back(res.recursive);
  // The separate transposes: the vertical pass's output (the destination, or the float4 output
  // copy of an RGBA8 image) into tmp, and tmp2 back into it.
  const std::size_t W = b.width(), H = b.height();
  const ScratchLayout& s = im.scratch;
  const bool u8 = im.desc.format == PixelFormat::RGBA8;
  const std::size_t dst_off = u8 ? s.conv + W * H : im.desc.out_offset, dst_pitch = u8 ? W : im.desc.out_pitch;
  if (!rt.fused_y) im.transpose_y = rec_transpose(b, H, W, dst_off, dst_pitch, s.tmp, H);
  if (!rt.fused_x) im.transpose_x = rec_transpose(b, W, H, s.tmp2, H, dst_off, dst_pitch);
}

void build_conversion(Build& b) {
  b.im.conversion = conversion_program(b.qc, b.res, b.li);
  kernel_of(b.im.conversion, kBlurU8ToF32);
  kernel_of(b.im.conversion, kBlurF32ToU8);
  const std::size_t wg = b.res.blur.at("BLUR_CV_WG");
  b.im.conv_shape = {cl::NDRange(round_up(b.width(), wg), b.height()), cl::NDRange(wg, 1), 0};
}

// Constant tables, computed and uploaded once (shared with other plans of the context that use
// the same tables: constant_buffer keys them by contents).
void direct_tables(Build& b) {
  std::vector<float> w = to_float(gaussian_weights(b.im.desc.sigma_x));
  const std::vector<float> gy = to_float(gaussian_weights(b.im.desc.sigma_y));
  w.insert(w.end(), gy.begin(), gy.end());
  b.im.direct_weights = constants(b.qc, w, "direct weights");
}

void separable_tables(Build& b) {
  const Resolved& res = b.res;
  const std::vector<double> g = gaussian_weights(b.im.desc.sigma_x);
  std::vector<float> w;
  if (!res.route.fused && separable_row_vec(separable_config(res, true), res.channels, res.row_local)) {
    const int Rv = row_vec_radius(res.rx);
    w.assign(2 * Rv + 4, 0.0f);
    for (int k = 0; k <= 2 * res.rx; ++k) w[Rv - res.rx + k] = static_cast<float>(g[k]);
  } else {
    w = to_float(g);
  }
  b.im.row_weights = constants(b.qc, w, "row weights");
  b.im.col_weights = constants(b.qc, to_float(gaussian_weights(b.im.desc.sigma_y)), "column weights");
}

void recursive_tables(Build& b) {
  const BlurDesc& d = b.im.desc;
  const RecursiveGaussian gy = recursive_gaussian(d.sigma_y);
  b.im.ry.prm = constants(b.qc, recursive_parameters(gy, b.im.ry), "recursive parameters");
  const RecursiveGaussian gx = d.sigma_x == d.sigma_y ? gy : recursive_gaussian(d.sigma_x);
  b.im.rx.prm = constants(b.qc, recursive_parameters(gx, b.im.rx), "recursive parameters");
}

// The schemes a plan runs, and how each builds its programs and launch shapes, then its tables.
enum class Scheme { Direct, Separable, FusedSeparable, Recursive };
struct SchemeBuilder {
  void (*programs)(Build&);
  void (*tables)(Build&);
};
const SchemeBuilder kSchemeBuilders[] = {
    {build_direct, direct_tables},        // Direct
    {build_separable, separable_tables},  // Separable
    {build_fused, separable_tables},      // FusedSeparable
    {build_recursive, recursive_tables},  // Recursive
};

Scheme scheme_of(const BlurRoute& rt) {
  switch (rt.method) {
    case BlurMethod::Direct:
      return Scheme::Direct;
    case BlurMethod::Separable:
      return rt.fused ? Scheme::FusedSeparable : Scheme::Separable;
    default:
      return Scheme::Recursive;
  }
}

}  // namespace

BlurPlan BlurPlanAccess::make(const QueueContext& qc, const BlurDesc& d, const Tuning& tuning) {
  const BlurDesc desc = packed(d);
  // Every check first: nothing is built or allocated for a description that is refused.
  Resolved res = check_blur_options(desc.width, desc.height, desc.format, options_of(desc), tuning, *qc.info);
  const std::size_t in_end = image_end(desc, true), out_end = image_end(desc, false);

  auto im = std::make_shared<BlurPlan::Impl>();
  im->desc = desc;
  im->context = qc.context;
  im->device = qc.device();
  im->border = desc.border == BlurBorder::Clamp ? 0 : desc.border == BlurBorder::Mirror ? 1 : 2;
  im->px = res.channels * sizeof(float);
  lay_out_scratch(*im, res);
  // 64-bit indices when an address of the images or of the scratch can pass 2^31 - 1.
  im->long_index = std::max({in_end, out_end, im->scratch.pixels}) > kMaxInt32Index;

  Build b{qc, *im, res, tuning, im->long_index};
  const SchemeBuilder& scheme = kSchemeBuilders[static_cast<int>(scheme_of(res.route))];
  im->configs.push_back(res.blur);
  scheme.programs(b);
  if (desc.format == PixelFormat::RGBA8) build_conversion(b);
  scheme.tables(b);
  im->res = std::move(res);
  return BlurPlan(std::shared_ptr<const BlurPlan::Impl>(std::move(im)));
}

const BlurRoute& route_of(const BlurPlan& plan) { return BlurPlanAccess::impl(plan).res.route; }

}  // namespace detail

BlurPlan::BlurPlan(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

BlurPlan::BlurPlan(const cl::CommandQueue& queue, const BlurDesc& desc, const Tuning& tuning)
    : BlurPlan(detail::BlurPlanAccess::make(detail::queue_context_of(queue), desc, tuning)) {}

void BlurPlan::enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                       cl::Event* event) const {
  using namespace detail;
  require_plan_queue(kBlurRoutine, queue, impl_->context(), impl_->device);
  check_blur_buffers(impl_->desc, impl_->context, in, out, impl_->desc.height);
  impl_->run(queue, in, out, wait_list, event);
}

bool BlurPlan::writes_row_windows() const { return impl_->rows_window_supported(); }

void BlurPlan::enqueue_rows(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t first,
                            std::size_t count, const EventList& wait_list, cl::Event* event) const {
  using namespace detail;
  const BlurDesc& d = impl_->desc;
  require(writes_row_windows(), kBlurRoutine,
          "this plan cannot write a window of rows (only the separable method on float images can)");
  require(count > 0 && first < d.height && count <= d.height - first, kBlurRoutine, [&] {
    return "rows [" + std::to_string(first) + ", " + std::to_string(first) + " + " + std::to_string(count) +
           ") are not a window of the image's " + std::to_string(d.height) + " rows";
  });
  require_plan_queue(kBlurRoutine, queue, impl_->context(), impl_->device);
  check_blur_buffers(d, impl_->context, in, out, count);
  impl_->run(queue, in, out, wait_list, event, {first, count});
}

BlurMethod BlurPlan::method() const { return impl_->res.route.method; }
const BlurDesc& BlurPlan::desc() const { return impl_->desc; }
const std::vector<Configuration>& BlurPlan::configurations() const { return impl_->configs; }

std::string BlurPlan::describe() const {
  const BlurDesc& d = impl_->desc;
  char head[160];
  std::snprintf(head, sizeof head, "blur %zux%zu %s, sigma %g x %g, %s: ", d.width, d.height, to_string(d.format),
                d.sigma_x, d.sigma_y, to_string(d.border));
  return head + impl_->res.route.describe() + (impl_->long_index ? ", 64-bit indices" : "");
}

}  // namespace clforge
