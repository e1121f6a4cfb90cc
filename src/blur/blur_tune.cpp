// Tuning target of the Gaussian blur (`clforge tune blur`): options --method (separable, direct
// or recursive: the kernel family searched) and --sigma; sizes "N", "WxH" or "WxH:C" (C = 1 or 4
// float channels), each optionally ",sigma=S" (that size's sigma instead of --sigma), stored under
// the variant the launcher resolves (the channel count). Each
// candidate blurs random data (clamp border) into a NaN-poisoned output with a guard tail and is
// checked against the double-precision host filter of the same method (host/blur.hpp): every row
// of a check size, 8 seeded rows (the first, the last and 6 others) of a timed size, whose whole
// output is scanned for NaN and guard hits. Each
// candidate is a BlurPlan, built by the tuner's worker threads and enqueued by its runs.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "blur/blur_design.hpp"
#include "blur/blur_plan_impl.hpp"
#include "clforge/blur.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {
namespace {

constexpr const char* kSyntax =
    "N (square), WxH, or WxH:C with C the float channels per pixel (1 or 4; default 1), each optionally followed by "
    ",sigma=S (that size's sigma, in (0, 4096])";

struct BlurSize {
  std::size_t w = 0, h = 0, c = 1;
  double sigma = 0;  // 0: the target's
};

// `text` as a sigma in (0, 4096]; 0 when it is none.
double sigma_of(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    return 0;
  }
  return used == text.size() && v > 0 && v <= 4096 ? v : 0;
}

BlurSize parse_blur_size(const std::string& text) {
  BlurSize s;
  const auto key = text.find(",sigma=");
  const std::string size = text.substr(0, key);
  if (key != std::string::npos && (s.sigma = sigma_of(text.substr(key + 7))) == 0)
    throw InvalidArgument("blur size '" + text + "': sigma '" + text.substr(key + 7) +
                          "' is not a number in (0, 4096]");
  std::string dims = size;
  if (const auto colon = size.find(':'); colon != std::string::npos) {
    dims = size.substr(0, colon);
    s.c = parse_size_count(size.substr(colon + 1), "blur", size, kSyntax, 4);
    if (s.c != 1 && s.c != 4) throw InvalidArgument("blur size '" + size + "': channels must be 1 or 4");
  }
  const auto x = dims.find('x');
  const std::size_t most = std::size_t{1} << 30;
  s.w = parse_size_count(dims.substr(0, x), "blur", size, kSyntax, most);
  s.h = x == std::string::npos ? s.w : parse_size_count(dims.substr(x + 1), "blur", size, kSyntax, most);
  return s;
}

// The sigma tuned when none is given: where method auto typically picks the method.
double default_sigma(BlurMethod m) { return m == BlurMethod::Direct ? 1.0 : m == BlurMethod::Recursive ? 10.0 : 3.0; }

const char* kernel_of(BlurMethod m) {
  return m == BlurMethod::Direct ? "blur_direct" : m == BlurMethod::Recursive ? "blur_recursive" : "blur_separable";
}

class BlurInstance : public TuneInstance {
 public:
  BlurInstance(cl::CommandQueue& queue, const BlurSize& z, BlurMethod method, const std::string& scheme, double sigma,
               std::uint64_t seed, Verification verification)
      : z_(z), scheme_(scheme) {
    opt_.sigma_x = opt_.sigma_y = sigma;
    opt_.method = method;
    opt_.border = BlurBorder::Clamp;
    desc_.width = z.w;
    desc_.height = z.h;
    desc_.format = z.c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F;
    desc_.sigma_x = desc_.sigma_y = sigma;
    desc_.method = method;
    desc_.border = opt_.border;
    const std::vector<float> in = host::random_floats(values(), seed);
    if (verification == Verification::Full) {
      for (std::size_t y = 0; y < z.h; ++y) rows_.push_back(y);
    } else if (verification == Verification::Sampled) {
      rows_ = sample_indices(z.h, kSampled, seed + 1);
    }
    if (!rows_.empty() && (method == BlurMethod::Recursive || rows_.size() == z.h)) {
      // The recursive filter reaches every row of its column: its reference is the whole image.
      const std::vector<double> all =
          method == BlurMethod::Recursive
              ? host::recursive_blur(in.data(), z.w, z.h, z.c, z.w, sigma, sigma, opt_.border)
              : host::gaussian_blur(in.data(), z.w, z.h, z.c, z.w, sigma, sigma, opt_.border);
      for (const std::size_t y : rows_) ref_.insert(ref_.end(), all.begin() + y * row(), all.begin() + (y + 1) * row());
    } else {
      for (const std::size_t y : rows_) add_row_reference(in, y);
    }
    const cl::Context ctx = queue_context(queue);
    in_ = input_buffer(ctx, in, "tuner blur input");
    out_ = GuardedOutput(ctx, values(), "tuner blur output");
  }

  // The truncated Gaussian's row y: the host blur of the band of 2r + 1 input rows around it,
  // rows past the image's edge replaced by the edge row as the clamp border does, so that the
  // band's middle row is exactly the image's row y.
  void add_row_reference(const std::vector<float>& in, std::size_t y) {
    const long r = host::gaussian_radius(opt_.sigma_y), h = static_cast<long>(z_.h);
    std::vector<float> band;
    for (long d = -r; d <= r; ++d) {
      const auto src = in.begin() + host::blur_border_index(static_cast<long>(y) + d, h, opt_.border) * row();
      band.insert(band.end(), src, src + row());
    }
    const std::vector<double> out =
        host::gaussian_blur(band.data(), z_.w, 2 * r + 1, z_.c, z_.w, opt_.sigma_x, opt_.sigma_y, opt_.border);
    ref_.insert(ref_.end(), out.begin() + r * row(), out.begin() + (r + 1) * row());
  }

  std::string label() const override {
    char text[128];
    std::snprintf(text, sizeof text, "%zux%zu, %zu channel%s, %s, sigma %g", z_.w, z_.h, z_.c, z_.c == 1 ? "" : "s",
                  to_string(opt_.method), opt_.sigma_x);
    return text;
  }

  // The candidate's plan: programs, constant tables and scratch layout, made once.
  void build(const QueueContext& qc, const Configuration& cfg) const override {
    auto plan = std::make_shared<const BlurPlan>(BlurPlanAccess::make(qc, desc_, row_tuning(cfg.values, *qc.info)));
    plans_.keep(cfg.values, std::move(plan));
  }

  void poison(cl::CommandQueue& queue) override { out_.poison(queue); }

  cl::Event run(cl::CommandQueue& queue, const ParamMap& params) override {
    const auto plan = plans_.get(params, [&] {
      return std::make_shared<const BlurPlan>(queue, desc_, row_tuning(params, *queue_context_of(queue).info));
    });
    cl::Event ev;
    plan->enqueue(queue, in_, out_.buffer(), {}, &ev);
    // Direct is one kernel (RGBA8 is not tuned); the other methods are timed between markers.
    return opt_.method == BlurMethod::Direct ? ev : cl::Event();
  }

  std::vector<float>& read_output(cl::CommandQueue& queue) override { return out_.read(queue); }

  // A candidate is a database row to be, so it runs as a row would at this size's sigma
  // (as_row_runs: a fused tile past its halo or the device takes the two passes, local taps
  // whose tile does not fit take global ones), where an explicit override would be refused: on
  // the H200 a separable search at sigma 0.8 and 20 lost 7 of 41 candidates to local-memory
  // tiles that did not fit at sigma 20 (2026-11-30), and with them its model's view of local taps.
  // A recursive scheme's candidate (and reference) runs that scheme, as bench blur runs it.
  Tuning row_tuning(const ParamMap& params, const DeviceInfo& dev) const {
    const ParamMap p = scheme_.empty() ? params : force_recursive_scheme(params, scheme_);
    return Tuning{as_row_runs(p, opt_.method, gaussian_radius(opt_.sigma_x), gaussian_radius(opt_.sigma_y), z_.c, dev),
                  false};
  }

  // The whole output finite with its guard intact, then the compared rows against the host
  // blur of the same method.
  Verdict check(const std::vector<float>& out) const override {
    Verdict v;
    if (!out_.scan(out, "the output", v)) return v;
    std::vector<float> y;
    y.reserve(ref_.size());
    for (const std::size_t r : rows_) y.insert(y.end(), out.begin() + r * row(), out.begin() + (r + 1) * row());
    const host::Comparison c = host::compare(y.data(), ref_.data(), y.size());
    const double s = opt_.sigma_x;
    const double tol = opt_.method == BlurMethod::Recursive ? host::recursive_blur_tolerance(s, s)
                                                            : host::truncated_blur_tolerance(s, s);
    // An image shorter than 4 sigma on both sides blurs to nearly its mean, which may be near
    // zero: its error is measured against the input scale 1 instead of the output's norm.
    auto flat = [&](std::size_t len) { return len == 1 || static_cast<double>(len) < 4 * s; };
    const bool nearly_constant = flat(z_.w) && flat(z_.h);
    const double err = nearly_constant ? c.max_abs_error : c.rel_error;
    v.error = err;
    v.ok = err <= tol;
    if (!v.ok) {
      char text[96];
      std::snprintf(text, sizeof text, " (tolerance %.3g%s)", tol, nearly_constant ? " on the max abs error" : "");
      v.message = "differs from the host " + std::string(to_string(opt_.method)) + " blur: " + c.summary() + text;
    }
    return v;
  }

  // A whole image row: the first compared one, or the first one the sample skips (the middle one
  // when every row is compared).
  std::vector<std::size_t> fault_region(bool in_sample) const override {
    const std::size_t y = fault_index(rows_, z_.h, in_sample);
    std::vector<std::size_t> region;
    for (std::size_t f = 0; f < row(); ++f) region.push_back(y * row() + f);
    return region;
  }

 private:
  std::size_t values() const { return z_.w * z_.h * z_.c; }
  std::size_t row() const { return z_.w * z_.c; }  // floats per image row

  static constexpr std::size_t kSampled = 8;  // image rows compared on a timed size

  BlurSize z_;
  std::string scheme_;  // recursive: the scheme tuned ("": the one the family's row chooses)
  BlurOptions opt_;
  BlurDesc desc_;
  CandidatePlans<BlurPlan> plans_;
  std::vector<std::size_t> rows_;  // image rows compared, ascending
  std::vector<double> ref_;        // their reference values, row after row
  cl::Buffer in_;
  GuardedOutput out_;
};

}  // namespace

// The recursive split threshold matters at the class's sizes only through which of their passes
// it splits (blur.cpp: a pass is split into blocks when its image's width or height is below the
// threshold), so its values collapse to one per way of splitting them. The reference's value
// represents its own group; another group's representative is its largest value when it splits
// the longest side of every size (the images beyond the class then split as the class's do) and
// else its smallest (those beyond then stay whole, as the longest side does here). The first value
// of each group would split no image beyond the class, however the group splits the class: tuned
// at 4096^2, "split" meant a threshold of 8192, and 8192^2 ran whole columns at a fifth of the
// blocked scheme's speed (H200, tools/cold_start.py, 2026-11-30).
std::vector<int> recursive_narrow_values(const std::vector<std::string>& sizes, int reference) {
  std::vector<BlurSize> shapes;
  for (const auto& s : sizes) shapes.push_back(parse_blur_size(s));
  auto split = [&](int narrow) {
    std::vector<bool> k;
    for (const auto& z : shapes) {
      k.push_back(z.w < static_cast<std::size_t>(narrow));
      k.push_back(z.h < static_cast<std::size_t>(narrow));
    }
    return k;
  };
  auto splits_all = [&](int narrow) {
    const auto k = split(narrow);
    return std::all_of(k.begin(), k.end(), [](bool b) { return b; });
  };
  std::vector<std::pair<std::vector<bool>, int>> groups{{split(reference), reference}};
  for (int narrow : kernel_spec("blur_recursive").find("BLUR_R_NARROW")->legal) {  // ascending
    const auto k = split(narrow);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == k; });
    if (g == groups.end())
      groups.emplace_back(k, narrow);
    else if (g != groups.begin() && splits_all(narrow))
      g->second = narrow;
  }
  std::vector<int> kept;
  for (const auto& g : groups) kept.push_back(g.second);
  return kept;
}

namespace {

// Values that give the same work at every size of the class collapse to one: the vector widths
// of the separable passes exist for one channel only, and the recursive split threshold
// (recursive_narrow_values). The fused separable kernel is searched on CPU devices only: its
// work-items take whole tile rows, which a GPU reads uncoalesced (2.2x slower than the two passes
// on the H100, docs/blur.md).
std::map<std::string, std::vector<int>> blur_narrow(BlurMethod method, const std::string& variant,
                                                    const std::vector<std::string>& sizes, const ParamMap& reference,
                                                    const DeviceInfo& device) {
  std::map<std::string, std::vector<int>> v;
  if (method == BlurMethod::Separable && variant != "1")
    for (const char* p : {"BLUR_S_ROW_VW", "BLUR_S_COL_VW"}) v[p] = {reference.at(p)};
  if (method == BlurMethod::Separable && device.vendor_class != VendorClass::CPU) v["BLUR_S_FUSED"] = {0};
  if (method == BlurMethod::Recursive)
    v["BLUR_R_NARROW"] = recursive_narrow_values(sizes, reference.at("BLUR_R_NARROW"));
  return v;
}

// A recursive scheme's space: the route parameters fixed to the scheme (force_recursive_scheme),
// blocks of every legal height for the blocked ones.
void narrow_to_scheme(const std::string& scheme, const ParamMap& reference,
                      std::map<std::string, std::vector<int>>& v) {
  const ParamMap forced = force_recursive_scheme(reference, scheme);
  for (const char* p : kRecursiveRouteParams) v[p] = {forced.at(p)};
  if (scheme == "whole") return;
  v["BLUR_R_BLOCK"].clear();
  for (int b : kernel_spec("blur_recursive").find("BLUR_R_BLOCK")->legal)
    if (b > 0) v["BLUR_R_BLOCK"].push_back(b);
}

// `scheme`: "" (the method's kernel, stored under the channels), or a recursive scheme (stored
// under its sub-variant, recursive_variant).
TuneTarget make_target(BlurMethod method, const std::string& scheme, double sigma) {
  TuneTarget t;
  t.routine = "blur";
  t.kernel = kernel_of(method);
  t.size_syntax = kSyntax;
  t.default_sizes = {"2048x2048"};
  // The separable kernel's class starts from a star of single steps around the best so far,
  // as SGEMM's does (TuneTarget::seed_neighbours): its parameters interact (local taps suit
  // narrow column vectors, global taps wide ones), which the model's per-value effects miss from
  // random draws. On the H200 two cold starts' searches from the default row (41 and 65
  // candidates at sigma 0.8 and 20) settled on global taps, 1.3x over the default there, where an
  // earlier one had found local taps 2.3x over it; bench all's sigma 5 to 20 ran slower than the
  // default row (tools/cold_start.py -d nvidia, 2026-11-30).
  // The recursive kernels' likewise (a scheme's fixed route parameters have no neighbours): on
  // the H200's cold start at 9d8df90 the fused scheme's 50 candidates, random draws after the
  // reference, stored a row 1.22x over the default with one load per batch and 16-way link
  // splits, 0.77-0.87 of the shipped row (batches of 16, 8-way splits, 64 columns).
  if (method == BlurMethod::Separable)
    t.seed_axes = {"BLUR_S_ROW_VW", "BLUR_S_COL_WPT", "BLUR_S_ROW_LY", "BLUR_S_ROW_LX", "BLUR_S_COL_LX",
                   "BLUR_S_COL_LY", "BLUR_S_COL_VW",  "BLUR_S_LOCAL",  "BLUR_S_FUSED"};
  if (method == BlurMethod::Recursive)
    t.seed_axes = {"BLUR_R_BATCH",      "BLUR_R_LX",     "BLUR_R_BLOCK",  "BLUR_R_LINK_SPLIT",
                   "BLUR_R_LINK_BATCH", "BLUR_R_FUSE_T", "BLUR_R_NARROW", "BLUR_R_NEXT_CARRY"};
  t.seed_neighbours = !t.seed_axes.empty();
  // The launcher resolves each blur kernel with variant = channels of the float kernels, and a
  // recursive scheme's row with its sub-variant.
  t.variant_of = [method, scheme](const std::string& size) {
    const BlurSize z = parse_blur_size(size);
    if (method == BlurMethod::Recursive && z.sigma > 0 && z.sigma < 0.5)
      throw InvalidArgument("blur size '" + size + "': the recursive method takes sigmas from 0.5");
    return scheme.empty() ? std::to_string(z.c) : recursive_variant(z.c, scheme);
  };
  // Partial tiles and blocks in both directions (odd sides), each side above 4 sigma, at each
  // sigma the class times (a size's own, else the target's): the paths those sigmas take.
  t.check_sizes = [sigma](const std::string& variant, const std::vector<std::string>& sizes) {
    std::set<double> sigmas;
    for (const auto& size : sizes) {
      const double s = parse_blur_size(size).sigma;
      sigmas.insert(s > 0 ? s : sigma);
    }
    if (sigmas.empty()) sigmas.insert(sigma);
    std::vector<std::string> out;
    for (const double s : sigmas) {
      const std::size_t margin = 2 * static_cast<std::size_t>(std::ceil(4 * s));
      char text[96];
      std::snprintf(text, sizeof text, "%zux%zu:%s,sigma=%g", 67 + margin, 45 + margin,
                    variant.substr(0, variant.find(':')).c_str(), s);
      out.push_back(text);
    }
    return out;
  };
  t.make = [method, scheme, sigma](cl::CommandQueue& queue, const std::string& size, std::uint64_t seed,
                                   Verification verification) -> std::unique_ptr<TuneInstance> {
    const BlurSize z = parse_blur_size(size);
    return std::make_unique<BlurInstance>(queue, z, method, scheme, z.sigma > 0 ? z.sigma : sigma, seed, verification);
  };
  t.narrow = [method, scheme](const std::string& variant, const std::vector<std::string>& sizes,
                              const ParamMap& reference, const DeviceInfo& device) {
    auto v = blur_narrow(method, variant, sizes, reference, device);
    if (!scheme.empty()) narrow_to_scheme(scheme, reference, v);
    return v;
  };
  return t;
}

}  // namespace

TuneTarget blur_tune_target() {
  TuneTarget t = make_target(BlurMethod::Separable, "", default_sigma(BlurMethod::Separable));
  t.options = {
      {"method",
       "blur method whose kernel is tuned: separable (blur_separable), direct (blur_direct) or recursive "
       "(blur_recursive; the scheme its row chooses, stored under the channels), or one recursive scheme, "
       "stored under its own row (recursive-whole, recursive-blocked, recursive-fused: variant C:whole etc.)",
       "separable",
       {"separable", "direct", "recursive", "recursive-whole", "recursive-blocked", "recursive-fused"}},
      {"sigma",
       "Gaussian sigma of the tuning runs, in pixels, both axes (default: 1 for direct, 3 for separable, "
       "10 for recursive)",
       "",
       {}},
  };
  t.configure = [options = t.options](std::map<std::string, std::string>& values) {
    const std::string& name = values.at("method");
    const std::string prefix = "recursive-";
    const std::string scheme = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : "";
    const BlurMethod method = scheme.empty() ? parse_blur_method(name) : BlurMethod::Recursive;
    double sigma = default_sigma(method);
    if (const std::string& text = values.at("sigma"); !text.empty()) {
      sigma = sigma_of(text);
      if (sigma == 0 || (method == BlurMethod::Recursive && sigma < 0.5))
        throw InvalidArgument("blur tuning option sigma: '" + text + "' is not a sigma in " +
                              (method == BlurMethod::Recursive ? "[0.5, 4096]" : "(0, 4096]") + " for method " +
                              to_string(method));
    }
    char text[32];
    std::snprintf(text, sizeof text, "%g", sigma);
    values["sigma"] = text;
    TuneTarget c = make_target(method, scheme, sigma);
    c.options = options;
    return c;
  };
  return t;
}

}  // namespace clforge::detail
