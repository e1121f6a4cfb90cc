// A process-wide hook that tests set to inject faults (a failing chunk, rank or candidate) into
// the code that runs it; the hooks themselves are declared in internal *_testing.hpp headers,
// never in a public one. Setting and reading take a lock, so a hook may change while other
// threads run calls that read it.
#pragma once
#include <mutex>
#include <utility>

namespace clforge::detail {

template <class F>
class TestHook {
 public:
  /// Sets the hook (an empty F: none).
  void set(F f) {
    const std::lock_guard<std::mutex> lock(mutex_);
    f_ = std::move(f);
  }
  /// A copy of the hook, to call without the lock.
  F get() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return f_;
  }

 private:
  mutable std::mutex mutex_;
  F f_;
};

/// Sets a hook through `Set` for its own lifetime, and clears it at the end (tests).
template <class F, void (*Set)(F)>
class HookScope {
 public:
  explicit HookScope(F f) { Set(std::move(f)); }
  ~HookScope() { Set(nullptr); }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;
};

}  // namespace clforge::detail
