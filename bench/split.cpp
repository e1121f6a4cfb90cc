// Group calls from the command line (split.hpp): the host jobs, `run ROUTINE --devices` and
// `bench split`.
#include "bench/split.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "bench/fft_peers.hpp"
#include "clforge/errors.hpp"
#include "clforge/fft.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"

namespace clforge::bench {

namespace {

using Clock = std::chrono::steady_clock;

class HostArray;
float* named(const std::string& name, std::initializer_list<std::pair<const char*, const HostArray*>> arrays);

// Host floats of a job: a std::vector, or PinnedMemory of the group.
class HostArray {
 public:
  HostArray(std::size_t n, const DeviceGroup* pinned_in) : n_(n) {
    if (pinned_in)
      pinned_ = std::make_unique<PinnedMemory>(*pinned_in, std::max<std::size_t>(n, 1) * 4);
    else
      vec_.resize(n);
  }
  float* data() const { return pinned_ ? pinned_->as<float>() : const_cast<float*>(vec_.data()); }
  std::size_t size() const { return n_; }
  float& operator[](std::size_t i) const { return data()[i]; }

 private:
  std::size_t n_;
  std::vector<float> vec_;
  std::unique_ptr<PinnedMemory> pinned_;
};

float* named(const std::string& name, std::initializer_list<std::pair<const char*, const HostArray*>> arrays) {
  for (const auto& [n, a] : arrays)
    if (name == n) return a->data();
  throw InvalidArgument("split job: no array '" + name + "'");
}

class FftJob : public HostJob {
 public:
  FftJob(const SplitCase& c, const DeviceGroup* pinned)
      : n_(c.x), batch_(c.y), inverse_(c.inverse), in_(2 * c.x * c.y, pinned), out_(in_.size(), pinned) {
    host::fill_random(in_.data(), in_.size(), host::default_seed());
    bytes = 2.0 * 8 * n_ * batch_;
    flops = 5.0 * n_ * std::log2(static_cast<double>(n_)) * batch_;
  }
  void reset() override { host::poison(out_.data(), out_.size()); }
  GroupRun run(const DeviceGroup& g, const SplitOptions& s) override {
    return fft(g, n_, batch_, reinterpret_cast<const std::complex<float>*>(in_.data()),
               reinterpret_cast<std::complex<float>*>(out_.data()), inverse_, s);
  }
  // The largest relative L2 error of bench fft's sample of transforms against FFTW.
  double error() override {
    FftCase c;
    c.shape = {n_};
    c.batch = batch_;
    return sampled_error(
        c,
        [&](std::size_t b, float* x, float* y) {
          std::memcpy(x, in_.data() + 2 * b * n_, n_ * 8);
          std::memcpy(y, out_.data() + 2 * b * n_, n_ * 8);
        },
        inverse_);
  }
  double tolerance() const override { return host::fft_tolerance(n_); }
  float* array(const std::string& name) override { return named(name, {{"in", &in_}, {"out", &out_}}); }
  bool host_vector(cl::CommandQueue& queue) override {
    if (vec_.empty())
      vec_.assign(reinterpret_cast<const std::complex<float>*>(in_.data()),
                  reinterpret_cast<const std::complex<float>*>(in_.data()) + n_ * batch_);
    fft(queue, vec_, n_, inverse_);
    return true;
  }

 private:
  std::size_t n_, batch_;
  bool inverse_;
  HostArray in_, out_;
  std::vector<std::complex<float>> vec_;
};

class TransposeJob : public HostJob {
 public:
  TransposeJob(const SplitCase& c, const DeviceGroup* pinned)
      : rows_(c.x), cols_(c.y), elem_(c.elem), in_(c.x * c.y * c.elem / 4, pinned), out_(in_.size(), pinned) {
    host::fill_random(in_.data(), in_.size(), host::default_seed());
    bytes = 2.0 * static_cast<double>(in_.size()) * 4;
  }
  void reset() override { host::poison(out_.data(), out_.size()); }
  GroupRun run(const DeviceGroup& g, const SplitOptions& s) override {
    return transpose(g, rows_, cols_, elem_, in_.data(), out_.data(), s);
  }
  double error() override {
    std::vector<float> ref(in_.size());
    host::transpose(rows_, cols_, elem_, in_.data(), cols_, ref.data(), rows_);
    return std::memcmp(ref.data(), out_.data(), ref.size() * 4) == 0 ? 0.0 : INFINITY;
  }
  double tolerance() const override { return 0; }
  float* array(const std::string& name) override { return named(name, {{"in", &in_}, {"out", &out_}}); }

 private:
  std::size_t rows_, cols_, elem_;
  HostArray in_, out_;
};

class SgemmJob : public HostJob {
 public:
  SgemmJob(const SplitCase& c, const DeviceGroup* pinned)
      : c_(c), s_(host::tight_gemm_shape(c.row_major, c.trans_a, c.trans_b, c.x, c.y, c.z)) {
    const auto seed = host::default_seed();
    a_ = std::make_unique<HostArray>(std::max<std::size_t>(1, host::gemm_span(s_, 'a')), pinned);
    b_ = std::make_unique<HostArray>(std::max<std::size_t>(1, host::gemm_span(s_, 'b')), pinned);
    out_ = std::make_unique<HostArray>(std::max<std::size_t>(1, host::gemm_span(s_, 'c')), pinned);
    host::fill_random(a_->data(), a_->size(), seed);
    host::fill_random(b_->data(), b_->size(), seed + 1);
    c0_ = host::random_floats(out_->size(), seed + 2);
    bytes = 4.0 * (a_->size() + b_->size() + c0_.size() * (c.beta != 0.0f ? 2 : 1));
    flops = 2.0 * c.x * c.y * c.z;
  }
  void reset() override {
    if (c_.beta != 0.0f)
      std::copy(c0_.begin(), c0_.end(), out_->data());
    else
      host::poison(out_->data(), out_->size());
  }
  GroupRun run(const DeviceGroup& g, const SplitOptions& s) override {
    return sgemm(g, c_.row_major ? Layout::RowMajor : Layout::ColMajor, c_.trans_a ? Transpose::Yes : Transpose::No,
                 c_.trans_b ? Transpose::Yes : Transpose::No, c_.x, c_.y, c_.z, c_.alpha, a_->data(), s_.lda,
                 b_->data(), s_.ldb, c_.beta, out_->data(), s_.ldc, s);
  }
  // 1024 sampled entries of C against the double reference (gemm_scaled_error).
  double error() override {
    std::mt19937_64 rng(host::default_seed());
    std::vector<std::pair<std::size_t, std::size_t>> ij(1024);
    for (auto& e : ij) e = {rng() % c_.x, rng() % c_.y};
    std::vector<double> ref, mag;
    host::gemm_entries(s_, c_.alpha, a_->data(), b_->data(), c_.beta, c0_.data(), ij, ref, &mag);
    std::vector<float> y;
    for (const auto& [i, j] : ij) y.push_back((*out_)[host::gemm_c_index(s_, i, j)]);
    return host::gemm_scaled_error(y.data(), ref.data(), mag.data(), y.size());
  }
  double tolerance() const override { return host::gemm_tolerance(c_.z); }
  float* array(const std::string& name) override {
    return named(name, {{"a", a_.get()}, {"b", b_.get()}, {"out", out_.get()}});
  }

 private:
  SplitCase c_;
  host::GemmShape s_;
  std::unique_ptr<HostArray> a_, b_, out_;
  std::vector<float> c0_;
};

class BlurJob : public HostJob {
 public:
  BlurJob(const SplitCase& c, const DeviceGroup* pinned)
      : c_(c), in_(c.x * c.y * c.channels, pinned), out_(in_.size(), pinned), method_(c.method) {
    host::fill_random(in_.data(), in_.size(), host::default_seed());
    bytes = 2.0 * 4 * static_cast<double>(in_.size());
  }
  void reset() override { host::poison(out_.data(), out_.size()); }
  GroupRun run(const DeviceGroup& g, const SplitOptions& s) override {
    BlurOptions o;
    o.sigma_x = o.sigma_y = c_.sigma;
    o.method = c_.method;
    o.border = c_.border;
    const GroupRun r = gaussian_blur(g, c_.x, c_.y, c_.channels == 4 ? PixelFormat::RGBA32F : PixelFormat::R32F,
                                     in_.data(), out_.data(), o, s);
    method_ =
        c_.method == BlurMethod::Auto
            ? resolve_blur_method(g.queue(0), c_.x, c_.y, c_.channels == 4 ? PixelFormat::RGBA32F : PixelFormat::R32F,
                                  c_.sigma, c_.sigma, s.tuning)
            : c_.method;
    return r;
  }
  double error() override {
    const bool rec = method_ == BlurMethod::Recursive;
    const auto ref =
        rec ? host::recursive_blur(in_.data(), c_.x, c_.y, c_.channels, c_.x, c_.sigma, c_.sigma, c_.border)
            : host::gaussian_blur(in_.data(), c_.x, c_.y, c_.channels, c_.x, c_.sigma, c_.sigma, c_.border);
    const host::Comparison cmp = host::compare(out_.data(), ref.data(), ref.size());
    return cmp.nonfinite ? INFINITY : cmp.rel_error;
  }
  double tolerance() const override {
    return method_ == BlurMethod::Recursive ? host::recursive_blur_tolerance(c_.sigma, c_.sigma)
                                            : host::truncated_blur_tolerance(c_.sigma, c_.sigma);
  }
  float* array(const std::string& name) override { return named(name, {{"in", &in_}, {"out", &out_}}); }

 private:
  SplitCase c_;
  HostArray in_, out_;
  BlurMethod method_;  // the method the error is judged for (Auto: set by run())
};

// `reps` timed whole calls of each configuration, interleaved (sample_runs: A B C, C B A, ...);
// the last run of each configuration kept in `last`.
// The runs before were the warm-up: exactly `reps` timed calls of each, interleaved.
TimingPlan whole_calls(int reps) {
  TimingPlan plan;
  plan.warmup = 0;
  plan.min_reps = plan.max_reps = std::max(1, reps);
  plan.min_time_ms = 0;
  return plan;
}

std::vector<Timing> time_configs(HostJob& job, const DeviceGroup& g, const std::vector<SplitOptions>& configs, int reps,
                                 std::vector<GroupRun>& last) {
  last.assign(configs.size(), {});
  std::vector<std::function<double()>> runs;
  for (std::size_t i = 0; i < configs.size(); ++i)
    runs.push_back([&, i] {
      job.reset();  // not timed
      const auto t0 = Clock::now();
      last[i] = job.run(g, configs[i]);
      return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    });
  return detail::sample_runs(whole_calls(reps), runs);
}

std::string weights_text(const GroupRun& r) {
  if (r.weights.empty()) return "on demand";
  double total = 0;
  for (double w : r.weights) total += w;
  std::string s;
  char buf[32];
  for (double w : r.weights) {
    std::snprintf(buf, sizeof buf, "%s%.0f%%", s.empty() ? "" : "/", 100 * w / total);
    s += buf;
  }
  return s;
}

void print_shares(const DeviceGroup& g, const GroupRun& r, std::size_t items) {
  std::printf("  %-3s %-40s %6s %8s %7s %7s %7s %6s %7s %9s\n", "dev", "device", "share", "items", "chunks", "stolen",
              "chunk", "queues", "staged", "busy ms");
  for (const auto& s : r.shares)
    std::printf("  %-3zu %-40.40s %5.1f%% %8zu %7zu %7zu %7zu %6zu %7s %9.2f\n", s.device,
                (s.name + " [" + g.entry(s.device).info.type + "]").c_str(),
                100.0 * static_cast<double>(s.items) / static_cast<double>(items), s.items, s.chunks, s.stolen, s.chunk,
                s.queues, s.staged ? "yes" : "no", 1e3 * s.seconds);
}

std::size_t items_of(const SplitCase& c) {
  if (c.routine == "sgemm") return c.row_major ? c.x : c.y;
  return c.routine == "fft" ? c.y : c.routine == "transpose" ? c.x : c.y;
}

}  // namespace

std::string SplitCase::shape() const {
  char buf[160];
  if (routine == "fft")
    std::snprintf(buf, sizeof buf, "n=%zu batch=%zu%s", x, y, inverse ? " inverse" : "");
  else if (routine == "sgemm")
    std::snprintf(buf, sizeof buf, "%zux%zux%zu %c%c%s", x, y, z, trans_a ? 'T' : 'N', trans_b ? 'T' : 'N',
                  row_major ? " row-major" : "");
  else if (routine == "transpose")
    std::snprintf(buf, sizeof buf, "%zux%zu elem=%zu", x, y, elem);
  else
    std::snprintf(buf, sizeof buf, "%zux%zu%s sigma %g %s", x, y, channels == 4 ? " rgba" : "", sigma,
                  to_string(method));
  return buf;
}

std::unique_ptr<HostJob> make_host_job(const SplitCase& c, const DeviceGroup& group) {
  const DeviceGroup* pinned = c.pinned ? &group : nullptr;
  if (c.routine == "fft") return std::make_unique<FftJob>(c, pinned);
  if (c.routine == "transpose") return std::make_unique<TransposeJob>(c, pinned);
  if (c.routine == "sgemm") return std::make_unique<SgemmJob>(c, pinned);
  if (c.routine == "blur") return std::make_unique<BlurJob>(c, pinned);
  throw InvalidArgument("split: unknown routine '" + c.routine + "' (fft, sgemm, transpose, blur)");
}

bool run_split(const DeviceGroup& group, const SplitCase& c, const SplitOptions& split, int reps) {
  auto job = make_host_job(c, group);
  job->reset();
  GroupRun r = job->run(group, split);
  const double err = job->error(), tol = job->tolerance();
  // Auto's other calibration calls (each step may be measured up to three times when cold).
  for (int k = 1; k < 3 * kAutoCalibrationCallsMax && r.calibrating; ++k) r = job->run(group, split);
  std::vector<GroupRun> last;
  const Timing t = time_configs(*job, group, {split}, std::max(1, reps), last).front();
  r = last.front();
  std::printf("%s %s on %zu devices: %s split (%s)\n", c.routine.c_str(), c.shape().c_str(), group.size(),
              to_string(r.mode), weights_text(r).c_str());
  print_shares(group, r, items_of(c));
  std::printf("  %.3f ms median of %d calls (host data to host data), %.2f GB/s", t.median_ms, t.reps,
              job->bytes / t.median_ms / 1e6);
  if (job->flops > 0) std::printf(", %.1f GFLOP/s", job->flops / t.median_ms / 1e6);
  std::printf("\n  error against the host reference %.2e, tolerance %.2e: %s\n", err, tol, err <= tol ? "ok" : "WRONG");
  return err <= tol;
}

namespace {

// The record of configuration `name` of a split bench; the first configuration (`checked`)
// carries the error against the host reference and fails above the tolerance.
Record split_record(const SplitCase& c, const std::string& name, const HostJob& job, const Timing& t, bool checked,
                    double err, double tol) {
  Record r = Record::of("split " + c.routine, name, c.shape());
  r.timing = t;
  r.bytes = job.bytes;
  r.flops = job.flops;
  if (checked) r.error = err;
  if (checked && !(err <= tol)) r.status = "failed: error above tolerance";
  return r;
}

// `base` with all of the work on device d of D.
SplitOptions alone(const SplitOptions& base, std::size_t D, std::size_t d) {
  SplitOptions o = base;
  o.mode = SplitMode::Weights;
  o.weights.assign(D, 0.0);
  o.weights[d] = 1.0;
  return o;
}

// bench split --resident: the group and each device alone on device-resident shares (each the
// median of SplitOptions::resident_reps computations with every device at once, no transfers).
void bench_resident(const DeviceGroup& group, Report& report, const SplitCase& c, const SplitBenchOptions& o) {
  auto job = make_host_job(c, group);
  const std::size_t D = group.size();
  std::vector<SplitOptions> configs = {o.split};
  std::vector<std::string> names = {"group resident"};
  for (std::size_t d = 0; d < D; ++d) {
    configs.push_back(alone(o.split, D, d));
    names.push_back("device " + std::to_string(d) + " alone resident");
  }
  std::vector<GroupRun> runs;
  double err = 0;
  for (std::size_t k = 0; k < configs.size(); ++k) {
    job->reset();
    runs.push_back(job->run(group, configs[k]));
    if (k == 0) err = job->error();
  }
  const double tol = job->tolerance();
  double best_alone = INFINITY;
  for (std::size_t d = 0; d < D; ++d) best_alone = std::min(best_alone, runs[1 + d].seconds);
  for (std::size_t k = 0; k < configs.size(); ++k) {
    Timing one = summarize(std::vector<double>{1e3 * runs[k].seconds});
    one.reps = configs[k].resident_reps;
    Record r = split_record(c, names[k], *job, one, k == 0, err, tol);
    nlohmann::json shares = nlohmann::json::array();
    for (const auto& s : runs[k].shares)
      shares.push_back({{"device", s.name}, {"items", s.items}, {"ms", 1e3 * s.seconds}});
    r.params = {{"resident", true}, {"weights", runs[k].weights}, {"shares", shares}};
    report.add(r);
  }
  if (!o.print) return;
  std::printf("%s %s on %zu devices, device-resident (%s): median of %d computations with every device at once\n",
              c.routine.c_str(), c.shape().c_str(), D, weights_text(runs[0]).c_str(), o.split.resident_reps);
  print_shares(group, runs[0], items_of(c));
  for (std::size_t k = 0; k < configs.size(); ++k)
    std::printf("  %-28s %10.3f ms %9.2f GB/s\n", names[k].c_str(), 1e3 * runs[k].seconds,
                job->bytes / runs[k].seconds / 1e9);
  std::printf("  speed-up over the best device alone %.2fx; error %.2e (tolerance %.2e): %s\n",
              best_alone / runs[0].seconds, err, tol, err <= tol ? "ok" : "WRONG");
}

}  // namespace

void bench_split(const DeviceGroup& group, Report& report, const SplitCase& c, const SplitBenchOptions& o) {
  if (o.split.resident_reps > 0) return bench_resident(group, report, c, o);
  auto job = make_host_job(c, group);
  const std::size_t D = group.size();
  std::vector<SplitOptions> configs = {o.split};
  configs.push_back(o.split);
  configs.back().overlap = false;
  for (std::size_t d = 0; d < D; ++d) configs.push_back(alone(o.split, D, d));
  // A first call of each (plans, kernels), the group's checked; Auto calibrates in three calls
  // (the devices together, the fastest alone, the split) and one more per halving of the others'
  // shares after a losing split, all before the other configurations (the one without overlap
  // is an Auto call too, which uses what they stored).
  job->reset();
  GroupRun first = job->run(group, configs[0]);
  const double err = job->error(), tol = job->tolerance();
  for (int k = 1; k < 3 * kAutoCalibrationCallsMax && first.calibrating; ++k) first = job->run(group, configs[0]);
  for (std::size_t k = 1; k < configs.size(); ++k) job->run(group, configs[k]);
  std::vector<GroupRun> last;
  const std::vector<Timing> t = time_configs(*job, group, configs, o.reps, last);

  // The library's host-vector overload on device 0 (pageable memory, copy in, compute, copy out).
  Timing hv;
  if (job->host_vector(group.queue(0))) {
    hv = detail::sample_runs(whole_calls(o.reps), {[&] {
                               const auto t0 = Clock::now();
                               job->host_vector(group.queue(0));
                               return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
                             }})
             .front();
    report.add(split_record(c, "host-vector fft() on device 0", *job, hv, false, 0, 0));
  }
  const std::string mode = to_string(o.split.mode);
  std::vector<std::string> names = {"group " + mode, "group " + mode + " no overlap"};
  for (std::size_t d = 0; d < D; ++d) names.push_back("device " + std::to_string(d) + " alone");
  double best_alone = INFINITY;
  for (std::size_t d = 0; d < D; ++d) best_alone = std::min(best_alone, t[2 + d].median_ms);
  for (std::size_t k = 0; k < configs.size(); ++k) {
    Record r = split_record(c, names[k], *job, t[k], k == 0, err, tol);
    nlohmann::json shares = nlohmann::json::array();
    for (const auto& s : last[k].shares)
      shares.push_back({{"device", s.name},
                        {"items", s.items},
                        {"chunk", s.chunk},
                        {"chunks", s.chunks},
                        {"stolen", s.stolen},
                        {"queues", s.queues},
                        {"staged", s.staged},
                        {"ms", 1e3 * s.seconds}});
    r.params = {{"mode", to_string(last[k].mode)}, {"weights", last[k].weights}, {"shares", shares}};
    report.add(r);
  }
  if (!o.print) return;
  std::printf("%s %s on %zu devices: %s split (%s)\n", c.routine.c_str(), c.shape().c_str(), D, to_string(last[0].mode),
              weights_text(last[0]).c_str());
  print_shares(group, last[0], items_of(c));
  std::printf("  %-28s %10s %9s %10s\n", "configuration", "median ms", "GB/s", job->flops > 0 ? "GFLOP/s" : "");
  for (std::size_t k = 0; k < configs.size(); ++k) {
    std::printf("  %-28s %10.3f %9.2f", names[k].c_str(), t[k].median_ms, job->bytes / t[k].median_ms / 1e6);
    if (job->flops > 0) std::printf(" %10.1f", job->flops / t[k].median_ms / 1e6);
    std::printf("\n");
  }
  if (hv.reps > 0)
    std::printf("  %-28s %10.3f %9.2f\n", "host-vector fft() on dev 0", hv.median_ms, job->bytes / hv.median_ms / 1e6);
  std::printf(
      "  speed-up over the best device alone %.2fx, over the same split without overlap %.2fx; error %.2e "
      "(tolerance %.2e): %s\n",
      best_alone / t[0].median_ms, t[1].median_ms / t[0].median_ms, err, tol, err <= tol ? "ok" : "WRONG");
}

}  // namespace clforge::bench
