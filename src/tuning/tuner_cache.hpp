// The tune cache (TuneOptions::cache_file, docs/tuning.md): every evaluated candidate of a size
// class appended to a JSON-lines file as it is measured, under a key of what the measurement
// depends on, so that an interrupted tune can be resumed (TuneOptions::resume) without measuring
// again. Lines: a run header {"key", "run": {"seed", "describe", "date"}} when a run starts, then
// one record {"key", "params", "status", "ms", "error", "message"} per candidate ("checked" when
// it was verified on the check sizes too; a candidate rejected there later is recorded again with
// that status, and the latest record of a configuration counts). Before a candidate is built, a
// mark {"key", "started": params} is appended; its record, or a mark {"key", "ended": params}
// where it was built but not measured (a stop, the time, a compile given up), closes it. A mark
// still open when the file is read is a candidate whose build or run ended the process (a
// compiler or driver crash, or kill -9): a resumed run takes it as failed instead of trying it
// again. Each line is one write() followed by fsync(); a line that does not parse (a write cut
// off by a crash) is skipped when read, and the next append starts on a new line.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "clforge/tuning.hpp"

namespace clforge::detail {

/// What a cache file holds for one key.
struct CachedRun {
  bool has_header = false;
  std::uint64_t seed = 0;            ///< the seed of the key's last run header
  std::map<ParamMap, TuneRow> rows;  ///< the latest record of each configuration
};

/// The key of a size class: the hash of `describe` (key_text), which names everything the
/// measurements depend on.
struct CacheKey {
  std::string describe;
  std::string hash;
};
CacheKey tune_cache_key(const DeviceInfo& dev, const std::string& kernel, const std::string& variant,
                        const std::vector<std::string>& sizes, const std::map<std::string, std::string>& options);

class TuneCache {
 public:
  /// path "": no cache (every call does nothing).
  explicit TuneCache(std::string path) : path_(std::move(path)) {}
  bool enabled() const {
    const std::lock_guard<std::mutex> lock(*mutex_);
    return !path_.empty() && error_.empty();
  }
  const std::string& path() const { return path_; }
  /// The first failure to read or write the file; the cache is off after it.
  const std::string& error() const { return error_; }

  /// The runs of `keys` in the file (a missing file holds none).
  std::map<std::string, CachedRun> load(const std::set<std::string>& keys);
  /// Starts a run of `key` with `seed`: without `keep`, the key's earlier lines are dropped first
  /// (the file rewritten through a temp file and rename); then a run header is appended.
  void start_run(const CacheKey& key, std::uint64_t seed, bool keep);
  /// Appends the record of one evaluated candidate.
  void append(const std::string& key, const TuneRow& row);
  /// Appends a mark: a candidate's build starts (started), or it ends without a record.
  void mark(const std::string& key, const ParamMap& params, bool started);

 private:
  void append_line(const std::string& line);
  void fail(const std::string& what);

  std::string path_;
  std::string error_;  // under *mutex_: the build threads append marks
  std::shared_ptr<std::mutex> mutex_ = std::make_shared<std::mutex>();
};

}  // namespace clforge::detail
