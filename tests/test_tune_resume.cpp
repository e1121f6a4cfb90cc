// The tune cache and resuming (TuneOptions::cache_file, resume): a tune stopped after three
// candidates and resumed measures only the others and ends as an uninterrupted run (random,
// anneal and model, every candidate's time set apart by the fault hook); a run without resume starts
// afresh, other keys' records stay, a torn last line is skipped, other kernel sources are another
// key. What is stored: nothing when no configuration beats the current one by more than
// min_gain. Through the CLI: Ctrl-C keeps the measurements, --resume measures only the rest,
// --no-store says nothing was stored, progress shows a count and an ETA.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "runtime/hashing.hpp"
#include "tests/tune_support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;
using test::cache_records;
using test::fastest_ok;
using test::looks_fastest;
using test::params_of;
using test::shipped;
using test::small_candidate;
using test::small_options;
using test::TuneEnv;

namespace {

// 16 candidates: TRA_TILE 8/16, TRA_WPT 1/2, TRA_PAD 0/1, TRA_DIAG 0/1.
TuneOptions sixteen() {
  TuneOptions o = small_options();
  o.param_values["TRA_PAD"] = {0, 1};
  o.param_values["TRA_DIAG"] = {0, 1};
  return o;
}

// Times each configuration of sixteen() and the default 10^4 times apart, the candidates in an
// order unrelated to the declaration order and the default slowest, so that every comparison of
// the search has one outcome whatever this device measures (100 times apart, a loaded 2-core
// machine once reordered two of them).
detail::TuneFaultHook spread_times() {
  std::vector<ParamMap> all;
  const TuneOptions o = sixteen();
  for (int t : {8, 16})
    for (int w : {1, 2})
      for (int pad : {0, 1})
        for (int diag : {0, 1})
          all.push_back(test::candidate_of(o, {{"TRA_TILE", t}, {"TRA_WPT", w}, {"TRA_PAD", pad}, {"TRA_DIAG", diag}}));
  std::sort(all.begin(), all.end(), [](const ParamMap& a, const ParamMap& b) {
    return detail::fnv1a(detail::describe_params(a)) < detail::fnv1a(detail::describe_params(b));
  });
  all.erase(std::remove(all.begin(), all.end(), shipped("4")), all.end());
  all.push_back(shipped("4"));
  std::map<ParamMap, double> scale;
  for (std::size_t i = 0; i < all.size(); ++i) scale.emplace(all[i], std::pow(1e4, static_cast<double>(i)) * 1e-30);
  return [scale](const ParamMap& p) {
    detail::TuneFault f;
    const auto it = scale.find(p);
    f.time_scale = it != scale.end() ? it->second : 1.0;
    return f;
  };
}

std::vector<ParamMap> row_params(const TuneClassResult& c) {
  std::vector<ParamMap> v;
  for (const auto& row : c.rows) v.push_back(row.params);
  return v;
}

[[maybe_unused]] std::string db_of(const std::string& user_dir) {
  test::ScopedEnv user("CLFORGE_USER_TUNING_DIR", user_dir);
  return user_database_path(test::session().entry.info);
}

}  // namespace

TEST_SUITE("tune") {
  TEST_CASE(
      "a tune stopped after three candidates and resumed measures only the others and ends as an "
      "uninterrupted one") {
    auto& s = test::session();
    for (TuneStrategy strategy : {TuneStrategy::Random, TuneStrategy::Anneal, TuneStrategy::Model}) {
      INFO(to_string(strategy));
      TuneOptions o = sixteen();
      o.strategy = strategy;
      o.budget = 9;
      o.finalists = 2;
      o.seed = test::seed() + 12345;  // not the seed a call without one would draw
      const detail::TuneFaultScope fault(spread_times());

      TuneEnv whole("resume-whole");
      o.cache_file = whole.dir + "/cache.jsonl";
      const TuneResult u = tune(s.queue, "transpose", o);
      REQUIRE(u.classes.size() == 1);
      const TuneClassResult& uc = u.classes[0];
      CHECK(uc.tried == 9);
      CHECK(uc.cached == 0);
      const Configuration u_stored = resolve_configuration("transpose", "4", s.entry.info);

      TuneEnv parts("resume-parts");
      TuneOptions first = o;
      first.cache_file = parts.dir + "/cache.jsonl";
      std::atomic<bool> stop{false};
      first.stop = &stop;
      first.progress = [&stop](const TuneProgress& p) {
        if (p.done == 3) stop = true;
      };
      const TuneResult i = tune(s.queue, "transpose", first);
      CHECK(i.interrupted);
      REQUIRE(i.classes.size() == 1);
      CHECK(i.classes[0].tried == 3);
      // Nothing stored: the measurements wait in the cache, in the order of the uninterrupted run.
      CHECK(!i.classes[0].stored);
      CHECK(!detail::file_exists(user_database_path(s.entry.info)));
      const auto kept = cache_records(first.cache_file);
      REQUIRE(kept.size() == 3);
      for (std::size_t k = 0; k < kept.size(); ++k) CHECK(params_of(kept[k]) == uc.rows[k].params);

      // Resumed without a seed: the cached run's seed, its three measurements, the others measured.
      TuneOptions again = o;
      again.cache_file = first.cache_file;
      again.resume = true;
      again.seed = 0;
      const TuneResult r = tune(s.queue, "transpose", again);
      CHECK(!r.interrupted);
      CHECK(r.seed == o.seed);
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& rc = r.classes[0];
      CHECK(rc.cached == 3);
      CHECK(row_params(rc) == row_params(uc));
      for (std::size_t k = 0; k < rc.rows.size(); ++k) CHECK(rc.rows[k].cached == (k < 3));
      const auto records = cache_records(first.cache_file);
      REQUIRE(records.size() == rc.rows.size());
      std::set<ParamMap> distinct;
      for (std::size_t k = 0; k < records.size(); ++k) {
        CHECK(params_of(records[k]) == rc.rows[k].params);
        distinct.insert(params_of(records[k]));
      }
      CHECK(distinct.size() == records.size());
      // The same result, stored alike.
      CHECK(rc.best == uc.best);
      CHECK(rc.stored == uc.stored);
      CHECK(rc.no_gain == uc.no_gain);
      CHECK(resolve_configuration("transpose", "4", s.entry.info).values == u_stored.values);
      CHECK(rc.stored);  // the fault hook's fastest is not the default
    }
  }

  TEST_CASE("the tune cache: records per key, a fresh run drops its key's, a torn line is skipped") {
    TuneEnv env("cache-file");
    auto& s = test::session();
    TuneOptions o = small_options();
    o.budget = 2;
    o.store = false;
    // The default file sits beside the user database.
    const TuneResult d = tune(s.queue, "transpose", o);
    std::string expected = user_database_path(s.entry.info);
    expected = expected.substr(0, expected.size() - 5) + ".tune-cache.jsonl";
    CHECK(d.cache_path == expected);
    CHECK(cache_records(expected).size() == 2);

    o.cache_file = env.dir + "/other/cache.jsonl";
    tune(s.queue, "transpose", o);
    o.sizes = {"48"};
    tune(s.queue, "transpose", o);
    auto keys = [&] {
      std::map<std::string, std::size_t> n;
      for (const auto& j : cache_records(o.cache_file)) ++n[j.at("key").get<std::string>()];
      return n;
    };
    REQUIRE(keys().size() == 2);
    const std::string k64 = cache_records(o.cache_file).front().at("key");

    // A write cut off by a crash leaves a torn last line: skipped, and the next record starts a line.
    { std::ofstream(o.cache_file, std::ios::app) << R"({"key": ")" << k64 << R"(", "params": {"TRA_TI)"; }
    o.sizes = {"64"};
    o.resume = true;
    o.budget = 3;
    TuneResult r = tune(s.queue, "transpose", o);
    CHECK(r.classes.at(0).cached == 2);
    CHECK(r.classes.at(0).tried == 3);
    CHECK(keys().at(k64) == 3);
    const std::string text = detail::read_file(o.cache_file).value_or("");
    CHECK(std::count(text.begin(), text.end(), '\n') == static_cast<long>(test::cache_lines(o.cache_file).size()) + 1);

    // Without resume: the key's earlier lines (and the torn one) are dropped, the other key's kept.
    o.resume = false;
    o.budget = 2;
    r = tune(s.queue, "transpose", o);
    CHECK(r.classes.at(0).cached == 0);
    CHECK(keys().at(k64) == 2);
    CHECK(keys().size() == 2);
    const std::string fresh = detail::read_file(o.cache_file).value_or("");
    CHECK(std::count(fresh.begin(), fresh.end(), '\n') == static_cast<long>(test::cache_lines(o.cache_file).size()));

    // Other kernel sources are another key: nothing to take.
    const std::string kdir = test::temp_dir("kernels-edited");
    REQUIRE(std::system(("cp -r '" + std::string(CLFORGE_SOURCE_DIR) + "/cl/.' '" + kdir + "/'").c_str()) == 0);
    { std::ofstream(kdir + "/transpose/transpose.cl", std::ios::app) << "\n// edited\n"; }
    {
      test::ScopedEnv kernels("CLFORGE_KERNEL_DIR", kdir);
      o.resume = true;
      r = tune(s.queue, "transpose", o);
      CHECK(r.classes.at(0).cached == 0);
      CHECK(keys().size() == 3);
    }
    // "off": no file.
    o.cache_file = "off";
    r = tune(s.queue, "transpose", o);
    CHECK(r.cache_path.empty());
    CHECK(r.classes.at(0).cached == 0);
  }

  TEST_CASE("a candidate whose build or run ended the process is left out as failed on resume") {
    TuneEnv env("resume-crash");
    auto& s = test::session();
    TuneOptions o = sixteen();
    o.cache_file = env.dir + "/cache.jsonl";
    o.store = false;
    const detail::TuneFaultScope fault(spread_times());
    const TuneResult whole = tune(s.queue, "transpose", o);
    REQUIRE(whole.classes.size() == 1);
    const ParamMap fastest = whole.classes[0].best;
    REQUIRE(fastest != shipped("4"));
    // Every candidate built was marked before its build and closed by its record.
    std::size_t started = 0;
    for (const auto& j : test::cache_lines(o.cache_file)) started += j.contains("started") ? 1 : 0;
    CHECK(started == cache_records(o.cache_file).size());
    CHECK(started == whole.classes[0].tried);

    // The file as a crash in the fastest's build leaves it: its mark, no record.
    std::string text;
    for (const auto& j : test::cache_lines(o.cache_file))
      if (!(j.contains("params") && params_of(j) == fastest)) text += j.dump() + "\n";
    detail::write_file_atomic(o.cache_file, text);

    o.resume = true;
    std::set<ParamMap> evaluated;
    const detail::TuneFaultHook times = spread_times();
    const detail::TuneFaultScope watch([&](const ParamMap& p) {
      detail::TuneFault f = times(p);
      f.on_evaluate = [&evaluated, p] { evaluated.insert(p); };
      return f;
    });
    test::LogCapture logs;
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(evaluated.empty());  // the others from the cache, the fastest not tried again
    CHECK(c.cached == c.tried);
    CHECK(c.run_failed == 1);
    const auto row = std::find_if(c.rows.begin(), c.rows.end(), [&](const TuneRow& x) { return x.params == fastest; });
    REQUIRE(row != c.rows.end());
    CHECK(row->status == CandidateStatus::RunFailed);
    CHECK(row->message.find("the process ended while this candidate was built or run") != std::string::npos);
    CHECK(c.best != fastest);
    CHECK(logs.contains("1 candidate(s) of " + o.cache_file + " ended the process that built or ran them"));
  }

  TEST_CASE("nothing is stored when no configuration beats the current one by more than min_gain") {
    TuneEnv env("no-gain");
    auto& s = test::session();
    const std::string db = user_database_path(s.entry.info);
    // The search's fastest owes its place to a quiet moment; the run-off finds every candidate
    // slower than the default.
    const ParamMap lucky = small_candidate(16, 2);
    REQUIRE(lucky != shipped("4"));
    TuneOptions o = small_options();
    o.finalists = 2;
    auto calls = std::make_shared<std::map<ParamMap, int>>();
    const detail::TuneFaultScope fault([calls, lucky](const ParamMap& p) {
      detail::TuneFault f;
      const int k = (*calls)[p]++;
      if (p == lucky)
        f.time_scale = k == 0 ? 1e-5 : 1e4;
      else if (p != shipped("4"))
        f.time_scale = 1e3;
      return f;
    });
    TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    CHECK(fastest_ok(r.classes[0])->params == lucky);
    CHECK(!r.classes[0].runoff.empty());
    CHECK(r.classes[0].best == shipped("4"));
    CHECK(r.classes[0].no_gain);
    CHECK(!r.classes[0].stored);
    CHECK(r.classes[0].store_error.empty());
    CHECK(!detail::file_exists(db));

    // A gain counts above min_gain only.
    const ParamMap winner = small_candidate(8, 2);
    o.finalists = 0;
    detail::set_tune_fault(looks_fastest(winner));  // 10^4 times faster: a gain far below 10^8 %
    o.min_gain = 1e6;
    r = tune(s.queue, "transpose", o);
    CHECK(r.classes.at(0).best == winner);
    CHECK(r.classes.at(0).no_gain);
    CHECK(!detail::file_exists(db));
    o.min_gain = 0.05;
    r = tune(s.queue, "transpose", o);
    CHECK(!r.classes.at(0).no_gain);
    CHECK(r.classes.at(0).stored);
    CHECK(resolve_configuration("transpose", "4", s.entry.info).values == winner);

    // The user database's entry is the current configuration: measured after the default, and
    // not stored again when it stays the fastest.
    const std::string before = detail::read_file(db).value_or("");
    r = tune(s.queue, "transpose", o);
    const TuneClassResult& c = r.classes.at(0);
    CHECK(c.current_params == winner);
    REQUIRE(c.rows.size() >= 2);
    CHECK(c.rows[0].is_default);
    CHECK(c.rows[1].is_current);
    CHECK(c.rows[1].params == winner);
    CHECK(c.best == winner);
    CHECK(c.no_gain);
    CHECK(!c.stored);
    CHECK(detail::read_file(db).value_or("") == before);
    // One faster than the current one by far replaces it.
    const ParamMap faster = small_candidate(8, 1);
    detail::set_tune_fault([winner, faster](const ParamMap& p) {
      detail::TuneFault f;
      f.time_scale = p == faster ? 1e-6 : p == winner ? 1e-3 : 1.0;
      return f;
    });
    r = tune(s.queue, "transpose", o);
    CHECK(r.classes.at(0).stored);
    CHECK(resolve_configuration("transpose", "4", s.entry.info).values == faster);

    o.min_gain = -0.01;
    test::expect_invalid_argument([&] { tune(s.queue, "transpose", o); }, "minimum gain");
  }

#ifdef CLFORGE_CLI
  TEST_CASE("clforge tune: Ctrl-C keeps the measurements, --resume measures only the others") {
    TuneEnv env("cli-resume");
    auto& s = test::session();
    auto cli = [&](const std::string& user_dir) {
      return "env CLFORGE_USER_TUNING_DIR='" + user_dir + "' " + CLFORGE_CLI + " --device " +
             s.entry.info.index_string() + " ";
    };
    const std::string args =
        "tune transpose --size 64 --strategy random --budget 10 --threads 1 --finalists 0 --min-gain 0 "
        "--param TRA_TILE=8,16 --param TRA_WPT=1,2 --param TRA_PAD=0,1 --param TRA_DIAG=0,1 --param TRA_VW=1 "
        "--param TRA_SWZ=0 --param TRA_LOCAL=1 --param TRA_NT=0 --seed " +
        std::to_string(test::seed());
    const std::string whole = env.dir + "/whole", parts = env.dir + "/parts";

    // An uninterrupted run that measures only.
    std::string out;
    int rc = test::run_command(cli(whole) + args + " --no-store --cache '" + whole + "/cache.jsonl'", out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("nothing stored (--no-store)") != std::string::npos);
    CHECK(out.find("stored in") == std::string::npos);
    CHECK(!detail::file_exists(db_of(whole)));
    const auto all = cache_records(whole + "/cache.jsonl");
    REQUIRE(all.size() == 10);

    // The same run, stopped by Ctrl-C once three measurements are in its cache.
    const std::string cache = parts + "/cache.jsonl", log = env.dir + "/interrupted.log";
    const pid_t pid = test::start_command(cli(parts) + args + " --no-store --cache '" + cache + "'", log);
    REQUIRE(pid > 0);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    int status = 0;
    bool ended = false;
    while (!ended && cache_records(cache).size() < 3 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ended = ::waitpid(pid, &status, WNOHANG) == pid;
    }
    const bool signalled = !ended && ::kill(pid, SIGINT) == 0;
    rc = ended ? -1 : test::wait_command(pid);
    const std::string said = detail::read_file(log).value_or("");
    INFO(said);
    REQUIRE(signalled);
    CHECK(rc == 130);
    CHECK(said.find("interrupted: the measurements are kept in " + cache) != std::string::npos);
    CHECK(said.find("--resume") != std::string::npos);
    CHECK(said.find("nothing stored (--no-store)") != std::string::npos);
    CHECK(said.find("so far was stored") == std::string::npos);
    CHECK(said.find("was kept") == std::string::npos);
    CHECK(!detail::file_exists(db_of(parts)));
    const std::size_t k = cache_records(cache).size();
    CHECK(k >= 3);
    REQUIRE(k < 10);

    // Resumed: the k measurements taken from the cache, the others measured, in the
    // uninterrupted run's order, each once.
    rc = test::run_command(cli(parts) + args + " --cache '" + cache + "' --resume", out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("tried 10 (" + std::to_string(k) + " from the tune cache)") != std::string::npos);
    const auto records = cache_records(cache);
    REQUIRE(records.size() == 10);
    for (std::size_t i = 0; i < records.size(); ++i) CHECK(params_of(records[i]) == params_of(all[i]));
    // Progress: a count (the cached ones among it), an ETA, a full bar at the end.
    CHECK(out.find(std::to_string(k) + "/10 (" + std::to_string(k) + " cached)") != std::string::npos);
    CHECK(std::regex_search(out, std::regex(" 10/10 \\(" + std::to_string(k) + " cached\\)  [0-9]+:[0-9]{2}  ETA ")));
    CHECK(out.find("[########################] 10/10 (" + std::to_string(k) + " cached)") != std::string::npos);
    // Stored: the fastest of these measurements, as an uninterrupted run measuring the same would
    // (no run-off; --min-gain 0: anything faster than the default).
    const nlohmann::json* fastest = nullptr;
    for (const auto& j : records)
      if (j.at("status") == "ok" && !j.value("cut_short", false) &&
          (fastest == nullptr || j.at("ms") < fastest->at("ms")))
        fastest = &j;
    REQUIRE(fastest != nullptr);
    if (params_of(*fastest) == shipped("4")) {
      CHECK(out.find("nothing stored") != std::string::npos);
      CHECK(!detail::file_exists(db_of(parts)));
    } else {
      CHECK(out.find("stored in " + db_of(parts)) != std::string::npos);
      test::ScopedEnv user("CLFORGE_USER_TUNING_DIR", parts);
      CHECK(resolve_configuration("transpose", "4", s.entry.info).values == params_of(*fastest));
    }
  }

  TEST_CASE("clforge tune: a space of the default alone stores nothing and says so") {
    TuneEnv env("cli-no-gain");
    auto& s = test::session();
    std::string params;
    for (const auto& [name, value] : shipped("4")) params += " --param " + name + "=" + std::to_string(value);
    std::string out;
    const int rc = test::run_command("env CLFORGE_USER_TUNING_DIR='" + env.dir + "' " + CLFORGE_CLI + " --device " +
                                         s.entry.info.index_string() + " tune transpose --size 64" + params,
                                     out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("tried 1:") != std::string::npos);
    CHECK(out.find("no configuration beat the current one by more than 2 %; nothing stored") != std::string::npos);
    CHECK(out.find("stored in") == std::string::npos);
    CHECK(!detail::file_exists(user_database_path(s.entry.info)));
  }

  TEST_CASE("clforge tune --time: progress shows a count and an ETA, and the bar fills at the end") {
    TuneEnv env("cli-progress");
    auto& s = test::session();
    std::string out;
    const int rc = test::run_command("env CLFORGE_USER_TUNING_DIR='" + env.dir + "' " + CLFORGE_CLI + " --device " +
                                         s.entry.info.index_string() +
                                         " tune transpose --size 64 --strategy random --time 1 --threads 1 "
                                         "--finalists 0 --no-store --seed " +
                                         std::to_string(test::seed()),
                                     out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(std::regex_search(out, std::regex("transpose/4 \\[[#.]{24}\\] [0-9]+/[0-9]+  [0-9]+:[0-9]{2}  ETA [0-9]+:")));
    // The time ended the search long before the space: the last line still fills the bar.
    std::smatch m;
    REQUIRE(std::regex_search(out, m, std::regex("transpose/4 \\[#{24}\\] ([0-9]+)/([0-9]+)  [0-9]+:[0-9]{2}  done")));
    CHECK(std::stoul(m[1]) < std::stoul(m[2]));
  }
#endif
}
