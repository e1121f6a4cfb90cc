// The command line as a whole: --version, exit statuses (0 success, 1 failure, 2 usage error),
// unknown commands, `params` for every routine, the one size grammar, boolean environment
// variables, hidden commands and --out folders.
#include <dirent.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "tests/support.hpp"
#ifdef CLFORGE_CLI
#include "tools/args.hpp"  // the command line's argument library, built with the command line
#endif

using namespace clforge;

#ifdef CLFORGE_CLI
namespace {

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.insert(e->d_name);
    ::closedir(d);
  }
  return names;
}

// The kernels `params` lists ("kernel NAME (variant ...)" lines) and, per kernel, its text.
std::map<std::string, std::string> kernels_in(const std::string& out) {
  std::map<std::string, std::string> k;
  std::size_t pos = 0;
  while ((pos = out.find("kernel ", pos)) != std::string::npos) {
    if (pos != 0 && out[pos - 1] != '\n') {
      ++pos;
      continue;
    }
    const std::size_t name_end = out.find(' ', pos + 7);
    const std::size_t next = out.find("\nkernel ", pos);
    k[out.substr(pos + 7, name_end - pos - 7)] = out.substr(pos, next == std::string::npos ? next : next - pos);
    pos = name_end;
  }
  return k;
}

}  // namespace
#endif

TEST_SUITE("cli") {
  TEST_CASE("boolean environment variables: every spelling, in any case; others are errors naming the variable") {
    for (const char* on : {"1", "on", "ON", "On", "true", "TRUE", "True", "yes", "YES", "Yes", " yes "})
      CHECK(detail::parse_env_bool("CLFORGE_X", on));
    for (const char* off : {"0", "off", "OFF", "Off", "false", "FALSE", "False", "no", "NO", "No"})
      CHECK_FALSE(detail::parse_env_bool("CLFORGE_X", off));
    for (const std::string bad : {"2", "-1", "10", "maybe", "enable", "y", "n", "onn", "0x1"}) {
      CAPTURE(bad);
      try {
        detail::parse_env_bool("CLFORGE_X", bad);
        FAIL("accepted");
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find("CLFORGE_X") != std::string::npos);
        CHECK(std::string(e.what()).find(bad) != std::string::npos);
      }
    }
    {
      test::ScopedEnv unset("CLFORGE_X_UNSET", std::nullopt);
      CHECK(!detail::env_bool("CLFORGE_X_UNSET").has_value());
      test::ScopedEnv empty("CLFORGE_X_EMPTY", std::string());
      CHECK(!detail::env_bool("CLFORGE_X_EMPTY").has_value());
    }
    // The library refuses a CLFORGE_TUNING that is not a boolean where it reads it.
    test::ScopedEnv bad("CLFORGE_TUNING", std::string("maybe"));
    try {
      resolve_configuration("transpose", "4", test::session().entry.info, Tuning{});
      FAIL("accepted CLFORGE_TUNING=maybe");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("CLFORGE_TUNING") != std::string::npos);
    }
  }

#ifdef CLFORGE_CLI
  TEST_CASE("size grammar: accepted forms and their meaning") {
    using cli::parse_size;
    cli::Size s = parse_size("transpose", "4096");
    CHECK(s.x == 4096);
    CHECK(s.y == 4096);
    CHECK(s.elem == 4);
    s = parse_size("transpose", "1000x999,elem=8");
    CHECK(s.x == 1000);
    CHECK(s.y == 999);
    CHECK(s.elem == 8);
    CHECK(s.text() == "1000x999,elem=8");
    CHECK(cli::tune_size(s) == "1000x999:8");
    CHECK_THROWS_AS(cli::bench_size(s), cli::UsageError);  // the benchmark measures 4-byte elements
    CHECK(parse_size("transpose", "2147483647").x == 2147483647u);

    s = parse_size("sgemm", "1024");
    CHECK((s.x == 1024 && s.y == 1024 && s.z == 1024 && !s.trans_a && !s.trans_b));
    s = parse_size("sgemm", "512x8192x256,trans=NT");
    CHECK((s.x == 512 && s.y == 8192 && s.z == 256 && !s.trans_a && s.trans_b));
    CHECK(cli::tune_size(s) == "512x8192x256:NT");
    CHECK(cli::bench_size(s) == "512x8192x256:NT");
    s = parse_size("sgemm_direct", "64x32x16,trans=tn");  // kernel names take their routine's sizes
    CHECK(s.routine == "sgemm");
    CHECK((s.trans_a && !s.trans_b));
    CHECK(s.text() == "64x32x16,trans=TN");

    s = parse_size("fft", "1024");
    CHECK(s.x == 1024);
    CHECK(s.fft_batch(std::size_t{64} << 20) == 8192);  // 64 MiB of 8-byte complex values
    CHECK(cli::bench_size(s) == "1024");
    CHECK(cli::tune_size(s) == "1024@8192");  // tune times the batch that run and bench time
    s = parse_size("fft", "1024,batch=64");
    CHECK(s.fft_batch(std::size_t{64} << 20) == 64);
    CHECK(cli::tune_size(s) == "1024@64");
    CHECK(cli::bench_size(s) == "1024,batch=64");
    s = parse_size("fft", "4096,mib=512");
    CHECK(s.fft_batch(0) == 16384);  // 512 MiB / (4096 * 8 bytes)
    CHECK(cli::tune_size(s) == "4096@16384");
    CHECK(cli::bench_size(s) == "4096,mib=512");
    s = parse_size("fft", "64,batch=16,layout=interleaved");
    CHECK(cli::tune_size(s) == "64@16:t");
    CHECK_THROWS_AS(cli::bench_size(s), cli::UsageError);
    // The tuner's sizes back in the benchmarks' syntax (tune all --peers).
    std::size_t channels = 0;
    double sigma = -1;
    CHECK(cli::bench_size_of_tuned("fft", "64@16:t", channels, sigma).empty());
    CHECK(cli::bench_size_of_tuned("fft", "4096@16384", channels, sigma) == "4096,batch=16384");
    CHECK(cli::bench_size_of_tuned("fft", "1024", channels, sigma) == "1024");
    CHECK(cli::bench_size_of_tuned("transpose", "1000x999:8", channels, sigma).empty());
    CHECK(cli::bench_size_of_tuned("transpose", "1000x999:4", channels, sigma) == "1000x999");
    CHECK(cli::bench_size_of_tuned("sgemm", "512x8192x256:NT", channels, sigma) == "512x8192x256:NT");
    CHECK(cli::bench_size_of_tuned("sgemm", "64x32x16:NN@100", channels, sigma) == "64x32x16@100");
    CHECK(channels == 0);
    CHECK(sigma == -1);  // set for blur sizes only
    CHECK(cli::bench_size_of_tuned("blur", "640x480:4", channels, sigma) == "640x480");
    CHECK((channels == 4 && sigma == 0));
    CHECK(cli::bench_size_of_tuned("blur", "640x480:1,sigma=2.5", channels, sigma) == "640x480");
    CHECK((channels == 1 && sigma == 2.5));
    for (const char* text : {"1000x999", "4097x31"}) {
      const cli::Size t = parse_size("transpose", text);
      const cli::Size b =
          parse_size("transpose", cli::bench_size_of_tuned("transpose", cli::tune_size(t), channels, sigma));
      CHECK((b.x == t.x && b.y == t.y));
    }
    for (const char* text : {"64x32x16,trans=TN,batch=7", "96", "512x8192x512,trans=NT"}) {
      const cli::Size g = parse_size("sgemm", text);
      CHECK(cli::bench_size_of_tuned("sgemm", cli::tune_size(g), channels, sigma) == cli::bench_size(g));
    }
    s = parse_size("fft", "1000,real,batch=4");  // real input: a word without value
    CHECK((s.x == 1000 && s.batch == 4 && s.real && s.text() == "1000,batch=4,real"));
    CHECK(cli::tune_size(s) == "1000@4:r");
    CHECK(cli::tune_size(parse_size("fft", "1024,mib=64,real")) == "1024@16352:r");  // bench fft's batch
    CHECK(cli::tune_size(parse_size("fft", "1000,real")) == "1000@16743:r");         // 64 MiB / (501 * 8 bytes)
    CHECK(cli::bench_size_of_tuned("fft", "1000@4:r", channels, sigma) == "1000,batch=4,real");
    CHECK(cli::bench_size(s) == "1000,batch=4,real");  // bench fft's R2C rows
    s = parse_size("fft", "64x16,real");               // 2-D real input: run and bench, not tuned
    CHECK((s.x == 64 && s.y == 16 && s.real && s.text() == "64x16,real"));
    CHECK_THROWS_AS(cli::tune_size(s), cli::UsageError);
    CHECK(cli::bench_size(s) == "64x16,real");
    s = parse_size("fft", "256x128x4,mib=1");  // 3-D: run and bench, not tuned
    CHECK((s.x == 256 && s.y == 128 && s.z == 4 && s.fft_points() == 131072 && s.fft_batch(0) == 1));
    CHECK(s.text() == "256x128x4,mib=1");
    CHECK(parse_size("fft", "3x5").fft_batch(std::size_t{64} << 20) == (std::size_t{64} << 20) / 120);
    CHECK_THROWS_AS(cli::tune_size(s), cli::UsageError);
    CHECK(cli::bench_size(s) == "256x128x4,mib=1");

    s = parse_size("blur", "4096");
    CHECK((s.x == 4096 && s.y == 4096 && s.channels == 1 && !s.has_channels));
    s = parse_size("blur", "1920x1080,channels=4");
    CHECK((s.x == 1920 && s.y == 1080 && s.channels == 4 && s.has_channels));
    CHECK(cli::tune_size(s) == "1920x1080:4");
    CHECK(cli::bench_size(s) == "1920x1080");
    CHECK_THROWS_AS(parse_size("blur", "1024x512,sigma=0.8"), cli::UsageError);  // run, bench: --sigma(s)
    s = parse_size("blur", "1024x512,sigma=0.8", true);                          // a sigma: the tuner's cases
    CHECK((s.x == 1024 && s.y == 512 && s.sigma == 0.8 && s.text() == "1024x512,sigma=0.8"));
    CHECK(cli::tune_size(s) == "1024x512:1,sigma=0.8");
    s = parse_size("blur", "64,channels=4,sigma=20", true);
    CHECK(cli::tune_size(s) == "64x64:4,sigma=20");
    for (const char* bad : {"64,sigma=0", "64,sigma=-1", "64,sigma=", "64,sigma=1e3", "64,sigma=x", "64,sigma=.",
                            "64,sigma=1.2.3", "64,sigma=5000"})
      CHECK_THROWS_AS(parse_size("blur", bad, true), cli::UsageError);

    s = cli::parse_routine_size("fft:64,batch=16");
    CHECK(s.routine == "fft");
    CHECK(s.batch == 16);
    // The canonical text reads back as the same size.
    for (const char* t : {"64x48,elem=16", "3x5x7,trans=TT", "8,mib=3,layout=interleaved", "17x3,channels=4"}) {
      const std::string routine = t[0] == '6' ? "transpose" : t[0] == '3' ? "sgemm" : t[0] == '8' ? "fft" : "blur";
      CHECK(parse_size(routine, parse_size(routine, t).text()).text() == parse_size(routine, t).text());
    }
  }

  TEST_CASE("size grammar: refused forms name the size and the grammar") {
    const std::pair<const char*, const char*> bad[] = {
        {"transpose", ""},
        {"transpose", "0"},
        {"transpose", "-3"},
        {"transpose", "+5"},
        {"transpose", " 64"},
        {"transpose", "64x"},
        {"transpose", "x64"},
        {"transpose", "64x0"},
        {"transpose", "64X64"},
        {"transpose", "1e3"},
        {"transpose", "2147483648"},
        {"transpose", "99999999999999999999999"},
        {"transpose", "64x32x16"},
        {"transpose", "64,elem=5"},
        {"transpose", "64,elem="},
        {"transpose", "64,=4"},
        {"transpose", "64,elem"},
        {"transpose", "64,"},
        {"transpose", "64,batch=16"},
        {"transpose", "64:8"},
        {"sgemm", "64x32"},
        {"sgemm", "1024:NT"},
        {"sgemm", "64,trans=NX"},
        {"sgemm", "64,trans=N"},
        {"fft", "64@16"},
        {"fft", "64x16x8x2"},
        {"fft", "64x16,layout=interleaved"},
        {"fft", "65536x65536"},
        {"fft", "64,real=1"},
        {"fft", "64,real,real"},
        {"fft", "64,batch=0"},
        {"fft", "64,batch=-2"},
        {"fft", "64,batch=1,batch=2"},
        {"fft", "64,batch=1,mib=1"},
        {"fft", "64,layout=strided"},
        {"blur", "64,channels=3"},
        {"blur", "64x48:4"},
    };
    for (const auto& [r, t] : bad) {
      const std::string routine = r, text = t;
      CAPTURE(routine);
      CAPTURE(text);
      try {
        cli::parse_size(routine, text);
        FAIL("accepted");
      } catch (const cli::UsageError& e) {
        const std::string what = e.what();
        CHECK(what.find("'" + text + "'") != std::string::npos);
        CHECK(what.find(routine + " sizes are") != std::string::npos);
      }
    }
    CHECK_THROWS_AS(cli::parse_size("peak", "64"), cli::UsageError);
    CHECK_THROWS_AS(cli::parse_routine_size("fft"), cli::UsageError);
    CHECK_THROWS_AS(cli::parse_routine_size("nosuch:64"), cli::UsageError);
    CHECK_THROWS_AS(cli::parse_routine_size("fft:64x16x8x2"), cli::UsageError);
    CHECK(cli::bench_size(cli::parse_routine_size("fft:64x16")) == "64x16");
    CHECK(cli::bench_size(cli::parse_routine_size("fft:64x16x8,real")) == "64x16x8,real");
    CHECK_THROWS_AS(cli::bench_size(cli::parse_routine_size("fft:64,real,layout=interleaved")), cli::UsageError);
  }

  TEST_CASE("--version, exit statuses 0, 1 and 2, unknown commands") {
    const std::string cli = std::string(CLFORGE_CLI) + " ";
    const std::string dev = "--device " + test::session().entry.info.index_string() + " ";
    std::string out;
    CHECK(test::run_command(cli + "--version", out) == 0);
    CHECK(out == std::string("clforge ") + version_string + "\n");
    CHECK(test::run_command(cli + "--help", out) == 0);
    CHECK(out.find("Exit status") != std::string::npos);
    CHECK(test::run_command(cli + dev + "run transpose --size 33x17", out) == 0);
    CHECK(out.find("exact") != std::string::npos);
    CHECK(test::run_command(cli + dev + "run fft --size 4x6,real,batch=2", out) == 0);
    CHECK(out.find("R2C") != std::string::npos);
    CHECK(out.find(": ok") != std::string::npos);

    // Usage errors: 2, with a message saying what is wrong.
    const std::pair<std::string, std::string> usage[] = {
        {"", "subcommand is required"},
        {"bnch", "unknown command 'bnch' for 'clforge' (did you mean 'bench'?)"},
        {"bench bnch", "unknown command 'bnch' for 'clforge bench'"},
        {"tune transpos", "did you mean 'transpose'?"},
        {"run transpose --size 0", "--size"},
        {"run transpose --size 64 --nosuch", "--nosuch"},
        {"run fft --size 64@16", "fft sizes are"},
        {"run fft --size 4x6,real --inverse", "R2C then C2R"},
        {"-p NO_SUCH_PARAM=1 run transpose --size 8", "NO_SUCH_PARAM"},
        {"-p TRA_TILE=x run transpose --size 8", "TRA_TILE"},
        {dev + "-p TRA_TILE=8,16 run transpose --size 8", "lists of values"},
        {dev + "params nosuch", "unknown routine or kernel 'nosuch'"},
        {dev + "params transpose --variant 5", "variant '5'"},
        {dev + "params sgemm_xgemm --variant tiny:batch", "variant 'tiny:batch'"},
        {"bench all --size nosuch:64", "ROUTINE:SIZE"},
    };
    for (const auto& [args, needle] : usage) {
      CAPTURE(args);
      CHECK(test::run_command(cli + args, out) == 2);
      CHECK_MESSAGE(out.find(needle) != std::string::npos, out);
    }
    // Failures: 1.
    CHECK(test::run_command(cli + "--device no-such-device-anywhere run transpose --size 8", out) == 1);
    CHECK(out.find("no-such-device-anywhere") != std::string::npos);
    const std::string dir = test::temp_dir("cli-status");
    CHECK(test::run_command(cli + "bench compare '" + dir + "/a.json' '" + dir + "/b.json'", out) == 1);
    CHECK(out.find("cannot read " + dir + "/") != std::string::npos);  // both are missing
  }

  TEST_CASE("every routine name is a run, bench, tune and params command; params shows all its kernels") {
    const std::string cli = std::string(CLFORGE_CLI) + " --device " + test::session().entry.info.index_string() + " ";
    const std::map<std::string, std::set<std::string>> routines = {
        {"transpose", {"transpose"}},
        {"sgemm", {"sgemm_xgemm", "sgemm_stream", "sgemm_direct", "sgemm_pack", "sgemm_route"}},
        {"fft", {"fft", "fft_lanes", "fft_rader", "fft_real"}},
        {"blur", {"blur", "blur_direct", "blur_separable", "blur_recursive"}},
    };
    std::set<std::string> listed;
    std::string out;
    for (const auto& [routine, kernels] : routines) {
      CAPTURE(routine);
      for (const char* cmd : {"run", "bench", "tune"}) {
        CHECK(test::run_command(cli + cmd + " " + routine + " --help", out) == 0);
        CHECK(out.find("--size") != std::string::npos);
      }
      REQUIRE(test::run_command(cli + "params " + routine, out) == 0);
      const auto shown = kernels_in(out);
      std::set<std::string> names;
      for (const auto& [k, text] : shown) {
        names.insert(k);
        listed.insert(k);
        for (const auto& p : kernel_parameters(k)) {  // every parameter with its value and origin
          const auto at = text.find("\n  " + p.name + " ");
          CHECK_MESSAGE(at != std::string::npos, k << " " << p.name);
          if (at != std::string::npos) CHECK(text.find("shipped", at) < text.find('\n', at + 1));
        }
      }
      CHECK(names == kernels);
    }
    // Every kernel belongs to a routine.
    const std::vector<std::string> all = tunable_kernels();
    CHECK(listed == std::set<std::string>(all.begin(), all.end()));
    // Kernel names are accepted too: that kernel alone, with the variant asked for.
    REQUIRE(test::run_command(cli + "params sgemm_direct", out) == 0);
    CHECK(kernels_in(out).size() == 1);
    CHECK(kernels_in(out).count("sgemm_direct") == 1);
    REQUIRE(test::run_command(cli + "params blur --variant 4", out) == 0);
    CHECK(out.find("kernel blur_separable (variant 4;") != std::string::npos);
    REQUIRE(test::run_command(cli + "params sgemm --variant large", out) == 0);
    CHECK(out.find("kernel sgemm_xgemm (variant large;") != std::string::npos);
    CHECK(out.find("kernel sgemm_stream (variant large;") != std::string::npos);
    CHECK(out.find("group calls (sgemm;") != std::string::npos);  // the routine's group calls
    CHECK(out.find("  chunk KiB = ") != std::string::npos);
    // A sub-variant of a declared variant (the rows of a batch's tiles, of a length's columns).
    REQUIRE(test::run_command(cli + "params sgemm_xgemm --variant small:batch", out) == 0);
    CHECK(out.find("kernel sgemm_xgemm (variant small:batch;") != std::string::npos);
  }

  TEST_CASE("CLFORGE_TUNING and CLFORGE_PROFILE_KERNELS take every boolean spelling and refuse others") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("cli-env");
    const std::string cli =
        "CLFORGE_USER_TUNING_DIR='" + dir + "' " + CLFORGE_CLI + " --device " + s.entry.info.index_string() + " ";
    {
      test::ScopedEnv user("CLFORGE_USER_TUNING_DIR", dir);
      store_user_entry(s.entry.info, "transpose", "4", {{"TRA_PAD", 1}}, "test");
    }
    std::string out;
    for (const std::string on : {"1", "on", "true", "yes", "ON", "True"}) {
      CAPTURE(on);
      REQUIRE(test::run_command("CLFORGE_TUNING=" + on + " " + cli + "params transpose", out) == 0);
      CHECK(out.find("TRA_PAD    = 1      user ") != std::string::npos);
    }
    for (const std::string off : {"0", "off", "false", "no", "OFF", "No"}) {
      CAPTURE(off);
      REQUIRE(test::run_command("CLFORGE_TUNING=" + off + " " + cli + "params transpose", out) == 0);
      CHECK(out.find("user ") == std::string::npos);
      CHECK(out.find("shipped") != std::string::npos);
    }
    for (const std::string bad : {"2", "maybe"}) {
      CAPTURE(bad);
      CHECK(test::run_command("CLFORGE_TUNING=" + bad + " " + cli + "params transpose", out) == 2);
      CHECK(out.find(std::string("CLFORGE_TUNING='") + bad + "'") != std::string::npos);
    }
    for (const std::string on : {"1", "yes", "TRUE"}) {
      CAPTURE(on);
      REQUIRE(test::run_command("CLFORGE_PROFILE_KERNELS=" + on + " " + cli + "-v run transpose --size 8", out) == 0);
      CHECK(out.find("profile: transpose") != std::string::npos);
    }
    for (const std::string off : {"0", "no", "Off"}) {
      CAPTURE(off);
      REQUIRE(test::run_command("CLFORGE_PROFILE_KERNELS=" + off + " " + cli + "-v run transpose --size 8", out) == 0);
      CHECK(out.find("profile:") == std::string::npos);
    }
    CHECK(test::run_command("CLFORGE_PROFILE_KERNELS=enable " + cli + "run transpose --size 8", out) == 2);
    CHECK(out.find("CLFORGE_PROFILE_KERNELS='enable'") != std::string::npos);
  }

  TEST_CASE("internal commands are hidden from help and still run") {
    const std::string cli = std::string(CLFORGE_CLI) + " ";
    std::string out;
    for (const std::string help : {"--help", "bench --help", "run --help", "tune --help"}) {
      CAPTURE(help);
      REQUIRE(test::run_command(cli + help, out) == 0);
      CHECK(out.find("child") == std::string::npos);
    }
    REQUIRE(test::run_command(cli + "bench --help", out) == 0);
    for (const char* visible : {"all", "compare", "transpose", "sgemm", "fft", "blur", "overhead"})
      CHECK(out.find(std::string("\n  ") + visible + " ") != std::string::npos);
    CHECK(test::run_command(cli + "bench fft-vkfft-child --help", out) == 0);
    CHECK(out.find("--size") != std::string::npos);
  }

  TEST_CASE("--out is a folder: results.json, results.csv and report.md inside; a file is refused") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("cli-out") + "/new/results";  // created with its parents
    const std::string cli = std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " ";
    std::string out;
    REQUIRE(test::run_command(cli + "bench transpose --quick --size 64x48 --out '" + dir + "'", out) == 0);
    INFO(out);
    CHECK(files_in(dir) == std::set<std::string>{"report.md", "results.csv", "results.json"});
    const nlohmann::json j = nlohmann::json::parse(*detail::read_file(dir + "/results.json"));
    bool found = false;
    for (const auto& m : j.at("measurements"))
      found = found || (m.at("routine") == "transpose" && m.at("library") == "clforge" && m.at("shape") == "64x48");
    CHECK(found);
    const std::string csv = *detail::read_file(dir + "/results.csv");
    CHECK(csv.find("64x48") != std::string::npos);
    CHECK(detail::read_file(dir + "/report.md")->find("64x48") != std::string::npos);

    const std::string file = dir + "/results.csv";
    CHECK(test::run_command(cli + "bench transpose --quick --size 64 --out '" + file + "'", out) == 2);
    CHECK(out.find(file) != std::string::npos);
    CHECK(*detail::read_file(file) == csv);
  }
#endif
}
