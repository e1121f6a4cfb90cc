// Replay (TuneOptions::replay): a measured run's tune cache as a fixed universe. Each size
// class's space is cut down to the configurations the cache holds for the class's key, in the
// space's enumeration order, and the class tuner takes every result from the cache; nothing is
// compiled, run, stored or written. Any strategy can so be replayed on the same measurements.
#include <algorithm>
#include <memory>
#include <set>

#include "clforge/errors.hpp"
#include "runtime/strings.hpp"
#include "tuning/tuner_internal.hpp"

namespace clforge::detail {
namespace {

// The position of each of p's values in the space's value lists (spec parameter order), or an
// empty vector when p is not a point of the space (a parameter missing or a value not searched).
std::vector<std::size_t> value_positions(const Space& s, const ParamMap& p) {
  std::vector<std::size_t> pos;
  for (std::size_t i = 0; i < s.names.size(); ++i) {
    const auto it = p.find(s.names[i]);
    if (it == p.end()) return {};
    const auto& vals = s.values[i];
    const auto v = std::find(vals.begin(), vals.end(), it->second);
    if (v == vals.end()) return {};
    pos.push_back(static_cast<std::size_t>(v - vals.begin()));
  }
  return pos;
}

// The space restricted to the cached configurations that are points of it and admissible.
void restrict_space(Space& s, const std::map<ParamMap, TuneRow>& rows) {
  std::vector<std::pair<std::vector<std::size_t>, ParamMap>> kept;
  for (const auto& [params, row] : rows) {
    auto pos = value_positions(s, params);
    if (!pos.empty() && s.admissible(params)) kept.emplace_back(std::move(pos), params);
  }
  std::sort(kept.begin(), kept.end());  // enumeration order: the last parameter fastest
  auto universe = std::make_shared<std::set<ParamMap>>();
  s.candidates.clear();
  for (auto& [pos, params] : kept) {
    universe->insert(params);
    s.candidates.push_back(s.code(params));
  }
  s.sampled = false;
  s.draws = rows.size();
  s.illegal = s.unfit = 0;
  s.admissible = [universe](const ParamMap& p) { return universe->count(p) != 0; };
}

}  // namespace

TuneOptions replay_options(const TuneOptions& asked) {
  if (!asked.replay) return asked;
  if (to_lower(asked.cache_file) == "off")
    throw InvalidArgument("tune: a replay takes every measurement from the tune cache; it needs one (not \"off\")");
  TuneOptions o = asked;
  o.store = false;
  o.finalists = 0;
  return o;
}

void replay_spaces(const TuneCache& file, const std::vector<CacheKey>& keys,
                   const std::map<std::string, CachedRun>& cached, const KernelSpec& spec, std::vector<Space>& spaces,
                   std::vector<TuneClassResult>& classes) {
  if (!file.enabled())
    throw InvalidArgument("tune: cannot replay from the tune cache " + file.path() + ": " + file.error());
  for (std::size_t i = 0; i < classes.size(); ++i) {
    TuneClassResult& c = classes[i];
    const auto it = cached.find(keys[i].hash);
    const std::string what = "kernel " + spec.name + " variant " + c.variant;
    if (it == cached.end() || it->second.rows.empty())
      throw InvalidArgument("tune: the tune cache " + file.path() + " holds no measurement of " + what +
                            " for these sizes, options, device and kernel sources: nothing to replay");
    if (it->second.rows.count(c.default_params) == 0)
      throw InvalidArgument("tune: the tune cache " + file.path() + " holds no measurement of the default of " + what +
                            " (" + describe_params(c.default_params) +
                            "), which a replay takes first; replay a cache that a run of these sizes wrote");
    restrict_space(spaces[i], it->second.rows);
    c.illegal = c.unfit = 0;
    c.candidates = spaces[i].candidates.size();
    c.sampled = false;
    c.draws = spaces[i].draws;
  }
}

}  // namespace clforge::detail
