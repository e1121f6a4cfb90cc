// sgemm's semantics beyond the arithmetic: the BLAS quick-return rules, the routing threshold
// in both directions, split k, wait lists and output events on every path, concurrent calls
// sharing the packing workspace, the host-vector overload, and the argument checks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "host/gemm.hpp"
#include "runtime/program_cache.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tests/sgemm_support.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;
using namespace clforge::sgemm_test;

namespace {
// The xgemm configuration a plan of m x n x 16 products (a strided batch when batch > 1) takes
// with every product sent to the tiled kernel.
Configuration xgemm_config(std::size_t m, std::size_t n, std::size_t batch) {
  SgemmDesc d;
  d.m = m, d.n = n, d.k = 16, d.a_ld = m, d.b_ld = 16, d.c_ld = m;
  if (batch > 1) d.batch = batch, d.a_stride = m * 16, d.b_stride = 16 * n, d.c_stride = m * n;
  const SgemmPlan plan(test::session().queue, d, Tuning{{{"SGEMM_DIRECT_MAX", 0}}, true});
  const auto& cfgs = plan.configurations();
  const auto it =
      std::find_if(cfgs.begin(), cfgs.end(), [](const Configuration& k) { return k.kernel == "sgemm_xgemm"; });
  REQUIRE(it != cfgs.end());
  return *it;
}
}  // namespace

TEST_SUITE("sgemm") {
  TEST_CASE("BLAS quick returns: m or n = 0 is a no-op; k = 0 or alpha = 0 scale C without reading A or B") {
    std::uint64_t seed = test::seed() + 40000;
    for (Layout l : kLayouts)
      for (float beta : {0.0f, 1.0f, 2.5f}) {
        Case c;
        c.layout = l, c.m = 33, c.n = 17, c.k = 0, c.beta = beta, c.pad_c = 2, c.off_c = 3, c.nan_inputs = true;
        CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");  // k = 0
        c.k = 65;
        c.alpha = 0.0f;
        CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");  // alpha = 0, A and B full of NaN
        CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm), seed++) == "");
      }
    CHECK(detail::sgemm_path(test::session().entry.info, 4, 4, 0, 1.0f, 1.0f) == detail::SgemmPath::Nothing);
    CHECK(detail::sgemm_path(test::session().entry.info, 4, 4, 4, 0.0f, 2.0f) == detail::SgemmPath::Scale);

    // m = 0 or n = 0: C (and everything else) untouched; the event completes. An operand that
    // describes no element (A when m = 0, B when n = 0) may be a null buffer.
    auto& s = test::session();
    std::vector<float> poison = host::poisoned(64);
    const cl_mem_flags copy = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl::Buffer bc(s.context, copy, poison.size() * 4, poison.data());
    cl::Buffer bin(s.context, copy, poison.size() * 4, poison.data());
    for (auto [m, n] : {std::pair<std::size_t, std::size_t>{0, 5}, {5, 0}, {0, 0}}) {
      cl::Event ev;
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, m, n, 3, 1.0f, {m ? bin : cl::Buffer(), 0, 8},
            {n ? bin : cl::Buffer(), 0, 8}, 0.0f, {bc, 0, 8}, {}, &ev);
      CHECK(ev.wait() == CL_SUCCESS);
    }
    std::vector<float> got(64);
    s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, 64 * 4, got.data());
    CHECK(std::memcmp(got.data(), poison.data(), 64 * 4) == 0);
  }

  TEST_CASE("the direct/tiled threshold SGEMM_DIRECT_MAX routes both ways") {
    const DeviceInfo& dev = test::session().entry.info;
    using detail::SgemmPath;
    // m*n*k <= SGEMM_DIRECT_MAX^3: direct; above: the tiled kernel SGEMM_TILED names.
    CHECK(detail::sgemm_path(dev, 64, 64, 64, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}) == SgemmPath::Direct);
    CHECK(detail::sgemm_path(dev, 64, 64, 65, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}) == SgemmPath::Xgemm);
    CHECK(detail::sgemm_path(dev, 64, 64, 65, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}, {"SGEMM_TILED", 1}}, false}) ==
          SgemmPath::Stream);
    CHECK(detail::sgemm_path(dev, 1, 1, 1, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 0}}, false}) == SgemmPath::Xgemm);
    CHECK(detail::sgemm_path(dev, 4096, 4096, 4096, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 4096}}, false}) ==
          SgemmPath::Direct);
    // The same odd product computed on both sides of the threshold.
    std::uint64_t seed = test::seed() + 50000;
    Case c;
    c.m = 97, c.n = 45, c.k = 71, c.alpha = -0.5f, c.beta = 1.0f, c.tb = Transpose::Yes;
    CHECK(sgemm_problem(c, Tuning{{{"SGEMM_DIRECT_MAX", 96}}, false}, seed++) == "");  // 97*45*71 <= 96^3: direct
    CHECK(sgemm_problem(c, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}, seed++) == "");  // above 64^3: tiled
    CHECK(detail::sgemm_path(dev, c.m, c.n, c.k, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 96}}, false}) == SgemmPath::Direct);
    CHECK(detail::sgemm_path(dev, c.m, c.n, c.k, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}) == SgemmPath::Xgemm);
  }

  TEST_CASE("a batch takes the route row's batch variant where the device has one") {
    // A user row for the variant "batch" (strided and offset batches) sending every product to the
    // tiled kernel: a single product keeps the "*" row's direct path, a batch takes the tiled one
    // and computes the same products.
    const DeviceInfo& dev = test::session().entry.info;
    using detail::SgemmPath;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("sgemm_route_batch"));
    const SgemmPath single = detail::sgemm_path(dev, 24, 20, 16, 1, 0, Tuning{}, 1);
    REQUIRE(single == SgemmPath::Direct);  // 24 x 20 x 16 is below every shipped row's crossover
    CHECK(detail::sgemm_path(dev, 24, 20, 16, 1, 0, Tuning{}, 3) == SgemmPath::Direct);
    store_user_entry(dev, "sgemm_route", "batch",
                     {{"SGEMM_DIRECT_MAX", 0}, {"SGEMM_TILED", 0}, {"SGEMM_SPLITK", 0}, {"SGEMM_SPLIT_WAVES", 1}});
    CHECK(detail::sgemm_path(dev, 24, 20, 16, 1, 0, Tuning{}, 1) == SgemmPath::Direct);
    CHECK(detail::sgemm_path(dev, 24, 20, 16, 1, 0, Tuning{}, 3) == SgemmPath::Xgemm);
    Case c;
    c.m = 24, c.n = 20, c.k = 16, c.batch = 3, c.alpha = 0.75f, c.beta = -1.5f, c.ta = Transpose::Yes;
    CHECK(sgemm_problem(c, Tuning{}, test::seed() + 54000) == "");
    // The batch's tiled kernel resolves the sub-variant "small:batch" (falling back to "small"):
    // a user row for it sets the batch's tiles, not a single product's.
    const auto xgemm_of = [](std::size_t batch) { return xgemm_config(24, 20, batch); };
    CHECK(xgemm_of(3).variant == "small:batch");
    CHECK(xgemm_of(1).variant == "small");
    // Without a row of its own (the H200's sm_90 rows have one) the batch takes the class's row.
    if (xgemm_of(3).sources.at("MWG").find("variant small:batch") == std::string::npos)
      CHECK(xgemm_of(3).values == xgemm_of(1).values);
    const int kwi = xgemm_of(1).at("KWI") == 1 ? 2 : 1;
    store_user_entry(dev, "sgemm_xgemm", "small:batch", {{"KWI", kwi}});
    CHECK(xgemm_of(3).at("KWI") == kwi);
    CHECK(xgemm_of(1).at("KWI") != kwi);
    CHECK(sgemm_problem(c, Tuning{}, test::seed() + 54001) == "");
  }

  TEST_CASE("a wide or tall product takes its size class's sub-variant \"wide\"") {
    // C 8 or more times as wide as tall (or as tall as wide); a batch's sub-variant comes first.
    CHECK(detail::sgemm_size_class(512, 8192, 512) == "small:wide");
    CHECK(detail::sgemm_size_class(8192, 512, 8192) == "large:wide");
    CHECK(detail::sgemm_size_class(512, 4095, 512) == "small");
    CHECK(detail::sgemm_size_class(1024, 1024, 1024) == "small");
    CHECK(detail::sgemm_size_class(2048, 2048, 2048) == "medium");
    CHECK(detail::sgemm_size_class(512, 8192, 512, 3) == "small:batch");
    CHECK(detail::sgemm_size_class(0, 8192, 512) == "small");
    // It falls back to the class's rows; a user row for it sets a wide product's tiles alone.
    const DeviceInfo& dev = test::session().entry.info;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("sgemm_wide"));
    const auto xgemm_of = [](std::size_t m, std::size_t n) { return xgemm_config(m, n, 1); };
    CHECK(xgemm_of(24, 200).variant == "small:wide");
    CHECK(xgemm_of(200, 24).variant == "small:wide");
    CHECK(xgemm_of(24, 150).variant == "small");
    // Without a row of its own (the H200's sm_90 rows have one) it takes the class's row.
    if (xgemm_of(24, 200).sources.at("MWG").find("variant small:wide") == std::string::npos)
      CHECK(xgemm_of(24, 200).values == xgemm_of(24, 150).values);
    const int kwi = xgemm_of(24, 150).at("KWI") == 1 ? 2 : 1;
    store_user_entry(dev, "sgemm_xgemm", "small:wide", {{"KWI", kwi}});
    CHECK(xgemm_of(24, 200).at("KWI") == kwi);
    CHECK(xgemm_of(24, 150).at("KWI") != kwi);
    Case c;
    c.m = 24, c.n = 200, c.k = 16, c.alpha = 0.75f, c.beta = -1.5f, c.tb = Transpose::Yes;
    CHECK(sgemm_problem(c, Tuning{{{"SGEMM_DIRECT_MAX", 0}}, true}, test::seed() + 54100) == "");
  }

  TEST_CASE("split k: partial products summed into C, every transpose pair, beta with NaN in C, offsets") {
    const DeviceInfo& dev = test::session().entry.info;
    std::uint64_t seed = test::seed() + 55000;
    // Waves x compute units far above the tile count forces a split on any device; 32 x 32
    // tiles of a GPU-like shape (local tiles, double buffering) and the CPU row's register blocks.
    const ParamMap gpu_like = {{"MWG", 32},  {"NWG", 32}, {"KWG", 16}, {"MDIMC", 8}, {"NDIMC", 8}, {"MDIMA", 8},
                               {"NDIMB", 8}, {"KWI", 2},  {"VWM", 2},  {"VWN", 2},   {"STRM", 1},  {"STRN", 1},
                               {"SA", 1},    {"SB", 1},   {"DBUF", 1}, {"NVRREG", 0}};
    for (int splitk : {2, 8}) {
      ParamMap p = splitk == 2 ? ParamMap{} : gpu_like;
      p["SGEMM_SPLITK"] = splitk;
      p["SGEMM_SPLIT_WAVES"] = 64;
      const Tuning t = forced(detail::SgemmPath::Xgemm, p);
      CAPTURE(splitk);
      int i = 0;
      for (Transpose ta : {Transpose::No, Transpose::Yes})
        for (Transpose tb : {Transpose::No, Transpose::Yes}) {
          Case c;
          c.m = 65 + 7 * i, c.n = 47 + 3 * i, c.k = 333 - 40 * i;
          c.ta = ta, c.tb = tb;
          c.alpha = i % 2 ? -0.5f : 1.0f;
          c.beta = i == 0 ? 0.0f : i == 1 ? 1.0f : 2.5f;  // beta 0: C holds NaN and must not be read
          c.layout = i == 3 ? Layout::RowMajor : Layout::ColMajor;
          c.off_c = i, c.pad_c = 3 * i, c.off_a = i % 2;
          const std::size_t slices = detail::sgemm_k_slices(dev, c.m, c.n, c.k, t);
          CHECK(slices >= 2);
          CHECK(slices <= static_cast<std::size_t>(splitk));
          CHECK(sgemm_problem(c, t, seed++) == "");
          ++i;
        }
    }
    // Never more slices than k tiles, never a split when off or with enough tiles.
    ParamMap one = gpu_like;
    one["SGEMM_SPLITK"] = 16;
    one["SGEMM_SPLIT_WAVES"] = 64;
    const Tuning one_tile = forced(detail::SgemmPath::Xgemm, one);
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 40, one_tile) == 3);  // 3 k tiles of 16
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 16, one_tile) == 1);  // a single k tile
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 400, forced(detail::SgemmPath::Xgemm, {{"SGEMM_SPLITK", 0}})) == 1);
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 400, forced(detail::SgemmPath::Stream, {{"SGEMM_SPLITK", 8}})) == 1);
  }

  TEST_CASE("panels (PANEL=1) and k blocks (KBLOCK): transposes, layouts, edges, offsets, split k, queues") {
    // The CPU row's register blocks (operands read from global memory) and a GPU-like shape
    // with local tiles and double buffering; sizes that leave partial tiles and panels on every
    // side, and one product split along k.
    std::uint64_t seed = test::seed() + 58000;
    const ParamMap cpu_like = {{"MWG", 16},  {"NWG", 16}, {"KWG", 32}, {"MDIMC", 1}, {"NDIMC", 1},  {"MDIMA", 1},
                               {"NDIMB", 1}, {"KWI", 4},  {"VWM", 16}, {"VWN", 16},  {"STRM", 0},   {"STRN", 0},
                               {"SA", 0},    {"SB", 0},   {"DBUF", 0}, {"PANEL", 1}, {"KBLOCK", 0}, {"NVRREG", 0}};
    const ParamMap gpu_like = {{"MWG", 32},  {"NWG", 64}, {"KWG", 16}, {"MDIMC", 8}, {"NDIMC", 8},  {"MDIMA", 8},
                               {"NDIMB", 8}, {"KWI", 2},  {"VWM", 2},  {"VWN", 4},   {"STRM", 1},   {"STRN", 0},
                               {"SA", 1},    {"SB", 1},   {"DBUF", 1}, {"PANEL", 1}, {"KBLOCK", 0}, {"NVRREG", 0}};
    for (const ParamMap& p : {cpu_like, gpu_like}) {
      CAPTURE(p.at("MWG"));
      int i = 0;
      for (Layout l : kLayouts)
        for (Transpose ta : kT)
          for (Transpose tb : kT) {
            Case c;
            c.layout = l, c.ta = ta, c.tb = tb;
            c.m = 97 + 13 * i, c.n = 33 + 21 * i, c.k = 71 + 9 * i;
            c.alpha = i % 2 ? -0.5f : 1.0f;
            c.beta = i % 3 == 0 ? 0.0f : 2.5f;
            c.off_a = i % 3, c.off_b = i % 2, c.pad_a = i, c.off_c = i % 4, c.pad_c = 2 * i;
            CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, p), seed++) == "");
            ++i;
          }
      // Tile-multiple sizes that would be read in place without panels.
      Case c;
      c.m = 128, c.n = 128, c.k = 64, c.tb = Transpose::Yes;
      CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, p), seed++) == "");
    }
    ParamMap split = cpu_like;
    split["SGEMM_SPLITK"] = 4;
    split["SGEMM_SPLIT_WAVES"] = 64;
    Case c;
    c.m = 65, c.n = 47, c.k = 333, c.ta = Transpose::Yes, c.beta = 1.0f;
    CHECK(detail::sgemm_k_slices(test::session().entry.info, c.m, c.n, c.k, forced(detail::SgemmPath::Xgemm, split)) >=
          2);
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, split), seed++) == "");

    // K blocks: C accumulates launch after launch; the first launch alone applies beta (beta 0
    // with NaN in C: never read). 333 rows in tiles of 32 are 11 tiles: blocks of 4, 4 and 3.
    auto& s = test::session();
    cl_int st = CL_SUCCESS;
    cl::CommandQueue ooo(s.context, s.entry.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
    if (st != CL_SUCCESS) ooo = s.queue;  // the device has no out-of-order queues
    ParamMap blocked = cpu_like;
    blocked["KBLOCK"] = 128;
    for (float beta : {0.0f, 2.5f})
      for (cl::CommandQueue* q : {&s.queue, &ooo}) {
        c = Case{};
        c.m = 97, c.n = 61, c.k = 333, c.tb = Transpose::Yes, c.alpha = -0.5f, c.beta = beta, c.off_c = 3;
        const SgemmPlan plan(*q, desc_of(c), forced(detail::SgemmPath::Xgemm, blocked));
        CHECK(plan.describe().find("3 k blocks") != std::string::npos);
        CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, blocked), seed++, q) == "");
      }
    // Without panels, both operands read in place (one chain of launches, no workspace).
    ParamMap in_place = gpu_like;
    in_place["PANEL"] = 0;
    in_place["KBLOCK"] = 128;
    c = Case{};
    c.m = 64, c.n = 128, c.k = 512, c.tb = Transpose::Yes, c.beta = 1.0f;
    const SgemmPlan plan(s.queue, desc_of(c), forced(detail::SgemmPath::Xgemm, in_place));
    CHECK(plan.workspace_bytes() == 0);
    CHECK(plan.describe().find("4 k blocks") != std::string::npos);
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, in_place), seed++) == "");
  }

  TEST_CASE("packs through the local tile (PACK_VW 1): partial tiles of both operands, every transpose, batches") {
    // One launch packs both operands (sgemm_pack_pair), each turned through the local tile or
    // copied. C tiles of 64 x 8 pad m to 128 and n = 100 and 69 to 104 and 72: B's last packing
    // tile of 16 columns reaches past its padded width; tiles of 8 x 64 do so to A. Every
    // transpose pair turns one operand, the other or both; a strided batch with B broadcast packs
    // its one B in the first group only.
    std::uint64_t seed = test::seed() + 61000;
    const ParamMap wide_m = {
        {"MWG", 64}, {"NWG", 8},   {"KWG", 32},   {"MDIMC", 4},  {"NDIMC", 8},      {"MDIMA", 4},    {"NDIMB", 8},
        {"KWI", 1},  {"VWM", 8},   {"VWN", 1},    {"STRM", 1},   {"STRN", 0},       {"SA", 0},       {"SB", 1},
        {"DBUF", 0}, {"PANEL", 0}, {"KBLOCK", 0}, {"NVRREG", 0}, {"PACK_TILE", 16}, {"PACK_WPT", 4}, {"PACK_VW", 1}};
    ParamMap wide_n = wide_m;
    wide_n["MWG"] = 8, wide_n["NWG"] = 64, wide_n["MDIMC"] = 8, wide_n["NDIMC"] = 4, wide_n["VWM"] = 1;
    const std::size_t sizes[][3] = {{100, 100, 100}, {97, 69, 67}};
    for (const ParamMap* tiles : {&wide_m, static_cast<const ParamMap*>(&wide_n)})
      for (const auto& mnk : sizes)
        for (int t = 0; t < 4; ++t) {
          Case c;
          c.ta = t & 1 ? Transpose::Yes : Transpose::No;
          c.tb = t & 2 ? Transpose::Yes : Transpose::No;
          c.m = mnk[0], c.n = mnk[1], c.k = mnk[2];
          c.alpha = 0.75f, c.beta = t == 3 ? 0.0f : -1.5f;
          c.off_a = 2, c.pad_b = 3;
          c.batch = t == 1 ? 3 : 1, c.broadcast_b = t == 1, c.gap = 4;
          CAPTURE(t);
          CAPTURE(c.m);
          CAPTURE(tiles->at("MWG"));
          const SgemmPlan plan(test::session().queue, desc_of(c), forced(detail::SgemmPath::Xgemm, *tiles));
          CHECK(plan.configurations().back().values.at("PACK_VW") == 1);
          CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, *tiles), seed++) == "");
        }
  }

  TEST_CASE("register-block packs (PACK_VW 2, 4, 8): whole and partial blocks, narrow panels, rows, batches") {
    // Each work-item of the packing kernels moves a PACK_VW x PACK_VW block as vectors (turned
    // in registers by sgemm_pack_trans), element by element where the block reaches past an
    // edge or a panel. Odd sizes leave partial blocks on every side; offsets and padded leading
    // dimensions make the vector loads unaligned; NN and TT use each kernel for each operand.
    std::uint64_t seed = test::seed() + 59000;
    const ParamMap panels16 = {{"MWG", 16},  {"NWG", 16}, {"KWG", 32}, {"MDIMC", 1}, {"NDIMC", 1},  {"MDIMA", 1},
                               {"NDIMB", 1}, {"KWI", 4},  {"VWM", 16}, {"VWN", 16},  {"STRM", 0},   {"STRN", 0},
                               {"SA", 0},    {"SB", 0},   {"DBUF", 0}, {"PANEL", 1}, {"KBLOCK", 0}, {"NVRREG", 0}};
    ParamMap narrow = panels16;  // panels of 8 columns (the narrowest): a block of 8 fills one
    narrow["MWG"] = 8, narrow["VWM"] = 8, narrow["NWG"] = 8, narrow["VWN"] = 8;
    ParamMap rows = panels16;  // no panels: packed rows of Xp floats
    rows["PANEL"] = 0;
    const ParamMap packs[] = {{{"PACK_TILE", 8}, {"PACK_WPT", 4}, {"PACK_VW", 2}},
                              {{"PACK_TILE", 16}, {"PACK_WPT", 16}, {"PACK_VW", 4}},
                              {{"PACK_TILE", 64}, {"PACK_WPT", 64}, {"PACK_VW", 8}}};
    for (const ParamMap& pack : packs)
      for (const ParamMap* xg :
           {&panels16, static_cast<const ParamMap*>(&narrow), static_cast<const ParamMap*>(&rows)}) {
        ParamMap p = *xg;
        p.insert(pack.begin(), pack.end());
        CAPTURE(pack.at("PACK_VW"));
        CAPTURE(xg->at("MWG"));
        CAPTURE(xg->at("PANEL"));
        for (int i = 0; i < 2; ++i) {
          Case c;
          c.ta = c.tb = i ? Transpose::Yes : Transpose::No;
          c.layout = i ? Layout::RowMajor : Layout::ColMajor;
          c.m = 75 + 22 * i, c.n = 43 + 26 * i, c.k = 37 + 30 * i;  // 75 x 43 x 37, 97 x 69 x 67
          c.alpha = -0.5f, c.beta = i ? 0.0f : 2.5f;
          c.off_a = 1 + i, c.off_b = 3, c.pad_a = 3, c.pad_b = 1 + 4 * i, c.off_c = 2;
          c.batch = 3 - 2 * i;  // a strided batch of 3, then a single product
          c.gap = 5;
          const SgemmPlan plan(test::session().queue, desc_of(c), forced(detail::SgemmPath::Xgemm, p));
          const auto& cfgs = plan.configurations();
          REQUIRE(cfgs.back().kernel == "sgemm_pack");
          CHECK(cfgs.back().values.at("PACK_VW") == pack.at("PACK_VW"));
          CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, p), seed++) == "");
        }
      }
  }

  TEST_CASE("wait lists are honoured and the output event covers all of the work, on every path") {
    auto& s = test::session();
    const std::size_t m = 70, n = 50, k = 40;
    std::vector<float> a = host::random_floats(m * k, test::seed() + 80000),
                       b = host::random_floats(k * n, test::seed() + 80001);
    cl::Buffer ba(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * 4, a.data());
    cl::Buffer bb(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * 4, b.data());
    host::GemmShape sh;
    sh.m = m, sh.n = n, sh.k = k, sh.lda = m, sh.ldb = k, sh.ldc = m;
    for (auto path : kKernelPaths) {
      for (float alpha : {1.0f, 0.0f}) {
        CAPTURE(detail::to_string(path));
        CAPTURE(alpha);
        std::vector<float> c0 = host::random_floats(m * n, test::seed() + 80002);
        cl::Buffer bc(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c0.size() * 4, c0.data());
        cl::UserEvent gate(s.context);
        cl::Event done;
        sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, m, n, k, alpha, {ba, 0, m}, {bb, 0, k}, 0.5f,
              {bc, 0, m}, {gate}, &done, forced(path));
        cl_int status = CL_COMPLETE;
        done.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
        CHECK(status != CL_COMPLETE);  // still waiting for the gate
        gate.setStatus(CL_COMPLETE);
        REQUIRE(done.wait() == CL_SUCCESS);
        std::vector<float> got(m * n);
        s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, got.size() * 4, got.data());
        std::vector<double> ref(m * n), mag(m * n);
        host::gemm(sh, alpha, a.data(), b.data(), 0.5, c0.data(), ref.data(), 0, mag.data());
        CHECK(scaled_error(got, ref, mag) <= tolerance(k));
      }
    }
  }

  TEST_CASE("concurrent calls from several threads and queues share the packing workspace safely") {
    auto& s = test::session();
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        cl::CommandQueue q(s.context, s.entry.device);
        for (int rep = 0; rep < 3; ++rep) {
          const std::size_t m = 90 + 7 * t, n = 60 + 5 * rep, k = 50 + t;
          const std::vector<float> a = host::random_floats(m * k, 900 + t), b = host::random_floats(k * n, 901 + rep);
          std::vector<float> c(m * n, 0.0f);
          sgemm(q, Layout::RowMajor, Transpose::No, Transpose::No, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n,
                forced(detail::SgemmPath::Xgemm));
          host::GemmShape sh;
          sh.row_major = true, sh.m = m, sh.n = n, sh.k = k, sh.lda = k, sh.ldb = n, sh.ldc = n;
          std::vector<double> ref(m * n), mag(m * n);
          host::gemm(sh, 1.0, a.data(), b.data(), 0.0, nullptr, ref.data(), 1, mag.data());
          if (!(scaled_error(c, ref, mag) <= tolerance(k))) ++failures[t];
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) CHECK(failures[t] == 0);
  }

  TEST_CASE("host-vector convenience overload") {
    auto& s = test::session();
    const std::size_t m = 19, n = 23, k = 11;
    const std::vector<float> a = host::random_floats(k * m, test::seed() + 90000);  // A^T stored: k x m, row-major
    const std::vector<float> b = host::random_floats(k * n, test::seed() + 90001);
    std::vector<float> c = host::random_floats(m * n, test::seed() + 90002);
    const std::vector<float> c_in = c;
    sgemm(s.queue, Layout::RowMajor, Transpose::Yes, Transpose::No, m, n, k, 2.0f, a, m, b, n, -1.0f, c, n);
    host::GemmShape sh;
    sh.row_major = true, sh.trans_a = true, sh.m = m, sh.n = n, sh.k = k, sh.lda = m, sh.ldb = n, sh.ldc = n;
    std::vector<double> ref(m * n), mag(m * n);
    host::gemm(sh, 2.0, a.data(), b.data(), -1.0, c_in.data(), ref.data(), 0, mag.data());
    CHECK(scaled_error(c, ref, mag) <= tolerance(k));
    std::vector<float> small(5);
    CHECK_THROWS_AS(
        sgemm(s.queue, Layout::RowMajor, Transpose::Yes, Transpose::No, m, n, k, 1.0f, small, m, b, n, 0.0f, c, n),
        InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    const std::vector<float> poison = host::poisoned(64 * 64);
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), b(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    const cl_mem_flags copy = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl::Buffer c(s.context, copy, poison.size() * 4, const_cast<float*>(poison.data()));
    const auto N = Transpose::No, T = Transpose::Yes;
    const auto col = Layout::ColMajor, row = Layout::RowMajor;
    const auto expect = test::expect_invalid_argument;
    const std::size_t big = std::size_t(1) << 31;
    expect([&] { sgemm(s.queue, col, N, N, big, 4, 4, 1, {a, 0, big}, {b, 0, 4}, 0, {c, 0, big}); }, "m (");
    expect([&] { sgemm(s.queue, col, N, N, 4, big, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}); }, "n (");
    expect([&] { sgemm(s.queue, col, N, N, 4, 4, big, 1, {a, 0, 4}, {b, 0, big}, 0, {c, 0, 4}); }, "k (");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 4, 1, {a, 0, 7}, {b, 0, 4}, 0, {c, 0, 8}); }, "a.ld (7)");
    expect([&] { sgemm(s.queue, col, T, N, 8, 4, 5, 1, {a, 0, 4}, {b, 0, 5}, 0, {c, 0, 8}); }, "a.ld (4)");
    expect([&] { sgemm(s.queue, row, N, N, 8, 4, 5, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}); }, "a.ld (4)");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 5, 1, {a, 0, 8}, {b, 0, 4}, 0, {c, 0, 8}); }, "b.ld (4)");
    expect([&] { sgemm(s.queue, col, N, T, 8, 4, 5, 1, {a, 0, 8}, {b, 0, 3}, 0, {c, 0, 8}); }, "b.ld (3)");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 5, 1, {a, 0, 8}, {b, 0, 5}, 0, {c, 0, 7}); }, "c.ld (7)");
    expect([&] { sgemm(s.queue, row, N, N, 8, 4, 5, 1, {a, 0, 5}, {b, 0, 4}, 0, {c, 0, 3}); }, "c.ld (3)");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 0, 1, {a, 0, 0}, {b, 0, 1}, 0, {c, 0, 8}); }, "a.ld (0)");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 64, 64, 65, 1, {a, 0, 64}, {b, 0, 65}, 0, {c, 0, 64});
        },
        "a buffer too small");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 64, 64, 64, 1, {a, 0, 64}, {b, 1, 64}, 0, {c, 0, 64});
        },
        "b buffer too small");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 64, 64, 64, 1, {a, 0, 64}, {b, 0, 64}, 0, {c, 0, 65});
        },
        "c buffer too small");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {cl::Buffer(), 0, 4}, {b, 0, 4}, 0, {c, 0, 4});
        },
        "a is a null buffer");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {cl::Buffer(), 0, 4});
        },
        "c is a null buffer");
    expect([&] { sgemm(s.queue, col, N, N, 4, 4, 4, 1, {c, 10, 4}, {b, 0, 4}, 0, {c, 20, 4}); }, "c overlaps a");
    expect([&] { sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {c, 0, 4}, 0, {c, 8, 4}); }, "c overlaps b");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"NOPE", 1}}, true});
        },
        "unknown parameter 'NOPE'");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"MWG", 12}}, true});
        },
        "not legal");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"MWG", 8}, {"MDIMC", 16}}, true});
        },
        "MWG must be a multiple of MDIMC*VWM");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"PACK_TILE", 8}, {"PACK_WPT", 16}}, true});
        },
        "PACK_WPT must not exceed PACK_TILE");
    // Disjoint ranges of one buffer are fine.
    CHECK_NOTHROW(sgemm(s.queue, col, N, N, 4, 4, 4, 1, {c, 0, 4}, {c, 16, 4}, 0, {c, 32, 4}));
    s.queue.finish();
    // Nothing was enqueued by the failed calls: C beyond the one valid call is still poison.
    std::vector<float> got(64 * 64);
    s.queue.enqueueReadBuffer(c, CL_TRUE, 0, got.size() * 4, got.data());
    CHECK(std::memcmp(got.data() + 48, poison.data() + 48, (got.size() - 48) * 4) == 0);
  }
}
