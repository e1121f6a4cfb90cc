// The model strategy and replay on a tune cache: a transpose run measures the default once, the
// test writes records of a structured landscape for a few dozen other configurations under the
// same key, and replays search that universe (nothing compiled or run). The model's order is a
// function of its seed and the measurements; it finds the universe's best long before an
// exhaustive walk would; a replay without a cache, or with one lacking the class or its
// default, is refused before anything is built.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "clforge/errors.hpp"
#include "runtime/files.hpp"
#include "tests/tune_support.hpp"

using namespace clforge;
using test::TuneEnv;

namespace {

// 4 x 4 x 3 x 2 combinations of the transpose's tile, rows per item, vector width and padding.
TuneOptions universe_options() {
  // The size as the command line passes it (64x64, 4-byte elements), so that both share the key.
  return test::tiny_space("64x64:4", {{"TRA_TILE", {4, 8, 16, 32}},
                                      {"TRA_WPT", {1, 2, 4, 8}},
                                      {"TRA_VW", {1, 2, 4}},
                                      {"TRA_PAD", {0, 1}},
                                      {"TRA_DIAG", {0}},
                                      {"TRA_SWZ", {0}},
                                      {"TRA_LOCAL", {1}},
                                      {"TRA_NT", {0}}});
}

// The landscape: a time per value of each parameter, multiplied, with a small interaction of
// tile and vector width; its minimum is at TILE 16, WPT 4, VW 2, PAD 1 (0.0922 ms there).
double landscape_ms(const ParamMap& p) {
  const std::map<int, double> tile{{4, 3.0}, {8, 1.6}, {16, 1.0}, {32, 1.3}},
      wpt{{1, 1.5}, {2, 1.2}, {4, 1.0}, {8, 1.4}}, vw{{1, 1.3}, {2, 1.0}, {4, 1.1}};
  const double pad = p.at("TRA_PAD") == 1 ? 1.0 : 1.15;
  const double mix = p.at("TRA_TILE") == 4 && p.at("TRA_VW") == 4 ? 1.5 : 1.0;
  return 0.1 * tile.at(p.at("TRA_TILE")) * wpt.at(p.at("TRA_WPT")) * vw.at(p.at("TRA_VW")) * pad * mix * 0.922;
}

ParamMap landscape_best() {
  return test::candidate_of(universe_options(), {{"TRA_TILE", 16}, {"TRA_WPT", 4}, {"TRA_VW", 2}, {"TRA_PAD", 1}});
}

// A record of every combination of the universe's lists under `key` (write_universe).
std::string landscape_records(const TuneOptions& o, const std::string& key) {
  std::string text;
  for (int tile : {4, 8, 16, 32})
    for (int wpt : {1, 2, 4, 8})
      for (int vw : {1, 2, 4})
        for (int pad : {0, 1}) {
          const ParamMap p =
              test::candidate_of(o, {{"TRA_TILE", tile}, {"TRA_WPT", wpt}, {"TRA_VW", vw}, {"TRA_PAD", pad}});
          const bool wrong = tile == 32 && wpt == 8;
          nlohmann::json r = {{"key", key},
                              {"params", p},
                              {"status", wrong ? "rejected" : "ok"},
                              {"ms", wrong ? 0.0 : landscape_ms(p)},
                              {"error", wrong ? 1.0 : 0.0},
                              {"message", wrong ? "wrong result" : ""}};
          text += r.dump() + "\n";
        }
  return text;
}

// Measures the default of each of the universe's classes (`sizes`) into `cache` (the keys'
// records), then appends a record of every combination of the universe's lists under each key:
// the landscape's time, or "rejected" for TILE 32 with WPT 8. The defaults' records (outside the
// lists) get 1 ms, slower than any of the landscape, or are removed with `drop_default` (with the
// marks of their builds, which would otherwise stand for a crashed default). Returns
// the first class's key.
std::string write_universe(const std::string& cache, bool drop_default = false,
                           const std::vector<std::string>& sizes = {"64x64:4"}) {
  auto& s = test::session();
  TuneOptions o = universe_options();
  o.sizes = sizes;
  o.strategy = TuneStrategy::Exhaustive;
  o.budget = 1;
  o.store = false;
  o.cache_file = cache;
  tune(s.queue, "transpose", o);
  const auto records = test::cache_records(cache);
  REQUIRE(records.size() == sizes.size());
  std::string text;
  for (auto j : test::cache_lines(cache)) {
    if ((j.contains("params") || j.contains("started")) && drop_default) continue;  // record and mark
    if (j.contains("params")) j["ms"] = 1.0;  // slower than every configuration of the landscape
    text += j.dump() + "\n";
  }
  for (const auto& record : records) text += landscape_records(o, record.at("key"));
  detail::write_file_atomic(cache, text);
  return records.front().at("key");
}

TuneOptions replay_options(const std::string& cache, TuneStrategy strategy, std::uint64_t seed) {
  TuneOptions o = universe_options();
  o.replay = true;
  o.cache_file = cache;
  o.strategy = strategy;
  o.seed = seed;
  o.compile_threads = 3;  // the batch size of the strategies
  return o;
}

std::vector<ParamMap> order_of(const TuneResult& r) {
  std::vector<ParamMap> order;
  for (const auto& row : r.classes.at(0).rows) order.push_back(row.params);
  return order;
}

// The position (1-based) of the first row with `best`, or the row count + 1.
std::size_t first_hit(const TuneResult& r, const ParamMap& best) {
  const auto& rows = r.classes.at(0).rows;
  std::size_t i = 0;
  while (i < rows.size() && rows[i].params != best) ++i;
  return i + 1;
}

}  // namespace

TEST_SUITE("tune") {
  TEST_CASE("replay: a tune cache as the universe, the model's order fixed by its seed") {
    TuneEnv env("model-replay");
    auto& s = test::session();
    const std::string cache = env.dir + "/universe.jsonl";
    write_universe(cache);
    const std::string before = detail::read_file(cache).value_or("");
    const CacheStats stats = cache_stats();

    const TuneResult a = tune(s.queue, "transpose", replay_options(cache, TuneStrategy::Model, 11));
    const TuneResult b = tune(s.queue, "transpose", replay_options(cache, TuneStrategy::Model, 11));
    const TuneResult c = tune(s.queue, "transpose", replay_options(cache, TuneStrategy::Model, 12));
    CHECK(cache_stats().compiles == stats.compiles);
    CHECK(detail::read_file(cache).value_or("") == before);  // nothing appended
    CHECK(!detail::file_exists(a.database_path));
    CHECK(a.replay);
    REQUIRE(a.classes.size() == 1);
    const TuneClassResult& ca = a.classes[0];
    INFO("universe " << ca.candidates << ", tried " << ca.tried);
    CHECK(ca.candidates >= 40);  // the admissible share of the 96 combinations written
    CHECK(ca.candidates <= 96);
    CHECK(ca.tried == ca.candidates + 1);  // every one and the default (outside the lists)
    CHECK(ca.cached == ca.tried);
    CHECK(ca.rows.front().is_default);
    CHECK(ca.runoff.empty());
    CHECK(ca.best == landscape_best());
    CHECK(ca.best_ms == doctest::Approx(landscape_ms(landscape_best())));
    CHECK(order_of(a) == order_of(b));
    CHECK(order_of(a) != order_of(c));
    std::set<ParamMap> distinct;
    for (const auto& p : order_of(a)) distinct.insert(p);
    CHECK(distinct.size() == ca.tried);
  }

  TEST_CASE("model: the universe's best long before an exhaustive walk, within a budget") {
    TuneEnv env("model-best");
    auto& s = test::session();
    const std::string cache = env.dir + "/universe.jsonl";
    write_universe(cache);
    const CacheStats stats = cache_stats();
    const TuneResult all = tune(s.queue, "transpose", replay_options(cache, TuneStrategy::Exhaustive, 1));
    const std::size_t universe = all.classes.at(0).tried;
    REQUIRE(universe >= 40);
    for (std::uint64_t seed : {21, 22, 23}) {
      TuneOptions o = replay_options(cache, TuneStrategy::Model, seed);
      o.budget = universe / 2;
      const TuneResult r = tune(s.queue, "transpose", o);
      INFO("seed " << seed << ": best at " << first_hit(r, landscape_best()) << " of " << universe);
      CHECK(r.classes.at(0).tried == universe / 2);
      CHECK(r.classes.at(0).best == landscape_best());
      CHECK(first_hit(r, landscape_best()) <= universe / 3);
    }
    CHECK(cache_stats().compiles == stats.compiles);
  }

  TEST_CASE("model: a class's first batch is ranked by what the classes before it measured") {
    TuneEnv env("model-prior");
    auto& s = test::session();
    const std::string cache = env.dir + "/universe.jsonl";
    // Two classes (4- and 8-byte elements) of the same landscape: the second starts from the
    // first's measurements, so its first batch of the model (after its default and the first's
    // best) holds configurations the landscape ranks among its fastest ten, where a random batch
    // of three from some 60 would hold two of those about one time in fourteen.
    const std::vector<std::string> sizes{"64x64:4", "64x64:8"};
    write_universe(cache, false, sizes);
    std::vector<double> times;
    for (int tile : {4, 8, 16, 32})
      for (int wpt : {1, 2, 4, 8})
        for (int vw : {1, 2, 4})
          for (int pad : {0, 1})
            if (!(tile == 32 && wpt == 8))
              times.push_back(landscape_ms(test::candidate_of(
                  universe_options(), {{"TRA_TILE", tile}, {"TRA_WPT", wpt}, {"TRA_VW", vw}, {"TRA_PAD", pad}})));
    std::sort(times.begin(), times.end());
    const double tenth = times.at(9);
    for (std::uint64_t seed : {41, 42, 43}) {
      TuneOptions o = replay_options(cache, TuneStrategy::Model, seed);
      o.sizes = sizes;
      const TuneResult r = tune(s.queue, "transpose", o);
      REQUIRE(r.classes.size() == 2);
      const auto& first = r.classes[0].rows;
      const auto& rows = r.classes[1].rows;
      REQUIRE(rows.size() >= 8);
      CHECK(rows[0].is_default);
      CHECK(rows[1].params == r.classes[0].best);  // the first class's best
      // Then the seeds both classes take (other devices' rows, projected), then the model.
      std::size_t k = 2;
      while (k < rows.size() && k - 1 < first.size() && rows[k].params == first[k - 1].params) ++k;
      REQUIRE(k + 3 <= rows.size());
      int fast = 0;
      for (std::size_t i = k; i < k + 3; ++i) fast += landscape_ms(rows[i].params) <= tenth * (1 + 1e-9);
      INFO("seed " << seed << ": " << fast << " of the first batch among the fastest ten");
      CHECK(fast >= 2);
    }
  }

#ifdef CLFORGE_CLI
  TEST_CASE("clforge tune --replay: --tuning-file lists the rows in the strategy's order") {
    TuneEnv env("model-cli");
    auto& s = test::session();
    const std::string cache = env.dir + "/universe.jsonl";
    write_universe(cache);
    const TuneResult api = tune(s.queue, "transpose", replay_options(cache, TuneStrategy::Model, 31));
    const std::string file = env.dir + "/results.json";
    std::string out;
    const int rc = test::run_command(
        std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
            s.entry.info.index_string() +
            " tune transpose --size 64 --param TRA_TILE=4,8,16,32 --param TRA_WPT=1,2,4,8 --param TRA_VW=1,2,4 "
            "--param TRA_PAD=0,1 --param TRA_DIAG=0 --param TRA_SWZ=0 --param TRA_LOCAL=1 --param TRA_NT=0 "
            "--strategy model --seed 31 --threads 3 --replay --cache '" +
            cache + "' --tuning-file '" + file + "'",
        out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("nothing stored (--replay)") != std::string::npos);
    const auto j = nlohmann::json::parse(detail::read_file(file).value_or("{}"));
    std::vector<ParamMap> order;
    for (const auto& row : j.at("results").at(0).at("rows")) order.push_back(row.at("params").get<ParamMap>());
    CHECK(order == order_of(api));
  }
#endif

  TEST_CASE("replay without a cache, or with one lacking the class or its default, is refused") {
    TuneEnv env("model-refused");
    auto& s = test::session();
    const CacheStats stats = cache_stats();
    auto refused = [&](const TuneOptions& o, const std::string& needle) {
      std::string what;
      try {
        tune(s.queue, "transpose", o);
      } catch (const InvalidArgument& e) {
        what = e.what();
      }
      INFO(what);
      CHECK(what.find(needle) != std::string::npos);
    };
    refused(replay_options("off", TuneStrategy::Model, 1), "needs one");
    refused(replay_options(env.dir + "/missing.jsonl", TuneStrategy::Model, 1), "nothing to replay");
    CHECK(!detail::file_exists(env.dir + "/missing.jsonl"));
    CHECK(cache_stats().compiles == stats.compiles);

    const std::string cache = env.dir + "/universe.jsonl";
    write_universe(cache, true);
    const CacheStats written = cache_stats();
    refused(replay_options(cache, TuneStrategy::Random, 1), "no measurement of the default");
    TuneOptions other = replay_options(cache, TuneStrategy::Random, 1);
    other.sizes = {"32"};  // another size: another key, none of whose records are there
    refused(other, "nothing to replay");
    CHECK(cache_stats().compiles == written.compiles);
  }
}
