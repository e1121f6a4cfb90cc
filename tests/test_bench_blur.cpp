// The peers of `clforge bench blur` (bench/blur_peers.hpp): a short run whose records hold
// OpenCV's rows (host and OpenCL on the same device) checked against the double reference, NPP's
// row saying why it did not run off NVIDIA, and clforge / best peer in report.md; OpenCV on every
// border, which shows that clforge's mirror is BORDER_REFLECT (BORDER_REFLECT_101 leaves the edge
// sample out and fails the check).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "bench/bench_all.hpp"
#include "bench/blur_peers.hpp"
#include "host/data.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {
#if CLFORGE_HAVE_OPENCV
constexpr bool kOpenCv = true;
#else
constexpr bool kOpenCv = false;
#endif
}  // namespace

TEST_SUITE("bench_blur") {
  TEST_CASE("bench blur: OpenCV rows checked against the reference, NPP's status, clforge / best peer") {
    // bench_blur as `clforge bench blur --quick --size 64x48 --sigmas 1,3 --methods separable`
    // runs it, without the peak probes (tests/test_bench_all.cpp runs the command line).
    auto& s = test::session();
    bench::BenchOptions opt;
    opt.quick = true;
    opt.sizes = {"64x48"};
    bench::BlurBenchOptions b;
    b.sigmas = {1, 3};
    b.methods = {"separable"};
    bench::AllResults res;
    res.devices.emplace_back(s.entry.info);
    bench::bench_blur(s, res.devices[0].report, opt, bench::Peaks{}, b);
    const nlohmann::json j = res.devices[0].report.to_json();
    const std::string opencv = j.at("peers").at("OpenCV");
    CAPTURE(opencv);
    std::set<std::string> seen;
    for (const auto& m : j.at("measurements")) {
      const std::string library = m.at("library"), shape = m.at("shape"), status = m.at("status");
      CAPTURE(m.dump());
      seen.insert(library + " " + shape);
      if (library.rfind("OpenCV", 0) == 0) {
        CHECK(m.at("params").at("peer") == true);
        CHECK(m.at("params").at("taps") == (shape == "64x48 s=1" ? 7 : 19));
#if CLFORGE_HAVE_OPENCV
        CHECK(status.rfind("ok (", 0) == 0);
        // The tolerance of every truncated blur in float (bench/blur_peers.hpp): 1e-4.
        CHECK(m.at("error").get<double>() <= bench::kTruncatedBlurTolerance);
        CHECK(m.at("median_ms").get<double>() > 0);
#else
        CHECK(status == "refused: OpenCV not built");
#endif
      }
      if (library == "NPP") {
#if CLFORGE_TEST_CUDA_PEERS
        if (s.entry.info.vendor_class != VendorClass::NVIDIA) CHECK(status.rfind("refused: ", 0) == 0);
#else
        FAIL("an NPP row in a build without the CUDA peers");
#endif
      }
    }
    for (const char* shape : {"64x48 s=1", "64x48 s=3"})
      for (const char* library : {"OpenCV CPU", "OpenCV OpenCL", "separable"})
        CHECK_MESSAGE(seen.count(std::string(library) + " " + shape) == 1, library, " ", shape);
#if CLFORGE_TEST_CUDA_PEERS
    CHECK(seen.count("NPP 64x48 s=3") == 1);
    const std::string npp = j.at("peers").at("NPP");
    CHECK((npp.rfind("not found (", 0) == 0 || npp.rfind("CUDA ", 0) == 0));
#endif
    // report.md: the peers under the methods, and clforge / best peer per method and sigma.
    const std::string md = bench::report_markdown(res);
    CAPTURE(md);
    CHECK(md.find("| OpenCV OpenCL |") != std::string::npos);
#if CLFORGE_HAVE_OPENCV
    CHECK(opencv.rfind("4.", 0) == 0);
    const auto ratio = md.find("clforge / best peer (MP/s of the method");
    REQUIRE(ratio != std::string::npos);
    CHECK(md.find("| separable | ", ratio) != std::string::npos);
    CHECK(md.find("| separable | - | - |", ratio) == std::string::npos);
#else
    CHECK(opencv == "not built");
#endif
  }

  TEST_CASE("bench blur --border mirror: every method and peer blurs with the mirror border") {
    auto& s = test::session();
    bench::BenchOptions opt;
    opt.quick = true;
    opt.sizes = {"40x33"};
    bench::BlurBenchOptions b;
    b.sigmas = {1};
    b.methods = {"separable"};
    b.border = BlurBorder::Mirror;
    bench::Report report(s.entry.info);
    bench::bench_blur(s, report, opt, bench::Peaks{}, b);
    std::size_t rows = 0;
    for (const bench::Record& r : report.records()) {
      CAPTURE(r.library);
      CAPTURE(r.status);
      if (r.library == "NPP") {  // not found here, or replicate only
        CHECK(r.status.rfind("refused: ", 0) == 0);
        continue;
      }
      if (!kOpenCv && r.library.rfind("OpenCV", 0) == 0) continue;
      ++rows;
      CHECK(r.status.rfind("ok", 0) == 0);
      CHECK(r.error >= 0);
      CHECK(r.error <= bench::kTruncatedBlurTolerance);
      if (bench::is_blur_peer(r)) CHECK(r.params.at("border") == "mirror");
    }
    CHECK(rows == (kOpenCv ? 3u : 1u));
  }

#if CLFORGE_HAVE_OPENCV
  TEST_CASE("OpenCV peers: clamp, mirror and zero borders match clforge's on an odd image") {
    auto& s = test::session();
    const std::vector<float> image = host::random_floats(37 * 23, 11);
    std::shared_ptr<bench::OpenCvState> state;
    for (const BlurBorder border : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero}) {
      bench::BlurCase c;
      c.width = 37;
      c.height = 23;
      c.sigma = 1;  // 7 taps, below the height: OpenCV's OpenCL path runs
      c.border = border;
      c.image = &image;
      c.verify_pixels = 4000;  // every pixel about 5 times, the edges included
      c.verify_seed = 5;
      const bench::TimingPlan plan{0, 1, 1, 0, 0};
      for (const bench::Record& r : bench::run_opencv(state, s, c, plan)) {
        CAPTURE(to_string(border));
        CAPTURE(r.library);
        CAPTURE(r.status);
        CHECK(r.status.rfind("ok (", 0) == 0);
        CHECK(r.error >= 0);
        CHECK(r.error <= bench::kTruncatedBlurTolerance);
      }
    }
  }
#endif
}
