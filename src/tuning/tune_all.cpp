// tune_all() (clforge/tuning.hpp): the jobs of `clforge tune all` (every routine the tuner knows,
// once per choice of its kernel-selecting options) and one time budget shared over them; jobs whose
// kernel is meant for other device types are skipped.
#include <algorithm>
#include <chrono>
#include <set>

#include "clforge/errors.hpp"
#include "clforge/tuning.hpp"
#include "runtime/compile_workers.hpp"
#include "runtime/queue.hpp"
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
      out.push_back(size);
    } catch (const InvalidArgument&) {
    }
  }
  return out;
}

namespace {
// The size classes a job tunes: its sizes' (or its routine's default sizes') distinct variants.
// A size the target cannot read counts once; tune() reports it.
std::size_t class_count(const TuneAllJob& job) {
  const detail::TuneTarget& target = detail::tune_target(job.routine);
  const std::vector<std::string>& sizes = job.sizes.empty() ? target.default_sizes : job.sizes;
  std::set<std::string> variants;
  for (const auto& size : sizes) {
    try {
      variants.insert(target.variant_of(size));
    } catch (const std::exception&) {
      variants.insert(size);
    }
  }
  return std::max<std::size_t>(1, variants.size());
}
}  // namespace

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
  // The time left is shared by the jobs left in proportion to their size classes.
  std::vector<double> weight(jobs.size() + 1, 0);  // weight[i]: classes of jobs i and after
  for (std::size_t i = jobs.size(); i-- > 0;)
    weight[i] = weight[i + 1] + (detail::tune_target_skip(detail::tune_target(jobs[i].routine), device).empty()
                                     ? static_cast<double>(class_count(jobs[i]))
                                     : 0.0);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    TuneOptions o = options;
    o.sizes = jobs[i].sizes;
    o.routine_options = jobs[i].routine_options;
    if (options.time_limit_s > 0) {
      const double left = options.time_limit_s - elapsed();
      if (left <= 0) break;
      o.time_limit_s = weight[i] > 0 ? left * static_cast<double>(class_count(jobs[i])) / weight[i] : left;
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
