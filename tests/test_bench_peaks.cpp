// The choice of OpenBLAS's kernels for bench sgemm on CPU devices (bench/openblas.hpp): which
// core a CPU's flags call for, and OpenBLAS loaded again with it where it detected an older one.
// The peak probes themselves are checked on a bench all run (tests/test_bench_all.cpp).
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <cstdlib>

#include "bench/openblas.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {
const char* const kAvx512 = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl";
const char* const kAvx2 = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma";
}  // namespace

TEST_SUITE("bench_peaks") {
  TEST_CASE("OpenBLAS kernels: an older core than the CPU's flags is replaced, a current one kept") {
    // A virtualised AVX-512 Xeon that OpenBLAS 0.3.21 did not recognise.
    CHECK(bench::better_openblas_core("Prescott", kAvx512) == "SkylakeX");
    CHECK(bench::better_openblas_core("Haswell", kAvx512) == "SkylakeX");
    CHECK(bench::better_openblas_core("Zen", kAvx512) == "SkylakeX");
    CHECK(bench::better_openblas_core("SkylakeX", kAvx512).empty());
    CHECK(bench::better_openblas_core("Cooperlake", kAvx512).empty());
    CHECK(bench::better_openblas_core("SAPPHIRERAPIDS", kAvx512).empty());  // names compare without case
    CHECK(bench::better_openblas_core("Prescott", kAvx2) == "Haswell");
    CHECK(bench::better_openblas_core("Sandybridge", kAvx2) == "Haswell");
    CHECK(bench::better_openblas_core("Zen", kAvx2).empty());
    CHECK(bench::better_openblas_core("Haswell", kAvx2).empty());
    // Flags without AVX2 + FMA, or AVX-512 without all of SkylakeX's parts: nothing better.
    CHECK(bench::better_openblas_core("Prescott", "fpu sse sse2 sse3 avx").empty());
    CHECK(bench::better_openblas_core("Prescott", "sse3 avx avx2").empty());
    CHECK(bench::better_openblas_core("Prescott", "avx2 fma avx512f avx512cd") == "Haswell");
    CHECK(bench::better_openblas_core("Prescott", "").empty());
  }

  TEST_CASE("OpenBLAS detected an older core than the flags call for: it loads again with the better one") {
    void* before = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (before != nullptr) {
      dlclose(before);
      return;  // loaded earlier in this process: it cannot load again here
    }
    // The flags of an AVX-512 CPU: only the core's name is read and the library is unloaded
    // afterwards, so no kernel runs on a CPU without them.
    bench::OpenBlas b = bench::load_openblas(kAvx512);
    if (b.problem == "not found") return;  // no OpenBLAS on this machine: the rows say so
    REQUIRE(b.problem.empty());
    INFO("core " << b.core << ", " << b.choice << ", " << b.config);
    CHECK((b.sgemm != nullptr));
    CHECK(b.describe().find("; kernels " + b.core + " (") != std::string::npos);
    const std::string user = std::getenv("OPENBLAS_CORETYPE") != nullptr ? std::getenv("OPENBLAS_CORETYPE") : "";
    if (!user.empty()) {
      CHECK(b.choice == "OPENBLAS_CORETYPE=" + user + " set by the user");
    } else if (b.config.find("DYNAMIC_ARCH") != std::string::npos) {
      const std::string prefix = "OPENBLAS_CORETYPE=SkylakeX set by clforge: OpenBLAS detected ";
      if (b.choice.rfind(prefix, 0) == 0) {
        CHECK(b.core == "SkylakeX");
        const std::string detected = b.choice.substr(prefix.size(), b.choice.find(' ', prefix.size()) - prefix.size());
        CHECK(bench::better_openblas_core(detected, kAvx512) == "SkylakeX");
      } else {
        CHECK(b.choice == "detected by OpenBLAS");
        CHECK(bench::better_openblas_core(b.core, kAvx512).empty());
      }
      CHECK(std::getenv("OPENBLAS_CORETYPE") == nullptr);  // set only while OpenBLAS loaded
    }
    // Unloaded again, so that the rest of the process loads it for its own CPU.
    dlclose(b.handle);
    void* after = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    CHECK(after == nullptr);
    if (after != nullptr) dlclose(after);
  }

#ifdef CLFORGE_CLI
  TEST_CASE("the command line runs OpenBLAS's kernels for the CPU's flags, where OpenCV loaded it too") {
    auto& s = test::session();
    if (s.entry.info.type != "CPU") return;  // OpenBLAS is bench sgemm's peer on CPU devices
    const bench::OpenBlas& b = bench::openblas();
    if (b.problem == "not found" || b.config.find("DYNAMIC_ARCH") == std::string::npos) return;
    const std::string cmd = "env -u OPENBLAS_CORETYPE -u CLFORGE_OPENBLAS_DETECTED " + std::string(CLFORGE_CLI) +
                            " --device " + s.entry.info.index_string() + " bench sgemm --size 64 --out '" +
                            test::temp_dir("openblas-cli") + "/r'";
    std::string log;
    const int rc = test::run_command(cmd, log);
    INFO(log);
    REQUIRE(rc == 0);
    const std::string mark = "sgemm 64x64x64 OpenBLAS (host, ";  // "..., SkylakeX kernels): 0.010 ms"
    const std::size_t at = log.find(mark);
    REQUIRE(at != std::string::npos);
    const std::size_t from = at + mark.size();
    const std::string core = log.substr(from, log.find(' ', from) - from);
    CHECK(bench::better_openblas_core(core, bench::cpu_flags()).empty());
  }
#endif

  TEST_CASE("OpenBLAS on this CPU: the kernels its flags call for, or the user's") {
    const bench::OpenBlas& b = bench::openblas();
    if (b.problem == "not found") return;
    REQUIRE(b.problem.empty());
    INFO("core " << b.core << ", " << b.choice);
    if (std::getenv("OPENBLAS_CORETYPE") == nullptr && b.config.find("DYNAMIC_ARCH") != std::string::npos) {
      // Older kernels than the CPU's flags call for only where OpenBLAS came in with the process (a
      // library linked against libblas.so.3, such as OpenCV, resolves to it): it cannot load again,
      // and the choice names the setting that would give the better kernels.
      const std::string better = bench::better_openblas_core(b.core, bench::cpu_flags());
      if (!better.empty()) {
        CHECK(b.choice.find("set OPENBLAS_CORETYPE=" + better) != std::string::npos);
        CHECK(b.choice.find("loaded before") != std::string::npos);
      }
    }
    // It runs: a 2x2 product.
    const float a[4] = {1, 2, 3, 4}, x[4] = {1, 0, 0, 1};
    float c[4] = {};
    b.sgemm(102, 111, 111, 2, 2, 2, 1.0f, a, 2, x, 2, 0.0f, c, 2);
    CHECK(c[0] == 1);
    CHECK(c[3] == 4);
  }
}
