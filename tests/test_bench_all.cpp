// `clforge bench all`, `bench compare` and `bench report`, through the command line (bench all
// runs VkFFT in a child process of its own executable, so it is driven as the clforge binary): a
// quick run with tiny sizes for every routine and the files it writes, then compare on
// synthetic results (a 2x slowdown, identical files, a slowdown within the spread, two devices
// matched by shape, bad files) and report on the committed H100 results;
// tests/test_bench_records.cpp tests the rule, tests/test_bench_charts.cpp the charts.
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "blur/blur_route.hpp"
#include "clforge/version.hpp"
#include "host/fft.hpp"
#include "runtime/files.hpp"
#include "tests/bench_support.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

[[maybe_unused]] std::string read_text(const std::string& path) {
  const auto t = detail::read_file(path);
  REQUIRE_MESSAGE(t.has_value(), "cannot read " << path);
  return *t;
}

// bench all's R2C, 2-D and 3-D FFT rows: clforge and every peer built in (FFTW on CPU devices)
// timed on each with its error within the tolerance of the case (fft_tolerance summed over the axes).
void check_fft_kinds(const nlohmann::json& ms, const DeviceInfo& dev) {
  std::set<std::string> libraries{"clforge"};
#if CLFORGE_HAVE_FFTWF
  if (dev.type == "CPU") libraries.insert("FFTW");
#endif
#if CLFORGE_HAVE_VKFFT
  libraries.insert("VkFFT");
#endif
#if CLFORGE_HAVE_CLFFT
  libraries.insert("clFFT");
#endif
  (void)dev;
  const std::map<std::string, double> tolerance{
      {"real n=64 batch=16", host::fft_tolerance(64)},
      {"2-D n=16x8 batch=4", host::fft_tolerance(16) + host::fft_tolerance(8)},
      {"3-D n=8x4x2 batch=2", host::fft_tolerance(8) + host::fft_tolerance(4) + host::fft_tolerance(2)}};
  std::map<std::string, std::set<std::string>> ok;  // shape -> libraries timed with a checked error
  for (const auto& m : ms) {
    const std::string library = m.at("library"), status = m.at("status"), shape = m.at("shape");
    if (m.at("routine") != "fft" || tolerance.count(shape) == 0) continue;
    CAPTURE(library);
    CAPTURE(shape);
    CAPTURE(status);
    if (status.rfind("ok", 0) != 0 || !m.at("error").is_number()) continue;
    CHECK(m.at("error").get<double>() <= tolerance.at(shape));
    ok[shape].insert(library);
  }
  for (const auto& [shape, tol] : tolerance) {
    CAPTURE(shape);
    CHECK(ok[shape] == libraries);
  }
}

[[maybe_unused]] std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

[[maybe_unused]] std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// A timed record whose quartiles lie `spread` x median apart, with an outlier repetition 40x
// the median (which the tolerance must not take in).
[[maybe_unused]] nlohmann::json measurement(const std::string& routine, const std::string& library,
                                            const std::string& shape, double median, double spread) {
  return {{"routine", routine},
          {"library", library},
          {"shape", shape},
          {"status", "ok"},
          {"median_ms", median},
          {"q1_ms", median * (1 - spread / 2)},
          {"q3_ms", median * (1 + spread / 2)},
          {"min_ms", median * (1 - spread)},
          {"max_ms", median * 40},
          {"reps", 20},
          {"spread", spread}};
}

[[maybe_unused]] void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  REQUIRE(f.good());
}

}  // namespace

TEST_SUITE("bench_all") {
#ifdef CLFORGE_CLI
  TEST_CASE("bench all --quick with tiny sizes: results.json, results.csv, report.md and SVG charts") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("bench-all") + "/results";
    // sgemm's second size fails after a good one (its tiled kernels do not build: 64^3 takes the
    // direct kernel, 200^3 a tiled one): the routine stops with a failed record and the run goes
    // on with fft and blur.
    const std::string broken = test::temp_dir("bench-all-kernels");
    detail::write_file_atomic(broken + "/sgemm/xgemm.cl", "this is not OpenCL C\n");
    detail::write_file_atomic(broken + "/sgemm/stream.cl", "this is not OpenCL C\n");
    const std::string cmd = "CLFORGE_KERNEL_DIR='" + broken + "' " + std::string(CLFORGE_CLI) +
                            " bench all --quick --devices " + s.entry.info.index_string() + " --out '" + dir +
                            "' --size transpose:64 --size transpose:100x37 --size sgemm:64 --size sgemm:200"
                            " --size fft:64,batch=16 --size fft:64,batch=16,real --size fft:16x8,batch=4"
                            " --size fft:8x4x2,batch=2 --size blur:64x48 --sigmas 1,3"
                            " --methods direct,separable,recursive";
    std::string log;
    const int rc = test::run_command(cmd, log);
    INFO(log);
    REQUIRE(rc == 0);

    // results.json: header, device, peaks, every routine, sizes and parameter sources.
    const nlohmann::json j = nlohmann::json::parse(read_text(dir + "/results.json"));
    CHECK(j.at("clforge_version") == version_string);
    const std::string date = j.at("date");
    CHECK(date.size() == 20);
    CHECK(date.back() == 'Z');
    CHECK(j.at("command").get<std::string>().find("bench all") != std::string::npos);
    REQUIRE(j.at("devices").size() == 1);
    const nlohmann::json& d = j["devices"][0];
    CHECK(d.at("device").at("name") == s.entry.info.name);
    CHECK(d.at("driver") == s.entry.info.driver_version);
    CHECK(d.at("peaks").at("copy_gbps").get<double>() > 0);
    CHECK(d.at("peaks").at("fma_gflops").get<double>() > 0);
    for (const char* peer : {"CLBlast", "clFFT", "VkFFT"}) CHECK(d.at("peers").contains(peer));
    const nlohmann::json& ms = d.at("measurements");
    std::set<std::string> routines_ok, libraries;
    bool sgemm_failed = false, transpose_sources = false;
    for (const auto& m : ms) {
      const std::string routine = m.at("routine"), library = m.at("library"), shape = m.at("shape"),
                        status = m.at("status");
      CAPTURE(routine);
      CAPTURE(library);
      CAPTURE(shape);
      for (const char* key : {"median_ms", "min_ms", "max_ms", "q1_ms", "q3_ms", "reps", "spread", "error"})
        CHECK_MESSAGE(m.contains(key), key);
      // Values not measured are null, never 0.
      if (status.rfind("ok", 0) != 0 && m.at("median_ms").is_null()) {
        CHECK(m.at("reps").is_null());
        CHECK(m.at("gbps").is_null());
      } else {
        CHECK(m.at("median_ms").get<double>() > 0);
        CHECK(m.at("q1_ms").get<double>() <= m.at("median_ms").get<double>());
        CHECK(m.at("q3_ms").get<double>() >= m.at("median_ms").get<double>());
      }
      if (routine == "sgemm" && shape == "-" && status.rfind("failed: ", 0) == 0) sgemm_failed = true;
      if (routine == "peak" || shape == "-") continue;
      CHECK(m.at("size").get<double>() > 0);
      if (status == "ok") routines_ok.insert(routine);
      if (routine == "transpose" && library == "clforge")
        transpose_sources = m.at("params").at("TRA_TILE").contains("source");
      // One progress line per measurement: "<routine> <shape> <library>...".
      CHECK_MESSAGE(log.find(routine + " " + shape + " " + library) != std::string::npos, "no progress line");
      libraries.insert(routine + "/" + library);
    }
    CHECK(routines_ok == std::set<std::string>{"transpose", "sgemm", "fft", "blur"});
    // Provenance.
    for (const char* key : {"commit", "host", "os"}) CHECK_FALSE(j.at(key).get<std::string>().empty());
    CHECK(d.at("platform_version") == s.entry.info.platform_version);
    // Progress: 17 steps (peak probes; transpose 2, sgemm 2, fft 4 sizes; blur 1 image x 2 sigmas
    // x (3 methods + the peers)), every measurement line with its step and an ETA; sgemm stops at
    // its second size, the count goes on from fft.
    CHECK(log.find("[1/17, ETA -] [device 1/1] peak copy") != std::string::npos);
    CHECK(log.find("[2/17, ETA ") != std::string::npos);
    CHECK(log.find("[6/17, ETA ") != std::string::npos);
    CHECK(log.find("[17/17, ETA ") != std::string::npos);
    CHECK(log.find("/18, ETA") == std::string::npos);
    check_fft_kinds(ms, s.entry.info);
    // cuBLAS and cuFFT: rows in every build made with CLFORGE_WITH_CUDA (the default), their
    // libraries looked for at run time; where they are absent the rows and peers say so.
    for (const auto& [routine, peer] : {std::pair<std::string, std::string>{"sgemm", "cuBLAS"}, {"fft", "cuFFT"}}) {
      CAPTURE(peer);
      const std::string found = d.at("peers").at(peer);
      CAPTURE(found);
#if CLFORGE_TEST_CUDA_PEERS
      CHECK((found.rfind("not found (", 0) == 0 || found.rfind("CUDA ", 0) == 0));
      CHECK(libraries.count(routine + "/" + peer) == 1);
      for (const auto& m : ms) {
        if (m.at("library") != peer) continue;
        const std::string status = m.at("status");
        if (found.rfind("not found", 0) == 0)
          CHECK(status == "refused: " + found);
        else if (s.entry.info.vendor_class != VendorClass::NVIDIA)
          CHECK(status == "refused: the OpenCL device is not an NVIDIA GPU");
      }
#else
      CHECK(found == "not built");
      CHECK(libraries.count(routine + "/" + peer) == 0);
#endif
    }
    CHECK(sgemm_failed);
    CHECK(transpose_sources);
    test::check_peaks(d, s.entry.info);
    test::check_cpu_peers(d, s.entry.info);
    for (const char* h :
         {"[device 1/1] peak", "[device 1/1] transpose", "[device 1/1] sgemm", "[device 1/1] fft", "[device 1/1] blur"})
      CHECK_MESSAGE(log.find(h) != std::string::npos, h);

    // results.csv: a header and one row per record, the device first.
    std::istringstream csv(read_text(dir + "/results.csv"));
    std::string line;
    REQUIRE(std::getline(csv, line));
    CHECK(line.rfind("device,routine,library,shape,status,median_ms,min_ms", 0) == 0);
    for (const char* column :
         {",library_version,", ",driver,", ",platform_version,", ",clforge_version,", ",commit,", ",host,", ",os"})
      CHECK_MESSAGE(line.find(column) != std::string::npos, column);
    std::size_t rows = 0;
    while (std::getline(csv, line)) {
      CHECK(line.rfind("\"" + s.entry.info.name + "\",", 0) == 0);
      ++rows;
    }
    CHECK(rows == ms.size());

    // report.md: a table per routine; every linked chart exists.
    const std::string md = read_text(dir + "/report.md");
    CHECK(md.find("## Device 1: " + s.entry.info.name) != std::string::npos);
    CHECK(md.find("### Peaks") != std::string::npos);
    for (const char* r : {"transpose (GB/s)", "sgemm (GFLOP/s)", "fft (GB/s)"}) {
      const auto at = md.find(std::string("### ") + r);
      CHECK_MESSAGE(at != std::string::npos, r);
      if (at != std::string::npos) CHECK(md.find("\n| size |", at) != std::string::npos);
    }
    CHECK(md.find("% of copy bandwidth") != std::string::npos);
    CHECK(md.find("best of the FMA search: float") != std::string::npos);
    CHECK(md.find("Host to device ") != std::string::npos);
    CHECK(md.find("Kernel launch: ") != std::string::npos);
    CHECK(md.find("% of FMA peak") != std::string::npos);
    CHECK(md.find("clforge / best peer") != std::string::npos);
    const auto blur_at = md.find("### blur (MP/s)");
    REQUIRE(blur_at != std::string::npos);
    CHECK(md.find("| method / peer | sigma 1 | sigma 3 |", blur_at) != std::string::npos);
    CHECK(md.find("| OpenCV CPU |", blur_at) != std::string::npos);
#if CLFORGE_HAVE_OPENCV
    CHECK(md.find("clforge / best peer (MP/s of the method", blur_at) != std::string::npos);
#endif
    const auto stopped = md.find("the routine stopped: failed: ");
    CHECK(stopped != std::string::npos);
    if (stopped != std::string::npos) CHECK(md.find("sgemm_", stopped) < md.find('\n', stopped));

    std::set<std::string> linked;
    for (auto p = md.find("]("); p != std::string::npos; p = md.find("](", p + 2))
      linked.insert(md.substr(p + 2, md.find(')', p) - p - 2));
    for (const char* f : {"transpose_device1.svg", "sgemm_device1.svg", "fft_device1.svg", "blur_device1_64x48.svg",
                          "transpose_devices.svg", "sgemm_devices.svg", "fft_devices.svg", "blur_devices.svg"})
      CHECK_MESSAGE(linked.count(f) == 1, f);

    // Charts: whole SVG documents with the series of every library (blur: method) and a legend
    // (tests/test_bench_charts.cpp checks what they draw).
    for (const std::string& f : linked) {
      CAPTURE(f);
      const std::string svg = read_text(dir + "/" + f);
      CHECK(svg.rfind("<svg", 0) == 0);
      CHECK(trim_end(svg).size() >= 6);
      CHECK(trim_end(svg).substr(trim_end(svg).size() - 6) == "</svg>");
      CHECK(count_of(svg, "<path class=\"marker ") >= 1);
      const std::string routine = f.substr(0, f.find('_'));
      if (f.find("_devices") != std::string::npos) {
        CHECK(svg.find("data-label=\"1: " + s.entry.info.name) != std::string::npos);
        continue;
      }
      if (f.find("_ratio") != std::string::npos) continue;  // clforge only
      for (const std::string& rl : libraries) {
        if (rl.rfind(routine + "/", 0) != 0) continue;
        const std::string lib = rl.substr(routine.size() + 1);
        CHECK_MESSAGE(svg.find("<g class=\"series\" data-key=\"" + lib + "\"") != std::string::npos, lib);
      }
    }
  }

  TEST_CASE("bench all --no-peers: clforge's records alone, every routine timed") {
    // The cold-start protocol's default and tuned runs (tools/cold_start.py) take their peers from
    // the shipped run: no peer library runs, every routine still has its timed clforge records.
    auto& s = test::session();
    const std::string out = test::temp_dir("bench-no-peers") + "/results";
    const std::string cmd = std::string(CLFORGE_CLI) + " bench all --quick --no-peers --devices " +
                            s.entry.info.index_string() + " --out '" + out +
                            "' --size transpose:64 --size sgemm:64 --size fft:64,batch=16 --size fft:64,batch=16,real"
                            " --size blur:64x48 --sigmas 2 --methods separable";
    std::string log;
    const int rc = test::run_command(cmd, log);
    INFO(log);
    REQUIRE(rc == 0);
    const nlohmann::json j = nlohmann::json::parse(read_text(out + "/results.json"));
    std::map<std::string, std::size_t> timed;  // routine -> timed records
    for (const auto& m : j.at("devices").at(0).at("measurements")) {
      const std::string routine = m.at("routine"), library = m.at("library"), status = m.at("status");
      if (routine == "peak") continue;
      CAPTURE(routine);
      CAPTURE(library);
      CHECK(library == (routine == "blur" ? "separable" : "clforge"));
      if (status.rfind("ok", 0) == 0) ++timed[routine];
    }
    CHECK(timed == std::map<std::string, std::size_t>{{"blur", 1}, {"fft", 2}, {"sgemm", 1}, {"transpose", 1}});
  }

  TEST_CASE("bench fft --rounds: every library runs in each round and reports the median of its rounds") {
    auto& s = test::session();
    const std::string out = test::temp_dir("bench-rounds") + "/fft";
    const std::string cmd = std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() +
                            " bench fft --quick --rounds 3 --size 64,batch=16 --out '" + out + "'";
    std::string log;
    const int rc = test::run_command(cmd, log);
    INFO(log);
    REQUIRE(rc == 0);
    const nlohmann::json j = nlohmann::json::parse(read_text(out + "/results.json"));
    std::size_t timed = 0;
    for (const auto& m : j.at("measurements")) {
      if (m.at("routine") != "fft") continue;
      const std::string library = m.at("library"), status = m.at("status");
      CAPTURE(library);
      CAPTURE(status);
      if (status.rfind("ok", 0) != 0) continue;
      ++timed;
      for (int k = 1; k <= 3; ++k)
        CHECK(log.find("fft n=64 batch=16 " + library + " (round " + std::to_string(k) + "/3)") != std::string::npos);
      CHECK(log.find("fft n=64 batch=16 " + library + " (median of 3 rounds)") != std::string::npos);
      const std::vector<double> rounds = m.at("round_medians_ms");
      REQUIRE(rounds.size() == 3);
      std::vector<double> sorted = rounds;
      std::sort(sorted.begin(), sorted.end());
      CHECK(m.at("median_ms").get<double>() == doctest::Approx(sorted[1]));
      CHECK(m.at("min_ms").get<double>() <= sorted[0]);
      CHECK(m.at("max_ms").get<double>() >= sorted[2]);
    }
    CHECK(timed >= 2);  // clforge and at least one peer (clFFT and VkFFT are built in)
  }

  TEST_CASE("bench fft: real 2-D and 3-D cases, clforge and its peers checked against FFTW in double") {
    auto& s = test::session();
    const std::string out = test::temp_dir("bench-real-nd") + "/fft";
    const std::string cmd = std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() +
                            " bench fft --quick --size 16x12,batch=100,real --size 8x6x10,batch=3,real --out '" + out +
                            "'";
    std::string log;
    const int rc = test::run_command(cmd, log);
    INFO(log);
    REQUIRE(rc == 0);
    // Per case: its label, the tolerance, and the floats in and out of one transform (out: the
    // half spectrum, n_last/2 + 1 complex values per row).
    struct Expected {
      std::string prefix;
      double tolerance;
      double in_floats, out_floats;
    };
    const std::vector<Expected> cases{
        {"real 2-D n=16x12 batch=100", host::fft_tolerance(16) + host::fft_tolerance(12), 192, 2 * 16 * 7},
        {"real 3-D n=8x6x10 batch=3", host::fft_tolerance(8) + host::fft_tolerance(6) + host::fft_tolerance(10), 480,
         2 * 48 * 6}};
    const nlohmann::json j = nlohmann::json::parse(read_text(out + "/results.json"));
    for (const Expected& e : cases) {
      CAPTURE(e.prefix);
      std::set<std::string> timed;  // libraries with a checked error within the tolerance
      for (const auto& m : j.at("measurements")) {
        const std::string library = m.at("library"), shape = m.at("shape"), status = m.at("status");
        if (m.at("routine") != "fft" || shape.rfind(e.prefix, 0) != 0) continue;
        CAPTURE(library);
        CAPTURE(status);
        const double batch = std::stod(shape.substr(shape.find("batch=") + 6));
        CHECK(m.at("bytes").get<double>() == doctest::Approx(4 * (e.in_floats + e.out_floats) * batch));
        const double n = e.in_floats;
        CHECK(m.at("flops").get<double>() == doctest::Approx(2.5 * n * std::log2(n) * batch));
        if (status.rfind("ok", 0) != 0) continue;
        const bool checked = m.at("error").is_number() && m.at("error").get<double>() <= e.tolerance;
        CHECK_MESSAGE(checked, "error " << m.at("error").dump() << " against the tolerance " << e.tolerance);
        if (checked) timed.insert(library);
      }
      CHECK(timed.count("clforge") == 1);
#if CLFORGE_HAVE_FFTWF
      if (s.entry.info.type == "CPU") CHECK(timed.count("FFTW") == 1);
#endif
    }
  }

  TEST_CASE("bench fft: sizes it cannot measure are refused with the reason") {
    auto& s = test::session();
    for (const char* size : {"0", "4x4x4x4", "64,layout=interleaved"}) {
      CAPTURE(size);
      std::string log;
      const int rc = test::run_command(
          std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " bench fft --quick --size " + size,
          log);
      INFO(log);
      CHECK(rc == 2);
      CHECK(log.find(std::string("'") + size + "'") != std::string::npos);
    }
  }

  TEST_CASE("bench overhead: host time, device span and commands of every small call, side by side") {
    auto& s = test::session();
    const std::string out = test::temp_dir("bench-overhead") + "/overhead";
    const std::string cmd =
        std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " bench overhead --out '" + out + "'";
    std::string log;
    const int rc = test::run_command(cmd, log);
    INFO(log);
    REQUIRE(rc == 0);
    const nlohmann::json j = nlohmann::json::parse(read_text(out + "/results.json"));
    std::map<std::string, double> commands;
    for (const auto& m : j.at("measurements")) {
      if (m.at("routine") != "overhead") continue;
      const std::string shape = m.at("shape");
      CAPTURE(shape);
      const auto& p = m.at("params");
      CHECK(p.at("host_us_per_call").get<double>() > 0);
      CHECK(p.at("device_span_us_per_call").get<double>() > 0);
      CHECK(p.at("empty_launch_us").get<double>() > 0);
      CHECK(p.at("launches_alone_us_per_call").get<double>() > 0);
      CHECK(p.at("host_us_beyond_launches").get<double>() ==
            doctest::Approx(p.at("host_us_per_call").get<double>() - p.at("launches_alone_us_per_call").get<double>()));
      CHECK(p.at("host_us_beyond_empty_launches").get<double>() ==
            doctest::Approx(p.at("host_us_per_call").get<double>() -
                            p.at("commands_per_call").get<double>() * p.at("empty_launch_us").get<double>()));
      commands[shape] = p.at("commands_per_call").get<double>();
      CHECK(log.find(shape) != std::string::npos);
    }
    // One kernel for transpose, sgemm 64^3 (direct), the n = 64 FFT and the direct blur; two or
    // more passes for n = 65536 (passes on every shipped row); two passes for the separable blur,
    // one where the device's row fuses them (CPUs); more for the recursive one.
    BlurOptions bo;
    bo.method = BlurMethod::Separable;
    bo.sigma_x = bo.sigma_y = 2;
    const bool fused = detail::blur_route(s.entry.info, 64, 64, PixelFormat::R32F, bo, Tuning{}).fused;
    CHECK(commands.size() == 7);
    CHECK(commands["transpose 64x64"] == 1.0);
    CHECK(commands["fft n=64 batch=16"] == 1.0);
    CHECK(commands["fft n=65536 batch=1 (passes)"] >= 2.0);
    CHECK(commands["blur 64x64 direct"] == 1.0);
    CHECK(commands["blur 64x64 separable"] == (fused ? 1.0 : 2.0));
    CHECK(commands["blur 64x64 recursive"] > 2.0);
  }

  TEST_CASE("bench compare: a 2x slowdown is slower, identical results are not, --by shape, bad files exit 1") {
    const std::string dir = test::temp_dir("bench-compare");
    const std::string cli = std::string(CLFORGE_CLI) + " bench compare ";
    nlohmann::json old_m = nlohmann::json::array(), new_m = nlohmann::json::array();
    old_m.push_back(measurement("transpose", "clforge", "64x64", 1.0, 0.02));
    new_m.push_back(measurement("transpose", "clforge", "64x64", 2.0, 0.02));  // 2x slower
    old_m.push_back(measurement("sgemm", "clforge", "64x64x64", 1.0, 0.01));
    new_m.push_back(measurement("sgemm", "clforge", "64x64x64", 1.015, 0.01));  // within the 2% floor
    old_m.push_back(measurement("fft", "clforge", "n=64 batch=16", 1.0, 0.5));
    new_m.push_back(measurement("fft", "clforge", "n=64 batch=16", 1.3, 0.1));  // within the old run's spread
    old_m.push_back(measurement("fft", "clFFT", "n=64 batch=16", 1.0, 0.01));   // only in the old file
    new_m.push_back(measurement("blur", "separable", "64x48 s=1", 1.0, 0.01));  // only in the new file
    const auto doc = [](const nlohmann::json& m) {
      return nlohmann::json{{"clforge_version", version_string},
                            {"devices", {{{"device", {{"name", "Device A"}}}, {"measurements", m}}}}};
    };
    const std::string a = dir + "/old.json", b = dir + "/new.json";
    write_text(a, doc(old_m).dump(2));
    write_text(b, doc(new_m).dump(2));
    std::string out;

    int rc = test::run_command(cli + "'" + a + "' '" + b + "'", out);
    INFO(out);
    CHECK(rc == 1);
    std::istringstream lines(out);
    std::string transpose_line, sgemm_line, fft_line;
    for (std::string l; std::getline(lines, l);) {
      if (l.rfind("transpose ", 0) == 0) transpose_line = l;
      if (l.rfind("sgemm ", 0) == 0) sgemm_line = l;
      if (l.rfind("fft ", 0) == 0 && l.find(" clforge ") != std::string::npos) fft_line = l;
    }
    CHECK(transpose_line.find("slower 2.00x") != std::string::npos);
    CHECK(transpose_line.find("2.000") != std::string::npos);  // new/old time
    CHECK(transpose_line.find("4.0%") != std::string::npos);   // tolerance: spread old + spread new
    CHECK(sgemm_line.find("no change") != std::string::npos);  // within the 2 % floor
    CHECK(fft_line.find("no change") != std::string::npos);    // within the old run's spread
    CHECK(out.find("rule: a record is slower when") != std::string::npos);
    CHECK(out.find("only in " + a) != std::string::npos);
    CHECK(out.find("Device A / fft / clFFT / n=64 batch=16") != std::string::npos);
    CHECK(out.find("only in " + b) != std::string::npos);
    CHECK(out.find("Device A / blur / separable / 64x48 s=1") != std::string::npos);
    CHECK(out.find("3 matched: 1 slower, 0 faster, 2 no change,") != std::string::npos);
    CHECK(out.find("1 regression (") != std::string::npos);

    // Identical files: nothing flagged.
    rc = test::run_command(cli + "'" + a + "' '" + a + "'", out);
    CHECK(rc == 0);
    CHECK(out.find("4 matched: 0 slower, 0 faster, 4 no change,") != std::string::npos);

    // Another device: nothing matches by device; --by shape matches by routine, library and shape.
    nlohmann::json other_device = doc(new_m);
    other_device["devices"][0]["device"]["name"] = "Device B";
    const std::string c = dir + "/device_b.json";
    write_text(c, other_device.dump(2));
    rc = test::run_command(cli + "'" + a + "' '" + c + "'", out);
    CHECK(rc == 0);
    CHECK(out.find("0 matched") != std::string::npos);
    rc = test::run_command(cli + "--by shape '" + a + "' '" + c + "'", out);
    CHECK(rc == 1);
    CHECK(out.find("device: Device A (old) -> Device B (new)") != std::string::npos);
    CHECK(out.find("3 matched: 1 slower") != std::string::npos);

    // The single-device results.json of `bench ROUTINE --out DIR` compares too.
    const std::string single = dir + "/single.json";
    write_text(single, nlohmann::json{{"device", {{"name", "Device A"}}}, {"measurements", old_m}}.dump());
    rc = test::run_command(cli + "'" + single + "' '" + a + "'", out);
    CHECK(rc == 0);
    CHECK(out.find("4 matched") != std::string::npos);

    // Bad input: a failure (exit status 1) and a message naming the file.
    const std::string corrupt = dir + "/corrupt.json", missing = dir + "/missing.json", other = dir + "/other.json";
    write_text(corrupt, "{\"devices\": [ not json");
    write_text(other, "[1, 2, 3]");
    for (const std::string& bad : {corrupt, missing, other}) {
      CAPTURE(bad);
      rc = test::run_command(cli + "'" + a + "' '" + bad + "'", out);
      CHECK(rc == 1);
      CHECK(out.find(bad) != std::string::npos);
    }
    rc = test::run_command(cli + "'" + corrupt + "' '" + a + "'", out);
    CHECK(rc == 1);
    CHECK(out.find(corrupt) != std::string::npos);
  }

  TEST_CASE("bench report: report.md and every chart it links drawn again from a results.json") {
    const std::string dir = test::temp_dir("bench-report");
    const std::string results = std::string(CLFORGE_SOURCE_DIR) + "/docs/bench/h200/results.json";
    std::string out;
    int rc = test::run_command(std::string(CLFORGE_CLI) + " bench report '" + results + "' --out '" + dir + "/r'", out);
    INFO(out);
    REQUIRE(rc == 0);
    const std::string md = read_text(dir + "/r/report.md");
    CHECK(md.find("## Device 1: NVIDIA H200") != std::string::npos);
    CHECK(md.find("libcublas.so.13") != std::string::npos);  // the peers of that run, not of this machine
    // The charts linked are the ones published beside that results.json, each drawn again.
    std::set<std::string> linked, published;
    for (auto p = md.find("]("); p != std::string::npos; p = md.find("](", p + 2)) {
      const std::string f = md.substr(p + 2, md.find(')', p) - p - 2);
      CAPTURE(f);
      linked.insert(f);
      CHECK(read_text(dir + "/r/" + f).rfind("<svg ", 0) == 0);
    }
    if (DIR* d = opendir((std::string(CLFORGE_SOURCE_DIR) + "/docs/bench/h200").c_str())) {
      while (const dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n.size() > 4 && n.compare(n.size() - 4, 4, ".svg") == 0) published.insert(n);
      }
      closedir(d);
    }
    CHECK(published.size() >= 12);
    CHECK(linked == published);
    CHECK_FALSE(detail::read_file(dir + "/r/results.json").has_value());

    // Bad input: a message naming the file, nothing written.
    const std::string other = dir + "/other.json", missing = dir + "/missing.json";
    write_text(other, "{\"measurements\": []}");
    for (const std::string& bad : {other, missing}) {
      CAPTURE(bad);
      rc = test::run_command(std::string(CLFORGE_CLI) + " bench report '" + bad + "' --out '" + dir + "/bad'", out);
      CHECK(rc != 0);
      CHECK(out.find(bad) != std::string::npos);
      CHECK_FALSE(detail::read_file(dir + "/bad/report.md").has_value());
    }
  }
#endif
}
