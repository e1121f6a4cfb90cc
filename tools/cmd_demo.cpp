// `clforge demo`: runs each routine once on the chosen device on random data, checks it
// against the host reference and says what it computed and how fast.
#include <cstdio>
#include <cstring>

#include "bench/peak.hpp"
#include "host/data.hpp"
#include "host/reference.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

void demo_transpose(Session& s) {
  const std::size_t rows = 2048, cols = 1536, n = rows * cols;
  std::vector<float> in = host::random_floats(n, 1), ref(n);
  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, in.data());
  std::vector<float> out = host::poisoned(n);
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, out.data());
  transpose(s.queue, rows, cols, 4, {bin, 0, cols}, {bout, 0, rows});
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, n * 4, out.data());
  host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
  const bool exact = std::memcmp(out.data(), ref.data(), n * 4) == 0;
  const auto t = bench::time_event(s.queue, [&] {
    cl::Event e;
    transpose(s.queue, rows, cols, 4, {bin, 0, cols}, {bout, 0, rows}, {}, &e);
    return e;
  });
  std::printf("transpose  %zu x %zu floats: %8.3f ms, %7.1f GB/s, result %s\n", rows, cols, t.median_ms,
              2.0 * n * 4 / t.median_ms / 1e6, exact ? "exact (matches host transpose)" : "WRONG");
  if (!exact) throw Error("demo: transpose result differs from the host reference");
}

void cmd_demo(Globals& g) {
  Session& s = g.session();
  const DeviceInfo& d = s.entry.info;
  std::printf("clforge %s demo on \"%s\" (%s %s, %u compute units, driver %s)\n", version_string, d.name.c_str(),
              d.vendor_key().c_str(), d.type.c_str(), d.compute_units, d.driver_version.c_str());
  bench::Report report(d);
  const auto peaks = bench::measure_peaks(s, report, 64u << 20, false);
  std::printf("peaks      copy %.1f GB/s, FMA %.1f GFLOP/s\n", peaks.copy_gbps, peaks.fma_gflops);
  demo_transpose(s);
}

void register_demo(Apps& apps, Globals& g) {
  apps.root->add_subcommand("demo", "run each routine once: what it computes, how fast, checked against the host")
      ->callback([&g] { cmd_demo(g); });
}
CLFORGE_CLI_COMMANDS(register_demo);

}  // namespace
}  // namespace clforge::cli
