// clforge Gaussian blur: megapixels per second of each method and sigma (a BlurPlan enqueued),
// beside the method's bandwidth bound, i.e. the time to move its bytes (read + written per
// pixel, see src/blur/blur_route.hpp) at the copy bandwidth measured in the same run. Each configuration
// is checked first on sampled output pixels against the host (truncated Gaussian for direct
// and separable; the exact Gaussian, with the looser tolerance of the approximation, for the
// recursive filter).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

#include "bench/routines.hpp"
#include "blur/blur_route.hpp"
#include "clforge/blur.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"

namespace clforge::bench {

namespace {

std::pair<std::size_t, std::size_t> parse_shape(const std::string& s) {
  const auto x = s.find('x');
  if (x == std::string::npos) return {std::stoul(s), std::stoul(s)};
  return {std::stoul(s.substr(0, x)), std::stoul(s.substr(x + 1))};
}

struct MethodSpec {
  std::string label;
  BlurMethod method;
  ParamMap overrides;  // on top of the user's
};

MethodSpec method_spec(const std::string& name, const Configuration& rec) {
  const int block = rec.at("BLUR_R_BLOCK") > 0 ? rec.at("BLUR_R_BLOCK") : 64;
  if (name == "direct") return {"direct", BlurMethod::Direct, {}};
  if (name == "separable") return {"separable", BlurMethod::Separable, {}};
  if (name == "recursive") return {"recursive", BlurMethod::Recursive, {}};
  if (name == "recursive-whole")
    return {"rec-whole", BlurMethod::Recursive, {{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 0}}};
  if (name == "recursive-blocked")
    return {"rec-block",
            BlurMethod::Recursive,
            {{"BLUR_R_BLOCK", block}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 0}}};
  if (name == "recursive-fused")
    return {"rec-fused",
            BlurMethod::Recursive,
            {{"BLUR_R_BLOCK", block}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 1}}};
  throw InvalidArgument("bench blur: unknown method '" + name +
                        "' (direct, separable, recursive, recursive-whole, recursive-blocked, recursive-fused)");
}

// Relative L2 error of sampled output pixels against the host: the truncated Gaussian
// (truncate 3) or the exact one (truncate 8).
double sampled_error(const std::vector<float>& in, const std::vector<float>& out, std::size_t W, std::size_t H,
                     std::size_t c, double sx, double sy, BlurBorder border, double truncate, int samples,
                     std::uint64_t seed) {
  const std::vector<double> gx = host::gaussian_weights(sx, truncate), gy = host::gaussian_weights(sy, truncate);
  const long rx = static_cast<long>(gx.size() / 2), ry = static_cast<long>(gy.size() / 2);
  std::mt19937_64 rng(seed);
  double num = 0, den = 0;
  std::vector<double> acc(c), row(c);
  for (int i = 0; i < samples; ++i) {
    const long x = static_cast<long>(rng() % W), y = static_cast<long>(rng() % H);
    std::fill(acc.begin(), acc.end(), 0.0);
    for (long dy = -ry; dy <= ry; ++dy) {
      const long sy_ = host::blur_border_index(y + dy, static_cast<long>(H), border);
      if (sy_ < 0) continue;
      std::fill(row.begin(), row.end(), 0.0);
      for (long dx = -rx; dx <= rx; ++dx) {
        const long sx_ = host::blur_border_index(x + dx, static_cast<long>(W), border);
        if (sx_ < 0) continue;
        for (std::size_t ch = 0; ch < c; ++ch) row[ch] += gx[dx + rx] * in[(sy_ * W + sx_) * c + ch];
      }
      for (std::size_t ch = 0; ch < c; ++ch) acc[ch] += gy[dy + ry] * row[ch];
    }
    for (std::size_t ch = 0; ch < c; ++ch) {
      const double d = out[(y * W + x) * c + ch] - acc[ch];
      num += d * d;
      den += acc[ch] * acc[ch];
    }
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// The images, sigmas and method names bench blur runs (the defaults where `b` and `opt` name none).
struct BlurCases {
  std::vector<std::string> sizes, methods;
  std::vector<double> sigmas;
};
BlurCases blur_cases_of(const BenchOptions& opt, const DeviceInfo& dev, const BlurBenchOptions& b) {
  BlurCases c{opt.sizes, b.methods, b.sigmas};
  // Default images: 16 MP and 64 MP; CPU devices the 16 MP one (64 MP there takes minutes per
  // method and sigma).
  if (c.sizes.empty())
    c.sizes = opt.quick           ? std::vector<std::string>{"1024x1024"}
              : dev.type == "CPU" ? std::vector<std::string>{"4096x4096"}
                                  : std::vector<std::string>{"4096x4096", "8192x8192"};
  if (c.sigmas.empty()) c.sigmas = opt.quick ? std::vector<double>{2, 10} : std::vector<double>{0.8, 2, 5, 10, 20};
  if (c.methods.empty())
    c.methods = {"direct", "separable", "recursive", "recursive-whole", "recursive-blocked", "recursive-fused"};
  return c;
}

}  // namespace

std::vector<std::string> blur_sizes(const BenchOptions& opt, const DeviceInfo& dev) {
  return blur_cases_of(opt, dev, {}).sizes;
}

std::size_t blur_cases(const BenchOptions& opt, const DeviceInfo& dev, const BlurBenchOptions& b) {
  const BlurCases c = blur_cases_of(opt, dev, b);
  return c.sizes.size() * c.sigmas.size() * c.methods.size();
}

void bench_blur(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks, const BlurBenchOptions& b) {
  const BlurCases cases = blur_cases_of(opt, s.entry.info, b);
  const std::vector<std::string>& sizes = cases.sizes;
  const std::vector<double>& sigmas = cases.sigmas;
  const std::vector<std::string>& names = cases.methods;
  if (b.channels != 1 && b.channels != 4) throw InvalidArgument("bench blur: channels must be 1 or 4");
  const std::size_t c = b.channels;
  const PixelFormat format = c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
  const DeviceInfo& dev = s.entry.info;
  Tuning rec_tuning{{}, opt.tuning.user_database};
  for (const auto& [k, v] : opt.tuning.overrides)
    if (k.rfind("BLUR_R_", 0) == 0) rec_tuning.overrides[k] = v;
  const Configuration rec = resolve_configuration("blur_recursive", std::to_string(c), dev, rec_tuning);
  std::vector<MethodSpec> methods;
  for (const auto& n : names) methods.push_back(method_spec(n, rec));
  // Direct costs (2rx+1)(2ry+1) taps per pixel: skip what would take minutes here.
  const double tap_budget = dev.type == "CPU" ? 4e9 : 2e11;

  struct Row {
    std::string shape, label;
    double pixels, sigma, ms, mps, bound_ms, error;
    std::string status;
  };
  std::vector<Row> rows;
  std::optional<ProgressScope> scope(std::in_place, sizes.size() * sigmas.size() * methods.size());
  for (const auto& sz : sizes) {
    const auto [W, H] = parse_shape(sz);
    const std::size_t n = W * H;
    const std::string shape = std::to_string(W) + "x" + std::to_string(H);
    std::vector<float> host_in = host::random_floats(n * c, 4321 + n);
    cl_int st = CL_SUCCESS;
    cl::Buffer in(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * c * 4, host_in.data(), &st);
    detail::check(st, "clCreateBuffer", "blur benchmark input");
    cl::Buffer out(s.context, CL_MEM_READ_WRITE, n * c * 4, nullptr, &st);
    detail::check(st, "clCreateBuffer", "blur benchmark output");
    std::vector<float> host_out(n * c);
    for (double sigma : sigmas)
      for (const auto& m : methods) {
        progress_step();
        Tuning t = opt.tuning;
        for (const auto& [k, v] : m.overrides) t.overrides[k] = v;
        BlurOptions o;
        o.sigma_x = o.sigma_y = sigma;
        o.method = m.method;
        char label[64];
        std::snprintf(label, sizeof label, "%s s=%g", shape.c_str(), sigma);
        Record r = Record::of("blur", m.label, label);
        const detail::BlurRoute route = detail::blur_route(dev, W, H, format, o, t);
        r.bytes = route.bytes_per_pixel * n;
        const double bound_ms = peaks.copy_gbps > 0 ? r.bytes / peaks.copy_gbps / 1e6 : 0;
        const double taps = static_cast<double>(2 * host::gaussian_radius(sigma) + 1);
        if (m.method == BlurMethod::Direct && taps * taps * n > tap_budget) {
          r.status = "skipped: " + std::to_string(static_cast<long long>(taps * taps)) + " taps per pixel";
        } else if (m.method == BlurMethod::Recursive && sigma < 0.5) {
          r.status = "skipped: sigma below 0.5";
        } else {
          try {
            BlurDesc d;
            d.width = W;
            d.height = H;
            d.format = format;
            d.sigma_x = d.sigma_y = sigma;
            d.border = o.border;
            d.method = m.method;
            const BlurPlan blur(s.queue, d, t);
            // Correctness first: poisoned output, sampled pixels against the host.
            std::vector<float> nan(n * c, std::nanf(""));
            s.queue.enqueueWriteBuffer(out, CL_TRUE, 0, n * c * 4, nan.data());
            blur.enqueue(s.queue, in, out);
            s.queue.enqueueReadBuffer(out, CL_TRUE, 0, n * c * 4, host_out.data());
            const bool rec_m = m.method == BlurMethod::Recursive;
            if (b.verify_pixels > 0) {
              r.error = sampled_error(host_in, host_out, W, H, c, sigma, sigma, o.border, rec_m ? 8.0 : 3.0,
                                      b.verify_pixels, 99 + n);
              const double tol = rec_m ? (sigma < 2 ? 0.20 : sigma < 5 ? 0.10 : 0.07) : 1e-4;
              if (!(r.error <= tol))
                r.status = "failed: sampled error " + std::to_string(r.error) + " > " + std::to_string(tol);
            }
            r.timing = time_region(
                s.queue, [&] { blur.enqueue(s.queue, in, out); }, opt.plan);
          } catch (const Error& e) {
            r.status = std::string("failed: ") + e.what();
          }
        }
        const double mps = r.measured() ? n / r.timing.median_ms / 1e3 : 0;
        // Not measured (no copy bandwidth, not timed): null.
        r.params = {{"method", to_string(m.method)},
                    {"plan", route.describe()},
                    {"sigma", sigma},
                    {"bytes_per_pixel", route.bytes_per_pixel},
                    {"bound_ms", bound_ms > 0 ? nlohmann::json(bound_ms) : nlohmann::json(nullptr)},
                    {"mp_per_s", r.measured() ? nlohmann::json(mps) : nlohmann::json(nullptr)},
                    {"overrides", t.overrides}};
        char line[384];
        std::snprintf(line, sizeof line, "blur %s %s: %.3f ms, %.1f MP/s, bound %.3f ms (%.0f%% of bound) [%s] %s",
                      label, m.label.c_str(), r.timing.median_ms, mps, bound_ms,
                      r.timing.median_ms > 0 ? 100 * bound_ms / r.timing.median_ms : 0.0, route.describe().c_str(),
                      r.status.c_str());
        progress(line);
        rows.push_back(
            {shape, m.label, static_cast<double>(n), sigma, r.timing.median_ms, mps, bound_ms, r.error, r.status});
        report.add(r);
      }
  }
  scope.reset();
  progress_clear();  // inside bench all's count, whose line may be on the terminal
  std::printf("blur, %zu channel%s, copy bandwidth %.1f GB/s (bound = bytes per pixel / copy bandwidth)\n", c,
              c == 1 ? "" : "s", peaks.copy_gbps);
  std::printf("%-12s %6s %-10s %10s %10s %10s %8s %9s  %s\n", "shape", "sigma", "method", "ms", "MP/s", "bound MP/s",
              "% bound", "error", "status");
  for (const auto& r : rows) {
    const double bound_mps = r.bound_ms > 0 ? r.pixels / r.bound_ms / 1e3 : 0;
    std::printf("%-12s %6g %-10s %10.3f %10.1f %10.1f %7.0f%% %9.2e  %s\n", r.shape.c_str(), r.sigma, r.label.c_str(),
                r.ms, r.mps, bound_mps, r.ms > 0 ? 100 * r.bound_ms / r.ms : 0.0, r.error, r.status.c_str());
  }
}

}  // namespace clforge::bench
