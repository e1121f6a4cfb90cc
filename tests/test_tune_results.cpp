// The tuner on tiny spaces (64x64 transposes, 2 to 5 candidates): results persisted in the
// user database and picked up by later calls (sources and build options), wrong candidates
// rejected even when made to look fastest, build failures counted, an interrupted tune leaving
// a valid database, a corrupt database reported with its path and left alone. The search
// (spaces, strategies, run-off, limits, arguments) is tested in test_tune_search.cpp, the FFT
// and blur targets in test_tune_families.cpp, the CLI in test_tune_cli.cpp. No assertion
// depends on measured times: where a winner matters, the fault hook decides it.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "clforge/fft.hpp"
#include "clforge/sgemm.hpp"
#include "host/reference.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/program_cache.hpp"
#include "tests/tune_support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;
using test::fastest_ok;
using test::LogCapture;
using test::looks_fastest;
using test::params_text;
using test::shipped;
using test::small_candidate;
using test::small_options;
using test::TuneEnv;
using test::wrong_looks_fastest;

TEST_SUITE("tune") {
  TEST_CASE("tuned parameters are stored for the device and picked up by later calls") {
    TuneEnv env("persist");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    // Make a non-default candidate win, whatever this device measures.
    const ParamMap winner = small_candidate(8, 2);
    REQUIRE(winner != shipped("4"));
    TuneOptions o = small_options();
    const detail::TuneFaultScope fault(looks_fastest(winner));
    std::vector<TuneProgress> progress;
    o.progress = [&](const TuneProgress& p) { progress.push_back(p); };

    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(r.routine == "transpose");
    CHECK(!r.interrupted);
    CHECK(c.variant == "4");  // what the transpose launcher looks up for 4-byte elements
    CHECK(c.space == 4);
    CHECK(c.illegal == 0);
    CHECK(c.candidates + c.unfit == 4);
    CHECK(c.rejected == 0);
    CHECK(c.build_failed == 0);
    CHECK(c.run_failed == 0);
    // The default first, then each candidate once.
    REQUIRE(!c.rows.empty());
    CHECK(c.rows.front().is_default);
    CHECK(c.rows.front().params == shipped("4"));
    CHECK(c.default_params == shipped("4"));
    std::set<ParamMap> seen;
    for (const auto& row : c.rows) {
      INFO(params_text(row.params) << to_string(row.status) << " " << row.message);
      CHECK(row.status == CandidateStatus::Ok);
      CHECK(row.error == 0.0);
      CHECK(row.ms > 0);
      seen.insert(row.params);
    }
    CHECK(seen.size() == c.rows.size());
    CHECK(c.tried == c.rows.size());
    bool default_in_space = false;
    for (int t : {8, 16})
      for (int w : {1, 2}) default_in_space |= small_candidate(t, w) == shipped("4");
    CHECK(c.tried == c.candidates + (default_in_space ? 0 : 1));
    REQUIRE(c.has_best);
    CHECK(c.best == winner);
    CHECK(c.best == fastest_ok(c)->params);
    CHECK(c.best_ms == doctest::Approx(fastest_ok(c)->ms));
    CHECK(c.speedup == doctest::Approx(c.default_ms / c.best_ms));
    CHECK(c.stored);
    CHECK(c.store_error.empty());
    // One progress report per candidate, counting up to the planned total, then one for the end.
    REQUIRE(progress.size() == c.tried + 1);
    for (std::size_t i = 0; i < c.tried; ++i) {
      CHECK(progress[i].done == i + 1);
      CHECK(progress[i].total == c.tried);
      CHECK(progress[i].fraction == doctest::Approx(static_cast<double>(i + 1) / static_cast<double>(c.tried)));
      CHECK(progress[i].variant == "4");
      CHECK(!progress[i].class_done);
    }
    CHECK(progress.back().class_done);
    CHECK(progress.back().fraction == 1.0);
    CHECK(progress.back().best == winner);

    // Persisted in this device's user database ...
    CHECK(r.database_path == user_database_path(dev));
    CHECK(r.database_path.rfind(env.dir, 0) == 0);
    const auto j = nlohmann::json::parse(*detail::read_file(r.database_path));
    REQUIRE(j["entries"].size() == 1);
    CHECK(j["entries"][0]["variant"] == "4");
    CHECK(j["entries"][0]["kernel"] == "transpose");

    // ... and picked up by later lookups: values, sources and compiler options.
    const Configuration cfg = resolve_configuration("transpose", "4", dev);
    for (const auto& [name, value] : winner) {
      INFO(name);
      CHECK(cfg.at(name) == value);
      CHECK(cfg.sources.at(name).rfind("user " + r.database_path, 0) == 0);
    }
    const std::string options = detail::build_options(cfg, {});
    CHECK(options.find("-DTRA_TILE=8 -DTRA_VW=1 -DTRA_WPT=2") != std::string::npos);

    // A later transpose compiles exactly those options and is right (odd shape, partial tiles).
    {
      LogCapture logs;
      test::ScopedEnv no_disk("CLFORGE_CACHE_DIR", "off");
      clear_memory_cache();
      const std::size_t rows = 37, cols = 45;
      const std::vector<float> in = host::random_floats(rows * cols, test::seed() + 11);
      const std::vector<float> out = transpose(s.queue, rows, cols, in);
      std::vector<float> ref(rows * cols);
      host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
      CHECK(std::memcmp(out.data(), ref.data(), ref.size() * 4) == 0);
      CHECK(logs.contains(
          "compiled transpose with -cl-std=CL1.2 -DTRA_DIAG=0 -DTRA_LOCAL=1 -DTRA_NT=0 -DTRA_PAD=1 -DTRA_SWZ=0 "
          "-DTRA_TILE=8 "
          "-DTRA_VW=1 -DTRA_WPT=2"));
    }

    // Switched off per call and through the environment: the shipped values come back.
    Configuration off = resolve_configuration("transpose", "4", dev, Tuning{{}, false});
    CHECK(off.values == shipped("4"));
    CHECK(off.sources.at("TRA_TILE").rfind("shipped", 0) == 0);
    {
      test::ScopedEnv tuning_off("CLFORGE_TUNING", "off");
      off = resolve_configuration("transpose", "4", dev);
      CHECK(off.sources.at("TRA_TILE").rfind("shipped", 0) == 0);
    }
    // Other element sizes are other variants: untouched.
    CHECK(resolve_configuration("transpose", "8", dev).sources.at("TRA_TILE").rfind("shipped", 0) == 0);
  }

  TEST_CASE("tune sgemm_pack: one row for every operand, stored, and packing the tiled paths' operands") {
    TuneEnv env("pack");
    auto& s = test::session();
    // The packing row a plan of xgemm's path resolves (its last configuration: sgemm_pack).
    auto pack_of = [&](std::size_t m, std::size_t n, std::size_t k) {
      SgemmDesc d;
      d.m = m, d.n = n, d.k = k, d.a_ld = m, d.b_ld = k, d.c_ld = m;
      const SgemmPlan plan(s.queue, d, Tuning{{{"SGEMM_DIRECT_MAX", 0}, {"SGEMM_TILED", 0}}, true});
      REQUIRE(plan.configurations().back().kernel == "sgemm_pack");
      return plan.configurations().back().values;
    };
    TuneOptions o = test::tiny_space("96", {{"PACK_TILE", {16}}, {"PACK_WPT", {4, 16}}, {"PACK_VW", {1, 4}}});
    o.sizes = {"96", "67x45x33:TN"};
    o.sizes_per_class = 1;  // one class: every candidate times every size
    const ParamMap blocks = test::candidate_of(o, {{"PACK_WPT", 16}, {"PACK_VW", 4}});
    REQUIRE(pack_of(67, 45, 33) != blocks);
    detail::TuneFaultScope fault(test::looks_fastest(blocks));
    const TuneResult r = tune(s.queue, "sgemm_pack", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.variant == "*");
    CHECK(c.sizes.size() == 2);
    CHECK(c.illegal == 1);  // PACK_WPT 4 with PACK_VW 4 is no block of 4 x 4
    CHECK(c.candidates == 3);
    CHECK(c.best == blocks);
    REQUIRE(c.stored);
    // Plans made after it pack with the stored row, whatever their size class.
    CHECK(pack_of(67, 45, 33) == blocks);
    CHECK(pack_of(300, 200, 500) == blocks);
  }

  TEST_CASE("tune fft_real: the real-input ends' one row, stored and run by later real plans") {
    TuneEnv env("fft-real");
    auto& s = test::session();
    auto ends_of = [&](std::size_t n) {  // the ends' row a real plan of n points runs
      RealFftDesc d;
      d.n = n;
      d.batch = 3;
      return RealFftPlan(s.queue, d).configurations().back();
    };
    REQUIRE(ends_of(20000).kernel == "fft_real");
    const int other = ends_of(20000).values.at("FFT_REAL_CHUNK") ? 0 : 1;
    TuneOptions o = test::tiny_space("300@7:r", {{"FFT_REAL_CHUNK", {0, 1}}, {"FFT_REAL_PER", {2}}});
    const ParamMap chosen = test::candidate_of(o, {{"FFT_REAL_CHUNK", other}});
    detail::TuneFaultScope fault(test::looks_fastest(chosen));
    const TuneResult r = tune(s.queue, "fft_real", o);
    REQUIRE(r.classes.size() == 1);
    CHECK(r.classes[0].variant == "*");
    CHECK(r.classes[0].best == chosen);
    REQUIRE(r.classes[0].stored);
    CHECK(ends_of(20000).values == chosen);
    // A complex size has no real-input ends to time.
    TuneOptions complex = o;
    complex.sizes = {"64"};
    CHECK_THROWS_AS(tune(s.queue, "fft_real", complex), InvalidArgument);
  }

  TEST_CASE("the tuner's builds are the launcher's builds (no second compile when the routine runs)") {
    TuneEnv env("prebuild");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.store = false;
    o.sizes = {"64", "48x40"};
    o.param_values["TRA_VW"] = {4};  // vector paths: routine constants depend on the shape
    o.param_values["TRA_TILE"] = {16};
    o.param_values["TRA_WPT"] = {2};
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    CHECK(r.classes[0].sizes.size() == 2);
    CHECK(!r.classes[0].stored);
    CHECK(!detail::file_exists(r.database_path));
    for (const auto& row : r.classes[0].rows) {
      INFO(params_text(row.params) << row.message);
      CHECK(row.status == CandidateStatus::Ok);
    }
    ParamMap q = small_candidate(16, 2);
    q["TRA_VW"] = 4;
    const CacheStats before = cache_stats();
    cl::Buffer in(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), out(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    transpose(s.queue, 64, 64, 4, {in, 0, 64}, {out, 0, 64}, {}, nullptr, Tuning{q, false});
    transpose(s.queue, 48, 40, 4, {in, 0, 40}, {out, 0, 48}, {}, nullptr, Tuning{q, false});
    s.queue.finish();
    const CacheStats after = cache_stats();
    CHECK(after.compiles == before.compiles);
    CHECK(after.disk_hits == before.disk_hits);
    // At most one memory-cache lookup per call: none when the call's plan is cached already.
    CHECK(after.memory_hits <= before.memory_hits + 2);
  }

  TEST_CASE("a wrong candidate is rejected and never wins, even when it looks fastest") {
    TuneEnv env("reject");
    auto& s = test::session();
    const ParamMap wrong = small_candidate(16, 2), fast = small_candidate(8, 1);
    TuneOptions o = small_options();
    const detail::TuneFaultScope fault(
        wrong_looks_fastest(wrong, fast));  // a correct candidate made fast must win instead
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.rejected == 1);
    CHECK(r.rejected() == 1);
    bool found = false;
    for (const auto& row : c.rows) {
      if (row.params != wrong) continue;
      found = true;
      CHECK(row.status == CandidateStatus::Rejected);
      CHECK(row.error > 0);
      INFO(row.message);
      CHECK(row.message.find("NaN or infinite") != std::string::npos);  // the NaN the fault wrote
    }
    CHECK(found);
    REQUIRE(c.has_best);
    CHECK(c.best != wrong);
    CHECK(c.best == fast);
    CHECK(resolve_configuration("transpose", "4", s.entry.info).values == fast);
  }

  TEST_CASE("candidates that fail to build are counted, skipped, and their log goes to the log hook") {
    TuneEnv env("buildfail");
    auto& s = test::session();
    // A kernel folder whose transpose does not compile with TRA_TILE = 8.
    const std::string kdir = test::temp_dir("kernels");
    REQUIRE(std::system(("cp -r '" + std::string(CLFORGE_SOURCE_DIR) + "/cl/.' '" + kdir + "/'").c_str()) == 0);
    const std::string kfile = kdir + "/transpose/transpose.cl";
    const auto text = detail::read_file(kfile);
    REQUIRE(text.has_value());
    std::ofstream(kfile) << "#if TRA_TILE == 8\n#error \"tile 8 broken for the tuner test\"\n#endif\n" << *text;
    test::ScopedEnv kernels("CLFORGE_KERNEL_DIR", kdir);
    LogCapture logs;
    TuneOptions o = small_options();
    o.compile_threads = 2;
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.build_failed == 2);
    CHECK(r.build_failed() == 2);
    CHECK(c.rejected == 0);
    for (const auto& row : c.rows) {
      INFO(params_text(row.params) << row.message);
      if (row.params.at("TRA_TILE") == 8) {
        CHECK(row.status == CandidateStatus::BuildFailed);
        CHECK(row.message.find("clBuildProgram") != std::string::npos);
      } else {
        CHECK(row.status == CandidateStatus::Ok);
      }
    }
    REQUIRE(c.has_best);
    CHECK(c.best.at("TRA_TILE") != 8);
    CHECK(logs.contains("tile 8 broken for the tuner test"));
  }

  TEST_CASE("an interrupted tune keeps its measurements in the tune cache, or without one stores the best so far") {
    TuneEnv env("interrupt");
    auto& s = test::session();
    std::atomic<bool> stop{false};
    TuneOptions o = small_options();
    o.stop = &stop;
    o.progress = [&](const TuneProgress& p) {
      if (p.done == 2) stop = true;
    };
    const detail::TuneFaultScope fault([def = shipped("4")](const ParamMap& p) {  // any candidate beats the default
      detail::TuneFault f;
      if (p != def) f.time_scale = 1e-3;
      return f;
    });
    TuneResult r = tune(s.queue, "transpose", o);
    CHECK(r.interrupted);
    REQUIRE(r.classes.size() == 1);
    CHECK(r.classes[0].tried == 2);
    CHECK(!r.classes[0].stored);
    CHECK(!detail::file_exists(r.database_path));
    CHECK(test::cache_records(r.cache_path).size() == 2);

    stop = false;
    o.cache_file = "off";
    r = tune(s.queue, "transpose", o);
    CHECK(r.interrupted);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.tried == 2);
    CHECK(c.rows.size() == 2);
    REQUIRE(c.has_best);
    REQUIRE(fastest_ok(c) != nullptr);
    CHECK(c.best == fastest_ok(c)->params);
    CHECK(c.stored);
    const auto j = nlohmann::json::parse(*detail::read_file(r.database_path));
    CHECK(j["entries"].size() == 1);
    const Configuration cfg = resolve_configuration("transpose", "4", s.entry.info);
    CHECK(cfg.values == c.best);
    CHECK(cfg.sources.at("TRA_WPT").rfind("user ", 0) == 0);
  }

  TEST_CASE("a corrupt user database is reported with its path before any work and left unchanged") {
    TuneEnv env("corrupt");
    auto& s = test::session();
    const std::string path = user_database_path(s.entry.info);
    REQUIRE(detail::make_dirs(env.dir));
    for (const std::string& bad : {std::string("{ truncated"),
                                   std::string(R"({"entries": [{"kernel": "transpose", "params": {"NOPE": 1}}]})")}) {
      std::ofstream(path) << bad;
      const CacheStats before = cache_stats();
      try {
        tune(s.queue, "transpose", small_options());
        FAIL("a corrupt user database was accepted");
      } catch (const TuningError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find(path) != std::string::npos);
      }
      CHECK(cache_stats().compiles == before.compiles);
      CHECK(*detail::read_file(path) == bad);
      // Even with the user database switched off for lookups, it is not overwritten.
      test::ScopedEnv off("CLFORGE_TUNING", "off");
      CHECK_THROWS_AS(tune(s.queue, "transpose", small_options()), TuningError);
      CHECK(*detail::read_file(path) == bad);
    }
  }
}
