// The model strategy of a size class: after the references and the seeded rows, a small random
// batch, then batches chosen by a surrogate fitted to everything measured in the class so far
// and, at a quarter of the weight, in the classes tuned before it in the same call (relative to
// each class's reference; with enough of those, the first batch is the fit's too, not random).
// The surrogate is a ridge regression of log(time) on one-hot features of each parameter's value,
// plus the pairs of values of the three most influential parameters once there are enough
// measurements; a candidate that was rejected or failed enters as twice the slowest verified time,
// so the fit learns to avoid its values. Candidates are ranked by predicted log time less an
// exploration bonus (the fit's uncertainty about them, large for values seldom measured: an upper
// confidence bound), with a seeded share of random picks. The pool is every unvisited candidate
// of the space and, for a sampled space, the admissible one-step neighbours of the best few.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <random>

#include "tuning/tuner_internal.hpp"

namespace clforge::detail {
namespace {

constexpr std::size_t kFirstRandom = 6;     // random candidates before the first fit
constexpr double kRandomShare = 0.1;        // share of each later batch picked at random
constexpr double kRidge = 1.0;              // ridge penalty per feature
constexpr double kBonus = 0.5;              // weight of the uncertainty in the ranking
constexpr std::size_t kPairParams = 3;      // most influential parameters whose value pairs are features
constexpr std::size_t kPairsFrom = 24;      // measurements before pair features are used
constexpr std::size_t kNeighbourSeeds = 3;  // best candidates whose neighbours join a sampled pool
constexpr double kPriorWeight = 0.25;       // weight of an earlier class's row in the fit (its own: 1)

// A candidate as the model sees it: its Code (tuner_internal.hpp), -1 where a value is not among
// those searched (a reference outside the lists).
Code encode(const Space& s, const ParamMap& p) { return s.code(p); }

// Cholesky factor L of a symmetric positive definite n x n matrix (row-major, in place: lower
// triangle); the penalty keeps the matrix definite.
void cholesky(std::vector<double>& a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    a[j * n + j] = std::sqrt(std::max(d, 1e-12));
    for (std::size_t i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) v -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = v / a[j * n + j];
    }
  }
}

// Solves L L^T x = b for x, b in place.
void cholesky_solve(const std::vector<double>& l, std::size_t n, double* b) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= l[i * n + k] * b[k];
    b[i] /= l[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= l[k * n + i] * b[k];
    b[i] /= l[i * n + i];
  }
}

// Ridge regression on the one-hot features of Codes.
class Surrogate {
 public:
  explicit Surrogate(const Space& s) : values_(s.values.size()) {
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      values_[i] = s.values[i].size();
      offset_.push_back(features_);
      features_ += values_[i];
    }
  }

  // Adds the value pairs of the parameters with the widest spread of fitted effects.
  void add_pairs() {
    std::vector<std::pair<double, std::size_t>> spread;
    for (std::size_t i = 0; i < values_.size(); ++i) {
      if (values_[i] < 2) continue;
      const auto first = w_.begin() + static_cast<std::ptrdiff_t>(offset_[i]);
      const auto [lo, hi] = std::minmax_element(first, first + static_cast<std::ptrdiff_t>(values_[i]));
      spread.emplace_back(-(*hi - *lo), i);
    }
    std::sort(spread.begin(), spread.end());
    if (spread.size() > kPairParams) spread.resize(kPairParams);
    for (std::size_t a = 0; a < spread.size(); ++a)
      for (std::size_t b = a + 1; b < spread.size(); ++b) {
        const std::size_t p = std::min(spread[a].second, spread[b].second),
                          q = std::max(spread[a].second, spread[b].second);
        pairs_.push_back({p, q, features_});
        features_ += values_[p] * values_[q];
      }
  }

  // Fits log times y of the codes x, each row weighing wt: weights and the inverse of the
  // penalised normal matrix.
  void fit(const std::vector<Code>& x, const std::vector<double>& y, const std::vector<double>& wt) {
    const std::size_t n = features_;
    double sum_w = 0, sum_wy = 0;
    for (std::size_t r = 0; r < x.size(); ++r) sum_w += wt[r], sum_wy += wt[r] * y[r];
    mean_ = sum_wy / sum_w;
    std::vector<double> a(n * n, 0.0), b(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) a[i * n + i] = kRidge;
    std::vector<std::size_t> f;
    for (std::size_t r = 0; r < x.size(); ++r) {
      active(x[r], f);
      for (std::size_t u : f) {
        b[u] += wt[r] * (y[r] - mean_);
        for (std::size_t v : f) a[u * n + v] += wt[r];
      }
    }
    cholesky(a, n);
    w_ = b;
    cholesky_solve(a, n, w_.data());
    inverse_.assign(n * n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {  // column j of the inverse (symmetric: stored as row j)
      double* col = &inverse_[j * n];
      col[j] = 1.0;
      cholesky_solve(a, n, col);
    }
    double ss = 0;
    for (std::size_t r = 0; r < x.size(); ++r) ss += wt[r] * std::pow(y[r] - predict(x[r]), 2);
    noise_ = std::max(0.05, std::sqrt(ss / sum_w));
  }

  double predict(const Code& c) const {
    double v = mean_;
    std::vector<std::size_t> f;
    active(c, f);
    for (std::size_t u : f) v += w_[u];
    return v;
  }

  // Predicted log time less the exploration bonus: bonus * noise * sqrt(x^T A^-1 x).
  double score(const Code& c, std::vector<std::size_t>& f) const {
    active(c, f);
    double v = mean_, q = 0;
    for (std::size_t u : f) {
      v += w_[u];
      for (std::size_t t : f) q += inverse_[u * features_ + t];
    }
    return v - kBonus * noise_ * std::sqrt(std::max(0.0, q));
  }

 private:
  struct Pair {
    std::size_t a, b, offset;
  };
  void active(const Code& c, std::vector<std::size_t>& f) const {
    f.clear();
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i] >= 0) f.push_back(offset_[i] + static_cast<std::size_t>(c[i]));
    for (const Pair& p : pairs_)
      if (c[p.a] >= 0 && c[p.b] >= 0)
        f.push_back(p.offset + static_cast<std::size_t>(c[p.a]) * values_[p.b] + static_cast<std::size_t>(c[p.b]));
  }

  std::vector<std::size_t> values_, offset_;
  std::vector<Pair> pairs_;
  std::size_t features_ = 0;
  double mean_ = 0, noise_ = 1;
  std::vector<double> w_, inverse_;
};

// The training set: every row of the class, failures at twice the slowest verified time, each of
// weight 1; then, where the class's reference verified, the earlier classes' rows at its log time
// plus theirs relative to their references, of weight kPriorWeight.
void training_set(const Space& s, const std::vector<TuneRow>& rows, const std::vector<ClassTuner::PriorRow>& prior,
                  std::vector<Code>& x, std::vector<double>& y, std::vector<double>& wt) {
  double worst = 0;
  bool any_ok = false;
  for (const auto& row : rows)
    if (row.status == CandidateStatus::Ok) {
      worst = any_ok ? std::max(worst, std::log(row.ms)) : std::log(row.ms);
      any_ok = true;
    }
  for (const auto& row : rows) {
    if (row.status != CandidateStatus::Ok && !any_ok) continue;
    x.push_back(encode(s, row.params));
    y.push_back(row.status == CandidateStatus::Ok ? std::log(row.ms) : worst + std::log(2.0));
    wt.push_back(1.0);
  }
  const TuneRow* ref = reference_row(rows);
  if (ref == nullptr) return;
  for (const auto& p : prior) {
    x.push_back(encode(s, p.params));
    y.push_back(std::log(ref->ms) + p.log_ratio);
    wt.push_back(kPriorWeight);
  }
}

// The pool of a fit: the space's candidates not yet tried (by index) and, for a sampled space,
// the admissible unvisited neighbours of the best verified candidates.
struct Pool {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  explicit Pool(const Space& s) : space(s), codes(s.candidates), done(codes.size(), 0), sorted(codes.size()) {
    std::iota(sorted.begin(), sorted.end(), std::size_t{0});
    std::sort(sorted.begin(), sorted.end(), [this](std::size_t a, std::size_t b) { return codes[a] < codes[b]; });
  }
  // The position of p among the candidates, or npos (a binary search over the codes; a map with
  // other names than the space's is none of them).
  std::size_t find(const ParamMap& p) const {
    const Code code = encode(space, p);
    if (p.size() != code.size() || std::find(code.begin(), code.end(), -1) != code.end()) return npos;
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), code,
                                     [this](std::size_t i, const Code& q) { return codes[i] < q; });
    return it != sorted.end() && codes[*it] == code ? *it : npos;
  }
  const Space& space;
  const std::vector<Code>& codes;   // the space's candidates
  std::vector<char> done;           // per candidate: evaluated
  std::vector<std::size_t> sorted;  // candidate positions in code order
};

std::vector<ParamMap> sampled_neighbours(const Space& s, const std::vector<TuneRow>& rows, const Pool& pool,
                                         const std::function<bool(const ParamMap&)>& visited) {
  std::vector<const TuneRow*> ok;
  for (const auto& row : rows)
    if (row.status == CandidateStatus::Ok) ok.push_back(&row);
  std::stable_sort(ok.begin(), ok.end(), [](const TuneRow* a, const TuneRow* b) { return a->ms < b->ms; });
  if (ok.size() > kNeighbourSeeds) ok.resize(kNeighbourSeeds);
  std::vector<ParamMap> out;
  std::set<ParamMap> seen;
  for (const TuneRow* row : ok)
    for (auto& q : space_neighbours(s, row->params))
      if (!visited(q) && pool.find(q) == Pool::npos && seen.insert(q).second) out.push_back(std::move(q));
  return out;
}

// The n candidates of the pool the surrogate ranks best (ties: pool order).
std::vector<ParamMap> ranked_batch(const Space& s, const std::vector<TuneRow>& rows,
                                   const std::vector<ClassTuner::PriorRow>& prior, const Pool& pool,
                                   const std::vector<ParamMap>& extra, std::size_t n) {
  std::vector<Code> x;
  std::vector<double> y, wt;
  training_set(s, rows, prior, x, y, wt);
  if (x.empty()) return {};
  Surrogate model(s);
  model.fit(x, y, wt);
  if (x.size() >= kPairsFrom) {
    model.add_pairs();
    model.fit(x, y, wt);
  }
  std::vector<std::pair<double, std::size_t>> ranked;
  std::vector<std::size_t> f;
  const std::size_t size = pool.codes.size();
  for (std::size_t i = 0; i < size; ++i)
    if (!pool.done[i]) ranked.emplace_back(model.score(pool.codes[i], f), i);
  for (std::size_t j = 0; j < extra.size(); ++j) ranked.emplace_back(model.score(encode(s, extra[j]), f), size + j);
  n = std::min(n, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n), ranked.end());
  std::vector<ParamMap> batch;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = ranked[k].second;
    batch.push_back(i < size ? s.candidate(i) : extra[i - size]);
  }
  return batch;
}

}  // namespace

void ClassTuner::model(const Space& space) {
  Pool pool(space);
  std::size_t marked = 0;  // rows whose candidates are marked done
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // A random candidate not tried and not in the batch (none when none is left).
  auto random_pick = [&](const std::vector<ParamMap>& batch) -> std::optional<ParamMap> {
    std::vector<Code> taken;
    for (const auto& p : batch) taken.push_back(encode(space, p));
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < pool.codes.size(); ++i)
      if (!pool.done[i] && std::find(taken.begin(), taken.end(), pool.codes[i]) == taken.end()) rest.push_back(i);
    if (rest.empty()) return std::nullopt;
    return space.candidate(rest[std::uniform_int_distribution<std::size_t>(0, rest.size() - 1)(rng_)]);
  };
  // Random candidates taken before the first fit: none where the earlier classes measured enough.
  std::size_t first = prior_.size() >= kFirstRandom ? kFirstRandom : 0;
  while (may_start_batch()) {
    for (; marked < r_.rows.size(); ++marked) {
      const std::size_t i = pool.find(r_.rows[marked].params);
      if (i != Pool::npos) pool.done[i] = 1;
    }
    const std::size_t n = std::min<std::size_t>(threads_, left());
    std::vector<ParamMap> batch;
    if (first >= kFirstRandom) {
      const std::vector<ParamMap> extra =
          space.sampled ? sampled_neighbours(space, r_.rows, pool, [this](const ParamMap& q) { return visited(q); })
                        : std::vector<ParamMap>{};
      batch = ranked_batch(space, r_.rows, prior_, pool, extra, n);
      for (auto& p : batch)
        if (uniform(rng_) < kRandomShare)
          if (std::optional<ParamMap> q = random_pick(batch)) p = std::move(*q);
    }
    // Before the first fit, and whenever there is nothing to fit (nothing verified yet): random.
    for (std::optional<ParamMap> p; batch.size() < n && (p = random_pick(batch)); ++first)
      batch.push_back(std::move(*p));
    if (batch.empty()) break;
    // One that builds the kernel of a visited configuration (a climb's step) is done already.
    std::vector<ParamMap> fresh;
    for (ParamMap& p : batch)
      if (fresh_for(fresh, p))
        fresh.push_back(std::move(p));
      else if (const std::size_t i = pool.find(p); i != Pool::npos)
        pool.done[i] = 1;
    if (!fresh.empty()) evaluate_batch(fresh, 0);
  }
}

}  // namespace clforge::detail
