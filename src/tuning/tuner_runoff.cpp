// The run-off of a size class (TuneOptions::finalists): the search's fastest verified
// candidates timed in full (none cut short), the default and the current configuration timed again with their
// repetitions interleaved on each size (time_regions: A B C, C B A, ...), with twice the search's minimum time; the
// fastest there becomes the result, unless it trades a size for the others: slower than the current
// configuration on one size by more than it is faster as a geometric mean (one row serves every
// shape of its class; a route row that speeds up 640^3 by 20 % and slows 2048^3 by 10 % is no
// gain). The class's sizes the search did not time (TuneClassResult::runoff_sizes) are timed here
// too, each but one whose first run of the current configuration takes more than four times its
// slowest timed size's (left out, logged): a row the search found on two sizes of a class of ten
// must not slow the other eight. Past the run's time they are still timed, on the leader and the
// references alone (keep_leader). A candidate that fails now is logged and the search's result
// stands.
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
  std::vector<const TuneRow*> ok, references;  // the references in the search's order
  for (const TuneRow* row : timed_rows())
    if (!row->is_default && !row->is_current && ok.size() < opt_.finalists) ok.push_back(row);
  for (const auto& row : r_.rows)
    if ((row.is_default || row.is_current) && row.status == CandidateStatus::Ok && !row.cut_short)
      references.push_back(&row);
  ok.insert(ok.end(), references.begin(), references.end());
  if (ok.size() < 2) return;  // nothing to decide
  RunoffTimes times;
  const AddSeconds lap{r_.timing_s};  // the run-off's time counts as timing
  try {
    for (const auto& inst : timed_) time_runoff_size(ok, *inst, times);
    time_untimed_sizes(ok, times);
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
    double sum = 0;
    for (const double v : times.logs[i]) sum += v;
    row.ms = class_score(sum, times.labels.size());
    row.cached = false;
    r_.runoff.push_back(row);
  }
  mark_size_trades(ok, times);
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

// Times the finalists on one size, repetitions interleaved, with twice the search's minimum time
// and maximum repetitions: a size of short runs gets twice the search's repetitions, one whose runs
// fill the minimum time alone (above 2 * min_time_ms / min_reps) the search's minimum of them. A
// doubled minimum there bought nothing a run that long needs and cost the most: on two PoCL cores
// the direct blur's run-off at 1024^2, sigma 10 (1.8 s a run) took most of the 86 s of a job
// whose share was about 25 (tools/cold_start.py -d cpu --quick, 2026-11-30).
// The fault hook scales a size by its place in the run-off's list (the timed sizes first).
void ClassTuner::time_runoff_size(const std::vector<const TuneRow*>& finalists, TuneInstance& inst,
                                  RunoffTimes& times) {
  TimingPlan plan = plan_;
  plan.max_reps *= 2;
  plan.min_time_ms *= 2;
  std::vector<std::function<void()>> runs;
  for (const TuneRow* row : finalists) runs.push_back([&inst, this, row] { inst.run(queue_, row->params); });
  const std::vector<Timing> t = time_regions(queue_, runs, plan);
  const std::size_t k = times.labels.size();
  times.labels.push_back(inst.label());
  times.logs.resize(finalists.size());
  for (std::size_t i = 0; i < finalists.size(); ++i)
    times.logs[i].push_back(log_ms(t[i], fault_scale(tune_fault(finalists[i]->params), k)));
}

// The class's sizes the search did not time, one instance at a time (made, timed, released).
void ClassTuner::time_untimed_sizes(std::vector<const TuneRow*>& finalists, RunoffTimes& times) {
  const auto cur = std::find_if(finalists.begin(), finalists.end(), [](const TuneRow* x) { return x->is_current; });
  if (r_.runoff_sizes.empty() || cur == finalists.end() || times.labels.empty()) return;
  const TuneRow* current = *cur;
  const std::vector<double>& current_logs = times.logs[static_cast<std::size_t>(cur - finalists.begin())];
  const double slowest = std::exp(*std::max_element(current_logs.begin(), current_logs.end()));
  bool narrowed = false;
  std::uint64_t seed = seed_ + 1000;
  double timed_work = 0;
  if (target_.size_work)
    for (const auto& size : r_.sizes) timed_work = std::max(timed_work, target_.size_work(size));
  for (const auto& size : r_.runoff_sizes) {
    if (const double ratio = timed_work > 0 ? target_.size_work(size) / timed_work : 0; ratio > 4) {
      log(LogLevel::Info, "tune: run-off without " + size + " (" + std::to_string(ratio) +
                              " times the work of the largest size timed)");
      continue;
    }
    if (stopped()) {
      log(LogLevel::Info, "tune: run-off without " + size + " and the sizes after it: stopped");
      break;
    }
    if (run_time_is_up() && !narrowed) {
      keep_leader(finalists, times, size);
      narrowed = true;
    }
    std::unique_ptr<TuneInstance> inst;
    try {
      inst = target_.make(queue_, size, ++seed, Verification::None);
    } catch (const Error& e) {  // a size this device cannot hold: the others still count
      log(LogLevel::Info, "tune: run-off without " + size + ": " + e.what());
      continue;
    }
    // One run after a warm-up, and where that one is over the limit the faster of it and a second
    // such probe: a single sample of a run well under a millisecond can be an outlier of several
    // times its time (a busy 2-core machine), which would leave the size out and let the run-off
    // choose a candidate that trades it.
    const TimingPlan probe{1, 1, 1, 0};
    const auto probe_ms = [&] {
      return time_regions(queue_, {[&] { inst->run(queue_, current->params); }}, probe)[0].median_ms;
    };
    double ms = probe_ms();
    if (ms > 4 * slowest) ms = std::min(ms, probe_ms());
    if (ms > 4 * slowest) {
      log(LogLevel::Info, "tune: run-off without " + inst->label() + " (" + std::to_string(ms) + " ms a run)");
      continue;
    }
    time_runoff_size(finalists, *inst, times);
  }
}

// Past the run's time the leader (the fastest finalist on the sizes timed so far) and the
// references alone are timed on the rest: a row is stored only on the strength of every size of
// its class, and the others leave the run-off. On the H200 (tools/cold_start.py -d nvidia,
// 2026-12-01) the tiled kernel's batch class, its time spent, stored a row 1.68x faster on its
// timed sizes and never timed on its 256^3 batch, which then ran 1.46x slower.
void ClassTuner::keep_leader(std::vector<const TuneRow*>& finalists, RunoffTimes& times, const std::string& size) {
  const auto sum = [&](std::size_t i) {
    double s = 0;
    for (const double v : times.logs[i]) s += v;
    return s;
  };
  std::size_t leader = finalists.size();
  for (std::size_t i = 0; i < finalists.size(); ++i)
    if (!finalists[i]->is_default && !finalists[i]->is_current && (leader == finalists.size() || sum(i) < sum(leader)))
      leader = i;
  std::vector<const TuneRow*> kept;
  std::vector<std::vector<double>> logs;
  for (std::size_t i = 0; i < finalists.size(); ++i)
    if (i == leader || finalists[i]->is_default || finalists[i]->is_current) {
      kept.push_back(finalists[i]);
      logs.push_back(times.logs[i]);
    }
  log(LogLevel::Info,
      "tune: run-off past the time: the leader and the references alone on " + size + " and the sizes after it");
  finalists = std::move(kept);
  times.logs = std::move(logs);
}

void ClassTuner::mark_size_trades(const std::vector<const TuneRow*>& finalists, const RunoffTimes& times) {
  const std::vector<std::vector<double>>& size_log = times.logs;
  const std::size_t sizes = times.labels.size();
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
    row.message = "slower than the current configuration on " + times.labels[at] + " by " +
                  std::to_string(static_cast<int>(std::lround((std::exp(worst) - 1) * 100))) + " %, more than its " +
                  std::to_string(static_cast<int>(std::lround((std::exp(gain) - 1) * 100))) + " % gain overall";
  }
}

}  // namespace clforge::detail
