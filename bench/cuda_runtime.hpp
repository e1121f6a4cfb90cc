// The CUDA side of the benchmarks' NVIDIA rows (cuBLAS in `bench sgemm`, cuFFT in `bench fft`,
// NPP in `bench blur`):
// libcudart and the peer library of one CUDA major version (11 to 13) loaded at run time, so the
// binary needs no CUDA to build, link or run (the rows then say "not found"); device buffers;
// cudaEvent timing with the same warm-up and repetition rules as the OpenCL rows. Only the C
// calls whose ABI is the same from CUDA 11 to 13 are used. Compiled when CLFORGE_BENCH_CUDA is
// set (CLFORGE_WITH_CUDA, ON unless turned off).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness.hpp"
#include "clforge/device.hpp"

namespace clforge::bench::cuda {

/// The libcudart calls the benchmarks use (return value: cudaError_t, 0 is success).
struct Runtime {
  int (*malloc_)(void**, std::size_t) = nullptr;
  int (*free_)(void*) = nullptr;
  int (*memcpy_)(void*, const void*, std::size_t, int) = nullptr;  ///< kind 1: host to device, 2: device to host
  int (*memset_)(void*, int, std::size_t) = nullptr;
  int (*event_create)(void**) = nullptr;
  int (*event_record)(void*, void*) = nullptr;
  int (*event_sync)(void*) = nullptr;
  int (*event_elapsed)(float*, void*, void*) = nullptr;
  int (*event_destroy)(void*) = nullptr;
  int (*device_synchronize)() = nullptr;
  int (*get_device)(int*) = nullptr;
  int (*device_get_attribute)(int*, int, int) = nullptr;  ///< (value, cudaDeviceAttr, device)
};

/// A peer library (libcublas, libcufft, libnppif, ...) and the libcudart of the same CUDA version.
struct Library {
  const Runtime* runtime = nullptr;
  void* handle = nullptr;  ///< dlopen handle of the peer library
  std::string from;        ///< e.g. "CUDA 12: libcufft.so.11, libcudart.so.12"
  std::string problem;     ///< why the library cannot be used; empty when it can

  /// Looks `name` up in the peer library; a missing symbol sets problem.
  template <typename F>
  void bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(symbol(name));
  }

 private:
  void* symbol(const char* name);
};

/// {CUDA major version, soname of the peer library of that version}, newest first.
using Sonames = std::vector<std::pair<std::string, std::string>>;
/// cuBLAS and cuFFT of CUDA 13, 12 and 11.
extern const Sonames kCublasSonames;
extern const Sonames kCufftSonames;
/// NPP's image filters (libnppif, which loads its core libnppc as a dependency, so that the one
/// handle finds the symbols of both) of CUDA 13 and 12.
extern const Sonames kNppSonames;

/// The first CUDA version in `sonames` for which both libcudart.so.<version> and the peer's
/// soname load; looked for once per list, the libraries stay loaded. Loading starts nothing on
/// any device. Never throws: problem says what was missing ("not found (...)").
Library open_library(const Sonames& sonames);

/// "CUDA 12: libcublas.so.12, libcudart.so.12" when the peer's libraries load, else its problem
/// ("not found (...)"): the peer's entry in the benchmark reports.
std::string describe(const Sonames& sonames);

/// "refused: ..." when a CUDA row cannot run for this OpenCL device, "" when it can: the peer's
/// libraries are not found (open_library(sonames)), the device is not an NVIDIA GPU (the row
/// would time another device; load is then not called, so no CUDA context is created), or the
/// Library (or type derived from it) that load() returns cannot be used.
template <typename Load>
std::string refusal(const DeviceInfo& device, const Sonames& sonames, Load load) {
  const std::string& missing = open_library(sonames).problem;
  if (!missing.empty()) return "refused: " + missing;
  if (device.vendor_class != VendorClass::NVIDIA) return "refused: the OpenCL device is not an NVIDIA GPU";
  const Library& lib = load();
  return lib.problem.empty() ? std::string() : "refused: " + lib.problem;
}

/// Device memory of one runtime, freed on destruction; get() is null when cudaMalloc failed.
class DeviceBuffer {
 public:
  DeviceBuffer(const Runtime& rt, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  /// Blocking copies (cudaMemcpy); false on failure.
  bool upload(const void* src, std::size_t bytes, std::size_t offset = 0);
  bool download(void* dst, std::size_t bytes, std::size_t offset = 0) const;
  /// Fills with 0xFF bytes (NaN as float), so unwritten outputs are caught; false on failure.
  bool poison(std::size_t bytes);

 private:
  const Runtime& rt_;
  void* ptr_ = nullptr;
};

/// Times `launch` (work enqueued on the default stream) between two cudaEvents per run:
/// plan.warmup runs, then repetitions until plan.min_reps and plan.min_time_ms are reached (at
/// most plan.max_reps), as the OpenCL timing does. Throws Error when an event call fails.
Timing time_events(const Runtime& rt, const std::function<void()>& launch, const TimingPlan& plan);

}  // namespace clforge::bench::cuda
