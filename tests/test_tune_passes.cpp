// The FFT tuner on lengths run as passes through global memory: a candidate sets the length's
// row and every pass row its plan resolves, is verified like any FFT candidate, and its rows are
// stored under the variants the plan looks up (`pass<length>`, `pass<length>:later`), never when
// they do not beat what the library runs now. FFT_LOCAL_MAX 256 makes 2048 points run as two
// passes, 64 then 32 points, so that the cases stay cheap on PoCL.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "clforge/fft.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "tests/tune_support.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner_internal.hpp"

using namespace clforge;
using test::TuneEnv;

namespace {

using Rows = std::vector<std::pair<std::string, ParamMap>>;

// 2048 points in passes of at most 256: FFT_WG the values given, every other parameter one value.
TuneOptions pass_options(std::vector<int> wgs) {
  TuneOptions o = test::fft_options();
  o.sizes = {"2048@4"};
  o.param_values["FFT_WG"] = std::move(wgs);
  o.param_values["FFT_LOCAL_MAX"] = {256};
  o.param_values["FFT_PASS_MAX"] = {256};
  return o;
}

ParamMap pass_candidate(int wg) { return test::candidate_of(pass_options({wg}), {}); }

// The rows a pass configuration of 2048 points is stored as: the length's, the first pass's
// (64 points) and the later pass's (32 points).
Rows pass_rows(const ParamMap& p) { return {{"2048", p}, {"pass64", p}, {"pass32:later", p}}; }

bool from_user(const Configuration& cfg) {
  for (const auto& [name, source] : cfg.sources)
    if (source.rfind("user ", 0) != 0) return false;
  return true;
}

// 3 transforms of 2048 points through the library (its lookup as it is now) against the host FFT.
void check_plan_of_2048(cl::CommandQueue& queue) { test::check_host_fft(queue, 2048, 3, test::seed() + 11); }

// A class's rows: its default, then that default's two splits (passes of at most 128 and 256
// points), both verified, in either order; neither with work-groups of `not_wg` (0: any).
void check_default_then_splits(const TuneClassResult& c, int not_wg = 0) {
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[0].is_default);
  std::vector<int> splits;
  for (std::size_t i = 1; i < c.rows.size(); ++i) {
    if (not_wg != 0) CHECK(c.rows[i].params.at("FFT_WG") != not_wg);
    CHECK(c.rows[i].status == CandidateStatus::Ok);
    splits.push_back(c.rows[i].params.at("FFT_PASS_MAX"));
  }
  std::sort(splits.begin(), splits.end());
  CHECK(splits == std::vector<int>{128, 256});
}

}  // namespace

TEST_SUITE("tune_passes") {
  TEST_CASE("tune fft: a length run as passes stores its pass rows, which its plan then takes") {
    TuneEnv env("fft-passes");
    auto& s = test::session();
    const ParamMap winner = pass_candidate(64);
    const detail::TuneFaultScope fault(test::looks_fastest(winner));
    const TuneResult r = tune(s.queue, "fft", pass_options({64, 256}));
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.variant == "2048");
    CHECK(c.rejected == 0);
    REQUIRE(c.has_best);
    CHECK(c.best == winner);
    CHECK(c.stored);
    CHECK(c.stored_rows == pass_rows(winner));
    // The plan of 2048 points resolves its length's row and both pass rows from the user database,
    // runs two passes of 64 and 32 points, and transforms correctly.
    FftDesc d;
    d.n = 2048;
    d.batch = 3;
    const FftPlan plan(s.queue, d);
    CHECK(plan.launches() == 2);
    std::vector<std::string> variants;
    for (const Configuration& cfg : plan.configurations()) {
      INFO(cfg.variant);
      variants.push_back(cfg.variant);
      CHECK(cfg.values == winner);
      CHECK(from_user(cfg));
    }
    CHECK(std::find(variants.begin(), variants.end(), "pass64") != variants.end());
    CHECK(std::find(variants.begin(), variants.end(), "pass32:later") != variants.end());
    check_plan_of_2048(s.queue);
  }

  TEST_CASE("tune fft: a wrong pass candidate is rejected and never stored, even when it looks fastest") {
    TuneEnv env("fft-passes-wrong");
    auto& s = test::session();
    const ParamMap wrong = pass_candidate(256), fast = pass_candidate(64);
    // Finite wrong values in a transform the sample compares, as a wrong parameter would leave.
    const detail::TuneFaultScope fault([&](const ParamMap& p) {
      detail::TuneFault f;
      if (p == wrong) {
        f.region_values = detail::TuneFault::Values::Wrong;
        f.in_sample = true;
        f.time_scale = 1e-6;
      }
      if (p == fast) f.time_scale = 1e-3;
      return f;
    });
    const TuneResult r = tune(s.queue, "fft", pass_options({64, 256}));
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    test::check_rejected(c, wrong, "differs from the host FFT");
    REQUIRE(c.has_best);
    CHECK(c.best == fast);
    for (const char* v : {"pass64", "pass32:later"})
      CHECK(resolve_configuration("fft", v, s.entry.info).values == fast);
  }

  TEST_CASE("tune fft: the splits of a length run as passes are tried first, on the best so far") {
    TuneEnv env("fft-passes-axes");
    auto& s = test::session();
    // The current configuration (work-groups of 64, passes of at most 256 points) is the best of
    // the references; its other split (at most 128 points) comes next, before the random order.
    const ParamMap current = pass_candidate(64);
    for (const auto& [variant, params] : pass_rows(current)) store_user_entry(s.entry.info, "fft", variant, params);
    TuneOptions o = pass_options({64, 128, 256});
    o.param_values["FFT_PASS_MAX"] = {256, 128};
    o.strategy = TuneStrategy::Random;
    o.budget = 3;
    const detail::TuneFaultScope fault(test::looks_fastest(current));
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    REQUIRE(c.rows.size() == 3);
    CHECK(c.rows[1].params == current);
    ParamMap split = current;
    split["FFT_PASS_MAX"] = 128;
    CHECK(c.rows[2].params == split);
    CHECK(c.rows[2].status == CandidateStatus::Ok);
  }

  TEST_CASE("tune fft: a length run as passes tries its splits in its first batch, before earlier winners") {
    // Two classes, 2048 and 4096 points in passes of at most 256 or 128. The first's current
    // configuration is its winner, of the work-group size the second's default is not projected
    // onto (the nearer value, the smaller on a tie); the second's first batch is its default and
    // that default's two splits, and only then that winner, which the budget leaves out.
    TuneEnv env("fft-passes-first");
    auto& s = test::session();
    const int wg = resolve_configuration("fft", "4096", s.entry.info).values.at("FFT_WG");
    const int other = std::abs(wg - 64) <= std::abs(wg - 256) ? 256 : 64;
    const ParamMap winner = pass_candidate(other);
    for (const auto& [variant, params] : pass_rows(winner)) store_user_entry(s.entry.info, "fft", variant, params);
    TuneOptions o = pass_options({64, 256});
    o.sizes = {"2048@4", "4096@2"};
    o.param_values["FFT_PASS_MAX"] = {256, 128};
    o.strategy = TuneStrategy::Random;
    o.budget = 3;
    o.compile_threads = 4;
    const detail::TuneFaultScope fault(test::looks_fastest(winner));
    const TuneResult r = tune(s.queue, "fft", o);
    REQUIRE(r.classes.size() == 2);
    REQUIRE(r.classes[0].has_best);
    CHECK(r.classes[0].best == winner);
    const TuneClassResult& c = r.classes[1];
    CHECK(c.variant == "4096");
    check_default_then_splits(c, other);  // not the first class's winner
  }

  TEST_CASE("tune fft: a class's first batch is built and measured past its share, within the run's") {
    // A class whose share ended before it began (its instances took it to make, as 2^20 points
    // do on a GPU): its first batch, the default and its two splits, is still built and measured
    // within the run's time; no later batch starts.
    TuneEnv env("fft-passes-whole");
    auto& s = test::session();
    TuneOptions o = pass_options({64, 256});
    o.param_values["FFT_PASS_MAX"] = {256, 128};
    o.time_limit_s = 60;
    o.compile_threads = 4;
    const detail::TuneTarget& target = detail::tune_target("fft");
    const detail::KernelSpec& spec = detail::kernel_spec("fft");
    TuneClassResult c;
    c.variant = "2048";
    c.sizes = {"2048@4"};
    c.default_params = c.current_params = resolve_configuration("fft", "2048", s.entry.info, Tuning{{}, false}).values;
    const detail::Space space = detail::build_space(spec, o.param_values, c.variant, s.entry.info, 1);
    REQUIRE(space.candidates.size() == 4);
    detail::ClassCache cache;
    const auto now = detail::Clock::now();
    detail::ClassTuner tuner(s.queue, target, spec, o, TuneStrategy::Random, c, 7, now, now - std::chrono::seconds(1),
                             0, 1, cache);
    CHECK(tuner.run(space));
    check_default_then_splits(c);
  }

  TEST_CASE("tune all: a pass configuration no faster than the current one is never stored") {
    TuneEnv env("fft-passes-all");
    auto& s = test::session();
    const DeviceInfo& dev = s.entry.info;
    // The current configuration: work-groups of 64, stored as the library's rows of 2048 points.
    const ParamMap current = pass_candidate(64);
    for (const auto& [variant, params] : pass_rows(current)) store_user_entry(dev, "fft", variant, params);
    TuneOptions o = pass_options({128, 256});  // the current configuration is no point of the space
    const std::vector<TuneAllJob> jobs = tune_all_jobs({{"fft", {"2048@4"}}});
    std::vector<TuneAllJob> fft_only;
    for (const auto& j : jobs)
      if (j.routine == "fft") fft_only.push_back(j);
    REQUIRE(fft_only.size() == 1);
    {
      // Every candidate looks faster than the default, the current rows faster still: nothing is
      // stored.
      const detail::TuneFaultScope fault([&](const ParamMap& p) {
        detail::TuneFault f;
        if (p == current) f.time_scale = 1e-4;
        if (p == pass_candidate(128) || p == pass_candidate(256)) f.time_scale = 1e-2;
        return f;
      });
      const TuneAllResult all = tune_all(s.queue, fft_only, o);
      REQUIRE(all.results.size() == 1);
      const TuneClassResult& c = all.results[0].classes.at(0);
      CHECK(c.current_params == current);
      CHECK(c.current_ms > 0);
      CHECK(!c.stored);
      CHECK(c.no_gain);
      for (const auto& [variant, params] : pass_rows(current))
        CHECK(resolve_configuration("fft", variant, dev).values == current);
    }
    {
      // A candidate faster than the current rows replaces all of them.
      const ParamMap faster = pass_candidate(128);
      const detail::TuneFaultScope fault(test::looks_fastest(faster));
      const TuneAllResult all = tune_all(s.queue, fft_only, o);
      const TuneClassResult& c = all.results.at(0).classes.at(0);
      CHECK(c.stored);
      for (const auto& [variant, params] : pass_rows(faster))
        CHECK(resolve_configuration("fft", variant, dev).values == faster);
    }
  }
}
