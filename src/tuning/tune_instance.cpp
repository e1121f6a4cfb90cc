// The pieces every routine's TuneInstance shares (tuner.hpp): the read-only input buffer, the
// output with a NaN guard tail (allocation, poisoning, reading back, size and guard checks; the
// guard's length and count are the host output harness's, host/guard.hpp),
// the sample of a sampled verification, and the parsing of counts in size strings.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "clforge/errors.hpp"
#include "host/data.hpp"
#include "host/guard.hpp"
#include "runtime/errors.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

// The tuner's outputs carry the guard tail of the tests' output harness (host/guard.hpp).
static_assert(GuardedOutput::kGuard == host::kGuardTail);

GuardedOutput::GuardedOutput(const cl::Context& context, std::size_t n, const std::string& what, std::size_t pad)
    : n_(n), pad_(pad) {
  cl_int st = CL_SUCCESS;
  buffer_ = cl::Buffer(context, CL_MEM_READ_WRITE, (n + kGuard) * sizeof(float), nullptr, &st);
  check(st, "clCreateBuffer", what);
}

void GuardedOutput::poison(cl::CommandQueue& queue) const {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  check(queue.enqueueFillBuffer(buffer_, nan, 0, (n_ + kGuard) * sizeof(float)), "clEnqueueFillBuffer");
  check(queue.finish(), "clFinish");
}

std::vector<float>& GuardedOutput::read(cl::CommandQueue& queue) {
  host_.resize(n_ + kGuard);
  check(queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, host_.size() * sizeof(float), host_.data()),
        "clEnqueueReadBuffer");
  return host_;
}

bool GuardedOutput::scan(const std::vector<float>& out, const std::string& what, Verdict& v) const {
  if (wrong_size(out, v)) return false;
  host::NonFinite bad = host::count_nonfinite(out.data(), std::min(n_, pad_));
  if (pad_ < n_) {  // the values after the pad
    const host::NonFinite after = host::count_nonfinite(out.data() + pad_ + 1, n_ - pad_ - 1);
    if (bad.count == 0 && after.count > 0) bad.first = pad_ + 1 + after.first;
    bad.count += after.count;
  }
  std::string message;
  if (bad.count > 0)
    message = std::to_string(bad.count) + " of " + std::to_string(n_) + " values of " + what +
              " are NaN or infinite (unwritten or overflowed; the first at " + std::to_string(bad.first) + ")";
  const bool guard_intact = note_guard(out, what, message);
  if (bad.count == 0 && guard_intact) return true;
  v.ok = false;
  v.error = 1;
  v.message = message;
  return false;
}

std::vector<std::size_t> sample_indices(std::size_t count, std::size_t want, std::uint64_t seed) {
  std::vector<std::size_t> out;
  if (count <= want) {
    for (std::size_t i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  std::set<std::size_t> picked{0, count - 1};
  std::mt19937_64 rng(seed);
  while (picked.size() < want) picked.insert(1 + rng() % (count - 2));
  return std::vector<std::size_t>(picked.begin(), picked.end());
}

std::size_t fault_index(const std::vector<std::size_t>& sample, std::size_t count, bool in_sample) {
  if (sample.size() == count) return count / 2;
  std::size_t k = sample.front();
  for (std::size_t i = 0; !in_sample && i < sample.size() && sample[i] == i; ++i) k = i + 1;
  return k;
}

cl::Buffer input_buffer(const cl::Context& context, const std::vector<float>& data, const std::string& what) {
  cl_int st = CL_SUCCESS;
  cl::Buffer b(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(data.size(), 1) * 4,
               const_cast<float*>(data.data()), &st);
  check(st, "clCreateBuffer", what);
  return b;
}

bool GuardedOutput::wrong_size(const std::vector<float>& out, Verdict& v) const {
  if (out.size() == n_ + kGuard) return false;
  v.message = "output has " + std::to_string(out.size()) + " values, expected " + std::to_string(n_ + kGuard);
  v.error = 1;
  return true;
}

std::size_t GuardedOutput::guard_hits(const std::vector<float>& out) const {
  return host::guard_hits(out.data(), n_, out.size());
}

bool GuardedOutput::note_guard(const std::vector<float>& out, const std::string& what, std::string& message) const {
  const std::size_t hits = guard_hits(out);
  if (hits == 0) return true;
  message += std::string(message.empty() ? "" : "; ") + std::to_string(hits) + " guard values after " + what +
             " were overwritten";
  return false;
}

std::size_t parse_size_count(const std::string& text, const std::string& routine, const std::string& size,
                             const std::string& syntax, std::size_t max) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (...) {
    used = 0;
  }
  if (text.empty() || used != text.size() || text[0] < '0' || text[0] > '9' || v == 0 || v > max)
    throw InvalidArgument(routine + " size '" + size + "': '" + text + "' is not a count from 1 to " +
                          (max == INT_MAX ? std::string("2^31-1") : std::to_string(max)) + " (sizes are " + syntax +
                          ")");
  return static_cast<std::size_t>(v);
}

}  // namespace clforge::detail
