// Blur resolution: checks that need no buffer, the method and configuration of a plan, the
// local-tile fit, and the program of each kernel.
#include <algorithm>
#include <cmath>

#include "blur/blur_design.hpp"
#include "blur/blur_internal.hpp"
#include "runtime/errors.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

namespace {

const char* const kBlurKernels[] = {"blur", "blur_direct", "blur_separable", "blur_recursive"};

// The overrides that belong to one blur kernel; names known to none of them are errors.
Tuning sub_tuning(const Tuning& t, const char* kernel) { return overrides_for(t, kernel); }

// Every override must belong to one of the blur kernels and be legal there, whichever
// kernels this call ends up using.
void check_overrides(const Tuning& t) {
  if (t.overrides.empty()) return;
  check_override_names("gaussian_blur", t, std::vector<std::string>(std::begin(kBlurKernels), std::end(kBlurKernels)));
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
  throw InvalidArgument(std::string("gaussian_blur: ") + param + "=" + std::to_string(it->second) +
                        " was asked for, but the tile needs " + std::to_string(tile_bytes) +
                        " bytes of local memory and the device has " + std::to_string(dev.local_mem_size) +
                        " (a smaller sigma, or " + param + "=0)");
}

// Routine constants. Weights beyond the 64 KiB of __constant memory every device guarantees go
// to __global.
std::string blur_defines(const Resolved& r, bool long_index, std::size_t weight_floats = 0) {
  return "-DBLUR_C=" + std::to_string(r.channels) + (long_index ? " -DCLF_LONG_INDEX=1" : "") +
         (weight_floats * sizeof(float) > 65536 ? " -DBLUR_WEIGHTS_GLOBAL=1" : "");
}

// Taps of a truncated Gaussian of radius r (gaussian_weights).
std::size_t taps(int r) { return 2 * static_cast<std::size_t>(r) + 1; }

void check_sigma(const char* routine, const char* name, double s, BlurMethod m) {
  require(std::isfinite(s) && s > 0 && s <= 4096, routine,
          [&] { return std::string(name) + " must be in (0, 4096] (got " + std::to_string(s) + ")"; });
  require(m != BlurMethod::Recursive || s >= 0.5, routine, [&] {
    return std::string(name) + " = " + std::to_string(s) + " is below 0.5, the smallest sigma of the recursive method";
  });
}

// The recursive method's configuration: the scheme chosen by the family's row (variant C), then
// that scheme's row (C:scheme, which falls back to C's) with the family's route parameters, so
// that a scheme's row tunes how the scheme runs, never which scheme runs; the block size of a
// blocked or fused scheme is its own row's, tuned with its other parameters (the family's job
// picks a block size for its own work-groups and links). Sets the route's blocked and fused
// passes.
Configuration resolve_recursive(const DeviceInfo& dev, std::size_t width, std::size_t height, std::size_t channels,
                                const Tuning& tuning, BlurRoute& route) {
  const Configuration family = resolve_configuration("blur_recursive", std::to_string(channels), dev, tuning);
  const int block = family.at("BLUR_R_BLOCK"), narrow = family.at("BLUR_R_NARROW");
  const bool fuse = family.at("BLUR_R_FUSE_T") != 0;
  route.blocked_y = block > 0 && width < static_cast<std::size_t>(narrow);
  route.blocked_x = block > 0 && height < static_cast<std::size_t>(narrow);
  route.fused_y = route.blocked_y && fuse;
  route.fused_x = route.blocked_x && fuse;
  Configuration scheme =
      resolve_configuration("blur_recursive", recursive_variant(channels, recursive_scheme(route)), dev, tuning);
  const int scheme_block = scheme.values.at("BLUR_R_BLOCK");
  for (const char* p : kRecursiveRouteParams) {
    if (std::string(p) == "BLUR_R_BLOCK" && block > 0 && scheme_block > 0) continue;
    scheme.values[p] = family.values.at(p);
    scheme.sources[p] = family.sources.count(p) ? family.sources.at(p) : "";
  }
  // A scheme's row whose tiles do not fit with the family's blocks leaves the family's row to run.
  return fit_problem(kernel_spec("blur_recursive"), scheme.values, scheme.variant, dev).empty() ? scheme : family;
}

}  // namespace

const char* recursive_scheme(const BlurRoute& route) {
  if (route.fused_y || route.fused_x) return "fused";
  return route.blocked_y || route.blocked_x ? "blocked" : "whole";
}

std::string recursive_variant(std::size_t channels, const std::string& scheme) {
  return std::to_string(channels) + ":" + scheme;
}

ParamMap force_recursive_scheme(ParamMap p, const std::string& scheme) {
  if (scheme == "whole") {
    p["BLUR_R_BLOCK"] = 0;
    p["BLUR_R_FUSE_T"] = 0;
    return p;
  }
  if (p["BLUR_R_BLOCK"] == 0) p["BLUR_R_BLOCK"] = 64;
  p["BLUR_R_NARROW"] = 1 << 30;
  p["BLUR_R_FUSE_T"] = scheme == "fused" ? 1 : 0;
  return p;
}

namespace {
// A database row fuses where the halo rows add at most a quarter to the row pass's work (8 ry <=
// the group's output rows): beyond, the two passes were faster (development machine, 2048^2:
// sigma 20 31.2 against 45.1 ms, sigma 30 75.2 against 88.5; sigma 10 fused 13.0 against 14.4).
bool fused_halo_ok(const Configuration& c, int ry) { return 8 * static_cast<std::size_t>(ry) <= fused_rows(c); }
}  // namespace

ParamMap as_row_runs(ParamMap p, BlurMethod method, int rx, int ry, std::size_t channels, const DeviceInfo& dev) {
  Configuration c;
  c.values = p;
  const std::uint64_t local = dev.local_mem_size;
  const auto on = [&p](const char* name) { return p.count(name) != 0 && p.at(name) != 0; };
  if (method == BlurMethod::Direct && on("BLUR_D_LOCAL") && direct_tile_bytes(c, rx, ry, channels * 4) > local)
    p["BLUR_D_LOCAL"] = 0;
  if (method != BlurMethod::Separable) return p;
  if (on("BLUR_S_FUSED") && (fused_tile_bytes(c, ry, channels) > local || !fused_halo_ok(c, ry))) p["BLUR_S_FUSED"] = 0;
  if (!on("BLUR_S_FUSED") && on("BLUR_S_LOCAL") &&
      std::max(row_tile_bytes(c, rx, channels, separable_row_vec(c, channels, true)), col_tile_bytes(c, ry, channels)) >
          local)
    p["BLUR_S_LOCAL"] = 0;
  return p;
}

std::uint64_t direct_tile_bytes(const Configuration& c, int rx, int ry, std::size_t px) {
  return static_cast<std::uint64_t>(c.at("BLUR_D_LX") + 2 * rx) *
         (static_cast<std::uint64_t>(c.at("BLUR_D_LY")) * c.at("BLUR_D_WPT") + 2 * ry) * px;
}

bool separable_row_vec(const Configuration& c, std::size_t channels, bool local) {
  return local && channels == 1 && c.at("BLUR_S_ROW_VW") == 4;
}

std::size_t separable_row_outputs(const Configuration& c, std::size_t channels, bool local) {
  if (channels != 1) return 1;
  return local ? (separable_row_vec(c, channels, local) ? 4 : 1) : static_cast<std::size_t>(c.at("BLUR_S_ROW_VW"));
}

std::size_t separable_col_columns(const Configuration& c, std::size_t channels, bool local) {
  return channels == 1 && !local ? static_cast<std::size_t>(c.at("BLUR_S_COL_VW")) : 1;
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

std::size_t fused_rows(const Configuration& c) {
  const std::size_t wpt = c.at("BLUR_S_COL_WPT");
  return ceil_div(static_cast<std::size_t>(c.at("BLUR_S_FUSED")), wpt) * wpt;
}

std::uint64_t fused_tile_bytes(const Configuration& c, int ry, std::size_t channels) {
  return (static_cast<std::uint64_t>(fused_rows(c)) + 2 * ry) * c.at("BLUR_S_COL_LX") *
         separable_col_columns(c, channels, false) * channels * 4;
}

std::uint64_t fused_tiles(const Configuration& c, std::size_t width, std::size_t height, std::size_t channels) {
  if (c.at("BLUR_S_FUSED") <= 0) return 0;
  const std::size_t columns =
      static_cast<std::size_t>(c.at("BLUR_S_COL_LX")) * separable_col_columns(c, channels, false);
  return static_cast<std::uint64_t>(ceil_div(width, columns)) * ceil_div(height, fused_rows(c));
}

Resolved resolve(const DeviceInfo& dev, std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& o,
                 const Tuning& tuning) {
  check_overrides(tuning);
  Resolved r;
  r.channels = format == PixelFormat::R32F ? 1 : 4;
  const std::string variant = std::to_string(r.channels);
  const std::size_t px = r.channels * 4;  // bytes per float pixel
  r.blur = resolve_configuration("blur", "*", dev, sub_tuning(tuning, "blur"));
  BlurMethod m = o.method;
  if (m == BlurMethod::Auto) m = auto_method(r.blur, width, height, o.sigma_x, o.sigma_y);
  r.route.method = m;
  double bytes = 0;
  if (m == BlurMethod::Direct) {
    r.direct = resolve_configuration("blur_direct", variant, dev, sub_tuning(tuning, "blur_direct"));
    r.rx = gaussian_radius(o.sigma_x);
    r.ry = gaussian_radius(o.sigma_y);
    const std::size_t tile = direct_tile_bytes(r.direct, r.rx, r.ry, px);
    require_local_fits(tuning, "BLUR_D_LOCAL", tile, dev);
    r.row_local = r.col_local = r.direct.at("BLUR_D_LOCAL") && tile <= dev.local_mem_size;
    r.route.local_tiles = r.row_local;
    bytes = 2.0 * px;
  } else if (m == BlurMethod::Separable) {
    r.separable = resolve_configuration("blur_separable", variant, dev, sub_tuning(tuning, "blur_separable"));
    r.rx = gaussian_radius(o.sigma_x);
    r.ry = gaussian_radius(o.sigma_y);
    const bool local = r.separable.at("BLUR_S_LOCAL") != 0;
    const std::size_t row_tile =
        row_tile_bytes(r.separable, r.rx, r.channels, separable_row_vec(r.separable, r.channels, true));
    const std::size_t col_tile = col_tile_bytes(r.separable, r.ry, r.channels);
    const std::size_t fused_tile = fused_tile_bytes(r.separable, r.ry, r.channels);
    require_local_fits(tuning, "BLUR_S_FUSED", fused_tile, dev);
    // A database row fuses where its halo is small (fused_halo_ok) and its tiles are at least as
    // many as the device's compute units, as the two passes' groups are (a 1024 x 1024 image in
    // 256 x 1024 tiles keeps 4 of 16 cores busy); an explicit override is taken as asked wherever
    // its tile fits.
    const bool asked = tuning.overrides.count("BLUR_S_FUSED") > 0;
    const bool halo_ok = fused_halo_ok(r.separable, r.ry) || asked;
    const bool fills = asked || fused_tiles(r.separable, width, height, r.channels) >= dev.compute_units;
    r.route.fused = r.separable.at("BLUR_S_FUSED") > 0 && fused_tile <= dev.local_mem_size && halo_ok && fills;
    if (!r.route.fused) require_local_fits(tuning, "BLUR_S_LOCAL", std::max(row_tile, col_tile), dev);
    r.row_local = !r.route.fused && local && row_tile <= dev.local_mem_size;
    r.col_local = !r.route.fused && local && col_tile <= dev.local_mem_size;
    r.route.local_tiles = r.route.fused || (r.row_local && r.col_local);
    bytes = (r.route.fused ? 2.0 : 4.0) * px;
  } else {
    r.recursive = resolve_recursive(dev, width, height, r.channels, sub_tuning(tuning, "blur_recursive"), r.route);
    const int block = r.recursive.at("BLUR_R_BLOCK");
    r.route.carry_fused = r.route.fused_y && r.route.blocked_x && r.recursive.at("BLUR_R_NEXT_CARRY") != 0 &&
                          r.recursive.at("BLUR_R_LX") == block;
    for (bool blocked : {r.route.blocked_y, r.route.blocked_x}) bytes += (blocked ? 3.0 : 4.0) * px;
    if (r.route.carry_fused) bytes -= 1.0 * px;
    for (bool fused : {r.route.fused_y, r.route.fused_x}) bytes += fused ? 0.0 : 2.0 * px;
  }
  if (format == PixelFormat::RGBA8) bytes += 2.0 * (4 + 16);  // u8 -> f32 and back
  r.route.bytes_per_pixel = bytes;
  return r;
}

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
  if (!r.route.fused) cfg.values["BLUR_S_FUSED"] = 0;
  return cfg;
}

// Row weights of the float4 path: zero-padded to 2R + 4 taps, R = rx rounded up to a multiple of 4.
int row_vec_radius(int rx) { return (rx + 3) / 4 * 4; }

cl::Program separable_program(const QueueContext& qc, const Resolved& r, bool long_index, bool row) {
  const Configuration cfg = separable_config(r, row);
  std::size_t weights = r.route.fused ? taps(r.rx) + taps(r.ry) : taps(row ? r.rx : r.ry);
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

void check_blur_request(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                        const Tuning& tuning) {
  require(width >= 1 && height >= 1, kBlurRoutine, [&] {
    return "width and height must be at least 1 (got " + std::to_string(width) + " x " + std::to_string(height) + ")";
  });
  require(width <= (1u << 30) && height <= (1u << 30), kBlurRoutine, "width and height must be at most 2^30");
  require(options.method == BlurMethod::Auto || options.method == BlurMethod::Direct ||
              options.method == BlurMethod::Separable || options.method == BlurMethod::Recursive,
          kBlurRoutine,
          [&] { return "unknown blur method (" + std::to_string(static_cast<int>(options.method)) + ")"; });
  require(format == PixelFormat::R32F || format == PixelFormat::RGBA32F || format == PixelFormat::RGBA8, kBlurRoutine,
          [&] { return "unknown pixel format (" + std::to_string(static_cast<int>(format)) + ")"; });
  check_sigma(kBlurRoutine, "sigma_x", options.sigma_x, options.method);
  check_sigma(kBlurRoutine, "sigma_y", options.sigma_y, options.method);
  require(
      options.border == BlurBorder::Clamp || options.border == BlurBorder::Mirror || options.border == BlurBorder::Zero,
      kBlurRoutine, [&] { return "unknown border mode (" + std::to_string(static_cast<int>(options.border)) + ")"; });
  check_overrides(tuning);
}

Resolved check_blur_options(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                            const Tuning& tuning, const DeviceInfo& dev) {
  check_blur_request(width, height, format, options, tuning);
  const Resolved res = resolve(dev, width, height, format, options, tuning);
  check_sigma("gaussian_blur", "sigma_x", options.sigma_x, res.route.method);
  check_sigma("gaussian_blur", "sigma_y", options.sigma_y, res.route.method);
  return res;
}

BlurRoute blur_route(const DeviceInfo& device, std::size_t width, std::size_t height, PixelFormat format,
                     const BlurOptions& options, const Tuning& tuning) {
  return resolve(device, width, height, format, options, tuning).route;
}

std::string BlurRoute::describe() const {
  std::string s = to_string(method);
  if (method == BlurMethod::Recursive) {
    auto pass = [](bool blocked, bool fused) {
      return std::string(blocked ? "blocked" : "whole columns") + (fused ? "+fused transpose" : "+transpose");
    };
    s += " (vertical: " + pass(blocked_y, fused_y) + ", horizontal: " + pass(blocked_x, fused_x) +
         (carry_fused ? ", its carries from the vertical pass)" : ")");
  } else if (fused) {
    s += " (fused passes)";
  } else if (!local_tiles) {
    s += " (global-memory taps)";
  }
  return s;
}

}  // namespace clforge::detail
