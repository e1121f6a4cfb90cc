// The tune cache: keys, reading a file's runs, starting a run and appending records (see
// tuner_cache.hpp for the format and docs/tuning.md for its use).
#include "tuning/tuner_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "clforge/errors.hpp"
#include "clforge/runtime.hpp"
#include "clforge/version.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/hashing.hpp"
#include "runtime/log.hpp"
#include "runtime/sources.hpp"
#include "runtime/strings.hpp"
#include "tuning/tuner_internal.hpp"

namespace clforge {

std::string tune_cache_path(const DeviceInfo& device) {
  std::string path = user_database_path(device);
  const std::string ext = ".json";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    path.resize(path.size() - ext.size());
  return path + ".tune-cache.jsonl";
}

namespace detail {
namespace {

// Every kernel source (cl/**/*.cl from where the loader takes it): a routine may build kernels
// of several families (a recursive blur runs transposes), so all of them are in the key.
std::string sources_hash() {
  std::uint64_t h = fnv1a("clforge tune cache sources");
  for (const auto& f : source_dirs().embedded)
    if (f.size() > 3 && f.compare(f.size() - 3, 3, ".cl") == 0)
      h = fnv1a(f + ":" + hex64(kernel_source_stamp(f).hash) + ";", h);
  return hex64(h);
}

const char* const kStatuses[] = {"ok", "rejected", "build failed", "run failed"};
const CandidateStatus kStatusValues[] = {CandidateStatus::Ok, CandidateStatus::Rejected, CandidateStatus::BuildFailed,
                                         CandidateStatus::RunFailed};

// A configuration {"NAME": integer, ...}, or false.
bool parse_params(const nlohmann::json& j, ParamMap& params) {
  if (!j.is_object()) return false;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_number_integer()) return false;
    params[name] = value.get<int>();
  }
  return true;
}

// A record's row, or false when the line is not a complete record.
bool parse_row(const nlohmann::json& j, TuneRow& row) {
  const auto params = j.find("params");
  const auto status = j.find("status");
  if (params == j.end() || status == j.end() || !status->is_string() || !parse_params(*params, row.params))
    return false;
  bool known = false;
  for (std::size_t i = 0; i < 4; ++i)
    if (*status == kStatuses[i]) {
      row.status = kStatusValues[i];
      known = true;
    }
  if (!known) return false;
  row.ms = j.value("ms", 0.0);
  row.error = j.value("error", 0.0);
  row.message = j.value("message", "");
  row.cut_short = j.value("cut_short", false);
  row.checked = j.value("checked", false);
  row.compile_s = j.value("compile_s", 0.0);
  row.verify_s = j.value("verify_s", 0.0);
  row.timing_s = j.value("timing_s", 0.0);
  return row.status != CandidateStatus::Ok || row.ms > 0;
}

// A mark line ({"started": params} or {"ended": params}) into `open`; false for any other line.
bool read_mark(const nlohmann::json& j, std::map<ParamMap, bool>& open) {
  for (const char* name : {"started", "ended"}) {
    const auto m = j.find(name);
    if (m == j.end()) continue;
    if (ParamMap params; parse_params(*m, params)) open[params] = std::string(name) == "started";
    return true;
  }
  return false;
}

// The row of a candidate whose build or run ended the process: failed, not tried again.
TuneRow crashed_row(const ParamMap& params) {
  TuneRow row;
  row.params = params;
  row.status = CandidateStatus::RunFailed;
  row.message =
      "the process ended while this candidate was built or run (an OpenCL compiler or driver crash, or a kill); "
      "a resumed tune does not try it again";
  return row;
}

// Each line of the text parsed as a JSON object (lines that do not parse are left out).
std::vector<std::pair<std::string, nlohmann::json>> parse_lines(const std::string& text) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("key") || !j["key"].is_string()) continue;
    out.emplace_back(line, std::move(j));
  }
  return out;
}

}  // namespace

CacheKey tune_cache_key(const DeviceInfo& dev, const std::string& kernel, const std::string& variant,
                        const std::vector<std::string>& sizes, const std::map<std::string, std::string>& options) {
  std::string d = "device " + dev.name + " | platform " + dev.platform_name + " " + dev.platform_version +
                  " | driver " + dev.driver_version + " | kernel " + kernel + " | variant " + variant + " | sizes";
  for (const auto& s : sizes) d += " " + s;
  for (const auto& [name, value] : options) d += " | " + name + " " + value;
  d += std::string(" | clforge ") + version_string + " | sources " + sources_hash();
  if (const auto o = env("CLFORGE_BUILD_OPTIONS")) d += " | build options " + *o;
  return {d, hex64(fnv1a(d))};
}

void TuneCache::fail(const std::string& what) {
  const std::lock_guard<std::mutex> lock(*mutex_);
  if (error_.empty()) {
    error_ = what;
    log(LogLevel::Warning, "tune: " + what + "; measurements are not cached from here on");
  }
}

std::map<std::string, CachedRun> TuneCache::load(const std::set<std::string>& keys) {
  std::map<std::string, CachedRun> runs;
  if (!enabled()) return runs;
  const auto text = read_file(path_);
  if (!text) return runs;
  std::size_t skipped = 0;
  std::map<std::string, std::map<ParamMap, bool>> open;  // per key: a started mark not closed yet
  for (const auto& [line, j] : parse_lines(*text)) {
    const std::string key = j["key"].get<std::string>();
    if (keys.count(key) == 0) continue;
    CachedRun& run = runs[key];
    if (read_mark(j, open[key])) continue;
    if (const auto h = j.find("run"); h != j.end()) {
      if (h->is_object() && h->contains("seed") && (*h)["seed"].is_number_unsigned()) {
        run.has_header = true;
        run.seed = (*h)["seed"].get<std::uint64_t>();
      }
      continue;
    }
    TuneRow row;
    if (parse_row(j, row)) {
      open[key][row.params] = false;
      run.rows[row.params] = row;
    } else {
      ++skipped;
    }
  }
  if (skipped > 0)
    log(LogLevel::Info, "tune: " + std::to_string(skipped) + " incomplete records in " + path_ + " skipped");
  std::size_t ended = 0;
  for (const auto& [key, marks] : open)
    for (const auto& [params, still_open] : marks)
      if (still_open) {
        runs[key].rows[params] = crashed_row(params);
        ++ended;
      }
  if (ended > 0)
    log(LogLevel::Warning, "tune: " + std::to_string(ended) + " candidate(s) of " + path_ +
                               " ended the process that built or ran them; left out as failed");
  return runs;
}

void TuneCache::start_run(const CacheKey& key, std::uint64_t seed, bool keep) {
  if (!enabled()) return;
  if (!keep) {
    // Drop the key's earlier lines (and torn ones), keep the other keys'.
    if (const auto text = read_file(path_)) {
      std::string kept;
      std::size_t dropped = 0;
      for (const auto& [line, j] : parse_lines(*text)) {
        if (j["key"] == key.hash) {
          ++dropped;
          continue;
        }
        kept += line + "\n";
      }
      if (dropped > 0 || kept.size() != text->size()) {
        try {
          write_file_atomic(path_, kept);
        } catch (const Error& e) {
          fail(std::string("cannot rewrite the tune cache: ") + e.what());
          return;
        }
      }
    }
  }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json j = {{"key", key.hash}, {"run", {{"seed", seed}, {"describe", key.describe}, {"date", date}}}};
  append_line(j.dump());
}

void TuneCache::append(const std::string& key, const TuneRow& row) {
  if (!enabled()) return;
  nlohmann::json j = {{"key", key},   {"params", row.params}, {"status", to_string(row.status)},
                      {"ms", row.ms}, {"error", row.error},   {"message", row.message}};
  if (row.cut_short) j["cut_short"] = true;
  if (row.checked) j["checked"] = true;
  j["compile_s"] = row.compile_s;
  j["verify_s"] = row.verify_s;
  j["timing_s"] = row.timing_s;
  append_line(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void TuneCache::mark(const std::string& key, const ParamMap& params, bool started) {
  if (!enabled()) return;
  append_line(nlohmann::json{{"key", key}, {started ? "started" : "ended", params}}.dump());
}

void TuneCache::append_line(const std::string& line) {
  if (!enabled()) return;
  const auto slash = path_.rfind('/');
  if (slash != std::string::npos && slash > 0 && !make_dirs(path_.substr(0, slash))) {
    fail("cannot create the folder of the tune cache " + path_ + ": " + std::strerror(errno));
    return;
  }
  const int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail("cannot open the tune cache " + path_ + ": " + std::strerror(errno));
    return;
  }
  // A line cut off by a crash is left as it is (it will not parse); this one starts afresh.
  std::string bytes = line + "\n";
  struct stat st {};
  char last = '\n';
  if (::fstat(fd, &st) == 0 && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
    bytes.insert(bytes.begin(), '\n');
  // One write() per line, so that a line is whole or cut off at its end, never interleaved.
  std::size_t done = 0;
  bool ok = true;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  const int err = errno;
  ok = ok && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) fail("cannot write the tune cache " + path_ + ": " + std::strerror(err));
}

RunCache open_run_cache(const DeviceInfo& dev, const KernelSpec& spec,
                        const std::map<std::string, std::string>& routine_options, const TuneOptions& options,
                        const std::vector<TuneClassResult>& classes) {
  // A replay reads the cache even in a dry run, whose counts then show the replayed universe.
  const bool use_cache = (!options.dry_run || options.replay) && to_lower(options.cache_file) != "off";
  RunCache cache{
      TuneCache(use_cache ? (options.cache_file.empty() ? tune_cache_path(dev) : options.cache_file) : ""), {}, {}};
  if (cache.file.enabled()) {
    std::set<std::string> hashes;
    for (const auto& c : classes) {
      cache.keys.push_back(tune_cache_key(dev, spec.name, c.variant, c.sizes, routine_options));
      hashes.insert(cache.keys.back().hash);
    }
    if (options.resume || options.replay) cache.cached = cache.file.load(hashes);
  }
  return cache;
}

ClassCache class_cache_for(RunCache& cache, std::size_t i, std::uint64_t seed, bool resume, bool replay) {
  ClassCache class_cache;
  if (!cache.file.enabled()) return class_cache;
  class_cache.key = cache.keys[i].hash;
  const auto it = cache.cached.find(cache.keys[i].hash);
  if (it != cache.cached.end()) class_cache.rows = std::move(it->second.rows);
  class_cache.replay = replay;
  if (replay) return class_cache;  // read only
  class_cache.file = &cache.file;
  // A run continued with its own seed appends to it; any other starts afresh (a resumed
  // run with another seed keeps the measurements, under a header with the new seed).
  const bool same_run = it != cache.cached.end() && it->second.has_header && it->second.seed == seed;
  if (!same_run) cache.file.start_run(cache.keys[i], seed, resume);
  return class_cache;
}

}  // namespace detail
}  // namespace clforge
