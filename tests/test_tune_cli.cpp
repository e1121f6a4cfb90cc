// `clforge tune` for transpose, FFT and blur, then `clforge params` showing the user source;
// dry runs, --tuning-file results usable as a tuning file, a corrupt database and option checks. Where a
// stored entry matters, a first run measures, the test sets the times in its tune cache so that
// a candidate beats the default by far, and a run with --resume decides from them.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "tests/tune_support.hpp"

using namespace clforge;
using test::TuneEnv;

TEST_SUITE("tune") {
#ifdef CLFORGE_CLI
  TEST_CASE("clforge tune fft and tune blur, then clforge params shows the user source") {
    TuneEnv env("cli-fft-blur");
    auto& s = test::session();
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " ";
    const std::string path = user_database_path(s.entry.info);
    std::string out;
    auto beats_default = [&](const std::string& args, const std::string& kernel, const std::string& variant) {
      const std::string cache = env.dir + "/" + kernel + ".jsonl";
      const std::string run = cli + args + " --finalists 0 --cache '" + cache + "'";
      const int measured = test::run_command(run + " --no-store", out);
      if (measured != 0) return measured;
      const ParamMap def = resolve_configuration(kernel, variant, s.entry.info, Tuning{{}, false}).values;
      test::set_cache_times(cache, [&](const ParamMap& p) { return p == def ? 1.0 : 1e-3; });
      return test::run_command(run + " --resume", out);
    };
    int rc = beats_default(
        "tune fft --size 64,batch=16 --param FFT_WG=64,256 --param FFT_RADIX=16 --param FFT_REG=32 "
        "--param FFT_HALVE=0 --param FFT_TWIDDLE=0 --param FFT_PAD=1 --param FFT_VEC=1 "
        "--param FFT_STAGE=0 --param FFT_ACROSS=8 --param FFT_VPT=0 --param FFT_MIX=0 --param "
        "FFT_DCHAIN=1 --param FFT_CHUNK=0 --seed " +
            std::to_string(test::seed()),
        "fft", "64");
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("fft variant 64 on") != std::string::npos);
    CHECK(out.find("sizes 64,batch=16") != std::string::npos);
    CHECK(out.find("space 2:") != std::string::npos);
    CHECK(out.find("stored in " + path + " (kernel fft, variant 64)") != std::string::npos);
    rc = test::run_command(cli + "params fft --variant 64", out);
    CHECK(rc == 0);
    CHECK(out.find("FFT_WG") != std::string::npos);
    CHECK(out.find("user " + path) != std::string::npos);

    rc = beats_default(
        "tune blur --size 64x48 --method direct --sigma 1.5 --param BLUR_D_LX=16,32 "
        "--param BLUR_D_LY=4 --param BLUR_D_WPT=2 --param BLUR_D_LOCAL=1",
        "blur_direct", "1");
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("blur variant 1 on") != std::string::npos);
    CHECK(out.find("method direct, sigma 1.5") != std::string::npos);
    CHECK(out.find("stored in " + path + " (kernel blur_direct, variant 1)") != std::string::npos);
    rc = test::run_command(cli + "params blur_direct --variant 1", out);
    CHECK(rc == 0);
    CHECK(out.find("user " + path) != std::string::npos);
    // The option values and sizes are checked by the parser: usage errors.
    CHECK(test::run_command(cli + "tune blur --size 64 --method auto --dry-run", out) == 2);
    CHECK(test::run_command(cli + "tune fft --size 64@16 --dry-run", out) == 2);
    CHECK(out.find("64@16") != std::string::npos);
  }

  TEST_CASE("clforge tune, then clforge params shows the user source") {
    TuneEnv env("cli");
    auto& s = test::session();
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " ";
    const std::string path = user_database_path(s.entry.info);
    std::string out;
    int rc =
        test::run_command(cli + "tune transpose --size 64 --param TRA_TILE=8,16 --param TRA_LOCAL=1 --dry-run", out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("space 2240") !=
          std::string::npos);  // TILE 2 x WPT 5 x VW 4 x PAD 2 x DIAG 2 x SWZ 7 x LOCAL 1 x NT 2
    CHECK(!detail::file_exists(path));

    const std::string results = env.dir + "/results.json", cache = env.dir + "/cache.jsonl";
    const std::string args = "tune transpose --size 64 --budget 3 --finalists 0 --seed " +
                             std::to_string(test::seed()) + " --cache '" + cache + "'";
    rc = test::run_command(cli + args + " --no-store", out);
    REQUIRE(rc == 0);
    test::set_cache_times(cache, [def = test::shipped("4")](const ParamMap& p) { return p == def ? 1.0 : 1e-3; });
    rc = test::run_command(cli + args + " --resume --tuning-file " + results, out);
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
    // --tuning-file wrote a tuning file this device matches: usable as CLFORGE_TUNING_FILE.
    const auto j = nlohmann::json::parse(*detail::read_file(results));
    CHECK(j["results"][0]["tried"] == 3);
    CHECK(j["results"][0]["rows"].size() == 3);
    rc = test::run_command("CLFORGE_TUNING_FILE=" + results + " " + cli + "--no-user-tuning params transpose", out);
    CHECK(rc == 0);
    CHECK(out.find("tuning-file " + results) != std::string::npos);

    // A corrupt database: a failure (exit status 1), the path in the message, the file untouched.
    std::ofstream(path) << "[oops";
    rc = test::run_command(cli + "tune transpose --size 64 --budget 2", out);
    CHECK(rc == 1);
    CHECK(out.find(path) != std::string::npos);
    CHECK(*detail::read_file(path) == "[oops");
    // Bad option values are refused by the parser: usage errors.
    CHECK(test::run_command(cli + "tune transpose --size 64 --strategy genetic", out) == 2);
    CHECK(test::run_command(cli + "tune transpose --size 64 --budget 2 --time 5", out) == 2);
  }
#endif
}
