// A bounded, process-wide cache of plans by key, most recently used kept: the free functions
// look their plan up here, so that a repeated call costs a lookup instead of a resolution.
#pragma once
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace clforge::detail {

/// A plan-cache key: the bytes of each value (context and device handles, sizes, the bits of
/// floating-point values), then the tuning fingerprint; empty when the fingerprint is (a database
/// file changed a moment ago: no caching). Bytes, not text: formatting numbers cost more host
/// time than the rest of a cached call.
template <typename... T>
std::string plan_key(const std::string& fingerprint, const T&... values) {
  static_assert((std::is_trivially_copyable_v<T> && ...), "plan_key takes plain values");
  if (fingerprint.empty()) return {};
  std::string key;
  key.reserve((sizeof(T) + ... + 0) + fingerprint.size());
  (key.append(reinterpret_cast<const char*>(&values), sizeof values), ...);
  key += fingerprint;
  return key;
}

/// Registers a function that clear_memory_cache() calls (plan caches drop their plans).
void on_clear_memory_cache(std::function<void()> clear);

template <typename Plan>
class PlanCache {
 public:
  explicit PlanCache(std::size_t capacity) : capacity_(capacity) {
    on_clear_memory_cache([this] { clear(); });
  }

  /// The plan under `key`, made by `make` when missing. `make` runs outside the lock (two
  /// threads may both make a plan; the first one stored is kept). An empty key is never cached.
  std::shared_ptr<const Plan> get(const std::string& key, const std::function<std::shared_ptr<const Plan>()>& make) {
    if (!key.empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = map_.find(key);
      if (it != map_.end()) {
        order_.splice(order_.begin(), order_, it->second.second);
        return it->second.first;
      }
    }
    std::shared_ptr<const Plan> plan = make();
    if (key.empty()) return plan;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = map_.find(key);
    if (it != map_.end()) return it->second.first;
    order_.push_front(key);
    map_.emplace(key, std::make_pair(plan, order_.begin()));
    while (map_.size() > capacity_) {
      map_.erase(order_.back());
      order_.pop_back();
    }
    return plan;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    map_.clear();
    order_.clear();
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::list<std::string> order_;
  std::unordered_map<std::string, std::pair<std::shared_ptr<const Plan>, std::list<std::string>::iterator>> map_;
};

}  // namespace clforge::detail
