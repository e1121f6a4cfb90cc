// The tuner's search on tiny transpose spaces: the space pruned by constraints and the device
// (dry runs), the random, anneal and model strategies under a budget, a space too large to enumerate
// (sampled), the run-off deciding between the search's fastest, time limits, size classes, and
// bad arguments. No assertion depends on measured times: where a winner matters, the fault
// hook decides it.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "tests/tune_support.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner_internal.hpp"

using namespace clforge;
using test::fastest_ok;
using test::shipped;
using test::small_candidate;
using test::small_options;
using test::TuneEnv;

namespace {

// A transpose space searching these tiles and rows per work-item, every other parameter fixed.
detail::Space space_of(std::vector<int> tiles, std::vector<int> wpts) {
  std::map<std::string, std::vector<int>> r{{"TRA_VW", {1}},  {"TRA_PAD", {1}},   {"TRA_DIAG", {0}},
                                            {"TRA_SWZ", {0}}, {"TRA_LOCAL", {1}}, {"TRA_NT", {0}}};
  r["TRA_TILE"] = std::move(tiles);
  r["TRA_WPT"] = std::move(wpts);
  return detail::build_space(detail::kernel_spec("transpose"), r, "4", test::session().entry.info, 1);
}

// The candidates a search evaluates right after its references when the default (`def`, the
// shipped rows of `kernel`'s `variant`) looks fastest and the budget leaves room for `n` more:
// random order, so that only the seeds come first.
std::vector<ParamMap> first_after_references(const std::string& routine, const std::string& kernel,
                                             const std::string& variant, const ParamMap& def, TuneOptions o,
                                             std::size_t n) {
  auto& s = test::session();
  o.strategy = TuneStrategy::Random;
  const bool current_differs = resolve_configuration(kernel, variant, s.entry.info).values != def;
  o.budget = (current_differs ? 2 : 1) + n;
  detail::TuneFaultScope fault(test::looks_fastest(def));
  const TuneResult r = tune(s.queue, routine, o);
  REQUIRE(r.classes.size() == 1);
  std::vector<ParamMap> out;
  for (const auto& row : r.classes[0].rows)
    if (!row.is_default && !row.is_current) out.push_back(row.params);
  return out;
}

// Every parameter of `kernel` pinned to its default row's value for `variant` (a test then
// opens the ones it searches), and that row.
std::map<std::string, std::vector<int>> pinned_to_default(const std::string& kernel, const std::string& variant,
                                                          ParamMap& def) {
  def = resolve_configuration(kernel, variant, test::session().entry.info, Tuning{{}, false}).values;
  std::map<std::string, std::vector<int>> values;
  for (const auto& [name, v] : def) values[name] = {v};
  return values;
}

// Two parameters of a blur kernel searching these values (every legal value of each), the
// others the default row's: the default looks fastest, so the first candidates of the method's
// search are its neighbours in those lists, one parameter at a time, but for a step of `a` that
// builds the default's kernel again (same_kernel_a(default's value, step's value)).
using Axis = std::pair<std::string, std::vector<int>>;
void check_first_steps(const std::string& kernel, const std::string& method, const std::string& size, const Axis& a,
                       const Axis& b, const std::function<bool(const ParamMap&, int, int)>& same_kernel_a = {}) {
  ParamMap def;
  std::map<std::string, std::vector<int>> values = pinned_to_default(kernel, "1", def);
  values[a.first] = a.second;
  values[b.first] = b.second;
  const auto next_to = [](const std::vector<int>& list, int v) {  // the values next to v in a list
    std::vector<int> out;
    const auto at = std::find(list.begin(), list.end(), v);
    REQUIRE(at != list.end());
    if (at != list.begin()) out.push_back(*(at - 1));
    if (at + 1 != list.end()) out.push_back(*(at + 1));
    return out;
  };
  const int va = def.at(a.first), vb = def.at(b.first);
  std::set<std::pair<int, int>> expected;
  for (const int v : next_to(a.second, va))
    if (!same_kernel_a || !same_kernel_a(def, va, v)) expected.emplace(v, vb);
  for (const int v : next_to(b.second, vb)) expected.emplace(va, v);
  REQUIRE(expected.size() >= 2);
  TuneOptions o = test::tiny_space(size, values);
  o.routine_options["method"] = method;
  std::set<std::pair<int, int>> steps;
  for (const ParamMap& p : first_after_references("blur", kernel, "1", def, o, expected.size()))
    steps.emplace(p.at(a.first), p.at(b.first));
  CHECK(steps == expected);
}

// Two candidates of small_options()'s space, neither of them the shipped row.
std::pair<ParamMap, ParamMap> two_candidates() {
  std::pair<ParamMap, ParamMap> c{small_candidate(16, 2), small_candidate(8, 2)};
  REQUIRE(c.first != shipped("4"));
  REQUIRE(c.second != shipped("4"));
  return c;
}

// A kernel folder whose xgemm database keeps its default row alone (the cold start's): the
// default row is then the reference on every device.
std::string default_xgemm_kernels(const std::string& tag) {
  const std::string kdir = test::temp_dir(tag);
  nlohmann::json db =
      nlohmann::json::parse(*detail::read_file(std::string(CLFORGE_SOURCE_DIR) + "/cl/db/sgemm_xgemm.json"));
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& e : db["entries"])
    if (e.value("vendor", "") == "default") kept.push_back(e);
  REQUIRE(kept.size() == 1);
  db["entries"] = kept;
  REQUIRE(std::system(("mkdir -p '" + kdir + "/db'").c_str()) == 0);
  std::ofstream(kdir + "/db/sgemm_xgemm.json") << db.dump();
  return kdir;
}

// A blur class of three sizes, two timed by the search (the run-off tests): `trader` 10^6 times
// faster on those and 10^4 times slower on the third (464x faster as a geometric mean over the
// three), `fair` 50x faster on all three (a margin over the current configuration that a
// sanitizer build's jitter on these tiny images does not close), every other candidate but the
// current configuration 10^3 times slower. The hook waits `wait_s` seconds (then 0) before its next answer.
struct UntimedRunoff {
  TuneOptions o = test::blur_options();
  ParamMap trader = test::blur_candidate(32), fair = test::blur_candidate(64);
  ParamMap current = resolve_configuration("blur_separable", "1", test::session().entry.info, Tuning{{}, false}).values;
  std::shared_ptr<double> wait_s = std::make_shared<double>(0);
  detail::TuneFaultScope fault;
  UntimedRunoff()
      : fault([trader = trader, fair = fair, current = current, wait_s = wait_s](const ParamMap& p) {
          if (*wait_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(std::exchange(*wait_s, 0)));
          detail::TuneFault f;
          if (p == trader) f.size_time_scale = {1e-6, 1e-6, 1e4};
          if (p == fair) f.time_scale = 0.02;
          if (p != trader && p != fair && p != current) f.time_scale = 1e3;
          return f;
        }) {
    o.sizes = {"64x48", "80x40", "96x32"};
    o.sizes_per_class = 2;
    o.finalists = 3;
    o.give_up = 0;
    REQUIRE(trader != current);
    REQUIRE(fair != current);
  }
};

}  // namespace

TEST_SUITE("tune") {
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

  TEST_CASE("random, anneal and model strategies respect the budget and try each candidate once") {
    TuneEnv env("strategies");
    auto& s = test::session();
    for (TuneStrategy st : {TuneStrategy::Random, TuneStrategy::Anneal, TuneStrategy::Model}) {
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
    // Auto: the model under a budget or time limit, exhaustive otherwise.
    TuneOptions o = small_options();
    o.budget = 2;
    o.store = false;
    CHECK(tune(s.queue, "transpose", o).strategy == TuneStrategy::Model);
    o.budget = 0;
    o.dry_run = true;
    CHECK(tune(s.queue, "transpose", o).strategy == TuneStrategy::Exhaustive);
    // Strategy names as the CLI spells them.
    CHECK(parse_tune_strategy("anneal") == TuneStrategy::Anneal);
    CHECK(parse_tune_strategy("model") == TuneStrategy::Model);
    CHECK(std::string(to_string(TuneStrategy::Model)) == "model");
    CHECK_THROWS_AS(parse_tune_strategy("genetic"), InvalidArgument);
  }

  TEST_CASE("a set of points holds maps of the space's names by their values") {
    detail::PointSet set({"A", "B"});
    CHECK(set.insert({{"A", 1}, {"B", 2}}));
    CHECK_FALSE(set.insert({{"B", 2}, {"A", 1}}));  // the same point
    CHECK(set.insert({{"A", 2}, {"B", 1}}));        // the values swapped: another point
    CHECK(set.contains({{"A", 1}, {"B", 2}}));
    CHECK_FALSE(set.contains({{"A", 1}, {"B", 3}}));
    CHECK_FALSE(set.contains({{"A", 1}}));                                // a name missing
    CHECK_FALSE(set.contains({{"A", 1}, {"C", 2}}));                      // another name with the same values
    CHECK_FALSE(set.contains({{"A", 1}, {"B", 2}, {"C", 0}}));            // a name more
    CHECK_THROWS_AS(set.insert({{"A", 1}, {"C", 2}}), std::logic_error);  // no point of the space
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
    const auto candidates = two_candidates();
    const ParamMap lucky = candidates.first, steady = candidates.second;
    TuneOptions o = small_options();
    o.finalists = 2;
    auto calls = std::make_shared<std::map<ParamMap, int>>();
    const detail::TuneFaultScope fault([calls, lucky, steady](const ParamMap& p) {
      detail::TuneFault f;
      const int k = (*calls)[p]++;
      if (p == lucky) f.time_scale = k == 0 ? 1e-5 : 1e4;
      if (p == steady) f.time_scale = 1e-3;
      return f;
    });
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

  TEST_CASE("the run-off passes over a candidate that trades one size for the others") {
    TuneEnv env("runoff-trade");
    auto& s = test::session();
    // Against the current configuration (the shipped row): `trader` is 10^8 times faster on the
    // first size and 10^4 times slower on the second (100x faster as a geometric mean, the fastest
    // of the search by a margin that noise in the measured times cannot close); `fair` is 5x
    // faster on both. The run-off takes `fair`.
    const auto candidates = two_candidates();
    const ParamMap trader = candidates.first, fair = candidates.second;
    TuneOptions o = small_options();
    o.sizes = {"64", "128"};
    o.finalists = 3;
    o.give_up = 0;  // no cut-off: the trader is timed in full on both sizes
    auto fair_scale = std::make_shared<double>(0.2);
    const detail::TuneFaultScope fault([trader, fair, fair_scale](const ParamMap& p) {
      detail::TuneFault f;
      if (p == trader) f.size_time_scale = {1e-8, 1e4};
      if (p == fair) f.time_scale = *fair_scale;
      if (p != trader && p != fair && p != shipped("4")) f.time_scale = 1e3;
      return f;
    });
    TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult* c = &r.classes[0];
    REQUIRE(c->sizes.size() == 2);
    REQUIRE(fastest_ok(*c) != nullptr);
    CHECK(fastest_ok(*c)->params == trader);  // the search's verdict: the geometric mean
    REQUIRE(c->has_best);
    CHECK(c->best == fair);
    const auto row_of = [](const TuneClassResult& cr, const ParamMap& p) {
      const auto it = std::find_if(cr.runoff.begin(), cr.runoff.end(), [&](const TuneRow& x) { return x.params == p; });
      REQUIRE(it != cr.runoff.end());
      return *it;
    };
    const TuneRow t = row_of(*c, trader);
    CHECK(t.trades_sizes);
    CHECK(t.ms < row_of(*c, fair).ms);  // still the fastest as a geometric mean
    INFO(t.message);
    CHECK(t.message.find("slower than the current configuration on 128x128") == 0);
    CHECK(!row_of(*c, fair).trades_sizes);
    CHECK(c->stored);

    // With `fair` slow too, the current configuration stands and nothing is stored.
    *fair_scale = 1e3;
    TuneEnv env2("runoff-trade-none");
    r = tune(s.queue, "transpose", o);
    c = &r.classes.at(0);
    CHECK(row_of(*c, trader).trades_sizes);
    CHECK(c->best == shipped("4"));
    CHECK(!c->stored);
  }

  TEST_CASE("the run-off times the class's sizes the search left out") {
    TuneEnv env("runoff-untimed");
    auto& s = test::session();
    // UntimedRunoff's class: only the run-off sees the third size; it takes `fair`.
    const UntimedRunoff u;
    const ParamMap &trader = u.trader, &fair = u.fair;
    const TuneResult r = tune(s.queue, "blur", u.o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.sizes == std::vector<std::string>{"64x48", "80x40"});
    CHECK(c.runoff_sizes == std::vector<std::string>{"96x32"});
    // What the search and the run-off measured, for a failure's report.
    std::ostringstream measured;
    for (const auto& row : c.rows)
      measured << "search: " << detail::describe_params(row.params) << " " << row.ms << " ms, " << to_string(row.status)
               << " " << row.message << "\n";
    for (const auto& row : c.runoff)
      measured << "run-off: " << detail::describe_params(row.params) << " " << row.ms << " ms, trades "
               << row.trades_sizes << " " << row.message << "\n";
    INFO(measured.str());
    REQUIRE(fastest_ok(c) != nullptr);
    CHECK(fastest_ok(c)->params == trader);  // the search's verdict, on the two timed sizes
    REQUIRE(c.has_best);
    CHECK(c.best == fair);
    const auto t = std::find_if(c.runoff.begin(), c.runoff.end(), [&](const TuneRow& x) { return x.params == trader; });
    REQUIRE(t != c.runoff.end());
    CHECK(t->trades_sizes);
    INFO(t->message);
    CHECK(t->message.find("96x32") != std::string::npos);
  }

  TEST_CASE("past the run's time the run-off times the untimed sizes on its leader and the references") {
    TuneEnv env("runoff-late");
    auto& s = test::session();
    // UntimedRunoff's class. A first run stores nothing and leaves its measurements in the tune
    // cache; the second takes the search's rows from there (no time) and its run-off starts after
    // the run's 2 s (the hook waits at its first measurement). The third size is then timed on the
    // leader, `trader`, and the current configuration alone: `trader` trades it, `fair` has left
    // the run-off, nothing is stored.
    UntimedRunoff u;
    const ParamMap &trader = u.trader, &fair = u.fair, &current = u.current;
    TuneOptions& o = u.o;
    o.cache_file = env.dir + "/cache.jsonl";
    o.store = false;
    REQUIRE(tune(s.queue, "blur", o).classes.at(0).best == fair);  // with time: the run-off above

    o.resume = true;
    o.store = true;
    o.time_limit_s = 2;
    *u.wait_s = 2.5;
    test::LogCapture logs;
    const TuneResult r = tune(s.queue, "blur", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.cached == c.tried);
    CHECK(logs.contains("run-off past the time: the leader and the references alone on 96x32"));
    const auto row_of = [&](const ParamMap& p) {
      return std::find_if(c.runoff.begin(), c.runoff.end(), [&](const TuneRow& x) { return x.params == p; });
    };
    REQUIRE(row_of(trader) != c.runoff.end());
    CHECK(row_of(trader)->trades_sizes);
    CHECK(row_of(fair) == c.runoff.end());
    CHECK(c.best == current);
    CHECK_FALSE(c.stored);
  }

  TEST_CASE("the run-off leaves out an untimed size of far more work before making it") {
    TuneEnv env("runoff-work");
    auto& s = test::session();
    // Timed: 16 and 64 transforms of 64 points (the class's quartiles by work). Untimed: 8 and 32
    // transforms (made and timed) and 1024 (16 times the largest timed size's work: left out unmade).
    TuneOptions o = test::fft_options();
    o.sizes = {"64@8", "64@16", "64@32", "64@64", "64@1024"};
    o.sizes_per_class = 2;
    o.finalists = 3;
    o.give_up = 0;  // every candidate timed in full: a finalist
    test::LogCapture logs;
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.sizes == std::vector<std::string>{"64@16", "64@64"});
    CHECK(c.runoff_sizes == std::vector<std::string>{"64@8", "64@32", "64@1024"});
    REQUIRE(c.runoff.size() >= 2);  // the run-off ran
    CHECK(logs.contains("run-off without 64@1024 (16"));
    CHECK_FALSE(logs.contains("run-off without 64@32"));
    CHECK_FALSE(logs.contains("run-off without 64@8"));
    CHECK_FALSE(logs.contains("run-off without n 64, batch 1024"));  // never made and probed
  }

  TEST_CASE("a class's current configuration includes what an earlier class of the run stored") {
    TuneEnv env("current-late");
    auto& s = test::session();
    // 16 complex points, then real input of 32 points (whose complex FFT of 16 resolves "16:real"
    // over "16"). The work-group size the default row does not take is 1000x faster in the first
    // class and stored for "16"; in the second, where it is then the current configuration, 1000x
    // slower: that class stores the default's for "16:real", which the real plans resolve.
    TuneOptions o = test::fft_options(64, 256);
    o.sizes = {"16@64", "32@64:r"};
    const int def = resolve_configuration("fft", "16", s.entry.info, Tuning{{}, false}).values.at("FFT_WG");
    REQUIRE(resolve_configuration("fft", "16:real", s.entry.info, Tuning{{}, false}).values.at("FFT_WG") == def);
    const int other = def == 64 ? 256 : 64;
    // The first class's end (its last progress report) switches the scale: the hook's answers
    // do not depend on how often it is asked. The space's third value never wins: its real speed
    // against the default's is the device's (under the sanitizers 256 work-items once ran the
    // real class faster than 128). The scales are 1000-fold, not 10-fold: a transform this small
    // times at 2 to 20 us on PoCL under ASan whatever its work-group size (2-core EPYC VM, 2026-12-02).
    auto first_done = std::make_shared<std::atomic<bool>>(false);
    o.progress = [first_done](const TuneProgress& p) {
      if (p.class_done && p.class_index == 0) *first_done = true;
    };
    const detail::TuneFaultScope fault([def, other, first_done](const ParamMap& p) {
      detail::TuneFault f;
      if (p.at("FFT_WG") == other) f.time_scale = *first_done ? 1000 : 0.001;
      if (p.at("FFT_WG") != other && p.at("FFT_WG") != def) f.time_scale = 1000;
      return f;
    });
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 2);
    std::ostringstream first_rows;  // what the first class measured, should it not store `other`
    for (const auto& row : r.classes[0].rows)
      first_rows << "FFT_WG " << row.params.at("FFT_WG") << ": " << to_string(row.status) << ", " << row.ms << " ms"
                 << (row.cut_short ? ", cut short" : "") << "; ";
    INFO(first_rows.str());
    CHECK(r.classes[0].variant == "16");
    CHECK(r.classes[1].variant == "16:real");
    CHECK(r.classes[0].best.at("FFT_WG") == other);
    CHECK(r.classes[1].current_params.at("FFT_WG") == other);
    CHECK(r.classes[1].best.at("FFT_WG") == def);
    CHECK(r.classes[1].stored);
    CHECK(resolve_configuration("fft", "16", s.entry.info).values.at("FFT_WG") == other);
    CHECK(resolve_configuration("fft", "16:real", s.entry.info).values.at("FFT_WG") == def);
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
    CHECK(r.classes[0].no_gain);  // nothing but the current configuration to store
    CHECK(!r.classes[0].stored);

    o = small_options();
    o.budget = 2;
    const detail::TuneFaultScope fault([defaults = std::set<ParamMap>{shipped("4"), shipped("8")}](const ParamMap& p) {
      detail::TuneFault f;
      if (!defaults.count(p)) f.time_scale = 1e-3;  // any candidate beats the default, so it is stored
      return f;
    });
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

  TEST_CASE("a neighbouring class's winner is projected onto the space: nearest values, then admissible") {
    ParamMap p{{"TRA_TILE", 32}, {"TRA_WPT", 4}, {"TRA_VW", 4},    {"TRA_PAD", 0},
               {"TRA_DIAG", 1},  {"TRA_SWZ", 8}, {"TRA_LOCAL", 0}, {"TRA_NT", 1}};
    const detail::Space a = space_of({8, 16}, {1, 2});
    ParamMap q = detail::project_onto(a, p);
    CHECK(q.at("TRA_TILE") == 16);  // nearest searched values
    CHECK(q.at("TRA_WPT") == 2);
    CHECK(q.at("TRA_VW") == 1);
    CHECK(detail::space_holds(a, q));
    CHECK(detail::project_onto(a, q) == q);  // a point of the space is its own projection
    p["TRA_TILE"] = 12;
    CHECK(detail::project_onto(a, p).at("TRA_TILE") == 8);  // 8 and 16 as near: the smaller
    // Tile 4 with 8 per work-item is illegal: the nearest values are no point of the space, and
    // the candidates one parameter away are (4, 1) and (8, 8).
    const detail::Space b = space_of({4, 8}, {1, 8});
    p["TRA_TILE"] = 4;
    p["TRA_WPT"] = 8;
    q = detail::project_onto(b, p);
    CHECK(detail::space_holds(b, q));
    const bool one_away =
        (q.at("TRA_TILE") == 4 && q.at("TRA_WPT") == 1) || (q.at("TRA_TILE") == 8 && q.at("TRA_WPT") == 8);
    CHECK(one_away);
  }

  TEST_CASE("a seed axis's step is made a point of the space by the other parameters, keeping the step") {
    ParamMap p{{"TRA_TILE", 4}, {"TRA_WPT", 8}, {"TRA_VW", 1},    {"TRA_PAD", 1},
               {"TRA_DIAG", 0}, {"TRA_SWZ", 0}, {"TRA_LOCAL", 1}, {"TRA_NT", 0}};
    // Tile 4 with 8 rows per work-item is illegal: keeping 8 rows takes tile 8, keeping tile 4 one row.
    const detail::Space b = space_of({4, 8}, {1, 8});
    REQUIRE_FALSE(detail::space_holds(b, p));
    std::optional<ParamMap> q = detail::repair_keeping(b, p, "TRA_WPT");
    REQUIRE(q.has_value());
    CHECK(q->at("TRA_TILE") == 8);
    CHECK(q->at("TRA_WPT") == 8);
    q = detail::repair_keeping(b, p, "TRA_TILE");
    REQUIRE(q.has_value());
    CHECK(q->at("TRA_TILE") == 4);
    CHECK(q->at("TRA_WPT") == 1);
    CHECK(detail::repair_keeping(b, *q, "TRA_TILE") == q);  // a point of the space stays as it is
    // No tile of the space takes 8 rows: nothing keeps the step.
    CHECK_FALSE(detail::repair_keeping(space_of({4}, {1, 8}), p, "TRA_WPT").has_value());
    // The model's local moves from tile 8 with 8 rows: tile 4 (with one row, the repair) and one row.
    p["TRA_TILE"] = 8;
    REQUIRE(detail::space_holds(b, p));
    std::set<std::pair<int, int>> moves;
    for (const ParamMap& n : detail::space_neighbours(b, p)) {
      CHECK(detail::space_holds(b, n));
      moves.emplace(n.at("TRA_TILE"), n.at("TRA_WPT"));
    }
    CHECK(moves == std::set<std::pair<int, int>>{{4, 1}, {8, 1}});
  }

  TEST_CASE("seed axes with neighbours try one step each way from the best so far, not every value") {
    TuneEnv env("seed-steps");
    auto& s = test::session();
    // sgemm_direct's seed axes step WGD first; the other axes have one value here. The default
    // (WGD 32) looks fastest, so the steps are taken from it: 16 and 64, not 8 or 128.
    TuneOptions o = test::tiny_space("48", {{"WGD", {8, 16, 32, 64, 128}},
                                            {"MDIMCD", {8}},
                                            {"NDIMCD", {8}},
                                            {"MDIMAD", {8}},
                                            {"NDIMBD", {8}},
                                            {"KWID", {2}},
                                            {"VWMD", {1}},
                                            {"VWND", {1}},
                                            {"PADA", {1}},
                                            {"PADB", {1}}});
    const ParamMap def = resolve_configuration("sgemm_direct", "*", s.entry.info, Tuning{{}, false}).values;
    REQUIRE(def.at("WGD") == 32);
    std::vector<int> steps;
    for (const ParamMap& p : first_after_references("sgemm_direct", "sgemm_direct", "*", def, o, 2))
      steps.push_back(p.at("WGD"));
    CHECK(steps == std::vector<int>{16, 64});
  }

  TEST_CASE("xgemm's star tries the last unroll factor after the single steps, before the links") {
    TuneEnv env("seed-ends");
    test::ScopedEnv kernels("CLFORGE_KERNEL_DIR", default_xgemm_kernels("kernels-default-ends"));
    // The unroll factor, double buffering and the k tile searched, every other parameter the
    // default row's (KWG 16, KWI 2, single buffers). The default looks fastest, so the star around
    // it steps KWI to 1 and 4, DBUF to 1, KWG to 32 (the seed axes' order), then takes KWI's end,
    // 16 (a whole k tile unrolled), not 8.
    ParamMap def;
    std::map<std::string, std::vector<int>> values = pinned_to_default("sgemm_xgemm", "small", def);
    values["KWI"] = {1, 2, 4, 8, 16};
    values["DBUF"] = {0, 1};
    values["KWG"] = {8, 16, 32};
    REQUIRE(def.at("KWI") == 2);
    REQUIRE(def.at("KWG") == 16);
    REQUIRE(def.at("DBUF") == 0);
    TuneOptions o = test::tiny_space("40", values);
    std::vector<std::string> steps;
    for (const ParamMap& p : first_after_references("sgemm", "sgemm_xgemm", "small", def, o, 6))
      steps.push_back(std::to_string(p.at("KWI")) + "/" + std::to_string(p.at("DBUF")) + "/" +
                      std::to_string(p.at("KWG")));
    const std::vector<std::string> expected{"1/0/16", "4/0/16", "2/1/16", "2/0/8", "2/0/32", "16/0/16"};
    CHECK(steps == expected);
  }

  TEST_CASE("an SGEMM tile side steps with its work-items, then the star moves to each new best") {
    TuneEnv env("seed-links");
    auto& s = test::session();
    test::ScopedEnv kernels("CLFORGE_KERNEL_DIR", default_xgemm_kernels("kernels-default"));
    // Tile rows and work-items along m searched, every other parameter the default row's (64 x 64
    // tiles of 8 x 8 work-items, vectors of 2): 13 points (256 rows of 4 work-items hold 64
    // accumulators each, 16 rows of 16 work-items no whole vectors).
    ParamMap def;
    std::map<std::string, std::vector<int>> values = pinned_to_default("sgemm_xgemm", "small", def);
    values["MWG"] = {16, 32, 64, 128, 256};
    values["MDIMC"] = {4, 8, 16};
    REQUIRE(def.at("MWG") == 64);
    REQUIRE(def.at("MDIMC") == 8);
    TuneOptions o = test::tiny_space("40", values);
    o.strategy = TuneStrategy::Random;
    const bool current_differs = resolve_configuration("sgemm_xgemm", "small", s.entry.info).values != def;
    o.budget = (current_differs ? 2 : 1) + 9;
    o.compile_threads = 2;  // the batches, and so where a star ends
    // Each doubling of the tile's rows ten times faster, other than 8 work-items along m a hundred
    // times slower: the climb goes 64 -> 128 -> 256 rows of 8.
    detail::TuneFaultScope fault([](const ParamMap& p) {
      detail::TuneFault f;
      f.time_scale = std::pow(10.0, -std::log2(p.at("MWG") / 64.0)) * (p.at("MDIMC") == 8 ? 1 : 100);
      return f;
    });
    const TuneResult r = tune(s.queue, "sgemm", o);
    REQUIRE(r.classes.size() == 1);
    std::vector<std::pair<int, int>> order;
    for (const auto& row : r.classes[0].rows)
      if (!row.is_default && !row.is_current) order.emplace_back(row.params.at("MWG"), row.params.at("MDIMC"));
    std::string got;
    for (const auto& [m, c] : order) got += std::to_string(m) + "/" + std::to_string(c) + " ";
    INFO(got);
    // In batches of two: the star around the default (each axis one step down, one up, then the
    // link of both axes, each work-item's share kept) ends with its first batch, whose 128 of 8 moved the best; around
    // 128 of 8 the first batch (256 rows, 4 work-items) moves it again; around 256 of 8 the one step left (16
    // work-items) gains nothing, and the random order takes the rest of the budget.
    REQUIRE(order.size() >= 5);
    const std::vector<std::pair<int, int>> expected{{32, 8}, {128, 8}, {256, 8}, {128, 4}, {256, 16}};
    CHECK(std::vector<std::pair<int, int>>(order.begin(), order.begin() + 5) == expected);
    CHECK(r.classes[0].best.at("MWG") == 256);
  }

  TEST_CASE("a new star starts with the steps that gained combined and at the axis after the last one's") {
    TuneEnv env("seed-combined");
    auto& s = test::session();
    test::ScopedEnv kernels("CLFORGE_KERNEL_DIR", default_xgemm_kernels("kernels-default-2"));
    // The tile's rows, its columns and the unroll factor searched around the default row's 64 x 64,
    // KWI 2. In batches of four, the first star's first batch steps the rows and the columns:
    // 128 rows 100x faster, 128 columns 20x, 32 of either 10x slower (far beyond what the sizes
    // change in the kernel's own time).
    ParamMap def;
    std::map<std::string, std::vector<int>> values = pinned_to_default("sgemm_xgemm", "small", def);
    values["MWG"] = {32, 64, 128};
    values["NWG"] = {32, 64, 128};
    values["KWI"] = {1, 2, 4};
    REQUIRE(def.at("MWG") == 64);
    REQUIRE(def.at("NWG") == 64);
    REQUIRE(def.at("KWI") == 2);
    TuneOptions o = test::tiny_space("40", values);
    o.strategy = TuneStrategy::Random;
    const bool current_differs = resolve_configuration("sgemm_xgemm", "small", s.entry.info).values != def;
    o.budget = (current_differs ? 2 : 1) + 7;
    o.compile_threads = 4;
    o.give_up = 0;  // no cut-off: every step timed in full
    detail::TuneFaultScope fault([](const ParamMap& p) {
      detail::TuneFault f;
      const auto side = [](int v, double gain) { return v == 128 ? 1 / gain : v == 32 ? 10.0 : 1.0; };
      f.time_scale = side(p.at("MWG"), 100) * side(p.at("NWG"), 20);
      return f;
    });
    const TuneResult r = tune(s.queue, "sgemm", o);
    REQUIRE(r.classes.size() == 1);
    std::vector<std::string> order;
    for (const auto& row : r.classes[0].rows)
      if (!row.is_default && !row.is_current)
        order.push_back(std::to_string(row.params.at("MWG")) + "x" + std::to_string(row.params.at("NWG")) + "/" +
                        std::to_string(row.params.at("KWI")));
    std::string got;
    for (const auto& x : order) got += x + " ";
    INFO(got);
    // The seed axes' order: VWM, VWN (one value each), MWG, NWG, MDIMC, NDIMC (one value), KWI.
    // The first batch moves the best to 128 rows; the next star around 128 x 64 starts with the
    // column step that gained too (128 x 128), then the axes after NWG: KWI 1 and 4. Without the
    // combination 128 x 128 comes after NWG's 32; starting at MWG again, KWI waits a batch.
    REQUIRE(order.size() >= 7);
    const std::vector<std::string> expected{"32x64/2",   "128x64/2", "64x32/2", "64x128/2",
                                            "128x128/2", "128x64/1", "128x64/4"};
    CHECK(std::vector<std::string>(order.begin(), order.begin() + 7) == expected);
  }

  TEST_CASE("the separable blur's search starts with single steps from the best so far") {
    TuneEnv env("blur-steps");
    // Two to four of the 19 others, 4 x 5 candidates. The fused kernel has no row pass of its
    // own (its taps read from global memory), and with local tiles the row pass has a float4
    // path only: every other width builds its width-1 kernel.
    const auto same_row_kernel = [](const ParamMap& def, int from, int to) {
      return def.at("BLUR_S_FUSED") != 0 || (def.at("BLUR_S_LOCAL") != 0 && (from == 4) == (to == 4));
    };
    check_first_steps("blur_separable", "separable", "48x40,sigma=1", {"BLUR_S_ROW_VW", {1, 4, 8, 16}},
                      {"BLUR_S_COL_WPT", {1, 2, 4, 8, 16}}, same_row_kernel);
  }

  TEST_CASE("the recursive blur's search starts with single steps from the best so far") {
    TuneEnv env("blur-rec-steps");
    check_first_steps("blur_recursive", "recursive", "96x80,sigma=2", {"BLUR_R_BATCH", {1, 2, 4, 8, 16}},
                      {"BLUR_R_LINK_BATCH", {1, 2, 4, 8, 16}});
  }

  TEST_CASE("the SGEMM route's search tries each crossover of the direct kernel first") {
    TuneOptions o = test::tiny_space("64", {{"SGEMM_DIRECT_MAX", {0, 32, 64, 128, 256}},
                                            {"SGEMM_TILED", {0}},
                                            {"SGEMM_SPLITK", {0, 2, 4}},
                                            {"SGEMM_SPLIT_WAVES", {1}}});
    const ParamMap def =
        resolve_configuration("sgemm_route", "*", test::session().entry.info, Tuning{{}, false}).values;
    const std::vector<ParamMap> first = first_after_references("sgemm_route", "sgemm_route", "*", def, o, 5);
    REQUIRE(first.size() == 5);
    std::set<int> crossovers;
    for (const ParamMap& p : first) {
      crossovers.insert(p.at("SGEMM_DIRECT_MAX"));
      ParamMap rest = p, rest0 = first.front();
      rest.erase("SGEMM_DIRECT_MAX");
      rest0.erase("SGEMM_DIRECT_MAX");
      CHECK(rest == rest0);  // one choice changed at a time
    }
    CHECK(crossovers == std::set<int>{0, 32, 64, 128, 256});
  }

  TEST_CASE("the lane kernel's search tries each lane width first, then the other axes' values") {
    TuneEnv env("lane-seeds");
    // The default lies outside this space (FFT_LANE_MAX): its projection is the start.
    TuneOptions o = test::tiny_space("64", {{"FFT_LANES", {4, 8, 16}},
                                            {"FFT_LANE_RADIX", {8, 16}},
                                            {"FFT_LANE_MIN", {1}},
                                            {"FFT_LANE_MAX", {4096}},
                                            {"FFT_LANES2", {8}},
                                            {"FFT_LANE_EBLOCK", {0, 1}}});
    const ParamMap def = resolve_configuration("fft_lanes", "64", test::session().entry.info, Tuning{{}, false}).values;
    REQUIRE(def.at("FFT_LANE_MAX") != 4096);
    ParamMap start = def;
    start["FFT_LANE_MAX"] = 4096;
    start["FFT_LANE_MIN"] = 1;
    start["FFT_LANES2"] = 8;
    start["FFT_LANES"] = std::max(4, start["FFT_LANES"]);  // the nearest searched values: 0 -> 4
    start["FFT_LANE_RADIX"] = start["FFT_LANE_RADIX"] <= 8 ? 8 : 16;
    const auto with = [&](const std::string& name, int v) {
      ParamMap p = start;
      p[name] = v;
      return p;
    };
    const std::vector<ParamMap> first = first_after_references("fft_lanes", "fft_lanes", "64", def, o, 5);
    REQUIRE(first.size() == 5);
    CHECK(std::set<ParamMap>(first.begin(), first.begin() + 3) ==
          std::set<ParamMap>{with("FFT_LANES", 4), with("FFT_LANES", 8), with("FFT_LANES", 16)});
    CHECK(std::set<ParamMap>(first.begin() + 3, first.end()) ==
          std::set<ParamMap>{with("FFT_LANE_EBLOCK", 1 - start.at("FFT_LANE_EBLOCK")),
                             with("FFT_LANE_RADIX", 24 - start.at("FFT_LANE_RADIX"))});
  }

  TEST_CASE("the shipped rows of other devices are the first candidates after the default") {
    TuneEnv env("seeds");
    auto& s = test::session();
    TuneOptions o;
    o.sizes = {"64"};
    o.strategy = TuneStrategy::Random;
    o.budget = 3;
    o.store = false;
    o.cache_file = "off";
    o.finalists = 0;
    o.seed = test::seed();
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const auto& rows = r.classes[0].rows;
    REQUIRE(rows.size() == 3);
    REQUIRE(rows[0].is_default);
    // Every row of the shipped file for element size 4, completed with the default's values
    // (read here from the file itself).
    std::set<ParamMap> shipped_rows;
    const auto db =
        nlohmann::json::parse(*detail::read_file(std::string(CLFORGE_SOURCE_DIR) + "/cl/db/transpose.json"));
    for (const auto& e : db.at("entries")) {
      const std::string variant = e.value("variant", "*");
      if (variant != "*" && variant != "4") continue;
      ParamMap p = rows[0].params;
      for (const auto& [name, value] : e.at("params").items()) p[name] = value.get<int>();
      if (p != rows[0].params) shipped_rows.insert(p);
    }
    REQUIRE(shipped_rows.size() >= 2);
    CHECK(shipped_rows.count(rows[1].params) == 1);
    CHECK(shipped_rows.count(rows[2].params) == 1);
  }

  TEST_CASE("a size class starts from the fastest of the classes tuned before it") {
    TuneEnv env("siblings");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.sizes = {"64", "64:8"};  // element sizes 4 and 8: two classes, the same tiny space
    o.strategy = TuneStrategy::Random;
    o.budget = 5;  // class 4: every candidate of its 2 x 2 space
    o.store = false;
    o.cache_file = "off";
    o.finalists = 0;
    const ParamMap winner = small_candidate(16, 2);
    const detail::TuneFaultScope fault(test::looks_fastest(winner));
    TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 2);
    REQUIRE(r.classes[0].has_best);
    CHECK(r.classes[0].best == winner);
    // Class 8: its references, then class 4's best before any other candidate.
    const auto& rows = r.classes[1].rows;
    std::size_t i = 0;
    while (i < rows.size() && (rows[i].is_default || rows[i].is_current)) ++i;
    REQUIRE(i < rows.size());
    REQUIRE(rows[0].params != winner);  // the winner is no reference of class 8
    CHECK(rows[i].params == winner);
  }

  TEST_CASE("sizes per class spread over a class's work, transpose's all; tunable_sizes keeps pass lengths") {
    TuneEnv env("sizes");
    auto& s = test::session();
    TuneOptions f = test::fft_options();
    f.dry_run = true;
    // The sizes at the class's quartiles by work (points x transforms), in the order asked for.
    f.sizes = {"64@32", "64@8", "32", "64@4", "64@16", "64@2", "64@64"};
    f.sizes_per_class = 2;
    const TuneResult rf = tune(s.queue, "fft", f);
    REQUIRE(rf.classes.size() == 2);
    CHECK(rf.classes[0].sizes == std::vector<std::string>{"64@32", "64@4"});
    CHECK(rf.classes[0].runoff_sizes == std::vector<std::string>{"64@8", "64@16", "64@2", "64@64"});
    CHECK(rf.classes[1].sizes == std::vector<std::string>{"32"});
    // One transpose row serves every shape of an element size: each of them is timed.
    TuneOptions o = small_options();
    o.dry_run = true;
    o.sizes = {"64", "48x80", "32", "64:8"};
    o.sizes_per_class = 2;
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 2);
    CHECK(r.classes[0].sizes == std::vector<std::string>{"64", "48x80", "32"});
    CHECK(r.classes[1].sizes == std::vector<std::string>{"64:8"});
    // SGEMM times every product whose operands fill at most 64 MiB besides the quartiles (the
    // small class's 903^3 too); of the large class's 4096^3 (192 MiB) to 8192^3 the two. The
    // skinny shape is a class of its own (small:wide).
    TuneOptions g;
    g.dry_run = true;
    g.sizes = {"512", "1024", "512x8192x512", "903", "4096", "4097", "8192"};
    g.sizes_per_class = 2;
    const TuneResult rg = tune(s.queue, "sgemm", g);
    REQUIRE(rg.classes.size() == 3);
    CHECK(rg.classes[0].sizes == std::vector<std::string>{"512", "1024", "903"});
    CHECK(rg.classes[0].runoff_sizes.empty());
    CHECK(rg.classes[1].variant == "small:wide");
    CHECK(rg.classes[1].sizes == std::vector<std::string>{"512x8192x512"});
    CHECK(rg.classes[2].sizes == std::vector<std::string>{"4096", "8192"});
    CHECK(rg.classes[2].runoff_sizes == std::vector<std::string>{"4097"});
    // 2^20 points run as passes, whose rows the length's class searches; the Bluestein length of
    // the prime 40009 (2^17) would run as Bluestein passes, which are not searched.
    CHECK(tunable_sizes("fft", {"1024", "1048576@2", "1009", "40009", "64@64"}) ==
          std::vector<std::string>{"1024", "1048576@2", "1009", "64@64"});
    CHECK(tunable_sizes("transpose", {"4097x31", "8:16"}) == std::vector<std::string>{"4097x31", "8:16"});
    CHECK_THROWS_AS(tunable_sizes("no-such-routine", {"64"}), InvalidArgument);
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

  TEST_CASE("tune all: each job's share of the time grows with the terms of its classes' spaces") {
    // The model strategy's terms for a kernel's whole declared space, counted here from its public
    // parameter list: 1 + the sum of the value counts less one.
    auto terms = [](const std::string& kernel) {
      double t = 1;
      for (const auto& p : kernel_parameters(kernel)) t += static_cast<double>(p.legal.size()) - 1;
      return t;
    };
    const DeviceInfo gpu = test::fake_device(VendorClass::NVIDIA, "sm_90", "NVIDIA H200");
    // SGEMM's three classes (small, medium, large) and the FFT's lengths as bench all runs them on
    // a GPU; the others at their default sizes (one class each).
    std::vector<std::string> fft = {"1000", "3000", "4095"};
    for (int n = 8; n <= 32768; n *= 2) fft.push_back(std::to_string(n));
    const std::vector<TuneAllJob> jobs = tune_all_jobs({{"sgemm", {"512", "2048", "4096", "8192"}}, {"fft", fft}});
    double total = 0, sgemm = 0, fft_weight = 0;
    std::size_t classes = 0;
    for (const auto& job : jobs) {
      const double w = detail::tune_all_weight(job, gpu);
      INFO(job.name() << ": " << w);
      total += w;
      if (job.routine == "fft_lanes") {
        CHECK(w == 0);  // the CPU lane kernel is skipped on a GPU and takes no share
        continue;
      }
      CHECK(w >= 1);  // every other job runs, whatever the budget
      classes += job.routine == "sgemm" ? 3 : job.routine == "fft" ? fft.size() : 1;
      if (job.routine == "sgemm") sgemm = w;
      if (job.routine == "fft") fft_weight = w;
    }
    // xgemm is not narrowed: each of its classes weighs its whole declared space. The FFT's
    // classes are narrowed to their length, so they weigh far less than the FFT's declared space.
    CHECK(sgemm == doctest::Approx(3 * terms("sgemm_xgemm")));
    CHECK(fft_weight / static_cast<double>(fft.size()) < terms("fft") / 2);
    // Per class, xgemm weighs more than twice an FFT length, and its share of the time is more than
    // twice its share of the classes (55 s of 540 on the H200 with shares by classes alone).
    CHECK(sgemm / 3 > 2 * fft_weight / static_cast<double>(fft.size()));
    INFO("sgemm's share " << sgemm / total << ", its share of the classes " << 3.0 / static_cast<double>(classes));
    CHECK(sgemm / total > 2.0 * 3.0 / static_cast<double>(classes));
  }

  TEST_CASE("tune all: a job of a small space beside many large classes keeps a share of the time") {
    // The H200's jobs by terms, roughly: the FFT's 50 classes, xgemm, a blur method, a skipped one.
    const std::vector<double> w = {1400, 400, 20, 0, 8, 8};
    const std::vector<double> s = detail::tune_all_shares(w);
    double total = 0;
    for (const double x : s) total += x;
    const double running = 5;
    CHECK(s[3] == 0);     // skipped: no share
    CHECK(s[0] == w[0]);  // the large ones keep their weight
    CHECK(s[1] == w[1]);
    for (const std::size_t i : {2, 4, 5}) {
      CHECK(s[i] == doctest::Approx(1836.0 / running));  // the mean of the running jobs
      CHECK(s[i] / total >= 1 / (2 * running));          // at least half an even share
    }
    CHECK(detail::tune_all_shares({0, 0}) == std::vector<double>{0, 0});
  }

  TEST_CASE("tune all: on a CPU the FFT's job weighs one term beside the lane kernel's") {
    // A CPU's plans run the lane kernel wherever its rows enable it: the GPU kernel's many classes
    // (196 of 540 s on the 2-core VM) would take the time the lane kernel's need.
    const std::vector<TuneAllJob> jobs =
        tune_all_jobs({{"fft", {"1024", "4096", "1000"}}, {"fft_lanes", {"1024", "4096", "1000"}}});
    auto index_of = [&](const std::string& routine) {
      std::size_t i = 0;
      while (i < jobs.size() && jobs[i].routine != routine) ++i;
      REQUIRE(i < jobs.size());
      return i;
    };
    auto weight_of = [&](const std::vector<double>& w, const std::string& routine) { return w[index_of(routine)]; };
    const DeviceInfo cpu = test::fake_device(VendorClass::CPU);
    std::vector<char> superseded;
    const std::vector<double> on_cpu = detail::tune_all_job_weights(jobs, cpu, &superseded);
    CHECK(weight_of(on_cpu, "fft") == 1);
    const double lanes = detail::tune_all_weight(jobs[index_of("fft_lanes")], cpu);
    CHECK(weight_of(on_cpu, "fft_lanes") == lanes);
    CHECK(lanes > 1);
    // The one term stays below the floor of the others' mean, which it does not lower: the lane
    // kernel keeps its weight, so all but 1 / (lanes + 1) of the time (the 16-core CPU device's
    // cold start of 2026-11-30 gave the GPU kernel's classes 39 s, the lane kernel's 14 95 s).
    const std::vector<double> shares = detail::tune_all_shares(on_cpu, superseded);
    CHECK(weight_of(shares, "fft") == 1);
    CHECK(weight_of(shares, "fft_lanes") == lanes);
    CHECK(detail::tune_all_shares({1, 10, 30}, {1, 0, 0}) == std::vector<double>{1, 20, 30});
    // On a GPU the lane kernel is skipped and the FFT keeps its weight.
    const DeviceInfo gpu = test::fake_device(VendorClass::NVIDIA, "sm_90", "NVIDIA H200");
    const std::vector<double> on_gpu = detail::tune_all_job_weights(jobs, gpu);
    CHECK(weight_of(on_gpu, "fft_lanes") == 0);
    CHECK(weight_of(on_gpu, "fft") > 1);
  }

  TEST_CASE("tune all: the SGEMM route tunes on products up to 4096^3, the direct kernel up to 1024^3") {
    CHECK(tunable_sizes("sgemm_route", {"1024", "8192", "512x8192x512", "4097", "4096:TT", "16384", "8192x512x8192"}) ==
          std::vector<std::string>{"1024", "512x8192x512", "4096:TT", "8192x512x8192"});
    CHECK(tunable_sizes("sgemm", {"1024", "8192"}) == std::vector<std::string>{"1024", "8192"});
    // The products the route could give the direct kernel: m n k at most 1024^3, in a strided
    // batch at most 128^3.
    CHECK(tunable_sizes("sgemm_direct", {"256", "1024", "1025", "512x8192x512", "4096:TT", "2048x2048x256", "64@100",
                                         "128@100", "129@100", "512x512x64@100"}) ==
          std::vector<std::string>{"256", "1024", "2048x2048x256", "64@100", "128@100"});
  }

  TEST_CASE("tune all: a strided SGEMM batch is cut to the products of 256 MiB, in the same class") {
    // bench all's batches of 10^4 products and 512 x 512 x 64 x 256: the count whose A, B and C
    // (4-byte floats, m k + k n + m n each product) fill at most 256 MiB, where the batch is larger.
    const auto fits = [](double m, double n, double k) {
      return std::to_string(static_cast<long long>(256.0 * 1024 * 1024 / (4 * (m * k + k * n + m * n))));
    };
    const std::vector<std::string> bench = {"16@10000",  "32@10000", "64@10000",       "128@10000",
                                            "256@10000", "1024",     "512x512x64@256", "300x20x7:TN@40000"};
    const std::vector<std::string> expect = {"16@10000",
                                             "32@10000",
                                             "64@" + fits(64, 64, 64),
                                             "128@" + fits(128, 128, 128),
                                             "256@" + fits(256, 256, 256),
                                             "1024",
                                             "512x512x64@" + fits(512, 512, 64),
                                             "300x20x7:TN@" + fits(300, 20, 7)};
    const std::vector<std::string> got = tunable_sizes("sgemm_route", bench);
    CHECK(got == expect);
    for (const char* routine : {"sgemm", "sgemm_stream", "sgemm_route", "sgemm_direct"}) {
      INFO(routine);
      const detail::TuneTarget& t = detail::tune_target(routine);
      for (std::size_t i = 0; i < bench.size() && i < got.size(); ++i)
        CHECK(t.variant_of(got[i]) == t.variant_of(bench[i]));
    }
    // The tiled kernels keep the batches of products from 64^3 up (smaller ones go to the direct
    // kernel's batch classes), the direct kernel those up to 128^3 (the test above), cut alike.
    for (const char* routine : {"sgemm", "sgemm_stream"}) {
      INFO(routine);
      CHECK(tunable_sizes(routine, bench) ==
            std::vector<std::string>{expect[2], expect[3], expect[4], expect[5], expect[6]});
    }
    CHECK(tunable_sizes("sgemm_direct", bench) ==
          std::vector<std::string>{expect[0], expect[1], expect[2], expect[3], expect[5], expect[7]});
    CHECK(fits(256, 256, 256) == "341");  // 7.9 GB of host data at 10^4 products
  }

  TEST_CASE("screening: sizes far costlier than the cheapest one are left to the run-off") {
    // min_time_ms 20 over 5 repetitions: under 4 ms a run costs the minimum time anyway.
    CHECK(detail::searched_sizes({10, 27}, 20, 5) == std::vector<bool>{true, false});
    CHECK(detail::searched_sizes({27, 10}, 20, 5) == std::vector<bool>{false, true});
    CHECK(detail::searched_sizes({0.1, 1.6}, 20, 5) == std::vector<bool>{true, true});
    CHECK(detail::searched_sizes({10, 15}, 20, 5) == std::vector<bool>{true, true});
    CHECK(detail::searched_sizes({30}, 20, 5) == std::vector<bool>{true});
  }
}
