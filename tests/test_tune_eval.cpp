// What a candidate costs beyond its compile: the sampled verification of the timed sizes (a wrong
// value outside the sample is left to the fully verified check sizes, one inside it or a NaN
// anywhere is caught on the timed size itself), the early stop of a candidate that cannot win
// (the sampler's cut-off, and the tuner's use of it), cut rows never stored, and the targets
// meant for one kind of device. The fault hook decides every outcome that would otherwise
// depend on measured times.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "runtime/timing.hpp"
#include "tests/tune_support.hpp"
#include "tuning/tuner.hpp"
#include "tuning/tuner_internal.hpp"

using namespace clforge;
using test::TuneEnv;

namespace {

struct Family {
  std::string routine, size;
};

// The default alone, timed once: what is measured is its verification.
TuneOptions default_only(const std::string& size) {
  TuneOptions o;
  o.sizes = {size};
  o.budget = 1;
  o.store = false;
  o.cache_file = "off";
  o.finalists = 0;
  o.seed = test::seed();
  o.warmup = 0;
  o.min_reps = 1;
  o.max_reps = 1;
  o.min_time_ms = 0;
  return o;
}

// The row of the default of `routine` on `size` with `fault` applied to it.
TuneRow default_row(const Family& f, const detail::TuneFault& fault) {
  const detail::TuneFaultScope scope([fault](const ParamMap&) { return fault; });
  const TuneResult r = tune(test::session().queue, f.routine, default_only(f.size));
  REQUIRE(r.classes.size() == 1);
  REQUIRE(r.classes[0].rows.size() == 1);
  return r.classes[0].rows[0];
}

detail::TuneFault region_fault(detail::TuneFault::Values values, bool in_sample, bool on_check_sizes) {
  detail::TuneFault f;
  f.region_values = values;
  f.in_sample = in_sample;
  f.on_check_sizes = on_check_sizes;
  return f;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// Wrong values in a transform or row the sample of the timed size skips are left to the check
// sizes; wrong values inside the sample, and NaN anywhere, are rejected on the timed size itself.
void expect_sampled(const std::string& routine, const std::string& size) {
  TuneEnv env("sampled-" + routine);
  using Values = detail::TuneFault::Values;
  const Family f{routine, size};
  const detail::TuneTarget& t = detail::tune_target(routine);
  const std::string timed = t.make(test::session().queue, size, 1, detail::Verification::Sampled)->label() + ": ";
  // On the timed size alone, outside the sample: unseen.
  TuneRow row = default_row(f, region_fault(Values::Wrong, false, false));
  CHECK(row.status == CandidateStatus::Ok);
  // The same fault on the check sizes too (compared in full there): rejected there.
  row = default_row(f, region_fault(Values::Wrong, false, true));
  INFO(row.message);
  CHECK(row.status == CandidateStatus::Rejected);
  CHECK(!starts_with(row.message, timed));
  // Inside the sample: rejected on the timed size itself.
  row = default_row(f, region_fault(Values::Wrong, true, false));
  INFO(row.message);
  CHECK(row.status == CandidateStatus::Rejected);
  CHECK(starts_with(row.message, timed));
  // NaN where the sample does not compare: the scan of the whole output rejects it.
  row = default_row(f, region_fault(Values::NaN, false, false));
  INFO(row.message);
  CHECK(row.status == CandidateStatus::Rejected);
  CHECK(starts_with(row.message, timed));
  CHECK(row.message.find("NaN or infinite") != std::string::npos);
}

}  // namespace

TEST_SUITE("tune") {
  // One timed size per family whose output is larger than its sample.
  TEST_CASE("sampled verification of transpose: check sizes catch what the sample skips") {
    expect_sampled("transpose", "256x128");
  }
  TEST_CASE("sampled verification of sgemm: check sizes catch what the sample skips") { expect_sampled("sgemm", "96"); }
  TEST_CASE("sampled verification of fft: check sizes catch what the sample skips") { expect_sampled("fft", "64@64"); }
  TEST_CASE("sampled verification of real-input fft: check sizes catch what the sample skips") {
    expect_sampled("fft", "128@64:r");  // the half spectrum of 64 R2C transforms; class 64:real
    // An odd count of real values (odd length, odd batch): the float between the round trip's
    // rows and the spectrum is written by no candidate and must not reject one.
    expect_sampled("fft", "15@33:r");
  }
  TEST_CASE("real-input fft: each candidate's C2R is checked as the round trip of its R2C") {
    // A real-input size runs R2C, then C2R of that spectrum (the ":real" row serves both): wrong
    // values in a sampled transform's round trip reject the candidate on the timed size, with the
    // round trip named; the spectrum alone right is not enough.
    TuneEnv env("round-trip");
    const Family f{"fft", "128@64:r"};
    detail::TuneFault fault = region_fault(detail::TuneFault::Values::Wrong, true, false);
    fault.second_output = true;
    const TuneRow row = default_row(f, fault);
    INFO(row.message);
    CHECK(row.status == CandidateStatus::Rejected);
    CHECK(row.message.find("the round trip C2R(R2C(x)) of transform") != std::string::npos);
    CHECK(default_row(f, detail::TuneFault{}).status == CandidateStatus::Ok);
  }
  TEST_CASE("sampled verification of blur: check sizes catch what the sample skips") {
    expect_sampled("blur", "64x48");
  }

  // The check sizes cost a candidate its own programs (on PoCL a code generation each): only the
  // class's result is verified there, the next one while one is rejected, in the order of the
  // run-off where there is one, else of the search. One wrong there is rejected wherever it
  // stands; one that is not the result is not checked (its row says so), and the tune cache
  // keeps each rejection for a resumed run.
  TEST_CASE("check sizes verify the class's result, the next while one is rejected, and no other") {
    TuneEnv env("check-best");
    auto& s = test::session();
    TuneOptions o = test::small_options();
    o.sizes = {"256x128"};                  // an output larger than the sample the timed size compares
    o.strategy = TuneStrategy::Exhaustive;  // a fixed order
    o.store = false;
    o.cache_file = env.dir + "/cache.jsonl";
    std::vector<ParamMap> order;  // the candidates after the references, in the order evaluated
    const TuneResult plain = tune(s.queue, "transpose", o);
    for (const auto& row : plain.classes.at(0).rows)
      if (!row.is_default && !row.is_current) order.push_back(row.params);
    REQUIRE(order.size() >= 3);
    const ParamMap good = order[0], wrong_fast = order[1], wrong_late = order[2];
    // The hook is asked once per candidate in the search, then per run-off size: wrong_fast is
    // fastest in the search, wrong_late in the run-off. Factors of 100 apart, far beyond what
    // the candidates' own times differ by.
    auto calls = std::make_shared<std::map<ParamMap, int>>();
    const detail::TuneFaultScope fault([&, calls](const ParamMap& p) {
      detail::TuneFault f;
      if (p == wrong_fast || p == wrong_late) {  // right on the timed size's sample, wrong in full
        f.region_values = detail::TuneFault::Values::Wrong;
        f.in_sample = false;
        f.on_check_sizes = true;
      }
      const bool search = (*calls)[p]++ == 0;
      f.time_scale = p == good ? 1e-4 : 1.0;
      if (p == wrong_fast) f.time_scale = search ? 1e-6 : 1.0;
      if (p == wrong_late) f.time_scale = search ? 1e-2 : 1e-7;
      return f;
    });
    const auto row_of = [](const TuneClassResult& c, const ParamMap& p) {
      for (const auto& row : c.rows)
        if (row.params == p) return row;
      FAIL("no row");
      return TuneRow{};
    };
    o.give_up = 0;  // every candidate timed in full: wrong_late stays a finalist
    const TuneResult r = tune(s.queue, "transpose", o);
    const TuneClassResult& c = r.classes.at(0);
    REQUIRE(c.has_best);
    CHECK(c.best == good);
    CHECK(c.rejected == 1);
    CHECK(row_of(c, wrong_fast).status == CandidateStatus::Rejected);
    CHECK(row_of(c, good).checked);
    // Not the result: verified on the timed size's sample only.
    INFO(row_of(c, wrong_late).message);
    CHECK(row_of(c, wrong_late).status == CandidateStatus::Ok);
    CHECK(!row_of(c, wrong_late).checked);
    for (const auto& row : c.rows)
      if (row.is_default) CHECK(row.checked);
    // A run-off of three: wrong_late wins it, is rejected, and good, second there, is the result;
    // wrong_fast, last there, is never checked.
    o.finalists = 3;
    calls->clear();
    const TuneResult rf = tune(s.queue, "transpose", o);
    const TuneClassResult& f = rf.classes.at(0);
    CHECK(f.best == good);
    CHECK(f.rejected == 1);
    CHECK(row_of(f, wrong_late).status == CandidateStatus::Rejected);
    CHECK(row_of(f, wrong_fast).status == CandidateStatus::Ok);
    CHECK(!row_of(f, wrong_fast).checked);
    REQUIRE(!f.runoff.empty());
    CHECK(f.runoff.front().params == wrong_late);
    CHECK(f.runoff.front().status == CandidateStatus::Rejected);
    // The cache's last record of each is the verdict a resumed run takes.
    std::map<ParamMap, nlohmann::json> last;
    for (auto& j : test::cache_records(o.cache_file)) last[test::params_of(j)] = j;
    CHECK(last.at(wrong_late).at("status") == "rejected");
    CHECK(last.at(wrong_fast).at("status") == "ok");
    o.resume = true;
    calls->clear();
    const TuneResult rg = tune(s.queue, "transpose", o);
    const TuneClassResult& g = rg.classes.at(0);
    CHECK(g.cached == g.tried);
    CHECK(g.best == good);
    CHECK(row_of(g, wrong_late).status == CandidateStatus::Rejected);
  }

  // The scan is split over threads for large outputs: a value in any part, the last included,
  // counts, and the first one is named wherever it is.
  TEST_CASE("the scan of a large output counts every NaN and infinity and names the first") {
    const std::size_t n = (std::size_t{9} << 20) + 5;  // three parts of 2^22 and a ragged tail
    const detail::GuardedOutput out(test::session().context, n, "scan test");
    std::vector<float> host(n + detail::GuardedOutput::kGuard, 0.5f);
    for (std::size_t i = n; i < host.size(); ++i) host[i] = std::numeric_limits<float>::quiet_NaN();
    detail::Verdict v;
    CHECK(out.scan(host, "C", v));
    const std::vector<std::size_t> bad = {(std::size_t{5} << 20) + 3, (std::size_t{8} << 20) + 1, n - 1};
    host[bad[0]] = std::numeric_limits<float>::infinity();
    host[bad[1]] = -std::numeric_limits<float>::infinity();
    host[bad[2]] = std::numeric_limits<float>::quiet_NaN();
    host[7] = std::numeric_limits<float>::max();  // finite: not counted
    CHECK(!out.scan(host, "C", v));
    INFO(v.message);
    CHECK(v.message.find("3 of " + std::to_string(n) + " values of C") == 0);
    CHECK(v.message.find("the first at " + std::to_string(bad[0]) + ")") != std::string::npos);
    host[2] = -std::numeric_limits<float>::quiet_NaN();
    v = detail::Verdict{};
    CHECK(!out.scan(host, "C", v));
    CHECK(v.message.find("4 of ") == 0);
    CHECK(v.message.find("the first at 2)") != std::string::npos);
  }

  TEST_CASE("the sampler's cut-off stops a run that cannot win, and only that one") {
    detail::TimingPlan plan;
    plan.warmup = 1;
    plan.min_reps = 10;
    plan.max_reps = 20;
    plan.min_time_ms = 0;
    plan.give_up_ms = 1.3;  // 1.3 times a best median of 1 ms
    int k = 0;
    const auto slow = [] { return 3.0; };                            // 3x the best
    const auto noisy = [&k] { return ++k % 3 == 0 ? 1.25 : 0.95; };  // within noise of the best
    const auto late_fast = [&k] { return ++k <= 3 ? 1.5 : 0.5; };    // slow first samples
    std::vector<detail::Timing> t = detail::sample_runs(plan, {slow, noisy});
    CHECK(t[0].cut_short);
    CHECK(t[0].reps == 3);
    CHECK(t[0].min_ms == doctest::Approx(3.0));
    CHECK(!t[1].cut_short);
    CHECK(t[1].reps == plan.min_reps);
    k = -1;  // the warm-up takes one call
    t = detail::sample_runs(plan, {late_fast});
    CHECK(t[0].cut_short);  // the first three samples decide
    // Off (the benchmarks' setting): timed in full, however slow.
    plan.give_up_ms = 0;
    t = detail::sample_runs(plan, {slow});
    CHECK(!t[0].cut_short);
    CHECK(t[0].reps == plan.min_reps);
  }

  TEST_CASE("the sampler gives a run of seconds one warm-up and three samples, others the plan's") {
    detail::TimingPlan plan;
    plan.warmup = 2;
    plan.min_reps = 5;
    plan.min_time_ms = 0;
    plan.long_run_ms = 500;
    int long_calls = 0, short_calls = 0;
    const auto long_run = [&long_calls] { return ++long_calls, 600.0; };
    const auto short_run = [&short_calls] { return ++short_calls, 400.0; };
    std::vector<detail::Timing> t = detail::sample_runs(plan, {long_run, short_run});
    CHECK(long_calls == 1 + 3);
    CHECK(t[0].reps == 3);
    CHECK(short_calls == 2 + 5);
    CHECK(t[1].reps == 5);
    plan.long_run_ms = 0;  // off: every run sampled in full
    long_calls = 0;
    t = detail::sample_runs(plan, {long_run});
    CHECK(long_calls == 2 + 5);
  }

  TEST_CASE("the tuner samples a run of over five minimum times once warmed up and three times") {
    TuneOptions o;
    o.warmup = 1;
    o.min_reps = 5;
    o.min_time_ms = 20;
    const detail::TimingPlan plan = detail::tune_timing_plan(o);
    int calls = 0;
    double ms = 0;
    const auto run = [&] { return ++calls, ms; };
    ms = 101;  // over 5 x 20 ms
    std::vector<detail::Timing> t = detail::sample_runs(plan, {run});
    CHECK(calls == 1 + 3);
    CHECK(t[0].reps == 3);
    calls = 0;
    ms = 99;  // under: the options' repetitions
    t = detail::sample_runs(plan, {run});
    CHECK(calls == 1 + 5);
    CHECK(t[0].reps == 5);
  }

  TEST_CASE("the tuner cuts a candidate that cannot win short, never makes it best, leaves the references whole") {
    TuneEnv env("cut");
    auto& s = test::session();
    TuneOptions o = test::small_options();
    o.min_reps = 10;
    o.max_reps = 10;
    o.store = false;
    o.cache_file = "off";
    o.finalists = 3;
    const ParamMap best = test::small_candidate(8, 1), slow = test::small_candidate(16, 2);
    const ParamMap def = test::shipped("4");
    const detail::TuneFaultScope fault([&](const ParamMap& p) {
      detail::TuneFault f;
      // The best far faster than every other one, the default included.
      f.time_scale = p == best ? 1e-3 : 1.0;
      return f;
    });
    o.strategy = TuneStrategy::Exhaustive;  // 8/1 comes before 16/2
    const TuneResult r = tune(s.queue, "transpose", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    REQUIRE(c.has_best);
    CHECK(c.best == best);
    const TuneRow* best_row = nullptr;
    for (const auto& row : c.rows)
      if (row.params == best) best_row = &row;
    REQUIRE(best_row != nullptr);
    CHECK(!best_row->cut_short);
    bool saw_slow = false;
    for (const auto& row : c.rows) {
      INFO(test::params_text(row.params) << row.ms);
      REQUIRE(row.status == CandidateStatus::Ok);
      if (row.is_default) CHECK(!row.cut_short);  // references are timed in full
      if (row.params == slow) {
        saw_slow = true;
        CHECK(row.cut_short);
        CHECK(row.ms > o.give_up * best_row->ms);  // its score is beyond the cut-off
      }
    }
    CHECK(saw_slow);
    CHECK(c.cut_short >= 1);
    for (const auto& row : c.runoff) {
      CHECK(!row.cut_short);
      CHECK(row.params != slow);
    }
    // Without a cut-off nothing is cut.
    o.give_up = 0;
    const TuneResult full = tune(s.queue, "transpose", o);
    for (const auto& row : full.classes[0].rows) CHECK(!row.cut_short);
  }

  TEST_CASE("a cut row is never stored, whatever time the tune cache gives it") {
    TuneEnv env("cut-cache");
    auto& s = test::session();
    TuneOptions o = test::small_options();
    o.cache_file = env.dir + "/cache.jsonl";
    o.finalists = 0;
    o.store = false;
    REQUIRE(tune(s.queue, "transpose", o).classes.size() == 1);
    // Every candidate but the default recorded as cut short, with a time far below the default's.
    std::string text;
    bool first = true;
    for (auto& j : test::cache_lines(o.cache_file)) {
      if (j.contains("params") && j.at("status") == "ok") {
        if (!first) {
          j["ms"] = 1e-6;
          j["cut_short"] = true;
        }
        first = false;
      }
      text += j.dump() + "\n";
    }
    detail::write_file_atomic(o.cache_file, text);
    o.resume = true;
    o.store = true;
    const TuneResult r = tune(s.queue, "transpose", o);
    const TuneClassResult& c = r.classes[0];
    CHECK(c.cached == c.tried);
    CHECK(c.cut_short + 1 == c.tried);
    REQUIRE(c.has_best);
    CHECK(c.best == c.default_params);
    CHECK(!c.stored);
    CHECK(!detail::file_exists(user_database_path(s.entry.info)));
  }

  TEST_CASE("targets meant for CPUs are not tuned on GPUs") {
    DeviceInfo gpu = test::session().entry.info, cpu = gpu;
    gpu.type = "GPU";
    gpu.vendor_class = VendorClass::NVIDIA;
    cpu.type = "CPU";
    CHECK(detail::tune_target_skip(detail::tune_target("fft_lanes"), gpu) == "CPU kernel");
    CHECK(detail::tune_target_skip(detail::tune_target("fft_lanes"), cpu).empty());
    for (const char* routine : {"transpose", "sgemm", "fft", "fft_rader", "blur"})
      CHECK(detail::tune_target_skip(detail::tune_target(routine), gpu).empty());
    bool listed = false;
    for (const auto& info : tune_routines())
      if (info.name == "fft_lanes") listed = info.device_types == std::vector<std::string>{"CPU"};
    CHECK(listed);
  }
}
