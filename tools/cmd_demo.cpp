// `clforge demo`: runs each routine once on the chosen device on fresh random data, checks it
// against the host reference with the tolerance the tests use (transpose: exact) and prints one
// line each: what it computed, the median time of a few runs, throughput and the error. Any
// WRONG line makes the command fail, after every line is printed.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "bench/peak.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"
#include "runtime/errors.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

// An error measure of one result and its bound; tolerance 0 asks for an exact result (error:
// the number of differing elements).
struct Check {
  double error = 0, tolerance = 0;
  const char* measure = "rel err";
};

// NaN when the result holds NaN or Inf, so that the check fails.
double error_of(const host::Comparison& c) { return c.nonfinite ? std::nan("") : c.rel_error; }

struct Demo {
  Session& s;
  std::uint64_t seed;
  int lines = 0, failures = 0;

  cl::Buffer buffer(const std::vector<float>& data) {
    cl_int st = CL_SUCCESS;
    cl::Buffer b(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * 4, const_cast<float*>(data.data()),
                 &st);
    detail::check(st, "clCreateBuffer", "demo buffer");
    return b;
  }
  std::vector<float> read(const cl::Buffer& b, std::size_t floats) {
    std::vector<float> v(floats);
    detail::check(s.queue.enqueueReadBuffer(b, CL_TRUE, 0, floats * 4, v.data()), "clEnqueueReadBuffer");
    return v;
  }

  // Times what `enqueue` puts on the queue (median of 5 runs after a warm-up) and prints the
  // line of one checked result; bytes or flops 0: not shown.
  void row(const std::string& what, double bytes, double flops, const Check& c, const std::function<void()>& enqueue) {
    const bench::Timing t = bench::time_region(s.queue, enqueue, bench::TimingPlan{1, 5, 5, 0, 0});
    const bool ok = c.error <= c.tolerance;  // false for NaN
    char gbps[32] = "", gflops[32] = "", err[64];
    if (bytes > 0) std::snprintf(gbps, sizeof gbps, "%.1f GB/s", bytes / t.median_ms / 1e6);
    if (flops > 0) std::snprintf(gflops, sizeof gflops, "%.1f GFLOP/s", flops / t.median_ms / 1e6);
    if (c.tolerance > 0)
      std::snprintf(err, sizeof err, "%s %.2e (tol %.2e)", c.measure, c.error, c.tolerance);
    else if (ok)
      std::snprintf(err, sizeof err, "exact");
    else
      std::snprintf(err, sizeof err, "%.0f elements differ", c.error);
    std::printf("%-46s %9.3f ms %11s %14s  %-34s %s\n", what.c_str(), t.median_ms, gbps, gflops, err,
                ok ? "ok" : "WRONG");
    std::fflush(stdout);
    ++lines;
    failures += ok ? 0 : 1;
  }

  // Runs one routine's part; an exception (a build error, say) becomes a WRONG line and the demo
  // goes on with the next routine.
  void guarded(const char* routine, const std::function<void()>& part) {
    try {
      part();
    } catch (const Error& e) {
      std::printf("%-46s WRONG: %s\n", routine, e.what());
      ++lines;
      ++failures;
    }
  }

  void transpose_float() {
    const std::size_t rows = 2048, cols = 1536, n = rows * cols;
    const std::vector<float> in = host::random_floats(n, seed);
    std::vector<float> ref(n);
    host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
    const cl::Buffer bin = buffer(in), bout = buffer(host::poisoned(n));
    const auto run = [&] { transpose(s.queue, rows, cols, 4, {bin, 0, cols}, {bout, 0, rows}); };
    run();
    const std::vector<float> out = read(bout, n);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) differ += out[i] == ref[i] ? 0 : 1;  // NaN (unwritten) differs
    row("transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " float", 8.0 * n, 0,
        {static_cast<double>(differ), 0}, run);
  }

  void sgemm_nt() {
    host::GemmShape g;
    g.row_major = true;
    g.trans_b = true;
    g.m = 1024, g.n = 768, g.k = 512;
    g.lda = g.k, g.ldb = g.k, g.ldc = g.n;
    const float alpha = 0.75f, beta = -0.5f;
    const std::vector<float> a = host::random_floats(g.m * g.k, seed + 1);
    const std::vector<float> b = host::random_floats(g.n * g.k, seed + 2), c = host::random_floats(g.m * g.n, seed + 3);
    std::vector<double> ref(c.size()), mag(c.size());
    host::gemm(g, alpha, a.data(), b.data(), beta, c.data(), ref.data(), 0, mag.data());
    const cl::Buffer ba = buffer(a), bb = buffer(b), bc = buffer(c);
    const auto run = [&] {
      sgemm(s.queue, Layout::RowMajor, Transpose::No, Transpose::Yes, g.m, g.n, g.k, alpha, {ba, 0, g.lda},
            {bb, 0, g.ldb}, beta, {bc, 0, g.ldc});
    };
    run();
    const std::vector<float> out = read(bc, c.size());
    char what[96];
    std::snprintf(what, sizeof what, "sgemm NT %zux%zux%zu a=%g b=%g row-major", g.m, g.n, g.k, alpha, beta);
    row(what, 0, 2.0 * g.m * g.n * g.k,
        {host::gemm_scaled_error(out.data(), ref.data(), mag.data(), out.size()), host::gemm_tolerance(g.k),
         "scaled err"},
        run);
  }

  // Forward transforms of `batch` contiguous sequences of length n against the host FFT; with
  // round_trip also forward + inverse (1/n) against the input.
  void fft(std::size_t n, std::size_t batch, bool round_trip) {
    const std::size_t floats = 2 * n * batch;
    const std::vector<float> x = host::random_floats(floats, seed + n);
    FftDesc d;
    d.n = n;
    d.batch = batch;
    d.inverse_scaling = FftScaling::OverN;
    const FftPlan plan(s.queue, d);
    const cl::Buffer in = buffer(x), spectrum = buffer(host::poisoned(floats)), back = buffer(host::poisoned(floats));
    const auto forward = [&] { plan.forward(in, spectrum); };
    forward();
    const std::vector<float> y = read(spectrum, floats);
    const host::FftError e =
        host::fft_compare(y.data(), n, batch, 1, n, 0, host::fft_batch(x.data(), n, batch, 1, n, 0, false));
    const std::string shape = "n=" + std::to_string(n) + " batch=" + std::to_string(batch);
    const double bytes = 16.0 * n * batch, flops = 5.0 * n * std::log2(static_cast<double>(n)) * batch;
    row("fft forward " + shape, bytes, flops, {e.nonfinite ? std::nan("") : e.max_rel_l2, host::fft_tolerance(n)},
        forward);
    if (!round_trip) return;
    const auto both = [&] {
      plan.forward(in, spectrum);
      plan.inverse(spectrum, back);
    };
    both();
    const host::Comparison c = host::compare(read(back, floats), std::vector<double>(x.begin(), x.end()));
    row("fft forward+inverse/n " + shape, 2 * bytes, 2 * flops, {error_of(c), host::fft_round_trip_tolerance(n)}, both);
  }

  void blur(BlurMethod method, double sigma) {
    const std::size_t w = 1024, h = 768, n = w * h;
    const std::vector<float> in = host::random_floats(n, seed + 4);
    const bool recursive = method == BlurMethod::Recursive;
    const auto border = BlurBorder::Clamp;
    const std::vector<double> ref = recursive ? host::recursive_blur(in.data(), w, h, 1, w, sigma, sigma, border)
                                              : host::gaussian_blur(in.data(), w, h, 1, w, sigma, sigma, border);
    const cl::Buffer bin = buffer(in), bout = buffer(host::poisoned(n));
    BlurDesc d;
    d.width = w;
    d.height = h;
    d.sigma_x = d.sigma_y = sigma;
    d.method = method;
    const BlurPlan plan(s.queue, d);
    const auto run = [&] { plan.enqueue(s.queue, bin, bout); };
    run();
    char what[96];
    std::snprintf(what, sizeof what, "blur %s %zux%zu float sigma=%g clamp", to_string(method), w, h, sigma);
    row(what, 8.0 * n, 0,
        {error_of(host::compare(read(bout, n), ref)),
         recursive ? host::recursive_blur_tolerance(sigma, sigma) : host::truncated_blur_tolerance(sigma, sigma)},
        run);
  }
};

void cmd_demo(Globals& g) {
  Session& s = g.session();
  const DeviceInfo& d = s.entry.info;
  const std::uint64_t seed = host::default_seed();
  // Vendor class and device type, once when they agree (a CPU device's class is "CPU").
  const std::string kind = d.vendor_key() == d.type ? d.type : d.vendor_key() + " " + d.type;
  std::printf("clforge %s demo on \"%s\" (%s, %u compute units, driver %s), seed %llu\n", version_string,
              d.name.c_str(), kind.c_str(), d.compute_units, d.driver_version.c_str(),
              static_cast<unsigned long long>(seed));
  bench::Report report(d);
  const auto peaks = bench::measure_peaks(s, report, 64u << 20, false);
  std::printf("peaks: copy %.1f GB/s, FMA %.1f GFLOP/s; times below: median of 5 runs\n", peaks.copy_gbps,
              peaks.fma_gflops);
  Demo demo{s, seed};
  demo.guarded("transpose", [&] { demo.transpose_float(); });
  demo.guarded("sgemm", [&] { demo.sgemm_nt(); });
  demo.guarded("fft n=4096", [&] { demo.fft(4096, 256, true); });
  demo.guarded("fft n=1000", [&] { demo.fft(1000, 1024, false); });
  demo.guarded("fft n=1009", [&] { demo.fft(1009, 1024, false); });  // prime: Bluestein
  demo.guarded("blur separable", [&] { demo.blur(BlurMethod::Separable, 3.0); });
  demo.guarded("blur recursive", [&] { demo.blur(BlurMethod::Recursive, 8.0); });
  if (demo.failures > 0)
    throw Error("demo: " + std::to_string(demo.failures) + " of " + std::to_string(demo.lines) +
                " results failed or differ from the host reference beyond their tolerance");
}

void register_demo(Apps& apps, Globals& g) {
  apps.root->add_subcommand("demo", "run each routine once: what it computes, how fast, checked against the host")
      ->callback([&g] { cmd_demo(g); });
}
CLFORGE_CLI_COMMANDS(register_demo);

}  // namespace
}  // namespace clforge::cli
