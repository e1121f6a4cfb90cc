// The command line on a device group: `run ROUTINE --devices` for every routine checks against
// the host reference and prints each device's share; `bench split` writes its records; split
// options that contradict each other or the group are usage errors (exit 2).
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support.hpp"

#ifdef CLFORGE_CLI
using namespace clforge;

TEST_SUITE("group") {
  TEST_CASE("run ROUTINE --devices: checked against the host reference, every device's share shown") {
    const std::string cli = std::string(CLFORGE_CLI) + " ";
    const std::size_t devices = list_devices().size();
    std::string out;
    for (const std::string args :
         {"run fft --size 64,batch=100 --devices all --split dynamic --chunk 7",
          "run fft --size 100,batch=30 --devices all --inverse --staging on",
          "run transpose --size 100x37 --devices all --chunk 9 --staging on",
          "run sgemm --size 70x50x30 --devices all --row-major --beta 0.5 --chunk 8",
          "run sgemm --size 70x50x30,trans=TT --devices all --split dynamic --no-overlap",
          "run blur --size 90x70 --devices all --sigma 2 --method separable --chunk 11",
          "run blur --size 90x70 --devices all --sigma 3 --method recursive --border mirror"}) {
      CAPTURE(args);
      REQUIRE(test::run_command(cli + args, out) == 0);
      CAPTURE(out);
      CHECK(out.find("on " + std::to_string(devices) + " devices") != std::string::npos);
      CHECK(out.find(": ok") != std::string::npos);
      for (std::size_t d = 0; d < devices; ++d)
        CHECK(out.find("\n  " + std::to_string(d) + "   ") != std::string::npos);
    }
    // Weights by hand: the first device takes three quarters of 100 rows.
    std::string w = "3";
    for (std::size_t d = 1; d < devices; ++d) w += ",0";
    REQUIRE(test::run_command(cli + "run transpose --size 100x37 --devices all --weights " + w + " --chunk 10", out) ==
            0);
    CHECK(out.find("100.0%      100") != std::string::npos);
  }

  TEST_CASE("bench split: the group, without overlap and each device alone, in one report") {
    const std::string cli = std::string(CLFORGE_CLI) + " ";
    const std::string dir = test::temp_dir("bench-split");
    std::string out;
    REQUIRE(test::run_command(cli +
                                  "bench split transpose --size 128x96 --devices all --split dynamic --chunk 16 "
                                  "--reps 2 --out " +
                                  dir,
                              out) == 0);
    CAPTURE(out);
    CHECK(out.find("speed-up over the best device alone") != std::string::npos);
    std::ifstream f(dir + "/results.json");
    const auto j = nlohmann::json::parse(f);
    std::set<std::string> libraries;
    for (const auto& r : j.at("measurements")) {
      CHECK(r.at("routine") == "split transpose");
      CHECK(r.at("median_ms").get<double>() > 0);
      libraries.insert(r.at("library").get<std::string>());
    }
    std::set<std::string> expected = {"group dynamic", "group dynamic no overlap"};
    for (std::size_t d = 0; d < list_devices().size(); ++d) expected.insert("device " + std::to_string(d) + " alone");
    CHECK(libraries == expected);
    // Device-resident: every routine, checked.
    for (const std::string args : {"sgemm --size 40x33x20", "blur --size 64x50 --method recursive --sigma 2",
                                   "fft --size 64,batch=30", "transpose --size 50x20"}) {
      CAPTURE(args);
      REQUIRE(test::run_command(cli + "bench split " + args + " --devices all --resident --reps 1", out) == 0);
      CHECK(out.find("device-resident") != std::string::npos);
      CHECK(out.find(": ok") != std::string::npos);
    }
  }

  TEST_CASE("split options that contradict each other or the group are usage errors") {
    const std::string cli = std::string(CLFORGE_CLI) + " run transpose --size 64 --devices all ";
    std::string out;
    for (const std::string args :
         {"--weights 1,1,1,1,1,1,1,1,1", "--split weights", "--split dynamic --weights 1,1",
          "--weights 1,1 --cpu-percent 50", "--cpu-percent 101", "--staging maybe", "--split fastest", "--queues 9"}) {
      CAPTURE(args);
      CHECK(test::run_command(cli + args, out) == 2);
    }
    CHECK(test::run_command(std::string(CLFORGE_CLI) + " run fft --size 64 --devices all --in-place", out) == 2);
    CHECK(test::run_command(std::string(CLFORGE_CLI) + " run fft --size 64 --devices nosuchdevice", out) == 1);
  }

  TEST_CASE("tune group: every candidate timed and checked, the fastest stored and shown by params") {
    const std::string dir = test::temp_dir("tune-group");
    const std::string cli = "CLFORGE_USER_TUNING_DIR=" + dir + " " + std::string(CLFORGE_CLI) + " ";
    std::string out;
    REQUIRE(test::run_command(cli + "tune group transpose --size 300x200 --chunks 64,128 --queues 1,2 --reps 1 "
                                    "--no-store",
                              out) == 0);
    CAPTURE(out);
    for (const char* row : {"64 KiB x 1:", "64 KiB x 2:", "128 KiB x 1:", "128 KiB x 2:"})
      CHECK(out.find(row) != std::string::npos);
    CHECK(out.find("WRONG") == std::string::npos);
    CHECK(out.find("nothing stored (--no-store)") != std::string::npos);
    // A candidate the group store does not allow is refused before anything is measured.
    CHECK(test::run_command(cli + "tune group transpose --size 300x200 --chunks 64,131072 --reps 1", out) == 2);
    CHECK(out.find("chunk 131072 KiB is not legal") != std::string::npos);
    CHECK(out.find("KiB x") == std::string::npos);
    // --time: past its end no candidate is measured; the current values stand.
    REQUIRE(test::run_command(cli + "tune group transpose --size 300x200 --chunks 64,128 --queues 1,2 --reps 1 "
                                    "--time 0.000001",
                              out) == 0);
    CHECK(out.find("current (") != std::string::npos);
    CHECK(out.find("64 KiB x 1 and after: not measured, the time budget is spent") != std::string::npos);
    CHECK(out.find("64 KiB x 1:") == std::string::npos);
    CHECK(out.find("not 2 % faster, nothing stored") != std::string::npos);
    // Blur's job resolves its Auto method with the candidate's tuning.
    REQUIRE(test::run_command(cli + "tune group blur --size 64x48 --chunks 64 --queues 1 --reps 1 --no-store", out) ==
            0);
    CHECK(out.find("64 KiB x 1:") != std::string::npos);
    // One candidate against the current values: whichever wins on this machine, the command says
    // what it did, and what it stored is what params then shows.
    REQUIRE(test::run_command(cli + "tune group transpose --size 300x200 --chunks 64 --queues 1 --reps 1", out) == 0);
    if (out.find("stored 64 KiB x 1 queues") != std::string::npos) {
      REQUIRE(test::run_command(cli + "params transpose", out) == 0);
      CHECK(out.find("chunk KiB = 64 ") != std::string::npos);
      CHECK(out.find("queues    = 1 ") != std::string::npos);
      CHECK(out.find("group store " + dir + "/group.json") != std::string::npos);
    } else {
      CHECK(out.find("not 2 % faster, nothing stored") != std::string::npos);
    }
  }
}
#endif
