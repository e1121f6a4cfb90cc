// The chunk pipeline of every group call (group_internal.hpp): the split (weights, dynamic, or
// auto from the devices' stored throughputs), the tasks, and one host thread per device running
// a DeviceRunner (src/group/runner.hpp; copies.cpp, resident.cpp), and per device
// `queues` slots, each an in-order queue with its own device buffers (and pinned staging buffers
// for blocks of pageable memory on GPUs). Chunk k of a device goes to slot k % queues: upload,
// compute and download are enqueued on that slot's queue, so chunk k+1 uploads while chunk k
// computes while chunk k-1 comes back. A slot is reused only after its previous chunk's download
// completed (and, when staged, was copied out).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <numeric>
#include <thread>

#include "group/runner.hpp"
#include "runtime/errors.hpp"
#include "runtime/host_io.hpp"
#include "runtime/log.hpp"

namespace clforge::detail {

namespace {

using namespace pipeline;

// Weights to boundaries: device d takes items [b[d], b[d+1]), boundaries on multiples of granule.
std::vector<std::size_t> boundaries(const std::vector<double>& w, std::size_t items, std::size_t granule) {
  double total = 0;
  for (double x : w) total += x;
  std::vector<std::size_t> b(w.size() + 1, 0);
  double cum = 0;
  for (std::size_t d = 0; d + 1 < w.size(); ++d) {
    cum += w[d];
    const double at = static_cast<double>(items) * (cum / total) / static_cast<double>(granule);
    b[d + 1] = std::max(b[d], std::min(static_cast<std::size_t>(std::llround(at)) * granule, items));
  }
  b.back() = items;
  return b;
}

bool stages_on(Staging s, const DeviceEntry& e) {
  return s == Staging::On || (s == Staging::Auto && e.info.type != "CPU");
}

std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

// The items no finished chunk covers, as (first, count) ranges.
std::vector<std::pair<std::size_t, std::size_t>> unfinished(std::vector<std::pair<std::size_t, std::size_t>> done,
                                                            std::size_t items) {
  std::sort(done.begin(), done.end());
  std::vector<std::pair<std::size_t, std::size_t>> gaps;
  std::size_t at = 0;
  for (const auto& [first, count] : done) {
    if (first > at) gaps.emplace_back(at, first - at);
    at = std::max(at, first + count);
  }
  if (at < items) gaps.emplace_back(at, items - at);
  return gaps;
}

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

}  // namespace

// Cold calls (below) Auto measures again before taking one as a measurement.
constexpr double kColdRepeats = 2;

std::size_t plan_items(std::size_t chunk, std::size_t count) {
  std::size_t items = chunk;
  for (std::size_t k = 1; k <= 4; ++k) {
    const std::size_t smaller = ceil_div(chunk, std::size_t{1} << k);
    if (smaller < count) break;
    items = smaller;
  }
  return items;
}

// A device that would add under 4 % of the group's throughput costs more than it gives (its
// setup, shared operands, and the host cores and memory bandwidth it takes from the others'
// staging copies).
constexpr double kMinAutoShare = 0.04;

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

Tuning family_tuning(const Tuning& t) {
  Tuning out = t;
  for (const auto& p : group_spec().params) out.overrides.erase(p.name);
  return out;
}

GroupRun run_group_job(const DeviceGroup& group, const GroupJob& job, const SplitOptions& opt) {
  const char* what = job.routine;
  const std::size_t D = group.size();
  require(job.items > 0, what, "the job has no items");
  require(opt.queues <= group.queues(), what, [&] {
    return "split queues " + std::to_string(opt.queues) + " above the group's " + std::to_string(group.queues());
  });
  require(opt.mode == SplitMode::Auto || opt.mode == SplitMode::Weights || opt.mode == SplitMode::Dynamic, what,
          "unknown split mode");
  require(opt.staging == Staging::Auto || opt.staging == Staging::On || opt.staging == Staging::Off, what,
          "unknown staging");
  if (opt.mode == SplitMode::Weights) {
    require(opt.weights.size() == D, what, [&] {
      return "split weights: " + std::to_string(opt.weights.size()) + " given for " + std::to_string(D) + " devices";
    });
    double total = 0;
    for (double w : opt.weights) {
      require(std::isfinite(w) && w >= 0, what, "split weights must be finite and >= 0");
      total += w;
    }
    require(total > 0, what, "split weights sum to 0");
  }
  // Each device's "group" parameters: chunk and queue rows per routine; rates per routine and
  // size class (the sub-variant "fft:n=1024" falls back to the routine's rows), and a
  // sub-device ("cpu@12") apart from its whole device.
  std::vector<std::string> variants(D);
  for (std::size_t d = 0; d < D; ++d) {
    variants[d] = job.size_class.empty() ? std::string(what) : std::string(what) + ":" + job.size_class;
    if (group.entry(d).device.getInfo<CL_DEVICE_PARENT_DEVICE>()() != nullptr)
      variants[d] += " cu=" + std::to_string(group.entry(d).info.compute_units);
  }
  Tuning group_tuning;
  for (const auto& p : group_spec().params) {
    const auto it = opt.tuning.overrides.find(p.name);
    if (it != opt.tuning.overrides.end()) group_tuning.overrides.insert(*it);
  }
  group_tuning.user_database = opt.tuning.user_database;
  const std::size_t granule = std::max<std::size_t>(job.granule, 1);
  GroupRun run;
  run.shares.resize(D);
  std::vector<double> rate(D, 0), alone(D, 0), split(D, 0);
  for (std::size_t d = 0; d < D; ++d) {
    const Configuration cfg = resolve_configuration("group", what, group.entry(d).info, group_tuning);
    DeviceShare& s = run.shares[d];
    s.device = d;
    s.name = group.entry(d).info.name;
    s.queues = opt.overlap ? std::min(opt.queues ? opt.queues : static_cast<std::size_t>(cfg.at("GROUP_QUEUES")),
                                      group.queues())
                           : 1;
    std::size_t chunk = opt.chunk;
    if (!chunk) {
      chunk = std::max<std::size_t>(
          1, static_cast<std::size_t>(cfg.at("GROUP_CHUNK_KIB")) * 1024 / std::max<std::size_t>(job.item_bytes, 1));
      chunk = std::min(chunk, ceil_div(job.items, D * s.queues));  // every queue of every device can get work
      chunk = std::max(chunk, job.min_chunk);
    }
    s.chunk = std::min(round_up(std::max(chunk, granule), granule), round_up(job.items, granule));
    const Configuration rates = resolve_configuration("group", variants[d], group.entry(d).info, group_tuning);
    rate[d] = rates.at("GROUP_RATE");
    alone[d] = rates.at("GROUP_ALONE");
    split[d] = rates.at("GROUP_SPLIT");
    const std::string key = rate_key(variants[d], group.entry(d).info);
    if (rate[d] == 0) rate[d] = remembered_rate(key);
    if (alone[d] == 0) alone[d] = remembered_rate("alone|" + key);
    if (split[d] == 0) split[d] = remembered_rate("split|" + key);
    // What this process's later calls measured of the choice they made (below) comes first,
    // unless the caller gave the value.
    if (!opt.tuning.overrides.count("GROUP_ALONE"))
      if (const double v = remembered_rate("now-alone|" + key); v > 0) alone[d] = v;
    if (!opt.tuning.overrides.count("GROUP_SPLIT"))
      if (const double v = remembered_rate("now-split|" + key); v > 0) split[d] = v;
  }
  run.mode = opt.mode;
  std::vector<double> weights = opt.weights;
  bool measure = false;           // Auto: a dynamic run measuring every device's rate beside the others
  std::size_t measure_alone = D;  // Auto: the fastest device alone, measuring its whole call
  std::size_t measure_split = D;  // Auto: the split by the rates, measuring its whole call (on the fastest's row)
  std::size_t decided = D;        // Auto: the fastest device, when the call chose from both measured options
  bool decided_alone = false;
  int share = 100;  // Auto: GROUP_SHARE of the fastest device
  if (D == 1) {
    run.mode = SplitMode::Weights;
    weights = {1.0};
  } else if (run.mode == SplitMode::Auto) {
    // Only calls that overlap measure (one without overlap would store what users never run).
    const bool missing = std::any_of(rate.begin(), rate.end(), [](double r) { return r <= 0; });
    measure = missing && opt.overlap;
    run.mode = missing ? SplitMode::Dynamic : SplitMode::Weights;
    weights = rate;
    if (!missing) {
      // The split against its fastest device alone, whole calls measured each way (the split's
      // rates leave out its fill, drain and the devices' setup, which may outweigh what the
      // others add): first the device alone, then the split, then whichever was faster. Rates
      // measured beside each other carry the contention the devices cause each other (a CPU
      // device's kernels slow a GPU's staging copies), so every device above a tenth of the best
      // rate runs alone once (GROUP_ALONE on its row) and the fastest is the one whose whole call
      // alone was fastest. The others get GROUP_SHARE percent of their rates (of its row).
      const double top = *std::max_element(rate.begin(), rate.end());
      std::vector<std::size_t> candidates;  // by rate, fastest first
      for (std::size_t d = 0; d < D; ++d)
        if (rate[d] >= 0.1 * top) candidates.push_back(d);
      std::stable_sort(candidates.begin(), candidates.end(),
                       [&](std::size_t x, std::size_t y) { return rate[x] > rate[y]; });
      std::size_t best = candidates.front();
      for (const std::size_t d : candidates)
        if (alone[d] > alone[best]) best = d;
      share = resolve_configuration("group", variants[best], group.entry(best).info, group_tuning).at("GROUP_SHARE");
      for (std::size_t d = 0; d < D; ++d)
        if (d != best) weights[d] *= share / 100.0;
      weights = auto_weights(weights);
      const double together = std::accumulate(weights.begin(), weights.end(), 0.0);
      const bool others = together > weights[best];
      if (others && opt.overlap)
        for (const std::size_t d : candidates)
          if (alone[d] <= 0) {
            measure_alone = d;
            break;
          }
      if (others && measure_alone == D && split[best] <= 0 && opt.overlap) measure_split = best;
      std::size_t solo = D;  // the device that runs this call alone
      if (measure_alone < D) {
        solo = measure_alone;
      } else if (!others) {
        solo = best;
      } else if (measure_split == D) {
        const bool by_itself = alone[best] > 0 && split[best] > 0 && alone[best] >= split[best];  // else: split
        if (alone[best] > 0 && split[best] > 0 && opt.overlap) decided = best, decided_alone = by_itself;
        if (by_itself) solo = best;
      }
      if (solo < D) {
        weights.assign(D, 0.0);
        weights[solo] = 1.0;
      }
    }
  }
  if (opt.resident_reps > 0) {
    require(opt.mode != SplitMode::Dynamic, what, "a resident run needs weights (Weights or Auto)");
    if (run.mode == SplitMode::Dynamic) weights.assign(D, 1.0);  // Auto without every rate: equal shares
    run.mode = SplitMode::Weights;
    measure = false;
    measure_alone = measure_split = decided = D;
  }

  Shared s;
  s.group = &group;
  s.options = &opt;
  s.items = job.items;
  s.dynamic = run.mode == SplitMode::Dynamic;
  if (!s.dynamic) {
    const auto b = boundaries(weights, job.items, granule);
    for (std::size_t d = 0; d < D; ++d) s.own.emplace_back(b[d], b[d + 1]);
    run.weights = weights;
    s.steal = opt.mode == SplitMode::Auto && granule == 1;
  }
  // Every working device's task (plans built here, before anything is allocated).
  std::vector<std::unique_ptr<ChunkTask>> tasks(D);
  for (std::size_t d = 0; d < D; ++d) {
    if (!s.dynamic && s.own[d].first == s.own[d].second) {
      run.shares[d].chunk = run.shares[d].queues = 0;
      continue;
    }
    if (opt.resident_reps > 0) {  // the whole share is one chunk
      run.shares[d].chunk = s.own[d].second - s.own[d].first;
      run.shares[d].queues = 1;
    }
    tasks[d] = job.make_task(d, group.queue(d, 0), run.shares[d].chunk);
  }
  if (opt.resident_reps > 0) {
    run_resident(group, tasks, s.own, opt.resident_reps, run);
    return run;
  }

  // Buffers each device's pool had to create during the call (the debug log's "new").
  auto created = [&](std::size_t d) {
    auto& pool = *GroupAccess::impl(group)->members.at(d).staging;
    const std::lock_guard<std::mutex> lock(pool.mutex);
    return std::pair{pool.created, pool.created_bytes};
  };
  std::vector<std::pair<std::size_t, std::size_t>> created_before(D);
  for (std::size_t d = 0; d < D; ++d) created_before[d] = created(d);
  // Programs compiled or loaded from disk during the call (the debug log's "programs").
  auto programs = [] {
    const CacheStats c = cache_stats();
    return c.compiles + c.disk_hits;
  };
  const std::uint64_t programs_before = programs();
  s.start = Clock::now();
  std::vector<std::unique_ptr<DeviceRunner>> runners(D);
  for (std::size_t d = 0; d < D; ++d)
    if (tasks[d])
      runners[d] =
          std::make_unique<DeviceRunner>(s, d, *tasks[d], stages_on(opt.staging, group.entry(d)), run.shares[d]);
  std::vector<std::thread> threads;
  try {
    for (auto& r : runners)
      if (r) threads.emplace_back([&r] { r->run(); });
  } catch (...) {
    s.abort = true;
    for (auto& t : threads) t.join();
    throw;
  }
  for (auto& t : threads) t.join();
  run.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();
  // A call in which a device created buffers (pinned staging, device memory) or programs were
  // built paid for them inside its time: as a measurement it makes its option look slower than
  // its later calls run (an H100's first call alone on pageable blur bands took 51-96 ms against
  // 20 ms), so Auto measures again in the next call (below).
  std::vector<std::pair<std::size_t, std::size_t>> created_now(D);
  for (std::size_t d = 0; d < D; ++d) {
    const auto [n, bytes] = created(d);
    created_now[d] = {n - created_before[d].first, bytes - created_before[d].second};
    run.cold = run.cold || created_now[d].first > 0;
  }
  const std::uint64_t programs_now = programs() - programs_before;
  run.cold = run.cold || programs_now > 0;
  if (log_enabled(LogLevel::Debug)) {
    std::string m = std::string("group ") + what + ": " + std::to_string(run.seconds * 1e3) + " ms, " +
                    (measure             ? "auto: measuring rates (dynamic)"
                     : measure_alone < D ? "auto: device " + std::to_string(measure_alone) + " alone (measuring)"
                     : measure_split < D ? "auto: split at share " + std::to_string(share) + " (measuring)"
                     : decided < D ? std::string(decided_alone ? "auto: alone (decided)" : "auto: split (decided)")
                     : s.dynamic   ? std::string("dynamic")
                                   : std::string("weights")) +
                    (run.cold ? ", cold" : "") + ", programs built " + std::to_string(programs_now);
    for (std::size_t d = 0; d < D; ++d) {
      const DeviceShare& sh = run.shares[d];
      m += "; device " + std::to_string(d) + ": " + std::to_string(sh.items) + " items, " + std::to_string(sh.chunks) +
           " chunks, " + std::to_string(sh.seconds * 1e3) + " ms, new buffers " + std::to_string(created_now[d].first) +
           " (" + std::to_string(created_now[d].second >> 20) + " MiB)";
    }
    log(LogLevel::Debug, m);
  }

  if (s.error) {
    // Unfinished chunks become NaN (0xFF bytes): no output looks complete that is not.
    const ChunkTask& any = *tasks[s.failed_device];
    for (const auto& [first, count] : unfinished(s.finished, job.items)) {
      std::vector<BlockCopy> outs;
      any.outputs(first, count, outs);
      for (const auto& b : outs)
        for (std::size_t r = 0; r < b.rows; ++r) std::memset(b.host + r * b.pitch, 0xFF, b.row_bytes);
    }
    const std::string name = group.entry(s.failed_device).info.name;
    const Chunk& c = s.failed_chunk;
    const std::string where = c.count == 0 ? "before its first chunk (buffers, shared operands)"
                                           : "on chunk " + std::to_string(c.id) + " (items " + std::to_string(c.first) +
                                                 ".." + std::to_string(c.first + c.count - 1) + ")";
    throw DeviceFailure("group " + std::string(what) + ": device " + std::to_string(s.failed_device) + " (" + name +
                            ") failed " + where + ": " + what_of(s.error),
                        s.failed_device, name, c.id, c.first, c.count);
  }
  // A cold call (above) is measured again by the next call, at most kColdRepeats times for one
  // measurement (then a cold call counts: a pool that cannot keep its buffers).
  auto repeat_cold = [&](const std::string& step) {
    if (!run.cold) return false;
    const std::string key = "cold|" + step + "|" + rate_key(variants[0], group.entry(0).info);
    const double repeats = remembered_rate(key);
    if (repeats >= kColdRepeats) return false;
    remember_rate(key, repeats + 1);
    return true;
  };
  run.calibrating = measure || measure_alone < D || measure_split < D;
  if (measure && repeat_cold("dynamic")) measure = false;
  if (measure_alone < D && repeat_cold("alone " + std::to_string(measure_alone))) measure_alone = D;
  if (measure_split < D && repeat_cold("split " + std::to_string(share))) measure_split = D;
  if (run.cold) decided = D;
  // Auto's measurements, for later calls: a device's MB/s of host data after the chunks that were
  // in flight at its first completion, beside the others (measure) or alone (measure_alone). A
  // device that got no chunk past those (few, large chunks: the blur's bands on a GPU) counts its
  // whole share over its time to the last one back, fill included: taking that device for a
  // slow one (the call's time, set by the slowest device) once made a CPU device the "fastest"
  // of an H100's group and Auto split a blur that the H100 does 2.5x faster alone.
  auto measured = [&](std::size_t d) {
    const DeviceShare& sh = run.shares[d];
    if (!runners[d] || sh.chunks == 0 || sh.seconds <= 0) return 0.0;
    if (sh.chunks <= runners[d]->warm_chunks_)
      return static_cast<double>(sh.items) * static_cast<double>(job.item_bytes) / sh.seconds / 1e6;
    const double secs = sh.seconds - runners[d]->first_seconds_;
    return secs <= 0 ? 0.0
                     : static_cast<double>(sh.items - runners[d]->first_items_) * static_cast<double>(job.item_bytes) /
                           secs / 1e6;
  };
  auto store = [&](std::size_t d, const ParamMap& values, const char* note) {
    const DeviceInfo& info = group.entry(d).info;
    if (opt.tuning.user_database) {
      try {
        store_user_entry(info, "group", variants[d], values, note);
        return;
      } catch (const std::exception& e) {
        log(LogLevel::Warning, std::string("group: the measured rate was not stored: ") + e.what());
      }
    }
    for (const auto& [name, v] : values)
      remember_rate((name == "GROUP_ALONE"   ? "alone|"
                     : name == "GROUP_SPLIT" ? "split|"
                                             : "") +
                        rate_key(variants[d], info),
                    v);
  };
  if (measure) {
    double job_end = 0;  // the last chunk's completion
    for (const auto& sh : run.shares) job_end = std::max(job_end, sh.seconds);
    for (std::size_t d = 0; d < D; ++d) {
      if (const double mbs = measured(d); mbs > 0) {
        store(d, {{"GROUP_RATE", quantize_rate(mbs)}}, "auto split: measured in a dynamic run");
      } else if (runners[d] && runners[d]->prepared_at_ > job_end) {
        // No chunk while the others did the job, its setup outlasting it (SGEMM's A on a slow
        // device): at most one chunk in the call's time, remembered by this process only. A
        // device set up but without any chunk back (its first launch compiling) is measured
        // again by the next call.
        const double bound = static_cast<double>(run.shares[d].items + run.shares[d].chunk) *
                             static_cast<double>(job.item_bytes) / std::max(run.seconds, 1e-9) / 1e6;
        remember_rate(rate_key(variants[d], group.entry(d).info), std::max(bound, 1e-3));
      }
    }
  }
  // A whole call's MB/s of host data (argument checks and plans left out, as in GroupRun::seconds).
  const double whole =
      static_cast<double>(job.items) * static_cast<double>(job.item_bytes) / std::max(run.seconds, 1e-9) / 1e6;
  if (measure_alone < D)
    store(measure_alone, {{"GROUP_RATE", quantize_rate(rate[measure_alone])}, {"GROUP_ALONE", quantize_rate(whole)}},
          "auto split: measured in a dynamic run, then alone");
  if (measure_split < D) {
    // A split slower than its fastest device alone is measured again with the other devices'
    // shares halved (GROUP_SHARE on the fastest's row, the split's value cleared), while they
    // stay above twice the minimum share: the devices slow each other down (host memory, host
    // cores), so the best split often gives the others less than the rates they reached beside
    // each other.
    const std::size_t b = measure_split;
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    const bool lost = whole < alone[b] && !opt.tuning.overrides.count("GROUP_SHARE");
    const bool smaller = lost && share > 3 && total > 0 && (total - weights[b]) / total > 2 * kMinAutoShare;
    store(b,
          {{"GROUP_RATE", quantize_rate(rate[b])},
           {"GROUP_ALONE", quantize_rate(alone[b])},
           {"GROUP_SPLIT", smaller ? 0 : quantize_rate(whole)},
           {"GROUP_SHARE", smaller ? share / 2 : share}},
          smaller ? "auto split: measured in a dynamic run, alone, then split; split again with smaller shares"
                  : "auto split: measured in a dynamic run, alone, then split");
  }
  if (decided < D) {
    // Every later call checks its choice: its whole call's rate averaged into the value the
    // choice was made by (kept by this process), so a choice that one calibration call's noise
    // favoured is dropped once its calls run slower than the other option measured.
    const std::string key = rate_key(variants[decided], group.entry(decided).info);
    const double before = decided_alone ? alone[decided] : split[decided];
    remember_rate((decided_alone ? "now-alone|" : "now-split|") + key, 0.5 * (before + whole));
  }
  return run;
}

}  // namespace clforge::detail
