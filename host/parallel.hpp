// The one way host code splits a range over threads: tests' references, seeded fills and the
// tuner's scans of large outputs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace clforge::host {

/// Calls body(lo, hi) on consecutive chunks covering [0, count), each on its own thread (one
/// chunk runs on the caller's thread when there is only one). `threads` caps the threads (0: all
/// hardware threads); `grain` is the least count per thread, so a small range stays on one.
template <typename F>
void parallel_for(std::size_t count, unsigned threads, std::size_t grain, F&& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t by_grain = (count + std::max<std::size_t>(grain, 1) - 1) / std::max<std::size_t>(grain, 1);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(by_grain, 1)));
  if (threads <= 1) {
    body(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (count + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t lo = std::min(count, t * chunk), hi = std::min(count, lo + chunk);
    if (lo < hi) pool.emplace_back([&body, lo, hi] { body(lo, hi); });
  }
  for (auto& th : pool) th.join();
}

}  // namespace clforge::host
