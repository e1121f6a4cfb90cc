// SplitMode::Auto (group_internal.hpp, docs/group.md): each device's measured throughputs for a
// routine and size class, the split a call runs from them, and what a call measures and stores
// (the devices together, each candidate alone, the split; a split that lost measured again with
// the others' shares halved; cold calls measured again).
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>

#include "group/group_internal.hpp"
#include "group/group_store.hpp"
#include "runtime/log.hpp"

namespace clforge::detail {

namespace {

std::mutex& rates_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, double>& rates() {
  static std::map<std::string, double> m;
  return m;
}
std::string rate_key(const std::string& variant, const DeviceInfo& i) {
  return variant + "|" + i.name + "|" + i.driver_version;
}

// The whole-call rates a decided option ran at in this process, the calibrated value first, at
// most kChecked of them: the option's value is their median, so that one call slowed by the
// machine (outliers of 2.6x on the H100 machine) does not flip the choice.
constexpr std::size_t kChecked = 5;
std::map<std::string, std::deque<double>>& checks() {
  static std::map<std::string, std::deque<double>> m;
  return m;
}
double checked_rate(const std::string& key) {
  const std::lock_guard<std::mutex> lock(rates_mutex());
  const auto it = checks().find(key);
  if (it == checks().end() || it->second.empty()) return 0;
  std::vector<double> v(it->second.begin(), it->second.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
void add_check(const std::string& key, double calibrated, double whole) {
  const std::lock_guard<std::mutex> lock(rates_mutex());
  std::deque<double>& d = checks()[key];
  if (d.empty()) d.push_back(calibrated);
  d.push_back(whole);
  while (d.size() > kChecked) d.pop_front();
}

// A device that would add under 4 % of the group's throughput costs more than it gives (its
// setup, shared operands, and the host cores and memory bandwidth it takes from the others'
// staging copies).
constexpr double kMinAutoShare = 0.04;
// Cold calls Auto measures again before taking one as a measurement.
constexpr double kColdRepeats = 2;
// One decided call in this many runs the option not chosen.
constexpr long kExploreEvery = 8;

}  // namespace

double balanced_share(const GroupRun& run, std::size_t fastest, int share) {
  // Each device's rate over its whole share, from the chunks' start to its last chunk back:
  // shares in proportion to them would have ended every device together.
  double others_weight = 0, others_rate = 0, fastest_rate = 0;
  for (std::size_t d = 0; d < run.shares.size() && d < run.weights.size(); ++d) {
    const DeviceShare& sh = run.shares[d];
    const double rate = sh.items > 0 && sh.seconds > 0 ? static_cast<double>(sh.items) / sh.seconds : 0;
    if (d == fastest) {
      fastest_rate = rate;
    } else if (run.weights[d] > 0) {
      others_weight += run.weights[d];
      others_rate += rate;
    }
  }
  const double w = run.weights.size() > fastest ? run.weights[fastest] : 0;
  return fastest_rate > 0 && others_weight > 0 && w > 0 ? share * (others_rate / fastest_rate) / (others_weight / w)
                                                        : share;  // nothing to go by
}

namespace {
// The next share from a split's balanced share: that one where it is below 0.9 `share`, else half.
bool lower_share(double balanced, int share) { return balanced < 0.9 * share; }
int share_after(double balanced, int share) {
  return lower_share(balanced, share) ? static_cast<int>(std::max(1L, std::lround(balanced))) : share / 2;
}
}  // namespace

int next_share(const GroupRun& run, std::size_t fastest, int share) {
  return share_after(balanced_share(run, fastest, share), share);
}

std::vector<double> auto_weights(const std::vector<double>& rates) {
  const double total = std::accumulate(rates.begin(), rates.end(), 0.0);
  std::vector<double> w = rates;
  for (double& x : w)
    if (x < kMinAutoShare * total) x = 0;
  return w;
}

double remembered_rate(const std::string& key) {
  const std::lock_guard<std::mutex> lock(rates_mutex());
  const auto it = rates().find(key);
  return it == rates().end() ? 0.0 : it->second;
}

void remember_rate(const std::string& key, double rate) {
  const std::lock_guard<std::mutex> lock(rates_mutex());
  rates()[key] = rate;
}

AutoSplit::AutoSplit(const DeviceGroup& group, const char* routine, const std::string& size_class,
                     const SplitOptions& options)
    : group_(group), D_(group.size()), given_(options.auto_values), use_store_(group_store_enabled(options.tuning)) {
  variants_.resize(D_);
  rate_.assign(D_, 0), alone_.assign(D_, 0), split_.assign(D_, 0), shares_.assign(D_, 100);
  for (std::size_t d = 0; d < D_; ++d) {
    // Rates per routine and size class ("fft:n=1024"), and a sub-device ("cpu@12") apart from
    // its whole device.
    variants_[d] = size_class.empty() ? std::string(routine) : std::string(routine) + ":" + size_class;
    if (group.entry(d).device.getInfo<CL_DEVICE_PARENT_DEVICE>()() != nullptr)
      variants_[d] += " cu=" + std::to_string(group.entry(d).info.compute_units);
    const GroupRecord stored = use_store_ ? group_record(group.entry(d).info, variants_[d]) : GroupRecord{};
    const std::string key = rate_key(variants_[d], group.entry(d).info);
    rate_[d] = given_.rate > 0 ? given_.rate : stored.rate > 0 ? stored.rate : remembered_rate(key);
    alone_[d] = given_.alone > 0 ? given_.alone : stored.alone > 0 ? stored.alone : remembered_rate("alone|" + key);
    split_[d] = given_.split > 0 ? given_.split : stored.split > 0 ? stored.split : remembered_rate("split|" + key);
    const double share = given_.share > 0   ? given_.share
                         : stored.share > 0 ? stored.share
                                            : remembered_rate("share|" + key);
    if (share > 0) shares_[d] = static_cast<int>(share);
    // What this process's later calls measured of the choice they made (record) comes first,
    // unless the caller gave the value.
    if (given_.alone <= 0)
      if (const double v = checked_rate("now-alone|" + key); v > 0) alone_[d] = v;
    if (given_.split <= 0)
      if (const double v = checked_rate("now-split|" + key); v > 0) split_[d] = v;
  }
  measure_alone_ = measure_split_ = decided_ = D_;
}

void AutoSplit::choose(bool overlap, SplitMode& mode, std::vector<double>& weights) {
  // Only calls that overlap measure (one without overlap would store what users never run).
  const bool missing = std::any_of(rate_.begin(), rate_.end(), [](double r) { return r <= 0; });
  measure_ = missing && overlap;
  mode = missing ? SplitMode::Dynamic : SplitMode::Weights;
  weights = rate_;
  if (missing) return;
  // The split against its fastest device alone, whole calls measured each way (the split's
  // rates leave out its fill, drain and the devices' setup, which may outweigh what the others
  // add): first the device alone, then the split, then whichever was faster. Rates measured
  // beside each other carry the contention the devices cause each other (a CPU device's kernels
  // slow a GPU's staging copies), so every device above a tenth of the best rate runs alone once
  // (its alone rate) and the fastest is the one whose whole call alone was fastest. The others
  // get the fastest's share percent of their rates.
  const double top = *std::max_element(rate_.begin(), rate_.end());
  std::vector<std::size_t> candidates;  // by rate, fastest first
  for (std::size_t d = 0; d < D_; ++d)
    if (rate_[d] >= 0.1 * top) candidates.push_back(d);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::size_t x, std::size_t y) { return rate_[x] > rate_[y]; });
  std::size_t best = candidates.front();
  for (const std::size_t d : candidates)
    if (alone_[d] > alone_[best]) best = d;
  share_ = shares_[best];
  for (std::size_t d = 0; d < D_; ++d)
    if (d != best) weights[d] *= share_ / 100.0;
  weights = auto_weights(weights);
  const double together = std::accumulate(weights.begin(), weights.end(), 0.0);
  const bool others = together > weights[best];
  if (others && overlap)
    for (const std::size_t d : candidates)
      if (alone_[d] <= 0) {
        measure_alone_ = d;
        break;
      }
  if (others && measure_alone_ == D_ && split_[best] <= 0 && overlap) measure_split_ = best;
  std::size_t solo = D_;  // the device that runs this call alone
  if (measure_alone_ < D_) {
    solo = measure_alone_;
  } else if (!others) {
    solo = best;
  } else if (measure_split_ == D_) {
    bool by_itself = alone_[best] > 0 && split_[best] > 0 && alone_[best] >= split_[best];  // else: split
    if (alone_[best] > 0 && split_[best] > 0 && overlap) {
      // Every kExploreEvery-th decided call runs the other option, its whole call averaged into
      // that option's value like the choice's own calls: a value one calibration call measured
      // far too low (single calls on the H100 machine showed outliers of 2.6x) comes back.
      // (Cold calls do not count: record takes them back.)
      explore_key_ = "explore|" + rate_key(variants_[best], group_.entry(best).info);
      const double calls = remembered_rate(explore_key_) + 1;
      remember_rate(explore_key_, calls);
      exploring_ = static_cast<long>(calls) % kExploreEvery == 0;
      if (exploring_) by_itself = !by_itself;
      decided_ = best, decided_alone_ = by_itself;
    }
    if (by_itself) solo = best;
  }
  if (solo < D_) {
    weights.assign(D_, 0.0);
    weights[solo] = 1.0;
  }
}

void AutoSplit::passive() {
  if (decided_ < D_) remember_rate(explore_key_, remembered_rate(explore_key_) - 1);  // not a decided call
  measure_ = false;
  measure_alone_ = measure_split_ = decided_ = D_;
}

bool AutoSplit::calibrating() const { return measure_ || measure_alone_ < D_ || measure_split_ < D_; }

std::string AutoSplit::step() const {
  if (measure_) return "auto: measuring rates (dynamic)";
  if (measure_alone_ < D_) return "auto: device " + std::to_string(measure_alone_) + " alone (measuring)";
  if (measure_split_ < D_) return "auto: split at share " + std::to_string(share_) + " (measuring)";
  if (decided_ < D_)
    return std::string(decided_alone_ ? "auto: alone" : "auto: split") + (exploring_ ? " (exploring)" : " (decided)");
  return {};
}

bool AutoSplit::repeat_cold(const GroupRun& run, const std::string& step) {
  // A cold call is measured again by the next call, at most kColdRepeats times for one
  // measurement (then a cold call counts: a pool that cannot keep its buffers).
  if (!run.cold) return false;
  const std::string key = "cold|" + step + "|" + rate_key(variants_[0], group_.entry(0).info);
  const double repeats = remembered_rate(key);
  if (repeats >= kColdRepeats) return false;
  remember_rate(key, repeats + 1);
  return true;
}

void AutoSplit::save(std::size_t d, const GroupRecord& values, unsigned fields, const char* note) {
  const DeviceInfo& info = group_.entry(d).info;
  if (use_store_) {
    try {
      store_group_record(info, variants_[d], values, fields, note);
      return;
    } catch (const std::exception& e) {
      log(LogLevel::Warning, std::string("group: the measured rate was not stored: ") + e.what());
    }
  }
  const std::string key = rate_key(variants_[d], info);
  if (fields & kFieldRate) remember_rate(key, values.rate);
  if (fields & kFieldAlone) remember_rate("alone|" + key, values.alone);
  if (fields & kFieldSplit) remember_rate("split|" + key, values.split);
  if (fields & kFieldShare) remember_rate("share|" + key, values.share);
}

void AutoSplit::record(const GroupRun& run, const std::vector<double>& measured, const std::vector<double>& bounds,
                       double whole) {
  bool measure = measure_;
  std::size_t measure_alone = measure_alone_, measure_split = measure_split_, decided = decided_;
  if (measure && repeat_cold(run, "dynamic")) measure = false;
  if (measure_alone < D_ && repeat_cold(run, "alone " + std::to_string(measure_alone))) measure_alone = D_;
  if (measure_split < D_ && repeat_cold(run, "split " + std::to_string(share_))) measure_split = D_;
  if (run.cold && decided < D_) {
    decided = D_;
    remember_rate(explore_key_, remembered_rate(explore_key_) - 1);
  }
  if (measure)
    for (std::size_t d = 0; d < D_; ++d) {
      GroupRecord r;
      r.rate = measured[d];
      if (measured[d] > 0)
        save(d, r, kFieldRate, "auto split: measured in a dynamic run");
      else if (bounds[d] > 0)  // remembered by this process only
        remember_rate(rate_key(variants_[d], group_.entry(d).info), bounds[d]);
    }
  if (measure_alone < D_) {
    GroupRecord r;
    r.rate = rate_[measure_alone], r.alone = whole;
    save(measure_alone, r, kFieldRate | kFieldAlone, "auto split: measured in a dynamic run, then alone");
  }
  if (measure_split < D_) record_split(run, measure_split, whole);
  if (decided < D_) {
    // Every later call checks its choice: its whole call's rate joins the value the choice was
    // made by (the median of the last kChecked, kept by this process), so a choice that one
    // calibration call's noise favoured is dropped once its calls run slower than the other
    // option measured.
    const std::string key = rate_key(variants_[decided], group_.entry(decided).info);
    const double before = decided_alone_ ? alone_[decided] : split_[decided];
    add_check((decided_alone_ ? "now-alone|" : "now-split|") + key, before, whole);
  }
}

void AutoSplit::record_split(const GroupRun& run, std::size_t b, double whole) {
  // The devices slow each other down (host memory, host cores), so the best split often gives
  // the others less than the rates they reached beside each other in the dynamic call. A split
  // is measured again with smaller shares for the other devices (the fastest's share lowered,
  // its split value cleared), while their part stays above twice the minimum share:
  // - after a split slower than its fastest device alone, while no split of the chain has beaten
  //   that device: at the share this split's own times call for (balanced_share), or at half
  //   the share where those ask for no less;
  // - after a faster split whose own times call for a share below 0.9 of its own (the others
  //   finished late): at that share.
  // When the chain ends, the best split of the chain (kept by this process; a chain starts at
  // share 100) is stored with its share, so that one split measured low among them does not
  // hand the call to the device alone while another share ran faster.
  const std::string key = rate_key(variants_[b], group_.entry(b).info);
  const double before = share_ == 100 ? 0.0 : remembered_rate("chain-split|" + key);  // the chain's best so far
  double best = before;
  int best_share = static_cast<int>(remembered_rate("chain-share|" + key));
  if (whole > best) best = whole, best_share = share_;
  const bool lost = whole < alone_[b];
  const double balanced = balanced_share(run, b, share_);
  const int next = share_after(balanced, share_);
  const double total = std::accumulate(run.weights.begin(), run.weights.end(), 0.0),
               others = total > 0 ? (total - run.weights[b]) / total : 0;
  // The others' part of the next split (their weights scale with the share).
  const double next_others = others * next / (others * next + (1 - others) * share_);
  const bool smaller = given_.share <= 0 && next < share_ && next_others > 2 * kMinAutoShare &&
                       (lost ? before < alone_[b] : lower_share(balanced, share_));
  remember_rate("chain-split|" + key, best);
  remember_rate("chain-share|" + key, best_share);
  GroupRecord r;
  r.rate = rate_[b], r.alone = alone_[b];
  r.split = smaller ? 0 : best;
  r.share = smaller ? next : best_share;
  save(b, r, kFieldRate | kFieldAlone | kFieldSplit | kFieldShare,
       smaller ? "auto split: measured in a dynamic run, alone, then split; split again with smaller shares"
               : "auto split: measured in a dynamic run, alone, then split");
}

}  // namespace clforge::detail
