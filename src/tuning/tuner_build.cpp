// A size class's compiles: a batch's builds on the compile threads (ClassTuner::BatchBuild),
// watched for compiles far slower than the class's others.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "runtime/compile_workers.hpp"
#include "tuning/tuner_internal.hpp"
#include "tuning/tuner_testing.hpp"

namespace clforge::detail {

// On the H200 (2026-12-01, tools/cold_start.py -d nvidia) one batch of the direct kernel's class
// batch16 compiled for 18 s, past its share, and the two classes after it measured their
// defaults alone: hence the give-up watch. The check sizes' programs are built here for the
// references only, for another candidate when it is about to be the result (settle_best).
ClassTuner::BatchBuild::BatchBuild(const ClassTuner& tuner, const std::vector<ParamMap>& batch, std::size_t references,
                                   bool whole, const std::vector<const TuneRow*>& cached,
                                   const std::vector<TuneFault>& faults)
    : errors(batch.size()),
      compile_s(batch.size(), 0),
      built(batch.size(), 0),
      given_up(batch.size(), 0),
      started(batch.size(), 0),
      ended(batch.size()),
      tuner_(tuner),
      batch_(batch),
      references_(references),
      whole_(whole),
      cached_(cached),
      faults_(faults),
      give_up_(batch.size()),
      running_since_(batch.size()),
      done_(batch.size(), 0) {
  const std::size_t n = batch.size();
  const std::size_t threads = std::min<std::size_t>(tuner.threads_, n);
  if (threads <= 1) {  // on this thread, each in turn
    for (std::size_t i = 0; i < n; ++i) build_one(i);
    return;
  }
  for (std::size_t t = 0; t < threads; ++t)
    pool_.emplace_back([this, n] {
      for (std::size_t i; (i = next_++) < n;) build_one(i);
    });
}

void ClassTuner::BatchBuild::build_one(std::size_t i) {
  const ClassTuner& t = tuner_;
  const bool reference = i < references_;
  const bool skip =
      skip_rest_ || t.stopped() || cached_[i] != nullptr || (!reference && !whole_ && Clock::now() >= t.deadline_);
  if (!skip) {
    // Closed by the candidate's record or an "ended" mark; left open by a crash (tuner_cache.hpp).
    if (t.cache_.file != nullptr) t.cache_.file->mark(t.cache_.key, batch_[i], true);
    started[i] = 1;
    const Configuration cfg = t.config_of(batch_[i]);
    const AddSeconds lap{compile_s[i]};  // the build's wall time
    const CompileGiveUpScope scope(&give_up_[i]);
    running_since_[i] = Clock::now().time_since_epoch().count();
    try {
      if (faults_[i].build_delay_s > 0) simulated_compile(faults_[i].build_delay_s, give_up_[i]);
      bool whole_build = true;
      for (auto* group : {&t.timed_, &t.checked_}) {
        if (!reference && group == &t.checked_) break;
        for (const auto& inst : *group) {
          // Not may_finish: the calling thread may be counting candidates meanwhile (overlap_).
          if (!reference && (t.stopped() || t.run_time_is_up())) {
            whole_build = false;
            break;
          }
          inst->build(t.qc_, cfg);
        }
        if (!whole_build) break;
      }
      built[i] = whole_build ? 1 : 0;
    } catch (const CompileGivenUp&) {
      given_up[i] = 1;
    } catch (...) {
      errors[i] = std::current_exception();
      built[i] = 1;
    }
    running_since_[i] = 0;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  ended[i] = Clock::now();
  done_[i] = 1;
  cv_.notify_all();
}

// Past the class's deadline (never in its first batch), a compile running kGiveUpFactor times the
// class's typical compile, at least kGiveUpMinS, is given up.
void ClassTuner::BatchBuild::watch() {
  const auto now = Clock::now();
  if (whole_ || now < tuner_.deadline_) return;
  const double limit = std::max(kGiveUpMinS, kGiveUpFactor * tuner_.typical_compile_s());
  for (std::size_t i = references_; i < batch_.size(); ++i) {
    const std::int64_t since = running_since_[i];
    if (since != 0 && std::chrono::duration<double>(now.time_since_epoch() - Clock::duration(since)).count() > limit)
      give_up_[i] = true;
  }
}

void ClassTuner::BatchBuild::wait(std::size_t i) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!done_[i]) {
    if (cv_.wait_for(lock, std::chrono::milliseconds(kWatchMs), [&] { return done_[i] != 0; })) break;
    lock.unlock();
    watch();
    lock.lock();
  }
}

std::size_t ClassTuner::BatchBuild::wait_any(const std::vector<char>& taken) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto ready = [&] {
    for (std::size_t i = 0; i < done_.size(); ++i)
      if (done_[i] && !taken[i]) return i;
    return done_.size();
  };
  std::size_t i;
  while ((i = ready()) == done_.size()) {
    if (std::find(taken.begin(), taken.end(), 0) == taken.end()) return done_.size();
    if (cv_.wait_for(lock, std::chrono::milliseconds(kWatchMs), [&] { return ready() != done_.size(); })) break;
    lock.unlock();
    watch();
    lock.lock();
  }
  return ready();
}

void ClassTuner::BatchBuild::wait_all() {
  for (std::size_t i = 0; i < batch_.size(); ++i) wait(i);
}

void ClassTuner::BatchBuild::finish() {
  skip_rest_ = true;
  wait_all();  // the builds running still watched
  for (auto& th : pool_) th.join();
  pool_.clear();
}

// The median compile time of the class's candidates measured so far (0: none).
double ClassTuner::typical_compile_s() const {
  std::vector<double> t;
  for (const TuneRow& row : r_.rows)
    if (!row.cached && row.compile_s > 0) t.push_back(row.compile_s);
  if (t.empty()) return 0;
  std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
  return t[t.size() / 2];
}

// The test hook's slow driver: a compile of `seconds`, given up like a worker's.
void ClassTuner::simulated_compile(double seconds, const std::atomic<bool>& give_up) {
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (Clock::now() < end) {
    if (give_up) throw CompileGivenUp("the test hook's compile given up");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace clforge::detail
