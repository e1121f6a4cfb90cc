// OpenBLAS loaded at run time and its kernels chosen (see openblas.hpp).
#include "bench/openblas.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/strings.hpp"

namespace clforge::bench {

namespace {

// Capability class of an OpenBLAS x86 core name: 3 AVX-512, 2 AVX2, 1 AVX, 0 older or unknown.
int core_class(const std::string& core) {
  const std::string c = detail::to_lower(core);
  for (const char* n : {"skylakex", "cooperlake", "sapphirerapids"})
    if (c == n) return 3;
  for (const char* n : {"haswell", "zen", "excavator"})
    if (c == n) return 2;
  for (const char* n : {"sandybridge", "bulldozer", "piledriver", "steamroller"})
    if (c == n) return 1;
  return 0;
}

// What a handle gives: cblas_sgemm, the core and the configuration.
void read_library(void* h, OpenBlas& b) {
  using Text = const char* (*)();
  b.sgemm = reinterpret_cast<CblasSgemm>(dlsym(h, "cblas_sgemm"));
  const auto core = reinterpret_cast<Text>(dlsym(h, "openblas_get_corename"));
  const auto config = reinterpret_cast<Text>(dlsym(h, "openblas_get_config"));
  b.core = core != nullptr ? detail::trim(core()) : "unknown";
  b.config = config != nullptr ? detail::trim(config()) : "unknown";
}

// The choice when clforge set the core: in a new load, or in a process run again for it.
std::string chosen_text(const std::string& core, const std::string& detected) {
  return "OPENBLAS_CORETYPE=" + core + " set by clforge: OpenBLAS detected " + detected + " on a CPU with " +
         (core == "SkylakeX" ? "AVX-512" : "AVX2 and FMA");
}

}  // namespace

std::string cpu_flags() {
  std::istringstream in(detail::read_file("/proc/cpuinfo").value_or(""));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0 && line.find(':') != std::string::npos) return line.substr(line.find(':') + 1);
  return "";
}

std::string better_openblas_core(const std::string& detected, const std::string& flags) {
  std::set<std::string> f;
  std::istringstream in(flags);
  for (std::string w; in >> w;) f.insert(w);
  const auto has = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (f.count(n) == 0) return false;
    return true;
  };
  const int have = core_class(detected);
  if (has({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"})) return have < 3 ? "SkylakeX" : "";
  if (has({"avx2", "fma"})) return have < 2 ? "Haswell" : "";
  return "";
}

OpenBlas load_openblas(const std::string& flags) {
  OpenBlas b;
  void* h = nullptr;
  const char* lib = nullptr;
  bool was_loaded = false;
  for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
    if (void* loaded = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
      was_loaded = true;
      dlclose(loaded);
    }
    if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) {
      lib = name;
      break;
    }
  }
  if (h == nullptr) {
    b.problem = "not found";
    return b;
  }
  b.from = lib;
  b.handle = h;
  read_library(h, b);
  if (b.sgemm == nullptr) {
    b.problem = std::string("no cblas_sgemm in ") + lib;
    return b;
  }
  if (const auto user = detail::env("OPENBLAS_CORETYPE")) {
    const auto replaced = detail::env("CLFORGE_OPENBLAS_DETECTED");  // restart_with_openblas_kernels
    b.choice = replaced ? chosen_text(*user, *replaced) : "OPENBLAS_CORETYPE=" + *user + " set by the user";
    return b;
  }
  const std::string better = better_openblas_core(b.core, flags);
  if (better.empty()) {
    b.choice = "detected by OpenBLAS";
    return b;
  }
  const std::string kept =
      "detected by OpenBLAS; " + better + " suits the CPU's flags: set OPENBLAS_CORETYPE=" + better;
  if (b.config.find("DYNAMIC_ARCH") == std::string::npos) {
    b.choice = "built for " + b.core + " only; " + better + " suits the CPU's flags";
    return b;
  }
  if (was_loaded) {
    b.choice = kept + " (OpenBLAS was loaded before and cannot load again)";
    return b;
  }
  const std::string detected = b.core;
  dlclose(h);
  if (void* still = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {  // not unloaded
    b.handle = still;
    read_library(still, b);
    b.choice = kept + " (OpenBLAS stayed loaded)";
    return b;
  }
  setenv("OPENBLAS_CORETYPE", better.c_str(), 1);
  h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  unsetenv("OPENBLAS_CORETYPE");
  if (h == nullptr) {
    b = OpenBlas();
    b.problem = std::string("did not load again: ") + dlerror();
    return b;
  }
  b.handle = h;
  read_library(h, b);
  b.choice = chosen_text(better, detected);
  return b;
}

void restart_with_openblas_kernels(char** argv) {
  if (detail::env("OPENBLAS_CORETYPE")) return;
  void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (h == nullptr) return;  // not loaded yet: openblas() loads it with the better kernels
  OpenBlas b;
  read_library(h, b);
  dlclose(h);
  const std::string better = better_openblas_core(b.core, cpu_flags());
  if (better.empty() || b.config.find("DYNAMIC_ARCH") == std::string::npos) return;
  const std::string self = detail::own_executable();
  if (self.empty()) return;
  setenv("OPENBLAS_CORETYPE", better.c_str(), 1);
  setenv("CLFORGE_OPENBLAS_DETECTED", b.core.c_str(), 1);
  execv(self.c_str(), argv);
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("CLFORGE_OPENBLAS_DETECTED");
}

const OpenBlas& openblas() {
  static const OpenBlas b = load_openblas(cpu_flags());
  return b;
}

std::string OpenBlas::describe() const {
  if (!problem.empty()) return problem;
  return config + "; kernels " + core + " (" + choice + ")";
}

}  // namespace clforge::bench
