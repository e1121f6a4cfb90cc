// tune_all() (clforge/tuning.hpp): the jobs of `clforge tune all` (every routine the tuner knows,
// once per choice of its kernel-selecting options) and one time budget shared over them; jobs whose
// kernel is meant for other device types are skipped.
#include <chrono>

#include "clforge/errors.hpp"
#include "clforge/tuning.hpp"
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
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    TuneOptions o = options;
    o.sizes = jobs[i].sizes;
    o.routine_options = jobs[i].routine_options;
    if (options.time_limit_s > 0) {
      const double left = options.time_limit_s - elapsed();
      if (left <= 0) break;
      o.time_limit_s = left / static_cast<double>(jobs.size() - i);
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
