// Small helpers of the runtime: hashing, environment, files written atomically.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace clforge::detail {

/// FNV-1a 64-bit hash: content hashes of kernel sources and cache keys (the full key is
/// also stored in each cache file, so a collision is detected, not trusted).
std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t seed = 1469598103934665603ull);
inline std::uint64_t fnv1a(const std::string& s, std::uint64_t seed = 1469598103934665603ull) {
  return fnv1a(s.data(), s.size(), seed);
}
std::string hex64(std::uint64_t v);

/// Environment variable, or nullopt when unset or empty.
std::optional<std::string> env(const char* name);

/// The boolean environment variables of clforge, each read through env_bool().
inline constexpr const char* kBooleanEnvironment[] = {"CLFORGE_TUNING", "CLFORGE_PROFILE_KERNELS"};
/// The value of the boolean variable `name`: 1, on, true, yes / 0, off, false, no, in any case
/// (surrounding blanks ignored). Throws Error naming the variable for any other value.
bool parse_env_bool(const char* name, const std::string& value);
/// Boolean environment variable (parse_env_bool), or nullopt when unset or empty.
std::optional<bool> env_bool(const char* name);

/// Reads a whole file; nullopt if it cannot be opened.
std::optional<std::string> read_file(const std::string& path);
/// Writes a file through a temp file in the same folder and rename(); creates the folder.
/// Throws Error naming the path on failure. Never leaves a partial file at path.
void write_file_atomic(const std::string& path, const std::string& bytes);
/// mkdir -p; returns false on failure.
bool make_dirs(const std::string& dir);
bool file_exists(const std::string& path);

/// What identifies a file's version without reading it: modification time (ns), size and
/// inode; size -1 when the path is no readable regular file.
struct FileStamp {
  long long mtime = 0, size = -1;
  unsigned long long inode = 0;
  bool operator==(const FileStamp& o) const { return mtime == o.mtime && size == o.size && inode == o.inode; }
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
  /// Modified less than two seconds ago: file times come from a coarse clock, so two same-size
  /// writes within one tick keep the stamp; a cache must not trust the stamp of a fresh file.
  bool recent() const;
};
FileStamp stamp_of(const std::string& path);

/// The values of `count` environment variables (nullptr: unset or empty, as env()) in one pass
/// over the environment: a getenv per name would scan it once per name.
void env_values(const char* const* names, const char** values, std::size_t count);
/// stamp_of for the keys of the per-call caches: a path's stamp is taken from the file system at
/// most once per kStampReuseNs (a stat can cost more than a small call's launches). A stamp that
/// is recent() is never reused, and write_file_atomic invalidates every reused stamp, so
/// clforge's own writes are seen at once and another program's within kStampReuseNs.
FileStamp stamp_of_reused(const std::string& path);
constexpr long long kStampReuseNs = 1000000;  // 1 ms

std::string to_lower(std::string s);
std::string trim(const std::string& s);

}  // namespace clforge::detail
