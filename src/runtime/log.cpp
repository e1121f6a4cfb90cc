// The log hook: the library never prints; it hands messages to an optional callback.
#include "runtime/log.hpp"

#include <atomic>
#include <mutex>

#include "runtime/environment.hpp"
#include "runtime/strings.hpp"

namespace clforge {
namespace {
LogLevel initial_level() {
  const auto v = detail::env("CLFORGE_LOG");
  if (!v) return LogLevel::Warning;
  const std::string s = detail::to_lower(*v);
  if (s == "debug") return LogLevel::Debug;
  if (s == "info") return LogLevel::Info;
  if (s == "warning" || s == "warn") return LogLevel::Warning;
  if (s == "error") return LogLevel::Error;
  return LogLevel::Off;
}
std::atomic<int> g_level{static_cast<int>(initial_level())};
std::mutex g_mutex;
LogCallback g_callback;
}  // namespace

void set_log_callback(LogCallback cb) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_callback = std::move(cb);
}
void set_log_level(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

namespace detail {
bool log_enabled(LogLevel level) { return static_cast<int>(level) >= g_level.load() && level != LogLevel::Off; }
void log(LogLevel level, const std::string& message) {
  if (!log_enabled(level)) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_callback) return;
  try {
    g_callback(level, message);
  } catch (...) {
    // A throwing callback must not break the routine that logged.
  }
}
}  // namespace detail
}  // namespace clforge
