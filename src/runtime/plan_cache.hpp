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

#include "clforge/opencl.hpp"

namespace clforge::detail {

/// The bytes of each value (context and device handles, sizes, the bits of floating-point
/// values). Bytes, not text: formatting numbers cost more host time than the rest of a cached
/// call. A struct with padding bytes would make equal descriptions differ (padding is not copied
/// reliably): only scalars and structs without padding are taken (a description's fields are
/// listed by its family's desc_key).
template <typename... T>
std::string key_bytes(const T&... values) {
  static_assert(((std::has_unique_object_representations_v<T> || std::is_floating_point_v<T>)&&...),
                "key_bytes takes scalars and structs without padding");
  std::string key;
  key.reserve((sizeof(T) + ... + 0));
  (key.append(reinterpret_cast<const char*>(&values), sizeof values), ...);
  return key;
}

/// A plan-cache key: key_bytes of the values, then the tuning fingerprint.
template <typename... T>
std::string plan_key(const std::string& fingerprint, const T&... values) {
  return key_bytes(values...) + fingerprint;
}

/// The plan key of a family's description d on a context and device: desc_key(d) is the family's
/// list of the description's fields (found by argument-dependent lookup in namespace clforge),
/// so that the free functions' caches and the group's plans by size key a description alike.
template <typename Desc, typename... T>
std::string desc_plan_key(const std::string& fingerprint, const Desc& d, const T&... values) {
  return key_bytes(values...) + desc_key(d) + fingerprint;
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

/// The plan of description d on a context and device from the process's cache of Plans (one
/// cache per plan type, shared by the free functions and the group's plans by size; keyed by
/// desc_plan_key), made by `make()` (which returns a Plan) when missing. `fingerprint` is the
/// tuning fingerprint of the device and the call's tuning.
template <typename Plan, typename Desc, typename Make>
std::shared_ptr<const Plan> cached_plan(const std::string& fingerprint, const Desc& d, cl_context context,
                                        cl_device_id device, Make&& make) {
  // Never destroyed: releasing OpenCL objects during static destruction can outlive the driver.
  static PlanCache<Plan>& cache = *new PlanCache<Plan>(64);
  return cache.get(desc_plan_key(fingerprint, d, context, device),
                   [&] { return std::make_shared<const Plan>(make()); });
}

}  // namespace clforge::detail
