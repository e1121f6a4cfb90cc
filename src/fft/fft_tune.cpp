// Tuning targets of the FFT (`clforge tune fft`, and `clforge tune fft_lanes` for the CPU lane
// kernel's parameters of a length): sizes "N", "N@BATCH", "N@BATCH:t" or "N@BATCH:r" (batched
// forward transforms, contiguous, interleaved, or real-input R2C of N points), stored under the
// variant the plan resolves for its kernel: the length N, for a length with a prime factor above
// 13 the power-of-two Bluestein length, for a real-input size "M:real" with M its complex length
// (N/2 for even N). Candidates run as FftPlans (RealFftPlans: R2C, then C2R of its spectrum) with
// explicit parameters and are checked per transform against the double-precision host FFT
// (host/fft.hpp; real input: the half spectrum, and the round trip against n x) with NaN-poisoned
// outputs: every transform of a check size, 16 seeded ones (the first, the last and 14 others) of
// a timed size, whose whole output is scanned for NaN and guard hits. Rader's and the real-input
// ends' targets, built on the lane kernel's, are in fft_rader.cpp and fft_real.cpp.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <utility>

#include "clforge/fft.hpp"
#include "fft/fft_internal.hpp"
#include "fft/fft_tune_space.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "runtime/errors.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {
namespace {

constexpr std::size_t kDefaultPoints = 1 << 18;  // default batch: this many points in all
constexpr const char* kSyntax =
    "N, N@BATCH, N@BATCH:t with t for interleaved transforms (stride BATCH, distance 1), or N@BATCH:r for "
    "real-input transforms of N points (R2C, then C2R); default BATCH 2^18/N";

}  // namespace

FftTuneSize parse_fft_size(const std::string& size) {
  FftTuneSize s;
  std::string rest = size;
  if (const auto colon = rest.find(':'); colon != std::string::npos) {
    const std::string kind = rest.substr(colon + 1);
    if (kind != "t" && kind != "r")
      throw InvalidArgument("fft size '" + size + "': the kind after ':' must be t or r (sizes are " + kSyntax + ")");
    (kind == "t" ? s.interleaved : s.real) = true;
    rest = rest.substr(0, colon);
  }
  const auto at = rest.find('@');
  s.n = parse_size_count(rest.substr(0, at), "fft", size, kSyntax, std::size_t{1} << 27);
  s.batch = at == std::string::npos ? std::max<std::size_t>(1, kDefaultPoints / s.n)
                                    : parse_size_count(rest.substr(at + 1), "fft", size, kSyntax, INT_MAX);
  return s;
}

namespace {

using FftSize = FftTuneSize;

// The complex length of a real-input size's plan (rows_of in fft_real.cpp).
std::size_t complex_length(const FftSize& z) { return z.real && z.n % 2 == 0 ? z.n / 2 : z.n; }

// The description a size is timed with: contiguous transforms, or interleaved (stride the batch,
// distance 1).
FftDesc desc_of(const FftSize& z) {
  FftDesc d;
  d.n = z.n;
  d.batch = z.batch;
  if (z.interleaved) d.in = d.out = FftLayout{z.batch, 1, 0};
  return d;
}

// The largest FFT_LOCAL_MAX: the longest kernel a tuned entry can describe.
std::size_t max_kernel_length() {
  const auto& legal = kernel_spec("fft").find("FFT_LOCAL_MAX")->legal;
  return static_cast<std::size_t>(*std::max_element(legal.begin(), legal.end()));
}

// Whether a smooth length is longer than every kernel (the largest FFT_LOCAL_MAX) and so always
// runs as passes through global memory.
bool fft_pass_length(std::size_t n) { return fft_smooth(n) && n > max_kernel_length(); }

// A real-input size's class: "M:real" (fft_real_variant), which the complex FFT of M points inside
// its plan resolves; one kernel of a smooth M only (the others have more ends than the kernel).
std::string fft_real_size_variant(const FftSize& z, const std::string& size) {
  const std::size_t m = complex_length(z);
  if (!fft_smooth(m) || m > max_kernel_length())
    throw InvalidArgument("fft size '" + size + "': the tuner times real-input sizes whose complex FFT (" +
                          std::to_string(m) + " points) is one kernel of a length whose prime factors are at most 13");
  return fft_real_variant(m);
}

// The variant a plan of length n resolves first, which is also the class's: n itself (its row
// holds FFT_PASS_MAX, FFT_LOCAL_MAX and FFT_CHUNK, which split a length run as passes, and its
// kernel's parameters otherwise), or the power-of-two Bluestein length. A length run as passes
// resolves, beside its own row, the rows of variants "pass<length>" and after a plan's first pass
// "pass<length>:later" (fft_pass_variant): its class stores them too (fft_stored_rows). Bluestein
// lengths run as passes are not tuned. An interleaved batch of kColumnsMin or more transforms lies
// as columns (fft_lies_as_columns): its class is "<n>:cols" (fft_columns_variant), whose rows the columns of 2-D and
// 3-D transforms resolve.
std::string fft_size_variant(const FftSize& z, const std::string& size) {
  if (z.real) return fft_real_size_variant(z, size);
  const std::size_t n = z.n;
  if (fft_smooth(n)) return fft_lies_as_columns(desc_of(z)) ? fft_columns_variant(n) : std::to_string(n);
  const std::size_t len = fft_bluestein_length(n);
  if (len > max_kernel_length())
    throw InvalidArgument("fft size '" + size + "': length " + std::to_string(n) + " (Bluestein length " +
                          std::to_string(len) + ") is longer than one kernel (" + std::to_string(max_kernel_length()) +
                          ") and runs as Bluestein passes, which the tuner does not search (`clforge run fft --size " +
                          std::to_string(n) + "` lists the passes; measure pass rows with its --param)");
  return std::to_string(len);
}

std::string fft_variant(const std::string& size) { return fft_size_variant(parse_fft_size(size), size); }

// The search space of a class (TuneTarget::narrow): fft_narrow_length (fft_tune_space.cpp) for
// its length, strided where a size is interleaved.
Narrowed fft_narrow(const std::string& variant, const std::vector<std::string>& sizes, const ParamMap& reference,
                    const DeviceInfo& dev) {
  const std::size_t n = std::stoull(variant);
  const bool strided =
      std::any_of(sizes.begin(), sizes.end(), [](const std::string& z) { return parse_fft_size(z).interleaved; });
  return fft_narrow_length(n, strided, fft_pass_length(n), reference, dev);
}

// Whether a plan of smooth length n with the length row `params` runs as passes.
bool runs_as_passes(std::size_t n, const ParamMap& params, const DeviceInfo& dev) {
  return fft_smooth(n) && n > fft_local_limit(params, dev);
}

// The rows a class's best is stored as. A length run as passes: its length's row and every pass
// row its plan resolves (the first pass's "pass<length>", the later passes'
// "pass<length>:later"), all the best, which set every pass when it was timed; none when the
// best is the reference of a length longer than every kernel, timed as the library runs now
// (FftInstance::tuning: on a CPU its lane kernel, which rows of fft_local would turn off). Any
// other length: the best under the length.
std::vector<std::pair<std::string, ParamMap>> fft_stored_rows(const std::string& variant, const ParamMap& best,
                                                              const ParamMap& reference, const DeviceInfo& dev) {
  const std::size_t n = std::stoull(variant);
  if (best == reference && fft_pass_length(n)) return {};
  if (!runs_as_passes(n, best, dev)) return {{variant, best}};
  std::vector<std::pair<std::string, ParamMap>> rows{{variant, best}};
  const std::vector<std::size_t> factors = fft_pass_factors(n, best, dev);
  for (std::size_t p = 0; p < factors.size(); ++p) {
    const std::string v = fft_pass_variant(factors[p], p > 0);
    if (std::none_of(rows.begin(), rows.end(), [&](const auto& r) { return r.first == v; })) rows.emplace_back(v, best);
  }
  return rows;
}

// The lane kernel's parameters for one length (`clforge tune fft_lanes`): the variant is the
// length itself, whatever kernel lengths its plan runs.
std::string fft_lanes_variant(const std::string& size) { return std::to_string(complex_length(parse_fft_size(size))); }

// The lane kernel on (fft_local's parameters are `tune fft`'s), every length and piece in lanes
// (FFT_LANE_MIN 1), and FFT_LANE_MAX one value for one launch and one (the largest below the
// length, so the most even split) for two or four; the width of those launches only where they
// run.
std::map<std::string, std::vector<int>> fft_lanes_narrow(const std::string& variant, const std::vector<std::string>&,
                                                         const ParamMap& reference, const DeviceInfo&) {
  const std::size_t n = std::stoull(variant);
  const std::size_t len = fft_smooth(n) ? n : fft_bluestein_length(n);       // of one launch
  const auto& legal = kernel_spec("fft_lanes").find("FFT_LANE_MAX")->legal;  // ascending
  std::map<std::string, std::vector<int>> v;
  v["FFT_LANES"] = {4, 8, 16};
  v["FFT_LANE_MIN"] = {1};
  std::vector<int>& maxes = v["FFT_LANE_MAX"];
  const int ref_max = reference.at("FFT_LANE_MAX");
  const auto one = std::find_if(legal.begin(), legal.end(), [&](int m) { return static_cast<std::size_t>(m) >= len; });
  if (one != legal.end()) maxes.push_back(static_cast<std::size_t>(ref_max) >= len ? ref_max : *one);
  if (one != legal.begin()) maxes.push_back(*std::prev(one));
  if (one != legal.begin()) {
    v["FFT_LANES2"] = kernel_spec("fft_lanes").find("FFT_LANES2")->legal;
  } else {
    v["FFT_LANES2"] = {reference.at("FFT_LANES2")};
  }
  return v;
}

class FftInstance : public TuneInstance {
 public:
  // lanes: candidates are the lane kernel's parameters (fft_lanes), else fft_local's with the
  // lane kernel off.
  FftInstance(cl::CommandQueue& queue, const FftSize& z, std::uint64_t seed, bool lanes, Verification verification)
      : z_(z),
        lanes_(lanes),
        // fft_local's shipped row for the length: measured as the library runs without a user
        // database (the shipped lane row first where it applies, as on CPUs), so that a stored
        // fft_local row, which takes precedence over a shipped lane row, has beaten it.
        default_(lanes ? ParamMap{}
                       : resolve_configuration("fft", fft_size_variant(z, std::to_string(z.n)),
                                               *queue_context_of(queue).info, Tuning{{}, false})
                             .values),
        // A length longer than every kernel: the rows of its plan are its length's and its
        // passes', which one candidate cannot stand for; its reference and current configuration
        // run as the library runs now, the user database included.
        now_(!lanes && !z.real && fft_pass_length(z.n)),
        current_(now_ ? resolve_configuration("fft", std::to_string(z.n), *queue_context_of(queue).info).values
                      : ParamMap{}) {
    desc_ = desc_of(z);
    real_desc_.n = z.n;
    real_desc_.batch = z.batch;
    real_desc_.complex.offset = round_trip_floats() / 2;  // the spectrum after the round trip
    const std::vector<float> in = host::random_floats(in_floats(), seed);
    // The transforms compared: all of them in one group, or the sample, one group each.
    if (verification == Verification::Full) {
      groups_.push_back({0, z.batch, reference(in, 0, z.batch), input_rows(in, 0, z.batch)});
    } else if (verification == Verification::Sampled) {
      for (const std::size_t b : sample_indices(z.batch, sampled(z.n), seed + 1))
        groups_.push_back({b, 1, reference(in, b, 1), input_rows(in, b, 1)});
    }
    const cl::Context ctx = queue_context(queue);
    in_ = input_buffer(ctx, in, "tuner fft input");
    // Real input: an odd count of round-trip values leaves one float before the spectrum unwritten.
    const std::size_t pad = z.real && z.n * z.batch % 2 ? z.n * z.batch : static_cast<std::size_t>(-1);
    out_ = GuardedOutput(ctx, out_floats(), "tuner fft output", pad);
  }

  std::string label() const override {
    return "n " + std::to_string(z_.n) + ", batch " + std::to_string(z_.batch) +
           (z_.interleaved ? ", interleaved"
            : z_.real      ? ", real input"
                           : "");
  }

  // fft_local's candidates run with the lane kernel, which would ignore them, off; its shipped
  // row as the library runs by default (a length run as passes: as it runs now). A candidate's
  // values set every row the plan resolves: its length's and all its passes'. The lane kernel's
  // and Rader's candidates run with the user database, as the plan will: their routes run other
  // kernels (Bluestein's inner FFT in the lane kernel, whose rows an earlier job stored), and
  // without them Rader's job on a 2-core PoCL device measured the one-launch routes at 63-78 ms
  // against 11.6 with the stored lane rows, and stored the six-launch one.
  Tuning tuning(const ParamMap& p) const {
    if (now_ && (p == default_ || p == current_)) return Tuning{};
    if (!lanes_ && p == default_) return Tuning{{}, false};
    Tuning t{p, lanes_};
    if (!lanes_) t.overrides["FFT_LANES"] = 0;
    return t;
  }

  // A real-input candidate's plan is made here, on a queue of the context's device, and kept.
  void build(const QueueContext& qc, const Configuration& cfg) const override {
    if (!z_.real) return fft_build_programs(qc, desc_, tuning(cfg.values));
    const cl::CommandQueue q(qc.context, qc.device);
    real_plans_.keep(cfg.values, std::make_shared<const RealFftPlan>(q, real_desc_, tuning(cfg.values)));
  }

  void poison(cl::CommandQueue& queue) override { out_.poison(queue); }

  // A candidate's plan is made at its first (untimed, warm-up) run and kept, so that the run-off,
  // which interleaves candidates, times their launches and never a plan's construction between
  // the markers of a multi-launch plan.
  cl::Event run(cl::CommandQueue& queue, const ParamMap& params) override {
    cl::Event ev;
    if (z_.real) {  // R2C, then C2R of its spectrum into the round trip's rows: timed between markers
      const auto plan = real_plans_.get(
          params, [&] { return std::make_shared<const RealFftPlan>(queue, real_desc_, tuning(params)); });
      plan->enqueue(queue, FftDirection::Forward, in_, out_.buffer());
      plan->enqueue(queue, FftDirection::Inverse, out_.buffer(), out_.buffer());
      return cl::Event();
    }
    const auto plan = plans_.get(params, [&] { return std::make_shared<const FftPlan>(queue, desc_, tuning(params)); });
    plan->forward(in_, out_.buffer(), {}, &ev);
    return plan->launches() == 1 ? ev : cl::Event();  // passes: timed between markers
  }

  std::vector<float>& read_output(cl::CommandQueue& queue) override { return out_.read(queue); }

  // Every value finite and the guard intact, then the relative L2 error of each compared
  // transform within host::fft_tolerance.
  Verdict check(const std::vector<float>& out) const override {
    Verdict v;
    if (!out_.scan(out, "the output", v)) return v;
    host::FftError worst;
    std::size_t worst_transform = 0;
    for (const auto& g : groups_) {
      const host::FftError e = host::fft_compare(out.data(), out_length(), g.count, stride(), out_distance(),
                                                 g.first * out_distance() + round_trip_floats() / 2, g.ref);
      worst.max_abs = std::max(worst.max_abs, e.max_abs);
      if (&g == &groups_.front() || e.max_rel_l2 > worst.max_rel_l2) {
        worst.max_rel_l2 = e.max_rel_l2;
        worst_transform = g.first + e.worst;
      }
    }
    const double tol = host::fft_tolerance(z_.n);
    v.error = worst.max_rel_l2;
    v.ok = worst.max_rel_l2 <= tol;
    if (!v.ok) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "transform %zu differs from the host FFT: relative error %.3g above the tolerance %.3g "
                    "(max abs error %.3g)",
                    worst_transform, worst.max_rel_l2, tol, worst.max_abs);
      v.message = text;
    } else if (z_.real) {
      check_round_trip(out, v);
    }
    return v;
  }

  // The round trip's rows (real input): C2R(R2C(x)) = n x, unscaled, per compared transform within
  // twice the length's tolerance (the errors of both directions).
  void check_round_trip(const std::vector<float>& out, Verdict& v) const {
    const double tol = 2 * host::fft_tolerance(z_.n), n = static_cast<double>(z_.n);
    for (const auto& g : groups_) {
      for (std::size_t b = 0; b < g.count; ++b) {
        double num = 0, den = 0;
        for (std::size_t j = 0; j < z_.n; ++j) {
          const double want = n * g.rows[b * z_.n + j], got = out[(g.first + b) * z_.n + j];
          num += (got - want) * (got - want);
          den += want * want;
        }
        const double rel = std::sqrt(num / std::max(den, std::numeric_limits<double>::min()));
        v.error = std::max(v.error, rel);
        if (!(rel <= tol)) {
          char text[200];
          std::snprintf(text, sizeof text,
                        "the round trip C2R(R2C(x)) of transform %zu differs from n x: relative error %.3g "
                        "above the tolerance %.3g",
                        g.first + b, rel, tol);
          v.ok = false;
          v.message = text;
          return;
        }
      }
    }
  }

  // A whole transform: the first compared one, or the first one the sample skips (the middle one
  // when every transform is compared).
  std::vector<std::size_t> fault_region(bool in_sample) const override {
    std::size_t b = z_.batch / 2;
    if (groups_.size() > 1 || groups_.front().count == 1) {
      b = groups_.front().first;
      for (std::size_t i = 0; !in_sample && i < groups_.size() && groups_[i].first == i; ++i) b = i + 1;
      if (b >= z_.batch) b = z_.batch / 2;  // every transform compared
    }
    std::vector<std::size_t> region;
    for (std::size_t k = 0; k < out_length(); ++k)
      for (std::size_t part = 0; part < 2; ++part)
        region.push_back(round_trip_floats() + 2 * (b * out_distance() + k * stride()) + part);
    return region;
  }

  // The round trip's row of the transform fault_region names (real input; none otherwise).
  std::vector<std::size_t> second_region(bool in_sample) const override {
    if (!z_.real) return {};
    const std::size_t b = (fault_region(in_sample).front() - round_trip_floats()) / 2 / out_distance();
    std::vector<std::size_t> region(z_.n);
    for (std::size_t j = 0; j < z_.n; ++j) region[j] = b * z_.n + j;
    return region;
  }

 private:
  // The input's floats (real input: n per transform) and the output's (real input: the half
  // spectrum, n/2 + 1 complex values per transform).
  std::size_t in_floats() const { return (z_.real ? 1 : 2) * z_.n * z_.batch; }
  // Real input: the round trip's rows (n floats per transform, an even count), then the spectrum.
  std::size_t round_trip_floats() const { return z_.real ? (z_.n * z_.batch + 1) / 2 * 2 : 0; }
  std::size_t out_floats() const { return round_trip_floats() + 2 * out_length() * z_.batch; }
  std::size_t out_length() const { return z_.real ? z_.n / 2 + 1 : z_.n; }
  std::size_t stride() const { return z_.interleaved ? z_.batch : 1; }
  std::size_t distance() const { return z_.interleaved ? 1 : z_.n; }
  std::size_t out_distance() const { return z_.real ? out_length() : distance(); }

  // The host FFT of transforms [first, first + count), contiguous (real input: its half spectrum).
  std::vector<host::cdouble> reference(const std::vector<float>& in, std::size_t first, std::size_t count) const {
    if (!z_.real) return host::fft_batch(in.data(), z_.n, count, stride(), distance(), first * distance(), false);
    std::vector<float> pairs(2 * z_.n * count, 0.0f);
    for (std::size_t k = 0; k < z_.n * count; ++k) pairs[2 * k] = in[first * z_.n + k];
    const std::vector<host::cdouble> all = host::fft_batch(pairs.data(), z_.n, count, 1, z_.n, 0, false);
    std::vector<host::cdouble> half;
    for (std::size_t b = 0; b < count; ++b)
      half.insert(half.end(), all.begin() + b * z_.n, all.begin() + b * z_.n + out_length());
    return half;
  }

  // The real input's rows [first, first + count) (the round trip's reference; none otherwise).
  std::vector<float> input_rows(const std::vector<float>& in, std::size_t first, std::size_t count) const {
    if (!z_.real) return {};
    return std::vector<float>(in.begin() + first * z_.n, in.begin() + (first + count) * z_.n);
  }

  // Transforms [first, first + count), their host reference and (real input) their input rows.
  struct Group {
    std::size_t first = 0, count = 0;
    std::vector<host::cdouble> ref;
    std::vector<float> rows;
  };
  // Transforms compared on a timed size: the first, the last and random others, 16 of them up
  // to 2^17 points and fewer above (at least 2): the host reference of sixteen 2^20-point
  // transforms took 4.6 s of a 9.4 s one-candidate tune on the development machine.
  static std::size_t sampled(std::size_t n) {
    return std::clamp<std::size_t>((std::size_t{1} << 21) / std::max<std::size_t>(n, 1), 2, 16);
  }

  FftSize z_;
  bool lanes_;
  ParamMap default_;
  bool now_;
  ParamMap current_;
  FftDesc desc_;
  RealFftDesc real_desc_;
  std::vector<Group> groups_;
  cl::Buffer in_;
  GuardedOutput out_;
  CandidatePlans<FftPlan> plans_;
  CandidatePlans<RealFftPlan> real_plans_;
};

}  // namespace

TuneTarget fft_tune_target() {
  TuneTarget t;
  t.routine = "fft";
  t.kernel = "fft";
  t.size_syntax = kSyntax;
  t.default_sizes = {"1024"};
  t.variant_of = fft_variant;
  // A partial last work-group of transforms, contiguous and interleaved (the staged-across
  // load and store modes), on the class's kernel length.
  // (3 transforms for a length run as passes, whose host reference is long).
  // A real-input class: 37 real-input transforms of each length its sizes time.
  t.check_sizes = [](const std::string& variant, const std::vector<std::string>& sizes) {
    std::vector<std::string> out;
    if (variant.find(":real") != std::string::npos) {
      for (const auto& size : sizes) {
        const std::string c = std::to_string(parse_fft_size(size).n) + "@37:r";
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      }
      return out;
    }
    const std::string n = std::to_string(std::stoull(variant));  // "1024:cols" too
    const std::string batch = fft_pass_length(std::stoull(n)) ? "@3" : "@37";
    return std::vector<std::string>{n + batch, n + batch + ":t"};
  };
  t.make = [](cl::CommandQueue& queue, const std::string& size, std::uint64_t seed,
              Verification verification) -> std::unique_ptr<TuneInstance> {
    return std::make_unique<FftInstance>(queue, parse_fft_size(size), seed, false, verification);
  };
  t.narrow = fft_narrow;
  t.stored_rows = fft_stored_rows;
  t.seed_axes = {"FFT_PASS_MAX"};              // one value per split of a length run as passes, else one
  t.size_work = [](const std::string& size) {  // points transformed: bench all's 512 MiB beside 64
    const FftSize z = parse_fft_size(size);
    return static_cast<double>(z.n) * static_cast<double>(z.batch);
  };
  return t;
}

TuneTarget fft_lanes_tune_target() {
  TuneTarget t = fft_tune_target();
  t.routine = "fft_lanes";
  t.kernel = "fft_lanes";
  t.variant_of = fft_lanes_variant;
  t.make = [](cl::CommandQueue& queue, const std::string& size, std::uint64_t seed,
              Verification verification) -> std::unique_ptr<TuneInstance> {
    return std::make_unique<FftInstance>(queue, parse_fft_size(size), seed, true, verification);
  };
  t.narrow = fft_lanes_narrow;
  t.stored_rows = nullptr;
  // Each lane width first (the vector of transforms a work-item computes: on AVX-512 CPUs 16, 4
  // or 8 elsewhere), then one launch or two, then the block moves, the radix and the second
  // launch's width, each on the best so far: projected from a row without lanes (FFT_LANES 0, a
  // device no row knows) the start is 4 lanes of radix 8, and a class whose share holds a few
  // candidates kept it or a step from it (the 2-core Intel VM's cold start of 2026-11-30: the
  // classes of 4096 points and of real-input 256 stored the start itself).
  t.seed_axes = {"FFT_LANES", "FFT_LANE_MAX", "FFT_LANE_EBLOCK", "FFT_LANE_RADIX", "FFT_LANES2"};
  // The lane kernel is the CPU's (docs/fft.md, CPUs): GPU rows ship FFT_LANES 0, and a GPU
  // would run it with two arrays of n vectors in private memory per work-item.
  t.device_types = {"CPU"};
  t.supersedes = "fft";  // a CPU's plans run the lane kernel where its rows enable it
  return t;
}

}  // namespace clforge::detail
