// The anneal strategy of a size class: simulated annealing over the value lists, from the
// reference (or the best so far when the reference failed). A neighbour changes one parameter
// to the next or previous value in its list. Each step compiles a batch of unvisited neighbours
// and moves to the fastest of them (a slower one with probability exp(-(t/t0 - 1) / T)).
#include <algorithm>
#include <cmath>
#include <random>

#include "tuning/tuner_internal.hpp"

namespace clforge::detail {

void ClassTuner::anneal(const Space& space) {
  ParamMap current = r_.default_params;
  double current_ms = r_.default_ms;
  if (current_ms <= 0 && r_.has_best) {
    current = r_.best;
    current_ms = r_.best_ms;
  }
  const double t0 = 0.05;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  while (may_start_batch()) {
    std::vector<ParamMap> neighbours;
    for (std::size_t i = 0; i < space.names.size(); ++i) {
      const auto& vals = space.values[i];
      const auto it = current.find(space.names[i]);
      const int value = it == current.end() ? vals.front() : it->second;
      const auto pos = std::find(vals.begin(), vals.end(), value);
      std::vector<int> next;
      if (pos == vals.end()) {
        next = vals;  // the start lies outside the searched values: every value is one step away
      } else {
        if (pos != vals.begin()) next.push_back(*(pos - 1));
        if (pos + 1 != vals.end()) next.push_back(*(pos + 1));
      }
      for (int v : next) {
        ParamMap q = current;
        q[space.names[i]] = v;
        if (fresh_for(neighbours, q) && (valid_.contains(q) || (space.sampled && space.admissible(q))))
          neighbours.push_back(q);
      }
    }
    if (neighbours.empty()) {  // a local dead end: restart from an unvisited candidate
      std::vector<ParamMap> rest;
      for (std::size_t i = 0; i < space.candidates.size(); ++i)
        if (ParamMap c = space.candidate(i); !visited(c)) rest.push_back(std::move(c));
      if (rest.empty()) break;
      neighbours.push_back(rest[std::uniform_int_distribution<std::size_t>(0, rest.size() - 1)(rng_)]);
      current_ms = 0;  // accept the restart point whatever its time
    }
    std::shuffle(neighbours.begin(), neighbours.end(), rng_);
    neighbours.resize(std::min<std::size_t>({neighbours.size(), threads_, left()}));
    const std::size_t before = r_.rows.size();
    evaluate_batch(neighbours, 0);
    const TuneRow* step = nullptr;
    for (std::size_t i = before; i < r_.rows.size(); ++i)
      if (r_.rows[i].status == CandidateStatus::Ok && (step == nullptr || r_.rows[i].ms < step->ms)) step = &r_.rows[i];
    if (step == nullptr) {
      if (r_.rows.size() > before && current_ms == 0) current = r_.rows.back().params;
      continue;
    }
    const double progress = total_ > 0 ? static_cast<double>(r_.tried) / static_cast<double>(total_) : 1.0;
    const double temperature = t0 * std::max(0.02, 1.0 - progress);
    if (current_ms <= 0 || step->ms <= current_ms ||
        uniform(rng_) < std::exp(-(step->ms / current_ms - 1.0) / temperature)) {
      current = step->params;
      current_ms = step->ms;
    }
  }
}

}  // namespace clforge::detail
