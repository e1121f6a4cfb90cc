// The FFT and blur tuning targets on tiny spaces: the best stored under the size class the
// launcher resolves and used by later plans and blurs (values, sources, build options,
// results), wrong candidates rejected even when they look fastest, and the size classes,
// narrowed spaces and option checks of both targets (dry runs).
#include <doctest/doctest.h>

#include <complex>

#include "blur/blur_internal.hpp"
#include "clforge/sgemm.hpp"
#include "fft/fft_internal.hpp"
#include "host/blur.hpp"
#include "host/fft.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/program_cache.hpp"
#include "tests/tune_support.hpp"

using namespace clforge;
using test::blur_candidate;
using test::blur_options;
using test::fft_candidate;
using test::fft_options;
using test::LogCapture;
using test::looks_fastest;
using test::params_text;
using test::TuneEnv;
using test::wrong_looks_fastest;

namespace {
// A class whose every candidate ran correctly (within max_error where it is not negative) and
// whose fastest, `winner`, was stored.
void check_stored_winner(const TuneClassResult& c, const ParamMap& winner, double max_error = -1) {
  for (const auto& row : c.rows) {
    INFO(params_text(row.params) << to_string(row.status) << " " << row.message);
    CHECK(row.status == CandidateStatus::Ok);
    if (max_error >= 0) CHECK(row.error <= max_error);
  }
  REQUIRE(c.has_best);
  CHECK(c.best == winner);
  CHECK(c.stored);
}

// Tunes `routine` over o's one size class with `winner` made to look fastest; every candidate
// ran correctly and `winner` was stored under `variant` as the best of `space` candidates.
void check_tuned_class(cl::CommandQueue& queue, const std::string& routine, TuneOptions o, const ParamMap& winner,
                       const std::string& variant, std::size_t space, double max_error = -1) {
  const detail::TuneFaultScope fault(looks_fastest(winner));
  const TuneResult r = tune(queue, routine, o);
  REQUIRE(r.classes.size() == 1);
  const TuneClassResult& c = r.classes[0];
  CHECK(r.kernel == routine);
  CHECK(c.variant == variant);
  CHECK(c.space == space);
  check_stored_winner(c, winner, max_error);
}

}  // namespace

TEST_SUITE("tune") {
  TEST_CASE("tune fft: the best of a tiny space is stored under the length and used by later plans") {
    TuneEnv env("fft");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    const ParamMap winner = fft_candidate(64);
    REQUIRE(winner != resolve_configuration("fft", "64", dev, Tuning{{}, false}).values);
    TuneOptions o = fft_options();
    const detail::TuneFaultScope fault(looks_fastest(winner));
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(r.kernel == "fft");
    CHECK(c.variant == "64");  // what an FftPlan of length 64 resolves
    CHECK(c.space == 2);
    CHECK(c.candidates + c.unfit == 2);
    REQUIRE(!c.rows.empty());
    CHECK(c.rows.front().is_default);
    check_stored_winner(c, winner, host::fft_tolerance(64));

    // A later plan of length 64 resolves the stored entry (values, sources) and compiles its shape:
    // 8 work-items per transform (radix 8*8), 64 / 8 = 8 transforms per work-group.
    LogCapture logs;
    test::ScopedEnv no_disk("CLFORGE_CACHE_DIR", "off");
    clear_memory_cache();
    FftDesc d;
    d.n = 64;
    d.batch = 5;
    const FftPlan plan(s.queue, d);
    const std::vector<Configuration> cfgs = plan.configurations();
    REQUIRE(cfgs.size() == 1);
    CHECK(cfgs[0].variant == "64");
    for (const auto& [name, value] : winner) {
      INFO(name);
      CHECK(cfgs[0].at(name) == value);
      CHECK(cfgs[0].sources.at(name).rfind("user " + r.database_path, 0) == 0);
    }
    CHECK(logs.contains("-DFFT_T=8 -DFFT_B=8 "));
    // ... and computes the right transform.
    test::check_host_fft(s.queue, 64, 5, test::seed() + 3);
    // Other lengths keep their shipped entries.
    CHECK(resolve_configuration("fft", "128", dev).sources.at("FFT_WG").rfind("shipped", 0) == 0);
  }

  TEST_CASE("tune fft_lanes: the lane kernel's best for a length is stored under it and used by later plans") {
    TuneEnv env("fft-lanes");
    auto& s = test::session();
    TuneOptions o = test::tiny_space("96", {{"FFT_LANES", {4, 16}},
                                            {"FFT_LANE_RADIX", {8}},
                                            {"FFT_LANE_MIN", {1}},
                                            {"FFT_LANE_MAX", {4096}},
                                            {"FFT_LANES2", {8}},
                                            {"FFT_LANE_EBLOCK", {1}}});
    check_tuned_class(s.queue, "fft_lanes", o, test::candidate_of(o, {{"FFT_LANES", 4}}), "96", 2);
    // A later plan of length 96 runs the lane kernel with the stored width on any device (the
    // tuned row is chosen, so it beats the shipped fft_local rows of GPUs), other lengths not.
    FftDesc d;
    d.n = 96;
    d.batch = 7;
    CHECK(FftPlan(s.queue, d).describe().find("lane kernel, 4 transforms per work-item") != std::string::npos);
    test::check_host_fft(s.queue, 96, 7, test::seed() + 5);
    d.n = 80;
    CHECK(FftPlan(s.queue, d).describe().find("4 transforms per work-item") == std::string::npos);
    // The narrowed space of a length: widths 4, 8 and 16 (the kernel on), FFT_LANE_MIN 1, one
    // FFT_LANE_MAX for one launch and one below the length (two launches) with their widths.
    TuneOptions dry;
    dry.dry_run = true;
    dry.sizes = {"16384"};
    const auto space = [&](const ParamMap& fixed) {
      TuneOptions t = dry;
      for (const auto& [name, v] : fixed) t.param_values[name] = {v};
      return tune(s.queue, "fft_lanes", t).classes.at(0).space;
    };
    const std::size_t all = space({});
    CHECK(all / space({{"FFT_LANES", 8}}) == 3);
    CHECK(all / space({{"FFT_LANE_MAX", 16384}}) == 2);
    CHECK(all / space({{"FFT_LANE_MIN", 1}}) == 1);
    dry.sizes = {"128"};  // 128 is below every FFT_LANE_MAX: one launch only, one FFT_LANES2
    CHECK(space({}) / space({{"FFT_LANES2", 8}}) == 1);
  }

  TEST_CASE("tune fft_rader: Rader or Bluestein for a prime length, stored under it and used by later plans") {
    TuneEnv env("fft-rader");
    auto& s = test::session();
    TuneOptions o = test::tiny_space("257", {{"FFT_RADER", {0, 2}}, {"FFT_RADER_WG", {64}}, {"FFT_RADER_VPT", {16}}});
    check_tuned_class(s.queue, "fft_rader", o, test::candidate_of(o, {{"FFT_RADER", 2}}), "257", 2,
                      host::fft_tolerance(257));
    // As shipped, 257 runs Bluestein in one launch (its 512-point convolution fits one kernel);
    // the stored row takes Rader's algorithm, for 257 only.
    FftDesc d;
    d.n = 257;
    d.batch = 5;
    CHECK(FftPlan(s.queue, d).describe().find("Rader M=256") != std::string::npos);
    test::check_host_fft(s.queue, 257, 5, test::seed() + 7);
    d.n = 17;
    CHECK(FftPlan(s.queue, d).describe().find("Rader") == std::string::npos);
    // A length Rader's algorithm cannot take (46 = 2 * 23) is refused by name.
    TuneOptions bad;
    bad.sizes = {"47"};
    bad.dry_run = true;
    CHECK_THROWS_WITH_AS(tune(s.queue, "fft_rader", bad), doctest::Contains("47 is not a prime"), InvalidArgument);
  }

  TEST_CASE("tune sgemm_route: the fastest route row is stored and changes the kernel a plan runs, not a batch's") {
    TuneEnv env("route");
    auto& s = test::session();
    // The kernel an n^3 plan runs (configurations(): sgemm_route first, then the kernels used).
    auto kernel_of = [&](std::size_t n, std::size_t batch) {
      SgemmDesc d;
      d.m = d.n = d.k = n;
      d.batch = batch, d.a_stride = d.b_stride = d.c_stride = n * n;
      const SgemmPlan plan(s.queue, d);
      REQUIRE(plan.configurations().size() >= 2);
      return plan.configurations()[1].kernel;
    };
    auto kernel_of_64 = [&] { return kernel_of(64, 1); };
    const ParamMap shipped_route = resolve_configuration("sgemm_route", "*", s.entry.info, Tuning{{}, false}).values;
    REQUIRE(shipped_route.at("SGEMM_DIRECT_MAX") >= 64);  // the shipped row runs 64^3 directly
    CHECK(kernel_of_64() == "sgemm_direct");
    // Strided batches resolve the route's "batch" variant: the tune measures none, so the "*" row
    // it stores must leave their route as it was (here a row of the vendor's, direct at 32^3).
    const ParamMap batch_route = resolve_configuration("sgemm_route", "batch", s.entry.info).values;
    REQUIRE(batch_route.at("SGEMM_DIRECT_MAX") >= 32);
    CHECK(kernel_of(32, 3) == "sgemm_direct");
    TuneOptions o = test::tiny_space("64", {{"SGEMM_DIRECT_MAX", {0, shipped_route.at("SGEMM_DIRECT_MAX")}},
                                            {"SGEMM_TILED", {shipped_route.at("SGEMM_TILED")}},
                                            {"SGEMM_SPLITK", {0}},
                                            {"SGEMM_SPLIT_WAVES", {1}},
                                            {"SGEMM_EDGE", {0}}});
    o.sizes = {"64", "40x48x24:TN"};
    o.sizes_per_class = 1;  // the route times every size all the same
    const ParamMap never_direct = test::candidate_of(o, {{"SGEMM_DIRECT_MAX", 0}});
    detail::TuneFaultScope fault(test::looks_fastest(never_direct));
    const TuneResult r = tune(s.queue, "sgemm_route", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.variant == "*");
    CHECK(c.sizes.size() == 2);
    CHECK(c.best == never_direct);
    REQUIRE(c.stored);
    // Stored as the route row: plans made after it route 64^3 to the tiled kernel.
    CHECK(resolve_configuration("sgemm_route", "*", s.entry.info).values.at("SGEMM_DIRECT_MAX") == 0);
    CHECK(kernel_of_64() == "sgemm_xgemm");
    CHECK(resolve_configuration("sgemm_route", "batch", s.entry.info).values == batch_route);
    CHECK(kernel_of(32, 3) == "sgemm_direct");
  }

  TEST_CASE("tune sgemm_direct: a strided batch is stored under its batch variant and used by batched plans") {
    TuneEnv env("direct-batch");
    auto& s = test::session();
    // The direct kernel's row a batched 24 x 20 x 9 plan runs, and a single product's.
    auto wgd_of = [&](std::size_t batch) {
      SgemmDesc d;
      d.m = 24, d.n = 20, d.k = 9, d.a_ld = 24, d.b_ld = 9, d.c_ld = 24;
      d.batch = batch, d.a_stride = 24 * 9, d.b_stride = 9 * 20, d.c_stride = 24 * 20;
      const SgemmPlan plan(s.queue, d, Tuning{{{"SGEMM_DIRECT_MAX", 16384}}, true});
      REQUIRE(plan.configurations().back().kernel == "sgemm_direct");
      CHECK(plan.configurations().back().variant == (batch > 1 ? "batch32" : "*"));
      return plan.configurations().back().values.at("WGD");
    };
    const int single = static_cast<int>(wgd_of(1));
    const int other = single == 16 ? 8 : 16;
    TuneOptions o = test::tiny_space("24x20x9@5", {{"WGD", {single, other}},
                                                   {"MDIMCD", {8}},
                                                   {"NDIMCD", {8}},
                                                   {"MDIMAD", {8}},
                                                   {"NDIMBD", {8}},
                                                   {"KWID", {1}},
                                                   {"VWMD", {1}},
                                                   {"VWND", {1}},
                                                   {"PADA", {1}},
                                                   {"PADB", {1}}});
    const ParamMap winner = test::candidate_of(o, {{"WGD", other}});
    check_tuned_class(s.queue, "sgemm_direct", o, winner, "batch32", 2);
    CHECK(wgd_of(5) == other);   // batches of matrices up to 32 x 32 take the stored row
    CHECK(wgd_of(1) == single);  // single products keep theirs
    // The tiled kernels and the route take batches as classes of their own (sub-variant
    // ":batch" of the size class; the route's "batch"), beside single products' classes.
    TuneOptions d;
    d.dry_run = true;
    d.sizes = {"24x20x9@5", "64"};
    const TuneResult x = tune(s.queue, "sgemm", d);
    REQUIRE(x.classes.size() == 2);
    CHECK(x.classes[0].variant == "small:batch");
    CHECK(x.classes[1].variant == "small");
    const TuneResult r = tune(s.queue, "sgemm_route", d);
    REQUIRE(r.classes.size() == 2);
    CHECK(r.classes[0].variant == "batch");
    CHECK(r.classes[1].variant == "*");
  }

  TEST_CASE("tune fft: the default row runs what the library runs by default, the lane kernel on CPUs") {
    TuneEnv env("fft-default-lanes");
    auto& s = test::session();
    const bool lanes = resolve_configuration("fft_lanes", "64", s.entry.info, Tuning{{}, false}).at("FFT_LANES") > 0;
    LogCapture logs;
    test::ScopedEnv no_disk("CLFORGE_CACHE_DIR", "off");
    clear_memory_cache();
    TuneOptions o = fft_options();
    o.store = false;
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 1);
    REQUIRE(!r.classes[0].rows.empty());
    CHECK(r.classes[0].rows.front().is_default);
    // The default row's plan compiled the lane kernel where the device's shipped lane row covers
    // the length (the CPU row), and only there: the candidates run with it off.
    CHECK(logs.contains("compiled fft_lanes") == lanes);
  }

  TEST_CASE("tune blur: a recursive scheme's row is stored under its sub-variant and used by that scheme only") {
    TuneEnv env("blur-scheme");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    const ParamMap family = resolve_configuration("blur_recursive", "1", dev, Tuning{{}, false}).values;
    // Every parameter at the family's value but the work-group width, the whole-column scheme's.
    TuneOptions o = test::tiny_space("64x48", {});
    for (const auto& [name, value] : family) o.param_values[name] = {value};
    const int lx = family.at("BLUR_R_LX") == 32 ? 64 : 32;
    o.param_values["BLUR_R_LX"] = {family.at("BLUR_R_LX"), lx};
    o.param_values["BLUR_R_BLOCK"] = {0};
    o.param_values["BLUR_R_FUSE_T"] = {0};
    o.routine_options = {{"method", "recursive-whole"}, {"sigma", "2"}};
    ParamMap winner = test::candidate_of(o, {{"BLUR_R_LX", lx}});
    const detail::TuneFaultScope fault(test::looks_fastest(winner));
    const TuneResult r = tune(s.queue, "blur", o);
    REQUIRE(r.classes.size() == 1);
    CHECK(r.kernel == "blur_recursive");
    CHECK(r.classes[0].variant == "1:whole");
    CHECK(r.classes[0].best == winner);
    REQUIRE(r.classes[0].stored);
    CHECK(resolve_configuration("blur_recursive", "1", dev).values.at("BLUR_R_LX") == family.at("BLUR_R_LX"));
    // The whole-column scheme runs the stored row; the blocked schemes keep the family's.
    auto lx_of = [&](const ParamMap& route) {
      BlurOptions b;
      b.method = BlurMethod::Recursive;
      b.sigma_x = b.sigma_y = 2;
      return detail::check_blur_options(640, 480, PixelFormat::R32F, b, Tuning{route, true}, dev)
          .recursive.at("BLUR_R_LX");
    };
    CHECK(lx_of({{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 0}}) == lx);
    CHECK(lx_of({{"BLUR_R_BLOCK", 64}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 0}}) == family.at("BLUR_R_LX"));
    CHECK(lx_of({{"BLUR_R_BLOCK", 64}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 1}}) == family.at("BLUR_R_LX"));
  }

  TEST_CASE("tune blur: the method's kernel is tuned per channel count and used by later blurs") {
    TuneEnv env("blur");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    const ParamMap winner = blur_candidate(32);
    REQUIRE(winner != resolve_configuration("blur_separable", "1", dev, Tuning{{}, false}).values);
    TuneOptions o = blur_options();
    const detail::TuneFaultScope fault(looks_fastest(winner));
    const TuneResult r = tune(s.queue, "blur", o);
    CHECK(r.kernel == "blur_separable");  // the default method
    CHECK(r.routine_options.at("method") == "separable");
    CHECK(r.routine_options.at("sigma") == "3");
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.variant == "1");  // one float channel
    CHECK(c.space == 2);
    check_stored_winner(c, winner);
    const Configuration cfg = resolve_configuration("blur_separable", "1", dev);
    CHECK(cfg.values == winner);
    CHECK(cfg.sources.at("BLUR_S_ROW_LX").rfind("user " + r.database_path, 0) == 0);
    CHECK(resolve_configuration("blur_separable", "4", dev).sources.at("BLUR_S_ROW_LX").rfind("shipped", 0) == 0);

    // A later separable blur compiles the stored parameters and is right (another size and sigma).
    LogCapture logs;
    test::ScopedEnv no_disk("CLFORGE_CACHE_DIR", "off");
    clear_memory_cache();
    const std::size_t w = 37, h = 29;
    const std::vector<float> in = host::random_floats(w * h, test::seed() + 5);
    BlurOptions bo;
    bo.sigma_x = 1.5;
    bo.sigma_y = 2;
    bo.method = BlurMethod::Separable;
    const std::vector<float> got = gaussian_blur(s.queue, w, h, 1, in, bo);
    const std::vector<double> ref = host::gaussian_blur(in.data(), w, h, 1, w, 1.5, 2, BlurBorder::Clamp);
    CHECK(host::compare(got, ref).ok(host::truncated_blur_tolerance(1.5, 2)));
    CHECK(
        logs.contains("compiled blur_separable with -cl-std=CL1.2 -DBLUR_S_COL_LX=32 -DBLUR_S_COL_LY=4 "
                      "-DBLUR_S_COL_VW=1 -DBLUR_S_COL_WPT=4 -DBLUR_S_FUSED=0 -DBLUR_S_LOCAL=1 -DBLUR_S_ROW_LX=32 "
                      "-DBLUR_S_ROW_LY=1 "
                      "-DBLUR_S_ROW_VW=1"));
  }

  TEST_CASE("tune blur: each size runs at its own sigma (a fused separable row past its halo takes two passes)") {
    TuneEnv env("blur-sigma");
    auto& s = test::session();
    // The fused separable kernel exists for CPU devices only (blur_narrow); a GPU never runs it.
    if (s.entry.info.vendor_class != VendorClass::CPU) return;
    // 32 fused rows: sigma 1 (radius 3, 8 r = 24 rows of halo work) fuses; sigma 6 (radius 18,
    // 144) runs the two passes; the option's sigma, 3 (radius 9, 72), would fuse neither.
    TuneOptions o = blur_options();  // one candidate: rows of 32, taps from global memory, 32 fused rows
    o.param_values["BLUR_S_ROW_LX"] = {32};
    o.param_values["BLUR_S_LOCAL"] = {0};
    o.param_values["BLUR_S_FUSED"] = {32};
    o.store = false;
    test::ScopedEnv no_disk("CLFORGE_CACHE_DIR", "off");
    for (const char* size : {"96x64,sigma=1", "96x64,sigma=6"}) {
      CAPTURE(size);
      o.sizes = {size};
      clear_memory_cache();
      LogCapture logs;
      const TuneResult r = tune(s.queue, "blur", o);
      REQUIRE(r.classes.size() == 1);
      CHECK(r.classes[0].sizes == std::vector<std::string>{size});
      bool ok = false;
      for (const auto& row : r.classes[0].rows) ok = ok || (!row.is_default && row.status == CandidateStatus::Ok);
      CHECK(ok);  // verified against the host blur at the size's sigma
      // The candidate's program (the default row's vectors are wider): fused, or the two passes.
      const std::string mine = "-DBLUR_S_COL_LY=4 -DBLUR_S_COL_VW=1 -DBLUR_S_COL_WPT=4 -DBLUR_S_FUSED=";
      const bool fused = std::string(size).find("sigma=1") != std::string::npos;
      CHECK(logs.contains(mine + "32") == fused);
      CHECK(logs.contains(mine + "0") == !fused);  // the check size, at the same sigma, too
    }
    o.routine_options = {{"method", "recursive"}};  // below the recursive filter's range
    o.sizes = {"96x64,sigma=0.4"};
    o.param_values.clear();
    CHECK_THROWS_AS(tune(s.queue, "blur", o), InvalidArgument);
  }

  TEST_CASE("tune fft: a real-input size is timed as R2C and stored for the complex FFT inside real plans") {
    TuneEnv env("fft-real");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    const ParamMap winner = fft_candidate(64);
    TuneOptions o = fft_options();
    o.sizes = {"128@9:r"};  // 9 real-input transforms of 128 points: a complex FFT of 64 inside
    const detail::TuneFaultScope fault(looks_fastest(winner));
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.variant == "64:real");
    CHECK(c.sizes == std::vector<std::string>{"128@9:r"});
    check_stored_winner(c, winner, host::fft_tolerance(128));
    // Real plans of 128 points resolve the stored row; complex plans of 64 keep theirs.
    const Configuration real = resolve_configuration("fft", "64:real", dev);
    CHECK(real.values == winner);
    CHECK(real.sources.at("FFT_WG").rfind("user " + r.database_path, 0) == 0);
    CHECK(resolve_configuration("fft", "64", dev).sources.at("FFT_WG").rfind("user", 0) != 0);
    RealFftDesc d;
    d.n = 128;
    d.batch = 3;
    const Tuning local{{{"FFT_LANES", 0}}, true};  // the fft_local kernel, on CPU devices too
    CHECK(RealFftPlan(s.queue, d, local).configurations().front().at("FFT_WG") == 64);
    // Sizes the real-input plan runs in more than its one kernel are refused.
    o.sizes = {"1009@2:r"};
    CHECK_THROWS_AS(tune(s.queue, "fft", o), InvalidArgument);
  }

  TEST_CASE("tune fft: a wrong candidate is rejected and never stored, even when it looks fastest") {
    TuneEnv env("reject-fft");
    auto& s = test::session();
    {
      const ParamMap wrong = fft_candidate(256), fast = fft_candidate(64);
      TuneOptions o = fft_options();
      const detail::TuneFaultScope fault(wrong_looks_fastest(wrong, fast));
      const TuneResult r = tune(s.queue, "fft", o);
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      test::check_rejected(c, wrong, "NaN or infinite");
      REQUIRE(c.has_best);
      CHECK(c.best == fast);
      CHECK(resolve_configuration("fft", "64", s.entry.info).values == fast);
    }
  }

  TEST_CASE("tune blur: a wrong candidate is rejected and never stored, even when it looks fastest") {
    TuneEnv env("reject-blur");
    auto& s = test::session();
    {
      // Recursive method, sigma 2: the blur_recursive kernel.
      const ParamMap base = {{"BLUR_R_BLOCK", 16},    {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 1},
                             {"BLUR_R_BATCH", 2},     {"BLUR_R_NEXT_CARRY", 1},   {"BLUR_R_LINK_SPLIT", 2},
                             {"BLUR_R_LINK_BATCH", 2}};
      ParamMap wrong = base, fast = base;
      wrong["BLUR_R_LX"] = 32;
      fast["BLUR_R_LX"] = 16;
      TuneOptions o = blur_options();
      o.routine_options = {{"method", "recursive"}, {"sigma", "2"}};
      o.param_values = {{"BLUR_R_LX", {16, 32}},    {"BLUR_R_BLOCK", {16}},    {"BLUR_R_NARROW", {1 << 30}},
                        {"BLUR_R_FUSE_T", {1}},     {"BLUR_R_BATCH", {2}},     {"BLUR_R_NEXT_CARRY", {1}},
                        {"BLUR_R_LINK_SPLIT", {2}}, {"BLUR_R_LINK_BATCH", {2}}};
      const detail::TuneFaultScope fault(wrong_looks_fastest(wrong, fast));
      const TuneResult r = tune(s.queue, "blur", o);
      CHECK(r.kernel == "blur_recursive");
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      CHECK(c.rejected == 1);
      for (const auto& row : c.rows) {
        INFO(params_text(row.params) << row.message);
        if (row.params == wrong) {
          CHECK(row.status == CandidateStatus::Rejected);
          CHECK(row.message.find("NaN or infinite") != std::string::npos);  // the NaN the fault wrote
        } else {
          CHECK(row.status == CandidateStatus::Ok);
        }
      }
      REQUIRE(c.has_best);
      CHECK(c.best == fast);
      CHECK(resolve_configuration("blur_recursive", "1", s.entry.info).values == fast);
    }
  }

  TEST_CASE("tune fft and blur: size classes, narrowed spaces and bad options (dry runs)") {
    TuneEnv env("fft-blur-args");
    auto& s = test::session();
    TuneOptions o;
    o.dry_run = true;
    // Lengths with a prime factor above 13 are stored under their Bluestein kernel length;
    // the interleaved layout (of fewer than 16 transforms) and the batch do not change the class.
    o.sizes = {"64", "1009", "64@3:t", "2048@2"};
    TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 2);
    CHECK(r.classes[0].variant == "64");
    CHECK(r.classes[0].sizes == std::vector<std::string>{"64", "64@3:t"});
    CHECK(r.classes[1].variant == "2048");
    CHECK(r.classes[1].sizes == std::vector<std::string>{"1009", "2048@2"});
    {
      // 16 or more interleaved transforms lie as columns: their class is "64:cols".
      TuneOptions c = o;
      c.sizes = {"64@16:t", "64@16", "64@15:t"};
      const TuneResult rc = tune(s.queue, "fft", c);
      REQUIRE(rc.classes.size() == 2);
      CHECK(rc.classes[0].variant == "64:cols");
      CHECK(rc.classes[0].sizes == std::vector<std::string>{"64@16:t"});
      CHECK(rc.classes[1].variant == "64");
      CHECK(rc.classes[1].sizes == std::vector<std::string>{"64@16", "64@15:t"});
    }
    // Length 64: FFT_LOCAL_MAX has one value, FFT_REG two (registers or not), FFT_RADIX three
    // (radix 8 and 16 both split 64 into 8*8), FFT_MIX one (no odd factors), FFT_VPT eight
    // (work-items per transform under radix 2, 4, 8, 16, 32: 32-16-8-8-8 for 0, 16-32-32-32-32
    // for 3, all 16 for 4, 8-8-16-16-16 for 5 and 6, all 8, 4, 2 or 1 for 8, 10 ... 16, 20 ... 32
    // and 64).
    // The class has an interleaved size, so FFT_STAGE keeps its four values, FFT_ACROSS its three
    // and FFT_COLS its two.
    // FFT_WG, HALVE, TWIDDLE, DCHAIN (8*8 has a chain of powers), PAD, VEC, STAGE, ACROSS, COLS
    const std::size_t full = 7 * 3 * 4 * 2 * 2 * 2 * 4 * 3 * 2;
    CHECK(r.classes[0].space == full * 2 * 3 * 8);
    CHECK(r.classes[0].illegal + r.classes[0].unfit + r.classes[0].candidates == r.classes[0].space);
    // How many values of a parameter the narrowing keeps for a length: the space over the space
    // with that parameter fixed (a caller's list is taken as given).
    const auto kept = [&](const std::string& param, const std::string& size) {
      TuneOptions t = o;
      t.sizes = {size};
      const std::size_t all = tune(s.queue, "fft", t).classes.at(0).space;
      t.param_values = {{param, {param == "FFT_DCHAIN" ? 1 : 0}}};
      return all / tune(s.queue, "fft", t).classes.at(0).space;
    };
    // FFT_TWIDDLE 3 and 4 differ from 0 only where a pass's table is large (and from 2 and 5 only
    // where another is not): six values for 16384 (the last pass's table of (R - 1) * NS entries is
    // large under every radix, an earlier one small), four for 64 (0, 1, 2, 5).
    CHECK(kept("FFT_TWIDDLE", "16384") == 6);
    CHECK(kept("FFT_TWIDDLE", "64") == 4);
    // FFT_MIX keeps the values that merge odd factors differently: three for 3000 (8*5*5*5*3,
    // 8*15*5*5, 8*25*15), two for 1000 (no 3: 8*5*5*5 or 8*25*5), one for 64.
    CHECK(kept("FFT_MIX", "3000") == 3);
    CHECK(kept("FFT_MIX", "1000") == 2);
    CHECK(kept("FFT_MIX", "64") == 1);
    // FFT_DCHAIN: two chains differ from one where a pass after the first has a radix above 2.
    CHECK(kept("FFT_DCHAIN", "64") == 2);
    CHECK(kept("FFT_DCHAIN", "2") == 1);
    // FFT_COLS (the column form of strided batches) only varies for a class with a strided size.
    CHECK(kept("FFT_COLS", "64") == 1);
    CHECK(kept("FFT_COLS", "64@3:t") == 2);
    // A length run as passes lists its splits' FFT_PASS_MAX values with the reference's first,
    // then fewest passes first, the most even of a count first: 2^19 in passes of at most 4096
    // points takes two passes from 1024 on (1024 * 512), three below (512 * 512 * 2 ...).
    {
      const detail::TuneTarget ft = detail::fft_tune_target();
      ParamMap ref = resolve_configuration("fft", "524288", s.entry.info, Tuning{{}, false}).values;
      ref["FFT_LOCAL_MAX"] = 4096;
      ref["FFT_PASS_MAX"] = 128;
      const std::vector<int> pm = ft.narrow("524288", {"524288@2"}, ref, s.entry.info).at("FFT_PASS_MAX");
      REQUIRE(pm.size() >= 3);
      CHECK(pm[0] == 128);
      CHECK(pm[1] == 1024);
    }
    // Blur: channels are the class; the recursive split threshold collapses to one value per
    // way of splitting the class's images: never, only the shorter side's passes (e.g. 256 for
    // 300x200, 64 for 64x48), both.
    o.sizes = {"300x200", "64x48:4"};
    o.routine_options = {{"method", "recursive"}};
    r = tune(s.queue, "blur", o);
    CHECK(r.kernel == "blur_recursive");
    CHECK(r.routine_options.at("sigma") == "10");
    REQUIRE(r.classes.size() == 2);
    CHECK(r.classes[0].variant == "1");
    CHECK(r.classes[1].variant == "4");
    // LX, BLOCK, NARROW (3), FUSE_T, BATCH, NEXT_CARRY, LINK_SPLIT, LINK_BATCH
    CHECK(r.classes[0].space == 5 * 6 * 3 * 2 * 5 * 2 * 5 * 5);
    CHECK(r.classes[1].space == 5 * 6 * 3 * 2 * 5 * 2 * 5 * 5);

    // A way of splitting the class's images that splits every pass is represented by the largest
    // threshold (larger images split too), one that splits none by the smallest (they stay whole);
    // the reference keeps its own value. 300x200: never, the 200-wide passes only, both.
    CHECK(detail::recursive_narrow_values({"4096x4096"}, 4096) == std::vector<int>{4096, 1 << 30});
    CHECK(detail::recursive_narrow_values({"4096x4096"}, 1 << 30) == std::vector<int>{1 << 30, 0});
    CHECK(detail::recursive_narrow_values({"300x200"}, 4096) == std::vector<int>{4096, 0, 256});
    CHECK(detail::recursive_narrow_values({"300x200"}, 0) == std::vector<int>{0, 256, 1 << 30});

    // The fused separable kernel is searched on CPU devices only (a GPU reads its whole-row
    // work-items uncoalesced); every value of it on a CPU device.
    {
      const detail::TuneTarget bt = detail::blur_tune_target();
      const ParamMap ref = resolve_configuration("blur_separable", "1", s.entry.info, Tuning{{}, false}).values;
      DeviceInfo gpu = s.entry.info, cpu = s.entry.info;
      gpu.vendor_class = VendorClass::NVIDIA;
      gpu.type = "GPU";
      cpu.vendor_class = VendorClass::CPU;
      CHECK(bt.narrow("1", {"300x200"}, ref, gpu).at("BLUR_S_FUSED") == std::vector<int>{0});
      CHECK(bt.narrow("1", {"300x200"}, ref, cpu).count("BLUR_S_FUSED") == 0);
    }

    auto expect = [&](const std::string& routine, const TuneOptions& opt, const std::string& needle) {
      test::expect_invalid_argument([&] { tune(s.queue, routine, opt); }, needle);
    };
    TuneOptions b = o;
    b.routine_options = {{"sigma", "x"}};
    expect("blur", b, "'x'");
    b.routine_options = {{"method", "recursive"}, {"sigma", "0.25"}};
    expect("blur", b, "0.25");
    b.routine_options = {{"method", "auto"}};
    expect("blur", b, "'auto' is not one of separable, direct, recursive");
    b.routine_options = {{"border", "zero"}};
    expect("blur", b, "no tuning option 'border'");
    expect("transpose", b, "(it has none)");
    b = o;
    b.routine_options.clear();
    for (const char* bad : {"64x", "0x5", "64x48:3", "64x48:2"}) {
      b.sizes = {bad};
      expect("blur", b, "'" + std::string(bad) + "'");
    }
    for (const char* bad : {"0", "64@", "64@0", "64:x", "x"}) {
      b.sizes = {bad};
      expect("fft", b, "'" + std::string(bad) + "'");
    }
    b.sizes = {"40009"};  // a prime: Bluestein passes of 2^17 points
    expect("fft", b, "runs as Bluestein passes, which the tuner does not search");
    CHECK(!detail::file_exists(user_database_path(s.entry.info)));
  }
}
