// Hashing, environment and atomic file writes used across the runtime.
#include "runtime/util.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "clforge/errors.hpp"

namespace clforge::detail {

std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

bool parse_env_bool(const char* name, const std::string& value) {
  const std::string v = to_lower(trim(value));
  if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "off" || v == "false" || v == "no") return false;
  throw Error(std::string(name) + "='" + value + "' is not a boolean: use 1, on, true or yes / 0, off, false or no");
}

std::optional<bool> env_bool(const char* name) {
  const std::optional<std::string> v = env(name);
  if (!v) return std::nullopt;
  return parse_env_bool(name, *v);
}

void env_values(const char* const* names, const char** values, std::size_t count) {
  constexpr std::size_t kMax = 16;
  std::size_t len[kMax];
  bool found[kMax] = {};  // the first entry of a name counts, as for getenv
  bool first[256] = {};   // the names' first characters: most entries are passed over at once
  if (count > kMax) throw Error("env_values: too many names");
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = nullptr;
    len[i] = std::strlen(names[i]);
    first[static_cast<unsigned char>(names[i][0])] = true;
  }
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* entry = *e;
    if (!first[static_cast<unsigned char>(entry[0])]) continue;
    const char* eq = std::strchr(entry, '=');
    if (eq == nullptr) continue;
    const std::size_t n = static_cast<std::size_t>(eq - entry);
    for (std::size_t i = 0; i < count; ++i) {
      if (n != len[i] || found[i] || std::memcmp(entry, names[i], n) != 0) continue;
      found[i] = true;
      if (eq[1] != '\0') values[i] = eq + 1;
      break;
    }
  }
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return std::nullopt;
  return ss.str();
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool make_dirs(const std::string& dir) {
  if (dir.empty()) return false;
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

namespace {
std::atomic<unsigned long long>& stamp_generation() {
  static std::atomic<unsigned long long> g{0};
  return g;
}
}  // namespace

void write_file_atomic(const std::string& path, const std::string& bytes) {
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0 && !make_dirs(path.substr(0, slash)))
    throw Error("cannot create folder " + path.substr(0, slash) + ": " + std::strerror(errno));
  // Unique per process and thread, so concurrent writers never share a temp file.
  std::ostringstream tmp;
  tmp << path << ".tmp." << ::getpid() << "." << std::hash<std::thread::id>{}(std::this_thread::get_id());
  const std::string tmp_path = tmp.str();
  {
    std::FILE* f = std::fopen(tmp_path.c_str(), "wb");
    if (f == nullptr) throw Error("cannot write " + tmp_path + ": " + std::strerror(errno));
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0 &&
                    ::fsync(::fileno(f)) == 0;
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) {
      std::remove(tmp_path.c_str());
      throw Error("cannot write " + tmp_path + ": " + std::strerror(errno));
    }
  }
  if (std::rename(tmp_path.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_path.c_str());
    throw Error("cannot rename " + tmp_path + " to " + path + ": " + std::strerror(e));
  }
  stamp_generation().fetch_add(1);  // stamps reused by stamp_of_reused are stale now
}

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool FileStamp::recent() const {
  const long long now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return now - mtime < 2000000000LL;
}

FileStamp stamp_of(const std::string& path) {
  FileStamp s;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    s.mtime = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    s.size = st.st_size;
    s.inode = st.st_ino;
  }
  return s;
}

FileStamp stamp_of_reused(const std::string& path) {
  struct Seen {
    FileStamp stamp;
    long long at = 0;
    unsigned long long generation = 0;
  };
  static std::mutex mutex;
  static std::unordered_map<std::string, Seen>& seen = *new std::unordered_map<std::string, Seen>;
  const long long now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  const unsigned long long gen = stamp_generation().load();
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = seen.find(path);
    if (it != seen.end() && it->second.generation == gen && now - it->second.at < kStampReuseNs &&
        !(it->second.stamp.size >= 0 && it->second.stamp.recent()))
      return it->second.stamp;
  }
  const FileStamp s = stamp_of(path);
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.size() > 64) seen.clear();
  seen[path] = Seen{s, now, gen};
  return s;
}

}  // namespace clforge::detail
