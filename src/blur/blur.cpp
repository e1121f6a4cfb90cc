// Gaussian blur launcher: the workspace, the kernel sequence of each method and the entry points
// (names and tuning spaces in blur_specs.cpp, resolution and programs in blur_resolve.cpp;
// docs/blur.md has the design).
#include "clforge/blur.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "blur/blur_internal.hpp"
#include "blur/blur_plan.hpp"
#include "clforge/transpose.hpp"
#include "blur/blur_design.hpp"
#include "runtime/errors.hpp"
#include "runtime/launch.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/util.hpp"
#include "tuning/spec.hpp"

namespace clforge {

cl::Buffer BlurWorkspace::get(const cl::Context& context, int slot, std::size_t bytes) {
  if (slot < 0 || slot >= kSlots)
    throw InvalidArgument("BlurWorkspace: slot " + std::to_string(slot) + " is not 0.." + std::to_string(kSlots - 1));
  if (context() != context_) {
    for (int i = 0; i < kSlots; ++i) {
      buffers_[i] = cl::Buffer();
      sizes_[i] = 0;
    }
    context_ = context();
  }
  bytes = std::max<std::size_t>(bytes, 16);
  if (sizes_[slot] < bytes) {
    buffers_[slot] = cl::Buffer();  // release first: the old and new buffer need not coexist
    buffers_[slot] = detail::device_buffer(context, CL_MEM_READ_WRITE, bytes, "blur workspace");
    sizes_[slot] = bytes;
  }
  return buffers_[slot];
}

namespace detail {
namespace {

// Scratch slots: intermediate images, the carry buffers (the horizontal pass's own when the
// vertical pass writes it), RGBA8 conversions (float4 copies).
enum Slot { kTmp = 0, kTmp2 = 1, kCarry = 2, kConv = 3, kCarryNext = 4 };


// ---------------------------------------------------------------- launching

// Kernel arguments in order, with element indices as int or long to match CLF_LONG_INDEX.
class PosArgs {
 public:
  PosArgs(cl::Kernel& k, bool long_index) : k_(k), long_(long_index) {}
  PosArgs& buf(const cl::Buffer& b) { return set(b); }
  PosArgs& i32(long v) { return set(static_cast<cl_int>(v)); }
  PosArgs& idx(std::size_t v) { return long_ ? set(static_cast<cl_long>(v)) : set(static_cast<cl_int>(v)); }
  PosArgs& local(std::size_t bytes) { return set(cl::Local(std::max<std::size_t>(bytes, 16))); }

 private:
  template <typename T>
  PosArgs& set(const T& v) {
    const cl_int st = k_.setArg(i_, v);
    if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "argument " + std::to_string(i_));
    ++i_;
    return *this;
  }
  cl::Kernel& k_;
  bool long_;
  cl_uint i_ = 0;
};

// Enqueues in order, each command waiting for the previous one (correct on out-of-order queues).
class BlurChain {
 public:
  BlurChain(cl::CommandQueue& q, const EventList& waits) : q_(q), waits_(waits) {}
  void kernel(const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local) {
    cl::Event e;
    launch(q_, k, global, local, &waits_, &e);
    waits_.assign(1, e);
  }
  void transpose(std::size_t rows, std::size_t cols, std::size_t elem, const MatrixRef& in, const MatrixRef& out,
                 bool user_database) {
    cl::Event e;
    clforge::transpose(q_, rows, cols, elem, in, out, waits_, &e, Tuning{{}, user_database});
    waits_.assign(1, e);
  }
  cl::Event last() const { return waits_.empty() ? cl::Event() : waits_.front(); }

 private:
  cl::CommandQueue& q_;
  EventList waits_;
};

struct Img {
  cl::Buffer buffer;
  std::size_t offset, pitch;
};

// One call in flight.
struct Call {
  cl::CommandQueue& queue;
  QueueContext qc;
  std::size_t width, height;
  const BlurOptions& opt;
  const Tuning& tuning;
  const Resolved& res;
  BlurChain chain;
  bool long_index;
  int border;
  std::size_t px() const { return res.channels * 4; }
  cl::Buffer scratch(int slot, std::size_t bytes, const char* what) const {
    if (opt.workspace != nullptr) return opt.workspace->get(qc.context, slot, bytes);
    return device_buffer(qc.context, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 16), std::string("blur ") + what);
  }
  cl::Buffer constants(const std::vector<float>& v, const char* what) const {
    return constant_buffer(qc.context, v.data(), v.size() * sizeof(float), std::string("blur ") + what);
  }
};

// ---------------------------------------------------------------- launching the methods

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

void run_direct(Call& c, const Img& in, const Img& out) {
  const Resolved& r = c.res;
  const Configuration cfg = direct_config(r);
  std::vector<float> w = to_float(gaussian_weights(c.opt.sigma_x));
  const std::vector<float> gy = to_float(gaussian_weights(c.opt.sigma_y));
  w.insert(w.end(), gy.begin(), gy.end());
  const cl::Buffer wbuf = c.constants(w, "direct weights");
  const cl::Program prog = direct_program(c.qc, r, c.long_index);
  cl::Kernel k = get_kernel(prog, "blur_direct");
  const std::size_t lx = cfg.at("BLUR_D_LX"), ly = cfg.at("BLUR_D_LY"), ty = ly * cfg.at("BLUR_D_WPT");
  PosArgs(k, c.long_index)
      .i32(c.width).i32(c.height).i32(c.border).i32(r.rx).i32(r.ry).buf(wbuf)
      .buf(in.buffer).idx(in.offset).idx(in.pitch).buf(out.buffer).idx(out.offset).idx(out.pitch)
      .local(r.row_local ? direct_tile_bytes(cfg, r.rx, r.ry, c.px()) : 16);
  c.chain.kernel(k, cl::NDRange(round_up(c.width, lx), ceil_div(c.height, ty) * ly), cl::NDRange(lx, ly));
}

void run_separable(Call& c, const Img& in, const Img& out) {
  const Resolved& r = c.res;
  const cl::Buffer tmp = c.scratch(kTmp, c.width * c.height * c.px(), "intermediate image");
  // Row pass.
  {
    const Configuration cfg = separable_config(r, true);
    const bool vec = separable_row_vec(cfg, r.channels, r.row_local);
    const std::vector<double> g = gaussian_weights(c.opt.sigma_x);
    std::vector<float> w;
    if (vec) {
      const int R = row_vec_radius(r.rx);
      w.assign(2 * R + 4, 0.0f);
      for (int k = 0; k <= 2 * r.rx; ++k) w[R - r.rx + k] = static_cast<float>(g[k]);
    } else {
      w = to_float(g);
    }
    const cl::Buffer wbuf = c.constants(w, "row weights");
    const cl::Program prog = separable_program(c.qc, r, c.long_index, true);
    cl::Kernel k = get_kernel(prog, "blur_rows");
    const std::size_t lx = cfg.at("BLUR_S_ROW_LX"), ly = cfg.at("BLUR_S_ROW_LY"), tx = lx * (vec ? 4 : 1);
    PosArgs(k, c.long_index)
        .i32(c.width).i32(c.height).i32(c.border).i32(r.rx).buf(wbuf)
        .buf(in.buffer).idx(in.offset).idx(in.pitch).buf(tmp).idx(0).idx(c.width)
        .local(r.row_local ? row_tile_bytes(cfg, r.rx, r.channels, vec) : 16);
    c.chain.kernel(k, cl::NDRange(ceil_div(c.width, tx) * lx, round_up(c.height, ly)), cl::NDRange(lx, ly));
  }
  // Column pass.
  {
    const Configuration cfg = separable_config(r, false);
    const std::vector<float> w = to_float(gaussian_weights(c.opt.sigma_y));
    const cl::Buffer wbuf = c.constants(w, "column weights");
    const cl::Program prog = separable_program(c.qc, r, c.long_index, false);
    cl::Kernel k = get_kernel(prog, "blur_cols");
    const std::size_t lx = cfg.at("BLUR_S_COL_LX"), ly = cfg.at("BLUR_S_COL_LY"), ty = ly * cfg.at("BLUR_S_COL_WPT");
    PosArgs(k, c.long_index)
        .i32(c.width).i32(c.height).i32(c.border).i32(r.ry).buf(wbuf)
        .buf(tmp).idx(0).idx(c.width).buf(out.buffer).idx(out.offset).idx(out.pitch)
        .local(r.col_local ? col_tile_bytes(cfg, r.ry, r.channels) : 16);
    c.chain.kernel(k, cl::NDRange(round_up(c.width, lx), ceil_div(c.height, ty) * ly), cl::NDRange(lx, ly));
  }
}

// The parameter buffer of one recursive pass (layout in cl/blur/blur_recursive.cl).
std::vector<float> compute_recursive_parameters(const RecursiveGaussian& g, int K, int L, int last, int q,
                                                int qlast) {
  const int G = std::max(L, K);
  std::vector<float> p(76 + 3 * static_cast<std::size_t>(G), 0.0f);
  p[0] = static_cast<float>(g.k1);
  p[1] = static_cast<float>(g.g2);
  p[2] = static_cast<float>(g.c2);
  auto put = [&](std::size_t at, const Mat3& m) {
    for (int i = 0; i < 9; ++i) p[at + i] = static_cast<float>(m[i]);
  };
  put(4, recursive_boundary(g));
  put(13, recursive_transition(g, K));
  if (L > 0) {
    put(22, recursive_transition(g, L));
    put(31, recursive_transition(g, last));
    put(40, recursive_cross(g, L));
    put(49, recursive_cross(g, last));
    put(58, recursive_transition(g, L * q));
    put(67, recursive_transition(g, L * (qlast - 1) + last));
  }
  const std::vector<double> t = recursive_impulse_table(g, G);
  for (std::size_t i = 0; i < t.size(); ++i) p[76 + i] = static_cast<float>(t[i]);
  return p;
}

// The same, remembered per (sigma, K, L, last): the tables cost more host time than a call's
// launches (about 0.1 ms), and calls usually repeat their sigmas.
std::vector<float> recursive_parameters(double sigma, int K, int L, int last, int q, int qlast) {
  using Key = std::tuple<double, int, int, int, int, int>;
  static std::mutex mutex;
  static std::map<Key, std::vector<float>> memo;
  const Key key{sigma, K, L, last, q, qlast};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  std::vector<float> p = compute_recursive_parameters(recursive_gaussian(sigma), K, L, last, q, qlast);
  std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() >= 256) memo.clear();
  memo.emplace(key, p);
  return p;
}

// The constants of one recursive pass over n rows: margin K, block length L (0: whole
// columns), blocks and the length of the last, blocks per run of the link kernel and of its
// last run, the parameter buffer.
struct RecPass {
  int K = 0, L = 0, last = 0, q = 0, qlast = 0;
  std::size_t nb = 1;
  cl::Buffer prm;
};

RecPass rec_pass(Call& c, std::size_t n, double sigma, bool blocked) {
  RecPass p;
  p.K = recursive_margin(sigma, c.opt.border);
  if (blocked) {
    p.L = c.res.recursive.at("BLUR_R_BLOCK");
    p.nb = ceil_div(n, p.L);
    p.last = static_cast<int>(n - (p.nb - 1) * p.L);
    p.q = static_cast<int>(ceil_div(p.nb, c.res.recursive.at("BLUR_R_LINK_SPLIT")));
    p.qlast = static_cast<int>(p.nb - (ceil_div(p.nb, p.q) - 1) * p.q);
  }
  p.prm = c.constants(recursive_parameters(sigma, p.K, p.L, p.last, p.q, p.qlast), "recursive parameters");
  return p;
}

// The following pass whose carries a pass's apply kernel also fills (plan.carry_fused): its
// constants and its carry buffer. Empty (rp null): the apply kernel writes no carries.
struct NextPass {
  const RecPass* rp = nullptr;
  cl::Buffer carry;
};

// One vertical recursive pass over n rows x cols columns of `in`; writes `out` in the same
// layout, or transposed when the program has BLUR_R_FUSE_T (a blocked pass only). The block
// carries go to `carry`; with `have_carries` the previous pass already filled them there and
// this pass's carry kernel is skipped; with `next` its apply kernel fills the next pass's.
void recursive_pass(Call& c, const cl::Program& prog, std::size_t n, std::size_t cols, const RecPass& rp, const Img& in,
                    const Img& out, const cl::Buffer& carry, bool have_carries, const NextPass& next) {
  const std::size_t lx = c.res.recursive.at("BLUR_R_LX");
  if (rp.L == 0) {
    cl::Kernel k = get_kernel(prog, "blur_rec_cols");
    PosArgs(k, c.long_index)
        .i32(n).i32(cols).i32(c.border).i32(rp.K).buf(rp.prm)
        .buf(in.buffer).idx(in.offset).idx(in.pitch).buf(out.buffer).idx(out.offset).idx(out.pitch);
    c.chain.kernel(k, cl::NDRange(round_up(cols, lx)), cl::NDRange(lx));
    return;
  }
  if (!have_carries) {
    cl::Kernel carry_k = get_kernel(prog, "blur_rec_carry");
    PosArgs(carry_k, c.long_index).i32(n).i32(cols).buf(rp.prm).buf(in.buffer).idx(in.offset).idx(in.pitch).buf(carry);
    c.chain.kernel(carry_k, cl::NDRange(round_up(cols, lx), rp.nb), cl::NDRange(lx, 1));
  }
  cl::Kernel link = get_kernel(prog, "blur_rec_link");
  PosArgs(link, c.long_index)
      .i32(n).i32(cols).i32(rp.nb).i32(rp.q).i32(c.border).i32(rp.K).buf(rp.prm)
      .buf(in.buffer).idx(in.offset).idx(in.pitch).buf(carry);
  const std::size_t split = c.res.recursive.at("BLUR_R_LINK_SPLIT");
  c.chain.kernel(link, cl::NDRange(round_up(cols, lx), split), cl::NDRange(lx, split));
  cl::Kernel apply = get_kernel(prog, "blur_rec_apply");
  PosArgs(apply, c.long_index)
      .i32(n).i32(cols).buf(rp.prm).buf(in.buffer).idx(in.offset).idx(in.pitch).buf(carry)
      .buf(out.buffer).idx(out.offset).idx(out.pitch)
      .i32(next.rp != nullptr).buf(next.rp != nullptr ? next.rp->prm : rp.prm).buf(next.rp != nullptr ? next.carry : carry);
  c.chain.kernel(apply, cl::NDRange(round_up(cols, lx), rp.nb), cl::NDRange(lx, 1));
}

void run_recursive(Call& c, const Img& in, const Img& out) {
  const Resolved& r = c.res;
  const BlurPlan& p = r.plan;
  const std::size_t W = c.width, H = c.height, px = c.px();
  // The program of each store kind, looked up once per call (both passes usually share one).
  cl::Program programs[2];
  auto program = [&](bool fused) -> const cl::Program& {
    cl::Program& p = programs[fused ? 1 : 0];
    if (p() == nullptr) p = recursive_program(c.qc, r, c.long_index, fused);
    return p;
  };
  const RecPass ry = rec_pass(c, H, c.opt.sigma_y, p.blocked_y), rx = rec_pass(c, W, c.opt.sigma_x, p.blocked_x);
  auto carry_buffer = [&](int slot, const RecPass& rp, std::size_t cols) {
    return c.scratch(slot, (rp.L > 0 ? rp.nb * 6 * cols : 4) * px, "carry buffer");
  };
  const cl::Buffer carry_y = carry_buffer(kCarry, ry, W);
  const cl::Buffer carry_x = p.carry_fused ? carry_buffer(kCarryNext, rx, H) : carry_buffer(kCarry, rx, H);
  const cl::Buffer tmp = c.scratch(kTmp, W * H * px, "intermediate image");  // W x H (transposed)
  const Img t{tmp, 0, H};
  // Vertical pass (sigma_y), ending transposed in tmp.
  if (p.fused_y) {
    recursive_pass(c, program(true), H, W, ry, in, t, carry_y, false,
                   p.carry_fused ? NextPass{&rx, carry_x} : NextPass{});
  } else {
    recursive_pass(c, program(false), H, W, ry, in, out, carry_y, false, {});
    c.chain.transpose(H, W, px, {out.buffer, out.offset, out.pitch}, {tmp, 0, H}, c.tuning.user_database);
  }
  // Horizontal pass (sigma_x) as a vertical pass of the transposed image, transposed back.
  if (p.fused_x) {
    recursive_pass(c, program(true), W, H, rx, t, out, carry_x, p.carry_fused, {});
  } else {
    const cl::Buffer tmp2 = c.scratch(kTmp2, W * H * px, "second intermediate image");
    recursive_pass(c, program(false), W, H, rx, t, Img{tmp2, 0, H}, carry_x, p.carry_fused, {});
    c.chain.transpose(W, H, px, {tmp2, 0, H}, {out.buffer, out.offset, out.pitch}, c.tuning.user_database);
  }
}

void run_method(Call& c, const Img& in, const Img& out) {
  switch (c.res.plan.method) {
    case BlurMethod::Direct: run_direct(c, in, out); break;
    case BlurMethod::Separable: run_separable(c, in, out); break;
    default: run_recursive(c, in, out); break;
  }
}

}  // namespace

}  // namespace detail

BlurMethod gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                         const ImageRef& in, const ImageRef& out, const BlurOptions& options,
                         const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  const char* R = "gaussian_blur";
  const QueueContext qc = queue_context_of(queue);
  const Resolved res = check_blur_options(width, height, format, options, tuning, *qc.info);
  require(in.pitch >= width, R,
          "in.pitch (" + std::to_string(in.pitch) + ") is smaller than the width (" + std::to_string(width) + ")");
  require(out.pitch >= width, R,
          "out.pitch (" + std::to_string(out.pitch) + ") is smaller than the width (" + std::to_string(width) + ")");
  const std::size_t pb = pixel_bytes(format);
  require_extent(R, "in", in.buffer, in.offset, matrix_span(R, "in.pitch", height, width, in.pitch), pb);
  require_extent(R, "out", out.buffer, out.offset, matrix_span(R, "out.pitch", height, width, out.pitch), pb);
  require(in.buffer() != out.buffer(), R, "in and out must be different buffers (the blur is out-of-place)");

  const std::size_t pixels = width * height;
  const bool long_index = blur_long_index(width, height, in, out);
  const int border = options.border == BlurBorder::Clamp ? 0 : options.border == BlurBorder::Mirror ? 1 : 2;
  Call c{queue, qc, width, height, options, tuning, res, BlurChain(queue, wait_list), long_index, border};

  if (format == PixelFormat::RGBA8) {
    const cl::Buffer conv = c.scratch(kConv, 2 * pixels * 16, "float4 copies of the RGBA8 image");
    const Img a{conv, 0, width}, b{conv, pixels, width};
    const cl::Program prog = conversion_program(qc, res, long_index);
    const std::size_t wg = res.blur.at("BLUR_CV_WG");
    const cl::NDRange global(round_up(width, wg), height), local(wg, 1);
    cl::Kernel to_f = get_kernel(prog, "blur_u8_to_f32");
    PosArgs(to_f, long_index).i32(width).i32(height).buf(in.buffer).idx(in.offset).idx(in.pitch)
        .buf(a.buffer).idx(a.offset).idx(a.pitch);
    c.chain.kernel(to_f, global, local);
    run_method(c, a, b);
    cl::Kernel to_u = get_kernel(prog, "blur_f32_to_u8");
    PosArgs(to_u, long_index).i32(width).i32(height).buf(b.buffer).idx(b.offset).idx(b.pitch)
        .buf(out.buffer).idx(out.offset).idx(out.pitch);
    c.chain.kernel(to_u, global, local);
  } else {
    run_method(c, Img{in.buffer, in.offset, in.pitch}, Img{out.buffer, out.offset, out.pitch});
  }
  if (event != nullptr) *event = c.chain.last();
  return res.plan.method;
}

BlurMethod resolve_blur_method(const cl::CommandQueue& queue, std::size_t width, std::size_t height,
                               PixelFormat format, double sigma_x, double sigma_y, const Tuning& tuning) {
  BlurOptions o;
  o.sigma_x = sigma_x;
  o.sigma_y = sigma_y;
  return detail::plan_blur(*detail::queue_context_of(queue).info, width, height, format, o, tuning).method;
}

std::vector<float> gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, std::size_t channels,
                                 const std::vector<float>& in, const BlurOptions& options, const Tuning& tuning) {
  using namespace detail;
  const char* R = "gaussian_blur";
  require(channels == 1 || channels == 4, R, "channels must be 1 or 4 (got " + std::to_string(channels) + ")");
  // Sizes, options and tuning (method, sigmas, overrides), then the vector, before anything is allocated.
  const QueueContext qc = queue_context_of(queue);
  const PixelFormat f = channels == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  check_blur_options(width, height, f, options, tuning, *qc.info);
  const std::size_t floats =
      mul_or_throw(mul_or_throw(width, height, R, "width * height"), channels, R, "width * height * channels");
  require(in.size() == floats, R,
          "host vector holds " + std::to_string(in.size()) + " floats, width*height*channels is " +
              std::to_string(floats));
  const std::size_t bytes = floats * sizeof(float);
  const cl::Buffer bin = upload(qc.context, CL_MEM_READ_ONLY, in.data(), bytes, "blur input");
  const cl::Buffer bout = device_buffer(qc.context, CL_MEM_READ_WRITE, bytes, "blur output");
  cl::Event done;
  gaussian_blur(queue, width, height, f, {bin, 0, width}, {bout, 0, width}, options, {}, &done, tuning);
  std::vector<float> out(in.size());
  download(queue, bout, bytes, out.data(), {done}, "blur output");
  return out;
}

}  // namespace clforge
