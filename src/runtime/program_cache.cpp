// The compile cache. Memory: (context, device, source hash, options) -> cl::Program, one
// build per key even under concurrent callers. Disk: the program binary, named by a hash of
// (platform version, device name, driver version, clforge version, source hash, options);
// each file stores the full key and a checksum, is written to a temp file and renamed, and
// is deleted and rebuilt when it fails to load or build.
#include "runtime/program_cache.hpp"

#include <dirent.h>
#include <utime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "clforge/errors.hpp"
#include "clforge/runtime.hpp"
#include "clforge/version.hpp"
#include "runtime/compile_workers.hpp"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"
#include "runtime/files.hpp"
#include "runtime/hashing.hpp"
#include "runtime/host_io.hpp"
#include "runtime/log.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/sources.hpp"
#include "runtime/strings.hpp"

namespace clforge {
namespace detail {
namespace {

std::mutex g_stats_mutex;
CacheStats g_stats;

struct ProgramEntry {
  std::mutex m;
  bool ready = false;
  cl::Program program;
};
std::mutex g_map_mutex;
std::map<std::string, std::shared_ptr<ProgramEntry>> g_programs;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string program_build_log(cl_program p, cl_device_id d) {
  std::size_t n = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string log(n, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  return log;
}

const char kMagic[8] = {'C', 'L', 'F', 'B', 'I', 'N', '0', '1'};

void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
bool get_u64(const std::string& s, std::size_t& pos, std::uint64_t& v) {
  if (pos + sizeof v > s.size()) return false;
  std::memcpy(&v, s.data() + pos, sizeof v);
  pos += sizeof v;
  return true;
}

// Returns the binary stored under key, or nullopt (missing, stale or corrupt: deleted).
std::optional<std::string> disk_load(const std::string& path, const std::string& key) {
  auto bytes = read_file(path);
  if (!bytes) return std::nullopt;
  std::size_t pos = sizeof kMagic;
  std::uint64_t klen = 0, blen = 0, sum = 0;
  const bool ok = bytes->size() >= sizeof kMagic && std::memcmp(bytes->data(), kMagic, sizeof kMagic) == 0 &&
                  get_u64(*bytes, pos, klen) && pos + klen <= bytes->size() && bytes->compare(pos, klen, key) == 0 &&
                  klen == key.size() && (pos += klen, true) && get_u64(*bytes, pos, blen) &&
                  get_u64(*bytes, pos, sum) && pos + blen == bytes->size() && fnv1a(bytes->data() + pos, blen) == sum &&
                  blen > 0;
  if (!ok) {
    std::remove(path.c_str());
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.disk_rejected;
    log(LogLevel::Warning, "compile cache: discarded unreadable or stale entry " + path);
    return std::nullopt;
  }
  ::utime(path.c_str(), nullptr);  // most recently used: last to be evicted
  return bytes->substr(pos, blen);
}

// Size limit of the disk cache: CLFORGE_CACHE_MAX_MB (default 256; 0 means no limit).
std::uint64_t disk_cache_limit() {
  const auto v = env("CLFORGE_CACHE_MAX_MB");
  if (!v) return std::uint64_t{256} << 20;
  try {
    std::size_t used = 0;
    const unsigned long long mb = std::stoull(*v, &used);
    if (used == v->size() && mb <= (std::uint64_t{1} << 40)) return mb << 20;
  } catch (const std::exception&) {
  }
  log(LogLevel::Warning, "CLFORGE_CACHE_MAX_MB='" + *v + "' is not a number of MiB; using 256");
  return std::uint64_t{256} << 20;
}

// Keeps the cache folder under its limit: when the entries pass it, the least recently used
// ones (a load refreshes an entry's time) are removed until three quarters of the limit remain.
// Temp files older than an hour are left-overs of killed writers and go too.
void disk_evict(const std::string& dir) {
  const std::uint64_t limit = disk_cache_limit();
  struct Item {
    std::string path;
    long long mtime;
    std::uint64_t size;
  };
  std::vector<Item> items;
  std::uint64_t total = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  const long long now_ns = static_cast<long long>(std::time(nullptr)) * 1000000000LL;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool entry = name.size() > 4 && name.compare(name.size() - 4, 4, ".bin") == 0;
    const bool temp = name.find(".bin.tmp.") != std::string::npos;
    if (!entry && !temp) continue;
    const std::string path = dir + "/" + name;
    const FileStamp st = stamp_of(path);
    if (st.size < 0) continue;
    if (temp) {
      if (now_ns - st.mtime > 3600LL * 1000000000LL) std::remove(path.c_str());
      continue;
    }
    items.push_back({path, st.mtime, static_cast<std::uint64_t>(st.size)});
    total += static_cast<std::uint64_t>(st.size);
  }
  ::closedir(d);
  if (limit == 0 || total <= limit) return;
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.mtime < b.mtime; });
  std::size_t removed = 0;
  for (const Item& it : items) {
    if (total <= limit / 4 * 3) break;
    if (std::remove(it.path.c_str()) == 0) {
      total -= it.size;
      ++removed;
    }
  }
  log(LogLevel::Info, "compile cache: removed " + std::to_string(removed) + " least recently used entries of " + dir);
}

void disk_store(const std::string& path, const std::string& key, cl_program prog) {
  std::size_t size = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::string bin(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  std::string file(kMagic, sizeof kMagic);
  put_u64(file, key.size());
  file += key;
  put_u64(file, bin.size());
  put_u64(file, fnv1a(bin.data(), bin.size()));
  file += bin;
  try {
    write_file_atomic(path, file);
    disk_evict(path.substr(0, path.rfind('/')));
  } catch (const std::exception& e) {
    log(LogLevel::Warning, std::string("compile cache: cannot store entry: ") + e.what());
  }
}

// Whether built programs are stored on disk for this device. PoCL keeps every build in its own
// kernel cache (keyed by source and options) and compiles a kernel per launch shape when first
// enqueued; asking it for a program's binary makes it compile, besides, a generic work-group
// function of every kernel, which doubled a cold build there (4096-point FFT on PoCL 3.1: 5.8 s
// with the binary stored, 3.0 s without). CLFORGE_CACHE_BINARIES=on|off overrides the default
// (every driver but PoCL's).
bool stores_binaries(const DeviceInfo& dev) {
  const std::optional<std::string> v = env("CLFORGE_CACHE_BINARIES");
  if (v && to_lower(trim(*v)) != "auto") return parse_env_bool("CLFORGE_CACHE_BINARIES", *v);
  return dev.platform_name.find("Portable Computing Language") == std::string::npos;
}

cl_program build_from_binary(const QueueContext& qc, const std::string& bin, const std::string& options) {
  cl_device_id d = qc.device();
  const unsigned char* ptr = reinterpret_cast<const unsigned char*>(bin.data());
  const std::size_t size = bin.size();
  cl_int bin_status = CL_SUCCESS, st = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(qc.context(), 1, &d, &size, &ptr, &bin_status, &st);
  if (st != CL_SUCCESS || bin_status != CL_SUCCESS || p == nullptr) {
    if (p) clReleaseProgram(p);
    return nullptr;
  }
  if (clBuildProgram(p, 1, &d, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

// The cl/common/*.cl helpers, in name order: the start of every program's sources.
const std::vector<std::string>& common_files() {
  static const std::vector<std::string> common = [] {
    std::vector<std::string> c;
    for (const auto& f : source_dirs().embedded)
      if (f.rfind("common/", 0) == 0 && f.size() > 3 && f.compare(f.size() - 3, 3, ".cl") == 0) c.push_back(f);
    return c;
  }();
  return common;
}

// A program's source files as the keys see them: each file's stamp, the hash of every file's
// name and content hash, and where the family's files come from (for errors and logs).
struct ProgramSources {
  std::vector<std::string> files;
  std::vector<SourceStamp> stamps;
  std::string origins;
  std::uint64_t hash = fnv1a("clforge sources");
};

// The common helpers followed by the family's files. The hash needs only each file's stamp
// (kernel_source_stamp: a stat per file on disk); the texts are read only when a build is
// needed, so a cached call does not touch them.
ProgramSources stamp_sources(const std::vector<std::string>& family_files) {
  ProgramSources s;
  s.files = common_files();
  for (const auto& f : family_files) s.files.push_back(f);
  for (const auto& f : s.files) {
    s.stamps.push_back(kernel_source_stamp(f));
    s.hash = fnv1a(f + ":" + hex64(s.stamps.back().hash) + ";", s.hash);
    if (f.rfind("common/", 0) != 0)
      s.origins += (s.origins.empty() ? "" : ", ") + f + " from " + s.stamps.back().origin;
  }
  return s;
}

// The options a program is built with: the caller's, CLF_CPU=1 on CPU devices (it selects the
// contracted form of CLF_MAD, cl/common/common.cl), then CLFORGE_BUILD_OPTIONS (compiler
// options added to every build, diagnostics such as -cl-nv-verbose; part of the keys).
std::string full_options(const DeviceInfo& dev, const std::string& build_options,
                         const std::optional<std::string>& env_options) {
  std::string options = build_options;
  if (dev.type == "CPU") options += " -DCLF_CPU=1";
  if (env_options && !env_options->empty()) options += " " + *env_options;
  return options;
}

// The memory cache's entry for (context, device, sources, options), made empty when new.
std::shared_ptr<ProgramEntry> program_entry(const QueueContext& qc, std::uint64_t source_hash,
                                            const std::string& options) {
  std::ostringstream key_ss;
  key_ss << reinterpret_cast<std::uintptr_t>(qc.context()) << "|" << reinterpret_cast<std::uintptr_t>(qc.device())
         << "|" << hex64(source_hash) << "|" << options;
  std::lock_guard<std::mutex> lock(g_map_mutex);
  auto& slot = g_programs[key_ss.str()];
  if (!slot) slot = std::make_shared<ProgramEntry>();
  return slot;
}

// The full key of a disk cache entry: everything the binary depends on.
std::string disk_key_of(const DeviceInfo& dev, std::uint64_t source_hash, const std::string& options) {
  return "clforge-program-cache v1\nplatform=" + dev.platform_version + "\ndevice=" + dev.name +
         "\ndriver=" + dev.driver_version + "\nclforge=" + version_string + "\nsource=" + hex64(source_hash) +
         "\noptions=" + options + "\n";
}

// The program built from the disk cache's binary at path, or nullptr (no entry, or one that
// did not load: then it is deleted, to be rebuilt from source).
cl_program load_from_disk(const QueueContext& qc, const std::string& path, const std::string& disk_key,
                          const std::string& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto bin = disk_load(path, disk_key);
  if (!bin) return nullptr;
  cl_program prog = build_from_binary(qc, *bin, options);
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  if (prog) {
    ++g_stats.disk_hits;
    g_stats.disk_load_ms += ms_since(t0);
  } else {
    ++g_stats.disk_rejected;
    std::remove(path.c_str());
    log(LogLevel::Warning, "compile cache: entry " + path + " did not load; rebuilding from source");
  }
  return prog;
}

// The program as a compile worker of the device (compile_workers.hpp) builds it: the worker
// stores its binary in the disk cache at path, from where it is loaded. nullptr when no pool
// serves the device or its worker did not build it (the caller then compiles it in process, so
// that a failing build reports exactly as without workers).
cl_program compile_in_worker(const QueueContext& qc, const std::string& name, const std::vector<std::string>& files,
                             const std::string& build_options, const std::string& path, const std::string& disk_key,
                             const std::string& options) {
  CompileWorkers* workers = compile_workers_for(qc.device());
  if (workers == nullptr) return nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  if (!workers->compile(name, files, build_options)) return nullptr;
  {
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.worker_compiles;
    g_stats.worker_compile_ms += ms_since(t0);
  }
  return load_from_disk(qc, path, disk_key, options);
}

// The sources' texts, each behind a #line naming its file. A file edited between its stamp and
// this read builds the newer text: as_stamped turns false, and such a program is not stored on
// disk under the older key (the next call's stamp differs and rebuilds).
std::string read_sources(const ProgramSources& s, bool& as_stamped) {
  std::string text;
  as_stamped = true;
  for (std::size_t i = 0; i < s.files.size(); ++i) {
    const KernelSource src = load_kernel_source(s.files[i]);
    as_stamped = as_stamped && src.hash == s.stamps[i].hash;
    text += "#line 1 \"" + src.path + "\"\n" + src.text + "\n";
  }
  return text;
}

// Compiles the program from source (as_stamped: read_sources); a failed build throws BuildError
// with the compiler's log. With log_build (CLFORGE_BUILD_OPTIONS set), the log of a successful
// build goes to the log hook (info).
cl_program compile_from_source(const QueueContext& qc, const std::string& name, const ProgramSources& sources,
                               const std::string& options, bool log_build, bool& as_stamped) {
  const DeviceInfo& dev = *qc.info;
  const std::string& origins = sources.origins;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = read_sources(sources, as_stamped);
  const char* src = text.c_str();
  const std::size_t len = text.size();
  cl_int st = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(qc.context(), 1, &src, &len, &st);
  check(st, "clCreateProgramWithSource", "for " + name);
  cl_device_id d = qc.device();
  st = clBuildProgram(prog, 1, &d, options.c_str(), nullptr, nullptr);
  if (st != CL_SUCCESS) {
    std::string blog = program_build_log(prog, d);
    clReleaseProgram(prog);
    if (blog.empty()) blog = "(the compiler gave no log)";
    throw BuildError("clBuildProgram: " + cl_error_name(st) + " (" + std::to_string(st) + ") building " + name +
                         " for \"" + dev.name + "\" with " + options + " from " + origins + "\n" + blog,
                     blog, options, name, origins, dev.name);
  }
  {
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.compiles;
    g_stats.compile_ms += ms_since(t0);
  }
  log(LogLevel::Debug, "compiled " + name + " with " + options + " (" + origins + ")");
  if (log_build && log_enabled(LogLevel::Info)) {
    const std::string blog = program_build_log(prog, d);
    if (!blog.empty()) log(LogLevel::Info, "build log of " + name + " with " + options + ":\n" + blog);
  }
  return prog;
}

}  // namespace

bool disk_cache_keeps_binaries(const DeviceInfo& dev) { return stores_binaries(dev); }

cl::Program build_program(const QueueContext& qc, const std::string& name, const std::vector<std::string>& family_files,
                          const std::string& build_options) {
  const ProgramSources sources = stamp_sources(family_files);
  const DeviceInfo& dev = *qc.info;
  const std::optional<std::string> env_options = env("CLFORGE_BUILD_OPTIONS");
  const std::string options = full_options(dev, build_options, env_options);

  // One build per key: concurrent callers of a key wait on its entry's lock for the first one.
  const std::shared_ptr<ProgramEntry> entry = program_entry(qc, sources.hash, options);
  std::lock_guard<std::mutex> build_lock(entry->m);
  if (entry->ready) {
    std::lock_guard<std::mutex> lock(g_stats_mutex);
    ++g_stats.memory_hits;
    return entry->program;
  }

  const std::string disk_key = disk_key_of(dev, sources.hash, options);
  const std::string dir = cache_dir();
  const std::string path = dir.empty() ? std::string() : dir + "/" + hex64(fnv1a(disk_key)) + ".bin";
  cl_program prog = path.empty() ? nullptr : load_from_disk(qc, path, disk_key, options);
  if (prog == nullptr && !path.empty() && stores_binaries(dev))
    prog = compile_in_worker(qc, name, family_files, build_options, path, disk_key, options);
  if (prog == nullptr) {
    bool as_stamped = true;
    prog = compile_from_source(qc, name, sources, options, env_options && !env_options->empty(), as_stamped);
    if (!path.empty() && as_stamped && stores_binaries(dev)) disk_store(path, disk_key, prog);
  }
  entry->program = cl::Program(prog, false);
  entry->ready = true;
  return entry->program;
}

namespace {
// Kernel objects are created and released under one lock, so that no driver sees one program's
// kernels made and released from several threads at once. Creation is rare (kernels are cached
// per thread), so the lock costs nothing measurable. (PoCL's abort in
// pocl_release_dlhandle_cache, once blamed on this, comes from its work-group function cache:
// runtime/pocl_guard.hpp.)
std::mutex g_kernel_mutex;

struct ThreadKernels {
  std::unordered_map<std::string, cl_kernel> map;
  std::unordered_map<cl_kernel, ArgShadow> shadows;  // of the objects in map, which keep them alive
  void clear() {
    std::lock_guard<std::mutex> lock(g_kernel_mutex);
    for (auto& [key, k] : map) clReleaseKernel(k);
    map.clear();
    shadows.clear();
  }
  ~ThreadKernels() { clear(); }
};
thread_local ThreadKernels kernels;
}  // namespace

ArgShadow* arg_shadow(cl_kernel k) {
  const auto it = kernels.shadows.find(k);
  return it == kernels.shadows.end() ? nullptr : &it->second;
}

cl::Kernel get_kernel(const cl::Program& program, const char* name) {
  const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(program())) + "/" + name;
  auto it = kernels.map.find(key);
  if (it != kernels.map.end()) return cl::Kernel(it->second, true);
  if (kernels.map.size() > 256) kernels.clear();
  std::lock_guard<std::mutex> lock(g_kernel_mutex);
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program(), name, &st);
  check(st, "clCreateKernel", std::string("for ") + name);
  kernels.map.emplace(key, k);
  kernels.shadows.emplace(k, ArgShadow{});
  return cl::Kernel(k, true);
}

}  // namespace detail

CacheStats cache_stats() {
  std::lock_guard<std::mutex> lock(detail::g_stats_mutex);
  return detail::g_stats;
}

namespace detail {
namespace {
std::mutex g_clear_mutex;
// Never destroyed, like the caches that register here.
std::vector<std::function<void()>>& g_clearers = *new std::vector<std::function<void()>>;
}  // namespace

void on_clear_memory_cache(std::function<void()> clear) {
  std::lock_guard<std::mutex> lock(g_clear_mutex);
  g_clearers.push_back(std::move(clear));
}
}  // namespace detail

void clear_memory_cache() {
  {
    std::lock_guard<std::mutex> lock(detail::g_clear_mutex);
    for (const auto& c : detail::g_clearers) c();
  }
  {
    std::lock_guard<std::mutex> lock(detail::g_map_mutex);
    detail::g_programs.clear();
  }
}

}  // namespace clforge
