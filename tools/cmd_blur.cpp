// `clforge blur IN OUT --sigma S ...` (PNG and raw float files) and `clforge bench blur`.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "bench/peak.hpp"
#include "blur/blur_route.hpp"
#include "runtime/errors.hpp"
#include "tools/cli.hpp"
#include "tools/image_io.hpp"

namespace clforge::cli {
namespace {

struct BlurArgs {
  std::string in, out;
  double sigma = 0, sigma_y = 0;
  std::string method = "auto", border = "clamp", size;
  int channels = 1, bits = 0, reps = 3;
};

// The folder of `path` must exist and be writable: checked before any work is done.
void check_output_folder(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("cannot write " + path + ": folder " + dir + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw Error("cannot write " + path + ": folder " + dir + " is not writable");
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error("cannot write " + path + ": it is a folder");
}

std::pair<std::size_t, std::size_t> parse_size(const std::string& s) {
  const auto x = s.find('x');
  try {
    if (x != std::string::npos) return {std::stoul(s.substr(0, x)), std::stoul(s.substr(x + 1))};
  } catch (const std::exception&) {
  }
  throw InvalidArgument("--size '" + s + "' is not WIDTHxHEIGHT");
}

void cmd_blur(Globals& g, const BlurArgs& a) {
  BlurOptions o;
  o.sigma_x = a.sigma;
  o.sigma_y = a.sigma_y > 0 ? a.sigma_y : a.sigma;
  o.method = parse_blur_method(a.method);
  o.border = parse_blur_border(a.border);
  if (!(o.sigma_x > 0) || !(o.sigma_y > 0)) throw InvalidArgument("--sigma and --sigma-y must be positive");
  if (a.bits != 0 && a.bits != 8 && a.bits != 16) throw InvalidArgument("--bits must be 8 or 16");
  check_output_folder(a.out);

  Image img;
  if (is_png_path(a.in)) {
    img = read_png(a.in);
  } else {
    if (a.size.empty())
      throw InvalidArgument(a.in + ": a raw float file needs --size WIDTHxHEIGHT (and --channels 1 or 4)");
    if (a.channels != 1 && a.channels != 4) throw InvalidArgument("--channels must be 1 or 4");
    const auto [w, h] = parse_size(a.size);
    img = read_raw(a.in, w, h, a.channels);
  }
  const std::size_t W = img.width, H = img.height, n = W * H;
  const int c = img.channels == 1 ? 1 : 4;  // on the device: gray, or RGBA (RGB gains alpha 1)
  const bool bytes_path = c == 4 && img.bit_depth == 8;
  const PixelFormat format = c == 1 ? PixelFormat::R32F : bytes_path ? PixelFormat::RGBA8 : PixelFormat::RGBA32F;

  Session& s = g.session();
  const std::size_t pb = pixel_bytes(format);
  std::vector<unsigned char> host_in(n * pb);
  if (format == PixelFormat::RGBA8) {
    for (std::size_t p = 0; p < n; ++p)
      for (int k = 0; k < 4; ++k) host_in[p * 4 + k] = k < img.channels ? img.bytes[p * img.channels + k] : 255;
  } else {
    float* f = reinterpret_cast<float*>(host_in.data());
    for (std::size_t p = 0; p < n; ++p)
      for (int k = 0; k < c; ++k) f[p * c + k] = k < img.channels ? img.data[p * img.channels + k] : 1.0f;
  }
  cl_int st = CL_SUCCESS;
  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host_in.size(), host_in.data(), &st);
  detail::check(st, "clCreateBuffer", "blur input");
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE, host_in.size(), nullptr, &st);
  detail::check(st, "clCreateBuffer", "blur output");
  const Tuning t = g.tuning();
  BlurDesc d;
  d.width = W;
  d.height = H;
  d.format = format;
  d.sigma_x = o.sigma_x;
  d.sigma_y = o.sigma_y;
  d.border = o.border;
  d.method = o.method;

  const auto t0 = std::chrono::steady_clock::now();
  const BlurPlan plan(s.queue, d, t);
  plan.enqueue(s.queue, bin, bout);
  detail::check(s.queue.finish(), "clFinish");
  const BlurMethod used = plan.method();
  const std::string route = detail::route_of(plan).describe();
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<unsigned char> host_out(host_in.size());
  detail::check(s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, host_out.size(), host_out.data()), "clEnqueueReadBuffer");
  bench::Timing timing;
  if (a.reps > 0) {
    timing = bench::time_region(
        s.queue, [&] { plan.enqueue(s.queue, bin, bout); }, bench::TimingPlan{0, a.reps, a.reps, 0, 0});
  }

  // Back to the file's layout: RGB drops the alpha channel again unless the output is raw.
  const bool png_out = is_png_path(a.out);
  Image res;
  res.width = W;
  res.height = H;
  res.channels = png_out ? img.channels : c;
  res.data.resize(n * res.channels);
  if (format == PixelFormat::RGBA8) {
    if (png_out) res.bytes.resize(n * res.channels);
    for (std::size_t p = 0; p < n; ++p)
      for (int k = 0; k < res.channels; ++k) {
        const unsigned char v = host_out[p * 4 + k];
        res.data[p * res.channels + k] = v / 255.0f;
        if (png_out) res.bytes[p * res.channels + k] = v;
      }
  } else {
    const float* f = reinterpret_cast<const float*>(host_out.data());
    for (std::size_t p = 0; p < n; ++p)
      for (int k = 0; k < res.channels; ++k) res.data[p * res.channels + k] = f[p * c + k];
  }
  if (png_out)
    write_png(a.out, res, a.bits != 0 ? a.bits : img.bit_depth == 16 ? 16 : 8);
  else
    write_raw(a.out, res);

  const std::string kind = img.bit_depth == 32 ? "raw float" : std::to_string(img.bit_depth) + "-bit PNG";
  std::printf("%s (%zux%zu, %d channel%s, %s) -> %s\n", a.in.c_str(), W, H, img.channels, img.channels == 1 ? "" : "s",
              kind.c_str(), a.out.c_str());
  std::printf("method %s%s, sigma %g x %g, border %s, %s on \"%s\"\n", to_string(used),
              route != to_string(used) ? (" [" + route + "]").c_str() : "", o.sigma_x, o.sigma_y, to_string(o.border),
              to_string(format), s.entry.info.name.c_str());
  if (a.reps > 0)
    std::printf(
        "time %.3f ms on the device (median of %d runs, %.1f MP/s); first call %.1f ms wall clock "
        "(with the plan: program build or cache)\n",
        timing.median_ms, timing.reps, n / timing.median_ms / 1e3, first_ms);
  else
    std::printf("time %.1f ms wall clock (first call, with the plan: program build or cache)\n", first_ms);
}

void cmd_bench_blur(Globals& g, const bench::BlurBenchOptions& b) {
  Session& s = g.session();
  bench::Report report(s.entry.info);
  const std::size_t bytes = g.quick ? (16u << 20) : (256u << 20);
  const bench::Peaks p =
      bench::measure_peaks(s, report, std::min<std::size_t>(bytes, s.entry.info.max_alloc_size / 2), false);
  bench::bench_blur(s, report, g.bench_options(), p, b);
  finish_report(report, g, "blur");
}

// Measures where the recursive method overtakes the separable one and where direct stops
// beating separable on this device, and stores both crossovers (kernel "blur") in the user
// database, where method auto finds them before the shipped rows.
struct CrossoverArgs {
  std::string size;
  int channels = 1;
  bool store = true;
};

void cmd_blur_crossover(Globals& g, const CrossoverArgs& a) {
  Session& s = g.session();
  const DeviceInfo& dev = s.entry.info;
  auto [W, H] = parse_size(a.size.empty() ? (dev.type == "CPU" ? "2048x2048" : "4096x4096") : a.size);
  if (a.channels != 1 && a.channels != 4) throw InvalidArgument("--channels must be 1 or 4");
  const std::size_t c = a.channels, n = W * H;
  const PixelFormat format = c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  cl::Buffer in = bench::random_buffer(s.context, s.queue, n * c, 77);
  cl_int st = CL_SUCCESS;
  cl::Buffer out(s.context, CL_MEM_READ_WRITE, n * c * 4, nullptr, &st);
  detail::check(st, "clCreateBuffer", "crossover output");
  const Tuning t = g.tuning();
  const bench::TimingPlan plan{1, 3, 10, 0};
  auto time = [&](BlurMethod m, double sigma) {
    BlurDesc d;
    d.width = W;
    d.height = H;
    d.format = format;
    d.sigma_x = d.sigma_y = sigma;
    d.method = m;
    const BlurPlan blur(s.queue, d, t);
    return bench::time_region(
               s.queue, [&] { blur.enqueue(s.queue, in, out); }, plan)
        .median_ms;
  };
  const double sigmas[] = {0.5, 0.6, 0.7, 0.8, 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50};
  std::printf("%zux%zu, %zu channel%s on \"%s\"\n%6s %12s %12s %12s\n", W, H, c, c == 1 ? "" : "s", dev.name.c_str(),
              "sigma", "direct ms", "separable ms", "recursive ms");
  int direct_to = 0, recursive_from = 0;  // tenths of sigma
  bool direct_wins = true;
  for (double sigma : sigmas) {
    const double sep = time(BlurMethod::Separable, sigma);
    const double dir = direct_wins ? time(BlurMethod::Direct, sigma) : 0;
    const double rec = sigma >= 0.5 ? time(BlurMethod::Recursive, sigma) : 0;
    if (direct_wins && dir <= sep)
      direct_to = static_cast<int>(std::lround(sigma * 10));
    else
      direct_wins = false;  // the window only grows from here
    if (rec > 0 && rec < sep) {
      if (recursive_from == 0) recursive_from = static_cast<int>(std::lround(sigma * 10));
    } else {
      recursive_from = 0;  // it must win at every larger sigma measured
    }
    char dcol[32];
    if (dir > 0)
      std::snprintf(dcol, sizeof dcol, "%12.3f", dir);
    else
      std::snprintf(dcol, sizeof dcol, "%12s", "-");
    std::printf("%6g %s %12.3f %12.3f\n", sigma, dcol, sep, rec);
  }
  direct_to = std::min(direct_to, 100);
  std::printf("direct up to sigma %g%s, recursive from sigma %g%s\n", direct_to / 10.0, direct_to ? "" : " (never)",
              recursive_from / 10.0, recursive_from ? "" : " (never)");
  if (a.store) {
    store_user_entry(dev, "blur", "*",
                     {{"BLUR_AUTO_SIGMA_DIRECT", direct_to}, {"BLUR_AUTO_SIGMA_RECURSIVE", recursive_from}},
                     "measured by clforge tune blur-crossover at " + std::to_string(W) + "x" + std::to_string(H));
    std::printf("stored in %s\n", user_database_path(dev).c_str());
  }
}

void register_blur(Apps& apps, Globals& g) {
  static BlurArgs a;
  auto* cmd = apps.root->add_subcommand("blur", "Gaussian blur of a PNG (8/16-bit gray, RGB, RGBA) or raw float image");
  cmd->add_option("input", a.in, "input image: .png, or raw floats (with --size and --channels)")->required();
  cmd->add_option("output", a.out, "output image: .png, or raw floats (any other name)")->required();
  cmd->add_option("-s,--sigma", a.sigma, "standard deviation in pixels (x, and y unless --sigma-y)")->required();
  cmd->add_option("--sigma-y", a.sigma_y, "standard deviation along y");
  cmd->add_option("-m,--method", a.method, "auto, direct, separable or recursive")->capture_default_str();
  cmd->add_option("-b,--border", a.border, "clamp, mirror or zero")->capture_default_str();
  cmd->add_option("--size", a.size, "raw input: WIDTHxHEIGHT");
  cmd->add_option("--channels", a.channels, "raw input: 1 or 4 interleaved floats per pixel")->capture_default_str();
  cmd->add_option("--bits", a.bits, "PNG output: 8 or 16 bits per sample (default: as the input, 8 for raw)");
  cmd->add_option("--reps", a.reps, "timed repetitions after the first call (0: none)")->capture_default_str();
  cmd->callback([&g] { cmd_blur(g, a); });

  static bench::BlurBenchOptions b;
  auto* bb = apps.bench->add_subcommand(
      "blur",
      "Gaussian blur: MP/s of each method beside its bandwidth bound from the copy bandwidth measured in the same run");
  add_bench_options(bb, g);
  bb->add_option("--sigmas", b.sigmas, "sigmas (default 0.8 2 5 10 20)")->delimiter(',');
  bb->add_option(
        "--methods", b.methods,
        "direct, separable, recursive, recursive-whole, recursive-blocked, recursive-fused (default: the first "
        "three and the recursive schemes)")
      ->delimiter(',');
  bb->add_option("--channels", b.channels, "1 (R32F) or 4 (RGBA32F)")->capture_default_str();
  bb->add_option("--verify-pixels", b.verify_pixels, "output pixels checked against the host (0: none)")
      ->capture_default_str();
  bb->callback([&g] { cmd_bench_blur(g, b); });

  static CrossoverArgs x;
  auto* tx = apps.tune->add_subcommand(
      "blur-crossover",
      "measure the sigmas where method auto switches (direct / separable / recursive) and store them");
  tx->add_option("--size", x.size, "image WIDTHxHEIGHT (default 4096x4096, 2048x2048 on CPUs)");
  tx->add_option("--channels", x.channels, "1 or 4")->capture_default_str();
  tx->add_flag("!--no-store", x.store, "only print the measurements");
  tx->callback([&g] { cmd_blur_crossover(g, x); });
}

CLFORGE_CLI_COMMANDS(register_blur);

}  // namespace
}  // namespace clforge::cli
