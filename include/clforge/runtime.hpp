// Runtime services shared by every routine: where kernel sources come from, the compile
// cache and its statistics, and the log hook. The library never prints; it logs here.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clforge {

// ---------------------------------------------------------------- logging
enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3, Off = 4 };

/// Receives every log message at or above the current level. Default: none (silent). Calls are
/// serialised; with CLFORGE_PROFILE_KERNELS=1 (each launch's device time, level Info) they can
/// come from the OpenCL driver's event-callback thread, so the callback must not enqueue work.
using LogCallback = std::function<void(LogLevel, const std::string&)>;
void set_log_callback(LogCallback cb);
/// Level threshold; the initial value comes from CLFORGE_LOG (debug, info, warning, error,
/// off), else Warning.
void set_log_level(LogLevel level);
LogLevel log_level();

// ---------------------------------------------------------------- kernel sources
/// One kernel file as the runtime will compile it.
struct KernelSource {
  std::string path;  ///< relative to cl/, e.g. "transpose/transpose.cl"
  std::string text;
  std::string origin;  ///< "override:<dir>", "share:<dir>" or "embedded"
  std::uint64_t hash = 0;
};

/// Resolves a file under cl/: CLFORGE_KERNEL_DIR, then the installed share dir (accepted
/// only if its VERSION matches this library), then the copy embedded at build time.
/// Reads the file now (routines themselves only stat files on disk per call and read them
/// when they changed: an edit under CLFORGE_KERNEL_DIR applies to the next build).
/// Throws Error if no origin has the file.
KernelSource load_kernel_source(const std::string& path);

/// Where the runtime looks, in order, for display by `clforge info`.
struct SourceDirs {
  std::string override_dir;           ///< CLFORGE_KERNEL_DIR or ""
  std::string share_dir;              ///< installed share dir found next to the library, or ""
  std::string share_status;           ///< why the share dir is used or not
  std::vector<std::string> embedded;  ///< embedded file names
};
SourceDirs source_dirs();

// ---------------------------------------------------------------- compile cache
/// Counters of the compile cache in this process.
struct CacheStats {
  std::uint64_t memory_hits = 0;
  std::uint64_t disk_hits = 0;
  std::uint64_t compiles = 0;       ///< clBuildProgram from source
  std::uint64_t disk_rejected = 0;  ///< unreadable/stale disk entries thrown away and rebuilt
  double compile_ms = 0;
  double disk_load_ms = 0;
  /// Programs a compile worker process built (then loaded from the disk cache: counted in
  /// disk_hits too), and the milliseconds spent waiting for them (TuneOptions::compile_worker).
  std::uint64_t worker_compiles = 0;
  double worker_compile_ms = 0;
};
CacheStats cache_stats();
/// Drops every program and constant table held in memory (the disk cache stays).
void clear_memory_cache();
/// The disk cache folder: CLFORGE_CACHE_DIR, else $XDG_CACHE_HOME/clforge, else
/// ~/.cache/clforge. Empty when CLFORGE_CACHE_DIR=off.
std::string cache_dir();

/// Where the user tuning database lives: CLFORGE_USER_TUNING_DIR, else
/// $XDG_DATA_HOME/clforge/tuning, else ~/.local/share/clforge/tuning.
std::string user_tuning_dir();

}  // namespace clforge
