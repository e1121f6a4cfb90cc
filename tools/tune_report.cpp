// What `clforge tune` prints and writes: each routine's summary table, the results as a tuning
// file (--tuning-file), and `tune all`'s closing table (tools/tune_report.hpp).
#include "tools/tune_report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "runtime/files.hpp"

namespace clforge::cli {

namespace {

// The variants a class's best was stored under, comma-separated ("65536, pass256, pass256:later").
std::string stored_variants(const TuneClassResult& c) {
  std::string out;
  for (const auto& row : c.stored_rows) out += (out.empty() ? "" : ", ") + row.first;
  return out.empty() ? c.variant : out;
}

// A size as the tuner reports it, in the command line's grammar: as it was given, else as
// reported (the tuners' default sizes are plain N or WxH, which read the same in both).
std::string shown_size(const TuneArgs& a, const std::string& size) {
  const auto it = a.shown.find(size);
  return it != a.shown.end() ? it->second : size;
}

}  // namespace

std::string clock_text(double s) {
  if (s < 0) return "--:--";
  const long t = static_cast<long>(s + 0.5);
  char b[32];
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}

std::string params_text(const ParamMap& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

// Where the time of a tune went: "time 0:42: compile 31.0 s (on 4 threads), verify 4.1 s, timing
// 6.2 s; 57 candidates/min" (compile time summed over the threads).
std::string time_line(const TuneResult& r) {
  double compile = 0, verify = 0, timing = 0, setup = 0;
  unsigned threads = 1;
  for (const auto& c : r.classes) {
    compile += c.compile_s;
    verify += c.verify_s;
    timing += c.timing_s;
    setup += c.setup_s;
    threads = std::max(threads, c.compile_threads);
  }
  char b[256];
  std::snprintf(b, sizeof b,
                "time %s: compile %.1f s (on %u thread%s), verify %.1f s, timing %.1f s, setup %.1f s; %.0f "
                "candidates/min",
                clock_text(r.elapsed_s).c_str(), compile, threads, threads == 1 ? "" : "s", verify, timing, setup,
                r.candidates_per_min());
  return b;
}

void print_summary(const TuneResult& r, const TuneArgs& a) {
  if (!r.skipped.empty()) {
    std::printf("%s: skipped: %s (this device is not of that type)\n", r.routine.c_str(), r.skipped.c_str());
    return;
  }
  const auto routines = tune_routines();
  const auto info = std::find_if(routines.begin(), routines.end(), [&](const auto& i) { return i.name == r.routine; });
  if (r.dry_run && info != routines.end() && !info->device_types.empty()) {
    std::string types;
    for (const auto& t : info->device_types) types += (types.empty() ? "" : "/") + t;
    std::printf("%s: applies (%s)\n", r.routine.c_str(), types.c_str());
  }
  for (const auto& c : r.classes) {
    std::string sizes;
    for (const auto& s : c.sizes) sizes += (sizes.empty() ? "" : ", ") + shown_size(a, s);
    for (const auto& [name, value] : r.routine_options) sizes += ", " + name + " " + value;
    std::printf("%s variant %s on \"%s\", sizes %s\n", r.routine.c_str(), c.variant.c_str(), r.device.c_str(),
                sizes.c_str());
    if (r.replay)
      std::printf("  replay: %zu configurations of the tune cache are points of the space (%zu)\n", c.candidates,
                  c.space);
    else if (c.sampled)
      std::printf(
          "  space %zu, too large to enumerate: of %zu random draws %zu illegal, %zu do not fit the device, "
          "%zu candidates\n",
          c.space, c.draws, c.illegal, c.unfit, c.candidates);
    else
      std::printf("  space %zu: %zu illegal, %zu do not fit the device, %zu candidates\n", c.space, c.illegal, c.unfit,
                  c.candidates);
    if (r.dry_run) {
      std::printf("  default: %s\n", params_text(c.default_params).c_str());
      std::size_t planned = c.candidates + 1;
      if (a.budget != 0) planned = std::min(planned, a.budget);
      std::printf("  dry run: would evaluate up to %zu (%s%s), store under variant %s in %s\n", planned,
                  to_string(r.strategy), a.time_s > 0 ? (", " + clock_text(a.time_s) + " limit").c_str() : "",
                  c.variant.c_str(), r.database_path.c_str());
      continue;
    }
    const std::string from_cache = c.cached > 0 ? " (" + std::to_string(c.cached) + " from the tune cache)" : "";
    std::printf("  tried %zu%s: %zu ok, %zu rejected (wrong result), %zu failed to build, %zu failed to run\n", c.tried,
                from_cache.c_str(), c.tried - c.rejected - c.build_failed - c.run_failed, c.rejected, c.build_failed,
                c.run_failed);
    if (c.cut_short > 0)
      std::printf("  %zu of the ok ones cut short: slower than the cut-off on their first samples\n", c.cut_short);
    if (c.wall_s > 0)
      std::printf("  %.1f s: instances %.1f s, search %.1f s, run-off %.1f s, the result's checks %.1f s\n", c.wall_s,
                  c.setup_s, std::max(0.0, c.wall_s - c.setup_s - c.runoff_s - c.settle_s), c.runoff_s, c.settle_s);
    if (c.builds_given_up > 0)
      std::printf("  %zu compile%s given up past the class's time: far slower than its others\n", c.builds_given_up,
                  c.builds_given_up == 1 ? "" : "s");
    if (c.built_unmeasured > 0)
      std::printf("  %zu compiled but not measured: the class's time ended while their batch compiled\n",
                  c.built_unmeasured);
    if (c.share_left_s > 0)
      std::printf("  ended %.1f s before its share: no gain of 2 %% in its last batches\n", c.share_left_s);
    std::size_t ok_rows = 0, checked = 0;
    for (const auto& row : c.rows)
      if (row.status == CandidateStatus::Ok) ++ok_rows, checked += row.checked ? 1 : 0;
    if (checked < ok_rows)
      std::printf("  %zu of the ok ones verified on the check sizes too (the references, the result)\n", checked);
    std::vector<const TuneRow*> ok;
    for (const auto& row : c.rows)
      if (row.status == CandidateStatus::Ok) ok.push_back(&row);
    std::sort(ok.begin(), ok.end(), [](const TuneRow* x, const TuneRow* y) { return x->ms < y->ms; });
    std::printf("  %-8s %12s %10s  %s\n", "", "median ms", "speed-up", "parameters");
    const TuneRow *def = nullptr, *cur = nullptr;
    for (const auto& row : c.rows) {
      if (row.is_default) def = &row;
      if (row.is_current && !row.is_default) cur = &row;
    }
    // Speed-ups against the default's time in the same timing (search or run-off).
    double base_ms = def != nullptr && def->status == CandidateStatus::Ok ? def->ms : 0;
    auto line = [&](const char* tag, const TuneRow& row) {
      char speed[32] = "-";
      if (base_ms > 0 && row.status == CandidateStatus::Ok)
        std::snprintf(speed, sizeof speed, "%.2fx", base_ms / row.ms);
      if (row.status == CandidateStatus::Ok)
        std::printf("  %-8s %12.4f %10s  %s%s\n", tag, row.ms, speed, params_text(row.params).c_str(),
                    row.cut_short      ? " (cut short)"
                    : row.trades_sizes ? (" (not taken: " + row.message + ")").c_str()
                                       : "");
      else
        std::printf("  %-8s %12s %10s  %s (%s: %s)\n", tag, "-", "-", params_text(row.params).c_str(),
                    to_string(row.status), row.message.c_str());
    };
    if (c.runoff.empty() && c.has_best) {
      for (const auto* row : ok)
        if (row->params == c.best) {
          line("best", *row);
          break;
        }
    }
    if (def != nullptr) line("default", *def);
    if (cur != nullptr) line("current", *cur);
    const std::size_t show = std::min<std::size_t>(ok.size(), 10);
    if (show > 1) {
      std::printf("  fastest %zu of the search:\n", show);
      for (std::size_t i = 0; i < show; ++i) line(("#" + std::to_string(i + 1)).c_str(), *ok[i]);
    }
    if (!c.runoff.empty()) {
      std::printf("  run-off (repetitions interleaved), fastest first:\n");
      base_ms = c.default_ms;
      for (const auto& row : c.runoff)
        line(row.params == c.best ? "best" : row.is_default ? "default" : row.is_current ? "current" : "", row);
    }
    std::size_t shown_fail = 0;
    for (const auto& row : c.rows)
      if (row.status != CandidateStatus::Ok && !row.is_default && shown_fail++ < 5) line("failed", row);
    if (c.has_best && c.speedup > 0)
      std::printf("  speed-up over the shipped default: %.3fx\n", c.speedup);
    else if (c.has_best)
      std::printf("  speed-up over the shipped default: - (the default did not verify or run)\n");
    if (r.strategy == TuneStrategy::Exhaustive && c.tried < c.candidates && !r.interrupted)
      std::printf(
          "  note: the budget covered %zu of %zu candidates in declaration order; --strategy model, random "
          "or anneal spreads a budget over the whole space\n",
          c.tried, c.candidates);
    if (c.stored)
      std::printf("  stored in %s (kernel %s, variant %s)\n", r.database_path.c_str(), r.kernel.c_str(),
                  stored_variants(c).c_str());
    else if (a.no_store || r.replay)
      std::printf("  nothing stored (%s)\n", r.replay ? "--replay" : "--no-store");
    else if (r.interrupted && c.store_error.empty())
      ;  // said once below
    else if (c.no_gain)
      std::printf("  no configuration beat the current one by more than %g %%; nothing stored\n", a.min_gain_pct);
    else
      std::printf("  NOT stored: %s\n", c.store_error.c_str());
  }
  if (!r.cache_error.empty()) std::printf("tune cache: %s\n", r.cache_error.c_str());
  if (r.interrupted) {
    // The class stopped is the last one that began.
    const TuneClassResult* last = nullptr;
    for (const auto& c : r.classes)
      if (c.tried > 0) last = &c;
    if (!r.cache_path.empty() && r.cache_error.empty())
      std::printf(
          "interrupted: the measurements are kept in %s; to continue, run the same command with --resume (seed "
          "%llu)\n",
          r.cache_path.c_str(), static_cast<unsigned long long>(r.seed));
    else
      std::printf("interrupted: %s\n",
                  last != nullptr && last->stored ? "the best configuration so far was stored" : "nothing stored");
  }
  std::printf("%zu candidates in %s\n", r.tried(), clock_text(r.elapsed_s).c_str());
  if (!r.dry_run) std::printf("%s\n", time_line(r).c_str());
}

namespace {
// One row of a tuning file: matched by architecture where the device has one, else by name,
// with the peaks of the device it was tuned on (devices that read the file take the row by them).
nlohmann::json file_entry(const std::string& kernel, const std::string& variant, const ParamMap& params,
                          const TuneClassResult& c, const DeviceInfo& dev, const std::optional<DevicePeaks>& peaks) {
  nlohmann::json e = {{"kernel", kernel}, {"variant", variant}, {"params", params}, {"time_ms", c.best_ms}};
  if (!dev.architecture.empty()) {
    e["vendor"] = dev.vendor_key();
    e["architecture"] = dev.architecture;
  } else {
    e["device"] = dev.name;
  }
  e["note"] = "default " + std::to_string(c.default_ms) + " ms, tuned " + std::to_string(c.best_ms) + " ms";
  if (peaks)
    e["peaks"] = {{"copy_gbs", peaks->copy_gbs},
                  {"fma_gflops", peaks->fma_gflops},
                  {"type", dev.type.empty() ? std::string("other") : dev.type},
                  {"device", dev.name},
                  {"vendor", dev.vendor_key()}};
  return e;
}
}  // namespace

// The results as a tuning file: usable as CLFORGE_TUNING_FILE, or as rows for cl/db/<kernel>.json.
void write_results(const TuneResult& r, const DeviceInfo& dev, const TuneArgs& a) {
  nlohmann::json j;
  j["kernel"] = r.kernel;
  if (!r.routine_options.empty()) j["routine_options"] = r.routine_options;
  j["comment"] = "clforge tune " + r.routine + " on \"" + dev.name + "\" (" + dev.platform_name + ", driver " +
                 dev.driver_version + ")";
  j["entries"] = nlohmann::json::array();
  j["results"] = nlohmann::json::array();
  const std::optional<DevicePeaks> peaks = stored_device_peaks(dev);
  for (const auto& c : r.classes) {
    std::vector<std::string> sizes;
    for (const auto& size : c.sizes) sizes.push_back(shown_size(a, size));
    nlohmann::json res = {{"variant", c.variant},
                          {"sizes", sizes},
                          {"space", c.space},
                          {"illegal", c.illegal},
                          {"unfit", c.unfit},
                          {"candidates", c.candidates},
                          {"sampled", c.sampled},
                          {"draws", c.draws},
                          {"tried", c.tried},
                          {"rejected", c.rejected},
                          {"build_failed", c.build_failed},
                          {"run_failed", c.run_failed},
                          {"default", c.default_params},
                          {"default_ms", c.default_ms},
                          {"strategy", to_string(r.strategy)}};
    res["cached"] = c.cached;
    res["current"] = c.current_params;
    res["current_ms"] = c.current_ms;
    if (c.has_best) {
      res["best"] = c.best;
      res["best_ms"] = c.best_ms;
      res["speedup"] = c.speedup;
      for (const auto& [variant, params] : c.stored_rows)
        j["entries"].push_back(file_entry(r.kernel, variant, params, c, dev, peaks));
    }
    res["rows"] = nlohmann::json::array();
    for (const auto& row : c.rows)
      res["rows"].push_back({{"params", row.params},
                             {"status", to_string(row.status)},
                             {"ms", row.ms},
                             {"error", row.error},
                             {"message", row.message},
                             {"default", row.is_default},
                             {"cached", row.cached},
                             {"cut_short", row.cut_short},
                             {"checked", row.checked},
                             {"compile_s", row.compile_s},
                             {"verify_s", row.verify_s},
                             {"timing_s", row.timing_s}});
    res["runoff"] = nlohmann::json::array();
    for (const auto& row : c.runoff)
      res["runoff"].push_back(
          {{"params", row.params}, {"ms", row.ms}, {"default", row.is_default}, {"trades_sizes", row.trades_sizes}});
    j["results"].push_back(res);
  }
  detail::write_file_atomic(a.tuning_file, j.dump(2) + "\n");
  std::printf("results written to %s\n", a.tuning_file.c_str());
}

// `tune all`'s closing table: per job and size class, the time before (the configuration the
// library used: the user database's entry, else the shipped default), the search's best, and
// whether it was stored (--no-store: "off"), and its measured candidates per minute; with peers,
// clforge's and the best peer's bench times and clforge's speed against the peer ("1.20x":
// faster); the jobs skipped on this device; then the jobs the time budget left out.
void print_all_table(const TuneAllResult& all, bool store, const std::vector<std::vector<ClassPeer>>& peers) {
  std::printf("\ntune all: %zu of %zu jobs in %s\n", all.results.size(), all.jobs.size(),
              clock_text(all.elapsed_s).c_str());
  std::printf("%-28s %-22s %8s %10s %10s %10s %8s %8s  %-8s", "job", "variant", "tried", "default ms", "before ms",
              "best ms", "gain", "cand/min", "stored");
  if (!peers.empty()) std::printf(" %10s %-14s %10s %8s", "bench ms", "best peer", "peer ms", "vs peer");
  std::printf("\n");
  for (std::size_t i = 0; i < all.results.size(); ++i) {
    if (!all.results[i].skipped.empty())
      std::printf("%-28s skipped: %s\n", all.jobs[i].name().c_str(), all.results[i].skipped.c_str());
    const auto& classes = all.results[i].classes;
    for (std::size_t k = 0; k < classes.size(); ++k) {
      const TuneClassResult& c = classes[k];
      const double before = c.current_ms > 0 ? c.current_ms : c.default_ms;
      const double best = c.has_best && c.best_ms > 0 ? c.best_ms : before;
      char gain[16] = "-";
      if (before > 0 && best > 0) std::snprintf(gain, sizeof gain, "%.2fx", before / best);
      const char* stored = !store ? "off" : c.stored ? "yes" : c.no_gain ? "no gain" : "no";
      std::printf("%-28s %-22s %8zu %10.4g %10.4g %10.4g %8s %8.0f  %s", all.jobs[i].name().c_str(), c.variant.c_str(),
                  c.tried, c.default_ms, before, best, gain, c.candidates_per_min(), stored);
      if (!peers.empty()) std::printf("%*s", static_cast<int>(8 - std::strlen(stored)), "");
      const ClassPeer* p = i < peers.size() && k < peers[i].size() ? &peers[i][k] : nullptr;
      if (p != nullptr && p->sizes > 0)
        std::printf(" %10.4g %-14s %10.4g %7.2fx", p->clforge_ms, p->peer.c_str(), p->peer_ms,
                    p->peer_ms / p->clforge_ms);
      else if (!peers.empty())
        std::printf(" %10s %-14s %10s %8s", "-", "none ran", "-", "-");
      std::printf("\n");
    }
  }
  for (std::size_t i = all.results.size(); i < all.jobs.size(); ++i)
    std::printf("%-28s %s\n", all.jobs[i].name().c_str(),
                all.interrupted ? "not run (interrupted)" : "not run (time spent)");
}

}  // namespace clforge::cli
