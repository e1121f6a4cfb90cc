// The transpose kernel's tuning space (cl/transpose/transpose.cl): its parameters with their
// legal values, constraints, work-group and local-memory needs, and how a configuration shrinks
// to fit a device.
#include <algorithm>
#include <optional>
#include <string>

#include "transpose/transpose_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

KernelSpec transpose_spec() {
  KernelSpec s;
  s.name = "transpose";
  s.files = {"transpose/transpose.cl"};
  s.database = "db/transpose.json";
  s.variants = {"4", "8", "16"};
  s.params = {
      {"TRA_TILE", 16, {4, 8, 16, 32, 64}, "tile edge in elements"},
      {"TRA_WPT", 1, {1, 2, 4, 8, 16}, "tile rows moved by each work-item"},
      {"TRA_VW", 1, {1, 2, 4, 8}, "consecutive columns moved by each work-item"},
      {"TRA_PAD", 1, {0, 1}, "local-memory padding column against bank conflicts"},
      {"TRA_DIAG", 0, {0, 1}, "diagonal work-group mapping"},
      {"TRA_SWZ",
       0,
       {0, 1, 2, 4, 8, 16, 32},
       "band swizzle of the work-group order: band width in tiles (0: off; ignored when TRA_DIAG = 1)"},
      {"TRA_LOCAL", 1, {0, 1}, "1: local-memory tile; 0: register blocks of TRA_WPT x TRA_VW"},
      {"TRA_NT",
       0,
       {0, 1},
       "non-temporal stores of the square register blocks (TRA_LOCAL = 0, TRA_WPT a multiple of TRA_VW = 4 or 8)"},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    if (p.at("TRA_WPT") > p.at("TRA_TILE")) return "TRA_WPT must not exceed TRA_TILE";
    if (p.at("TRA_VW") > p.at("TRA_TILE")) return "TRA_VW must not exceed TRA_TILE";
    return {};
  };
  // Two work-group orders: the diagonal mapping, when on, takes precedence over the band
  // swizzle (a user who turns TRA_DIAG on over a database row with a swizzle gets the diagonal).
  // Non-temporal stores exist only in the register-block path.
  s.canonical = [](const ParamMap& p, const DeviceInfo&) {
    ParamMap q = p;
    if (q.at("TRA_DIAG")) q["TRA_SWZ"] = 0;
    if (q.at("TRA_LOCAL")) q["TRA_NT"] = 0;  // the local-tile path has plain stores
    return q;
  };
  s.resources = [](const ParamMap& p, const std::string& variant) {
    Resources r;
    const int t = p.at("TRA_TILE");
    r.local = {static_cast<std::size_t>(t / p.at("TRA_VW")), static_cast<std::size_t>(t / p.at("TRA_WPT")), 1};
    const std::size_t elem = variant == "*" ? 16 : std::stoul(variant.substr(0, variant.find(':')));
    r.local_mem_bytes = p.at("TRA_LOCAL") ? static_cast<std::uint64_t>(t) * (t + p.at("TRA_PAD")) * elem : 0;
    return r;
  };
  // Halve the tile (the local memory falls by 4, the work-group by up to 4).
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["TRA_TILE"] <= 4) return std::nullopt;
    q["TRA_TILE"] /= 2;
    q["TRA_WPT"] = std::min(q["TRA_WPT"], q["TRA_TILE"]);
    q["TRA_VW"] = std::min(q["TRA_VW"], q["TRA_TILE"]);
    return q;
  };
  return s;
}

}  // namespace clforge::detail
