// The tuner of one size class: the references first (the default, then the current
// configuration where it differs), then the candidates in strategy order, in batches compiled
// concurrently (tuner_build.cpp) and evaluated one by one on the calling thread, on GPUs as
// each one's build ends while the others still compile: verified against the host
// reference on poisoned outputs (tuner_verify.cpp), then timed with profiling events (or between
// markers), appended to the tune cache, and recorded with progress reports. Where each candidate's time goes
// (compiling, verifying, timing) is recorded in its row and summed in the class. Results the cache holds (resume) are
// taken instead, in the same order, so the search takes the path it took when they were measured.
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "clforge/errors.hpp"
#include "runtime/compile_workers.hpp"
#include "runtime/errors.hpp"
#include "runtime/log.hpp"
#include "tuning/tuner_internal.hpp"
#include "tuning/tuner_testing.hpp"

namespace clforge::detail {
TimingPlan tune_timing_plan(const TuneOptions& opt) {
  TimingPlan plan;
  plan.warmup = std::max(0, opt.warmup);
  plan.min_reps = std::max(1, opt.min_reps);
  plan.max_reps = std::max(plan.min_reps, opt.max_reps);
  plan.min_time_ms = std::max(0.0, opt.min_time_ms);
  // Routines of several kernels are timed between markers: back-to-back calls per region, as
  // in the benchmarks, so that a call's host cost (about 80 us for a tiled sgemm on the H100's
  // host) overlaps the device instead of being counted as device time.
  plan.region_ms = kRegionMs;
  // A run longer than 5 minimum times takes one warm-up and three samples (the search's cut-off
  // decides on three too): on two PoCL cores the direct blur's class at 1024^2 (0.1 to 0.9 s a
  // run) spent 65 s on its first 3 candidates and their run-off, 39 s with this.
  plan.long_run_ms = 5 * plan.min_time_ms;
  return plan;
}

ClassTuner::ClassTuner(cl::CommandQueue& queue, const TuneTarget& target, const KernelSpec& spec,
                       const TuneOptions& opt, TuneStrategy strategy, TuneClassResult& out, std::uint64_t seed,
                       Clock::time_point start, Clock::time_point deadline, std::size_t class_index,
                       std::size_t class_count, ClassCache& cache)
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
      class_count_(class_count),
      cache_(cache) {
  plan_ = tune_timing_plan(opt);
  threads_ = compile_thread_count(opt, compile_workers_for(qc_.device()) != nullptr);
  overlap_ = tune_overlap().value_or(qc_.info->type != "CPU");
}

bool ClassTuner::run(const Space& space) {
  make_instances();

  valid_ = PointSet(space.names);
  for (std::size_t i = 0; i < space.candidates.size(); ++i) valid_.insert_values(space.candidate_values(i));
  // The references first, whatever the strategy (and whatever the budget): the default, and the
  // current configuration when the user database makes it another one.
  std::vector<ParamMap> references{r_.default_params};
  if (!r_.current_params.empty() && r_.current_params != r_.default_params) references.push_back(r_.current_params);
  std::size_t total = space.candidates.size();
  for (const auto& p : references) total += valid_.contains(p) ? 0 : 1;
  if (opt_.budget != 0) total = std::min(total, opt_.budget);
  total_ = std::max(total, references.size());

  // The references compile beside the first seeds, not alone before them: a class then waits
  // for one round of compiles, not two. First the values of the seed axes on the current
  // configuration (else the default) where they are whole values, not steps: the split of a
  // length run as passes decides more than any other parameter, and a class whose share holds
  // one batch measured none of them (the H200's cold start of 2026-11-30: 2^19 and 2^20 points
  // at 0.48-0.66 of the shipped rows, which split them otherwise). Then the winners of the
  // nearest classes before this one, as many as a batch holds, at least two; farther winners are
  // left out (the n-th class of a job would otherwise try n - 1 winners before the axes' values
  // on its best). Each is projected onto this class's space once, here (evaluate_seeds takes
  // them as they are).
  siblings_.resize(std::min<std::size_t>(siblings_.size(), std::max(threads_, 2u)));
  for (ParamMap& sib : siblings_) sib = project_onto(space, sib);
  std::vector<ParamMap> first = references;
  if (strategy_ != TuneStrategy::Exhaustive) {
    const std::size_t room = std::min<std::size_t>(std::max<std::size_t>(threads_, first.size()), total_);
    std::vector<ParamMap> ahead;
    if (!target_.seed_neighbours) ahead = axis_seeds(space, project_onto(space, references.back()));
    ahead.insert(ahead.end(), siblings_.begin(), siblings_.end());
    for (const ParamMap& p : ahead) {
      if (first.size() >= room) break;
      if (space_holds(space, p) && std::find(first.begin(), first.end(), p) == first.end()) first.push_back(p);
    }
  }
  evaluate_batch(first, references.size(), true);
  for (const auto& p : references) visit(p);
  if (strategy_ != TuneStrategy::Exhaustive) evaluate_seeds(space);

  if (strategy_ == TuneStrategy::Anneal) {
    anneal(space);
  } else if (strategy_ == TuneStrategy::Model) {
    model(space);
  } else {
    // The order leaves out the default only, so that it does not depend on the current
    // configuration (which is skipped where it comes up): a resumed run whose current one
    // changed meanwhile still walks the order of the run it continues.
    std::vector<ParamMap> order;
    for (std::size_t i = 0; i < space.candidates.size(); ++i)
      if (ParamMap c = space.candidate(i); c != r_.default_params) order.push_back(std::move(c));
    if (strategy_ == TuneStrategy::Random) std::shuffle(order.begin(), order.end(), rng_);
    evaluate_in_order(order);
  }
  const auto searched = Clock::now();
  if (stalled() && searched < deadline_) r_.share_left_s = std::chrono::duration<double>(deadline_ - searched).count();
  if (!stopped()) runoff();
  r_.runoff_s = seconds_since(searched);
  const auto ran_off = Clock::now();
  if (!stopped()) settle_best();
  r_.settle_s = seconds_since(ran_off);
  r_.wall_s = seconds_since(class_start_);
  report(nullptr);
  return !stopped();
}

void ClassTuner::make_instances() {
  const auto t0 = Clock::now();
  std::uint64_t s = seed_;
  // A replay takes every result from the cache: no inputs or references to make.
  if (!cache_.replay)
    for (const auto& size : r_.sizes) timed_.push_back(target_.make(queue_, size, ++s, Verification::Sampled));
  if (target_.check_sizes && !cache_.replay)
    for (const auto& size : target_.check_sizes(r_.variant, r_.sizes))
      checked_.push_back(target_.make(queue_, size, ++s, Verification::Full));
  single_event_.assign(timed_.size(), false);
  r_.setup_s = seconds_since(t0);
  r_.compile_threads = threads_;
}

ParamMap ClassTuner::representative(const ParamMap& p) const {
  return spec_.canonical ? spec_.canonical(p, *qc_.info) : p;
}

bool ClassTuner::visited(const ParamMap& p) const {
  return spec_.canonical ? visited_.count(spec_.canonical(p, *qc_.info)) > 0 : visited_.count(p) > 0;
}

void ClassTuner::visit(const ParamMap& p) { visited_.insert(representative(p)); }

bool ClassTuner::fresh_for(const std::vector<ParamMap>& batch, const ParamMap& p) const {
  if (visited(p)) return false;
  const ParamMap r = representative(p);
  return std::none_of(batch.begin(), batch.end(), [&](const ParamMap& q) { return representative(q) == r; });
}

std::size_t ClassTuner::evaluate_in_order(const std::vector<ParamMap>& order, bool until_moved) {
  std::size_t next = 0;
  const double start_ms = r_.has_best ? r_.best_ms : 0;
  while (next < order.size() && may_start_batch()) {
    std::vector<ParamMap> batch;
    for (const std::size_t n = std::min<std::size_t>(threads_, left()); next < order.size() && batch.size() < n; ++next)
      if (fresh_for(batch, order[next])) batch.push_back(order[next]);
    if (!batch.empty()) evaluate_batch(batch, 0);
    if (until_moved && r_.has_best && r_.best_ms < kStarMove * start_ms) break;
  }
  return next;
}

void ClassTuner::evaluate_batch(const std::vector<ParamMap>& batch, std::size_t references, bool whole) {
  const auto batch_start = Clock::now();
  ++batches_;
  struct Lap {  // records the batch's duration however it ends
    Clock::duration& out;
    Clock::time_point t0;
    ~Lap() { out = Clock::now() - t0; }
  } lap{last_batch_, batch_start};
  std::vector<const TuneRow*> cached(batch.size(), nullptr);
  std::vector<TuneFault> faults(batch.size());  // the test hook's, asked once per candidate measured
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto it = cache_.rows.find(batch[i]);
    if (it != cache_.rows.end())
      cached[i] = &it->second;
    else
      faults[i] = fault_of(batch[i]);
  }
  BatchBuild b(*this, batch, references, whole, cached, faults);
  if (!overlap_) b.wait_all();
  const auto all_built = Clock::now();  // without overlap_
  std::vector<char> taken(batch.size(), 0), measured(batch.size(), 0);
  for (std::size_t n = 0; n < batch.size(); ++n) {
    // The references in order, then (overlap_) those the cache holds, in order, then whichever
    // build ends next: a slow compile holds back no other candidate's evaluation.
    std::size_t i = n;
    if (overlap_ && n >= references) {
      i = references;
      while (i < batch.size() && (taken[i] || cached[i] == nullptr)) ++i;
      if (i == batch.size()) i = b.wait_any(taken);
    }
    const bool reference = i < references;
    b.wait(i);
    taken[i] = 1;
    const auto built_at = overlap_ ? b.ended[i] : all_built;
    const auto grace_until = built_at + (built_at - batch_start);
    TuneRow row;
    if (b.given_up[i]) {  // not measured, not tried again
      visit(batch[i]);
      continue;
    }
    if (cached[i] != nullptr) {  // costs no time: only a stop or the budget ends it
      if (!reference && (stopped() || left() == 0)) break;
      row = *cached[i];
      row.cached = true;
    } else {
      // A candidate whose compile finished is evaluated after the class's share too, for at
      // most as long as its batch's compiles took until then, within the whole run's time.
      const bool may = whole ? b.built[i] && may_finish(Clock::time_point::max())
                             : may_continue() || (b.built[i] && may_finish(grace_until));
      if (!reference && !may) {
        if (overlap_) continue;  // one built later may still be
        break;
      }
      if (faults[i].on_evaluate) faults[i].on_evaluate();
      row = evaluate(batch[i], faults[i], b.errors[i], !reference, reference);
      row.compile_s = b.compile_s[i];
      if (cache_.file != nullptr) cache_.file->append(cache_.key, row);
    }
    measured[i] = 1;
    visit(batch[i]);
    row.is_default = row.params == r_.default_params;
    row.is_current = row.params == r_.current_params;
    record(row);
  }
  b.finish();
  for (std::size_t i = 0; i < batch.size(); ++i) {
    r_.built_unmeasured += b.built[i] && !b.given_up[i] && cached[i] == nullptr && !measured[i] ? 1 : 0;
    r_.builds_given_up += b.given_up[i] ? 1 : 0;
    if (b.started[i] && !measured[i] && cache_.file != nullptr) cache_.file->mark(cache_.key, batch[i], false);
  }
}

Configuration ClassTuner::config_of(const ParamMap& p) const {
  Configuration cfg;
  cfg.kernel = spec_.name;
  cfg.variant = r_.variant;
  cfg.values = p;
  for (const auto& kv : p) cfg.sources[kv.first] = "tuner";
  return cfg;
}

const TuneFault& ClassTuner::fault_of(const ParamMap& p) {
  auto it = faults_.find(p);
  if (it == faults_.end()) it = faults_.emplace(p, tune_fault(p)).first;
  return it->second;
}

std::vector<bool> searched_sizes(const std::vector<double>& first_ms, double min_time_ms, int min_reps) {
  std::vector<bool> out(first_ms.size(), true);
  if (first_ms.size() < 2) return out;
  const double cheapest = *std::min_element(first_ms.begin(), first_ms.end());
  const double rep_bound = min_time_ms / std::max(1, min_reps);
  for (std::size_t k = 0; k < first_ms.size(); ++k) out[k] = !(first_ms[k] > 2 * cheapest && first_ms[k] > rep_bound);
  return out;
}

// Median per searched size (every timed one until searched_ is set), scored by the geometric
// mean over those sizes. With may_cut, a size's sampling gives up past TuneOptions::give_up times
// the best's median there; the sizes after it are not timed and count at that cut-off.
void ClassTuner::time_candidate(const ParamMap& p, const TuneFault& fault, bool may_cut, TuneRow& row) {
  const auto t0 = Clock::now();
  const bool cut_off = may_cut && opt_.give_up > 0 && best_size_ms_.size() == timed_.size();
  std::vector<double> size_ms(timed_.size(), 0), logs(timed_.size(), 0);
  for (std::size_t k = 0; k < timed_.size(); ++k) {
    if (!searched(k)) continue;
    if (row.cut_short) {
      logs[k] = std::log(opt_.give_up * best_size_ms_[k]);
      continue;
    }
    TimingPlan plan = plan_;
    // The samples are unscaled, the best's medians scaled: the cut-off in the samples' terms.
    if (cut_off) plan.give_up_ms = opt_.give_up * best_size_ms_[k] / fault_scale(fault, k);
    TuneInstance& inst = *timed_[k];
    Timing t = single_event_[k] ? time_event(
                                      queue_, [&] { return inst.run(queue_, p); }, plan)
                                : time_region(
                                      queue_, [&] { inst.run(queue_, p); }, plan);
    if (t.cut_short) {
      row.cut_short = true;
      t.median_ms = t.min_ms;  // above the cut-off: the score stays at least there
    }
    logs[k] = log_ms(t, fault_scale(fault, k));
    size_ms[k] = std::max(t.median_ms, 1e-9) * fault_scale(fault, k);
  }
  // The first candidate timed in full decides which sizes the search times from then on.
  if (searched_.empty() && opt_.screen_costly_sizes && !target_.time_every_size && opt_.finalists > 0 && !row.cut_short)
    searched_ = searched_sizes(size_ms, plan_.min_time_ms, plan_.min_reps);
  double log_sum = 0;
  std::size_t sizes = 0;
  for (std::size_t k = 0; k < timed_.size(); ++k)
    if (searched(k)) {
      log_sum += logs[k];
      ++sizes;
    }
  row.ms = class_score(log_sum, sizes);
  row.timing_s = seconds_since(t0);
  if (!row.cut_short && (best_size_ms_.empty() || row.ms < best_full_ms_)) {
    best_full_ms_ = row.ms;
    best_size_ms_ = std::move(size_ms);
  }
}

bool ClassTuner::stalled() const {
  if (deadline_ == Clock::time_point::max() || move_ref_ms_ <= 0 || climbing_) return false;
  const auto now = Clock::now();
  if (now - class_start_ < (deadline_ - class_start_) / 2) return false;
  return batches_ >= batches_at_move_ + 2 && r_.tried >= 2 * tried_at_move_;
}

void ClassTuner::count_failure(CandidateStatus status) {
  if (status == CandidateStatus::Rejected) ++r_.rejected;
  if (status == CandidateStatus::BuildFailed) ++r_.build_failed;
  if (status == CandidateStatus::RunFailed) ++r_.run_failed;
}

void ClassTuner::record(const TuneRow& row) {
  ++r_.tried;
  if (row.cached) ++r_.cached;
  if (!row.cached) {
    r_.compile_s += row.compile_s;
    r_.verify_s += row.verify_s;
    r_.timing_s += row.timing_s;
  }
  if (row.cut_short) ++r_.cut_short;
  if (row.status == CandidateStatus::Ok) {
    if (row.is_default) r_.default_ms = row.ms;
    if (row.is_current) r_.current_ms = row.ms;
    if (!row.cut_short && (!r_.has_best || row.ms < r_.best_ms)) {
      r_.has_best = true;
      r_.best = row.params;
      r_.best_ms = row.ms;
    }
    if (!row.cut_short && (move_ref_ms_ <= 0 || row.ms < kStarMove * move_ref_ms_)) {
      move_ref_ms_ = row.ms;
      tried_at_move_ = r_.tried;
      batches_at_move_ = batches_;
    }
  }
  count_failure(row.status);
  if (row.is_default && row.status != CandidateStatus::Ok)
    log(LogLevel::Warning, "tune: the default configuration of " + spec_.name + " (" + describe_params(row.params) +
                               ") is " + to_string(row.status) + ": " + row.message);
  r_.rows.push_back(row);
  update_speedup();
  report(&row);
}

void ClassTuner::report(const TuneRow* row) {
  if (!opt_.progress) return;
  TuneProgress pr;
  pr.routine = target_.routine;
  pr.variant = r_.variant;
  pr.done = r_.tried;
  pr.cached = r_.cached;
  pr.total = std::max(total_, r_.tried);
  pr.class_index = class_index_;
  pr.class_count = class_count_;
  pr.elapsed_s = seconds_since(start_);
  // The time per measured candidate (cached ones cost nothing) times the candidates left, within
  // the time limit; the share done by count or, when larger, by the time limit.
  const double class_s = seconds_since(class_start_);
  const std::size_t measured = r_.tried - r_.cached;
  if (measured > 0) pr.eta_s = class_s / static_cast<double>(measured) * static_cast<double>(pr.total - r_.tried);
  pr.fraction = pr.total > 0 ? static_cast<double>(r_.tried) / static_cast<double>(pr.total) : 1.0;
  if (deadline_ != Clock::time_point::max()) {
    const double left_s = std::max(0.0, std::chrono::duration<double>(deadline_ - Clock::now()).count());
    pr.eta_s = pr.eta_s < 0 ? left_s : std::min(pr.eta_s, left_s);
    const double share_s = std::chrono::duration<double>(deadline_ - class_start_).count();
    if (share_s > 0) pr.fraction = std::max(pr.fraction, std::min(1.0, class_s / share_s));
  }
  if (row != nullptr) {
    pr.current = row->params;
    pr.current_cached = row->cached;
    pr.status = row->status;
    pr.current_ms = row->ms;
  } else {
    pr.class_done = true;
    pr.eta_s = 0;
    if (!stopped()) pr.fraction = 1.0;
  }
  pr.best_ms = r_.has_best ? r_.best_ms : 0;
  pr.default_ms = r_.default_ms;
  pr.best = r_.best;
  opt_.progress(pr);
}

}  // namespace clforge::detail
