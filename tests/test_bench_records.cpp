// Benchmark records without a device: values not measured read back as missing from JSON
// (null) and CSV (empty), every result names its version, commit, host, OS, driver, platform
// and peer versions, and bench compare's per-record tolerance: two runs of the same code with
// realistic scatter (outliers included) show no change, a 20 % slowdown injected into one
// record is flagged, and --by shape matches two devices' records; bench fft's cases read from
// the size grammar (complex, real, 2-D, 3-D) with their labels, bytes and refusals.
#include <doctest/doctest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "bench/bench_all.hpp"
#include "bench/fft_peers.hpp"
#include "clforge/version.hpp"
#include "host/fft.hpp"

using namespace clforge;
using namespace clforge::bench;

namespace {

DeviceInfo device_named(const std::string& name) {
  DeviceInfo d;
  d.name = name;
  d.platform_name = "Test platform";
  d.platform_version = "OpenCL 3.0 test " + name;
  d.driver_version = "driver of " + name;
  d.type = "GPU";
  return d;
}

// Fields of one CSV line (quoted fields may hold commas and doubled quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += '"', ++i;
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// CSV text as rows of column name -> field.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  REQUIRE(std::getline(in, line));
  const std::vector<std::string> header = csv_fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    REQUIRE(f.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size(); ++i) row[header[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

// A record timed like a benchmark: `rounds` rounds of `reps` repetitions around `true_ms`, each
// repetition with lognormal scatter `noise`, each round shifted by up to +-`drift` (a shared CPU's
// speed moving between rounds), one repetition in ten a preemption (3x to 30x, as seen on shared
// machines); the record's median is the median of the round medians, as bench fft merges rounds.
Record timed_record(const std::string& routine, const std::string& library, const std::string& shape, double true_ms,
                    double noise, int reps, int rounds, double drift, std::mt19937_64& rng) {
  Record r = Record::of(routine, library, shape);
  r.bytes = 1e8;
  r.error = 1e-7;
  std::normal_distribution<double> scatter(0, noise);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> medians, q1, q3, all;
  for (int k = 0; k < rounds; ++k) {
    const double shift = 1 + drift * (2 * uniform(rng) - 1);
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
      double ms = true_ms * shift * std::exp(scatter(rng));
      if (uniform(rng) < 0.1) ms *= 3 + 27 * uniform(rng);
      samples.push_back(ms);
    }
    const Timing t = summarize(samples);
    medians.push_back(t.median_ms);
    q1.push_back(t.q1_ms);
    q3.push_back(t.q3_ms);
    all.insert(all.end(), samples.begin(), samples.end());
  }
  const Timing whole = summarize(all);
  r.timing = summarize(medians);
  r.timing.q1_ms = summarize(q1).median_ms;
  r.timing.q3_ms = summarize(q3).median_ms;
  r.timing.min_ms = whole.min_ms;
  r.timing.max_ms = whole.max_ms;
  r.timing.reps = whole.reps;
  if (rounds > 1) r.round_medians_ms = medians;
  return r;
}

// What one run of a small suite measures, `slow` naming the shape made 20 % slower.
struct Case {
  std::string routine, library, shape;
  double ms, noise;
  int reps, rounds;
  double drift;
};
const std::vector<Case>& suite() {
  static const std::vector<Case> cases{
      // A GPU: tight repetitions, one round.
      {"transpose", "clforge", "4096x4096", 0.21, 0.01, 50, 1, 0},
      {"transpose", "CLBlast", "4096x4096", 0.23, 0.01, 50, 1, 0},
      {"sgemm", "clforge", "4096x4096x4096", 2.9, 0.008, 20, 1, 0},
      {"sgemm", "CLBlast", "4096x4096x4096", 4.4, 0.008, 20, 1, 0},
      {"blur", "separable", "4096x4096 s=5", 0.6, 0.015, 40, 1, 0},
      // A shared CPU: looser repetitions, three rounds drifting by up to 3 %.
      {"fft", "clforge", "n=1024 batch=8192", 12.0, 0.04, 10, 3, 0.03},
      {"fft", "clFFT", "n=1024 batch=8192", 19.0, 0.04, 10, 3, 0.03},
      {"fft", "VkFFT", "n=1024 batch=8192", 15.0, 0.05, 10, 3, 0.03},
  };
  return cases;
}

AllResults run_of(const std::string& device, std::uint64_t seed, const std::string& slower_library = "",
                  double factor = 1.2) {
  std::mt19937_64 rng(seed);
  AllResults res;
  res.clforge_version = version_string;
  res.provenance = provenance();
  DeviceRun run(device_named(device));
  for (const Case& c : suite()) {
    const double ms = c.library == slower_library ? c.ms * factor : c.ms;
    run.report.add(timed_record(c.routine, c.library, c.shape, ms, c.noise, c.reps, c.rounds, c.drift, rng));
  }
  res.devices.push_back(std::move(run));
  return res;
}

std::string shell_line(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char b[256];
    while (std::fgets(b, sizeof b, p) != nullptr) out += b;
    if (pclose(p) != 0) return "";
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

TEST_SUITE("bench_records") {
  TEST_CASE("values not measured are null in JSON, empty in CSV, and read back as missing") {
    Report report(device_named("Device A"));
    Record refused = Record::of("transpose", "CLBlast", "1000x999");
    refused.status = "refused: CLBlast status -2048";
    refused.bytes = 8e6;
    report.add(refused);
    Record failed = Record::of("fft", "clforge", "n=64 batch=16");
    failed.status = "failed: error nan above the tolerance";
    failed.error = std::nan("");
    report.add(failed);
    Record ok = Record::of("transpose", "clforge", "1000x999");
    ok.bytes = 8e6;
    ok.timing = summarize({0.50, 0.52, 0.49, 0.51, 0.90, 0.50, 0.48});
    ok.error = 0;
    report.add(ok);

    const nlohmann::json j = report.to_json();
    const nlohmann::json& ms = j.at("measurements");
    REQUIRE(ms.size() == 3);
    for (int i : {0, 1}) {
      CAPTURE(i);
      for (const char* key : {"median_ms", "min_ms", "max_ms", "q1_ms", "q3_ms", "round_medians_ms", "reps", "spread",
                              "gbps", "gflops", "error"}) {
        CAPTURE(key);
        REQUIRE(ms[i].contains(key));
        CHECK(ms[i][key].is_null());
      }
      const Record back = record_from_json(nlohmann::json::parse(ms[i].dump()));
      CHECK_FALSE(back.measured());
      CHECK_FALSE(back.error_checked());
      CHECK(back.status == report.records()[i].status);
    }
    // The measured record: every timing field a number; no flops, so GFLOP/s is null.
    CHECK(ms[2].at("median_ms").get<double>() == doctest::Approx(0.50));
    CHECK(ms[2].at("q1_ms").get<double>() == doctest::Approx(0.495));
    CHECK(ms[2].at("q3_ms").get<double>() == doctest::Approx(0.515));
    CHECK(ms[2].at("gbps").get<double>() == doctest::Approx(8e6 / 0.50 / 1e6));
    CHECK(ms[2].at("gflops").is_null());
    CHECK(ms[2].at("error").get<double>() == 0);
    const Record back = record_from_json(nlohmann::json::parse(ms[2].dump()));
    CHECK(back.measured());
    CHECK(back.timing.max_ms == doctest::Approx(0.90));
    CHECK(back.timing.reps == 7);
    // The spread ignores the 0.90 outlier: (q3 - q1) / median.
    CHECK(back.spread() == doctest::Approx(0.02 / 0.50));

    const auto rows = csv_rows(report.to_csv());
    REQUIRE(rows.size() == 3);
    for (int i : {0, 1}) {
      CAPTURE(i);
      for (const char* key : {"median_ms", "min_ms", "max_ms", "q1_ms", "q3_ms", "round_medians_ms", "reps", "gbps",
                              "gflops", "error", "spread"}) {
        CAPTURE(key);
        CHECK(rows[i].at(key).empty());
      }
    }
    CHECK(rows[0].at("status") == "refused: CLBlast status -2048");
    CHECK(std::stod(rows[2].at("median_ms")) == doctest::Approx(0.50));
    CHECK(std::stod(rows[2].at("reps")) == 7);
    CHECK(rows[2].at("gflops").empty());
    CHECK(std::stod(rows[2].at("error")) == 0);
  }

  TEST_CASE("results name the clforge version, commit, host, OS, driver, platform and peer versions") {
    AllResults res = run_of("Device A", 1);
    res.date = "2026-01-01T00:00:00Z";
    char host[256] = {};
    REQUIRE(gethostname(host, sizeof host - 1) == 0);
    utsname u{};
    REQUIRE(uname(&u) == 0);
    const Provenance p = provenance();
    CHECK(p.clforge_version == version_string);
    CHECK(p.host == host);
    CHECK(p.os.rfind(std::string(u.sysname) + " " + u.release, 0) == 0);
    // The commit embedded at build time: this source tree's HEAD when it is a git work tree
    // ("-dirty" after it when tracked files had changes), else "unknown".
    const std::string top = shell_line("git -C '" CLFORGE_SOURCE_DIR "' rev-parse --show-toplevel 2>/dev/null");
    const std::string head = shell_line("git -C '" CLFORGE_SOURCE_DIR "' rev-parse HEAD 2>/dev/null");
    if (!top.empty() && !head.empty() && shell_line("cd '" CLFORGE_SOURCE_DIR "' && pwd -P") == top)
      CHECK((p.commit == head || p.commit == head + "-dirty"));
    else
      CHECK(p.commit == "unknown");

    const nlohmann::json j = results_json(res);
    CHECK(j.at("clforge_version") == version_string);
    CHECK(j.at("commit") == p.commit);
    CHECK(j.at("host") == p.host);
    CHECK(j.at("os") == p.os);
    const nlohmann::json& d = j.at("devices").at(0);
    CHECK(d.at("driver") == "driver of Device A");
    CHECK(d.at("platform_version") == "OpenCL 3.0 test Device A");
    const nlohmann::json peers = peer_versions();
    for (const char* peer : {"CLBlast", "clFFT", "VkFFT", "OpenBLAS"}) {
      CAPTURE(peer);
      REQUIRE(d.at("peers").contains(peer));
      CHECK(d.at("peers").at(peer) == peers.at(peer));
      CHECK_FALSE(d.at("peers").at(peer).get<std::string>().empty());
    }
    // One bench command's JSON carries the same.
    const nlohmann::json single = res.devices[0].report.to_json();
    for (const char* key : {"clforge_version", "commit", "host", "os"}) CHECK(single.at(key) == j.at(key));
    CHECK(single.at("peers") == peers);

    const auto rows = csv_rows(results_csv(res));
    REQUIRE(rows.size() == suite().size());
    for (const auto& row : rows) {
      CAPTURE(row.at("library"));
      CHECK(row.at("driver") == "driver of Device A");
      CHECK(row.at("platform_version") == "OpenCL 3.0 test Device A");
      CHECK(row.at("clforge_version") == version_string);
      CHECK(row.at("commit") == p.commit);
      CHECK(row.at("host") == p.host);
      CHECK(row.at("os") == p.os);
      const std::string& lib = row.at("library");
      if (lib == "clforge" || row.at("routine") == "blur")
        CHECK(row.at("library_version") == version_string);
      else
        CHECK(row.at("library_version") == peers.at(lib).get<std::string>());
    }
  }

  TEST_CASE("compare: two runs of the same code show no change; a 20 % slowdown in one record is flagged") {
    const nlohmann::json a = results_json(run_of("Device A", 11));
    const nlohmann::json b = results_json(run_of("Device A", 12));  // same code, other scatter
    const Comparison same = compare_json(a, b);
    REQUIRE(same.rows.size() == suite().size());
    CHECK(same.only_old.empty());
    CHECK(same.only_new.empty());
    CHECK(same.regressions() == 0);
    for (const CompareRow& r : same.rows) {
      CAPTURE(r.old_record.library);
      CAPTURE(r.ratio);
      CAPTURE(r.tolerance);
      CHECK(r.verdict == CompareRow::Verdict::NoChange);
      CHECK(r.verdict_text() == "no change");
      // The preemptions stretch max - min to several times the median; the tolerance stays
      // well below the 20 % it must be able to see.
      CHECK((r.old_record.timing.max_ms - r.old_record.timing.min_ms) / r.old_record.timing.median_ms > 1);
      CHECK(r.tolerance >= 0.02);
      CHECK(r.tolerance < 0.15);
    }

    // The same second run with clFFT (a CPU row: three drifting rounds) 20 % slower and
    // CLBlast 20 % faster.
    AllResults changed = run_of("Device A", 12, "clFFT");
    const AllResults faster = run_of("Device A", 12, "CLBlast", 1 / 1.2);
    DeviceRun mixed(device_named("Device A"));
    for (std::size_t i = 0; i < suite().size(); ++i)
      mixed.report.add(suite()[i].library == "CLBlast" ? faster.devices[0].report.records()[i]
                                                       : changed.devices[0].report.records()[i]);
    changed.devices.clear();
    changed.devices.push_back(std::move(mixed));
    const Comparison c = compare_json(a, results_json(changed));
    REQUIRE(c.rows.size() == suite().size());
    CHECK(c.regressions() == 1);
    for (const CompareRow& r : c.rows) {
      const std::string& lib = r.old_record.library;
      CAPTURE(lib);
      CAPTURE(r.ratio);
      CAPTURE(r.tolerance);
      if (lib == "clFFT") {
        CHECK(r.verdict == CompareRow::Verdict::Slower);
        CHECK(r.ratio == doctest::Approx(1.2).epsilon(0.06));
        char text[32];
        std::snprintf(text, sizeof text, "slower %.2fx", r.ratio);
        CHECK(r.verdict_text() == text);
      } else if (lib == "CLBlast") {
        CHECK(r.verdict == CompareRow::Verdict::Faster);
        CHECK(1 / r.ratio == doctest::Approx(1.2).epsilon(0.03));
      } else {
        CHECK(r.verdict == CompareRow::Verdict::NoChange);
      }
    }
  }

  TEST_CASE("compare: a record timed before and refused now is a regression") {
    AllResults before = run_of("Device A", 5), after = run_of("Device A", 6);
    Record refused = Record::of("sgemm", "CLBlast", "4096x4096x4096");
    refused.status = "refused: CLBlast status -2048";
    DeviceRun run(device_named("Device A"));
    for (const Record& r : after.devices[0].report.records())
      run.report.add(r.library == "CLBlast" && r.routine == "sgemm" ? refused : r);
    after.devices.clear();
    after.devices.push_back(std::move(run));
    const Comparison c = compare_json(results_json(before), results_json(after));
    CHECK(c.regressions() == 1);
    for (const CompareRow& r : c.rows)
      if (r.old_record.routine == "sgemm" && r.old_record.library == "CLBlast") {
        CHECK(r.verdict == CompareRow::Verdict::Lost);
        CHECK(r.verdict_text() == "not timed now (refused: CLBlast status -2048)");
      }
  }

  TEST_CASE("compare --by shape matches two devices' records by routine, library and shape") {
    const nlohmann::json gpu = results_json(run_of("NVIDIA H100 80GB HBM3", 21));
    // The CPU: every record 10x slower.
    AllResults cpu_run;
    {
      std::mt19937_64 rng(22);
      DeviceRun run(device_named("cpu-haswell-AMD EPYC"));
      for (const Case& c : suite())
        run.report.add(timed_record(c.routine, c.library, c.shape, 10 * c.ms, c.noise, c.reps, c.rounds, c.drift, rng));
      cpu_run.devices.push_back(std::move(run));
    }
    const nlohmann::json cpu = results_json(cpu_run);

    const Comparison by_device = compare_json(gpu, cpu);
    CHECK(by_device.rows.empty());
    CHECK(by_device.only_old.size() == suite().size());
    CHECK(by_device.only_new.size() == suite().size());

    CompareOptions o;
    o.by_shape = true;
    const Comparison by_shape = compare_json(gpu, cpu, o);
    REQUIRE(by_shape.rows.size() == suite().size());
    CHECK(by_shape.only_old.empty());
    CHECK(by_shape.only_new.empty());
    for (std::size_t i = 0; i < suite().size(); ++i) {
      const CompareRow& r = by_shape.rows[i];
      CAPTURE(r.old_record.library);
      CHECK(r.old_device == "NVIDIA H100 80GB HBM3");
      CHECK(r.new_device == "cpu-haswell-AMD EPYC");
      CHECK(r.old_record.routine == suite()[i].routine);
      CHECK(r.new_record.library == suite()[i].library);
      CHECK(r.new_record.shape == suite()[i].shape);
      CHECK(r.verdict == CompareRow::Verdict::Slower);
      CHECK(r.ratio == doctest::Approx(10).epsilon(0.1));
    }
  }

  TEST_CASE("progress: ETA text") {
    CHECK(duration_text(0) == "0s");
    CHECK(duration_text(42.4) == "42s");
    CHECK(duration_text(65) == "1m05s");
    CHECK(duration_text(3725) == "1h02m");
  }

  TEST_CASE("bench fft cases: the size grammar's complex and real 1-D, 2-D and 3-D cases, labels, bytes, refusals") {
    FftCase c = FftCase::parse("1024");  // 64 MiB of complex input
    CHECK((c.shape == std::vector<std::size_t>{1024} && c.batch == 8192 && !c.real));
    CHECK(c.label() == "n=1024 batch=8192");
    CHECK(c.text() == "1024,batch=8192");
    CHECK(FftCase::parse("1024", std::size_t{1} << 20).batch == 128);  // a device's max_alloc_size
    c = FftCase::parse("1000,batch=8,real");
    CHECK((c.in_floats() == 1000 && c.out_floats() == 1002 && c.in_bytes() == 32000 && c.out_bytes() == 32064));
    CHECK(c.label() == "real n=1000 batch=8");
    CHECK(c.text() == "1000,batch=8,real");
    CHECK(FftCase::parse(c.text()).label() == c.label());
    CHECK(FftCase::parse("1024,real").batch == (std::size_t{64} << 20) / (8 * 513));  // 64 MiB of output
    c = FftCase::parse("256x256,mib=1");
    CHECK((c.shape == std::vector<std::size_t>{256, 256} && c.batch == 2 && c.points() == 65536));
    CHECK(c.label() == "2-D n=256x256 batch=2");
    CHECK(c.tolerance() == doctest::Approx(2 * host::fft_tolerance(256)));
    c = FftCase::parse("8x4x2,batch=3");
    CHECK(c.label() == "3-D n=8x4x2 batch=3");
    CHECK(c.out_bytes() == 3 * 64 * 8);
    Record r = Record::of("fft", "clforge", c.label());
    CHECK((size_key(r) == 64 && fft_kind(r) == "3-D"));
    r = Record::of("fft", "clforge", "real n=1000 batch=8");
    CHECK((size_key(r) == 1000 && fft_kind(r) == "real"));
    r = Record::of("fft", "clforge", "n=64 batch=16");
    CHECK((size_key(r) == 64 && fft_kind(r).empty()));
    // Real 2-D and 3-D: points() floats in, the half spectrum out (n_last/2 + 1 complex values per row).
    c = FftCase::parse("16x12,real");
    CHECK((c.shape == std::vector<std::size_t>{16, 12} && c.real && c.points() == 192));
    CHECK((c.in_floats() == 192 && c.out_floats() == 2 * 16 * 7));
    CHECK(c.batch == (std::size_t{64} << 20) / (4 * 224));  // 64 MiB of output, the larger buffer
    CHECK(c.label() == "real 2-D n=16x12 batch=" + std::to_string(c.batch));
    CHECK(c.text() == "16x12,batch=" + std::to_string(c.batch) + ",real");
    CHECK(FftCase::parse(c.text()).label() == c.label());
    CHECK(c.tolerance() == doctest::Approx(host::fft_tolerance(16) + host::fft_tolerance(12)));
    r = Record::of("fft", "clforge", c.label());
    CHECK((size_key(r) == 192 && fft_kind(r) == "real 2-D"));
    c = FftCase::parse("8x6x10,batch=3,real");
    CHECK((c.in_bytes() == 3 * 480 * 4 && c.out_bytes() == 3 * 2 * 48 * 6 * 4));
    CHECK(c.label() == "real 3-D n=8x6x10 batch=3");
    CHECK(c.text() == "8x6x10,batch=3,real");
    CHECK(FftCase::parse(c.text()).text() == c.text());
    r = Record::of("fft", "clforge", c.label());
    CHECK((size_key(r) == 480 && fft_kind(r) == "real 3-D"));
    CHECK(FftCase::parse("64x9,batch=2,real").out_floats() == 2 * 64 * 5);  // odd last axis
    for (const char* bad : {"0", "64x0", "4x4x4x4", "64,layout=interleaved", "64@4", "64x16x8,mib=0"}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(FftCase::parse(bad), InvalidArgument);
    }
    // The default lists: R2C at the complex lengths (GPUs) and the N-D shapes, complex and real,
    // within max_alloc_size.
    const auto count = [](const std::vector<std::string>& v, const std::string& end) {
      return std::count_if(v.begin(), v.end(), [&](const std::string& t) {
        return t.size() >= end.size() && t.compare(t.size() - end.size(), end.size(), end) == 0;
      });
    };
    DeviceInfo gpu = device_named("GPU");
    gpu.max_alloc_size = std::size_t{4} << 30;
    BenchOptions o;
    std::vector<std::string> sizes = fft_sizes(o, gpu);
    CHECK(count(sizes, ",real") == 23 + 6);
    for (const char* t : {"1024x1024,batch=1", "4096x4096,batch=1", "8192x8192,batch=1", "1000x1000,batch=1",
                          "256x256x256,batch=1", "256x256,batch=64"}) {
      CAPTURE(t);
      CHECK(count(sizes, t) == 1);
      CHECK(count(sizes, t + std::string(",real")) == 1);
    }
    CHECK(fft_cases(o, gpu) == sizes.size());
    gpu.max_alloc_size = std::size_t{256} << 20;
    sizes = fft_sizes(o, gpu);
    CHECK(count(sizes, "8192x8192,batch=1") == 0);       // 512 MiB buffers
    CHECK(count(sizes, "8192x8192,batch=1,real") == 0);  // 256 MiB + 64 KiB of output
    CHECK(count(sizes, "4096x4096,batch=1,real") == 1);
    DeviceInfo cpu = gpu;
    cpu.type = "CPU";
    sizes = fft_sizes(o, cpu);
    CHECK((count(sizes, ",real") == 9 + 4 && count(sizes, "4096x4096,batch=1") == 0 &&
           count(sizes, "x128,batch=1") == 1 && count(sizes, "x128,batch=1,real") == 1));
    o.quick = true;
    sizes = fft_sizes(o, cpu);
    CHECK((count(sizes, ",real") == 3 + 4 && count(sizes, "32x32x32,batch=1") == 1 &&
           count(sizes, "32x32x32,batch=1,real") == 1 && count(sizes, "256x256,batch=1,real") == 1));
    CHECK(fft_cases(o, cpu) == sizes.size());
  }
}
