// Read-only constant buffers shared by content (program_cache.hpp: constant_buffer), such as the
// blur's weights: one upload per table and context, however many plans use it.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "runtime/host_io.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/program_cache.hpp"

namespace clforge::detail {

namespace {
// Read-only constant buffers by (context, contents), most recently used last. A hit costs a
// compare; a miss creates the buffer, which on some drivers (NVIDIA) synchronises the device
// with the host, so routines with per-call constant tables must come here instead.
struct ConstantEntry {
  cl_context context;
  std::vector<unsigned char> bytes;
  cl::Buffer buffer;
};
std::mutex g_constant_mutex;
// Never destroyed: releasing OpenCL objects during static destruction can outlive the driver.
std::vector<ConstantEntry>& g_constants = *new std::vector<ConstantEntry>;
constexpr std::size_t kConstantEntries = 64;
}  // namespace

cl::Buffer constant_buffer(const cl::Context& context, const void* data, std::size_t bytes, const std::string& what) {
  const auto* p = static_cast<const unsigned char*>(data);
  static std::once_flag registered;  // clear_memory_cache() drops them too
  std::call_once(registered, [] {
    on_clear_memory_cache([] {
      std::lock_guard<std::mutex> lock(g_constant_mutex);
      g_constants.clear();
    });
  });
  std::lock_guard<std::mutex> lock(g_constant_mutex);
  for (auto it = g_constants.begin(); it != g_constants.end(); ++it)
    if (it->context == context() && it->bytes.size() == bytes &&
        (bytes == 0 || std::memcmp(it->bytes.data(), p, bytes) == 0)) {
      ConstantEntry e = std::move(*it);
      g_constants.erase(it);
      g_constants.push_back(std::move(e));
      return g_constants.back().buffer;
    }
  std::vector<unsigned char> copy(p, p + bytes);
  // An empty table still needs a valid buffer argument: 4 zero bytes.
  std::vector<unsigned char> init = copy;
  init.resize(std::max<std::size_t>(bytes, 4), 0);
  cl::Buffer b = upload(context, CL_MEM_READ_ONLY, init.data(), init.size(), what + " (constants)");
  if (g_constants.size() >= kConstantEntries) g_constants.erase(g_constants.begin());
  g_constants.push_back({context(), std::move(copy), b});
  return b;
}

}  // namespace clforge::detail
