// tune_all() (clforge/tuning.hpp): the jobs of `clforge tune all` (every routine the tuner knows,
// once per choice of its kernel-selecting options) and one time budget shared over them; jobs whose
// kernel is meant for other device types are skipped.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "clforge/errors.hpp"
#include "clforge/tuning.hpp"
#include "runtime/compile_workers.hpp"
#include "runtime/queue.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge {

std::string TuneAllJob::name() const {
  std::string n = routine;
  for (const auto& [key, value] : routine_options) n += " " + key + "=" + value;
  return n;
}

std::vector<TuneAllJob> tune_all_jobs(const std::map<std::string, std::vector<std::string>>& sizes) {
  const std::vector<TuneRoutineInfo> routines = tune_routines();
  for (const auto& [routine, given] : sizes) {
    bool known = false;
    for (const auto& r : routines) known = known || r.name == routine;
    if (!known) throw InvalidArgument("tune all: sizes for " + routine + ", which is no routine of the tuner");
  }
  std::vector<TuneAllJob> jobs;
  for (const auto& r : routines) {
    std::vector<TuneAllJob> mine(1);
    mine[0].routine = r.name;
    if (const auto it = sizes.find(r.name); it != sizes.end()) mine[0].sizes = it->second;
    for (const auto& option : r.options) {
      if (option.choices.empty()) continue;
      std::vector<TuneAllJob> expanded;
      for (const auto& job : mine)
        for (const auto& choice : option.choices) {
          expanded.push_back(job);
          expanded.back().routine_options[option.name] = choice;
        }
      mine = std::move(expanded);
    }
    jobs.insert(jobs.end(), mine.begin(), mine.end());
  }
  return jobs;
}

std::vector<std::string> tunable_sizes(const std::string& routine, const std::vector<std::string>& sizes) {
  const detail::TuneTarget& target = detail::tune_target(routine);
  std::vector<std::string> out;
  for (const auto& size : sizes) {
    try {
      target.variant_of(size);
      if (target.tune_all_keeps && !target.tune_all_keeps(size)) continue;
      const std::string timed = target.tune_all_size ? target.tune_all_size(size) : size;
      if (std::find(out.begin(), out.end(), timed) == out.end()) out.push_back(timed);
    } catch (const InvalidArgument&) {
    }
  }
  return out;
}

namespace {
// The job's target as tune() configures it: the routine's options, each the job's value or its default.
detail::TuneTarget configured_target(const TuneAllJob& job) {
  const detail::TuneTarget& base = detail::tune_target(job.routine);
  if (!base.configure) return base;
  std::map<std::string, std::string> values;
  for (const auto& o : base.options) {
    const auto it = job.routine_options.find(o.name);
    values[o.name] = it != job.routine_options.end() ? it->second : o.default_value;
  }
  return base.configure(values);
}

// The size classes a job tunes: its sizes' (or its target's default sizes') variants, each with
// its sizes. A size the target cannot read is a class of its own; tune() reports it.
std::map<std::string, std::vector<std::string>> job_classes(const detail::TuneTarget& target, const TuneAllJob& job) {
  std::map<std::string, std::vector<std::string>> classes;
  for (const auto& size : job.sizes.empty() ? target.default_sizes : job.sizes) {
    try {
      classes[target.variant_of(size)].push_back(size);
    } catch (const std::exception&) {
      classes[size].push_back(size);
    }
  }
  return classes;
}
}  // namespace

namespace detail {
double space_terms(const KernelSpec& spec, const std::map<std::string, std::vector<int>>& narrowed) {
  double terms = 1;
  for (const auto& p : spec.params) {
    const auto it = narrowed.find(p.name);
    const std::size_t count = it != narrowed.end() ? it->second.size() : p.legal.size();
    terms += static_cast<double>(std::max<std::size_t>(1, count) - 1);
  }
  return terms;
}

double tune_all_weight(const TuneAllJob& job, const DeviceInfo& device) {
  const TuneTarget target = configured_target(job);
  if (!tune_target_skip(target, device).empty()) return 0;
  const KernelSpec& spec = kernel_spec(target.kernel);
  double weight = 0;
  for (const auto& [variant, sizes] : job_classes(target, job)) {
    std::map<std::string, std::vector<int>> narrowed;
    try {
      if (target.narrow)
        narrowed = target.narrow(variant, sizes,
                                 resolve_configuration(spec.name, variant, device, Tuning{{}, false}).values, device);
    } catch (const std::exception&) {
      // A size tune() will refuse: the class weighs its declared space.
    }
    weight += space_terms(spec, narrowed);
  }
  return weight;
}

std::vector<double> tune_all_job_weights(const std::vector<TuneAllJob>& jobs, const DeviceInfo& device,
                                         std::vector<char>* superseded) {
  std::vector<double> weights(jobs.size(), 0);
  std::set<std::string> others;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    weights[i] = tune_all_weight(jobs[i], device);
    const std::string& other = tune_target(jobs[i].routine).supersedes;
    if (weights[i] > 0 && !other.empty()) others.insert(other);
  }
  if (superseded) superseded->assign(jobs.size(), 0);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (weights[i] > 0 && others.count(jobs[i].routine)) {
      weights[i] = 1;
      if (superseded) (*superseded)[i] = 1;
    }
  return weights;
}

std::vector<double> tune_all_shares(std::vector<double> weights, const std::vector<char>& superseded) {
  const auto floored = [&](std::size_t i) { return weights[i] > 0 && (i >= superseded.size() || !superseded[i]); };
  double sum = 0, running = 0;
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (floored(i)) sum += weights[i], running += 1;
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (floored(i)) weights[i] = std::max(weights[i], sum / running);
  return weights;
}
}  // namespace detail

TuneAllResult tune_all(cl::CommandQueue& queue, const std::vector<TuneAllJob>& jobs, const TuneOptions& options,
                       const std::function<void(std::size_t)>& started) {
  using Clock = std::chrono::steady_clock;
  if (!(options.time_limit_s >= 0)) throw InvalidArgument("tune all: the time limit must be >= 0");
  const auto t0 = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const detail::QueueContext qc = detail::queue_context_of(queue);
  const DeviceInfo& device = *qc.info;
  TuneAllResult all;
  all.jobs = jobs;
  // One pool of compile workers serves every job (starting one costs each worker a driver start).
  const std::unique_ptr<detail::CompileWorkers> workers = detail::start_compile_workers(options, qc);
  const detail::CompileWorkerScope worker_scope(workers.get());
  // The time left is shared by the jobs left in proportion to their weights (tune_all_shares).
  std::vector<double> own(jobs.size(), 0), weight(jobs.size() + 1, 0);  // weight[i]: of jobs i and after
  std::vector<char> superseded;
  own = detail::tune_all_shares(detail::tune_all_job_weights(jobs, device, &superseded), superseded);
  for (std::size_t i = jobs.size(); i-- > 0;) weight[i] = weight[i + 1] + own[i];
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    TuneOptions o = options;
    o.sizes = jobs[i].sizes;
    o.routine_options = jobs[i].routine_options;
    o.screen_costly_sizes = true;
    if (options.time_limit_s > 0) {
      const double left = options.time_limit_s - elapsed();
      if (left <= 0) break;
      o.time_limit_s = weight[i] > 0 ? left * own[i] / weight[i] : left;
    }
    if (started) started(i);
    const std::string skip = detail::tune_target_skip(detail::tune_target(jobs[i].routine), device);
    if (!skip.empty()) {
      all.results.emplace_back();
      all.results.back().routine = jobs[i].routine;
      all.results.back().skipped = skip;
      continue;
    }
    all.results.push_back(tune(queue, jobs[i].routine, o));
    if (all.results.back().interrupted) {
      all.interrupted = true;
      break;
    }
  }
  all.elapsed_s = elapsed();
  return all;
}

}  // namespace clforge
