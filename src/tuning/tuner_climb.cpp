// A size class's seeds and climb (ClassTuner, tuner_internal.hpp): after the references, the
// fastest of the earlier classes, the values or single steps of the target's seed axes and the
// last values of its seed ends around the best so far, the shipped rows of other devices; with
// TuneTarget::seed_neighbours a climb of stars, each led by the move that made its centre
// carried on and by its predecessor's gains combined.
#include <algorithm>
#include <optional>

#include "tuning/db_files.hpp"
#include "tuning/tuner_internal.hpp"

namespace clforge::detail {

void ClassTuner::evaluate_seeds(const Space& space) {
  const auto add = [&](std::vector<ParamMap>& seeds, ParamMap p) {
    if (!visited(p) && space_holds(space, p) && std::find(seeds.begin(), seeds.end(), p) == seeds.end())
      seeds.push_back(std::move(p));
  };
  std::vector<ParamMap> seeds;
  for (const ParamMap& p : siblings_) add(seeds, p);  // projected in run()
  evaluate_in_order(seeds);
  seeds.clear();
  const ParamMap centre = project_onto(space, r_.has_best ? r_.best : r_.default_params);
  // The device's peaks as stored in its user database (whether or not the lookup reads it).
  const Loaded user = load_file_entries(user_database_path(*qc_.info), {}, false);
  const Peaks* peaks = user.peaks ? &*user.peaks : nullptr;
  std::vector<ParamMap> rows;  // other devices' rows: after the steps, and after a star's early end
  for (auto& p : seed_candidates(spec_, space, r_.variant, r_.default_params, *qc_.info, peaks))
    add(rows, std::move(p));
  if (!target_.seed_neighbours) {
    for (ParamMap& p : axis_seeds(space, centre)) add(seeds, std::move(p));
    for (const ParamMap& p : rows) add(seeds, p);
    evaluate_in_order(seeds);
    return;
  }
  Star star = star_steps(space, centre, 0);  // then the rows, of no unit
  for (const ParamMap& p : rows)
    if (std::find(star.points.begin(), star.points.end(), p) == star.points.end()) {
      star.points.push_back(p);
      star.unit.push_back(Star::kNone);
    }
  const double centre_ms = r_.has_best ? r_.best_ms : 0;
  const auto t0 = Clock::now();
  climbing_ = true;
  const std::size_t went = evaluate_in_order(star.points, true);
  climb(space, centre, centre_ms, std::move(star), went, Clock::now() - t0);
  climbing_ = false;
  evaluate_in_order(rows);  // those a star's early end left (the visited are skipped)
}

// A star of single steps, again around each new best while one moves it (a climb), before the
// strategy's order: the steps toward a far optimum gain one after the other. A star ends at the
// first batch that moves the best by 2 % or more, and the next starts there: on the 2-core Intel
// VM (PoCL 3.1, default rows, `tune sgemm --size 256 --size 1000 --size 129x257x65 --time 60`,
// PoCL's cache empty, 2026-12-01) xgemm's search stored 3.59x and 3.93x over the default (seeds 7
// and 11) where whole stars stored 2.21x and 2.12x; `tune transpose --size 1024 --size 1000x999
// --time 25` 3.08x and 2.96x against 2.85x and 2.13x; the separable blur's 4.44x and 7.07x
// against 6.87x and 4.46x. A star starts only where two at the last one's pace end within the
// class's share: where they would not, the model strategy combines the steps that gained in fewer
// candidates. On the 2-core Intel VM (cold start of 2026-12-01) the separable blur's class
// climbed from vectors of 1 to 8 in its 30 s and stored 2.39x over the default, where the model
// had combined the star's steps into vectors of 16 without local memory, 8.52x.
void ClassTuner::climb(const Space& space, ParamMap centre, double centre_ms, Star star, std::size_t went,
                       Clock::duration pace) {
  std::size_t first = 0;
  while (r_.has_best && may_start_batch() &&
         (deadline_ == Clock::time_point::max() || Clock::now() + 2 * pace <= deadline_)) {
    ParamMap best = project_onto(space, r_.best);
    if (best == centre) break;
    // The steps the last star went through; the next starts at the unit after the last of them.
    std::vector<ParamMap> tried;
    for (std::size_t i = 0; i < std::min(went, star.points.size()); ++i)
      if (star.unit[i] != Star::kNone) {
        tried.push_back(star.points[i]);
        first = star.unit[i] + 1;
      }
    Star next;  // the leads, of no unit, then the star
    for (std::optional<ParamMap> p :
         {pattern_step(space, centre, best), combined_step(space, centre, centre_ms, tried, best)})
      if (p && !visited(*p) && std::find(next.points.begin(), next.points.end(), *p) == next.points.end()) {
        next.points.push_back(std::move(*p));
        next.unit.push_back(Star::kNone);
      }
    centre = std::move(best);
    centre_ms = r_.best_ms;
    Star steps = star_steps(space, centre, first);
    for (std::size_t i = 0; i < steps.points.size(); ++i)
      if (std::find(next.points.begin(), next.points.end(), steps.points[i]) == next.points.end()) {
        next.points.push_back(std::move(steps.points[i]));
        next.unit.push_back(steps.unit[i]);
      }
    const auto t0 = Clock::now();
    went = evaluate_in_order(next.points, true);
    pace = Clock::now() - t0;
    star = std::move(next);
  }
}

std::optional<ParamMap> ClassTuner::pattern_step(const Space& space, const ParamMap& centre, const ParamMap& best) {
  ParamMap p = best;
  std::vector<std::string> moved;
  for (std::size_t i = 0; i < space.names.size(); ++i) {
    const std::vector<int>& values = space.values[i];
    const auto index = [&](const ParamMap& m) {
      const auto it = m.find(space.names[i]);
      return it == m.end() ? values.end() - values.begin()
                           : std::find(values.begin(), values.end(), it->second) - values.begin();
    };
    const std::ptrdiff_t from = index(centre), to = index(best), end = static_cast<std::ptrdiff_t>(values.size());
    if (from == end || to == end || from == to) continue;
    const std::ptrdiff_t next = to + (to > from ? 1 : -1);
    if (next < 0 || next >= end) continue;
    p[space.names[i]] = values[static_cast<std::size_t>(next)];
    moved.push_back(space.names[i]);
  }
  if (moved.empty()) return std::nullopt;
  return repair_keeping(space, p, moved);
}

ClassTuner::Star ClassTuner::star_steps(const Space& space, const ParamMap& base, std::size_t first) const {
  std::vector<std::vector<std::string>> units;
  for (const std::string& axis : target_.seed_axes) units.push_back({axis});
  const std::size_t ends = units.size();  // units [ends, links): the ends of seed_ends
  for (const std::string& axis : target_.seed_ends) units.push_back({axis});
  const std::size_t links = units.size();
  for (const auto& link : target_.seed_links) units.push_back(link);
  Star star;
  for (std::size_t k = 0; k < units.size(); ++k) {
    const std::size_t u = (first + k) % units.size();
    std::vector<ParamMap> steps;
    if (u >= ends && u < links)
      end_step(space, base, units[u][0], steps);
    else
      link_steps(space, base, units[u], steps);
    for (ParamMap& p : steps)
      if (!visited(p) && std::find(star.points.begin(), star.points.end(), p) == star.points.end()) {
        star.points.push_back(std::move(p));
        star.unit.push_back(u);
      }
  }
  return star;
}

std::optional<ParamMap> ClassTuner::combined_step(const Space& space, const ParamMap& centre, double centre_ms,
                                                  const std::vector<ParamMap>& steps, const ParamMap& best) const {
  std::vector<std::pair<double, const ParamMap*>> gains;
  for (const ParamMap& p : steps) {
    const auto row = std::find_if(r_.rows.begin(), r_.rows.end(), [&](const TuneRow& x) { return x.params == p; });
    if (p != best && row != r_.rows.end() && row->status == CandidateStatus::Ok && !row->cut_short &&
        row->ms < centre_ms)
      gains.emplace_back(row->ms, &p);
  }
  std::stable_sort(gains.begin(), gains.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ParamMap c = best;
  std::vector<std::string> changed;
  const auto at = [](const ParamMap& m, const std::string& k) { return m.count(k) ? m.at(k) : -1; };
  for (const auto& gain : gains)
    for (const auto& [axis, v] : *gain.second)
      if (v != at(centre, axis) && at(best, axis) == at(centre, axis) && at(c, axis) == at(centre, axis)) {
        c[axis] = v;
        changed.push_back(axis);
      }
  if (changed.empty()) return std::nullopt;
  std::optional<ParamMap> q = repair_keeping(space, c, changed);
  if (q && *q == best) return std::nullopt;
  return q;
}

std::vector<ParamMap> ClassTuner::axis_seeds(const Space& space, const ParamMap& base) const {
  std::vector<ParamMap> out;
  for (const std::string& axis : target_.seed_axes) {
    const auto at = std::find(space.names.begin(), space.names.end(), axis);
    if (at == space.names.end()) continue;
    for (const int v : space.values[static_cast<std::size_t>(at - space.names.begin())]) {
      ParamMap p = base;
      p[axis] = v;
      out.push_back(std::move(p));  // a split the space does not hold is left out by the caller
    }
  }
  return out;
}

void ClassTuner::link_steps(const Space& space, const ParamMap& base, const std::vector<std::string>& link,
                            std::vector<ParamMap>& out) {
  for (const int step : {-1, 1}) {
    ParamMap p = base;
    for (const std::string& axis : link) {
      const auto at = std::find(space.names.begin(), space.names.end(), axis);
      if (at == space.names.end()) return;  // a link of an axis the space does not search: none
      const std::vector<int>& values = space.values[static_cast<std::size_t>(at - space.names.begin())];
      const auto here = std::find(values.begin(), values.end(), base.at(axis));
      const std::ptrdiff_t j = (here - values.begin()) + step;
      if (here == values.end() || j < 0 || j >= static_cast<std::ptrdiff_t>(values.size())) {
        p.clear();
        break;
      }
      p[axis] = values[static_cast<std::size_t>(j)];
    }
    if (!p.empty())
      if (std::optional<ParamMap> q = repair_keeping(space, p, link)) out.push_back(std::move(*q));
  }
}

void ClassTuner::end_step(const Space& space, const ParamMap& base, const std::string& axis,
                          std::vector<ParamMap>& out) {
  const auto at = std::find(space.names.begin(), space.names.end(), axis);
  const auto here = base.find(axis);
  if (at == space.names.end() || here == base.end()) return;
  const std::vector<int>& values = space.values[static_cast<std::size_t>(at - space.names.begin())];
  if (values.empty() || here->second == values.back()) return;
  ParamMap p = base;
  p[axis] = values.back();
  if (std::optional<ParamMap> q = repair_keeping(space, p, axis)) out.push_back(std::move(*q));
}

}  // namespace clforge::detail
