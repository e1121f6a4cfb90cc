// The split section of bench all (bench/bench_all.hpp, run_split_section) on two devices: every
// routine's case on the group, without overlap and on each device alone, checked; the section
// survives results.json and shows in report.md.
#include <doctest/doctest.h>

#include <set>

#include "bench/bench_all.hpp"
#include "tests/support.hpp"

using namespace clforge;

TEST_SUITE("group") {
  TEST_CASE("bench all's split section: every routine on the group, in results.json and report.md") {
    const auto entries = list_devices();
    REQUIRE(entries.size() >= 2);
    bench::AllResults res;
    bench::run_split_section(entries, true, res);
    CHECK(res.split_group.find("0: ") == 0);
    std::set<std::string> routines;
    std::size_t alone = 0;
    for (const auto& r : res.split) {
      CAPTURE(r.routine);
      CAPTURE(r.library);
      CHECK(r.status == "ok");
      CHECK(r.measured());
      CHECK(r.bytes > 0);
      routines.insert(r.routine);
      alone += r.library.find(" alone") != std::string::npos;
      if (r.library == "group auto") CHECK(r.error_checked());
    }
    CHECK(routines == std::set<std::string>{"split fft", "split sgemm", "split transpose", "split blur"});
    CHECK(alone == 4 * entries.size());
    const bench::AllResults back = bench::results_from_json(bench::results_json(res));
    REQUIRE(back.split.size() == res.split.size());
    CHECK(back.split_group == res.split_group);
    for (std::size_t i = 0; i < res.split.size(); ++i) {
      CHECK(back.split[i].library == res.split[i].library);
      CHECK(back.split[i].timing.median_ms == doctest::Approx(res.split[i].timing.median_ms));
    }
    const std::string md = bench::report_markdown(back);
    CHECK(md.find("## One job on every device") != std::string::npos);
    CHECK(md.find("| split sgemm | 256x256x256 NN | group auto no overlap |") != std::string::npos);
  }
}
