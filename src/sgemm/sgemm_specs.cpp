// Tuning spaces of the sgemm kernel families: the general tiled kernel (sgemm_xgemm), the
// streaming kernel (sgemm_stream), the direct kernel (sgemm_direct), the packing helpers
// (sgemm_pack) and the path selection (sgemm_route, parameters only). Each has its shipped
// database cl/db/<name>.json; parameter names are distinct across the families so that one
// Tuning can carry overrides for all of them.
#include <algorithm>

#include "sgemm/sgemm_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

namespace {
const std::vector<int> kPow2_1_32 = {1, 2, 4, 8, 16, 32};
const std::vector<int> kPow2_1_64 = {1, 2, 4, 8, 16, 32, 64};
const std::vector<int> kVec = {1, 2, 4, 8, 16};
const std::vector<int> kBool = {0, 1};

std::size_t sz(int v) { return static_cast<std::size_t>(v); }

// sgemm_xgemm's representative (KernelSpec::canonical): parameters the kernel reads only under
// others set to one value. The loaders' shapes count only with their tile staged (SA, SB), a
// work-item's vector strides only where it holds several vectors along that side (STRM, STRN),
// the register cap only on NVIDIA's compiler.
ParamMap xgemm_canonical(const ParamMap& p, const DeviceInfo& device) {
  ParamMap q = p;
  if (!q.at("SA")) q["MDIMA"] = 1;
  if (!q.at("SB")) q["NDIMB"] = 1;
  if (q.at("MWG") / (q.at("MDIMC") * q.at("VWM")) <= 1 || q.at("MDIMC") == 1) q["STRM"] = 0;
  if (q.at("NWG") / (q.at("NDIMC") * q.at("VWN")) <= 1 || q.at("NDIMC") == 1) q["STRN"] = 0;
  if (!sgemm_register_cap_applies(device)) q["NVRREG"] = 0;
  return q;
}
}  // namespace

KernelSpec sgemm_xgemm_spec() {
  KernelSpec s;
  s.name = "sgemm_xgemm";
  s.files = {"sgemm/xgemm.cl"};
  s.database = "db/sgemm_xgemm.json";
  s.variants = {"small", "medium", "large"};  // size classes, see sgemm_size_class()
  s.params = {
      {"MWG", 64, {8, 16, 32, 64, 128, 256}, "C tile rows (m) per work-group"},
      {"NWG", 64, {8, 16, 32, 64, 128, 256}, "C tile columns (n) per work-group"},
      {"KWG", 16, {4, 8, 16, 32, 64, 128, 256}, "depth of a k tile"},
      {"MDIMC", 8, kPow2_1_32, "work-items along m"},
      {"NDIMC", 8, kPow2_1_32, "work-items along n"},
      {"MDIMA", 8, kPow2_1_64, "work-items along m when loading the A tile (in VWM vectors)"},
      {"NDIMB", 8, kPow2_1_64, "work-items along n when loading the B tile (in VWN vectors)"},
      {"KWI", 2, {1, 2, 4, 8, 16}, "unroll factor of the loop over a k tile"},
      {"VWM", 1, kVec, "vector width along m (A loads, C accumulators and stores)"},
      {"VWN", 1, kVec, "vector width along n (B loads)"},
      {"STRM", 0, kBool, "1: a work-item's m vectors strided by MDIMC (conflict-free local reads)"},
      {"STRN", 0, kBool, "1: a work-item's n vectors strided by NDIMC"},
      {"SA", 1, kBool, "stage the A tile in local memory"},
      {"SB", 1, kBool, "stage the B tile in local memory"},
      {"DBUF", 0, kBool, "double-buffered local tiles with register prefetch (needs SA or SB)"},
      {"PANEL", 0, kBool, "1: operands packed in panels of one work-group's width (contiguous k streams)"},
      {"KBLOCK",
       0,
       {0, 128, 256, 512, 1024},
       "k rows per launch (0: all): C accumulates one k block after the other, so that a block's panels stay in "
       "the caches of CPUs",
       true},
      {"NVRREG",
       0,
       {0, 64, 96, 128, 168, 255},
       "register cap per work-item for NVIDIA's compiler (-cl-nv-maxrregcount; 0: its choice; no effect elsewhere)"},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    const int mwg = p.at("MWG"), nwg = p.at("NWG"), kwg = p.at("KWG");
    const int mdimc = p.at("MDIMC"), ndimc = p.at("NDIMC"), vwm = p.at("VWM"), vwn = p.at("VWN");
    const int wgs = mdimc * ndimc;
    if (mwg % (mdimc * vwm) != 0) return "MWG must be a multiple of MDIMC*VWM";
    if (nwg % (ndimc * vwn) != 0) return "NWG must be a multiple of NDIMC*VWN";
    if (kwg % p.at("KWI") != 0) return "KWI must divide KWG";
    // Accumulators per work-item: 256 floats, or 512 as 32 vectors of 16 (AVX-512 CPUs have 32
    // such registers).
    if ((mwg / mdimc) * (nwg / ndimc) > (vwm == 16 ? 512 : 256))
      return "MWG/MDIMC * NWG/NDIMC (accumulators per work-item) exceeds 256 (512 with VWM=16)";
    if (p.at("SA")) {
      const int mdima = p.at("MDIMA");
      if (wgs % mdima != 0 || (mwg / vwm) % mdima != 0 || kwg % (wgs / mdima) != 0)
        return "with SA=1, MDIMA must divide MDIMC*NDIMC and MWG/VWM, and KWG must be a multiple of "
               "MDIMC*NDIMC/MDIMA";
    }
    if (p.at("SB")) {
      const int ndimb = p.at("NDIMB");
      if (wgs % ndimb != 0 || (nwg / vwn) % ndimb != 0 || kwg % (wgs / ndimb) != 0)
        return "with SB=1, NDIMB must divide MDIMC*NDIMC and NWG/VWN, and KWG must be a multiple of "
               "MDIMC*NDIMC/NDIMB";
    }
    if (p.at("SA") && kwg * (mwg / vwm) / wgs > 64)
      return "KWG*MWG/VWM/(MDIMC*NDIMC) (A vectors each work-item loads) exceeds 64";
    if (p.at("SB") && kwg * (nwg / vwn) / wgs > 64)
      return "KWG*NWG/VWN/(MDIMC*NDIMC) (B vectors each work-item loads) exceeds 64";
    if (p.at("DBUF") && !p.at("SA") && !p.at("SB")) return "DBUF=1 needs SA=1 or SB=1";
    if (p.at("KBLOCK") % kwg != 0) return "KBLOCK must be a multiple of KWG";
    return {};
  };
  s.resources = [](const ParamMap& p, const std::string&) {
    Resources r;
    r.local = {sz(p.at("MDIMC")), sz(p.at("NDIMC")), 1};
    const std::uint64_t tile = (p.at("SA") ? p.at("MWG") : 0) + (p.at("SB") ? p.at("NWG") : 0);
    r.local_mem_bytes = tile * p.at("KWG") * 4 * (1 + p.at("DBUF"));
    return r;
  };
  s.canonical = xgemm_canonical;
  // Single buffering first, then two small generic configurations.
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["DBUF"]) {
      q["DBUF"] = 0;
      return q;
    }
    const ParamMap small = {{"MWG", 32},  {"NWG", 32}, {"KWG", 16}, {"MDIMC", 8}, {"NDIMC", 8},  {"MDIMA", 8},
                            {"NDIMB", 8}, {"KWI", 2},  {"VWM", 1},  {"VWN", 1},   {"STRM", 0},   {"STRN", 0},
                            {"SA", 1},    {"SB", 1},   {"DBUF", 0}, {"PANEL", 0}, {"KBLOCK", 0}, {"NVRREG", 0}};
    ParamMap tiny = small;
    tiny["MWG"] = tiny["NWG"] = 8;
    tiny["MDIMC"] = tiny["NDIMC"] = tiny["MDIMA"] = tiny["NDIMB"] = 2;
    tiny["SA"] = tiny["SB"] = 0;
    if (q["MDIMC"] * q["NDIMC"] > 64 || (q["SA"] + q["SB"]) * q["KWG"] * std::max(q["MWG"], q["NWG"]) * 4 > 4096) {
      if (q != small) return small;
    }
    if (q != tiny) return tiny;
    return std::nullopt;
  };
  return s;
}

KernelSpec sgemm_stream_spec() {
  KernelSpec s;
  s.name = "sgemm_stream";
  s.files = {"sgemm/stream.cl"};
  s.database = "db/sgemm_stream.json";
  s.variants = {"small", "medium", "large"};
  s.params = {
      {"SGS_WG", 128, {32, 64, 128, 256}, "work-items per work-group"},
      {"SGS_MWI", 2, {1, 2, 4, 8}, "consecutive C rows per work-item (streamed vector width)"},
      {"SGS_N", 16, {4, 8, 16, 32}, "C columns per work-group (width of the local tile)"},
      {"SGS_K", 32, {8, 16, 32, 64}, "depth of the local tile"},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    if (p.at("SGS_MWI") * p.at("SGS_N") > 128) return "SGS_MWI * SGS_N (accumulators per work-item) exceeds 128";
    return {};
  };
  s.resources = [](const ParamMap& p, const std::string&) {
    Resources r;
    r.local = {sz(p.at("SGS_WG")), 1, 1};
    r.local_mem_bytes = static_cast<std::uint64_t>(p.at("SGS_K")) * p.at("SGS_N") * 4;
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["SGS_WG"] > 32) {
      q["SGS_WG"] /= 2;
      return q;
    }
    if (q["SGS_K"] > 8) {
      q["SGS_K"] /= 2;
      return q;
    }
    return std::nullopt;
  };
  return s;
}

KernelSpec sgemm_direct_spec() {
  KernelSpec s;
  s.name = "sgemm_direct";
  s.files = {"sgemm/direct.cl"};
  s.database = "db/sgemm_direct.json";
  // "*": single products (shown first by `clforge params`); "batch16", "batch32", "batch":
  // strided batches of matrices up to 16 x 16, up to 32 x 32 and larger, see sgemm_direct_variant().
  s.variants = {"*", "batch16", "batch32", "batch"};
  s.params = {
      {"WGD", 32, {8, 16, 32, 64, 128}, "C tile edge and k-tile depth"},
      {"MDIMCD", 8, kPow2_1_32, "work-items along m"},
      {"NDIMCD", 8, kPow2_1_32, "work-items along n"},
      {"MDIMAD", 8, kPow2_1_64, "work-items along the contiguous index when loading A"},
      {"NDIMBD", 8, kPow2_1_64, "work-items along the contiguous index when loading B"},
      {"KWID", 2, {1, 2, 4, 8, 16}, "unroll factor of the loop over a k tile"},
      {"VWMD", 1, {1, 2, 4, 8}, "consecutive C rows per register vector"},
      {"VWND", 1, {1, 2, 4, 8}, "consecutive C columns per register group"},
      {"PADA", 1, kBool, "local-memory padding of an A tile row"},
      {"PADB", 1, kBool, "local-memory padding of a B tile row"},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    const int wgd = p.at("WGD"), mdimc = p.at("MDIMCD"), ndimc = p.at("NDIMCD");
    const int wgs = mdimc * ndimc, mdima = p.at("MDIMAD"), ndimb = p.at("NDIMBD");
    if (wgd % (mdimc * p.at("VWMD")) != 0) return "WGD must be a multiple of MDIMCD*VWMD";
    if (wgd % (ndimc * p.at("VWND")) != 0) return "WGD must be a multiple of NDIMCD*VWND";
    if (wgs % mdima != 0 || wgd % mdima != 0 || wgd % (wgs / mdima) != 0)
      return "MDIMAD must divide MDIMCD*NDIMCD and WGD, and MDIMCD*NDIMCD/MDIMAD must divide WGD";
    if (wgs % ndimb != 0 || wgd % ndimb != 0 || wgd % (wgs / ndimb) != 0)
      return "NDIMBD must divide MDIMCD*NDIMCD and WGD, and MDIMCD*NDIMCD/NDIMBD must divide WGD";
    if (wgd % p.at("KWID") != 0) return "KWID must divide WGD";
    if ((wgd / mdimc) * (wgd / ndimc) > 256) return "(WGD/MDIMCD) * (WGD/NDIMCD) exceeds 256 accumulators";
    return {};
  };
  s.resources = [](const ParamMap& p, const std::string&) {
    Resources r;
    r.local = {sz(p.at("MDIMCD")), sz(p.at("NDIMCD")), 1};
    const std::uint64_t w = p.at("WGD");
    r.local_mem_bytes = 4 * w * (2 * w + p.at("PADA") + p.at("PADB"));
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    const ParamMap small = {{"WGD", 16}, {"MDIMCD", 8}, {"NDIMCD", 8}, {"MDIMAD", 8}, {"NDIMBD", 8},
                            {"KWID", 1}, {"VWMD", 1},   {"VWND", 1},   {"PADA", 1},   {"PADB", 1}};
    ParamMap tiny = small;
    tiny["WGD"] = 8;
    tiny["MDIMCD"] = tiny["NDIMCD"] = tiny["MDIMAD"] = tiny["NDIMBD"] = 4;
    if (p.at("MDIMCD") * p.at("NDIMCD") > 64 || p.at("WGD") > 16) {
      if (p != small) return small;
    }
    if (p != tiny) return tiny;
    return std::nullopt;
  };
  return s;
}

KernelSpec sgemm_pack_spec() {
  KernelSpec s;
  s.name = "sgemm_pack";
  s.files = {"sgemm/pack.cl"};
  s.database = "db/sgemm_pack.json";
  s.params = {
      {"PACK_TILE", 16, {8, 16, 32, 64}, "tile edge in elements"},
      {"PACK_WPT", 4, {1, 2, 4, 8, 16, 64}, "tile rows moved by each work-item"},
      {"PACK_VW", 1, {1, 2, 4, 8}, "1: tile rows; 2, 4, 8: square register blocks of PACK_WPT elements"},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    if (p.at("PACK_WPT") > p.at("PACK_TILE")) return "PACK_WPT must not exceed PACK_TILE";
    const int vw = p.at("PACK_VW");
    if (vw > 1 && p.at("PACK_WPT") != vw * vw) return "register blocks (PACK_VW > 1) need PACK_WPT = PACK_VW^2";
    return {};
  };
  s.resources = [](const ParamMap& p, const std::string&) {
    Resources r;
    const int t = p.at("PACK_TILE");
    r.local = {sz(t), sz(t / p.at("PACK_WPT")), 1};
    r.local_mem_bytes = p.at("PACK_VW") > 1 ? 0 : static_cast<std::uint64_t>(t) * (t + 1) * 4;  // the local tile
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["PACK_TILE"] <= 8) return std::nullopt;
    q["PACK_TILE"] /= 2;
    q["PACK_WPT"] = std::min(q["PACK_WPT"], q["PACK_TILE"]);
    if (q["PACK_VW"] * q["PACK_VW"] != q["PACK_WPT"]) q["PACK_VW"] = 1;  // the block no longer fits
    return q;
  };
  return s;
}

KernelSpec sgemm_route_spec() {
  KernelSpec s;
  s.name = "sgemm_route";
  s.database = "db/sgemm_route.json";
  s.variants = {"*", "batch"};  // single products, strided batches (sgemm_route_variant)
  s.params = {
      {"SGEMM_DIRECT_MAX",
       128,
       {0, 32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024, 1536, 2048, 4096, 16384},
       "the direct kernel runs when m*n*k <= SGEMM_DIRECT_MAX^3 (0: never)"},
      {"SGEMM_TILED", 0, {0, 1}, "tiled kernel above the threshold: 0 sgemm_xgemm, 1 sgemm_stream"},
      {"SGEMM_SPLITK",
       0,
       {0, 2, 4, 8, 16},
       "sgemm_xgemm: at most this many k splits when C has too few tiles (0: never)"},
      {"SGEMM_SPLIT_WAVES",
       1,
       {1, 2, 4, 8, 64},
       "k splits aim for tiles x splits >= compute units x this (waves of work-groups)"},
      {"SGEMM_EDGE",
       0,
       {0, 1, 2, 4, 8, 16, 32, 64},
       "tiled paths, single products: rows (columns) of C past the last whole C tile go to the direct "
       "kernel when there are at most this many (0: never)"},
  };
  s.check = [](const ParamMap&, const std::string&) -> std::string { return {}; };
  // Without k splits the waves they aim for do not matter: the tuner searches one of them.
  s.canonical = [](const ParamMap& p, const DeviceInfo&) {
    ParamMap q = p;
    if (q.count("SGEMM_SPLITK") && q.at("SGEMM_SPLITK") == 0) q["SGEMM_SPLIT_WAVES"] = 1;
    return q;
  };
  return s;
}

}  // namespace clforge::detail
