// The run-off of a size class (TuneOptions::finalists): the search's fastest verified
// candidates timed in full (none cut short), the default and the current configuration timed again with their
// repetitions interleaved on each size (time_regions: A B C, C B A, ...), with twice the search's repetitions; the
// fastest there becomes the result. A candidate that fails now is logged and the search's result stands.
#include <algorithm>
#include <functional>
#include <new>

#include "runtime/log.hpp"
#include "tuning/tuner_internal.hpp"
#include "tuning/tuner_testing.hpp"

namespace clforge::detail {

void ClassTuner::runoff() {
  if (opt_.finalists == 0) return;
  std::vector<const TuneRow*> ok, references;
  for (const auto& row : r_.rows)
    if (row.status == CandidateStatus::Ok && !row.cut_short)
      (row.is_default || row.is_current ? references : ok).push_back(&row);
  std::stable_sort(ok.begin(), ok.end(), [](const TuneRow* x, const TuneRow* y) { return x->ms < y->ms; });
  if (ok.size() > opt_.finalists) ok.resize(opt_.finalists);
  ok.insert(ok.end(), references.begin(), references.end());
  if (ok.size() < 2) return;  // nothing to decide
  TimingPlan plan = plan_;
  plan.min_reps *= 2;
  plan.max_reps *= 2;
  plan.min_time_ms *= 2;
  std::vector<double> log_sum(ok.size(), 0);
  const AddSeconds lap{r_.timing_s};  // the run-off's time counts as timing
  try {
    std::vector<double> scale;
    for (const TuneRow* row : ok) scale.push_back(tune_fault(row->params).time_scale);
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
    row.ms = class_score(log_sum[i], timed_.size());
    row.cached = false;
    r_.runoff.push_back(row);
  }
  std::stable_sort(r_.runoff.begin(), r_.runoff.end(), [](const TuneRow& x, const TuneRow& y) { return x.ms < y.ms; });
  r_.best = r_.runoff.front().params;
  r_.best_ms = r_.runoff.front().ms;
  for (const auto& row : r_.runoff) {
    if (row.is_default) r_.default_ms = row.ms;
    if (row.is_current) r_.current_ms = row.ms;
  }
  update_speedup();
}

}  // namespace clforge::detail
