// The run-off of a size class (TuneOptions::finalists): the search's fastest verified
// candidates timed in full (none cut short), the default and the current configuration timed again with their
// repetitions interleaved on each size (time_regions: A B C, C B A, ...), with twice the search's repetitions; the
// fastest there becomes the result, unless it trades a size for the others: slower than the current
// configuration on one size by more than it is faster as a geometric mean (one row serves every
// shape of its class; a route row that speeds up 640^3 by 20 % and slows 2048^3 by 10 % is no
// gain). A candidate that fails now is logged and the search's result stands.
#include <algorithm>
#include <cmath>
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
  std::vector<std::vector<double>> size_log(ok.size(), std::vector<double>(timed_.size(), 0));
  const AddSeconds lap{r_.timing_s};  // the run-off's time counts as timing
  try {
    std::vector<TuneFault> faults;
    for (const TuneRow* row : ok) faults.push_back(tune_fault(row->params));
    for (std::size_t k = 0; k < timed_.size(); ++k) {
      const auto& inst = timed_[k];
      std::vector<std::function<void()>> runs;
      for (const TuneRow* row : ok) runs.push_back([&inst, this, row] { inst->run(queue_, row->params); });
      const std::vector<Timing> t = time_regions(queue_, runs, plan);
      for (std::size_t i = 0; i < ok.size(); ++i)
        log_sum[i] += size_log[i][k] = log_ms(t[i], fault_scale(faults[i], k));
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
  mark_size_trades(ok, size_log);
  std::stable_sort(r_.runoff.begin(), r_.runoff.end(), [](const TuneRow& x, const TuneRow& y) { return x.ms < y.ms; });
  const auto best = std::find_if(r_.runoff.begin(), r_.runoff.end(), [](const TuneRow& x) { return !x.trades_sizes; });
  r_.best = best->params;  // the current configuration never trades
  r_.best_ms = best->ms;
  for (const auto& row : r_.runoff) {
    if (row.is_default) r_.default_ms = row.ms;
    if (row.is_current) r_.current_ms = row.ms;
  }
  update_speedup();
}

void ClassTuner::mark_size_trades(const std::vector<const TuneRow*>& finalists,
                                  const std::vector<std::vector<double>>& size_log) {
  const std::size_t sizes = timed_.size();
  const auto cur = std::find_if(finalists.begin(), finalists.end(), [](const TuneRow* x) { return x->is_current; });
  if (sizes < 2 || cur == finalists.end()) return;
  const std::vector<double>& c = size_log[cur - finalists.begin()];
  double c_sum = 0;
  for (const double v : c) c_sum += v;
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    double sum = 0, worst = -INFINITY;
    std::size_t at = 0;
    for (std::size_t k = 0; k < sizes; ++k) {
      sum += size_log[i][k];
      if (size_log[i][k] - c[k] > worst) worst = size_log[i][k] - c[k], at = k;
    }
    const double gain = (c_sum - sum) / static_cast<double>(sizes);  // log of the speed-up over the current
    if (gain <= 0 || worst <= gain) continue;
    TuneRow& row = r_.runoff[i];
    row.trades_sizes = true;
    row.message = "slower than the current configuration on " + timed_[at]->label() + " by " +
                  std::to_string(static_cast<int>(std::lround((std::exp(worst) - 1) * 100))) + " %, more than its " +
                  std::to_string(static_cast<int>(std::lround((std::exp(gain) - 1) * 100))) + " % gain overall";
  }
}

}  // namespace clforge::detail
