// The tuner behind clforge::tune() and `clforge tune`: builds each size class's search space
// from the kernel's declared values (pruned by its constraints and the device's limits),
// measures the shipped default first, compiles candidates in concurrent batches, verifies
// every candidate against the host reference on poisoned outputs, times it with profiling
// events, and stores the fastest verified one in the user database (tuning.hpp, docs/tuning.md).
#include "tuning/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <exception>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "clforge/errors.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "runtime/log.hpp"
#include "runtime/timing.hpp"
#include "tuning/spec.hpp"

namespace clforge {

const char* to_string(TuneStrategy s) {
  switch (s) {
    case TuneStrategy::Auto: return "auto";
    case TuneStrategy::Exhaustive: return "exhaustive";
    case TuneStrategy::Random: return "random";
    case TuneStrategy::Anneal: return "anneal";
  }
  return "?";
}

TuneStrategy parse_tune_strategy(const std::string& name) {
  for (TuneStrategy s : {TuneStrategy::Auto, TuneStrategy::Exhaustive, TuneStrategy::Random, TuneStrategy::Anneal})
    if (name == to_string(s)) return s;
  throw InvalidArgument("unknown tuning strategy '" + name + "' (known: auto, exhaustive, random, anneal)");
}

const char* to_string(CandidateStatus s) {
  switch (s) {
    case CandidateStatus::Ok: return "ok";
    case CandidateStatus::Rejected: return "rejected";
    case CandidateStatus::BuildFailed: return "build failed";
    case CandidateStatus::RunFailed: return "run failed";
  }
  return "?";
}

std::size_t TuneResult::tried() const {
  std::size_t n = 0;
  for (const auto& c : classes) n += c.tried;
  return n;
}
std::size_t TuneResult::rejected() const {
  std::size_t n = 0;
  for (const auto& c : classes) n += c.rejected;
  return n;
}
std::size_t TuneResult::build_failed() const {
  std::size_t n = 0;
  for (const auto& c : classes) n += c.build_failed;
  return n;
}

namespace detail {

const TuneTarget& tune_target(const std::string& routine) {
  for (const auto& t : all_tune_targets())
    if (t.routine == routine) return t;
  std::string known;
  for (const auto& t : all_tune_targets()) known += (known.empty() ? "" : ", ") + t.routine;
  throw InvalidArgument("no tuner for routine '" + routine + "' (known: " + known + ")");
}

GuardedOutput::GuardedOutput(const cl::Context& context, std::size_t n, const std::string& what) : n_(n) {
  cl_int st = CL_SUCCESS;
  buffer_ = cl::Buffer(context, CL_MEM_READ_WRITE, (n + kGuard) * sizeof(float), nullptr, &st);
  check(st, "clCreateBuffer", what);
}

void GuardedOutput::poison(cl::CommandQueue& queue) const {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  check(queue.enqueueFillBuffer(buffer_, nan, 0, (n_ + kGuard) * sizeof(float)), "clEnqueueFillBuffer");
  check(queue.finish(), "clFinish");
}

std::vector<float> GuardedOutput::read(cl::CommandQueue& queue) const {
  std::vector<float> out(n_ + kGuard);
  check(queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, out.size() * sizeof(float), out.data()), "clEnqueueReadBuffer");
  return out;
}

cl::Buffer input_buffer(const cl::Context& context, const std::vector<float>& data, const std::string& what) {
  cl_int st = CL_SUCCESS;
  cl::Buffer b(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(data.size(), 1) * 4,
               const_cast<float*>(data.data()), &st);
  check(st, "clCreateBuffer", what);
  return b;
}

bool GuardedOutput::wrong_size(const std::vector<float>& out, Verdict& v) const {
  if (out.size() == n_ + kGuard) return false;
  v.message = "output has " + std::to_string(out.size()) + " values, expected " + std::to_string(n_ + kGuard);
  v.error = 1;
  return true;
}

std::size_t GuardedOutput::guard_hits(const std::vector<float>& out) const {
  std::size_t hits = 0;
  for (std::size_t i = n_; i < n_ + kGuard && i < out.size(); ++i) hits += !std::isnan(out[i]);
  return hits;
}

bool GuardedOutput::note_guard(const std::vector<float>& out, const std::string& what, std::string& message) const {
  const std::size_t hits = guard_hits(out);
  if (hits == 0) return true;
  message += std::string(message.empty() ? "" : "; ") + std::to_string(hits) + " guard values after " + what +
             " were overwritten";
  return false;
}

std::size_t parse_size_count(const std::string& text, const std::string& routine, const std::string& size,
                             const std::string& syntax, std::size_t max) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (...) {
    used = 0;
  }
  if (text.empty() || used != text.size() || text[0] < '0' || text[0] > '9' || v == 0 || v > max)
    throw InvalidArgument(routine + " size '" + size + "': '" + text + "' is not a count from 1 to " +
                          (max == INT_MAX ? std::string("2^31-1") : std::to_string(max)) + " (sizes are " + syntax +
                          ")");
  return static_cast<std::size_t>(v);
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Spaces up to this many combinations are enumerated; a larger one is sampled: random draws,
// each parameter's value uniform in its list, keep the legal and fitting ones.
constexpr std::size_t kMaxSpace = 4000000;
constexpr std::size_t kMaxDraws = 400000;       // draws of a sampled space
constexpr std::size_t kSampledCandidates = 20000;  // candidates kept from a sampled space

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// ------------------------------------------------------------------ search space

struct Space {
  std::vector<std::string> names;           // spec parameter order
  std::vector<std::vector<int>> values;     // values searched per parameter
  std::vector<ParamMap> candidates;         // legal and fitting: all (enumeration order) or a sample
  std::size_t total = 0, illegal = 0, unfit = 0;
  bool sampled = false;                     // candidates are a random sample; illegal/unfit count draws
  std::size_t draws = 0;                    // combinations drawn (sampled) or enumerated
  std::function<bool(const ParamMap&)> admissible;  // legal and fitting (any point of the space)
};

Space build_space(const KernelSpec& spec, const std::map<std::string, std::vector<int>>& restrict_to,
                  const std::string& variant, const DeviceInfo& dev, std::uint64_t seed) {
  Space s;
  for (const auto& [name, vals] : restrict_to) {
    const ParamInfo* p = spec.find(name);
    if (p == nullptr) {
      std::string known;
      for (const auto& q : spec.params) known += (known.empty() ? "" : ", ") + q.name;
      throw InvalidArgument("unknown parameter '" + name + "' for kernel " + spec.name + " (known: " + known + ")");
    }
    if (vals.empty()) throw InvalidArgument("no values given for parameter " + name);
    for (int v : vals) {
      if (std::find(p->legal.begin(), p->legal.end(), v) == p->legal.end()) {
        std::string legal;
        for (int l : p->legal) legal += (legal.empty() ? "" : ", ") + std::to_string(l);
        throw InvalidArgument("parameter " + name + "=" + std::to_string(v) + " is not legal for kernel " + spec.name +
                              " (legal: " + legal + ")");
      }
    }
  }
  double product = 1;
  for (const auto& p : spec.params) {
    s.names.push_back(p.name);
    auto it = restrict_to.find(p.name);
    std::vector<int> vals = it != restrict_to.end() ? it->second : p.legal;
    std::vector<int> unique;
    for (int v : vals)
      if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
    product *= static_cast<double>(unique.size());
    s.values.push_back(std::move(unique));
  }
  // 0: admissible; 1: illegal combination; 2: does not fit the device.
  auto classify = [&spec, variant, &dev](const ParamMap& p) {
    if (spec.check && !spec.check(p, variant).empty()) return 1;
    if (!fit_problem(spec, p, variant, dev).empty()) return 2;
    return 0;
  };
  s.admissible = [classify](const ParamMap& p) { return classify(p) == 0; };
  // Configurations that build the same kernel as an earlier one (KernelSpec::canonical) are
  // counted as illegal: searching them again would only repeat a measurement.
  std::set<ParamMap> representatives;
  auto count = [&](ParamMap p) {
    const int k = classify(p);
    if (k == 1) ++s.illegal;
    else if (k == 2) ++s.unfit;
    else if (spec.canonical && !representatives.insert(spec.canonical(p)).second) ++s.illegal;
    else s.candidates.push_back(std::move(p));
  };
  s.total = product > 1e18 ? static_cast<std::size_t>(1e18) : static_cast<std::size_t>(product);
  if (product > static_cast<double>(kMaxSpace)) {
    s.sampled = true;
    std::mt19937_64 rng(seed);
    std::set<ParamMap> seen;
    while (s.draws < kMaxDraws && s.candidates.size() < kSampledCandidates) {
      ++s.draws;
      ParamMap p;
      for (std::size_t i = 0; i < s.names.size(); ++i)
        p[s.names[i]] = s.values[i][std::uniform_int_distribution<std::size_t>(0, s.values[i].size() - 1)(rng)];
      if (seen.insert(p).second) count(std::move(p));
    }
    return s;
  }
  std::vector<std::size_t> idx(s.names.size(), 0);
  for (std::size_t n = 0; n < s.total; ++n) {
    ParamMap p;
    for (std::size_t i = 0; i < idx.size(); ++i) p[s.names[i]] = s.values[i][idx[i]];
    count(std::move(p));
    for (std::size_t i = idx.size(); i-- > 0;) {  // odometer, last parameter fastest
      if (++idx[i] < s.values[i].size()) break;
      idx[i] = 0;
    }
  }
  s.draws = s.total;
  return s;
}

// ------------------------------------------------------------------ one size class

class ClassTuner {
 public:
  ClassTuner(cl::CommandQueue& queue, const TuneTarget& target, const KernelSpec& spec, const TuneOptions& opt,
             TuneStrategy strategy, TuneClassResult& out, std::uint64_t seed, Clock::time_point start,
             Clock::time_point deadline, std::size_t class_index, std::size_t class_count)
      : queue_(queue),
        qc_(queue_context_of(queue)),
        target_(target),
        spec_(spec),
        opt_(opt),
        strategy_(strategy),
        r_(out),
        rng_(seed),
        seed_(seed),
        start_(start),
        class_start_(Clock::now()),
        deadline_(deadline),
        class_index_(class_index),
        class_count_(class_count) {
    plan_.warmup = std::max(0, opt.warmup);
    plan_.min_reps = std::max(1, opt.min_reps);
    plan_.max_reps = std::max(plan_.min_reps, opt.max_reps);
    plan_.min_time_ms = std::max(0.0, opt.min_time_ms);
    // Routines of several kernels are timed between markers: back-to-back calls per region, as
    // in the benchmarks, so that a call's host cost (about 80 us for a tiled sgemm on the H100's
    // host) overlaps the device instead of being counted as device time.
    plan_.region_ms = kRegionMs;
    threads_ = opt.compile_threads != 0 ? opt.compile_threads
                                        : std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  }

  // Returns false when stopped through the stop flag.
  bool run(const Space& space) {
    std::uint64_t s = seed_;
    for (const auto& size : r_.sizes) timed_.push_back(target_.make(queue_, size, ++s));
    if (target_.check_sizes)
      for (const auto& size : target_.check_sizes(r_.variant)) checked_.push_back(target_.make(queue_, size, ++s));

    candidates_ = space.candidates;
    valid_.insert(candidates_.begin(), candidates_.end());
    const bool default_in_space = valid_.count(r_.default_params) != 0;
    std::size_t total = candidates_.size() + (default_in_space ? 0 : 1);
    if (opt_.budget != 0) total = std::min(total, opt_.budget);
    total_ = total;

    // The reference first, whatever the strategy.
    evaluate_batch({r_.default_params}, true);
    visited_.insert(r_.default_params);

    if (strategy_ == TuneStrategy::Anneal) {
      anneal(space);
    } else {
      std::vector<ParamMap> order;
      for (const auto& c : candidates_)
        if (c != r_.default_params) order.push_back(c);
      if (strategy_ == TuneStrategy::Random) std::shuffle(order.begin(), order.end(), rng_);
      std::size_t next = 0;
      while (next < order.size() && may_start_batch()) {
        const std::size_t n = std::min<std::size_t>({threads_, order.size() - next, left()});
        std::vector<ParamMap> batch(order.begin() + next, order.begin() + next + n);
        next += n;
        evaluate_batch(batch, false);
      }
    }
    if (!stopped()) runoff();
    return !stopped();
  }

 private:
  bool stopped() const { return opt_.stop != nullptr && opt_.stop->load(); }
  std::size_t left() const { return r_.tried >= total_ ? 0 : total_ - r_.tried; }
  bool may_continue() const { return !stopped() && left() > 0 && Clock::now() < deadline_; }
  // Another batch is started only if the last one (compiles and evaluations) would still end
  // before the time limit, so that a --time run ends within its budget rather than after it.
  bool may_start_batch() const {
    return may_continue() && (deadline_ == Clock::time_point::max() || Clock::now() + last_batch_ <= deadline_);
  }

  // Compiles the batch concurrently, then evaluates its members in order on this thread.
  void evaluate_batch(const std::vector<ParamMap>& batch, bool is_default) {
    const auto batch_start = Clock::now();
    struct Lap {  // records the batch's duration however it ends
      Clock::duration& out;
      Clock::time_point t0;
      ~Lap() { out = Clock::now() - t0; }
    } lap{last_batch_, batch_start};
    std::vector<std::exception_ptr> errors(batch.size());
    auto build_one = [&](std::size_t i) {
      if (stopped()) return;
      Configuration cfg;
      cfg.kernel = spec_.name;
      cfg.variant = r_.variant;
      cfg.values = batch[i];
      for (const auto& kv : batch[i]) cfg.sources[kv.first] = "tuner";
      // Past the time limit nothing new is compiled (the evaluation below stops too); a build
      // already running is not interrupted.
      auto late = [&] { return !is_default && Clock::now() >= deadline_; };
      try {
        for (auto* group : {&timed_, &checked_})
          for (const auto& inst : *group) {
            if (late()) return;
            inst->build(qc_, cfg);
          }
      } catch (...) {
        errors[i] = std::current_exception();
      }
    };
    const std::size_t nthreads = std::min<std::size_t>(threads_, batch.size());
    if (nthreads <= 1) {
      for (std::size_t i = 0; i < batch.size(); ++i) build_one(i);
    } else {
      std::atomic<std::size_t> next{0};
      std::vector<std::thread> pool;
      for (std::size_t t = 0; t < nthreads; ++t)
        pool.emplace_back([&] {
          for (std::size_t i; (i = next++) < batch.size();) build_one(i);
        });
      for (auto& th : pool) th.join();
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!is_default && !may_continue()) break;
      visited_.insert(batch[i]);
      TuneRow row = evaluate(batch[i], errors[i]);
      row.is_default = is_default;
      record(row);
    }
  }

  TuneRow evaluate(const ParamMap& p, const std::exception_ptr& build_error) {
    TuneRow row;
    row.params = p;
    const std::string what = spec_.name + " " + describe_params(p);
    try {
      if (build_error) std::rethrow_exception(build_error);
      const TuneFault fault = opt_.fault ? opt_.fault(p) : TuneFault{};
      // Verification on every size (timed ones and the odd check sizes), outputs poisoned.
      for (auto* group : {&timed_, &checked_}) {
        for (const auto& inst : *group) {
          inst->poison(queue_);
          cl::Event ev = inst->run(queue_, p);
          check(ev() != nullptr ? ev.wait() : queue_.finish(), "clWaitForEvents");
          std::vector<float> out = inst->read_output(queue_);
          if (fault.corrupt_output && !out.empty()) out[out.size() / 2] = std::numeric_limits<float>::quiet_NaN();
          const Verdict v = inst->check(out);
          row.error = std::max(row.error, v.error);
          if (!v.ok) {
            row.status = CandidateStatus::Rejected;
            row.message = inst->label() + ": " + (v.message.empty() ? "wrong result" : v.message);
            log(LogLevel::Info, "tune: rejected " + what + ": " + row.message);
            return row;
          }
        }
      }
      // Timing: median per size, geometric mean over the sizes of the class.
      double log_sum = 0;
      for (const auto& inst : timed_) {
        cl::Event probe = inst->run(queue_, p);
        Timing t;
        if (probe() != nullptr) {
          check(probe.wait(), "clWaitForEvents");
          t = time_event(queue_, [&] { return inst->run(queue_, p); }, plan_);
        } else {
          check(queue_.finish(), "clFinish");
          t = time_region(queue_, [&] { inst->run(queue_, p); }, plan_);
        }
        log_sum += log_ms(t, fault.time_scale);
      }
      row.ms = class_score(log_sum);
      row.status = CandidateStatus::Ok;
    } catch (const BuildError& e) {
      row.status = CandidateStatus::BuildFailed;
      row.message = first_line(e.what());
      log(LogLevel::Debug, "tune: " + what + " does not build: " + e.what());
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      row.status = CandidateStatus::RunFailed;
      row.message = first_line(e.what());
      log(LogLevel::Info, "tune: " + what + " failed: " + e.what());
      try {
        queue_.finish();
      } catch (...) {
      }
    }
    return row;
  }

  // A candidate's score: the geometric mean over the class's timed sizes of its median times
  // (log_ms of each, summed), each scaled by the fault hook's time_scale.
  static double log_ms(const Timing& t, double scale) { return std::log(std::max(t.median_ms * scale, 1e-9)); }
  double class_score(double log_sum) const {
    return std::exp(log_sum / static_cast<double>(std::max<std::size_t>(1, timed_.size())));
  }
  void update_speedup() { r_.speedup = r_.default_ms > 0 && r_.best_ms > 0 ? r_.default_ms / r_.best_ms : 0; }

  // The run-off (TuneOptions::finalists): the search's fastest verified candidates and the
  // default timed again with their repetitions interleaved on each size (time_regions: A B C,
  // C B A, ...), with twice the search's repetitions; the fastest there becomes the result.
  // A candidate that fails now is logged and the search's result stands.
  void runoff() {
    if (opt_.finalists == 0) return;
    std::vector<const TuneRow*> ok;
    const TuneRow* def = nullptr;
    for (const auto& row : r_.rows)
      if (row.status == CandidateStatus::Ok) {
        if (row.is_default) def = &row;
        else ok.push_back(&row);
      }
    std::stable_sort(ok.begin(), ok.end(), [](const TuneRow* x, const TuneRow* y) { return x->ms < y->ms; });
    if (ok.size() > opt_.finalists) ok.resize(opt_.finalists);
    if (def != nullptr) ok.push_back(def);
    if (ok.size() < 2) return;  // nothing to decide
    TimingPlan plan = plan_;
    plan.min_reps *= 2;
    plan.max_reps *= 2;
    plan.min_time_ms *= 2;
    std::vector<double> log_sum(ok.size(), 0);
    try {
      std::vector<double> scale;
      for (const TuneRow* row : ok) scale.push_back(opt_.fault ? opt_.fault(row->params).time_scale : 1.0);
      for (const auto& inst : timed_) {
        std::vector<std::function<void()>> runs;
        for (const TuneRow* row : ok) runs.push_back([&inst, this, row] { inst->run(queue_, row->params); });
        const std::vector<Timing> t = time_regions(queue_, runs, plan);
        for (std::size_t i = 0; i < ok.size(); ++i) log_sum[i] += log_ms(t[i], scale[i]);
      }
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      log(LogLevel::Warning, std::string("tune: the run-off failed, the search's result stands: ") + e.what());
      try {
        queue_.finish();
      } catch (...) {
      }
      return;
    }
    for (std::size_t i = 0; i < ok.size(); ++i) {
      TuneRow row = *ok[i];
      row.ms = class_score(log_sum[i]);
      r_.runoff.push_back(row);
    }
    std::stable_sort(r_.runoff.begin(), r_.runoff.end(), [](const TuneRow& x, const TuneRow& y) { return x.ms < y.ms; });
    r_.best = r_.runoff.front().params;
    r_.best_ms = r_.runoff.front().ms;
    for (const auto& row : r_.runoff)
      if (row.is_default) r_.default_ms = row.ms;
    update_speedup();
  }

  void record(const TuneRow& row) {
    ++r_.tried;
    switch (row.status) {
      case CandidateStatus::Ok:
        if (row.is_default) r_.default_ms = row.ms;
        if (!r_.has_best || row.ms < r_.best_ms) {
          r_.has_best = true;
          r_.best = row.params;
          r_.best_ms = row.ms;
        }
        break;
      case CandidateStatus::Rejected: ++r_.rejected; break;
      case CandidateStatus::BuildFailed: ++r_.build_failed; break;
      case CandidateStatus::RunFailed: ++r_.run_failed; break;
    }
    if (row.is_default && row.status != CandidateStatus::Ok)
      log(LogLevel::Warning, "tune: the default configuration of " + spec_.name + " (" + describe_params(row.params) +
                                 ") is " + to_string(row.status) + ": " + row.message);
    r_.rows.push_back(row);
    update_speedup();
    if (opt_.progress) {
      TuneProgress pr;
      pr.routine = target_.routine;
      pr.variant = r_.variant;
      pr.done = r_.tried;
      pr.total = std::max(total_, r_.tried);
      pr.class_index = class_index_;
      pr.class_count = class_count_;
      pr.elapsed_s = seconds_since(start_);
      const double class_s = seconds_since(class_start_);
      pr.eta_s = class_s / static_cast<double>(r_.tried) * static_cast<double>(pr.total - r_.tried);
      if (deadline_ != Clock::time_point::max())
        pr.eta_s = std::min(pr.eta_s, std::max(0.0, std::chrono::duration<double>(deadline_ - Clock::now()).count()));
      pr.current = row.params;
      pr.status = row.status;
      pr.current_ms = row.ms;
      pr.best_ms = r_.has_best ? r_.best_ms : 0;
      pr.default_ms = r_.default_ms;
      pr.best = r_.best;
      opt_.progress(pr);
    }
  }

  // Simulated annealing over the value lists: a neighbour changes one parameter to the next
  // or previous value in its list. Each step compiles a batch of unvisited neighbours and
  // moves to the fastest of them (a slower one with probability exp(-(t/t0 - 1) / T)).
  void anneal(const Space& space) {
    ParamMap current = r_.default_params;
    double current_ms = r_.default_ms;
    if (current_ms <= 0 && r_.has_best) {
      current = r_.best;
      current_ms = r_.best_ms;
    }
    const double t0 = 0.05;
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    while (may_start_batch()) {
      std::vector<ParamMap> neighbours;
      for (std::size_t i = 0; i < space.names.size(); ++i) {
        const auto& vals = space.values[i];
        const auto it = current.find(space.names[i]);
        const int value = it == current.end() ? vals.front() : it->second;
        const auto pos = std::find(vals.begin(), vals.end(), value);
        std::vector<int> next;
        if (pos == vals.end()) {
          next = vals;  // the start lies outside the searched values: every value is one step away
        } else {
          if (pos != vals.begin()) next.push_back(*(pos - 1));
          if (pos + 1 != vals.end()) next.push_back(*(pos + 1));
        }
        for (int v : next) {
          ParamMap q = current;
          q[space.names[i]] = v;
          if (!visited_.count(q) && (valid_.count(q) || (space.sampled && space.admissible(q)))) neighbours.push_back(q);
        }
      }
      if (neighbours.empty()) {  // a local dead end: restart from an unvisited candidate
        std::vector<ParamMap> rest;
        for (const auto& c : candidates_)
          if (!visited_.count(c)) rest.push_back(c);
        if (rest.empty()) break;
        neighbours.push_back(rest[std::uniform_int_distribution<std::size_t>(0, rest.size() - 1)(rng_)]);
        current_ms = 0;  // accept the restart point whatever its time
      }
      std::shuffle(neighbours.begin(), neighbours.end(), rng_);
      neighbours.resize(std::min<std::size_t>({neighbours.size(), threads_, left()}));
      const std::size_t before = r_.rows.size();
      evaluate_batch(neighbours, false);
      const TuneRow* step = nullptr;
      for (std::size_t i = before; i < r_.rows.size(); ++i)
        if (r_.rows[i].status == CandidateStatus::Ok && (step == nullptr || r_.rows[i].ms < step->ms))
          step = &r_.rows[i];
      if (step == nullptr) {
        if (r_.rows.size() > before && current_ms == 0) current = r_.rows.back().params;
        continue;
      }
      const double progress = total_ > 0 ? static_cast<double>(r_.tried) / static_cast<double>(total_) : 1.0;
      const double temperature = t0 * std::max(0.02, 1.0 - progress);
      if (current_ms <= 0 || step->ms <= current_ms ||
          uniform(rng_) < std::exp(-(step->ms / current_ms - 1.0) / temperature)) {
        current = step->params;
        current_ms = step->ms;
      }
    }
  }

  cl::CommandQueue& queue_;
  QueueContext qc_;
  const TuneTarget& target_;
  const KernelSpec& spec_;
  const TuneOptions& opt_;
  TuneStrategy strategy_;
  TuneClassResult& r_;
  std::mt19937_64 rng_;
  std::uint64_t seed_;
  Clock::time_point start_, class_start_, deadline_;
  std::size_t class_index_, class_count_;
  TimingPlan plan_;
  unsigned threads_ = 1;
  std::size_t total_ = 0;
  Clock::duration last_batch_{0};  // duration of the last evaluate_batch
  std::vector<std::unique_ptr<TuneInstance>> timed_, checked_;
  std::vector<ParamMap> candidates_;
  std::set<ParamMap> valid_, visited_;
};

std::string store_note(const TuneClassResult& c, TuneStrategy strategy,
                       const std::map<std::string, std::string>& routine_options) {
  std::ostringstream o;
  o.precision(4);
  o << "clforge tune, sizes";
  for (const auto& s : c.sizes) o << " " << s;
  for (const auto& [name, value] : routine_options) o << ", " << name << " " << value;
  o << ", " << to_string(strategy) << ", " << c.tried << " tried: " << c.best_ms << " ms";
  if (c.default_ms > 0) o << " vs default " << c.default_ms << " ms (" << c.speedup << "x)";
  return o.str();
}

// Every option of the target with its value: the caller's (checked) or the default.
std::map<std::string, std::string> option_values(const TuneTarget& t, const std::map<std::string, std::string>& given) {
  for (const auto& [name, value] : given) {
    const auto it = std::find_if(t.options.begin(), t.options.end(),
                                 [&](const TuneRoutineOption& o) { return o.name == name; });
    if (it == t.options.end()) {
      std::string known;
      for (const auto& o : t.options) known += (known.empty() ? "" : ", ") + o.name;
      throw InvalidArgument("routine " + t.routine + " has no tuning option '" + name + "'" +
                            (known.empty() ? std::string(" (it has none)") : " (options: " + known + ")"));
    }
    if (!it->choices.empty() && std::find(it->choices.begin(), it->choices.end(), value) == it->choices.end()) {
      std::string legal;
      for (const auto& c : it->choices) legal += (legal.empty() ? "" : ", ") + c;
      throw InvalidArgument("tuning option " + name + " of " + t.routine + ": '" + value + "' is not one of " + legal);
    }
  }
  std::map<std::string, std::string> values;
  for (const auto& o : t.options) {
    const auto it = given.find(o.name);
    values[o.name] = it != given.end() ? it->second : o.default_value;
  }
  return values;
}

}  // namespace
}  // namespace detail

std::vector<TuneRoutineInfo> tune_routines() {
  std::vector<TuneRoutineInfo> v;
  for (const auto& t : detail::all_tune_targets())
    v.push_back({t.routine, t.kernel, t.size_syntax, t.default_sizes, t.options});
  return v;
}

TuneResult tune(cl::CommandQueue& queue, const std::string& routine, const TuneOptions& options) {
  using namespace detail;
  const auto start = Clock::now();
  const TuneTarget& base = tune_target(routine);
  std::map<std::string, std::string> routine_options = option_values(base, options.routine_options);
  const TuneTarget target = base.configure ? base.configure(routine_options) : base;
  const KernelSpec& spec = kernel_spec(target.kernel);
  const QueueContext qc = queue_context_of(queue);
  const DeviceInfo& dev = *qc.info;
  require(options.time_limit_s >= 0, "tune", "the time limit must not be negative");
  if (!options.dry_run) {
    cl_command_queue_properties props = 0;
    check(queue.getInfo(CL_QUEUE_PROPERTIES, &props), "clGetCommandQueueInfo");
    require((props & CL_QUEUE_PROFILING_ENABLE) != 0, "tune", "the queue needs CL_QUEUE_PROFILING_ENABLE");
  }

  TuneResult result;
  result.routine = routine;
  result.kernel = spec.name;
  result.routine_options = routine_options;
  result.device = dev.name;
  result.database_path = user_database_path(dev);
  result.dry_run = options.dry_run;
  result.strategy = options.strategy;
  const std::uint64_t seed = options.seed != 0 ? options.seed : host::default_seed();

  // Size classes in order of first appearance.
  const std::vector<std::string> sizes = options.sizes.empty() ? target.default_sizes : options.sizes;
  for (const auto& size : sizes) {
    const std::string variant = target.variant_of(size);
    auto it = std::find_if(result.classes.begin(), result.classes.end(),
                           [&](const TuneClassResult& c) { return c.variant == variant; });
    if (it == result.classes.end()) {
      result.classes.emplace_back();
      result.classes.back().variant = variant;
      it = result.classes.end() - 1;
    }
    if (std::find(it->sizes.begin(), it->sizes.end(), size) == it->sizes.end()) it->sizes.push_back(size);
  }

  // An unreadable user database is reported (with its path) before any work, also when
  // CLFORGE_TUNING=off keeps resolve_configuration from reading it.
  if (options.store) check_user_database(dev);
  std::vector<Space> spaces;
  for (auto& c : result.classes) {
    // The reference: what the library uses without the user database. Resolving it with the
    // user database too reports an unreadable user database (with its path) before any work.
    c.default_params = resolve_configuration(spec.name, c.variant, dev, Tuning{{}, false}).values;
    if (options.store) resolve_configuration(spec.name, c.variant, dev, Tuning{});
    // The caller's value lists, then the target's narrowing of the parameters left open.
    std::map<std::string, std::vector<int>> values = options.param_values;
    if (target.narrow)
      for (auto& [name, vals] : target.narrow(c.variant, c.sizes, c.default_params)) values.emplace(name, vals);
    spaces.push_back(build_space(spec, values, c.variant, dev, seed + 7 + 1000 * spaces.size()));
    const Space& s = spaces.back();
    c.space = s.total;
    c.illegal = s.illegal;
    c.unfit = s.unfit;
    c.candidates = s.candidates.size();
    c.sampled = s.sampled;
    c.draws = s.draws;
  }
  const bool any_sampled = std::any_of(spaces.begin(), spaces.end(), [](const Space& s) { return s.sampled; });
  if (result.strategy == TuneStrategy::Auto)
    result.strategy = any_sampled ? TuneStrategy::Anneal
                      : options.budget != 0 || options.time_limit_s > 0 ? TuneStrategy::Random
                                                                         : TuneStrategy::Exhaustive;
  if (any_sampled && result.strategy == TuneStrategy::Exhaustive)
    throw InvalidArgument("the search space of " + spec.name + " has " + std::to_string(spaces.front().total) +
                          " combinations, too many to enumerate (at most " + std::to_string(kMaxSpace) +
                          "): use --strategy random or anneal, or restrict some parameters with --param");
  if (options.dry_run) {
    result.elapsed_s = seconds_since(start);
    return result;
  }

  for (std::size_t i = 0; i < result.classes.size(); ++i) {
    TuneClassResult& c = result.classes[i];
    auto deadline = Clock::time_point::max();
    if (options.time_limit_s > 0) {
      const double left = options.time_limit_s - seconds_since(start);
      const double share = std::max(0.0, left) / static_cast<double>(result.classes.size() - i);
      deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(share));
    }
    {
      ClassTuner tuner(queue, target, spec, options, result.strategy, c, seed + 1000 * i, start, deadline, i,
                       result.classes.size());
      if (!tuner.run(spaces[i])) result.interrupted = true;
    }
    if (options.store && c.has_best) {
      try {
        store_user_entry(dev, spec.name, c.variant, c.best, store_note(c, result.strategy, routine_options));
        c.stored = true;
        log(LogLevel::Info, "tune: stored " + spec.name + " variant " + c.variant + " " + describe_params(c.best) +
                                " in " + result.database_path);
      } catch (const Error& e) {
        c.store_error = e.what();
      }
    } else if (options.store) {
      c.store_error = "no candidate verified; nothing stored";
    }
    if (result.interrupted) break;
  }
  result.elapsed_s = seconds_since(start);
  return result;
}

}  // namespace clforge
