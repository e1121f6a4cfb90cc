// Hostile arguments, case by case: the extents that wrapped size_t, host-vector overloads
// refusing before they allocate and leaving nothing running after a throw, unknown enum values,
// a corrupt user tuning database, the compile cache's size limit, the command line's sizes and
// an interrupted blur. (The random argument sets are in test_safety.cpp.)
#include <dirent.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include <complex>
#include <ctime>
#include <fstream>
#include <limits>
#include <memory>

#include "host/data.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "tests/safety_support.hpp"

using namespace clforge;
using test::Arena;
using test::Hostile;
using test::Parent;
using test::Slot;

namespace {

// Expects InvalidArgument mentioning `needle`, with nothing allocated, built or enqueued.
void expect_refused(const std::function<void()>& fn, const std::string& needle) {
  const test::Footprint before = test::Footprint::now();
  test::expect_invalid_argument(fn, needle);
  CHECK(test::Footprint::now() == before);
}

}  // namespace

TEST_SUITE("safety") {
  TEST_CASE("extents that wrap size_t are refused and named (sub-buffer of a sentinel parent)") {
    auto& s = test::session();
    Arena arena(test::seed() + 11);
    Hostile h(test::seed() + 12);
    Slot out;
    while (out.origin == 0 || out.null) out = arena.pick(h, Parent::Dst, 0);
    const cl::Buffer in = arena.buffer(Parent::Src);
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    // The cases that wrote before the output buffer or crashed before the checks were overflow-proof.
    expect_refused(
        [&] {
          sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 11, 1, 4, 1.0f, {in, 0, 11}, {in, 0, 4}, 0.0f,
                {out.buffer, kMax - 10, 11});
        },
        "c.offset");
    expect_refused(
        [&] {
          sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 8, 64, 8, 1.0f, {in, 0, 8}, {in, 0, 8}, 0.0f,
                {out.buffer, 0, kMax / 63 + 1});
        },
        "c.ld");
    expect_refused([&] { transpose(s.queue, 2, 3, 4, {in, 0, 3}, {out.buffer, kMax - 5, 2}); }, "out.offset");
    expect_refused([&] { transpose(s.queue, 3, 2, 4, {in, 0, kMax / 2 + 1}, {out.buffer, 0, 3}); }, "in.ld");
    {
      FftDesc d;
      d.n = 4;
      d.out.offset = kMax - 3;
      expect_refused([&] { FftPlan(s.queue, d); }, "out.offset");
      FftDesc e;
      e.n = 16;
      e.in.stride = kMax / 15 + 1;
      expect_refused([&] { FftPlan(s.queue, e); }, "in.stride");
    }
    BlurOptions o;
    o.method = BlurMethod::Separable;
    expect_refused(
        [&] {
          gaussian_blur(s.queue, 4, 2, PixelFormat::R32F, {in, 0, 4}, {out.buffer, kMax - 7, 4}, o);
        },
        "out.offset");
    expect_refused(
        [&] {
          gaussian_blur(s.queue, 4, 3, PixelFormat::R32F, {in, 0, kMax / 2 + 1}, {out.buffer, 0, 4}, o);
        },
        "in.pitch");
    CHECK(arena.verify("the refused calls"));
  }

  TEST_CASE("host-vector overloads allocate nothing before refusing and leave nothing running after a throw") {
    auto& s = test::session();
    const std::size_t rows = 1024, cols = 1024;  // 4 MiB
    std::vector<float> a = host::random_floats(rows * cols, test::seed() + 13);
    const Tuning bad_transpose{{{"TRA_TILE", 3}}, false}, bad_fft{{{"FFT_WG", 3}}, false};
    expect_refused([&] { transpose(s.queue, rows, cols, a, bad_transpose); }, "TRA_TILE");
    expect_refused([&] { transpose(s.queue, rows, cols + 1, a); }, "host vector holds");
    expect_refused([&] { transpose(s.queue, std::size_t{1} << 33, std::size_t{1} << 31, a); }, "below 2^31");
    std::vector<std::complex<float>> x(1 << 16);
    expect_refused([&] { fft(s.queue, x, 256, false, bad_fft); }, "FFT_WG");
    expect_refused([&] { fft(s.queue, x, 0); }, "n must be at least 1");
    std::vector<float> c(64 * 64);
    expect_refused(
        [&] {
          sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 64, 64, 64, 1.0f, a, 64, a, 64, 0.0f, c, 63);
        },
        "c.ld");
    expect_refused(
        [&] {
          sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 64, 64, 64, 1.0f, a, 64, a, 64, 0.0f, c, 64,
                Tuning{{{"NOPE", 1}}, false});
        },
        "unknown parameter");
    BlurOptions o;
    expect_refused(
        [&] {
          gaussian_blur(s.queue, 1024, 1024, 1, a, o, Tuning{{{"BLUR_S_LOCAL", 7}}, false});
        },
        "BLUR_S_LOCAL");
    expect_refused([&] { gaussian_blur(s.queue, std::size_t{1} << 32, std::size_t{1} << 32, 1, a, o); },
                   "width and height must be at most 2^30");
    // A failure after the upload (every kernel build fails): the error arrives, and the caller's
    // memory can be released at once (under AddressSanitizer a late read of it is reported).
    {
      test::ScopedEnv bad("CLFORGE_BUILD_OPTIONS", std::string("-cl-no-such-option-") + std::to_string(test::seed()));
      const detail::Activity before = detail::activity();
      for (int routine = 0; routine < 4; ++routine) {
        auto doomed = std::make_unique<std::vector<float>>(a);
        bool threw = false;
        try {
          if (routine == 0) transpose(s.queue, rows, cols, *doomed);
          if (routine == 1) gaussian_blur(s.queue, 1024, 1024, 1, *doomed, o);
          if (routine == 2) {
            std::vector<float> cc(64 * 64);
            sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 64, 64, 64, 1.0f, *doomed, 64, *doomed, 64,
                  0.0f, cc, 64);
          }
          if (routine == 3) {
            std::vector<std::complex<float>> xx(reinterpret_cast<const std::complex<float>*>(doomed->data()),
                                                reinterpret_cast<const std::complex<float>*>(doomed->data()) + 4096);
            fft(s.queue, xx, 64);
          }
        } catch (const Error& e) {
          threw = true;
          INFO(e.what());
          CHECK((dynamic_cast<const BuildError*>(&e) != nullptr || dynamic_cast<const OpenCLError*>(&e) != nullptr));
        }
        CHECK(threw);
        std::fill(doomed->begin(), doomed->end(), 0.0f);
        doomed.reset();
        REQUIRE(s.queue.finish() == CL_SUCCESS);
      }
      CHECK(detail::activity().enqueued == before.enqueued);  // no transfer was ever enqueued
    }
  }

  TEST_CASE("smaller holes: unknown enums, plans that allocate before refusing") {
    auto& s = test::session();
    Arena arena(test::seed() + 14);
    const cl::Buffer in = arena.buffer(Parent::Src), out = arena.buffer(Parent::Dst);
    BlurOptions o;
    o.method = static_cast<BlurMethod>(17);
    expect_refused(
        [&] {
          gaussian_blur(s.queue, 8, 8, PixelFormat::R32F, {in, 0, 8}, {out, 0, 8}, o);
        },
        "unknown blur method");
    o.method = BlurMethod::Separable;
    o.border = static_cast<BlurBorder>(5);
    expect_refused(
        [&] {
          gaussian_blur(s.queue, 8, 8, PixelFormat::R32F, {in, 0, 8}, {out, 0, 8}, o);
        },
        "unknown border");
    expect_refused(
        [&] {
          sgemm(s.queue, static_cast<Layout>(3), Transpose::No, Transpose::No, 2, 2, 2, 1.0f, {in, 0, 2}, {in, 0, 2},
                0.0f, {out, 0, 2});
        },
        "unknown layout");
    FftDesc d;
    d.n = 64;
    expect_refused([&] { FftPlan(s.queue, d, Tuning{{{"FFT_WG", 3}}, false}); }, "FFT_WG");
    expect_refused([&] { FftPlan(s.queue, d, Tuning{{{"TRA_TILE", 16}}, false}); }, "unknown parameter");
    CHECK(arena.verify("the refused calls"));
  }

  TEST_CASE("a corrupt user tuning database fails only its kernels, and says how to bypass it") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("corrupt-user-db");
    test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", dir);
    const std::string path = user_database_path(s.entry.info);
    std::vector<float> a = host::random_floats(6 * 5, test::seed() + 15);
    auto fft_fails = [&](const std::string& needle) {
      FftDesc d;
      d.n = 32;
      try {
        FftPlan plan(s.queue, d);
        FAIL("no TuningError");
      } catch (const TuningError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find(path) != std::string::npos);
        CHECK(std::string(e.what()).find(needle) != std::string::npos);
        CHECK(std::string(e.what()).find("CLFORGE_TUNING=off") != std::string::npos);
      }
    };
    // One bad entry of the fft kernel: transpose still runs from the same database.
    detail::write_file_atomic(path, R"({"entries": [{"kernel": "fft", "variant": "32", "params": {"FFT_WG": 3}},
                                         {"kernel": "transpose", "params": {"TRA_PAD": 1}}]})");
    const std::vector<float> t = transpose(s.queue, 6, 5, a);
    CHECK(t[1] == a[5]);
    fft_fails("FFT_WG");
    CHECK(resolve_configuration("transpose", "4", s.entry.info).sources.at("TRA_PAD").find("user") == 0);
    // Not JSON at all: every kernel reports it, with the same way out.
    detail::write_file_atomic(path, "{ not json");
    fft_fails("not valid JSON");
    try {
      transpose(s.queue, 6, 5, a);
      FAIL("no TuningError");
    } catch (const TuningError& e) {
      CHECK(std::string(e.what()).find("--no-user-tuning") != std::string::npos);
    }
    CHECK(transpose(s.queue, 6, 5, a, Tuning{{}, false})[1] == a[5]);  // the bypass works
  }

  TEST_CASE("the compile cache folder stays under its limit") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("cache-evict");
    test::ScopedEnv cache("CLFORGE_CACHE_DIR", dir);
    test::ScopedEnv limit("CLFORGE_CACHE_MAX_MB", std::string("1"));
    test::ScopedEnv store("CLFORGE_CACHE_BINARIES", std::string("on"));  // PoCL stores none by default
    // Three old entries of 600 KiB (1.8 MiB) and a temp file a killed writer left two hours ago.
    const std::string junk(600 << 10, 'x');
    for (int i = 0; i < 3; ++i) detail::write_file_atomic(dir + "/old" + std::to_string(i) + ".bin", junk);
    detail::write_file_atomic(dir + "/dead.bin.tmp.1.2", junk);
    for (const char* f : {"/old0.bin", "/old1.bin", "/old2.bin", "/dead.bin.tmp.1.2"}) {
      const struct utimbuf when { std::time(nullptr) - 7200, std::time(nullptr) - 7200 };
      REQUIRE(::utime((dir + f).c_str(), &when) == 0);
    }
    test::ScopedEnv opts("CLFORGE_BUILD_OPTIONS", "-DCLF_EVICTION_PROBE=" + std::to_string(test::seed()));
    clear_memory_cache();
    std::vector<float> a = host::random_floats(3 * 7, test::seed() + 16);
    transpose(s.queue, 3, 7, a, Tuning{{}, false});  // compiles and stores a program: evicts
    std::uint64_t total = 0;
    int fresh = 0;
    CHECK(detail::stamp_of(dir + "/dead.bin.tmp.1.2").size < 0);  // the left-over temp file is removed
    std::string out;
    REQUIRE(test::run_command("ls -l '" + dir + "'", out) == 0);
    INFO(out);
    DIR* d = ::opendir(dir.c_str());
    REQUIRE(d != nullptr);
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() < 4 || n.compare(n.size() - 4, 4, ".bin") != 0) continue;
      total += static_cast<std::uint64_t>(detail::stamp_of(dir + "/" + n).size);
      fresh += n.rfind("old", 0) != 0;
    }
    ::closedir(d);
    CHECK(total <= (1u << 20));
    CHECK(fresh >= 1);  // the new entry is kept (the oldest go first)
    clear_memory_cache();
  }
}

#ifdef CLFORGE_CLI
TEST_SUITE("safety") {
  TEST_CASE("clforge: sizes that are not counts are usage errors, not OpenCL or allocation failures") {
    auto& s = test::session();
    const std::string cli = std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " run ";
    for (const std::string args :
         {"transpose --size 0", "transpose --size -3", "transpose --size 99999999999x2", "transpose --size 4,elem=5",
          "sgemm --size -1", "fft --size 0", "fft --size 8,batch=-2"}) {
      std::string out;
      const int rc = test::run_command(cli + args, out);
      INFO(args << ": " << out);
      CHECK(rc == 2);  // a usage error, not a signal
      CHECK(out.find(args.substr(args.find("--"), args.find(' ', args.find("--")) - args.find("--"))) !=
            std::string::npos);
      CHECK(out.find("CL_") == std::string::npos);
      CHECK(out.find("vector") == std::string::npos);
    }
  }

  TEST_CASE("clforge blur interrupted while writing leaves no temp file") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("blur-kill");
    const std::size_t W = 1536, H = 1536;
    {
      const std::vector<float> img = host::random_floats(W * H * 4, test::seed() + 17);
      std::ofstream(dir + "/in.f32", std::ios::binary)
          .write(reinterpret_cast<const char*>(img.data()), static_cast<std::streamsize>(img.size() * 4));
    }
    const std::string cmd = "exec " + std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() +
                            " blur '" + dir + "/in.f32' '" + dir + "/out.png' --size " + std::to_string(W) + "x" +
                            std::to_string(H) + ",channels=4 --bits 16 --sigma 1 --reps 0 > /dev/null 2>&1";
    auto temps = [&] {
      int n = 0;
      DIR* d = ::opendir(dir.c_str());
      if (d == nullptr) return -1;
      while (const dirent* e = ::readdir(d)) n += std::string(e->d_name).rfind("out.png.tmp-", 0) == 0;
      ::closedir(d);
      return n;
    };
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Interrupt it as soon as its temp file appears (or let it finish if it never shows).
    bool interrupted = false;
    int status = 0;
    for (;;) {
      const pid_t done = ::waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (!interrupted && temps() > 0) {
        ::kill(pid, SIGTERM);
        interrupted = true;
      }
      ::usleep(500);
    }
    MESSAGE(std::string(interrupted ? "blur interrupted while its temp file existed"
                                    : "blur finished before a temp file was seen"));
    CHECK(temps() == 0);
    if (interrupted)
      CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));
    else
      CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
}
#endif
