// `clforge blur IN OUT --sigma S ...` (PNG and raw float files; stored values, or linear light
// with --linear), `clforge run blur` (random image, checked against the host reference),
// `clforge bench blur` and `clforge tune blur-crossover`.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>

#include "bench/peak.hpp"
#include "blur/blur_route.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "tools/cli.hpp"
#include "tools/image_io.hpp"

namespace clforge::cli {
namespace {

struct BlurArgs {
  std::string in, out;
  double sigma = 0, sigma_y = 0;
  std::string method = "auto", border = "clamp", size;
  int bits = 0, reps = 3;
  bool linear = false;
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

void cmd_blur(Globals& g, const BlurArgs& a) {
  BlurOptions o;
  o.sigma_x = a.sigma;
  o.sigma_y = a.sigma_y > 0 ? a.sigma_y : a.sigma;
  o.method = parse_blur_method(a.method);
  o.border = parse_blur_border(a.border);
  if (!(o.sigma_x > 0) || !(o.sigma_y > 0)) throw UsageError("--sigma and --sigma-y must be positive");
  const std::string out_format = image_format_of_name(a.out);
  if (!out_format.empty() && out_format != "PNG")
    throw UsageError(a.out + ": cannot write " + out_format + "; " + kSupportedImages);
  check_output_folder(a.out);

  // The format from the file's first bytes (else its name): PNG, another image format (refused
  // by name), or raw floats.
  const std::string in_format = image_format(a.in);
  if (!in_format.empty() && in_format != "PNG")
    throw Error(a.in + ": " + in_format + " images are not supported; " + kSupportedImages);
  Image img;
  if (in_format == "PNG") {
    if (!a.size.empty()) throw UsageError("--size describes raw float input; " + a.in + " is a PNG");
    img = read_png(a.in);
  } else {
    if (a.size.empty())
      throw UsageError(a.in + ": no image signature, so raw floats: give --size WxH[,channels=4] (" + kSupportedImages +
                       ")");
    if (a.linear) throw UsageError("--linear decodes sRGB PNG samples; raw floats are blurred as they are");
    const Size z = parse_size("blur", a.size);
    img = read_raw(a.in, z.x, z.y, static_cast<int>(z.channels));
  }
  if (a.linear) {  // sRGB-encoded samples to linear light; alpha (the fourth channel) is linear already
    for (std::size_t i = 0; i < img.data.size(); ++i)
      if (img.channels != 4 || i % 4 != 3) img.data[i] = srgb_to_linear(img.data[i]);
    img.bytes.clear();
  }
  const std::size_t W = img.width, H = img.height, n = W * H;
  const int c = img.channels == 1 ? 1 : 4;  // on the device: gray, or RGBA (RGB gains alpha 1)
  const bool bytes_path = c == 4 && !img.bytes.empty();
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
  const BlurDesc d = blur_desc(W, H, format, o);

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
      for (int k = 0; k < res.channels; ++k) {
        const float v = f[p * c + k];
        res.data[p * res.channels + k] = a.linear && k != 3 ? linear_to_srgb(v) : v;
      }
  }
  if (png_out)
    write_png(a.out, res, a.bits != 0 ? a.bits : img.bit_depth == 16 ? 16 : 8);
  else
    write_raw(a.out, res);

  const std::string kind = img.bit_depth == 32 ? "raw float" : std::to_string(img.bit_depth) + "-bit PNG";
  std::printf("%s (%zux%zu, %d channel%s, %s) -> %s\n", a.in.c_str(), W, H, img.channels, img.channels == 1 ? "" : "s",
              kind.c_str(), a.out.c_str());
  std::printf("method %s%s, sigma %g x %g, border %s, %s on \"%s\", %s\n", to_string(used),
              route != to_string(used) ? (" [" + route + "]").c_str() : "", o.sigma_x, o.sigma_y, to_string(o.border),
              to_string(format), s.entry.info.name.c_str(),
              a.linear ? "in linear light (sRGB decoded, blurred, encoded)" : "on the stored values");
  if (a.reps > 0)
    std::printf(
        "time %.3f ms on the device (median of %d runs, %.1f MP/s); first call %.1f ms wall clock "
        "(with the plan: program build or cache)\n",
        timing.median_ms, timing.reps, n / timing.median_ms / 1e3, first_ms);
  else
    std::printf("time %.1f ms wall clock (first call, with the plan: program build or cache)\n", first_ms);
}

// One random image blurred once, checked against the double-precision host reference of the
// method that ran, then timed.
struct RunBlurArgs {
  std::string size = "1024x768";
  double sigma = 3;
  std::string method = "auto", border = "clamp";
};

void cmd_run_blur(Globals& g, const RunBlurArgs& a) {
  const Size z = parse_size("blur", a.size);
  if (!(a.sigma > 0)) throw UsageError("--sigma must be positive");
  const std::size_t w = z.x, h = z.y, c = z.channels;
  if (!g.split.devices.empty() || g.split.mpi) {
    bench::SplitCase sc;
    sc.routine = "blur";
    sc.x = w, sc.y = h, sc.channels = c;
    sc.sigma = a.sigma;
    sc.method = parse_blur_method(a.method);
    sc.border = parse_blur_border(a.border);
    return run_on_group(g, sc);
  }
  std::size_t n = 0, bytes = 0;
  if (__builtin_mul_overflow(w, h, &n) || __builtin_mul_overflow(n, c, &n) || __builtin_mul_overflow(n, 4, &bytes))
    throw Error("run blur: a " + z.text() + " image of floats does not fit in memory");
  Session& s = g.session();
  if (bytes > s.entry.info.max_alloc_size)
    throw Error("run blur: a " + z.text() + " image of floats (" + std::to_string(bytes >> 20) +
                " MiB) is larger than the device's largest buffer (" +
                std::to_string(s.entry.info.max_alloc_size >> 20) + " MiB)");
  const std::vector<float> in = host::random_floats(n, host::default_seed());
  cl_int st = CL_SUCCESS;
  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, const_cast<float*>(in.data()), &st);
  detail::check(st, "clCreateBuffer", "blur input");
  const std::vector<float> poison = host::poisoned(n);
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, const_cast<float*>(poison.data()), &st);
  detail::check(st, "clCreateBuffer", "blur output");
  BlurDesc d;
  d.width = w;
  d.height = h;
  d.format = c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  d.sigma_x = d.sigma_y = a.sigma;
  d.border = parse_blur_border(a.border);
  d.method = parse_blur_method(a.method);
  const BlurPlan plan(s.queue, d, g.tuning());
  plan.enqueue(s.queue, bin, bout);
  std::vector<float> got(n);
  detail::check(s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, n * 4, got.data()), "clEnqueueReadBuffer");
  const bool recursive = plan.method() == BlurMethod::Recursive;
  const std::vector<double> ref = recursive ? host::recursive_blur(in.data(), w, h, c, w, a.sigma, a.sigma, d.border)
                                            : host::gaussian_blur(in.data(), w, h, c, w, a.sigma, a.sigma, d.border);
  const host::Comparison cmp = host::compare(got, ref);
  const double tol =
      recursive ? host::recursive_blur_tolerance(a.sigma, a.sigma) : host::truncated_blur_tolerance(a.sigma, a.sigma);
  const bool ok = cmp.ok(tol);
  const bench::Timing t = bench::time_region(s.queue, [&] { plan.enqueue(s.queue, bin, bout); });
  std::printf("blur %zux%zu, %zu channel%s, sigma %g, border %s, method %s [%s] on \"%s\": %.4f ms median, %.1f MP/s\n",
              w, h, c, c == 1 ? "" : "s", a.sigma, to_string(d.border), to_string(plan.method()),
              detail::route_of(plan).describe().c_str(), s.entry.info.name.c_str(), t.median_ms,
              static_cast<double>(w * h) / t.median_ms / 1e3);
  std::printf("  %s against the host reference, tolerance %.2e: %s\n", cmp.summary().c_str(), tol, ok ? "ok" : "WRONG");
  if (!ok) throw Error("blur result differs from the host reference");
}

// bench blur: the sizes' channels (one count for the run) become BlurBenchOptions::channels.
void cmd_bench_blur(Globals& g, bench::BlurBenchOptions b) {
  std::size_t channels = 0;
  for (const auto& text : g.sizes) {
    const Size z = parse_size("blur", text);
    if (channels != 0 && z.channels != channels)
      throw UsageError("bench blur: the sizes give different channels; one run measures one count");
    channels = z.channels;
  }
  if (channels != 0) b.channels = static_cast<int>(channels);
  Session& s = g.session();
  bench::Report report(s.entry.info);
  const bench::Peaks p = bench::routine_peaks(s, report, g.quick);
  bench::bench_blur(s, report, g.bench_options("blur"), p, b);
  finish_report(report, g);
}

// Measures where the recursive method overtakes the separable one and where direct stops
// beating separable on this device, and stores both crossovers (kernel "blur") in the user
// database, where method auto finds them before the shipped rows.
struct CrossoverArgs {
  std::string size;
  bool store = true;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

void cmd_blur_crossover(Globals& g, const CrossoverArgs& a) {
  Session& s = g.session();
  const DeviceInfo& dev = s.entry.info;
  const Size z = parse_size("blur", a.size.empty() ? (dev.type == "CPU" ? "2048x2048" : "4096x4096") : a.size);
  const std::size_t W = z.x, H = z.y, c = z.channels, n = W * H;
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
  double last = 0;  // the largest sigma measured
  for (double sigma : sigmas) {
    if (std::chrono::steady_clock::now() >= a.deadline) break;
    last = sigma;
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
  if (last < sigmas[std::size(sigmas) - 1] && recursive_from == 0) {
    char when[48] = "before the first sigma";
    if (last > 0) std::snprintf(when, sizeof when, "after sigma %g", last);
    std::printf("the time budget ran out %s, before recursive overtook separable: nothing stored\n", when);
    return;
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

// -m/--method and -b/--border, as `clforge blur` and `clforge run blur` take them.
void add_method_border(CLI::App* app, std::string& method, std::string& border) {
  app->add_option("-m,--method", method, "auto, direct, separable or recursive")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "direct", "separable", "recursive"}));
  app->add_option("-b,--border", border, "clamp, mirror or zero")
      ->capture_default_str()
      ->check(CLI::IsMember({"clamp", "mirror", "zero"}));
}

void register_blur(Apps& apps, Globals& g) {
  static BlurArgs a;
  auto* cmd = apps.root->add_subcommand(
      "blur", "Gaussian blur of a PNG (8/16-bit gray, RGB, RGBA) or raw float image; --linear: in linear light");
  cmd->footer(
      "What is blurred: without --linear the stored values, as numbers. PNG samples are gamma-encoded (sRGB), so an "
      "edge between light and dark comes out darker than blurring the light would make it. --linear decodes sRGB "
      "to linear light, blurs, and encodes the result back (alpha is blurred as stored). Raw floats are blurred as "
      "they are. Other image formats (JPEG, GIF, TIFF, WebP, ...) are refused.");
  cmd->add_option("input", a.in, "input image: PNG, or raw floats (with --size)")->required();
  cmd->add_option("output", a.out, "output image: .png, or raw floats (any name without an image extension)")
      ->required();
  cmd->add_option("-s,--sigma", a.sigma, "standard deviation in pixels (x, and y unless --sigma-y)")->required();
  cmd->add_option("--sigma-y", a.sigma_y, "standard deviation along y");
  add_method_border(cmd, a.method, a.border);
  cmd->add_flag("--linear", a.linear, "blur in linear light: decode sRGB samples, blur, encode back (PNG input)");
  cmd->add_option("--size", a.size, "raw input: " + size_grammar("blur"))->check(size_validator("blur"));
  cmd->add_option("--bits", a.bits, "PNG output: 8 or 16 bits per sample (default: as the input, 8 for raw)")
      ->check(CLI::IsMember({8, 16}));
  cmd->add_option("--reps", a.reps, "timed repetitions after the first call (0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->callback([&g] { cmd_blur(g, a); });

  static RunBlurArgs r;
  auto* run =
      apps.run->add_subcommand("blur", "one Gaussian blur of a random image, checked against the host and timed");
  add_run_size_option(run, r.size, "blur", "image");
  run->add_option("-s,--sigma", r.sigma, "standard deviation in pixels")->capture_default_str();
  add_method_border(run, r.method, r.border);
  add_split_options(run, g.split, false);
  run->callback([&g] { cmd_run_blur(g, r); });

  static bench::BlurBenchOptions b;
  auto* bb = apps.bench->add_subcommand(
      "blur",
      "Gaussian blur: MP/s of each method beside its bandwidth bound from the copy bandwidth measured in the same run, "
      "and the peers (OpenCV on the host and through OpenCL, NPP on NVIDIA) with clforge / best peer");
  add_bench_options(bb, g, "blur");
  bb->add_option("--sigmas", b.sigmas, "sigmas (default 0.8 2 5 10 20)")->delimiter(',');
  bb->add_option(
        "--methods", b.methods,
        "direct, separable, recursive, recursive-whole, recursive-blocked, recursive-fused (default: the first "
        "three and the recursive schemes)")
      ->delimiter(',');
  bb->add_option("--verify-pixels", b.verify_pixels, "output pixels checked against the host (0: none)")
      ->capture_default_str();
  static std::string border = "clamp";
  bb->add_option("-b,--border", border, "clamp, mirror or zero, for every method and peer")
      ->capture_default_str()
      ->check(CLI::IsMember({"clamp", "mirror", "zero"}));
  bb->callback([&g] {
    b.border = parse_blur_border(border);
    cmd_bench_blur(g, b);
  });

  static CrossoverArgs x;
  auto* tx = apps.tune->add_subcommand(
      "blur-crossover",
      "measure the sigmas where method auto switches (direct / separable / recursive) and store them");
  tx->add_option("--size", x.size, "image (default 4096x4096, 2048x2048 on CPUs): " + size_grammar("blur"))
      ->check(size_validator("blur"));
  tx->add_flag("!--no-store", x.store, "only print the measurements");
  tx->callback([&g] { cmd_blur_crossover(g, x); });
}

CLFORGE_CLI_COMMANDS(register_blur);

}  // namespace

void blur_crossover(Globals& g, const std::string& size, bool store, std::chrono::steady_clock::time_point deadline) {
  CrossoverArgs x;
  x.size = size;
  x.store = store;
  x.deadline = deadline;
  cmd_blur_crossover(g, x);
}

}  // namespace clforge::cli
