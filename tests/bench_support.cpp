// Checks of bench all's results shared by the bench tests (see bench_support.hpp).
#include "tests/bench_support.hpp"

#include <dirent.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include "clforge/runtime.hpp"
#include "host/fft.hpp"

namespace clforge::test {

namespace {

[[maybe_unused]] bool has_wisdom_file(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (const dirent* e = readdir(d)) found = found || std::string(e->d_name).rfind("wisdom-float-", 0) == 0;
  closedir(d);
  return found;
}

// The "peak" records of one device in results.json by library.
std::map<std::string, nlohmann::json> peak_records(const nlohmann::json& device) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& m : device.at("measurements"))
    if (m.at("routine") == "peak") out[m.at("library").get<std::string>()] = m;
  return out;
}

double number(const nlohmann::json& m, const char* key) {
  REQUIRE_MESSAGE(m.at(key).is_number(), key << " of " << m.dump());
  return m.at(key).get<double>();
}

}  // namespace

void check_peaks(const nlohmann::json& d, const DeviceInfo& dev) {
  const auto peaks = peak_records(d);
  const nlohmann::json& p = d.at("peaks");
  // Copy: at least 4x the cache and 64 MiB (GPUs 512 MiB), unless the device's memory caps it
  // (a quarter of it, or the largest allocation).
  const double cache = number(p, "cache_bytes"), copy = number(p, "copy_buffer_bytes");
  const double cap = std::min<double>(dev.max_alloc_size, dev.global_mem_size / 4.0);
  const double floor = (dev.type == "GPU" ? 512.0 : 64.0) * (1 << 20);
  CHECK(cache > 0);
  CHECK(copy >= std::min(std::max(4 * cache, floor), cap) - 16);
  for (const char* lib : {"clEnqueueCopyBuffer", "copy kernel"}) {
    CAPTURE(lib);
    REQUIRE(peaks.count(lib) == 1);
    CHECK(peaks.at(lib).at("params").at("buffer_bytes").get<double>() == copy);
    CHECK(number(peaks.at(lib), "gbps") > 0);
  }
  // FMA: one record per vector width, "fma" the best of them and no lower than the scalar one.
  for (const char* lib : {"fma", "fma float1", "fma float2", "fma float4", "fma float8", "fma float16"}) {
    CAPTURE(lib);
    REQUIRE(peaks.count(lib) == 1);
    const auto& params = peaks.at(lib).at("params");
    for (const char* key : {"vector_width", "chains", "work_group_size", "work_items"})
      CHECK(params.at(key).get<double>() > 0);
    CHECK(number(peaks.at(lib), "gflops") > 0);
  }
  const nlohmann::json& fma = peaks.at("fma");
  CHECK(number(fma, "gflops") >= number(peaks.at("fma float1"), "gflops"));
  const std::string width = "fma float" + std::to_string(fma.at("params").at("vector_width").get<int>());
  CHECK(number(fma, "gflops") == number(peaks.at(width), "gflops"));
  CHECK(fma.at("params").at("searched").size() >= 7);  // 5 widths, then 2 more chain counts
  CHECK(number(p, "fma_gflops") == number(fma, "gflops"));
  const std::string config = p.at("fma_config");
  CHECK(config.rfind("float" + std::to_string(fma.at("params").at("vector_width").get<int>()) + " x ", 0) == 0);
  CHECK(fma.at("status").get<std::string>().find(config) != std::string::npos);
  // Host<->device, pinned and pageable, and launch latency.
  for (const char* memory : {"pinned", "pageable"})
    for (const char* way : {"host to device", "device to host", "both directions"}) {
      const std::string lib = std::string(way) + " (" + memory + ")";
      CAPTURE(lib);
      REQUIRE(peaks.count(lib) == 1);
      CHECK(number(peaks.at(lib), "gbps") > 0);
    }
  CHECK(number(p, "h2d_gbps") == number(peaks.at("host to device (pinned)"), "gbps"));
  CHECK(number(p, "d2h_gbps") == number(peaks.at("device to host (pinned)"), "gbps"));
  CHECK(number(p, "both_directions_gbps") == number(peaks.at("both directions (pinned)"), "gbps"));
  for (const char* lib : {"launch (host enqueue)", "launch (device gap)", "launch (enqueue + finish)"}) {
    CAPTURE(lib);
    REQUIRE(peaks.count(lib) == 1);
    CHECK(number(peaks.at(lib), "median_ms") > 0);
  }
  for (const char* key : {"launch_enqueue_us", "launch_gap_us", "launch_round_trip_us"}) CHECK(number(p, key) > 0);
  CHECK(number(p, "launch_round_trip_us") >= number(p, "launch_enqueue_us"));
}

void check_cpu_peers(const nlohmann::json& d, const DeviceInfo& dev) {
  std::size_t fftw_rows = 0;
  std::string openblas_core;
  for (const auto& m : d.at("measurements")) {
    const std::string library = m.at("library"), status = m.at("status");
    CAPTURE(m.dump());
    if (library == "FFTW") {
      ++fftw_rows;
      CHECK(status.rfind("ok (host wall clock, ", 0) == 0);
      const std::string shape = m.at("shape");  // "[KIND ]n=N[xM[xK]] batch=B"
      double tolerance = 0;                     // fft_tolerance summed over the axes
      std::istringstream dims(shape.substr(shape.find("n=") + 2));
      for (std::size_t len = 0; dims >> len;) {
        tolerance += host::fft_tolerance(len);
        if (dims.peek() != 'x') break;
        dims.get();
      }
      CHECK(number(m, "error") <= tolerance);
      CHECK(number(m, "median_ms") > 0);
      CHECK(m.at("params").at("threads").get<int>() >= 1);
    }
    if (library == "OpenBLAS" && m.at("routine") == "sgemm") {
      openblas_core = m.at("params").at("openblas_core");
      CHECK(status.find(openblas_core + " kernels") != std::string::npos);
      CHECK_FALSE(m.at("params").at("kernels_chosen").get<std::string>().empty());
    }
  }
  const std::string fftw_peer = d.at("peers").at("FFTW");
#if CLFORGE_HAVE_FFTWF
  CHECK(fftw_peer.rfind("fftw-3", 0) == 0);
  CHECK(fftw_peer.find(" threads") != std::string::npos);
  if (dev.type == "CPU") {
    CHECK(fftw_rows == 4);  // fft:64,batch=16, its real twin, 16x8,batch=4 and 8x4x2,batch=2
    if (!cache_dir().empty()) CHECK(has_wisdom_file(cache_dir() + "/fftw"));
  } else {
    CHECK(fftw_rows == 0);
  }
#else
  CHECK(fftw_peer == "not built");
  CHECK(fftw_rows == 0);
#endif
  const std::string openblas_peer = d.at("peers").at("OpenBLAS");
  if (dev.type == "CPU" && openblas_peer != "not found") {
    REQUIRE_FALSE(openblas_core.empty());
    CHECK(openblas_peer.find("; kernels " + openblas_core + " (") != std::string::npos);
  }
}

}  // namespace clforge::test
