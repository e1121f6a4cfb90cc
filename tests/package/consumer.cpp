// Uses an installed clforge: transposes a random matrix on the default device, checks the
// result, and checks that kernels come from the installed share dir (or CLFORGE_KERNEL_DIR).
#include <clforge/clforge.hpp>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

int main() {
  if (clforge::list_devices().empty()) {
    std::puts("no OpenCL device: skipped");
    return 77;
  }
  try {
    clforge::Session s;
    const std::size_t rows = 37, cols = 53;
    std::vector<float> in(rows * cols);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& v : in) v = d(rng);
    const std::vector<float> out = clforge::transpose(s.queue, rows, cols, in);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c)
        if (out[c * rows + r] != in[r * cols + c]) {
          std::printf("wrong result at %zu,%zu\n", r, c);
          return 1;
        }
    const auto src = clforge::load_kernel_source("transpose/transpose.cl");
    const char* override_dir = std::getenv("CLFORGE_KERNEL_DIR");
    const std::string want = override_dir ? "override:" : "share:";
    std::printf("clforge %s on %s: transpose %zux%zu correct; kernels from %s\n", clforge::version_string,
                s.entry.info.name.c_str(), rows, cols, src.origin.c_str());
    if (src.origin.rfind(want, 0) != 0) {
      std::printf("expected kernels from the %s dir\n", want.c_str());
      return 1;
    }
    return 0;
  } catch (const clforge::Error& e) {
    std::printf("clforge error: %s\n", e.what());
    return 1;
  }
}
