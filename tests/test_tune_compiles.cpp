// The tuner's compiles against its time: a batch whose compiles end past the class's share, a
// compile far slower than the class's others given up, the floor of a class after one that
// overran, and a batch's candidates evaluated while its slower compiles still run. The slow
// compiles are the fault hook's (TuneFault::build_delay_s); no assertion depends on a measured
// kernel time.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "tests/tune_support.hpp"
#include "tuning/tuner_internal.hpp"
#include "tuning/tuner_testing.hpp"

using namespace clforge;
using test::shipped;
using test::small_options;
using test::TuneEnv;

namespace {
// A tuning space of the transpose at 33 x 65 searching these tiles, rows per work-item, vector
// widths and paddings, its other parameters fixed.
TuneOptions transpose_space(std::vector<int> tiles, std::vector<int> wpts, std::vector<int> vws,
                            std::vector<int> pads) {
  return test::tiny_space("33x65", {{"TRA_TILE", std::move(tiles)},
                                    {"TRA_WPT", std::move(wpts)},
                                    {"TRA_VW", std::move(vws)},
                                    {"TRA_PAD", std::move(pads)},
                                    {"TRA_DIAG", {0}},
                                    {"TRA_SWZ", {0}},
                                    {"TRA_LOCAL", {1}},
                                    {"TRA_NT", {0}}});
}
}  // namespace

TEST_SUITE("tune_compiles") {
  TEST_CASE("a batch whose compiles end past the class's share is evaluated within the run's time") {
    // Two classes share 20 s: the first's 10 s end while its candidates compile (each build
    // waits 10 s first, a slow driver), long before the run's end. The compiled ones are
    // verified and timed (for up to as long again as the compiles took), not dropped; the
    // second class's batch ends past the run's end and is. (A batch starts while the share
    // holds another as long as the last: the references may take up to 5 s on a cold cache.)
    TuneEnv env("late-batch");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.sizes = {"33x65", "64:8"};
    o.time_limit_s = 20;
    o.compile_threads = 4;
    o.store = false;
    const detail::TuneFaultScope fault([defaults = std::set<ParamMap>{shipped("4"), shipped("8")}](const ParamMap& p) {
      detail::TuneFault f;
      if (!defaults.count(p)) f.build_delay_s = 10;
      return f;
    });
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 2);
    const TuneClassResult& first = r.classes[0];
    INFO("first class: " << first.tried << " tried in " << first.wall_s << " s");
    CHECK(first.wall_s > 10);  // past its share
    CHECK(first.tried > 1);
    for (const auto& row : first.rows) {
      if (row.is_default) continue;
      CHECK(row.status == CandidateStatus::Ok);
      CHECK(row.compile_s >= 10);
    }
    // The second class's batch compiled until after the run's end (its share began past 10 s):
    // only its default was evaluated.
    CHECK(r.classes[1].tried == 1);
  }

  TEST_CASE("past the class's time a compile far slower than the class's others is given up") {
    // One class of 14 s. The first batch (the default and one seed on two compile threads)
    // compiles at the driver's speed (a batch starts while the share holds another as long as
    // the last: the first may take up to 7 s on a cold cache); every later candidate's compile
    // takes 60 s (the test hook's slow compile, given up as a worker's is). Past the class's
    // time those still compiling for 4 times the class's typical compile (at least 2 s) are
    // given up: the class ends about then, not 60 s later, and measures none of them.
    TuneEnv env("give-up");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.sizes = {"33x65"};
    o.time_limit_s = 14;
    o.compile_threads = 2;
    o.store = false;
    auto asked = std::make_shared<std::atomic<int>>(0);
    const detail::TuneFaultScope fault([asked](const ParamMap&) {
      detail::TuneFault f;
      if (++*asked > 2) f.build_delay_s = 60;
      return f;
    });
    const auto t0 = std::chrono::steady_clock::now();
    const TuneResult r = tune(s.queue, "transpose", o);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    INFO("tried " << c.tried << ", given up " << c.builds_given_up << ", " << wall << " s");
    CHECK(wall < 45);
    CHECK(c.builds_given_up >= 1);
    CHECK(c.tried == 2);
    for (const auto& row : c.rows) CHECK(row.compile_s < 60);
  }

  TEST_CASE("a class after one that overran the run's time still gets half an equal share") {
    // Two classes share 12 s. The first one's candidates compile for 12.5 s each (a slow driver:
    // the builds that start in the run's first 2 s), so it ends past the run's time; the second
    // still has half of an equal share (3 s), within one share past the end (to 18 s), to
    // measure candidates, not its references alone.
    TuneEnv env("class-floor");
    auto& s = test::session();
    TuneOptions o = transpose_space({8, 16}, {1, 2}, {1, 2}, {0, 1});
    o.sizes = {"33x65", "64:8"};
    o.time_limit_s = 12;
    o.compile_threads = 2;
    o.store = false;
    const auto t0 = std::chrono::steady_clock::now();
    const detail::TuneFaultScope fault(
        [t0, defaults = std::set<ParamMap>{shipped("4"), shipped("8")}](const ParamMap& p) {
          detail::TuneFault f;
          if (!defaults.count(p) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2))
            f.build_delay_s = 12.5;
          return f;
        });
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 2);
    INFO("classes: " << r.classes[0].tried << " tried in " << r.classes[0].wall_s << " s, " << r.classes[1].tried
                     << " in " << r.classes[1].wall_s << " s");
    CHECK(r.classes[0].wall_s > 12);
    CHECK(r.classes[1].tried >= 2);  // without the floor: its references alone (1)
    CHECK(r.classes[1].wall_s < 6);  // its floor, and a batch's grace
  }

  TEST_CASE("a batch's candidates are evaluated while its slower compiles run, unless on a CPU device") {
    // After the default, one batch of the space's four candidates (exhaustive order, four compile
    // threads; the padding pinned away from the default's, so that it is none of them), the first
    // one's build waiting 8 s first (the test hook's slow compile). Evaluated as their builds end
    // (a GPU's way, forced here on PoCL), the batch's other three are measured while the first
    // still compiles, which is measured last; the other way (a CPU device's, whose timings the
    // compiles would disturb), only once every build of the batch has ended.
    using Clock = std::chrono::steady_clock;
    const int pad = shipped("4").at("TRA_PAD") == 0 ? 1 : 0;
    for (const bool overlap : {true, false}) {
      CAPTURE(overlap);
      TuneEnv env(overlap ? "overlap-on" : "overlap-off");
      auto& s = test::session();
      TuneOptions o = transpose_space({8, 16}, {1, 2}, {1}, {pad});
      o.strategy = TuneStrategy::Exhaustive;
      o.compile_threads = 4;
      o.store = false;
      struct Seen {
        std::mutex m;
        int asked = 0;
        Clock::time_point slow_asked;
        std::vector<Clock::time_point> evaluated;
      };
      auto seen = std::make_shared<Seen>();
      const detail::TuneOverlapScope forced([overlap] { return overlap; });
      const detail::TuneFaultScope fault([seen](const ParamMap&) {
        detail::TuneFault f;
        const std::lock_guard<std::mutex> lock(seen->m);
        if (++seen->asked == 2) {  // the default, then the batch's four: its first
          f.build_delay_s = 8;
          seen->slow_asked = Clock::now();
        }
        f.on_evaluate = [seen] {
          const std::lock_guard<std::mutex> l(seen->m);
          seen->evaluated.push_back(Clock::now());
        };
        return f;
      });
      const TuneResult r = tune(s.queue, "transpose", o);
      REQUIRE(r.classes.size() == 1);
      CHECK(r.classes[0].tried == 5);
      REQUIRE(seen->asked == 5);
      REQUIRE(seen->evaluated.size() == 5);
      const auto after_s = [&](std::size_t k) {
        return std::chrono::duration<double>(seen->evaluated[k] - seen->slow_asked).count();
      };
      INFO("the batch's evaluations " << after_s(1) << ", " << after_s(2) << ", " << after_s(3) << " and " << after_s(4)
                                      << " s after its builds started");
      if (overlap)
        CHECK(after_s(3) < 6);  // three measured before the slow build ends
      else
        CHECK(after_s(1) >= 8);
      CHECK(after_s(4) >= 8);
    }
  }

  TEST_CASE("a class that stops gaining leaves the rest of its share; one that gains keeps it") {
    // One class of 12 s over 24 candidates on two compile threads (the random strategy), each
    // candidate's build taking 1 s at least (the test hook's slow compile), so that the space
    // outlasts the share. Where the default looks fastest (the fault hook), nothing gains: past
    // half its share and two batches, the class ends and leaves the rest. Where each candidate
    // asked looks 4 times as fast as the one before, every batch gains: the class searches
    // until its share ends.
    const ParamMap def = shipped("4");
    for (const bool gaining : {false, true}) {
      CAPTURE(gaining);
      TuneEnv env(gaining ? "stall-gaining" : "stall-flat");
      auto& s = test::session();
      TuneOptions o = transpose_space({4, 8, 16, 32}, {1, 2, 4}, {1, 2}, {1});
      o.strategy = TuneStrategy::Random;
      o.time_limit_s = 12;
      o.compile_threads = 2;
      o.store = false;
      auto asked = std::make_shared<std::atomic<int>>(0);
      const detail::TuneFaultScope fault([gaining, def, asked](const ParamMap& p) {
        detail::TuneFault f;
        if (p != def) f.build_delay_s = 1;
        if (gaining)
          f.time_scale = std::pow(0.25, ++*asked);
        else if (p == def)
          f.time_scale = 1e-4;
        return f;
      });
      const TuneResult r = tune(s.queue, "transpose", o);
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      INFO("tried " << c.tried << " in " << c.wall_s << " s, left " << c.share_left_s << " s");
      if (gaining) {
        CHECK(c.share_left_s == 0);
        CHECK(c.wall_s > 9);
      } else {
        CHECK(c.share_left_s > 1);
        CHECK(c.tried < 25);
        CHECK(c.wall_s < 9);
      }
    }
  }
}
