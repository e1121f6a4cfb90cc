// Whole-file reads, atomic writes (temp file, fsync, rename), folders and file stamps.
#include "runtime/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "clforge/errors.hpp"

namespace clforge::detail {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return std::nullopt;
  return ss.str();
}

std::string own_executable() {
  const std::string self = "/proc/" + std::to_string(::getpid()) + "/exe";
  return ::access(self.c_str(), X_OK) == 0 ? self : std::string();
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
