// Content hashes: FNV-1a for kernel sources and cache keys, and their hex form.
#pragma once
#include <cstdint>
#include <string>

namespace clforge::detail {

/// FNV-1a 64-bit hash: content hashes of kernel sources and cache keys (the full key is
/// also stored in each cache file, so a collision is detected, not trusted).
std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t seed = 1469598103934665603ull);
inline std::uint64_t fnv1a(const std::string& s, std::uint64_t seed = 1469598103934665603ull) {
  return fnv1a(s.data(), s.size(), seed);
}
/// 16 lower-case hex digits.
std::string hex64(std::uint64_t v);

}  // namespace clforge::detail
