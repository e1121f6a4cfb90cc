// OpenBLAS as bench sgemm's host peer on CPU devices, loaded at run time (no link dependency),
// and the choice of its kernels. A DYNAMIC_ARCH OpenBLAS picks its kernels from the CPUID when
// it loads; one that does not know the CPU (0.3.21 on a virtualised AVX-512 Xeon) falls back to
// old SSE3 "Prescott" kernels and runs several times below the machine. The rule:
//   - OPENBLAS_CORETYPE set in the environment: OpenBLAS uses it (reported as the user's choice);
//   - else, when the core OpenBLAS detected is of an older class than /proc/cpuinfo's flags
//     (AVX-512 F/BW/VL/DQ/CD: SkylakeX; AVX2 + FMA: Haswell), OpenBLAS is unloaded and loaded
//     again with OPENBLAS_CORETYPE set to that core (OpenBLAS reads it only when it loads);
//     where it came in with the process, the command line runs again with it set
//     (restart_with_openblas_kernels).
// Every record and the peers name the kernels that ran (openblas_get_corename).
#pragma once
#include <string>

namespace clforge::bench {

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);

struct OpenBlas {
  CblasSgemm sgemm = nullptr;  ///< cblas_sgemm; nullptr when OpenBLAS did not load
  std::string from;            ///< the soname loaded, "libopenblas.so.0"
  std::string core;            ///< openblas_get_corename(): "SkylakeX", "Haswell", "Prescott", ...
  std::string config;          ///< openblas_get_config()
  std::string choice;          ///< how the kernels were chosen, in words
  std::string problem;         ///< why it did not load ("not found"); empty when it did
  void* handle = nullptr;      ///< dlopen's handle, kept open (a test may dlclose its own load)
  /// Config, kernels and their choice in one line (the peers' entry); problem when not loaded.
  std::string describe() const;
};

/// OpenBLAS for this process, loaded (and its kernels chosen) on first use.
const OpenBlas& openblas();

/// Loads OpenBLAS as openblas() does but with the given CPU flags in place of /proc/cpuinfo's
/// (tests; kernels chosen for flags the CPU lacks must not run). Where OpenBLAS is already
/// loaded in the process it cannot load again: then only the user's OPENBLAS_CORETYPE or the
/// detected core apply, and choice says so (a library linked against libblas.so.3, such as
/// OpenCV's core, brings it in with the process where the BLAS alternative is OpenBLAS).
OpenBlas load_openblas(const std::string& cpu_flags);

/// The core OpenBLAS should use instead of `detected` on a CPU with these flags (the "flags"
/// line of /proc/cpuinfo): "SkylakeX", "Haswell", or "" to keep the detected one.
std::string better_openblas_core(const std::string& detected, const std::string& cpu_flags);

/// The "flags" line of /proc/cpuinfo (empty when unreadable).
std::string cpu_flags();

/// For a command line that benchmarks against OpenBLAS, first thing in main(): where OpenBLAS
/// came in with the process (a library linked against libblas.so.3), its kernels are older than
/// the CPU's flags call for (better_openblas_core), it chooses them at load time (DYNAMIC_ARCH)
/// and OPENBLAS_CORETYPE is not set, the process runs again (execv of its own executable with
/// the same arguments) with OPENBLAS_CORETYPE set to the better core and
/// CLFORGE_OPENBLAS_DETECTED to the one it replaced, which openblas() reports as clforge's choice.
/// Returns where nothing needs it or the execv fails (the variables unset again).
void restart_with_openblas_kernels(char** argv);

}  // namespace clforge::bench
