// The search space of a size class: the Cartesian product of the kernel's declared values (or
// the caller's and the target's lists), minus the combinations the kernel's constraints reject,
// those that do not fit the device, and those that build the same kernel as one already in it;
// enumerated up to kMaxSpace combinations, sampled above.
#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <stdexcept>

#include "clforge/errors.hpp"
#include "tuning/db_files.hpp"
#include "tuning/nearest.hpp"
#include "tuning/tuner_internal.hpp"

namespace clforge::detail {
namespace {

// A space larger than kMaxSpace is sampled: random draws, each parameter's value uniform in its
// list, keep the legal and fitting ones.
constexpr std::size_t kMaxDraws = 400000;          // draws of a sampled space
constexpr std::size_t kSampledCandidates = 20000;  // candidates kept from a sampled space

}  // namespace

bool PointSet::key(const ParamMap& p, std::vector<int>& out) const {
  if (p.size() != names_.size()) return false;
  out.resize(names_.size());
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const auto it = p.find(names_[i]);
    if (it == p.end()) return false;
    out[i] = it->second;
  }
  return true;
}

std::size_t PointSet::Hash::operator()(const std::vector<int>& v) const {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the values
  for (int x : v) h = (h ^ static_cast<std::uint32_t>(x)) * 1099511628211ull;
  return static_cast<std::size_t>(h);
}

bool PointSet::insert(const ParamMap& p) {
  std::vector<int> k;
  // Every point the tuner inserts is one of the space's (KernelSpec::canonical keeps the names).
  if (!key(p, k)) throw std::logic_error("PointSet: a point with other names than the space's");
  return set_.insert(std::move(k)).second;
}

bool PointSet::insert_values(std::vector<int> values) { return set_.insert(std::move(values)).second; }

std::vector<int> Space::candidate_values(std::size_t i) const {
  std::vector<int> v(names.size());
  for (std::size_t k = 0; k < names.size(); ++k) v[k] = values[k][static_cast<std::size_t>(candidates[i][k])];
  return v;
}

ParamMap Space::candidate(std::size_t i) const {
  const std::vector<int> v = candidate_values(i);
  ParamMap p;
  for (std::size_t k = 0; k < names.size(); ++k) p.emplace_hint(p.end(), names[k], v[k]);
  return p;
}

Code Space::code(const ParamMap& p) const {
  Code c(names.size(), -1);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = p.find(names[i]);
    if (it == p.end()) continue;
    const auto v = std::find(values[i].begin(), values[i].end(), it->second);
    if (v != values[i].end()) c[i] = static_cast<int>(v - values[i].begin());
  }
  return c;
}

bool PointSet::contains(const ParamMap& p) const {
  std::vector<int> k;
  return key(p, k) && set_.count(k) != 0;
}

Space build_space(const KernelSpec& spec, const std::map<std::string, std::vector<int>>& restrict_to,
                  const std::string& variant, const DeviceInfo& dev, std::uint64_t seed) {
  Space s;
  for (const auto& [name, vals] : restrict_to) {
    const ParamInfo* p = spec.find(name);
    if (p == nullptr) {
      std::string known;
      for (const auto& q : spec.params) known += (known.empty() ? "" : ", ") + q.name;
      throw InvalidArgument("unknown parameter '" + name + "' for kernel " + spec.name + " (known: " + known + ")");
    }
    if (vals.empty()) throw InvalidArgument("no values given for parameter " + name);
    for (int v : vals) {
      if (std::find(p->legal.begin(), p->legal.end(), v) == p->legal.end()) {
        std::string legal;
        for (int l : p->legal) legal += (legal.empty() ? "" : ", ") + std::to_string(l);
        throw InvalidArgument("parameter " + name + "=" + std::to_string(v) + " is not legal for kernel " + spec.name +
                              " (legal: " + legal + ")");
      }
    }
  }
  double product = 1;
  for (const auto& p : spec.params) {
    s.names.push_back(p.name);
    auto it = restrict_to.find(p.name);
    std::vector<int> vals = it != restrict_to.end() ? it->second : p.legal;
    std::vector<int> unique;
    for (int v : vals)
      if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
    product *= static_cast<double>(unique.size());
    s.values.push_back(std::move(unique));
  }
  // 0: admissible; 1: illegal combination; 2: does not fit the device.
  auto classify = [&spec, variant, &dev](const ParamMap& p) {
    if (spec.check && !spec.check(p, variant).empty()) return 1;
    if (!fit_problem(spec, p, variant, dev).empty()) return 2;
    return 0;
  };
  s.admissible = [classify](const ParamMap& p) { return classify(p) == 0; };
  // Configurations that build the same kernel as an earlier one (KernelSpec::canonical) are
  // counted as illegal: searching them again would only repeat a measurement.
  PointSet representatives(s.names);
  std::vector<int> idx(s.names.size(), 0);  // the point's value positions (its code)
  auto count = [&](const ParamMap& p) {
    const int k = classify(p);
    if (k == 1)
      ++s.illegal;
    else if (k == 2)
      ++s.unfit;
    else if (spec.canonical && !representatives.insert(spec.canonical(p, dev)))
      ++s.illegal;
    else
      s.candidates.emplace_back(idx.begin(), idx.end());
  };
  s.total = product > 1e18 ? static_cast<std::size_t>(1e18) : static_cast<std::size_t>(product);
  // One map, its values set in place per point (no allocation per point).
  ParamMap p;
  std::vector<int*> slot;
  for (const auto& name : s.names) slot.push_back(&p[name]);
  if (product > static_cast<double>(kMaxSpace)) {
    s.sampled = true;
    std::mt19937_64 rng(seed);
    PointSet seen(s.names);
    while (s.draws < kMaxDraws && s.candidates.size() < kSampledCandidates) {
      ++s.draws;
      for (std::size_t i = 0; i < idx.size(); ++i) {
        idx[i] = static_cast<int>(std::uniform_int_distribution<std::size_t>(0, s.values[i].size() - 1)(rng));
        *slot[i] = s.values[i][static_cast<std::size_t>(idx[i])];
      }
      if (seen.insert(p)) count(p);
    }
    return s;
  }
  for (std::size_t n = 0; n < s.total; ++n) {
    for (std::size_t i = 0; i < idx.size(); ++i) *slot[i] = s.values[i][static_cast<std::size_t>(idx[i])];
    count(p);
    for (std::size_t i = idx.size(); i-- > 0;) {  // odometer, last parameter fastest
      if (static_cast<std::size_t>(++idx[i]) < s.values[i].size()) break;
      idx[i] = 0;
    }
  }
  s.draws = s.total;
  return s;
}

bool space_holds(const Space& space, const ParamMap& p) {
  for (std::size_t i = 0; i < space.names.size(); ++i) {
    const auto it = p.find(space.names[i]);
    const auto& vals = space.values[i];
    if (it == p.end() || std::find(vals.begin(), vals.end(), it->second) == vals.end()) return false;
  }
  return space.admissible(p);
}

ParamMap project_onto(const Space& space, const ParamMap& p) {
  ParamMap q = p;
  for (std::size_t i = 0; i < space.names.size(); ++i) {
    const std::vector<int>& vals = space.values[i];
    if (vals.empty()) continue;
    const auto it = p.find(space.names[i]);
    int& v = q[space.names[i]];
    if (it == p.end()) {
      v = vals.front();
      continue;
    }
    const int want = it->second;
    v = *std::min_element(vals.begin(), vals.end(), [&](int a, int b) {
      const long long da = std::llabs(static_cast<long long>(a) - want),
                      db = std::llabs(static_cast<long long>(b) - want);
      return da != db ? da < db : a < b;
    });
  }
  if (space.candidates.empty() || space_holds(space, q)) return q;
  // Not admissible (e.g. a tile that no longer fits): the candidate that differs from it in the
  // fewest parameters, the first in the space's order of those.
  const Code want = space.code(q);
  std::size_t best = 0, best_diff = want.size() + 1;
  for (std::size_t i = 0; i < space.candidates.size() && best_diff > 1; ++i) {
    std::size_t diff = 0;
    for (std::size_t k = 0; k < want.size() && diff < best_diff; ++k) diff += space.candidates[i][k] != want[k];
    if (diff < best_diff) best = i, best_diff = diff;
  }
  return space.candidate(best);
}

namespace {
// The values of parameter i in order of their distance from `from` (the nearer first, then the smaller).
std::vector<int> nearest_first(const Space& space, std::size_t i, int from) {
  std::vector<int> vals = space.values[i];
  std::stable_sort(vals.begin(), vals.end(), [from](int a, int b) {
    const long long da = std::llabs(static_cast<long long>(a) - from),
                    db = std::llabs(static_cast<long long>(b) - from);
    return da != db ? da < db : a < b;
  });
  return vals;
}

// The first f(q, i) that is a point, q being p with one parameter not in `kept` (index i,
// `first` or later) set to another of its searched values, the nearest p's first.
std::optional<ParamMap> first_change(const Space& space, const ParamMap& p, const std::vector<std::string>& kept,
                                     std::size_t first,
                                     const std::function<std::optional<ParamMap>(ParamMap, std::size_t)>& f) {
  for (std::size_t i = first; i < space.names.size(); ++i) {
    const std::string& name = space.names[i];
    if (std::find(kept.begin(), kept.end(), name) != kept.end() || !p.count(name)) continue;
    for (const int v : nearest_first(space, i, p.at(name))) {
      if (v == p.at(name)) continue;
      ParamMap q = p;
      q[name] = v;
      if (std::optional<ParamMap> r = f(std::move(q), i)) return r;
    }
  }
  return std::nullopt;
}

// p with one parameter other than those kept (at index `first` or later) changed so that the space holds it.
std::optional<ParamMap> change_one(const Space& space, const ParamMap& p, const std::vector<std::string>& kept,
                                   std::size_t first) {
  return first_change(space, p, kept, first, [&space](ParamMap q, std::size_t) {
    return space_holds(space, q) ? std::optional<ParamMap>(std::move(q)) : std::nullopt;
  });
}
}  // namespace

std::optional<ParamMap> repair_keeping(const Space& space, const ParamMap& p, const std::vector<std::string>& kept,
                                       int max_changes) {
  if (space_holds(space, p)) return p;
  if (auto q = change_one(space, p, kept, 0)) return q;
  if (max_changes < 2) return std::nullopt;
  return first_change(space, p, kept, 0, [&](ParamMap q, std::size_t i) { return change_one(space, q, kept, i + 1); });
}

std::optional<ParamMap> repair_keeping(const Space& space, const ParamMap& p, const std::string& axis,
                                       int max_changes) {
  return repair_keeping(space, p, std::vector<std::string>{axis}, max_changes);
}

std::vector<ParamMap> space_neighbours(const Space& space, const ParamMap& p) {
  std::vector<ParamMap> out;
  const Code code = space.code(p);
  for (std::size_t i = 0; i < space.names.size(); ++i) {
    if (code[i] < 0) continue;
    for (const int step : {-1, 1}) {
      const int j = code[i] + step;
      if (j < 0 || j >= static_cast<int>(space.values[i].size())) continue;
      ParamMap q = p;
      q[space.names[i]] = space.values[i][static_cast<std::size_t>(j)];
      if (std::optional<ParamMap> r = repair_keeping(space, q, space.names[i], 1)) out.push_back(std::move(*r));
    }
  }
  return out;
}

std::vector<ParamMap> seed_candidates(const KernelSpec& spec, const Space& space, const std::string& variant,
                                      const ParamMap& defaults, const DeviceInfo& dev, const Peaks* peaks) {
  struct Seed {
    int group;
    double distance;
    ParamMap params;
  };
  std::vector<Seed> ranked;
  std::set<ParamMap> seen{defaults};
  const Loaded shipped = load_shipped(spec);
  for (const Entry& e : *shipped.entries) {
    if (e.params.empty() || !e.error.empty() || (e.variant != variant && e.variant != "*")) continue;
    ParamMap p = defaults;
    for (const auto& [name, value] : e.params) p[name] = value;
    if (!space_holds(space, p) || !seen.insert(p).second) continue;
    const bool vendor = !e.vendor.empty() && to_lower(e.vendor) == to_lower(dev.vendor_key());
    // Groups 0-4: the tiers of the rows that apply (every matching row is group 0 without peaks);
    // 5 and 6: the rows that do not, those of the vendor class first.
    const std::optional<Placement> at = peaks != nullptr ? place_row(e, dev, peaks) : std::nullopt;
    const int group = at ? static_cast<int>(at->tier) : e.matches(dev) ? 0 : vendor ? 5 : 6;
    ranked.push_back({group, at ? at->distance() : 0.0, std::move(p)});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Seed& a, const Seed& b) {
    return a.group != b.group ? a.group < b.group : a.distance < b.distance;
  });
  std::vector<ParamMap> seeds;
  for (auto& s : ranked) seeds.push_back(std::move(s.params));
  return seeds;
}

}  // namespace clforge::detail
