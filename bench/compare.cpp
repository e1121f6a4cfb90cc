// `clforge bench compare OLD.json NEW.json` (see bench_all.hpp): records matched by (device
// name, routine, library, shape), in the order of the old file (the k-th duplicate of a key
// with the k-th), new/old median time and throughput, and the regression rule
//   new median > old median * (1 + max(floor, spread old, spread new)),  spread = (max - min) / median,
// so a change is only flagged when it is larger than the run-to-run scatter of both runs.
// A record that was timed and now is not (failed, refused) is a regression too.
#include <cstdio>
#include <map>
#include <ostream>

#include "bench/bench_all.hpp"
#include "clforge/errors.hpp"
#include "runtime/util.hpp"

namespace clforge::bench {

namespace {

struct Entry {
  std::string device, routine, library, shape, status;
  double median = 0, min = 0, max = 0, spread = 0;
  bool used = false;
  std::string key() const { return device + '\x1f' + routine + '\x1f' + library + '\x1f' + shape; }
  bool timed() const { return status.rfind("ok", 0) == 0 && median > 0; }
  std::string name() const { return device + " / " + routine + " / " + library + " / " + shape; }
};

// A number of a measurement, or def when it is missing or not a number (NaN is written as null).
double number(const nlohmann::json& m, const char* key, double def) {
  const auto it = m.find(key);
  return it != m.end() && it->is_number() ? it->get<double>() : def;
}

std::vector<Entry> load(const std::string& path) {
  const std::optional<std::string> text = detail::read_file(path);
  if (!text) throw Error("bench compare: cannot read " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    throw Error("bench compare: " + path + " is not JSON (" + e.what() + ")");
  }
  std::vector<Entry> out;
  const auto take = [&](const nlohmann::json& device, const nlohmann::json& ms) {
    if (!ms.is_array()) throw Error("bench compare: " + path + ": \"measurements\" is not a list");
    const std::string name = device.is_object() ? device.value("name", std::string()) : std::string();
    for (const auto& m : ms) {
      Entry e;
      e.device = name;
      e.routine = m.at("routine").get<std::string>();
      e.library = m.at("library").get<std::string>();
      e.shape = m.at("shape").get<std::string>();
      e.status = m.value("status", std::string("ok"));
      e.median = number(m, "median_ms", 0);
      e.min = number(m, "min_ms", e.median);
      e.max = number(m, "max_ms", e.median);
      e.spread = number(m, "spread", e.median > 0 ? (e.max - e.min) / e.median : 0);
      out.push_back(std::move(e));
    }
  };
  try {
    if (j.is_object() && j.contains("devices") && j["devices"].is_array()) {
      for (const auto& d : j["devices"]) take(d.value("device", nlohmann::json::object()), d.at("measurements"));
    } else if (j.is_object() && j.contains("measurements")) {
      take(j.value("device", nlohmann::json::object()), j["measurements"]);
    } else {
      throw Error("bench compare: " + path +
                  " has neither \"devices\" (bench all) nor \"measurements\" (bench ROUTINE --out)");
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error("bench compare: " + path + ": unexpected content (" + e.what() + ")");
  }
  return out;
}

std::string fixed(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int compare_results(const std::string& old_path, const std::string& new_path, std::ostream& out,
                    const CompareOptions& opt) {
  std::vector<Entry> olds = load(old_path), news = load(new_path);
  std::multimap<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < news.size(); ++i) by_key.emplace(news[i].key(), i);

  out << "bench compare: " << old_path << " (old) -> " << new_path << " (new)\n"
      << "rule: regression when new median > old median x (1 + max(" << fixed("%.0f", opt.floor * 100)
      << "%, spread old, spread new)), spread = (max - min) / median; or timed before and not now\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %-20s %-26s %10s %10s %9s %9s %7s  %s\n", "routine", "library", "shape",
                "old ms", "new ms", "time n/o", "thru n/o", "tol", "verdict");
  int regressions = 0, faster = 0, same = 0, untimed = 0, matched = 0;
  std::string device = "\x1f";
  for (Entry& o : olds) {
    const auto range = by_key.equal_range(o.key());
    Entry* n = nullptr;
    for (auto it = range.first; it != range.second && n == nullptr; ++it)
      if (!news[it->second].used) n = &news[it->second];
    if (n == nullptr) continue;
    n->used = o.used = true;
    ++matched;
    if (o.device != device) {
      device = o.device;
      out << "\ndevice: " << (device.empty() ? "(unnamed)" : device) << "\n" << line;
    }
    std::string verdict;
    std::string tol_text = "-", time_ratio = "-", thru_ratio = "-";
    if (o.timed() && n->timed()) {
      const double ratio = n->median / o.median;
      const double tol = std::max({opt.floor, o.spread, n->spread});
      time_ratio = fixed("%.3f", ratio);
      thru_ratio = fixed("%.3f", 1 / ratio);
      tol_text = fixed("%.1f%%", tol * 100);
      if (ratio > 1 + tol)
        verdict = "REGRESSION", ++regressions;
      else if (ratio < 1 - tol)
        verdict = "faster", ++faster;
      else
        verdict = "within spread", ++same;
    } else if (o.timed()) {
      verdict = "REGRESSION (now " + n->status.substr(0, 80) + ")";
      ++regressions;
    } else if (n->timed()) {
      verdict = "timed now (was " + o.status.substr(0, 80) + ")";
      ++faster;
    } else {
      verdict = "not timed in either";
      ++untimed;
    }
    char row[768];
    std::snprintf(row, sizeof row, "%-10s %-20s %-26s %10s %10s %9s %9s %7s  %s\n", o.routine.c_str(),
                  o.library.c_str(), o.shape.c_str(), o.median > 0 ? fixed("%.4f", o.median).c_str() : "-",
                  n->median > 0 ? fixed("%.4f", n->median).c_str() : "-", time_ratio.c_str(), thru_ratio.c_str(),
                  tol_text.c_str(), verdict.c_str());
    out << row;
  }
  int only_old = 0, only_new = 0;
  for (const Entry& o : olds)
    if (!o.used) out << (only_old++ ? "" : "\nonly in " + old_path + ":\n") << "  " << o.name() << "\n";
  for (const Entry& n : news)
    if (!n.used) out << (only_new++ ? "" : "\nonly in " + new_path + ":\n") << "  " << n.name() << "\n";
  out << "\n"
      << matched << " matched: " << regressions << " regression" << (regressions == 1 ? "" : "s") << ", " << faster
      << " faster, " << same << " within the spread, " << untimed << " not timed; " << only_old
      << " only in the old file, " << only_new << " only in the new file\n";
  return regressions > 0 ? 1 : 0;
}

}  // namespace clforge::bench
