// The harness of the hostile-argument tests (test_safety.cpp): two sentinel-filled parent
// buffers with sub-buffers inside them, a generator of random and adversarial sizes, and the
// check that a call either was refused with nothing allocated, built or enqueued, or changed
// nothing outside the memory its arguments describe.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/host_io.hpp"
#include "tests/support.hpp"

namespace clforge::test {

/// Argument sets per routine: CLFORGE_SAFETY_CASES, default 10000.
std::size_t safety_cases();

/// Random sizes: mostly small, sometimes hostile (near SIZE_MAX, 2^31, 2^32, 2^63, powers of
/// two, and values whose products with small numbers wrap).
class Hostile {
 public:
  explicit Hostile(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t bits() { return rng_(); }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  /// An adversarial value.
  std::size_t wild();
  /// A small value in [lo, hi] or, with probability p_wild, an adversarial one.
  std::size_t size(std::size_t lo, std::size_t hi, double p_wild) {
    return chance(p_wild) ? wild() : lo + below(hi - lo + 1);
  }

 private:
  std::mt19937_64 rng_;
};

/// Where an argument's buffer comes from.
enum class Parent { Dst, Src };

/// A buffer handed to a routine: a parent, a sub-buffer of it, or null.
struct Slot {
  cl::Buffer buffer;
  Parent parent = Parent::Dst;
  std::size_t origin = 0;  ///< bytes from the parent's start (0 for the parent itself)
  bool null = false;
};

/// Two parents of kBytes each: `dst` filled with a sentinel pattern, `src` with random floats
/// in [-1, 1]. Sub-buffers start at an offset aligned to the device's base-address alignment.
class Arena {
 public:
  static constexpr std::size_t kBytes = 16384;
  explicit Arena(std::uint64_t seed);

  /// A random slot: the whole parent, a sub-buffer of random origin and size inside it, or null
  /// (with probability p_null).
  Slot pick(Hostile& h, Parent p, double p_null = 0.03);
  /// The host copy of a parent as it must be now.
  std::vector<unsigned char>& expected(Parent p) { return p == Parent::Dst ? dst_host_ : src_host_; }
  /// The bytes of a parent as the device holds them now.
  std::vector<unsigned char> read(Parent p) const;
  /// Reads both parents back and checks that every byte equals `expected`; on a mismatch
  /// reports the first differing byte and restores the parent. Returns true when both match.
  bool verify(const std::string& what);
  /// After an accepted call whose expected bytes were already compared: restores dst's sentinel.
  void restore();
  const cl::Buffer& buffer(Parent p) const { return p == Parent::Dst ? dst_ : src_; }

 private:
  cl::Buffer dst_, src_;
  std::vector<unsigned char> dst_host_, src_host_, sentinel_, random_;
  std::size_t align_ = 128;
};

/// What a refused call must leave unchanged: buffers created and commands enqueued by the
/// library, and programs looked up (built or found in a cache).
struct Footprint {
  detail::Activity activity;
  std::uint64_t programs = 0;
  static Footprint now();
  bool operator==(const Footprint& o) const {
    return activity.buffers == o.activity.buffers && activity.enqueued == o.activity.enqueued && programs == o.programs;
  }
};

/// Counts of one routine's fuzz run.
struct FuzzCounts {
  std::size_t refused = 0, accepted = 0;
};

/// Runs `call` for one argument set. InvalidArgument: the footprint and both parents must be
/// unchanged (refused). Normal return: `check` compares the parents with the expected result
/// (accepted). Any other exception fails the test with the description.
void fuzz_one(Arena& arena, const std::string& what, FuzzCounts& counts, const std::function<void()>& call,
              const std::function<bool()>& check);

}  // namespace clforge::test
