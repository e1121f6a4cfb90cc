// clforge Gaussian blur: megapixels per second of each method and sigma (a BlurPlan enqueued),
// beside the method's bandwidth bound, i.e. the time to move its bytes (read + written per
// pixel, see src/blur/blur_route.hpp) at the copy bandwidth measured in the same run. Each configuration
// is checked first on sampled output pixels against the host (truncated Gaussian for direct
// and separable; the exact Gaussian, with the looser tolerance of the approximation, for the
// recursive filter). Beside them the peers on the same image and sigma with the work of the
// direct and separable methods (bench/blur_peers.hpp: OpenCV on the host and through OpenCL on
// the same device, NPP on NVIDIA devices), checked on the same pixels, and clforge / best peer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

#include "bench/blur_peers.hpp"
#include "bench/routines.hpp"
#include "blur/blur_route.hpp"
#include "clforge/blur.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"

namespace clforge::bench {

namespace {

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

}  // namespace

std::string BlurCase::label() const {
  char b[96];
  std::snprintf(b, sizeof b, "%zux%zu s=%g", width, height, sigma);
  return b;
}

int BlurCase::taps() const { return 2 * host::gaussian_radius(sigma) + 1; }

double blur_sampled_error(const float* in, const float* out, std::size_t W, std::size_t H, std::size_t c, double sigma,
                          BlurBorder border, double truncate, int samples, std::uint64_t seed) {
  const std::vector<double> g = host::gaussian_weights(sigma, truncate);
  const long r = static_cast<long>(g.size() / 2);
  std::mt19937_64 rng(seed);
  double num = 0, den = 0;
  std::vector<double> acc(c), row(c);
  for (int i = 0; i < samples; ++i) {
    const long x = static_cast<long>(rng() % W), y = static_cast<long>(rng() % H);
    std::fill(acc.begin(), acc.end(), 0.0);
    for (long dy = -r; dy <= r; ++dy) {
      const long sy = host::blur_border_index(y + dy, static_cast<long>(H), border);
      if (sy < 0) continue;
      std::fill(row.begin(), row.end(), 0.0);
      for (long dx = -r; dx <= r; ++dx) {
        const long sx = host::blur_border_index(x + dx, static_cast<long>(W), border);
        if (sx < 0) continue;
        for (std::size_t ch = 0; ch < c; ++ch) row[ch] += g[dx + r] * in[(sy * W + sx) * c + ch];
      }
      for (std::size_t ch = 0; ch < c; ++ch) acc[ch] += g[dy + r] * row[ch];
    }
    for (std::size_t ch = 0; ch < c; ++ch) {
      const double d = out[(y * W + x) * c + ch] - acc[ch];
      num += d * d;
      den += acc[ch] * acc[ch];
    }
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

bool check_blur_output(Record& r, const BlurCase& c, const float* out) {
  if (c.verify_pixels <= 0) return true;
  r.error = blur_sampled_error(c.image->data(), out, c.width, c.height, c.channels, c.sigma, c.border, 3.0,
                               c.verify_pixels, c.verify_seed);
  if (r.error <= kTruncatedBlurTolerance) return true;
  char b[128];
  std::snprintf(b, sizeof b, "failed: sampled error %.3e > %.0e", r.error, kTruncatedBlurTolerance);
  r.status = b;
  if (!std::isfinite(r.error)) r.error = -1;  // JSON has no NaN: the status carries it
  return false;
}

Record blur_peer_record(const std::string& library, const BlurCase& c) {
  Record r = Record::of("blur", library, c.label());
  r.params = {{"peer", true}, {"sigma", c.sigma}, {"taps", c.taps()}, {"border", to_string(c.border)}};
  return r;
}

bool is_blur_peer(const Record& r) {
  return r.params.contains("peer") && r.params["peer"].is_boolean() && r.params["peer"].get<bool>();
}

namespace {

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

// Direct costs (2r + 1)^2 taps per pixel: what the benchmark skips, as it would take minutes.
bool direct_too_costly(const DeviceInfo& dev, double taps, double pixels) {
  return taps * taps * pixels > (dev.type == "CPU" ? 4e9 : 2e11);
}

// One line of the printed table: a method of clforge or a peer on one image and sigma.
struct Row {
  std::string shape, label;
  double pixels, sigma, ms, mps, bound_ms, error;
  std::string status;
  bool peer;
};

double row_mps(const Record& r, double pixels) { return r.measured() ? pixels / r.timing.median_ms / 1e3 : 0; }

// What every method of one image shares: the session, the buffers and the host copies.
struct ImageRun {
  Session& s;
  const BenchOptions& opt;
  const Peaks& peaks;
  PixelFormat format;
  cl::Buffer in, out;
  std::vector<float> host_out;
};

// clforge's method `m` on the case: plan, sampled check on a poisoned output, timing.
Record run_method(ImageRun& run, const MethodSpec& m, const BlurCase& bc, const BlurBenchOptions& b) {
  Session& s = run.s;
  const std::size_t n = bc.width * bc.height, c = bc.channels;
  Tuning t = run.opt.tuning;
  for (const auto& [k, v] : m.overrides) t.overrides[k] = v;
  BlurOptions o;
  o.sigma_x = o.sigma_y = bc.sigma;
  o.method = m.method;
  o.border = bc.border;
  Record r = Record::of("blur", m.label, bc.label());
  const detail::BlurRoute route = detail::blur_route(s.entry.info, bc.width, bc.height, run.format, o, t);
  r.bytes = route.bytes_per_pixel * n;
  const double bound_ms = run.peaks.copy_gbps > 0 ? r.bytes / run.peaks.copy_gbps / 1e6 : 0;
  const double taps = bc.taps();
  if (m.method == BlurMethod::Direct && direct_too_costly(run.s.entry.info, taps, static_cast<double>(n))) {
    r.status = "skipped: " + std::to_string(static_cast<long long>(taps * taps)) + " taps per pixel";
  } else if (m.method == BlurMethod::Recursive && bc.sigma < 0.5) {
    r.status = "skipped: sigma below 0.5";
  } else {
    try {
      BlurDesc d;
      d.width = bc.width;
      d.height = bc.height;
      d.format = run.format;
      d.sigma_x = d.sigma_y = bc.sigma;
      d.border = bc.border;
      d.method = m.method;
      const BlurPlan blur(s.queue, d, t);
      // Correctness first: poisoned output, sampled pixels against the host.
      std::vector<float> nan(n * c, std::nanf(""));
      s.queue.enqueueWriteBuffer(run.out, CL_TRUE, 0, n * c * 4, nan.data());
      blur.enqueue(s.queue, run.in, run.out);
      s.queue.enqueueReadBuffer(run.out, CL_TRUE, 0, n * c * 4, run.host_out.data());
      if (m.method != BlurMethod::Recursive) {
        check_blur_output(r, bc, run.host_out.data());
      } else if (b.verify_pixels > 0) {
        const double sg = bc.sigma;
        r.error = blur_sampled_error(bc.image->data(), run.host_out.data(), bc.width, bc.height, c, sg, bc.border, 8.0,
                                     bc.verify_pixels, bc.verify_seed);
        const double tol = sg < 2 ? 0.20 : sg < 5 ? 0.10 : 0.07;
        if (!(r.error <= tol))
          r.status = "failed: sampled error " + std::to_string(r.error) + " > " + std::to_string(tol);
      }
      r.timing = time_region(
          s.queue, [&] { blur.enqueue(s.queue, run.in, run.out); }, run.opt.plan);
    } catch (const Error& e) {
      r.status = std::string("failed: ") + e.what();
    }
  }
  // Not measured (no copy bandwidth, not timed): null.
  r.params = {{"method", to_string(m.method)},
              {"plan", route.describe()},
              {"sigma", bc.sigma},
              {"bytes_per_pixel", route.bytes_per_pixel},
              {"bound_ms", bound_ms > 0 ? nlohmann::json(bound_ms) : nlohmann::json(nullptr)},
              {"mp_per_s", r.measured() ? nlohmann::json(row_mps(r, n)) : nlohmann::json(nullptr)},
              {"overrides", t.overrides}};
  char line[384];
  std::snprintf(line, sizeof line, "blur %s %s: %.3f ms, %.1f MP/s, bound %.3f ms (%.0f%% of bound) [%s] %s",
                bc.label().c_str(), m.label.c_str(), r.timing.median_ms, row_mps(r, n), bound_ms,
                r.timing.median_ms > 0 ? 100 * bound_ms / r.timing.median_ms : 0.0, route.describe().c_str(),
                r.status.c_str());
  progress(line);
  return r;
}

// The peers on the case (one progress step), each with its progress line.
std::vector<Record> run_peers(ImageRun& run, std::shared_ptr<OpenCvState>& opencv, const BlurCase& bc) {
  progress_step();
  std::vector<Record> rs = run_opencv(opencv, run.s, bc, run.opt.plan);
  for (Record& r : run_npp(run.s, bc, run.opt.plan)) rs.push_back(std::move(r));
  for (Record& r : rs) {
    r.params["mp_per_s"] = r.measured() ? nlohmann::json(row_mps(r, bc.width * bc.height)) : nlohmann::json(nullptr);
    char line[384];
    std::snprintf(line, sizeof line, "blur %s %s: %.3f ms, %.1f MP/s, error %.2e %s", bc.label().c_str(),
                  r.library.c_str(), r.timing.median_ms, row_mps(r, bc.width * bc.height), r.error, r.status.c_str());
    progress(line);
  }
  return rs;
}

// The table of every row, clforge's methods with their share of the bound and their throughput
// over the best peer's on the same image and sigma.
void print_rows(const std::vector<Row>& rows, std::size_t c, double copy_gbps) {
  std::printf("blur, %zu channel%s, copy bandwidth %.1f GB/s (bound = bytes per pixel / copy bandwidth)\n", c,
              c == 1 ? "" : "s", copy_gbps);
  std::printf("%-12s %6s %-13s %10s %10s %10s %8s %9s %10s  %s\n", "shape", "sigma", "method / peer", "ms", "MP/s",
              "bound MP/s", "% bound", "error", "/best peer", "status");
  for (const auto& r : rows) {
    double best_peer = 0;
    for (const auto& p : rows)
      if (p.peer && p.shape == r.shape && p.sigma == r.sigma && p.status.rfind("ok", 0) == 0)
        best_peer = std::max(best_peer, p.mps);
    char bound[32] = "-", share[32] = "-", ratio[32] = "-";
    if (r.bound_ms > 0) std::snprintf(bound, sizeof bound, "%.1f", r.pixels / r.bound_ms / 1e3);
    if (r.bound_ms > 0 && r.ms > 0) std::snprintf(share, sizeof share, "%.0f%%", 100 * r.bound_ms / r.ms);
    if (!r.peer && r.mps > 0 && best_peer > 0) std::snprintf(ratio, sizeof ratio, "%.2f", r.mps / best_peer);
    std::printf("%-12s %6g %-13s %10.3f %10.1f %10s %8s %9.2e %10s  %s\n", r.shape.c_str(), r.sigma, r.label.c_str(),
                r.ms, r.mps, bound, share, r.error, ratio, r.status.c_str());
  }
}

}  // namespace

std::vector<std::string> blur_sizes(const BenchOptions& opt, const DeviceInfo& dev) {
  return blur_cases_of(opt, dev, {}).sizes;
}

std::vector<std::string> blur_tune_sizes(const BenchOptions& opt, const DeviceInfo& dev, const std::string& method) {
  const BlurCases c = blur_cases_of(opt, dev, {});
  std::vector<std::string> out;
  for (const auto& size : c.sizes) {
    const auto [w, h] = parse_shape(size);
    std::vector<double> runs;  // the sigmas the benchmark runs the method at on this image
    for (double sigma : c.sigmas) {
      BlurCase bc;
      bc.sigma = sigma;
      const bool skipped = method == "direct" ? direct_too_costly(dev, bc.taps(), static_cast<double>(w) * h)
                                              : method != "separable" && sigma < 0.5;
      if (!skipped) runs.push_back(sigma);
    }
    if (runs.empty()) continue;
    const auto [lo, hi] = std::minmax_element(runs.begin(), runs.end());
    for (double sigma : {*lo, *hi}) {
      char text[96];
      std::snprintf(text, sizeof text, "%zux%zu,sigma=%g", w, h, sigma);
      if (out.empty() || out.back() != text) out.push_back(text);
    }
  }
  return out;
}

std::size_t blur_cases(const BenchOptions& opt, const DeviceInfo& dev, const BlurBenchOptions& b) {
  const BlurCases c = blur_cases_of(opt, dev, b);
  return c.sizes.size() * c.sigmas.size() * (c.methods.size() + (opt.peers ? 1 : 0));  // + 1: the peers
}

void bench_blur(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks, const BlurBenchOptions& b) {
  const BlurCases cases = blur_cases_of(opt, s.entry.info, b);
  if (b.channels != 1 && b.channels != 4) throw InvalidArgument("bench blur: channels must be 1 or 4");
  const std::size_t c = b.channels;
  const DeviceInfo& dev = s.entry.info;
  Tuning rec_tuning{{}, opt.tuning.user_database};
  for (const auto& [k, v] : opt.tuning.overrides)
    if (k.rfind("BLUR_R_", 0) == 0) rec_tuning.overrides[k] = v;
  const Configuration rec = resolve_configuration("blur_recursive", std::to_string(c), dev, rec_tuning);
  std::vector<MethodSpec> methods;
  for (const auto& n : cases.methods) methods.push_back(method_spec(n, rec));

  std::vector<Row> rows;
  std::shared_ptr<OpenCvState> opencv;
  std::optional<ProgressScope> scope(std::in_place, blur_cases(opt, dev, b));
  for (const auto& sz : cases.sizes) {
    const auto [W, H] = parse_shape(sz);
    const std::size_t n = W * H;
    const std::vector<float> host_in = host::random_floats(n * c, 4321 + n);
    BlurCase bc;
    bc.width = W;
    bc.height = H;
    bc.channels = c;
    bc.border = b.border;
    bc.image = &host_in;
    bc.verify_pixels = b.verify_pixels;
    bc.verify_seed = 99 + n;
    cl_int st = CL_SUCCESS;
    ImageRun run{s, opt, peaks, c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F, {}, {}, {}};
    run.in = cl::Buffer(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * c * 4,
                        const_cast<float*>(host_in.data()), &st);
    detail::check(st, "clCreateBuffer", "blur benchmark input");
    run.out = cl::Buffer(s.context, CL_MEM_READ_WRITE, n * c * 4, nullptr, &st);
    detail::check(st, "clCreateBuffer", "blur benchmark output");
    run.host_out.resize(n * c);
    for (double sigma : cases.sigmas) {
      bc.sigma = sigma;
      std::vector<Record> records = opt.peers ? run_peers(run, opencv, bc) : std::vector<Record>{};
      for (const auto& m : methods) {
        progress_step();
        records.push_back(run_method(run, m, bc, b));
      }
      for (Record& r : records) {
        const bool peer = is_blur_peer(r);
        const double bound_ms = !peer && r.params["bound_ms"].is_number() ? r.params["bound_ms"].get<double>() : 0;
        rows.push_back({bc.label().substr(0, bc.label().find(' ')), r.library, static_cast<double>(n), sigma,
                        r.timing.median_ms, row_mps(r, n), bound_ms, r.error, r.status, peer});
        report.add(std::move(r));
      }
    }
  }
  scope.reset();
  progress_clear();  // inside bench all's count, whose line may be on the terminal
  print_rows(rows, c, peaks.copy_gbps);
}

}  // namespace clforge::bench
