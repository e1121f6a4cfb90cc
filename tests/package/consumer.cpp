// Uses clforge as a separate project does (found through CMake or pkg-config, installed or in its
// build tree): transposes a random matrix on the default device and checks the result, where the
// kernels came from and which libclforge the process loaded.
//   consumer [share|embedded [LIBDIR]]
// share (the default): kernels from the share dir installed beside the library; embedded: from the
// library's embedded copy (a build tree has no share dir). With CLFORGE_KERNEL_DIR set, kernels
// must come from that dir instead. LIBDIR: the folder the loaded libclforge must be in (shared
// builds; "": none may be loaded, a static libclforge). Exits 77 when the machine has no OpenCL device.
#include <link.h>

#include <clforge/clforge.hpp>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

// The bindings' versions the program was built with: clforge/opencl.hpp's defaults for what the
// build did not set (target 120, minimum 120; minimum 110 beside a target of 300).
#if defined(CONSUMER_EXPECT_CLHPP_TARGET) && defined(CONSUMER_EXPECT_CLHPP_MINIMUM)
static_assert(CL_HPP_TARGET_OPENCL_VERSION == CONSUMER_EXPECT_CLHPP_TARGET, "CLHPP target version");
static_assert(CL_HPP_MINIMUM_OPENCL_VERSION == CONSUMER_EXPECT_CLHPP_MINIMUM, "CLHPP minimum version");
#else
#error "build with CONSUMER_EXPECT_CLHPP_TARGET and CONSUMER_EXPECT_CLHPP_MINIMUM"
#endif

namespace {

std::string real_path(const std::string& p) {
  char resolved[PATH_MAX];
  return ::realpath(p.c_str(), resolved) != nullptr ? std::string(resolved) : p;
}

// The folder of the libclforge shared object loaded into this process, "" when there is none.
std::string loaded_library_dir() {
  std::string dir;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const auto slash = name.rfind('/');
        if (slash == std::string::npos || name.compare(slash + 1, 12, "libclforge.s") != 0) return 0;
        *static_cast<std::string*>(out) = real_path(name.substr(0, slash));
        return 1;
      },
      &dir);
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string want_origin = argc > 1 ? argv[1] : "share";
  if (want_origin != "share" && want_origin != "embedded") {
    std::printf("usage: consumer [share|embedded [LIBDIR]]\n");
    return 2;
  }
  if (argc > 2) {
    const std::string want = real_path(argv[2]), got = loaded_library_dir();
    if (got != want) {
      std::printf("libclforge loaded from \"%s\", expected \"%s\"\n", got.c_str(), want.c_str());
      return 1;
    }
    std::printf(got.empty() ? "no libclforge shared object loaded%s\n" : "libclforge loaded from %s\n", got.c_str());
  }
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
    const std::string want = override_dir ? "override:" : want_origin == "share" ? "share:" : "embedded";
    std::printf("clforge %s (CLHPP target %d) on %s: transpose %zux%zu correct; kernels from %s\n",
                clforge::version_string, CL_HPP_TARGET_OPENCL_VERSION, s.entry.info.name.c_str(), rows, cols,
                src.origin.c_str());
    if (src.origin.rfind(want, 0) != 0) {
      std::printf("expected kernels from %s\n", want.c_str());
      return 1;
    }
    return 0;
  } catch (const clforge::Error& e) {
    std::printf("clforge error: %s\n", e.what());
    return 1;
  }
}
