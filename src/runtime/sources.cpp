// Kernel source resolution: CLFORGE_KERNEL_DIR -> installed share dir (version-stamped,
// found next to the library binary) -> embedded copy. A file on disk is checked on every use
// (stat) and read again when it changed, so an edit in the override folder reaches the next
// build (the compile cache keys on content).
#include "runtime/sources.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clforge/errors.hpp"
#include "clforge/runtime.hpp"
#include "clforge/version.hpp"
#include "runtime/embedded.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/hashing.hpp"
#include "runtime/strings.hpp"

#ifndef CLFORGE_SHARE_SUBDIR
#define CLFORGE_SHARE_SUBDIR "share/clforge"
#endif

namespace clforge {
namespace {

std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  std::string p = info.dli_fname;
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}

struct ShareDir {
  std::string dir;
  std::string status;
};

// <prefix>/lib[/<multiarch>]/libclforge.so -> <prefix>/share/clforge, accepted only when its
// VERSION file matches this library, so an old install never feeds a new library.
ShareDir find_share_dir() {
  const std::string lib = library_dir();
  if (lib.empty()) return {"", "library location unknown"};
  std::string status = "no installed share dir next to " + lib;
  for (const char* up : {"/..", "/../..", "/../../.."}) {
    const std::string cand = lib + up + "/" CLFORGE_SHARE_SUBDIR;
    const auto stamp = detail::read_file(cand + "/VERSION");
    if (!stamp) continue;
    if (detail::trim(*stamp) != version_string) {
      status = cand + " has version " + detail::trim(*stamp) + ", library is " + version_string + ": ignored";
      continue;
    }
    char resolved[PATH_MAX];
    const std::string dir = ::realpath(cand.c_str(), resolved) != nullptr ? std::string(resolved) : cand;
    return {dir, "version " + std::string(version_string) + " matches"};
  }
  return {"", status};
}

const ShareDir& share_dir() {
  static const ShareDir d = find_share_dir();
  return d;
}

// Content hash of a file on disk, kept with the file's stamp: read again only when the stamp
// changed or is too fresh to trust (FileStamp::recent). nullopt when the file is missing or
// unreadable.
std::optional<std::uint64_t> disk_hash(const std::string& file) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::pair<detail::FileStamp, std::uint64_t>> seen;
  const detail::FileStamp stamp = detail::stamp_of(file);
  if (stamp.size < 0) return std::nullopt;
  if (!stamp.recent()) {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = seen.find(file);
    if (it != seen.end() && it->second.first == stamp) return it->second.second;
  }
  const auto text = detail::read_file(file);
  if (!text) return std::nullopt;
  const std::uint64_t h = detail::fnv1a(*text);
  std::lock_guard<std::mutex> lock(mutex);
  seen[file] = {stamp, h};  // the stamp taken before reading: a later edit changes it again
  return h;
}

// Tables added by the program (detail::add_embedded_files), searched after the library's own.
std::mutex g_added_mutex;
std::vector<std::pair<const detail::EmbeddedFile*, std::size_t>> g_added;

const detail::EmbeddedFile* embedded_file(const std::string& path) {
  std::size_t n = 0;
  const auto* files = detail::embedded_files(&n);
  for (std::size_t i = 0; i < n; ++i)
    if (path == files[i].path) return &files[i];
  std::lock_guard<std::mutex> lock(g_added_mutex);
  for (const auto& [table, count] : g_added)
    for (std::size_t i = 0; i < count; ++i)
      if (path == table[i].path) return &table[i];
  return nullptr;
}

Error not_found(const std::string& path) {
  return Error("kernel file '" + path +
               "' not found (looked in CLFORGE_KERNEL_DIR, the share dir and the embedded copy)");
}

// The places on disk of a file under cl/, in lookup order: CLFORGE_KERNEL_DIR, then the share
// dir; as (origin, full path). The embedded copy comes after them.
std::vector<std::pair<std::string, std::string>> disk_places(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> v;
  if (const auto dir = detail::env("CLFORGE_KERNEL_DIR")) v.emplace_back("override:" + *dir, *dir + "/" + path);
  if (!share_dir().dir.empty()) v.emplace_back("share:" + share_dir().dir, share_dir().dir + "/" + path);
  return v;
}

}  // namespace

KernelSource load_kernel_source(const std::string& path) {
  KernelSource src;
  src.path = path;
  for (const auto& [origin, file] : disk_places(path)) {
    if (auto text = detail::read_file(file)) {
      src.text = std::move(*text);
      src.origin = origin;
      break;
    }
  }
  if (src.origin.empty()) {
    if (const auto* f = embedded_file(path)) {
      src.text.assign(f->data, f->size);
      src.origin = "embedded";
    }
  }
  if (src.origin.empty()) throw not_found(path);
  src.hash = detail::fnv1a(src.text);
  return src;
}

namespace detail {

void add_embedded_files(const EmbeddedFile* files, std::size_t count) {
  std::lock_guard<std::mutex> lock(g_added_mutex);
  for (const auto& added : g_added)
    if (added.first == files) return;
  g_added.emplace_back(files, count);
}

SourceStamp kernel_source_stamp(const std::string& path) {
  for (const auto& [origin, file] : disk_places(path))
    if (const auto h = disk_hash(file)) return {origin, *h};
  static std::mutex mutex;
  static std::unordered_map<std::string, std::uint64_t> embedded_hashes;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = embedded_hashes.find(path);
  if (it != embedded_hashes.end()) return {"embedded", it->second};
  const auto* f = embedded_file(path);
  if (f == nullptr) throw not_found(path);
  const std::uint64_t h = fnv1a(std::string(f->data, f->size));
  embedded_hashes.emplace(path, h);
  return {"embedded", h};
}

}  // namespace detail

SourceDirs source_dirs() {
  SourceDirs d;
  d.override_dir = detail::env("CLFORGE_KERNEL_DIR").value_or("");
  d.share_dir = share_dir().dir;
  d.share_status = share_dir().status;
  std::size_t n = 0;
  const auto* files = detail::embedded_files(&n);
  for (std::size_t i = 0; i < n; ++i) d.embedded.emplace_back(files[i].path);
  return d;
}

namespace {
std::string home_sub(const char* xdg, const char* fallback, const char* leaf) {
  if (const auto x = detail::env(xdg)) return *x + "/" + leaf;
  if (const auto h = detail::env("HOME")) return *h + "/" + fallback + "/" + leaf;
  return std::string("/tmp/") + leaf;
}
}  // namespace

std::string cache_dir() {
  if (const auto c = detail::env("CLFORGE_CACHE_DIR")) {
    if (detail::to_lower(*c) == "off") return {};
    return *c;
  }
  return home_sub("XDG_CACHE_HOME", ".cache", "clforge");
}

namespace detail {
std::string user_tuning_dir_from(const char* own, const char* xdg_data_home, const char* home) {
  if (own != nullptr) return own;
  if (xdg_data_home != nullptr) return std::string(xdg_data_home) + "/clforge/tuning";
  if (home != nullptr) return std::string(home) + "/.local/share/clforge/tuning";
  return "/tmp/clforge/tuning";
}
}  // namespace detail

std::string user_tuning_dir() {
  static const char* const names[] = {"CLFORGE_USER_TUNING_DIR", "XDG_DATA_HOME", "HOME"};
  const char* v[3];
  detail::env_values(names, v, 3);
  return detail::user_tuning_dir_from(v[0], v[1], v[2]);
}

}  // namespace clforge
