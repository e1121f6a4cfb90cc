// Gaussian blur launcher: argument checks, the tuning spaces of the blur kernels, the choice of
// method, and the kernel sequence of each method (docs/blur.md has the design).
#include "clforge/blur.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

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

// ---------------------------------------------------------------- names

const char* to_string(BlurBorder b) {
  switch (b) {
    case BlurBorder::Clamp: return "clamp";
    case BlurBorder::Mirror: return "mirror";
    case BlurBorder::Zero: return "zero";
  }
  return "?";
}

const char* to_string(BlurMethod m) {
  switch (m) {
    case BlurMethod::Auto: return "auto";
    case BlurMethod::Direct: return "direct";
    case BlurMethod::Separable: return "separable";
    case BlurMethod::Recursive: return "recursive";
  }
  return "?";
}

const char* to_string(PixelFormat f) {
  switch (f) {
    case PixelFormat::R32F: return "R32F";
    case PixelFormat::RGBA32F: return "RGBA32F";
    case PixelFormat::RGBA8: return "RGBA8";
  }
  return "?";
}

BlurBorder parse_blur_border(const std::string& text) {
  const std::string t = detail::to_lower(detail::trim(text));
  for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
    if (t == to_string(b)) return b;
  throw InvalidArgument("unknown blur border '" + text + "' (known: clamp, mirror, zero)");
}

BlurMethod parse_blur_method(const std::string& text) {
  const std::string t = detail::to_lower(detail::trim(text));
  for (BlurMethod m : {BlurMethod::Auto, BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive})
    if (t == to_string(m)) return m;
  throw InvalidArgument("unknown blur method '" + text + "' (known: auto, direct, separable, recursive)");
}

std::size_t pixel_bytes(PixelFormat f) { return f == PixelFormat::RGBA32F ? 16 : 4; }

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

std::vector<int> int_range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i <= hi; ++i) v.push_back(i);
  return v;
}

std::size_t variant_pixel(const std::string& variant) { return variant == "1" ? 4 : 16; }

}  // namespace

// ---------------------------------------------------------------- tuning spaces

KernelSpec blur_spec() {
  KernelSpec s;
  s.name = "blur";
  s.files = {"blur/blur_convert.cl"};
  s.database = "db/blur.json";
  std::vector<int> recursive_sigma = int_range(5, 2000);
  recursive_sigma.insert(recursive_sigma.begin(), 0);
  std::vector<int> kpix = {0};
  for (int v = 1; v <= 65536; v *= 2) kpix.push_back(v);
  s.params = {
      {"BLUR_CV_WG", 64, {32, 64, 128, 256}, "RGBA8 conversion kernels: work-group width"},
      {"BLUR_AUTO_SIGMA_DIRECT", 10, int_range(0, 100),
       "auto: direct when the larger sigma is at most value/10 (0: never)", true},
      {"BLUR_AUTO_SIGMA_RECURSIVE", 100, recursive_sigma,
       "auto: recursive when the larger sigma is at least value/10 (0: never)", true},
      {"BLUR_AUTO_RECURSIVE_MIN_KPIX", 256, kpix, "auto: recursive only for images of at least this many Ki pixels",
       true},
  };
  s.resources = [](const ParamMap& p, const std::string&) {
    Resources r;
    r.local = {static_cast<std::size_t>(p.at("BLUR_CV_WG")), 1, 1};
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["BLUR_CV_WG"] <= 32) return std::nullopt;
    q["BLUR_CV_WG"] /= 2;
    return q;
  };
  return s;
}

KernelSpec blur_direct_spec() {
  KernelSpec s;
  s.name = "blur_direct";
  s.files = {"blur/blur_common.cl", "blur/blur_direct.cl"};
  s.database = "db/blur_direct.json";
  s.variants = {"1", "4"};
  s.params = {
      {"BLUR_D_LX", 16, {8, 16, 32, 64}, "work-group width = output tile width"},
      {"BLUR_D_LY", 8, {1, 2, 4, 8, 16, 32}, "work-group height"},
      {"BLUR_D_WPT", 1, {1, 2, 4, 8}, "output rows per work-item"},
      {"BLUR_D_LOCAL", 1, {0, 1}, "1: halo tile in local memory; 0: taps from global memory"},
  };
  s.resources = [](const ParamMap& p, const std::string& variant) {
    Resources r;
    r.local = {static_cast<std::size_t>(p.at("BLUR_D_LX")), static_cast<std::size_t>(p.at("BLUR_D_LY")), 1};
    // The halo adds 2r rows and columns at run time; the launcher checks that part per call.
    r.local_mem_bytes = p.at("BLUR_D_LOCAL") ? static_cast<std::uint64_t>(p.at("BLUR_D_LX")) * p.at("BLUR_D_LY") *
                                                   p.at("BLUR_D_WPT") * variant_pixel(variant)
                                             : 0;
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["BLUR_D_LY"] > 1) q["BLUR_D_LY"] /= 2;
    else if (q["BLUR_D_LX"] > 8) q["BLUR_D_LX"] /= 2;
    else return std::nullopt;
    return q;
  };
  return s;
}

KernelSpec blur_separable_spec() {
  KernelSpec s;
  s.name = "blur_separable";
  s.files = {"blur/blur_common.cl", "blur/blur_separable.cl"};
  s.database = "db/blur_separable.json";
  s.variants = {"1", "4"};
  s.params = {
      {"BLUR_S_ROW_LX", 64, {16, 32, 64, 128, 256}, "row pass: work-group width"},
      {"BLUR_S_ROW_LY", 1, {1, 2, 4, 8}, "row pass: image rows per work-group"},
      {"BLUR_S_ROW_VW", 1, {1, 4}, "row pass: consecutive outputs per work-item (one channel, local tiles)"},
      {"BLUR_S_COL_LX", 32, {16, 32, 64, 128}, "column pass: work-group width"},
      {"BLUR_S_COL_LY", 8, {1, 2, 4, 8, 16}, "column pass: work-group height"},
      {"BLUR_S_COL_WPT", 4, {1, 2, 4, 8, 16}, "column pass: consecutive outputs per work-item"},
      {"BLUR_S_LOCAL", 1, {0, 1}, "1: halo tiles in local memory; 0: taps from global memory"},
  };
  // The larger of the two work-groups, and the tiles without their sigma-dependent halo.
  s.resources = [](const ParamMap& p, const std::string& variant) {
    Resources r;
    const std::size_t rl = p.at("BLUR_S_ROW_LX") * p.at("BLUR_S_ROW_LY"),
                      cl = p.at("BLUR_S_COL_LX") * p.at("BLUR_S_COL_LY");
    if (rl >= cl) r.local = {static_cast<std::size_t>(p.at("BLUR_S_ROW_LX")), static_cast<std::size_t>(p.at("BLUR_S_ROW_LY")), 1};
    else r.local = {static_cast<std::size_t>(p.at("BLUR_S_COL_LX")), static_cast<std::size_t>(p.at("BLUR_S_COL_LY")), 1};
    const std::uint64_t row = static_cast<std::uint64_t>(rl) * p.at("BLUR_S_ROW_VW"),
                        col = static_cast<std::uint64_t>(cl) * p.at("BLUR_S_COL_WPT");
    r.local_mem_bytes = p.at("BLUR_S_LOCAL") ? std::max(row, col) * variant_pixel(variant) : 0;
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    const int rl = q["BLUR_S_ROW_LX"] * q["BLUR_S_ROW_LY"], cl = q["BLUR_S_COL_LX"] * q["BLUR_S_COL_LY"];
    if (rl >= cl) {
      if (q["BLUR_S_ROW_LY"] > 1) q["BLUR_S_ROW_LY"] /= 2;
      else if (q["BLUR_S_ROW_LX"] > 16) q["BLUR_S_ROW_LX"] /= 2;
      else return std::nullopt;
    } else {
      if (q["BLUR_S_COL_LY"] > 1) q["BLUR_S_COL_LY"] /= 2;
      else if (q["BLUR_S_COL_LX"] > 16) q["BLUR_S_COL_LX"] /= 2;
      else return std::nullopt;
    }
    return q;
  };
  return s;
}

KernelSpec blur_recursive_spec() {
  KernelSpec s;
  s.name = "blur_recursive";
  s.files = {"blur/blur_common.cl", "blur/blur_recursive.cl"};
  s.database = "db/blur_recursive.json";
  s.variants = {"1", "4"};
  std::vector<int> narrow = {0};
  for (int v = 64; v <= (1 << 20); v *= 2) narrow.push_back(v);
  narrow.push_back(1 << 30);
  s.params = {
      {"BLUR_R_LX", 32, {16, 32, 64, 128, 256}, "columns per work-group"},
      {"BLUR_R_BLOCK", 64, {0, 16, 32, 64, 128, 256}, "rows per block when columns are split; 0: never split"},
      {"BLUR_R_NARROW", 1 << 30, narrow,
       "split columns into blocks when the pass has fewer columns than this (0: never, 2^30: always)", true},
      {"BLUR_R_FUSE_T", 0, {0, 1}, "1: blocked passes write their output transposed (no separate transpose)"},
      {"BLUR_R_BATCH", 8, {1, 2, 4, 8, 16}, "global loads issued together ahead of the recursion"},
      {"BLUR_R_LINK_SPLIT", 1, {1, 2, 4, 8, 16},
       "blur_rec_link: work-items per column, each linking one run of blocks (chained in local memory)"},
      {"BLUR_R_LINK_BATCH", 4, {1, 2, 4, 8, 16}, "blur_rec_link: blocks whose carries are loaded together"},
      {"BLUR_R_NEXT_CARRY", 1, {0, 1},
       "1: with BLUR_R_FUSE_T and LX = BLOCK, the vertical pass also computes the horizontal pass's carries", true},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    if (p.at("BLUR_R_FUSE_T") && p.at("BLUR_R_BLOCK") == 0) return "BLUR_R_FUSE_T=1 needs BLUR_R_BLOCK > 0";
    return {};
  };
  // The largest work-group and local memory of the family: blur_rec_apply's tile, or
  // blur_rec_link's run states (LX x LINK_SPLIT work-items).
  s.resources = [](const ParamMap& p, const std::string& variant) {
    Resources r;
    const std::uint64_t lx = p.at("BLUR_R_LX"), split = p.at("BLUR_R_LINK_SPLIT");
    r.local = {static_cast<std::size_t>(lx), static_cast<std::size_t>(split), 1};
    r.local_mem_bytes = std::max<std::uint64_t>(p.at("BLUR_R_BLOCK") * (lx + 1), 3 * (split + 1) * lx) *
                        variant_pixel(variant);
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["BLUR_R_LINK_SPLIT"] > 1 && 3 * (q["BLUR_R_LINK_SPLIT"] + 1) >= q["BLUR_R_BLOCK"]) q["BLUR_R_LINK_SPLIT"] /= 2;
    else if (q["BLUR_R_BLOCK"] > 16) q["BLUR_R_BLOCK"] /= 2;
    else if (q["BLUR_R_LX"] > 16) q["BLUR_R_LX"] /= 2;
    else if (q["BLUR_R_LINK_SPLIT"] > 1) q["BLUR_R_LINK_SPLIT"] /= 2;
    else return std::nullopt;
    return q;
  };
  return s;
}

// ---------------------------------------------------------------- planning

namespace {

const char* const kBlurKernels[] = {"blur", "blur_direct", "blur_separable", "blur_recursive"};

// The overrides that belong to one blur kernel; names known to none of them are errors.
Tuning sub_tuning(const Tuning& t, const char* kernel) { return overrides_for(t, kernel); }

// Every override must belong to one of the blur kernels and be legal there, whichever
// kernels this call ends up using.
void check_overrides(const Tuning& t) {
  check_override_names("gaussian_blur", t, std::vector<std::string>(std::begin(kBlurKernels), std::end(kBlurKernels)));
}

// Everything one call needs, resolved once.
struct Resolved {
  BlurPlan plan;
  std::size_t channels = 1;  // of the float kernels (4 for RGBA8)
  Configuration blur, direct, separable, recursive;
  int rx = 0, ry = 0;
  bool row_local = true, col_local = true;
};

std::uint64_t direct_tile_bytes(const Configuration& c, int rx, int ry, std::size_t px) {
  return static_cast<std::uint64_t>(c.at("BLUR_D_LX") + 2 * rx) *
         (static_cast<std::uint64_t>(c.at("BLUR_D_LY")) * c.at("BLUR_D_WPT") + 2 * ry) * px;
}

bool separable_row_vec(const Configuration& c, std::size_t channels, bool local) {
  return local && channels == 1 && c.at("BLUR_S_ROW_VW") == 4;
}

std::uint64_t row_tile_bytes(const Configuration& c, int r, std::size_t channels, bool vec) {
  const std::uint64_t lx = c.at("BLUR_S_ROW_LX"), ly = c.at("BLUR_S_ROW_LY");
  const std::uint64_t R = vec ? (r + 3) / 4 * 4 : r;
  const std::uint64_t tw = vec ? lx * 4 + 2 * R + 4 : lx + 2 * R;
  return tw * ly * channels * 4;
}

std::uint64_t col_tile_bytes(const Configuration& c, int r, std::size_t channels) {
  return (static_cast<std::uint64_t>(c.at("BLUR_S_COL_LY")) * c.at("BLUR_S_COL_WPT") + 2 * r) * c.at("BLUR_S_COL_LX") *
         channels * 4;
}

BlurMethod auto_method(const Configuration& blur, std::size_t width, std::size_t height, double sx, double sy) {
  const double smax = std::max(sx, sy), smin = std::min(sx, sy);
  const int rec = blur.at("BLUR_AUTO_SIGMA_RECURSIVE"), dir = blur.at("BLUR_AUTO_SIGMA_DIRECT");
  const double pixels = static_cast<double>(width) * height;
  if (rec > 0 && smax * 10 >= rec - 1e-9 && smin >= 0.5 && pixels >= 1024.0 * blur.at("BLUR_AUTO_RECURSIVE_MIN_KPIX"))
    return BlurMethod::Recursive;
  if (dir > 0 && smax * 10 <= dir + 1e-9) return BlurMethod::Direct;
  return BlurMethod::Separable;
}

// The local-memory tiles of direct and separable depend on the radius, so a database row's
// BLUR_D_LOCAL / BLUR_S_LOCAL = 1 falls back to global-memory taps where a tile does not fit;
// an explicit override of 1 that cannot be honoured is an error instead.
void require_local_fits(const Tuning& tuning, const char* param, std::size_t tile_bytes, const DeviceInfo& dev) {
  const auto it = tuning.overrides.find(param);
  if (it == tuning.overrides.end() || it->second == 0 || tile_bytes <= dev.local_mem_size) return;
  throw InvalidArgument(std::string("gaussian_blur: ") + param + "=1 was asked for, but the tile needs " +
                        std::to_string(tile_bytes) + " bytes of local memory and the device has " +
                        std::to_string(dev.local_mem_size) + " (smaller sigma, or " + param + "=0)");
}

Resolved resolve(const DeviceInfo& dev, std::size_t width, std::size_t height, PixelFormat format,
                 const BlurOptions& o, const Tuning& tuning) {
  check_overrides(tuning);
  Resolved r;
  r.channels = format == PixelFormat::R32F ? 1 : 4;
  const std::string variant = std::to_string(r.channels);
  const std::size_t px = r.channels * 4;  // bytes per float pixel
  r.blur = resolve_configuration("blur", "*", dev, sub_tuning(tuning, "blur"));
  BlurMethod m = o.method;
  if (m == BlurMethod::Auto) m = auto_method(r.blur, width, height, o.sigma_x, o.sigma_y);
  r.plan.method = m;
  double bytes = 0;
  if (m == BlurMethod::Direct) {
    r.direct = resolve_configuration("blur_direct", variant, dev, sub_tuning(tuning, "blur_direct"));
    r.rx = gaussian_radius(o.sigma_x);
    r.ry = gaussian_radius(o.sigma_y);
    const std::size_t tile = direct_tile_bytes(r.direct, r.rx, r.ry, px);
    require_local_fits(tuning, "BLUR_D_LOCAL", tile, dev);
    r.row_local = r.col_local = r.direct.at("BLUR_D_LOCAL") && tile <= dev.local_mem_size;
    r.plan.local_tiles = r.row_local;
    bytes = 2.0 * px;
  } else if (m == BlurMethod::Separable) {
    r.separable = resolve_configuration("blur_separable", variant, dev, sub_tuning(tuning, "blur_separable"));
    r.rx = gaussian_radius(o.sigma_x);
    r.ry = gaussian_radius(o.sigma_y);
    const bool local = r.separable.at("BLUR_S_LOCAL") != 0;
    const std::size_t row_tile =
        row_tile_bytes(r.separable, r.rx, r.channels, separable_row_vec(r.separable, r.channels, true));
    const std::size_t col_tile = col_tile_bytes(r.separable, r.ry, r.channels);
    require_local_fits(tuning, "BLUR_S_LOCAL", std::max(row_tile, col_tile), dev);
    r.row_local = local && row_tile <= dev.local_mem_size;
    r.col_local = local && col_tile <= dev.local_mem_size;
    r.plan.local_tiles = r.row_local && r.col_local;
    bytes = 4.0 * px;
  } else {
    r.recursive = resolve_configuration("blur_recursive", variant, dev, sub_tuning(tuning, "blur_recursive"));
    const int block = r.recursive.at("BLUR_R_BLOCK"), narrow = r.recursive.at("BLUR_R_NARROW");
    const bool fuse = r.recursive.at("BLUR_R_FUSE_T") != 0;
    r.plan.blocked_y = block > 0 && width < static_cast<std::size_t>(narrow);
    r.plan.blocked_x = block > 0 && height < static_cast<std::size_t>(narrow);
    r.plan.fused_y = r.plan.blocked_y && fuse;
    r.plan.fused_x = r.plan.blocked_x && fuse;
    r.plan.carry_fused = r.plan.fused_y && r.plan.blocked_x && r.recursive.at("BLUR_R_NEXT_CARRY") != 0 &&
                         r.recursive.at("BLUR_R_LX") == block;
    for (bool blocked : {r.plan.blocked_y, r.plan.blocked_x}) bytes += (blocked ? 3.0 : 4.0) * px;
    if (r.plan.carry_fused) bytes -= 1.0 * px;
    for (bool fused : {r.plan.fused_y, r.plan.fused_x}) bytes += fused ? 0.0 : 2.0 * px;
  }
  if (format == PixelFormat::RGBA8) bytes += 2.0 * (4 + 16);  // u8 -> f32 and back
  r.plan.bytes_per_pixel = bytes;
  return r;
}

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

// ---------------------------------------------------------------- programs
// The program of each kernel of a call, from the resolved parameters alone: the launcher and
// blur_build_programs (the tuner's prebuild) compile through these, so both use one set of
// options.

// 64-bit indices when an address of the images or of the scratch (carries: 6 per pixel) can
// pass 2^31 - 1.
bool blur_long_index(std::size_t width, std::size_t height, const ImageRef& in, const ImageRef& out) {
  const char* R = "gaussian_blur";
  const std::size_t in_end = add_or_throw(in.offset, matrix_span(R, "in.pitch", height, width, in.pitch), R, "in");
  const std::size_t out_end =
      add_or_throw(out.offset, matrix_span(R, "out.pitch", height, width, out.pitch), R, "out");
  const auto pixels = mul_checked(width, height);
  const auto carries = pixels ? mul_checked(*pixels + width + height, 6) : std::nullopt;
  return !carries || std::max({in_end, out_end, *carries}) > kMaxInt32Index;
}

// Routine constants. Weights beyond the 64 KiB of __constant memory every device guarantees go
// to __global.
std::string blur_defines(const Resolved& r, bool long_index, std::size_t weight_floats = 0) {
  return "-DBLUR_C=" + std::to_string(r.channels) + (long_index ? " -DCLF_LONG_INDEX=1" : "") +
         (weight_floats * sizeof(float) > 65536 ? " -DBLUR_WEIGHTS_GLOBAL=1" : "");
}

// Taps of a truncated Gaussian of radius r (gaussian_weights).
std::size_t taps(int r) { return 2 * static_cast<std::size_t>(r) + 1; }

Configuration direct_config(const Resolved& r) {
  Configuration cfg = r.direct;
  cfg.values["BLUR_D_LOCAL"] = r.row_local ? 1 : 0;
  return cfg;
}

cl::Program direct_program(const QueueContext& qc, const Resolved& r, bool long_index) {
  return get_program(qc, kernel_spec("blur_direct"), direct_config(r),
                     blur_defines(r, long_index, taps(r.rx) + taps(r.ry)));
}

// Separable passes: `row` selects the row pass (else the column pass).
Configuration separable_config(const Resolved& r, bool row) {
  Configuration cfg = r.separable;
  cfg.values["BLUR_S_LOCAL"] = (row ? r.row_local : r.col_local) ? 1 : 0;
  return cfg;
}

// Row weights of the float4 path: zero-padded to 2R + 4 taps, R = rx rounded up to a multiple of 4.
int row_vec_radius(int rx) { return (rx + 3) / 4 * 4; }

cl::Program separable_program(const QueueContext& qc, const Resolved& r, bool long_index, bool row) {
  const Configuration cfg = separable_config(r, row);
  std::size_t weights = taps(row ? r.rx : r.ry);
  if (row && separable_row_vec(cfg, r.channels, r.row_local))
    weights = 2 * static_cast<std::size_t>(row_vec_radius(r.rx)) + 4;
  return get_program(qc, kernel_spec("blur_separable"), cfg, blur_defines(r, long_index, weights));
}

// Recursive passes, with or without the transposed (fused) block store.
cl::Program recursive_program(const QueueContext& qc, const Resolved& r, bool long_index, bool fused) {
  Configuration cfg = r.recursive;
  cfg.values["BLUR_R_FUSE_T"] = fused ? 1 : 0;
  return get_program(qc, kernel_spec("blur_recursive"), cfg, blur_defines(r, long_index));
}

// The RGBA8 conversion kernels.
cl::Program conversion_program(const QueueContext& qc, const Resolved& r, bool long_index) {
  return get_program(qc, kernel_spec("blur"), r.blur, long_index ? "-DCLF_LONG_INDEX=1" : "");
}

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

void check_sigma(const char* R, const char* name, double s, BlurMethod m) {
  require(std::isfinite(s) && s > 0 && s <= 4096, R,
          std::string(name) + " must be in (0, 4096] (got " + std::to_string(s) + ")");
  require(m != BlurMethod::Recursive || s >= 0.5, R,
          std::string(name) + " = " + std::to_string(s) + " is below 0.5, the smallest sigma of the recursive method");
}

// Every check of a call that needs no buffer (sizes, format, method, border, sigmas, tuning
// overrides), then the resolved configuration: shared by the buffer and host-vector forms.
Resolved check_blur_options(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                            const Tuning& tuning, const DeviceInfo& dev) {
  const char* R = "gaussian_blur";
  require(width >= 1 && height >= 1, R,
          "width and height must be at least 1 (got " + std::to_string(width) + " x " + std::to_string(height) + ")");
  require(width <= (1u << 30) && height <= (1u << 30), R, "width and height must be at most 2^30");
  require(options.method == BlurMethod::Auto || options.method == BlurMethod::Direct ||
              options.method == BlurMethod::Separable || options.method == BlurMethod::Recursive,
          R, "unknown blur method (" + std::to_string(static_cast<int>(options.method)) + ")");
  require(format == PixelFormat::R32F || format == PixelFormat::RGBA32F || format == PixelFormat::RGBA8, R,
          "unknown pixel format (" + std::to_string(static_cast<int>(format)) + ")");
  check_sigma(R, "sigma_x", options.sigma_x, options.method);
  check_sigma(R, "sigma_y", options.sigma_y, options.method);
  require(options.border == BlurBorder::Clamp || options.border == BlurBorder::Mirror ||
              options.border == BlurBorder::Zero,
          R, "unknown border mode (" + std::to_string(static_cast<int>(options.border)) + ")");
  const Resolved res = resolve(dev, width, height, format, options, tuning);
  check_sigma(R, "sigma_x", options.sigma_x, res.plan.method);
  check_sigma(R, "sigma_y", options.sigma_y, res.plan.method);
  return res;
}

}  // namespace

BlurPlan plan_blur(const DeviceInfo& device, std::size_t width, std::size_t height, PixelFormat format,
                   const BlurOptions& options, const Tuning& tuning) {
  return resolve(device, width, height, format, options, tuning).plan;
}

void blur_build_programs(const QueueContext& qc, std::size_t width, std::size_t height, PixelFormat format,
                         const ImageRef& in, const ImageRef& out, const BlurOptions& options, const Tuning& tuning) {
  const Resolved r = resolve(*qc.info, width, height, format, options, tuning);
  const bool long_index = blur_long_index(width, height, in, out);
  switch (r.plan.method) {
    case BlurMethod::Direct: direct_program(qc, r, long_index); break;
    case BlurMethod::Separable:
      separable_program(qc, r, long_index, true);
      separable_program(qc, r, long_index, false);
      break;
    default:
      if (r.plan.fused_y || r.plan.fused_x) recursive_program(qc, r, long_index, true);
      if (!r.plan.fused_y || !r.plan.fused_x) recursive_program(qc, r, long_index, false);
      break;
  }
  if (format == PixelFormat::RGBA8) conversion_program(qc, r, long_index);
}

std::string BlurPlan::describe() const {
  std::string s = to_string(method);
  if (method == BlurMethod::Recursive) {
    auto pass = [](bool blocked, bool fused) {
      return std::string(blocked ? "blocked" : "whole columns") + (fused ? "+fused transpose" : "+transpose");
    };
    s += " (vertical: " + pass(blocked_y, fused_y) + ", horizontal: " + pass(blocked_x, fused_x) +
         (carry_fused ? ", its carries from the vertical pass)" : ")");
  } else if (!local_tiles) {
    s += " (global-memory taps)";
  }
  return s;
}

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
