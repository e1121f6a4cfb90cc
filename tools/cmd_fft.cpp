// FFT commands: `clforge run fft` (one plan on random data, checked against FFTW and timed) and
// `clforge bench fft` (clforge vs clFFT vs VkFFT); `bench fft-vkfft-child` is the benchmark's
// child process for VkFFT (not meant to be called by hand).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "bench/fft_child.hpp"
#include "bench/peak.hpp"
#include "host/data.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

struct RunFftOptions {
  std::string size = "1024";
  std::size_t n = 0, stride = 1, distance = 0;
  bool inverse = false, in_place = false;
  std::string scaling = "none";
};

void cmd_run_fft(Globals& g, RunFftOptions o) {
  const Size z = parse_size("fft", o.size);
  o.n = z.x;
  if (!g.split.devices.empty() || g.split.mpi) {
    if (o.in_place || o.stride != 1 || o.distance != 0 || o.scaling != "none" || z.interleaved)
      throw UsageError(
          "run fft --devices: contiguous transforms, out of place, unscaled (leave out --in-place, "
          "--stride, --distance, --scaling, layout=)");
    bench::SplitCase c;
    c.routine = "fft";
    c.x = o.n;
    c.y = z.fft_batch(std::size_t{64} << 20);
    c.inverse = o.inverse;
    return run_on_group(g, c);
  }
  FftDesc d;
  d.n = o.n;
  d.batch = z.fft_batch((std::size_t{64} << 20) / o.stride);
  if (z.interleaved) {
    if (o.stride != 1 || o.distance != 0)
      throw UsageError("run fft: layout=interleaved sets the stride and distance; leave out --stride and --distance");
    o.stride = d.batch;
    o.distance = 1;
  }
  Session& s = g.session();
  d.in.stride = d.out.stride = o.stride;
  d.in.distance = d.out.distance = o.distance;
  d.in_place = o.in_place;
  FftScaling sc = FftScaling::None;
  if (o.scaling == "n")
    sc = FftScaling::OverN;
  else if (o.scaling == "sqrtn")
    sc = FftScaling::OverSqrtN;
  else if (o.scaling != "none")
    throw InvalidArgument("--scaling must be none, n or sqrtn");
  (o.inverse ? d.inverse_scaling : d.forward_scaling) = sc;
  const std::size_t dist = o.distance != 0 ? o.distance : o.n * o.stride;
  const std::size_t elems = (d.batch - 1) * dist + (o.n - 1) * o.stride + 1;

  const Tuning t = g.tuning();
  const FftPlan plan(s.queue, d, t);
  std::printf("fft n=%zu batch=%zu %s%s on \"%s\"\n%s\n", d.n, d.batch, o.inverse ? "inverse" : "forward",
              o.in_place ? " in place" : "", s.entry.info.name.c_str(), plan.describe().c_str());
  for (const auto& cfg : plan.configurations()) {
    std::printf("  parameters (variant %s):", cfg.variant.c_str());
    for (const auto& [k, v] : cfg.values) std::printf(" %s=%d", k.c_str(), v);
    std::printf("\n");
    for (const auto& note : cfg.notes) std::printf("    note: %s\n", note.c_str());
  }

  std::vector<float> x = host::random_floats(2 * elems, host::default_seed());
  cl::Buffer in(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  cl::Buffer out = o.in_place ? in : cl::Buffer(s.context, CL_MEM_READ_WRITE, x.size() * 4);
  if (!o.in_place) detail::check(s.queue.enqueueFillBuffer(out, std::nanf(""), 0, x.size() * 4), "clEnqueueFillBuffer");
  if (o.inverse)
    plan.inverse(in, out);
  else
    plan.forward(in, out);
  std::vector<float> y(x.size());
  detail::check(s.queue.enqueueReadBuffer(out, CL_TRUE, 0, y.size() * 4, y.data()), "clEnqueueReadBuffer");

  // Check up to 64 transforms spread over the batch against FFTW.
  const double scale = sc == FftScaling::OverN       ? 1.0 / o.n
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(o.n))
                                                     : 1.0;
  const std::size_t step = std::max<std::size_t>(1, d.batch / 64);
  double worst = 0;
  std::size_t nonfinite = 0;
  for (std::size_t b = 0; b < d.batch; b += step) {
    const auto ref = host::fftw_batch(x.data(), o.n, 1, o.stride, dist, b * dist, o.inverse, scale);
    const host::FftError e = host::fft_compare(y.data(), o.n, 1, o.stride, dist, b * dist, ref);
    worst = std::max(worst, e.max_rel_l2);
    nonfinite += e.nonfinite;
  }
  const double tol = host::fft_tolerance(o.n);
  const bool ok = nonfinite == 0 && worst <= tol;

  cl::Buffer tin = in, tout = out;
  if (o.in_place) {  // time on a copy so the checked data above stay meaningful
    tin = tout = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  }
  const bench::Timing timing = bench::time_region(s.queue, [&] {
    if (o.inverse)
      plan.inverse(tin, tout);
    else
      plan.forward(tin, tout);
  });
  const double bytes = 2.0 * 8.0 * o.n * d.batch;
  const double flops = o.n > 1 ? 5.0 * o.n * std::log2(double(o.n)) * d.batch : 0.0;
  std::printf("%.4f ms median (%.4f .. %.4f, %d runs), %.1f GB/s, %.1f GFLOP/s, %zu launch%s\n", timing.median_ms,
              timing.min_ms, timing.max_ms, timing.reps, bytes / timing.median_ms / 1e6, flops / timing.median_ms / 1e6,
              plan.launches(), plan.launches() == 1 ? "" : "es");
  std::printf("max relative L2 error %.3e over %zu checked transforms (tolerance %.3e): %s\n", worst,
              (d.batch + step - 1) / step, tol, ok ? "ok" : "WRONG");
  if (!ok) throw Error("fft result differs from the FFTW reference");
}

void cmd_bench_fft(Globals& g) {
  Session& s = g.session();
  bench::Report report(s.entry.info);
  const std::size_t bytes = g.quick ? (16u << 20) : (256u << 20);
  const bench::Peaks p =
      bench::measure_peaks(s, report, std::min<std::size_t>(bytes, s.entry.info.max_alloc_size / 2), false);
  bench::bench_fft(s, report, g.bench_options("fft"), p);
  finish_report(report, g);
}

void register_fft(Apps& apps, Globals& g) {
  static RunFftOptions o;
  auto* rf = apps.run->add_subcommand("fft", "one batched FFT plan on random data, checked against FFTW and timed");
  add_run_size_option(rf, o.size, "fft", "length and batch (default batch: 64 MiB of data)",
                      "; interleaved: stride batch, distance 1");
  rf->add_flag("--inverse", o.inverse, "inverse transform");
  rf->add_flag("--in-place", o.in_place, "in-place plan");
  rf->add_option("--stride", o.stride, "element stride of input and output")
      ->capture_default_str()
      ->check(size_range());
  rf->add_option("--distance", o.distance, "distance between transforms (default n * stride)")->check(size_range());
  rf->add_option("--scaling", o.scaling, "none, n (1/n) or sqrtn (1/sqrt(n))")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "n", "sqrtn"}));
  add_split_options(rf, g.split, false);
  rf->callback([&g] { cmd_run_fft(g, o); });

  auto* bf = apps.bench->add_subcommand("fft", "clforge FFT vs clFFT and VkFFT on the same device");
  add_bench_options(bf, g, "fft");
  bf->add_option(
        "--rounds", g.rounds,
        "rounds per size, each running every library once (round k starts with library k); a "
        "library's figure is the median of its rounds' medians (default: 3 on CPU devices without --quick, else 1)")
      ->check(CLI::Range(1, 100));
  bf->callback([&g] { cmd_bench_fft(g); });

  static std::size_t cn = 0, cb = 0;
  static bench::TimingPlan cp;
  auto* child = apps.bench->add_subcommand("fft-vkfft-child", "the FFT benchmark's VkFFT child process");
  child->group("");  // internal: hidden from help
  child->add_option("--n", cn)->required();
  child->add_option("--batch", cb)->required();
  child->add_option("--reps", cp.min_reps);
  child->add_option("--min-ms", cp.min_time_ms);
  child->add_option("--warmup", cp.warmup);
  child->add_option("--region-ms", cp.region_ms);
  child->callback([&g] { bench::fft_vkfft_child(g.session(), cn, cb, cp); });
}

CLFORGE_CLI_COMMANDS(register_fft);

}  // namespace
}  // namespace clforge::cli
