// A size class's verification of its candidates (ClassTuner, tuner_internal.hpp): each on the
// sample of its timed sizes against the host reference, outputs and a guard tail poisoned; the
// references and the candidate about to be the class's result on the check sizes too, in full
// (check_row, settle_best); build errors and failed runs turned into the row's status (guarded),
// and the test hook's faults applied to the outputs read back.
#include <algorithm>
#include <exception>
#include <limits>
#include <new>

#include "clforge/errors.hpp"
#include "runtime/errors.hpp"
#include "runtime/log.hpp"
#include "tuning/tuner_internal.hpp"
#include "tuning/tuner_testing.hpp"

namespace clforge::detail {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

void ClassTuner::guarded(const ParamMap& p, TuneRow& row, const std::function<void()>& body) {
  const std::string what = spec_.name + " " + describe_params(p);
  try {
    body();
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
}

void ClassTuner::log_rejected(const TuneRow& row) const {
  log(LogLevel::Info, "tune: rejected " + spec_.name + " " + describe_params(row.params) + ": " + row.message);
}

TuneRow ClassTuner::evaluate(const ParamMap& p, const TuneFault& fault, const std::exception_ptr& build_error,
                             bool may_cut, bool check) {
  TuneRow row;
  row.params = p;
  // Names the candidate should its run end the process (a driver crash; tuner_cache.hpp).
  if (log_enabled(LogLevel::Debug)) log(LogLevel::Debug, "tune: evaluating " + spec_.name + " " + describe_params(p));
  guarded(p, row, [&] {
    if (build_error) std::rethrow_exception(build_error);
    if (!verify(p, fault, row, check)) {
      log_rejected(row);
      return;
    }
    time_candidate(p, fault, may_cut, row);
    row.status = CandidateStatus::Ok;
  });
  return row;
}

bool ClassTuner::check_row(TuneRow& row) {
  if (row.checked || cache_.replay) return row.status == CandidateStatus::Ok;
  if (checked_.empty()) return row.checked = true;
  const double compile_s = row.compile_s, verify_s = row.verify_s;
  bool ok = false;
  guarded(row.params, row, [&] {
    const Configuration cfg = config_of(row.params);
    {
      const AddSeconds lap{row.compile_s};
      for (const auto& inst : checked_) inst->build(qc_, cfg);
    }
    const AddSeconds lap{row.verify_s};
    ok = verify_group(checked_, row.params, fault_of(row.params), false, row);
  });
  row.checked = ok;
  r_.compile_s += row.compile_s - compile_s;
  r_.verify_s += row.verify_s - verify_s;
  // A failed check is recorded again (the latest record counts), so that a resumed run does not
  // take the row as ok; a passed one is not (a resumed run checks it again).
  if (!ok && cache_.file != nullptr) cache_.file->append(cache_.key, row);
  if (row.status == CandidateStatus::Rejected) log_rejected(row);
  count_failure(row.status);
  return ok;
}

std::vector<TuneRow*> ClassTuner::timed_rows() {
  std::vector<TuneRow*> out;
  for (TuneRow& row : r_.rows)
    if (row.status == CandidateStatus::Ok && !row.cut_short) out.push_back(&row);
  std::stable_sort(out.begin(), out.end(), [](const TuneRow* x, const TuneRow* y) { return x->ms < y->ms; });
  return out;
}

void ClassTuner::settle_best() {
  // The order the result is chosen in: the run-off's (those that trade no size), else the search's.
  std::vector<std::pair<TuneRow*, double>> order;
  for (const TuneRow& ro : r_.runoff)
    for (TuneRow& row : r_.rows)
      if (!ro.trades_sizes && row.params == ro.params && row.status == CandidateStatus::Ok)
        order.emplace_back(&row, ro.ms);
  if (r_.runoff.empty())
    for (TuneRow* row : timed_rows()) order.emplace_back(row, row->ms);
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  for (const auto& [row, ms] : order) {
    if (stopped()) return;
    if (!check_row(*row)) {
      for (TuneRow& ro : r_.runoff)
        if (ro.params == row->params) ro.status = row->status, ro.message = row->message;
      continue;
    }
    r_.has_best = true;
    r_.best = row->params;
    r_.best_ms = ms;
    update_speedup();
    return;
  }
  r_.has_best = false;
}

bool ClassTuner::verify(const ParamMap& p, const TuneFault& fault, TuneRow& row, bool check) {
  const AddSeconds lap{row.verify_s};
  if (!verify_group(timed_, p, fault, true, row)) return false;
  row.checked = checked_.empty() || (check && verify_group(checked_, p, fault, false, row));
  return !check || row.checked;
}

bool ClassTuner::verify_group(std::vector<std::unique_ptr<TuneInstance>>& group, const ParamMap& p,
                              const TuneFault& fault, bool timed, TuneRow& row) {
  for (std::size_t k = 0; k < group.size(); ++k) {
    TuneInstance& inst = *group[k];
    inst.poison(queue_);
    cl::Event ev = inst.run(queue_, p);
    check(ev() != nullptr ? ev.wait() : queue_.finish(), "clWaitForEvents");
    if (timed) single_event_[k] = ev() != nullptr;  // how time_candidate times it
    std::vector<float>& out = inst.read_output(queue_);
    apply_fault(fault, inst, timed, out);
    const Verdict v = inst.check(out);
    row.error = std::max(row.error, v.error);
    if (!v.ok) {
      row.status = CandidateStatus::Rejected;
      row.message = inst.label() + ": " + (v.message.empty() ? "wrong result" : v.message);
      return false;
    }
  }
  return true;
}

void ClassTuner::apply_fault(const TuneFault& fault, const TuneInstance& inst, bool timed, std::vector<float>& out) {
  if (fault.corrupt_output && !out.empty()) out[out.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  if (fault.region_values == TuneFault::Values::None || (!timed && !fault.on_check_sizes)) return;
  for (const std::size_t i :
       fault.second_output ? inst.second_region(fault.in_sample) : inst.fault_region(fault.in_sample))
    out[i] = fault.region_values == TuneFault::Values::NaN ? std::numeric_limits<float>::quiet_NaN() : 2 * out[i] + 1;
}

}  // namespace clforge::detail
