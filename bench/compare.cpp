// `clforge bench compare OLD.json NEW.json` (see bench_all.hpp): records read back with
// record_from_json and matched by (device name, routine, library, shape), or with --by shape by
// (routine, library, shape) so that two devices compare, in the order of the old file (the k-th
// duplicate of a key with the k-th). Each row's tolerance comes from the two records' own
// spread (quartiles of their repetitions, medians of their rounds), not from their extremes:
// one preempted repetition widens max - min without moving the median, and a tolerance built
// from it could hide any change.
#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "bench/bench_all.hpp"
#include "clforge/errors.hpp"
#include "runtime/files.hpp"

namespace clforge::bench {

namespace {

struct Entry {
  std::string device;
  Record record;
  bool used = false;
  std::string key(bool by_shape) const {
    return (by_shape ? std::string() : device + '\x1f') + record.routine + '\x1f' + record.library + '\x1f' +
           record.shape;
  }
  std::string name() const {
    return (device.empty() ? "(unnamed)" : device) + " / " + record.routine + " / " + record.library + " / " +
           record.shape;
  }
};

bool timed(const Record& r) { return r.status.rfind("ok", 0) == 0 && r.measured(); }

std::vector<Entry> entries_of(const nlohmann::json& j, const std::string& what) {
  std::vector<Entry> out;
  const auto take = [&](const nlohmann::json& device, const nlohmann::json& ms) {
    if (!ms.is_array()) throw Error("bench compare: " + what + ": \"measurements\" is not a list");
    const std::string name = device.is_object() ? device.value("name", std::string()) : std::string();
    for (const auto& m : ms) out.push_back({name, record_from_json(m)});
  };
  try {
    if (j.is_object() && j.contains("devices") && j["devices"].is_array()) {
      for (const auto& d : j["devices"]) take(d.value("device", nlohmann::json::object()), d.at("measurements"));
    } else if (j.is_object() && j.contains("measurements")) {
      take(j.value("device", nlohmann::json::object()), j["measurements"]);
    } else {
      throw Error("bench compare: " + what +
                  " has neither \"devices\" (bench all) nor \"measurements\" (bench ROUTINE --out)");
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error("bench compare: " + what + ": unexpected content (" + e.what() + ")");
  }
  return out;
}

nlohmann::json load(const std::string& path) {
  const std::optional<std::string> text = detail::read_file(path);
  if (!text) throw Error("bench compare: cannot read " + path);
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    throw Error("bench compare: " + path + " is not JSON (" + e.what() + ")");
  }
}

std::string fixed(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::string compare_rule(const CompareOptions& opt) {
  return "a record is slower when new median > old median x (1 + tolerance), faster when new median < old median / "
         "(1 + tolerance), else no change; tolerance = max(" +
         fixed("%g", opt.floor * 100) +
         " %, spread old + spread new), spread = the larger of (q3 - q1) / median over the repetitions and "
         "(largest - smallest round median) / median over the rounds; a record timed before and not now is a "
         "regression too";
}

std::string CompareRow::verdict_text() const {
  switch (verdict) {
    case Verdict::NoChange:
      return "no change";
    case Verdict::Faster:
      return "faster " + fixed("%.2f", 1 / ratio) + "x";
    case Verdict::Slower:
      return "slower " + fixed("%.2f", ratio) + "x";
    case Verdict::Lost:
      return "not timed now (" + new_record.status.substr(0, 80) + ")";
    case Verdict::Gained:
      return "timed now (was " + old_record.status.substr(0, 80) + ")";
    case Verdict::NotTimed:
      break;
  }
  return "not timed in either";
}

int Comparison::regressions() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) {
    return r.verdict == CompareRow::Verdict::Slower || r.verdict == CompareRow::Verdict::Lost;
  }));
}

Comparison compare_json(const nlohmann::json& old_doc, const nlohmann::json& new_doc, const CompareOptions& opt,
                        const std::string& old_name, const std::string& new_name) {
  std::vector<Entry> olds = entries_of(old_doc, old_name), news = entries_of(new_doc, new_name);
  std::multimap<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < news.size(); ++i) by_key.emplace(news[i].key(opt.by_shape), i);
  Comparison c;
  for (Entry& o : olds) {
    const auto range = by_key.equal_range(o.key(opt.by_shape));
    Entry* n = nullptr;
    for (auto it = range.first; it != range.second && n == nullptr; ++it)
      if (!news[it->second].used) n = &news[it->second];
    if (n == nullptr) continue;
    n->used = o.used = true;
    CompareRow row;
    row.old_device = o.device;
    row.new_device = n->device;
    row.old_record = o.record;
    row.new_record = n->record;
    using V = CompareRow::Verdict;
    if (timed(o.record) && timed(n->record)) {
      row.ratio = n->record.timing.median_ms / o.record.timing.median_ms;
      row.tolerance = std::max(opt.floor, o.record.spread() + n->record.spread());
      row.verdict = row.ratio > 1 + row.tolerance         ? V::Slower
                    : row.ratio < 1 / (1 + row.tolerance) ? V::Faster
                                                          : V::NoChange;
    } else {
      row.verdict = timed(o.record) ? V::Lost : timed(n->record) ? V::Gained : V::NotTimed;
    }
    c.rows.push_back(std::move(row));
  }
  for (const Entry& o : olds)
    if (!o.used) c.only_old.push_back(o.name());
  for (const Entry& n : news)
    if (!n.used) c.only_new.push_back(n.name());
  return c;
}

int compare_results(const std::string& old_path, const std::string& new_path, std::ostream& out,
                    const CompareOptions& opt) {
  const Comparison c = compare_json(load(old_path), load(new_path), opt, old_path, new_path);
  out << "bench compare: " << old_path << " (old) -> " << new_path << " (new), records matched by "
      << (opt.by_shape ? "routine, library and shape (any device)" : "device, routine, library and shape") << "\n"
      << "rule: " << compare_rule(opt) << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %-20s %-26s %10s %10s %8s %7s  %s\n", "routine", "library", "shape", "old ms",
                "new ms", "new/old", "tol", "verdict");
  std::string group = "\x1f";
  std::map<CompareRow::Verdict, int> counts;
  for (const CompareRow& r : c.rows) {
    const std::string devices = r.old_device == r.new_device ? (r.old_device.empty() ? "(unnamed)" : r.old_device)
                                                             : r.old_device + " (old) -> " + r.new_device + " (new)";
    if (devices != group) {
      group = devices;
      out << "\ndevice: " << devices << "\n" << line;
    }
    ++counts[r.verdict];
    const auto ms = [](const Record& x) { return x.measured() ? fixed("%.4f", x.timing.median_ms) : "-"; };
    const bool both = r.ratio > 0;
    char row[768];
    std::snprintf(row, sizeof row, "%-10s %-20s %-26s %10s %10s %8s %7s  %s\n", r.old_record.routine.c_str(),
                  r.old_record.library.c_str(), r.old_record.shape.c_str(), ms(r.old_record).c_str(),
                  ms(r.new_record).c_str(), both ? fixed("%.3f", r.ratio).c_str() : "-",
                  both ? fixed("%.1f%%", r.tolerance * 100).c_str() : "-", r.verdict_text().c_str());
    out << row;
  }
  if (!c.only_old.empty()) out << "\nonly in " << old_path << ":\n";
  for (const std::string& n : c.only_old) out << "  " << n << "\n";
  if (!c.only_new.empty()) out << "\nonly in " << new_path << ":\n";
  for (const std::string& n : c.only_new) out << "  " << n << "\n";
  using V = CompareRow::Verdict;
  const int regressions = c.regressions();
  out << "\n"
      << c.rows.size() << " matched: " << counts[V::Slower] << " slower, " << counts[V::Faster] << " faster, "
      << counts[V::NoChange] << " no change, " << counts[V::Lost] << " not timed now, " << counts[V::Gained]
      << " timed now, " << counts[V::NotTimed] << " not timed in either; " << c.only_old.size()
      << " only in the old file, " << c.only_new.size() << " only in the new file\n"
      << regressions << " regression" << (regressions == 1 ? "" : "s") << " (slower or not timed now)\n";
  return regressions > 0 ? 1 : 0;
}

}  // namespace clforge::bench
