// `clforge tune` for transpose, FFT and blur, then `clforge params` showing the user source;
// dry runs, --tuning-file results usable as a tuning file, a corrupt database and option checks. Where a
// stored entry matters, a first run measures, the test sets the times in its tune cache so that
// a candidate beats the default by far, and a run with --resume decides from them.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

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

  TEST_CASE("clforge tune all: every routine and blur method, resumed, never storing a slower one") {
    TuneEnv env("cli-all");
    auto& s = test::session();
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " ";
    const std::string path = user_database_path(s.entry.info);
    // Every kernel the tuner knows, blur once per method.
    const std::vector<std::string> headers = {
        "transpose variant",     "sgemm_pack variant",     "sgemm variant",
        "sgemm_stream variant",  "sgemm_direct variant",   "sgemm_route variant",
        "fft variant",           "fft_lanes variant",      "fft_rader variant",
        "fft_real variant",      "method separable",       "method direct",
        "method recursive",      "method recursive-whole", "method recursive-blocked",
        "method recursive-fused"};
    std::string out;
    int rc = test::run_command(cli + "tune all --dry-run --own-sizes", out);
    INFO(out);
    REQUIRE(rc == 0);
    for (const auto& h : headers) CHECK(out.find(h) != std::string::npos);
    CHECK(out.find("fft_lanes: applies (CPU)") != std::string::npos);  // the CPU kernel, on a CPU device
    std::size_t planned = 0;
    for (std::size_t at = 0; (at = out.find("dry run: would evaluate", at)) != std::string::npos; ++at) ++planned;
    CHECK(planned == headers.size());
    CHECK(!detail::file_exists(path));

    // By default every routine tunes the size classes of bench all's sizes (here bench all
    // --quick's): FFT lengths 16 ... 4096, 1000 and 1009 at 16 MiB, at most two sizes per class;
    // 65536 runs as passes: its class searches the pass rows, and the dry run lists its space.
    // The real-input cases (256, 1000, 1024) time real-input transforms (N@B:r) in the classes of
    // the complex FFTs inside their plans (128:real, 500:real, 512:real; the lane kernel's: 128,
    // 500, 512); the 2-D and 3-D ones their rows (64x64 x 16: 64 on 1024 rows; real 100x100:
    // real-input rows of 100, 50:real) and columns (interleaved, the classes N:cols).
    rc = test::run_command(
        cli + "tune all --dry-run --quick --size sgemm:96 --size sgemm_stream:96 --size sgemm_direct:64", out);
    REQUIRE(rc == 0);
    CHECK(out.find("transpose variant 4 on") != std::string::npos);
    CHECK(out.find("sizes 256, 1000x999\n") != std::string::npos);
    for (const char* c :
         {"fft variant 16 on",       "fft variant 256 on",  "fft variant 1024 on",      "fft variant 4096 on",
          "fft variant 1000 on",     "sizes 4096@512",      "sizes 1009@2078",          "fft_lanes variant 1000 on",
          "fft variant 128:real on", "sizes 256@16256:r\n", "fft_lanes variant 500 on", "sizes 1000@4185:r\n",
          "fft variant 512:real on", "sizes 1024@4088:r\n", "fft variant 64 on",        "sizes 64@1024",
          "fft variant 64:cols on",  "sizes 64@64:t\n",     "fft variant 50:real on",   "sizes 100@100:r\n",
          "fft variant 32:cols on",  "sizes 32@1024:t\n"})
      CHECK(out.find(c) != std::string::npos);
    CHECK(out.find("fft variant 65536 on") != std::string::npos);
    CHECK(out.find("sgemm variant small on \"") != std::string::npos);
    // Each blur method at the smallest and the largest sigma bench all --quick runs it at.
    for (const char* m : {"separable", "direct", "recursive", "recursive-fused"})
      CHECK(out.find(std::string("sizes 1024x1024:1,sigma=2, 1024x1024:1,sigma=10, method ") + m) != std::string::npos);

    const std::string cache = env.dir + "/cache.jsonl";
    const std::string args =
        "tune all --budget 2 --finalists 0 --cache '" + cache + "' --seed " + std::to_string(test::seed()) +
        " --size transpose:64 --size sgemm_pack:96 --size sgemm:96 --size sgemm_stream:96 --size sgemm_direct:64 "
        "--size sgemm_route:64 "
        "--size fft:64,batch=16 "
        "--size fft_lanes:64,batch=16 --size fft_rader:257,batch=4 --size fft_real:300,real,batch=4 --size blur:64x48 "
        "--steps kernels";
    // Ctrl-C once the cache holds a few candidates: exit status 130 and how to continue; then the
    // same command with --resume takes those from the cache and runs every job to its end.
    const std::string interrupted = cli + args + " --no-store 2>&1 & pid=$!; n=0; while [ $n -lt 600 ] && [ \"$(cat '" +
                                    cache + "' 2>/dev/null | wc -l)\" -lt 4 ]; do sleep 0.1; n=$((n+1)); done; " +
                                    "kill -INT $pid; wait $pid";
    rc = test::run_command(interrupted, out);
    CHECK(rc == 130);
    CHECK(out.find("with --resume") != std::string::npos);
    CHECK(out.find("tune all: 16 of 16 jobs") == std::string::npos);
    rc = test::run_command(cli + args + " --no-store --resume --peers", out);
    REQUIRE(rc == 0);
    CHECK(out.find("tune all: 16 of 16 jobs") != std::string::npos);
    CHECK(out.find(" from the tune cache)") != std::string::npos);
    // --peers: each class's sizes benchmarked with their peers (FFTW, OpenCV, CLBlast, OpenBLAS
    // where built) beside clforge in the closing table.
    // The closing table follows the benchmarks' own output; its header ends with "vs peer".
    const std::size_t table = out.find(" vs peer\n");
    CHECK(table != std::string::npos);
    const auto row_of = [&](const std::string& job) {
      const auto at = table == std::string::npos ? table : out.find("\n" + job + " ", table);
      return at == std::string::npos ? std::string() : out.substr(at + 1, out.find('\n', at + 1) - at - 1);
    };
    // The fastest peer names the row (which one is fastest varies with the load: FFTW or clFFT).
    const auto has_peer = [&](const std::string& job, std::initializer_list<const char*> peers) {
      INFO(job);
      const std::string row = row_of(job);
      CHECK(std::any_of(peers.begin(), peers.end(), [&](const char* p) { return row.find(p) != std::string::npos; }));
      CHECK(!row.empty());
      if (!row.empty()) CHECK(row.back() == 'x');  // ends with clforge's speed against the peer
    };
#if CLFORGE_HAVE_FFTWF
    if (s.entry.info.type == "CPU") has_peer("fft", {" FFTW ", " clFFT ", " VkFFT "});
#endif
#if CLFORGE_HAVE_OPENCV
    has_peer("blur method=separable", {" OpenCV"});
#endif
#if CLFORGE_HAVE_CLBLAST
    has_peer("transpose", {" CLBlast "});
#endif
    // Each class's first record is its default (measured first). Every other candidate slower:
    // the resumed run measures nothing and stores nothing.
    auto set_times = [&](double default_ms, double other_ms) {
      std::set<std::string> seen;
      std::string text;
      for (auto& j : test::cache_lines(cache)) {
        if (j.contains("params") && j.at("status") == "ok") {
          j["ms"] = seen.insert(j.at("key").get<std::string>()).second ? default_ms : other_ms;
          j.erase("cut_short");  // the edited time stands for a full measurement
        }
        text += j.dump() + "\n";
      }
      detail::write_file_atomic(cache, text);
    };
    set_times(1e-3, 1.0);
    rc = test::run_command(cli + args + " --resume", out);
    REQUIRE(rc == 0);
    CHECK(out.find("tune all: 16 of 16 jobs") != std::string::npos);
    CHECK(out.find(" from the tune cache)") != std::string::npos);
    CHECK(out.find(" yes\n") == std::string::npos);
    CHECK(!detail::file_exists(path));
    // Every other candidate faster: each class stores its best, but for the recursive schemes': their
    // rows fall back to the recursive family's, which this run stored before them, so that row is
    // their current configuration, measured after the default; within the budget of 2 nothing
    // else is, and neither stores a row that is not faster than the current one.
    set_times(1.0, 1e-3);
    rc = test::run_command(cli + args + " --resume", out);
    REQUIRE(rc == 0);
    std::size_t stored = 0, no_gain = 0;
    for (std::size_t at = 0; (at = out.find(" yes\n", at)) != std::string::npos; ++at) ++stored;
    for (std::size_t at = 0; (at = out.find(" no gain\n", at)) != std::string::npos; ++at) ++no_gain;
    CHECK(stored == headers.size() - 3);
    for (const char* scheme : {"whole", "blocked", "fused"})
      CHECK(out.find("blur method=recursive-" + std::string(scheme)) != std::string::npos);
    CHECK(no_gain == 3);
    CHECK(detail::file_exists(path));
    // A size needs its routine; a routine must be one the tuner knows.
    CHECK(test::run_command(cli + "tune all --size 64 --dry-run", out) == 2);
    CHECK(test::run_command(cli + "tune all --size nosuch:64 --dry-run", out) == 2);
    CHECK(test::run_command(cli + "tune all --steps nosuch --dry-run", out) == 2);
  }

  TEST_CASE("clforge tune all's steps after the kernels: blur's crossover and each routine's chunking") {
    TuneEnv env("cli-closing");
    auto& s = test::session();
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + env.dir + "' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " tune all --quick --steps crossover,group ";
    const std::string path = user_database_path(s.entry.info);
    std::string out;
    int rc = test::run_command(cli + "--dry-run", out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("blur crossover at 512x512: would time") != std::string::npos);
    for (const char* r : {"group fft at", "group sgemm at", "group transpose at", "group blur at"})
      CHECK(out.find(r) != std::string::npos);
    CHECK(out.find("dry run: would evaluate") == std::string::npos);  // no kernel searched
    CHECK(!detail::file_exists(path));
    rc = test::run_command(cli, out);
    REQUIRE(rc == 0);
    CHECK(out.find("recursive from sigma") != std::string::npos);
    for (const char* r : {"tune group fft", "tune group sgemm", "tune group transpose", "tune group blur"})
      CHECK(out.find(r) != std::string::npos);
    const std::optional<std::string> db = detail::read_file(path);
    REQUIRE(db.has_value());
    CHECK(db->find("BLUR_AUTO_SIGMA_RECURSIVE") != std::string::npos);

    // --time bounds them too: past its end no sigma is measured and no group step starts, and a
    // crossover the scan did not reach is not stored.
    TuneEnv spent("cli-closing-spent");
    const std::string cli2 = std::string("CLFORGE_USER_TUNING_DIR='") + spent.dir + "' " + CLFORGE_CLI + " --device " +
                             s.entry.info.index_string() + " tune all --quick --steps crossover,group --time 0.000001";
    rc = test::run_command(cli2, out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find(
              "the time budget ran out before the first sigma, before recursive overtook separable: nothing stored") !=
          std::string::npos);
    for (const char* r : {"group fft at 256,mib=4: not run", "group sgemm at 256: not run",
                          "group transpose at 512: not run", "group blur at 512x512: not run"})
      CHECK(out.find(r) != std::string::npos);
    CHECK(out.find("tune group") == std::string::npos);
    const std::optional<std::string> db2 = detail::read_file(user_database_path(s.entry.info));
    CHECK((!db2.has_value() || db2->find("BLUR_AUTO_SIGMA") == std::string::npos));
  }
#endif
}
