// The tuner on tiny spaces (64x64 transposes, 2 to 5 candidates): results persisted in the
// user database and picked up by later calls (sources and build options), wrong candidates
// rejected even when made to look fastest, build failures counted, an interrupted tune leaving
// a valid database, a corrupt database reported with its path and left alone, and the CLI
// (`clforge tune`, then `clforge params`). No assertion depends on measured times: where a
// winner matters, the fault hook decides it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/wait.h>

#include "host/blur.hpp"
#include "host/fft.hpp"
#include "host/reference.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"
#include "runtime/util.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

// A small space: `values` lists the searched values of every parameter; short timing; no
// run-off, so the result is the search's fastest (the run-off has a test of its own).
TuneOptions tiny_space(const std::string& size, const std::map<std::string, std::vector<int>>& values) {
  TuneOptions o;
  o.sizes = {size};
  o.param_values = values;
  o.seed = test::seed();
  o.warmup = 1;
  o.min_reps = 3;
  o.max_reps = 5;
  o.min_time_ms = 0.2;
  o.finalists = 0;
  return o;
}

// The candidate of a tiny space whose open parameters take the values in `choice` (every
// other parameter has a single value there).
ParamMap candidate_of(const TuneOptions& o, const ParamMap& choice) {
  ParamMap p;
  for (const auto& [name, vals] : o.param_values) p[name] = vals.front();
  for (const auto& [name, v] : choice) p[name] = v;
  return p;
}

// 2 x 2 candidates: TRA_TILE 8/16, TRA_WPT 1/2, all other parameters fixed.
TuneOptions small_options() {
  return tiny_space("64", {{"TRA_TILE", {8, 16}}, {"TRA_WPT", {1, 2}}, {"TRA_VW", {1}}, {"TRA_PAD", {1}},
                           {"TRA_DIAG", {0}}, {"TRA_SWZ", {0}}, {"TRA_LOCAL", {1}}, {"TRA_NT", {0}}});
}

ParamMap small_candidate(int tile, int wpt) {
  return candidate_of(small_options(), {{"TRA_TILE", tile}, {"TRA_WPT", wpt}});
}

// Fault injection of the rejection tests: `wrong` returns a corrupted output and times as the
// fastest by far; `fast` is correct and made fast, so it must win instead.
// The fault that makes `winner` look fastest whatever this device measures.
std::function<TuneFault(const ParamMap&)> looks_fastest(const ParamMap& winner) {
  return [winner](const ParamMap& p) {
    TuneFault f;
    if (p == winner) f.time_scale = 1e-4;
    return f;
  };
}

std::function<TuneFault(const ParamMap&)> wrong_looks_fastest(const ParamMap& wrong, const ParamMap& fast) {
  return [wrong, fast](const ParamMap& p) {
    TuneFault f;
    if (p == wrong) {
      f.corrupt_output = true;
      f.time_scale = 1e-6;
    }
    if (p == fast) f.time_scale = 1e-3;
    return f;
  };
}

ParamMap shipped(const std::string& variant) {
  return resolve_configuration("transpose", variant, test::session().entry.info, Tuning{{}, false}).values;
}

// Environment of a tuning test: its own user database folder, no tuning file, tuning on.
struct TuneEnv {
  std::string dir;
  test::ScopedEnv user, file, off;
  explicit TuneEnv(const std::string& tag)
      : dir(test::temp_dir(tag)),
        user("CLFORGE_USER_TUNING_DIR", dir),
        file("CLFORGE_TUNING_FILE", std::nullopt),
        off("CLFORGE_TUNING", std::nullopt) {}
};

const TuneRow* fastest_ok(const TuneClassResult& c) {
  const TuneRow* best = nullptr;
  for (const auto& row : c.rows)
    if (row.status == CandidateStatus::Ok && (best == nullptr || row.ms < best->ms)) best = &row;
  return best;
}

std::string params_text(const ParamMap& p) {
  std::string s;
  for (const auto& [k, v] : p) s += k + "=" + std::to_string(v) + " ";
  return s;
}

// Captures log messages at Debug level for a scope.
class LogCapture {
 public:
  LogCapture() : level_(log_level()) {
    set_log_level(LogLevel::Debug);
    set_log_callback([this](LogLevel, const std::string& m) {
      std::lock_guard<std::mutex> lock(m_);
      lines_.push_back(m);
    });
  }
  ~LogCapture() {
    set_log_callback(nullptr);
    set_log_level(level_);
  }
  bool contains(const std::string& needle) {
    std::lock_guard<std::mutex> lock(m_);
    for (const auto& l : lines_)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }

 private:
  LogLevel level_;
  std::mutex m_;
  std::vector<std::string> lines_;
};

// FFT of length 64: 2 candidates (FFT_WG 64 or 256), every other parameter fixed.
TuneOptions fft_options(int wg_a = 64, int wg_b = 256) {
  return tiny_space("64", {{"FFT_WG", {wg_a, wg_b}}, {"FFT_RADIX", {16}}, {"FFT_REG", {32}}, {"FFT_LOCAL_MAX", {4096}},
                           {"FFT_PASS_MAX", {32768}}, {"FFT_HALVE", {0}}, {"FFT_TWIDDLE", {0}}, {"FFT_PAD", {1}}, {"FFT_VEC", {1}},
                           {"FFT_STAGE", {0}}, {"FFT_ACROSS", {8}}, {"FFT_VPT", {0}}, {"FFT_MIX", {0}}, {"FFT_DCHAIN", {1}}, {"FFT_CHUNK", {0}}});
}

ParamMap fft_candidate(int wg) { return candidate_of(fft_options(), {{"FFT_WG", wg}}); }

// Separable blur of 64x48 pixels, one channel: 2 candidates (row work-group width 32 or 64).
TuneOptions blur_options() {
  return tiny_space("64x48", {{"BLUR_S_ROW_LX", {32, 64}}, {"BLUR_S_ROW_LY", {1}}, {"BLUR_S_ROW_VW", {1}},
                              {"BLUR_S_COL_LX", {32}}, {"BLUR_S_COL_LY", {4}}, {"BLUR_S_COL_WPT", {4}},
                              {"BLUR_S_LOCAL", {1}}});
}

ParamMap blur_candidate(int row_lx) { return candidate_of(blur_options(), {{"BLUR_S_ROW_LX", row_lx}}); }


}  // namespace

TEST_SUITE("tune") {
  TEST_CASE("tuned parameters are stored for the device and picked up by later calls") {
    TuneEnv env("persist");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    // Make a non-default candidate win, whatever this device measures.
    const ParamMap winner = small_candidate(8, 2);
    REQUIRE(winner != shipped("4"));
    TuneOptions o = small_options();
    o.fault = looks_fastest(winner);
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
    // One progress report per candidate, counting up to the planned total.
    REQUIRE(progress.size() == c.tried);
    for (std::size_t i = 0; i < progress.size(); ++i) {
      CHECK(progress[i].done == i + 1);
      CHECK(progress[i].total == c.tried);
      CHECK(progress[i].variant == "4");
    }
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
      CHECK(logs.contains("compiled transpose with -cl-std=CL1.2 -DTRA_DIAG=0 -DTRA_LOCAL=1 -DTRA_NT=0 -DTRA_PAD=1 -DTRA_SWZ=0 "
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
    o.fault = wrong_looks_fastest(wrong, fast);  // a correct candidate made fast must win instead
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
      CHECK(row.message.find("differ from the host transpose") != std::string::npos);
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

  TEST_CASE("an interrupted tune stores the best so far in a valid database") {
    TuneEnv env("interrupt");
    auto& s = test::session();
    std::atomic<bool> stop{false};
    TuneOptions o = small_options();
    o.stop = &stop;
    o.progress = [&](const TuneProgress& p) {
      if (p.done == 2) stop = true;
    };
    const TuneResult r = tune(s.queue, "transpose", o);
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

  TEST_CASE("dry run: the space pruned by constraints, nothing compiled, run or stored") {
    TuneEnv env("dry");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.dry_run = true;
    o.param_values["TRA_TILE"] = {4, 8};
    o.param_values["TRA_WPT"] = {1, 8};  // TRA_WPT=8 with TRA_TILE=4 is illegal
    const CacheStats before = cache_stats();
    const TuneResult r = tune(s.queue, "transpose", o);
    CHECK(r.dry_run);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.space == 4);
    CHECK(c.illegal == 1);
    CHECK(c.illegal + c.unfit + c.candidates == c.space);
    // Device limits: the same count as fit_problem gives for the three legal ones.
    std::size_t unfit = 0;
    for (auto [t, w] : {std::pair{4, 1}, {8, 1}, {8, 8}}) {
      ParamMap p = small_candidate(t, w);
      unfit += !detail::fit_problem(detail::kernel_spec("transpose"), p, "4", s.entry.info).empty();
    }
    CHECK(c.unfit == unfit);
    CHECK(c.tried == 0);
    CHECK(c.rows.empty());
    CHECK(!c.stored);
    CHECK(c.default_params == shipped("4"));
    CHECK(cache_stats().compiles == before.compiles);
    CHECK(!detail::file_exists(r.database_path));
  }

  TEST_CASE("random and anneal strategies respect the budget and try each candidate once") {
    TuneEnv env("strategies");
    auto& s = test::session();
    for (TuneStrategy st : {TuneStrategy::Random, TuneStrategy::Anneal}) {
      INFO(to_string(st));
      TuneOptions o = small_options();
      o.strategy = st;
      o.budget = 3;
      o.store = false;
      const TuneResult r = tune(s.queue, "transpose", o);
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      CHECK(c.tried == 3);
      std::set<ParamMap> seen;
      for (const auto& row : c.rows) seen.insert(row.params);
      CHECK(seen.size() == 3);
      CHECK(c.rows.front().is_default);
      REQUIRE(c.has_best);
      CHECK(c.best == fastest_ok(c)->params);
    }
    // Auto: random under a budget or time limit, exhaustive otherwise.
    TuneOptions o = small_options();
    o.budget = 2;
    o.store = false;
    CHECK(tune(s.queue, "transpose", o).strategy == TuneStrategy::Random);
    o.budget = 0;
    o.dry_run = true;
    CHECK(tune(s.queue, "transpose", o).strategy == TuneStrategy::Exhaustive);
    // Strategy names as the CLI spells them.
    CHECK(parse_tune_strategy("anneal") == TuneStrategy::Anneal);
    CHECK_THROWS_AS(parse_tune_strategy("genetic"), InvalidArgument);
  }


  TEST_CASE("a space too large to enumerate is sampled; auto anneals it, exhaustive refuses it") {
    TuneEnv env("sampled");
    auto& s = test::session();
    TuneOptions o;
    o.sizes = {"64"};
    o.dry_run = true;
    o.seed = test::seed();
    // sgemm_xgemm with every legal value: billions of combinations.
    const TuneResult r = tune(s.queue, "sgemm", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.sampled);
    CHECK(c.space > 4000000);
    CHECK(c.draws <= 400000);
    CHECK(c.candidates > 0);
    CHECK(c.candidates <= 20000);
    CHECK(c.illegal + c.unfit + c.candidates <= c.draws);  // repeated draws are not counted twice
    CHECK(r.strategy == TuneStrategy::Anneal);
    // A short real run: every evaluated candidate is legal, verified, and the default comes first.
    o.dry_run = false;
    o.budget = 3;
    o.store = false;
    o.warmup = 0;
    o.min_reps = 1;
    o.max_reps = 2;
    const TuneResult run = tune(s.queue, "sgemm", o);
    REQUIRE(run.classes.size() == 1);
    CHECK(run.classes[0].tried == 3);
    CHECK(run.classes[0].rows.front().is_default);
    for (const auto& row : run.classes[0].rows) {
      INFO(detail::describe_params(row.params));
      CHECK(detail::kernel_spec("sgemm_xgemm").check(row.params, run.classes[0].variant).empty());
      CHECK(row.status == CandidateStatus::Ok);
    }
    o.strategy = TuneStrategy::Exhaustive;
    o.dry_run = true;
    test::expect_invalid_argument([&] { tune(s.queue, "sgemm", o); }, "too many to enumerate");
  }
  TEST_CASE("the run-off times the search's fastest and the default again and its fastest is the result") {
    TuneEnv env("runoff");
    auto& s = test::session();
    // The fault hook is asked once per candidate in the search and once more in the run-off:
    // `lucky` looks fastest in the search only (a quiet moment), `steady` second-fastest in
    // both; the run-off must pick `steady`.
    const ParamMap lucky = small_candidate(16, 2), steady = small_candidate(8, 2);
    REQUIRE(lucky != shipped("4"));
    REQUIRE(steady != shipped("4"));
    TuneOptions o = small_options();
    o.finalists = 2;
    auto calls = std::make_shared<std::map<ParamMap, int>>();
    o.fault = [calls, lucky, steady](const ParamMap& p) {
      TuneFault f;
      const int k = (*calls)[p]++;
      if (p == lucky) f.time_scale = k == 0 ? 1e-5 : 1e4;
      if (p == steady) f.time_scale = 1e-3;
      return f;
    };
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    REQUIRE(fastest_ok(c) != nullptr);
    CHECK(fastest_ok(c)->params == lucky);  // the search's verdict
    // The two fastest of the search and the default, each asked for its fault once more.
    REQUIRE(c.runoff.size() == 3);
    CHECK((*calls)[lucky] == 2);
    CHECK((*calls)[steady] == 2);
    CHECK((*calls)[shipped("4")] == 2);
    std::set<ParamMap> finalists;
    for (const auto& row : c.runoff) {
      finalists.insert(row.params);
      CHECK(row.status == CandidateStatus::Ok);
      CHECK(row.ms > 0);
    }
    CHECK(finalists == std::set<ParamMap>{lucky, steady, shipped("4")});
    for (std::size_t i = 1; i < c.runoff.size(); ++i) CHECK(c.runoff[i - 1].ms <= c.runoff[i].ms);
    // The run-off decides, and its times are the reported ones.
    REQUIRE(c.has_best);
    CHECK(c.best == steady);
    CHECK(c.runoff.front().params == steady);
    CHECK(c.runoff.back().params == lucky);
    CHECK(c.best_ms == doctest::Approx(c.runoff.front().ms));
    const auto def = std::find_if(c.runoff.begin(), c.runoff.end(), [](const TuneRow& x) { return x.is_default; });
    REQUIRE(def != c.runoff.end());
    CHECK(def->params == shipped("4"));
    CHECK(c.default_ms == doctest::Approx(def->ms));
    CHECK(c.speedup == doctest::Approx(c.default_ms / c.best_ms));
    CHECK(c.stored);
    CHECK(resolve_configuration("transpose", "4", s.entry.info).values == steady);

    // Without a run-off the search's fastest stands.
    o.finalists = 0;
    calls->clear();
    const TuneResult r0 = tune(s.queue, "transpose", o);
    REQUIRE(r0.classes.size() == 1);
    CHECK(r0.classes[0].runoff.empty());
    CHECK(r0.classes[0].best == lucky);
  }

  TEST_CASE("a time limit stops after the reference; sizes of two element sizes are two size classes") {
    TuneEnv env("classes");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.time_limit_s = 1e-6;
    TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    CHECK(r.classes[0].tried == 1);  // the default is always measured
    CHECK(r.classes[0].rows.front().is_default);
    CHECK(r.classes[0].stored);

    o = small_options();
    o.budget = 2;
    o.sizes = {"33x65", "64:8", "31:8"};
    r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 2);
    CHECK(r.classes[0].variant == "4");
    CHECK(r.classes[1].variant == "8");
    CHECK(r.classes[1].sizes == std::vector<std::string>{"64:8", "31:8"});
    for (const auto& c : r.classes) {
      INFO(c.variant);
      CHECK(c.tried == 2);
      CHECK(c.rejected == 0);
      CHECK(c.stored);
      const Configuration cfg = resolve_configuration("transpose", c.variant, s.entry.info);
      CHECK(cfg.values == c.best);
      CHECK(cfg.sources.at("TRA_TILE").find("variant " + c.variant + "]") != std::string::npos);
    }
    // Variant 16 (16-byte elements) was not tuned: shipped, or shrunk from the shipped row where
    // its tile does not fit the device's local memory ("fallback (shipped ...)", 48 KiB GPUs).
    const std::string src16 = resolve_configuration("transpose", "16", s.entry.info).sources.at("TRA_TILE");
    INFO(src16);
    CHECK((src16.rfind("shipped", 0) == 0 || src16.rfind("fallback (shipped", 0) == 0));
  }

  TEST_CASE("bad arguments throw InvalidArgument naming them") {
    TuneEnv env("args");
    auto& s = test::session();
    auto expect = [&](const std::string& routine, const TuneOptions& o, const std::string& needle) {
      test::expect_invalid_argument([&] { tune(s.queue, routine, o); }, needle);
    };
    TuneOptions o = small_options();
    o.dry_run = true;
    expect("nosuch", o, "nosuch");
    for (const char* bad : {"64x", "0", "64:3", "x64", "-5", "64y64"}) {
      TuneOptions b = o;
      b.sizes = {bad};
      expect("transpose", b, "'" + std::string(bad) + "'");
    }
    TuneOptions b = o;
    b.param_values["TRA_NOPE"] = {1};
    expect("transpose", b, "TRA_NOPE");
    b = o;
    b.param_values["TRA_TILE"] = {12};
    expect("transpose", b, "TRA_TILE=12");
    // Timing needs a profiling queue.
    cl::CommandQueue plain(s.context, s.entry.device, 0);
    test::expect_invalid_argument([&] { tune(plain, "transpose", small_options()); }, "CL_QUEUE_PROFILING_ENABLE");
    CHECK(!detail::file_exists(user_database_path(s.entry.info)));
  }

  TEST_CASE("tune fft: the best of a tiny space is stored under the length and used by later plans") {
    TuneEnv env("fft");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    const ParamMap winner = fft_candidate(64);
    REQUIRE(winner != resolve_configuration("fft", "64", dev, Tuning{{}, false}).values);
    TuneOptions o = fft_options();
    o.fault = looks_fastest(winner);
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(r.kernel == "fft");
    CHECK(c.variant == "64");  // what an FftPlan of length 64 resolves
    CHECK(c.space == 2);
    CHECK(c.candidates + c.unfit == 2);
    REQUIRE(!c.rows.empty());
    CHECK(c.rows.front().is_default);
    for (const auto& row : c.rows) {
      INFO(params_text(row.params) << to_string(row.status) << " " << row.message);
      CHECK(row.status == CandidateStatus::Ok);
      CHECK(row.error <= host::fft_tolerance(64));
    }
    REQUIRE(c.has_best);
    CHECK(c.best == winner);
    CHECK(c.stored);

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
    const std::vector<float> x = host::random_floats(2 * 64 * 5, test::seed() + 3);
    std::vector<std::complex<float>> xc(64 * 5);
    for (std::size_t i = 0; i < xc.size(); ++i) xc[i] = {x[2 * i], x[2 * i + 1]};
    const std::vector<std::complex<float>> y = fft(s.queue, xc, 64);
    const std::vector<host::cdouble> ref = host::fft_batch(x.data(), 64, 5, 1, 64, 0, false);
    const host::FftError e = host::fft_compare(reinterpret_cast<const float*>(y.data()), 64, 5, 1, 64, 0, ref);
    CHECK(e.nonfinite == 0);
    CHECK(e.max_rel_l2 <= host::fft_tolerance(64));
    // Other lengths keep their shipped entries.
    CHECK(resolve_configuration("fft", "128", dev).sources.at("FFT_WG").rfind("shipped", 0) == 0);
  }

  TEST_CASE("tune blur: the method's kernel is tuned per channel count and used by later blurs") {
    TuneEnv env("blur");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    const ParamMap winner = blur_candidate(32);
    REQUIRE(winner != resolve_configuration("blur_separable", "1", dev, Tuning{{}, false}).values);
    TuneOptions o = blur_options();
    o.fault = looks_fastest(winner);
    const TuneResult r = tune(s.queue, "blur", o);
    CHECK(r.kernel == "blur_separable");  // the default method
    CHECK(r.routine_options.at("method") == "separable");
    CHECK(r.routine_options.at("sigma") == "3");
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.variant == "1");  // one float channel
    CHECK(c.space == 2);
    for (const auto& row : c.rows) {
      INFO(params_text(row.params) << to_string(row.status) << " " << row.message);
      CHECK(row.status == CandidateStatus::Ok);
    }
    REQUIRE(c.has_best);
    CHECK(c.best == winner);
    CHECK(c.stored);
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
    CHECK(logs.contains("compiled blur_separable with -cl-std=CL1.2 -DBLUR_S_COL_LX=32 -DBLUR_S_COL_LY=4 "
                        "-DBLUR_S_COL_WPT=4 -DBLUR_S_LOCAL=1 -DBLUR_S_ROW_LX=32 -DBLUR_S_ROW_LY=1 -DBLUR_S_ROW_VW=1"));
  }

  TEST_CASE("tune fft: a wrong candidate is rejected and never stored, even when it looks fastest") {
    TuneEnv env("reject-fft");
    auto& s = test::session();
    {
      const ParamMap wrong = fft_candidate(256), fast = fft_candidate(64);
      TuneOptions o = fft_options();
      o.fault = wrong_looks_fastest(wrong, fast);
      const TuneResult r = tune(s.queue, "fft", o);
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      CHECK(c.rejected == 1);
      for (const auto& row : c.rows) {
        if (row.params != wrong) continue;
        INFO(row.message);
        CHECK(row.status == CandidateStatus::Rejected);
        CHECK(row.message.find("NaN or infinite") != std::string::npos);
      }
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
      const ParamMap base = {{"BLUR_R_BLOCK", 16},     {"BLUR_R_NARROW", 1 << 30},   {"BLUR_R_FUSE_T", 1},
                             {"BLUR_R_BATCH", 2},      {"BLUR_R_NEXT_CARRY", 1},      {"BLUR_R_LINK_SPLIT", 2},
                             {"BLUR_R_LINK_BATCH", 2}};
      ParamMap wrong = base, fast = base;
      wrong["BLUR_R_LX"] = 32;
      fast["BLUR_R_LX"] = 16;
      TuneOptions o = blur_options();
      o.routine_options = {{"method", "recursive"}, {"sigma", "2"}};
      o.param_values = {{"BLUR_R_LX", {16, 32}},   {"BLUR_R_BLOCK", {16}},    {"BLUR_R_NARROW", {1 << 30}},
                        {"BLUR_R_FUSE_T", {1}},     {"BLUR_R_BATCH", {2}},     {"BLUR_R_NEXT_CARRY", {1}},
                        {"BLUR_R_LINK_SPLIT", {2}}, {"BLUR_R_LINK_BATCH", {2}}};
      o.fault = wrong_looks_fastest(wrong, fast);
      const TuneResult r = tune(s.queue, "blur", o);
      CHECK(r.kernel == "blur_recursive");
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      CHECK(c.rejected == 1);
      for (const auto& row : c.rows) {
        INFO(params_text(row.params) << row.message);
        if (row.params == wrong) {
          CHECK(row.status == CandidateStatus::Rejected);
          CHECK(row.message.find("differs from the host recursive blur") != std::string::npos);
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
    // the interleaved layout and the batch do not change the class.
    o.sizes = {"64", "1009", "64@3:t", "2048@2"};
    TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 2);
    CHECK(r.classes[0].variant == "64");
    CHECK(r.classes[0].sizes == std::vector<std::string>{"64", "64@3:t"});
    CHECK(r.classes[1].variant == "2048");
    CHECK(r.classes[1].sizes == std::vector<std::string>{"1009", "2048@2"});
    // Length 64: FFT_LOCAL_MAX has one value, FFT_REG two (registers or not), FFT_RADIX three
    // (radix 8 and 16 both split 64 into 8*8), FFT_MIX one (no odd factors), FFT_VPT eight
    // (work-items per transform under radix 2, 4, 8, 16, 32: 32-16-8-8-8 for 0, 16-32-32-32-32
    // for 3, all 16 for 4, 8-8-16-16-16 for 5 and 6, all 8, 4, 2 or 1 for 8, 10 ... 16, 20 ... 32
    // and 64).
    // The class has an interleaved size, so FFT_STAGE keeps its four values and FFT_ACROSS its three.
    // FFT_WG, HALVE, TWIDDLE, DCHAIN (8*8 has a chain of powers), PAD, VEC, STAGE, ACROSS
    const std::size_t full = 7 * 3 * 4 * 2 * 2 * 2 * 4 * 3;
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
    b.sizes = {"65536"};
    expect("fft", b, "runs as passes");
    CHECK(!detail::file_exists(user_database_path(s.entry.info)));
  }

#ifdef CLFORGE_CLI
  TEST_CASE("clforge tune fft and tune blur, then clforge params shows the user source") {
    TuneEnv env("cli-fft-blur");
    auto& s = test::session();
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " ";
    const std::string path = user_database_path(s.entry.info);
    std::string out;
    int rc = test::run_command(cli + "tune fft --size 64@16 --param FFT_WG=64,256 --param FFT_RADIX=16 --param FFT_REG=32 "
                               "--param FFT_HALVE=0 --param FFT_TWIDDLE=0 --param FFT_PAD=1 --param FFT_VEC=1 "
                               "--param FFT_STAGE=0 --param FFT_ACROSS=8 --param FFT_VPT=0 --param FFT_MIX=0 --param FFT_DCHAIN=1 --param FFT_CHUNK=0 --seed " + std::to_string(test::seed()), out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("fft variant 64 on") != std::string::npos);
    CHECK(out.find("space 2:") != std::string::npos);
    CHECK(out.find("stored in " + path + " (kernel fft, variant 64)") != std::string::npos);
    rc = test::run_command(cli + "params fft --variant 64", out);
    CHECK(rc == 0);
    CHECK(out.find("FFT_WG") != std::string::npos);
    CHECK(out.find("user " + path) != std::string::npos);

    rc = test::run_command(cli + "tune blur --size 64x48 --method direct --sigma 1.5 --param BLUR_D_LX=16,32 "
                               "--param BLUR_D_LY=4 --param BLUR_D_WPT=2 --param BLUR_D_LOCAL=1", out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("blur variant 1 on") != std::string::npos);
    CHECK(out.find("method direct, sigma 1.5") != std::string::npos);
    CHECK(out.find("stored in " + path + " (kernel blur_direct, variant 1)") != std::string::npos);
    rc = test::run_command(cli + "params blur_direct --variant 1", out);
    CHECK(rc == 0);
    CHECK(out.find("user " + path) != std::string::npos);
    // The option values are checked by the parser.
    CHECK(test::run_command(cli + "tune blur --size 64 --method auto --dry-run", out) != 0);
  }

  TEST_CASE("clforge tune, then clforge params shows the user source") {
    TuneEnv env("cli");
    auto& s = test::session();
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " ";
    const std::string path = user_database_path(s.entry.info);
    std::string out;
    int rc = test::run_command(cli + "tune transpose --size 64 --param TRA_TILE=8,16 --param TRA_LOCAL=1 --dry-run", out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("space 2240") != std::string::npos);  // TILE 2 x WPT 5 x VW 4 x PAD 2 x DIAG 2 x SWZ 7 x LOCAL 1 x NT 2
    CHECK(!detail::file_exists(path));

    const std::string results = env.dir + "/results.json";
    rc = test::run_command(cli + "tune transpose --size 64 --budget 3 --out " + results + " --seed " +
                         std::to_string(test::seed()), out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("tried 3") != std::string::npos);
    CHECK(out.find("speed-up over the shipped default") != std::string::npos);
    CHECK(out.find("stored in " + path) != std::string::npos);
    CHECK(out.find("transpose/4 [") != std::string::npos);  // the progress bar (stderr)
    REQUIRE(detail::file_exists(path));

    rc = test::run_command(cli + "params transpose", out);
    CHECK(rc == 0);
    CHECK(out.find("TRA_TILE   = ") != std::string::npos);
    CHECK(out.find("user " + path) != std::string::npos);
    rc = test::run_command(cli + "--no-user-tuning params transpose", out);
    CHECK(rc == 0);
    CHECK(out.find("user ") == std::string::npos);
    CHECK(out.find("shipped") != std::string::npos);
    rc = test::run_command("CLFORGE_TUNING=off " + cli + "params transpose", out);
    CHECK(rc == 0);
    CHECK(out.find("user ") == std::string::npos);
    // --out wrote a tuning file this device matches: usable as CLFORGE_TUNING_FILE.
    const auto j = nlohmann::json::parse(*detail::read_file(results));
    CHECK(j["results"][0]["tried"] == 3);
    CHECK(j["results"][0]["rows"].size() == 3);
    rc = test::run_command("CLFORGE_TUNING_FILE=" + results + " " + cli + "--no-user-tuning params transpose", out);
    CHECK(rc == 0);
    CHECK(out.find("tuning-file " + results) != std::string::npos);

    // A corrupt database: non-zero exit, the path in the message, the file untouched.
    std::ofstream(path) << "[oops";
    rc = test::run_command(cli + "tune transpose --size 64 --budget 2", out);
    CHECK(rc != 0);
    CHECK(out.find(path) != std::string::npos);
    CHECK(*detail::read_file(path) == "[oops");
    // Bad option values are refused by the parser.
    CHECK(test::run_command(cli + "tune transpose --size 64 --strategy genetic", out) != 0);
    CHECK(test::run_command(cli + "tune transpose --size 64 --budget 2 --time 5", out) != 0);
  }
#endif
}
