// The blur family's names (enum text) and the tuning spaces of its four kernels.
#include <algorithm>
#include <string>
#include <vector>

#include "clforge/blur.hpp"
#include "clforge/errors.hpp"
#include "runtime/strings.hpp"
#include "tuning/spec.hpp"

namespace clforge {

const char* to_string(BlurBorder b) {
  switch (b) {
    case BlurBorder::Clamp:
      return "clamp";
    case BlurBorder::Mirror:
      return "mirror";
    case BlurBorder::Zero:
      return "zero";
  }
  return "?";
}

const char* to_string(BlurMethod m) {
  switch (m) {
    case BlurMethod::Auto:
      return "auto";
    case BlurMethod::Direct:
      return "direct";
    case BlurMethod::Separable:
      return "separable";
    case BlurMethod::Recursive:
      return "recursive";
  }
  return "?";
}

const char* to_string(PixelFormat f) {
  switch (f) {
    case PixelFormat::R32F:
      return "R32F";
    case PixelFormat::RGBA32F:
      return "RGBA32F";
    case PixelFormat::RGBA8:
      return "RGBA8";
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

namespace detail {
namespace {

std::vector<int> int_range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i <= hi; ++i) v.push_back(i);
  return v;
}

// Bytes per float pixel of a variant: its channel count, before the ':' of a recursive scheme's
// sub-variant ("1:whole").
std::size_t variant_pixel(const std::string& variant) { return variant.substr(0, variant.find(':')) == "1" ? 4 : 16; }

}  // namespace

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
    if (q["BLUR_D_LY"] > 1)
      q["BLUR_D_LY"] /= 2;
    else if (q["BLUR_D_LX"] > 8)
      q["BLUR_D_LX"] /= 2;
    else
      return std::nullopt;
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
      {"BLUR_S_ROW_VW",
       1,
       {1, 4, 8, 16},
       "row pass: consecutive outputs per work-item (one channel; with local tiles only 4 counts)"},
      {"BLUR_S_COL_LX", 32, {16, 32, 64, 128}, "column pass: work-group width"},
      {"BLUR_S_COL_LY", 8, {1, 2, 4, 8, 16}, "column pass: work-group height"},
      {"BLUR_S_COL_WPT", 4, {1, 2, 4, 8, 16}, "column pass: consecutive outputs per work-item"},
      {"BLUR_S_COL_VW",
       1,
       {1, 4, 8, 16},
       "column pass: consecutive columns per work-item (one channel, global-memory taps only)"},
      {"BLUR_S_LOCAL", 1, {0, 1}, "1: halo tiles in local memory; 0: taps from global memory"},
      {"BLUR_S_FUSED",
       0,
       {0, 16, 32, 64, 128, 256},
       "output rows per work-group of the fused kernel (both passes in one; column pass's work-group); 0: two passes"},
  };
  // With local tiles the row pass has a float4 path only and the column pass no vector path, so
  // those widths build the local kernels of width 1 (they matter again only where a tile does not
  // fit and the pass falls back to global-memory taps).
  // The fused kernel reads its row taps from global memory and uses neither the row pass's
  // work-group nor its vector width (they stay for images whose fused tile does not fit).
  s.canonical = [](const ParamMap& p, const DeviceInfo&) {
    ParamMap q = p;
    if (q.at("BLUR_S_FUSED")) {
      q["BLUR_S_LOCAL"] = 0;
      for (const char* n : {"BLUR_S_ROW_LX", "BLUR_S_ROW_LY", "BLUR_S_ROW_VW"}) q[n] = 0;
    }
    if (q.at("BLUR_S_LOCAL")) {
      if (q.at("BLUR_S_ROW_VW") != 4) q["BLUR_S_ROW_VW"] = 1;
      q["BLUR_S_COL_VW"] = 1;
    }
    return q;
  };
  // The larger of the two work-groups, and the tiles without their sigma-dependent halo.
  s.resources = [](const ParamMap& p, const std::string& variant) {
    Resources r;
    const std::size_t rl = p.at("BLUR_S_ROW_LX") * p.at("BLUR_S_ROW_LY"),
                      cl = p.at("BLUR_S_COL_LX") * p.at("BLUR_S_COL_LY");
    if (rl >= cl)
      r.local = {static_cast<std::size_t>(p.at("BLUR_S_ROW_LX")), static_cast<std::size_t>(p.at("BLUR_S_ROW_LY")), 1};
    else
      r.local = {static_cast<std::size_t>(p.at("BLUR_S_COL_LX")), static_cast<std::size_t>(p.at("BLUR_S_COL_LY")), 1};
    const std::uint64_t row = static_cast<std::uint64_t>(rl) * p.at("BLUR_S_ROW_VW"),
                        col = static_cast<std::uint64_t>(cl) * p.at("BLUR_S_COL_WPT");
    r.local_mem_bytes = p.at("BLUR_S_LOCAL") ? std::max(row, col) * variant_pixel(variant) : 0;
    if (p.at("BLUR_S_FUSED"))  // the fused tile without its halo
      r.local_mem_bytes = std::max<std::uint64_t>(
          r.local_mem_bytes, static_cast<std::uint64_t>(p.at("BLUR_S_FUSED")) * p.at("BLUR_S_COL_LX") *
                                 (variant == "1" ? p.at("BLUR_S_COL_VW") : 1) * variant_pixel(variant));
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    const int rl = q["BLUR_S_ROW_LX"] * q["BLUR_S_ROW_LY"], cl = q["BLUR_S_COL_LX"] * q["BLUR_S_COL_LY"];
    if (rl >= cl) {
      if (q["BLUR_S_ROW_LY"] > 1)
        q["BLUR_S_ROW_LY"] /= 2;
      else if (q["BLUR_S_ROW_LX"] > 16)
        q["BLUR_S_ROW_LX"] /= 2;
      else
        return std::nullopt;
    } else {
      if (q["BLUR_S_COL_LY"] > 1)
        q["BLUR_S_COL_LY"] /= 2;
      else if (q["BLUR_S_COL_LX"] > 16)
        q["BLUR_S_COL_LX"] /= 2;
      else
        return std::nullopt;
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
      {"BLUR_R_LINK_SPLIT",
       1,
       {1, 2, 4, 8, 16},
       "blur_rec_link: work-items per column, each linking one run of blocks (chained in local memory)"},
      {"BLUR_R_LINK_BATCH", 4, {1, 2, 4, 8, 16}, "blur_rec_link: blocks whose carries are loaded together"},
      {"BLUR_R_NEXT_CARRY",
       1,
       {0, 1},
       "1: with BLUR_R_FUSE_T and LX = BLOCK, the vertical pass also computes the horizontal pass's carries",
       true},
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
    r.local_mem_bytes =
        std::max<std::uint64_t>(p.at("BLUR_R_BLOCK") * (lx + 1), 3 * (split + 1) * lx) * variant_pixel(variant);
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["BLUR_R_LINK_SPLIT"] > 1 && 3 * (q["BLUR_R_LINK_SPLIT"] + 1) >= q["BLUR_R_BLOCK"])
      q["BLUR_R_LINK_SPLIT"] /= 2;
    else if (q["BLUR_R_BLOCK"] > 16)
      q["BLUR_R_BLOCK"] /= 2;
    else if (q["BLUR_R_LX"] > 16)
      q["BLUR_R_LX"] /= 2;
    else if (q["BLUR_R_LINK_SPLIT"] > 1)
      q["BLUR_R_LINK_SPLIT"] /= 2;
    else
      return std::nullopt;
    return q;
  };
  return s;
}

}  // namespace detail
}  // namespace clforge
