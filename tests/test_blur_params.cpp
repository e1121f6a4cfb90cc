// Gaussian blur parameter sets: every shipped vendor-class row and other legal sets run on the
// device at hand (local tiles that do not fit included), and the crossovers method auto reads
// from the tuning database.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "blur/blur_internal.hpp"
#include "blur/blur_route.hpp"
#include "host/blur.hpp"
#include "tests/blur_support.hpp"
#include "tests/support.hpp"

using namespace clforge;
using namespace clforge::test::blur;

namespace {
// A shipped vendor-class row of one blur kernel, as overrides.
using test::vendor_row;
}  // namespace

TEST_SUITE("blur") {
  TEST_CASE("every shipped vendor-class parameter set computes the right answer here") {
    std::uint64_t seed = test::seed() + 600;
    for (VendorClass v :
         {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other})
      for (std::size_t c : {1, 4}) {
        const std::string variant = std::to_string(c);
        // The rows go in through a tuning file, so that they keep database semantics here (a
        // local tile that does not fit this device falls back to global-memory taps, where an
        // explicit override would be refused).
        nlohmann::json rows = nlohmann::json::array();
        for (const char* kernel : {"blur", "blur_direct", "blur_separable", "blur_recursive"}) {
          const std::string kv = kernel == std::string("blur") ? "*" : variant;
          nlohmann::json params = nlohmann::json::object();
          for (const auto& [n, val] : vendor_row(kernel, v, kv)) params[n] = val;
          rows.push_back({{"kernel", kernel}, {"variant", kv}, {"params", params}});
        }
        const std::string file = test::temp_dir("blur-vendor-rows") + "/rows.json";
        std::ofstream(file) << nlohmann::json{{"entries", rows}}.dump();
        test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
        const Tuning t{{}, false};
        CAPTURE(to_string(v));
        for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive, BlurMethod::Auto}) {
          Case k;
          k.w = c == 1 ? 301 : 97;
          k.h = c == 1 ? 203 : 66;
          k.c = c;
          k.sx = m == BlurMethod::Direct ? 1.5 : 4.0;
          k.sy = m == BlurMethod::Direct ? 2.0 : 7.5;
          k.border = BlurBorder::Mirror;
          k.method = m;
          k.tuning = t;
          k.in_pad = 1;
          k.out_off = 2;
          check_float(k, seed++);
        }
      }
  }

  TEST_CASE("other legal parameter sets, including local tiles that do not fit") {
    std::uint64_t seed = test::seed() + 700;
    const ParamMap sets[] = {
        {{"BLUR_S_ROW_VW", 4},
         {"BLUR_S_ROW_LX", 16},
         {"BLUR_S_ROW_LY", 8},
         {"BLUR_S_COL_WPT", 16},
         {"BLUR_S_COL_LY", 1}},
        {{"BLUR_S_ROW_VW", 1},
         {"BLUR_S_LOCAL", 1},
         {"BLUR_S_COL_LX", 128},
         {"BLUR_S_COL_WPT", 1},
         {"BLUR_S_COL_LY", 2}},
        {{"BLUR_S_LOCAL", 0}, {"BLUR_S_COL_WPT", 2}, {"BLUR_D_LOCAL", 0}, {"BLUR_D_WPT", 8}, {"BLUR_D_LY", 1}},
        {{"BLUR_D_LX", 64}, {"BLUR_D_LY", 2}, {"BLUR_D_WPT", 4}, {"BLUR_D_LOCAL", 1}},
        // Vector passes over global-memory taps: 131 columns leave a tail of 3, 11 and 3.
        {{"BLUR_S_LOCAL", 0},
         {"BLUR_S_ROW_VW", 16},
         {"BLUR_S_COL_VW", 16},
         {"BLUR_S_ROW_LX", 16},
         {"BLUR_S_COL_LX", 16},
         {"BLUR_S_COL_LY", 1},
         {"BLUR_S_COL_WPT", 8}},
        {{"BLUR_S_LOCAL", 0}, {"BLUR_S_ROW_VW", 8}, {"BLUR_S_COL_VW", 4}, {"BLUR_S_ROW_LY", 2}, {"BLUR_S_COL_WPT", 16}},
        {{"BLUR_S_LOCAL", 0}, {"BLUR_S_ROW_VW", 4}, {"BLUR_S_COL_VW", 8}, {"BLUR_S_COL_WPT", 1}},
    };
    // Two passes in every set: the parameters not named come from the device's row, and the CPU
    // row's fused kernel (tested below) would otherwise take the separable blurs, or be refused
    // as part of an explicit configuration where its tile exceeds the device's local memory.
    for (ParamMap p : sets)
      for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable})
        for (double s : {0.6, 3.3}) {
          p.emplace("BLUR_S_FUSED", 0);
          Case k;
          k.w = 131;
          k.h = 77;
          k.sx = s;
          k.sy = s + 1;
          k.method = m;
          k.border = BlurBorder::Mirror;
          k.tuning = Tuning{p, false};
          check_float(k, seed++);
        }
    // Images narrower than one vector and than the blur's radius, every border mode: each output
    // takes the one-by-one path, with windows that leave both edges.
    for (BlurBorder border : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
      for (std::size_t w : {5, 19}) {
        Case k;
        k.w = w;
        k.h = 9;
        k.sx = 3.3;
        k.sy = 2.1;
        k.border = border;
        k.in_pad = 3;
        k.out_off = 1;
        ParamMap p = sets[4];
        p.emplace("BLUR_S_FUSED", 0);
        k.tuning = Tuning{p, false};
        check_float(k, seed++);
      }
    // A row halo that exceeds the device's local memory (16-byte pixels, 8 rows of
    // 16 + 2 * 12288 pixels = 3.1 MiB). From a database row, the launcher takes the global-memory
    // path for it; as an explicit override it is an argument error (README: an explicit override
    // that does not fit is an error).
    auto& s = test::session();
    BlurOptions o;
    o.sigma_x = 4096;
    o.sigma_y = 1;
    o.method = BlurMethod::Separable;
    const bool fits = 16ull * 8 * (16 + 2 * 12288) <= s.entry.info.local_mem_size;
    // (Two passes: the CPU row's fused kernel would take the blur otherwise.)
    const ParamMap big{
        {"BLUR_S_LOCAL", 1}, {"BLUR_S_ROW_LX", 16}, {"BLUR_S_ROW_LY", 8}, {"BLUR_S_ROW_VW", 1}, {"BLUR_S_FUSED", 0}};
    {
      const std::string dir = test::temp_dir("blur-big-tile");
      const std::string file = dir + "/t.json";
      std::ofstream(file) << R"({"entries": [{"kernel": "blur_separable", "variant": "4", "params": {"BLUR_S_LOCAL": 1,
                                "BLUR_S_ROW_LX": 16, "BLUR_S_ROW_LY": 8, "BLUR_S_ROW_VW": 1, "BLUR_S_FUSED": 0}}]})";
      test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
      const auto plan = detail::blur_route(s.entry.info, 50, 40, PixelFormat::RGBA32F, o, Tuning{{}, false});
      CHECK(plan.local_tiles == fits);
      Case k;
      k.w = 50;
      k.h = 40;
      k.c = 4;
      k.sx = 4096;
      k.sy = 1;
      k.method = BlurMethod::Separable;
      k.tuning = Tuning{{}, false};
      check_float(k, seed++);
    }
    if (!fits) {
      test::expect_invalid_argument(
          [&] {
            detail::blur_route(s.entry.info, 50, 40, PixelFormat::RGBA32F, o, Tuning{big, false});
          },
          "BLUR_S_LOCAL=1 was asked for");
      BlurOptions od;
      od.sigma_x = od.sigma_y = 2000;
      od.method = BlurMethod::Direct;
      test::expect_invalid_argument(
          [&] {
            detail::blur_route(s.entry.info, 50, 40, PixelFormat::R32F, od, Tuning{{{"BLUR_D_LOCAL", 1}}, false});
          },
          "BLUR_D_LOCAL=1 was asked for");
    }
    // Direct with weights beyond 64 KiB (18008 floats): they move from __constant to __global.
    Case d;
    d.w = 5;
    d.h = 4;
    d.sx = 3000;
    d.sy = 1;
    d.method = BlurMethod::Direct;
    d.border = BlurBorder::Mirror;
    check_float(d, seed++);
  }

  TEST_CASE("the fused separable kernel: tiles, tails, borders, channels, and its fallback") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 750;
    // Output rows per work-group F (rounded up to WPT) over 77 rows: partial last groups; tile
    // widths LX * VW of 256, 64, 32 and 128 columns over 131: one group with a tail of 125
    // columns, and groups whose last vector leaves the image (131 = 2 * 64 + 3).
    const ParamMap sets[] = {
        {{"BLUR_S_FUSED", 16},
         {"BLUR_S_COL_VW", 16},
         {"BLUR_S_COL_LX", 16},
         {"BLUR_S_COL_LY", 1},
         {"BLUR_S_COL_WPT", 8}},
        {{"BLUR_S_FUSED", 32},
         {"BLUR_S_COL_VW", 4},
         {"BLUR_S_COL_LX", 16},
         {"BLUR_S_COL_LY", 2},
         {"BLUR_S_COL_WPT", 4}},
        {{"BLUR_S_FUSED", 64},
         {"BLUR_S_COL_VW", 1},
         {"BLUR_S_COL_LX", 32},
         {"BLUR_S_COL_LY", 4},
         {"BLUR_S_COL_WPT", 2}},
        {{"BLUR_S_FUSED", 16},
         {"BLUR_S_COL_VW", 8},
         {"BLUR_S_COL_LX", 16},
         {"BLUR_S_COL_LY", 1},
         {"BLUR_S_COL_WPT", 16}},
    };
    for (const auto& p : sets)
      for (BlurBorder border : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
        for (double sigma : {0.6, 3.3}) {
          Case k;
          k.w = 131;
          k.h = 77;
          k.sx = sigma;
          k.sy = sigma + 1;
          k.border = border;
          k.in_pad = 5;
          k.out_off = 3;
          k.tuning = Tuning{p, false};
          check_float(k, seed++);
        }
    // Four channels (one float4 per column), and images narrower than one vector or shorter than
    // the radius.
    for (std::size_t c : {1, 4})
      for (auto [w, h] : {std::pair<std::size_t, std::size_t>{5, 9}, {19, 3}, {40, 33}}) {
        Case k;
        k.w = w;
        k.h = h;
        k.c = c;
        k.sx = 3.3;
        k.sy = 2.1;
        k.border = BlurBorder::Mirror;
        k.in_off = 2;
        k.out_pad = 1;
        k.tuning = Tuning{sets[c == 1 ? 0 : 2], false};
        check_float(k, seed++);
      }
    BlurOptions o;
    o.method = BlurMethod::Separable;
    o.sigma_x = 2;
    o.sigma_y = 3;
    CHECK(detail::blur_route(s.entry.info, 131, 77, PixelFormat::R32F, o, Tuning{sets[1], false}).fused);
    CHECK(detail::blur_route(s.entry.info, 131, 77, PixelFormat::R32F, o, Tuning{sets[1], false}).bytes_per_pixel == 8);
    // From a database row the kernel fuses only where the halo rows add at most a quarter to the
    // row pass (8 ry <= F: with F = 64, ry 8 (sigma 2.5) fuses and ry 9 (sigma 3) does not) and
    // its tiles (64 x 64 here) are at least the device's compute units; an explicit override
    // fuses wherever its tile fits.
    {
      const std::string rows = test::temp_dir("blur-fused-halo") + "/t.json";
      std::ofstream(rows) << R"({"entries": [{"kernel": "blur_separable", "variant": "1", "params": {"BLUR_S_FUSED": 64,
                                "BLUR_S_COL_VW": 4, "BLUR_S_COL_LX": 16, "BLUR_S_COL_LY": 2, "BLUR_S_COL_WPT": 4}}]})";
      test::ScopedEnv env("CLFORGE_TUNING_FILE", rows);
      const std::size_t cu = s.entry.info.compute_units;
      const auto fused = [&](std::size_t w, std::size_t ht, const BlurOptions& b, const ParamMap& asked) {
        return detail::blur_route(s.entry.info, w, ht, PixelFormat::R32F, b, Tuning{asked, false}).fused;
      };
      BlurOptions h = o;
      h.sigma_y = 2.5;
      CHECK(fused(64 * cu + 3, 77, h, {}));  // (cu + 1) x 2 tiles
      CHECK(fused(64 * cu, 64, h, {}));      // cu tiles
      if (cu > 1) {
        CHECK_FALSE(fused(64 * (cu - 1), 64, h, {}));
        CHECK(fused(64 * (cu - 1), 64, h, {{"BLUR_S_FUSED", 64}}));
      }
      h.sigma_y = 3;
      CHECK_FALSE(fused(64 * cu + 3, 77, h, {}));
      CHECK(fused(64 * cu + 3, 77, h, {{"BLUR_S_FUSED", 64}}));
      Case k;  // the two passes the row then takes compute the right answer
      k.w = 131;
      k.h = 77;
      k.sx = 2;
      k.sy = 3;
      k.border = BlurBorder::Mirror;
      k.tuning = Tuning{{}, false};
      check_float(k, seed++);
    }
    // A halo whose tile does not fit the device's local memory: from a database row the plan
    // takes the two passes, as an explicit override it is an argument error.
    o.sigma_y = static_cast<double>(s.entry.info.local_mem_size) / (4 * 16 * 16);  // 2 ry rows of 1 KiB > local
    const std::string file = test::temp_dir("blur-fused-big") + "/t.json";
    std::ofstream(file) << R"({"entries": [{"kernel": "blur_separable", "variant": "1", "params": {"BLUR_S_FUSED": 16,
                              "BLUR_S_COL_VW": 16, "BLUR_S_COL_LX": 16, "BLUR_S_COL_LY": 1, "BLUR_S_COL_WPT": 8}}]})";
    {
      test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
      const auto route = detail::blur_route(s.entry.info, 131, 77, PixelFormat::R32F, o, Tuning{{}, false});
      CHECK_FALSE(route.fused);
      CHECK(route.bytes_per_pixel == 16);
    }
    test::expect_invalid_argument(
        [&] {
          detail::blur_route(s.entry.info, 131, 77, PixelFormat::R32F, o, Tuning{sets[0], false});
        },
        "BLUR_S_FUSED=16 was asked for");
  }

  TEST_CASE("a blocked recursive scheme runs its own row's block size, the family's row picks the scheme") {
    auto& s = test::session();
    const std::string file = test::temp_dir("blur-scheme-block") + "/t.json";
    std::ofstream(file) << R"({"entries": [
      {"kernel": "blur_recursive", "variant": "1", "params": {"BLUR_R_BLOCK": 128, "BLUR_R_NARROW": 1073741824,
                                                              "BLUR_R_FUSE_T": 1}},
      {"kernel": "blur_recursive", "variant": "1:fused", "params": {"BLUR_R_BLOCK": 32, "BLUR_R_FUSE_T": 0,
                                                                    "BLUR_R_NARROW": 64}},
      {"kernel": "blur_recursive", "variant": "1:whole", "params": {"BLUR_R_BLOCK": 32}}]})";
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    BlurOptions b;
    b.method = BlurMethod::Recursive;
    b.sigma_x = b.sigma_y = 2;
    const auto r = detail::check_blur_options(640, 480, PixelFormat::R32F, b, Tuning{{}, false}, s.entry.info);
    CHECK(r.route.fused_y);  // the family's: blocked (640 < 2^30) and fused, whatever 1:fused says
    CHECK(r.route.fused_x);
    CHECK(r.recursive.at("BLUR_R_BLOCK") == 32);  // the fused scheme's own block size
    CHECK(r.recursive.at("BLUR_R_FUSE_T") == 1);
    CHECK(r.recursive.at("BLUR_R_NARROW") == 1073741824);
    // The family's whole columns stay whole: a scheme's row never makes them blocked.
    const auto w = detail::check_blur_options(640, 480, PixelFormat::R32F, b,
                                              Tuning{{{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 0}}, false}, s.entry.info);
    CHECK_FALSE(w.route.blocked_y);
    CHECK(w.recursive.at("BLUR_R_BLOCK") == 0);
    // The blur is right with the mixed rows.
    Case k{301, 203, 1, 2, 2, BlurBorder::Clamp, BlurMethod::Recursive};
    k.tuning = Tuning{{}, false};
    check_float(k, 7);
  }

  TEST_CASE("a candidate runs as its database row would: tiles that do not fit take the other path") {
    // A device of 32 KiB of local memory: a radius of 1 leaves every tile far below it, one of
    // 4096 (8193 rows or columns of halo, 32 KiB alone for one float column) far above it.
    DeviceInfo dev = test::session().entry.info;
    dev.local_mem_size = 32 * 1024;
    const ParamMap sep{{"BLUR_S_ROW_LX", 32}, {"BLUR_S_ROW_LY", 1}, {"BLUR_S_ROW_VW", 1},
                       {"BLUR_S_COL_LX", 32}, {"BLUR_S_COL_LY", 4}, {"BLUR_S_COL_WPT", 4},
                       {"BLUR_S_COL_VW", 1},  {"BLUR_S_LOCAL", 1},  {"BLUR_S_FUSED", 0}};
    CHECK(detail::as_row_runs(sep, BlurMethod::Separable, 1, 1, 1, dev) == sep);
    ParamMap global = sep;
    global["BLUR_S_LOCAL"] = 0;
    CHECK(detail::as_row_runs(sep, BlurMethod::Separable, 1, 4096, 1, dev) == global);  // the column tile
    CHECK(detail::as_row_runs(sep, BlurMethod::Separable, 4096, 1, 1, dev) == global);  // the row tile
    CHECK(detail::as_row_runs(global, BlurMethod::Separable, 4096, 4096, 1, dev) == global);
    // 32 fused rows: a radius of 3 (24 rows of halo work) fuses, 6 (48) takes the two passes,
    // with local taps where their tiles fit.
    ParamMap fused = sep;
    fused["BLUR_S_FUSED"] = 32;
    CHECK(detail::as_row_runs(fused, BlurMethod::Separable, 3, 3, 1, dev) == fused);
    CHECK(detail::as_row_runs(fused, BlurMethod::Separable, 6, 6, 1, dev) == sep);
    global["BLUR_S_FUSED"] = 0;
    CHECK(detail::as_row_runs(fused, BlurMethod::Separable, 6, 4096, 1, dev) == global);
    const ParamMap direct{{"BLUR_D_LX", 16}, {"BLUR_D_LY", 8}, {"BLUR_D_WPT", 2}, {"BLUR_D_LOCAL", 1}};
    ParamMap direct_global = direct;
    direct_global["BLUR_D_LOCAL"] = 0;
    CHECK(detail::as_row_runs(direct, BlurMethod::Direct, 1, 1, 4, dev) == direct);
    CHECK(detail::as_row_runs(direct, BlurMethod::Direct, 1, 4096, 4, dev) == direct_global);
    // Other methods' parameters are taken as they are.
    CHECK(detail::as_row_runs(direct, BlurMethod::Recursive, 4096, 4096, 1, dev) == direct);
  }

  TEST_CASE("auto picks by the crossovers in the tuning database") {
    auto& s = test::session();
    const Tuning t{
        {{"BLUR_AUTO_SIGMA_DIRECT", 12}, {"BLUR_AUTO_SIGMA_RECURSIVE", 60}, {"BLUR_AUTO_RECURSIVE_MIN_KPIX", 4}},
        false};
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 1.2, 0.7, t) == BlurMethod::Direct);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 1.3, 0.7, t) == BlurMethod::Separable);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 5.9, 5.9, t) == BlurMethod::Separable);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 6.0, 1.0, t) == BlurMethod::Recursive);
    CHECK(resolve_blur_method(s.queue, 60, 60, PixelFormat::R32F, 6.0, 1.0, t) == BlurMethod::Separable);  // < 4 Ki px
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 6.0, 0.4, t) == BlurMethod::Separable);
    const Tuning never{{{"BLUR_AUTO_SIGMA_DIRECT", 0}, {"BLUR_AUTO_SIGMA_RECURSIVE", 0}}, false};
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 0.5, 0.5, never) == BlurMethod::Separable);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 500, 500, never) == BlurMethod::Separable);
    // The same crossover from a tuning file, and the method reported by the call.
    const std::string dir = test::temp_dir("blur-auto");
    const std::string file = dir + "/t.json";
    std::ofstream(file) << R"({"entries": [{"kernel": "blur", "params": {"BLUR_AUTO_SIGMA_RECURSIVE": 25,
                              "BLUR_AUTO_RECURSIVE_MIN_KPIX": 0}}]})";
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    CHECK(resolve_blur_method(s.queue, 20, 20, PixelFormat::RGBA8, 2.5, 3.0, Tuning{{}, false}) ==
          BlurMethod::Recursive);
    Case k;
    k.w = 40;
    k.h = 30;
    k.sx = 2.5;
    k.sy = 2.5;
    k.method = BlurMethod::Auto;
    const Outcome r = run_float(k, test::seed() + 800);
    CHECK(r.used == BlurMethod::Recursive);
    CHECK(r.cmp.ok(host::recursive_blur_tolerance(2.5, 2.5)));
  }
}
