// The hostile-argument harness (see safety_support.hpp).
#include "tests/safety_support.hpp"

#include <cstdlib>

namespace clforge::test {

std::size_t safety_cases() {
  const char* v = std::getenv("CLFORGE_SAFETY_CASES");
  return v != nullptr && std::atoll(v) > 0 ? static_cast<std::size_t>(std::atoll(v)) : 10000;
}

std::size_t Hostile::wild() {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  switch (below(10)) {
    case 0:
      return kMax - below(64);
    case 1:
      return kMax / (2 + below(256)) + 1 + below(3);  // times a small number: wraps
    case 2:
      return (std::size_t{1} << 31) + below(5) - 2;
    case 3:
      return (std::size_t{1} << 32) + below(5) - 2;
    case 4:
      return (std::size_t{1} << 63) + below(5) - 2;
    case 5:
      return std::size_t{1} << below(64);
    case 6:
      return (std::size_t{1} << (32 + below(32))) - below(2);
    case 7:
      return kMax / 63 + 1;  // the leading dimension that wrapped sgemm's C extent
    case 8:
      return bits();
    default:
      return kMax / 4 + below(4);
  }
}

Arena::Arena(std::uint64_t seed) {
  auto& s = session();
  cl_uint align_bits = 1024;
  s.entry.device.getInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN, &align_bits);
  align_ = std::max<std::size_t>(align_bits / 8, 16);
  REQUIRE(align_ * 4 <= kBytes);
  sentinel_.resize(kBytes);
  for (std::size_t i = 0; i < kBytes / 4; ++i) {
    // Finite floats of about -1.2e-16 whose low bits vary with the index.
    const std::uint32_t w = 0xA5000000u | ((static_cast<std::uint32_t>(i) * 2654435761u) >> 9);
    std::memcpy(&sentinel_[i * 4], &w, 4);
  }
  random_.resize(kBytes);
  const std::vector<float> r = host::random_floats(kBytes / 4, seed);
  std::memcpy(random_.data(), r.data(), kBytes);
  cl_int st = CL_SUCCESS;
  dst_ = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, sentinel_.data(), &st);
  REQUIRE(st == CL_SUCCESS);
  src_ = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBytes, random_.data(), &st);
  REQUIRE(st == CL_SUCCESS);
  dst_host_ = sentinel_;
  src_host_ = random_;
}

Slot Arena::pick(Hostile& h, Parent p, double p_null) {
  Slot slot;
  slot.parent = p;
  if (h.chance(p_null)) {
    slot.null = true;
    return slot;
  }
  if (h.chance(0.5)) {
    slot.buffer = buffer(p);
    return slot;
  }
  // A sub-buffer: origin 1..3 alignments in, size from a few bytes to the rest of the parent.
  slot.origin = align_ * (1 + h.below(3));
  const std::size_t room = kBytes - slot.origin;
  const std::size_t size = h.chance(0.5) ? 4 * (1 + h.below(room / 4)) : room - 4 * h.below(64);
  cl_buffer_region region{slot.origin, size};
  cl_int st = CL_SUCCESS;
  slot.buffer =
      (p == Parent::Dst ? dst_ : src_).createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &st);
  REQUIRE(st == CL_SUCCESS);
  return slot;
}

std::vector<unsigned char> Arena::read(Parent p) const {
  std::vector<unsigned char> got(kBytes);
  REQUIRE(session().queue.enqueueReadBuffer(buffer(p), CL_TRUE, 0, kBytes, got.data()) == CL_SUCCESS);
  return got;
}

bool Arena::verify(const std::string& what) {
  auto& s = session();
  bool ok = true;
  for (Parent p : {Parent::Dst, Parent::Src}) {
    const std::vector<unsigned char> got = read(p);
    const auto& want = p == Parent::Dst ? sentinel_ : random_;
    if (std::memcmp(got.data(), expected(p).data(), kBytes) != 0) {
      std::size_t i = 0;
      while (got[i] == expected(p)[i]) ++i;
      FAIL_CHECK((p == Parent::Dst ? "dst" : "src")
                 << " parent byte " << i << " (float " << i / 4 << ") differs from what " << what << " may change");
      ok = false;
    }
    // Back to the pristine state for the next call.
    if (std::memcmp(got.data(), want.data(), kBytes) != 0)
      REQUIRE(s.queue.enqueueWriteBuffer(buffer(p), CL_TRUE, 0, kBytes, want.data()) == CL_SUCCESS);
    expected(p) = want;
  }
  return ok;
}

void Arena::restore() {
  dst_host_ = sentinel_;
  src_host_ = random_;
}

Footprint Footprint::now() {
  const CacheStats c = cache_stats();
  return {detail::activity(), c.memory_hits + c.disk_hits + c.compiles};
}

void fuzz_one(Arena& arena, const std::string& what, FuzzCounts& counts, const std::function<void()>& call,
              const std::function<bool()>& check) {
  const Footprint before = Footprint::now();
  try {
    call();
  } catch (const InvalidArgument& e) {
    ++counts.refused;
    const Footprint after = Footprint::now();
    if (!(after == before))
      FAIL_CHECK(what << ": refused (" << e.what() << ") after allocating, building or enqueueing: buffers +"
                      << after.activity.buffers - before.activity.buffers << ", commands +"
                      << after.activity.enqueued - before.activity.enqueued << ", programs +"
                      << after.programs - before.programs);
    if (std::string(e.what()).find(": ") == std::string::npos)
      FAIL_CHECK(what << ": message without routine: " << e.what());
    arena.verify(what + " (refused)");
    return;
  } catch (const std::exception& e) {
    FAIL_CHECK(what << ": threw something other than InvalidArgument: " << e.what());
    arena.restore();
    arena.verify(what + " (failed)");
    return;
  }
  ++counts.accepted;
  REQUIRE(session().queue.finish() == CL_SUCCESS);
  if (!check()) FAIL_CHECK(what << ": accepted, but the described output is wrong");
  arena.verify(what + " (accepted)");
}

}  // namespace clforge::test
