// CUDA runtime and peer libraries loaded at run time for the benchmarks' NVIDIA rows (see
// cuda_runtime.hpp). Libraries stay loaded for the life of the process.
#if CLFORGE_BENCH_CUDA
#include "bench/cuda_runtime.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <type_traits>

#include "clforge/errors.hpp"

namespace clforge::bench::cuda {

namespace {

// libcudart.so.<version>, loaded once per version; null when it is absent or lacks a symbol.
const Runtime* runtime_of(const std::string& version) {
  static std::mutex m;
  static std::map<std::string, const Runtime*> loaded;
  std::lock_guard<std::mutex> lock(m);
  if (auto it = loaded.find(version); it != loaded.end()) return it->second;
  const Runtime*& slot = loaded[version];
  void* lib = dlopen(("libcudart.so." + version).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return slot = nullptr;
  auto* rt = new Runtime;
  bool complete = true;
  const auto bind = [&](auto& fn, const char* name) {
    void* f = dlsym(lib, name);
    complete = complete && f != nullptr;
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(f);
  };
  bind(rt->malloc_, "cudaMalloc");
  bind(rt->free_, "cudaFree");
  bind(rt->memcpy_, "cudaMemcpy");
  bind(rt->memset_, "cudaMemset");
  bind(rt->event_create, "cudaEventCreate");
  bind(rt->event_record, "cudaEventRecord");
  bind(rt->event_sync, "cudaEventSynchronize");
  bind(rt->event_elapsed, "cudaEventElapsedTime");
  bind(rt->event_destroy, "cudaEventDestroy");
  bind(rt->device_synchronize, "cudaDeviceSynchronize");
  bind(rt->get_device, "cudaGetDevice");
  bind(rt->device_get_attribute, "cudaDeviceGetAttribute");
  if (!complete) {
    delete rt;
    rt = nullptr;
  }
  return slot = rt;
}

}  // namespace

void* Library::symbol(const char* name) {
  void* f = handle != nullptr ? dlsym(handle, name) : nullptr;
  if (f == nullptr && problem.empty()) problem = std::string("missing symbol ") + name;
  return f;
}

const Sonames kCublasSonames = {{"13", "libcublas.so.13"}, {"12", "libcublas.so.12"}, {"11", "libcublas.so.11"}};
const Sonames kCufftSonames = {{"13", "libcufft.so.12"}, {"12", "libcufft.so.11"}, {"11", "libcufft.so.10"}};
const Sonames kNppSonames = {{"13", "libnppif.so.13"}, {"12", "libnppif.so.12"}};

Library open_library(const Sonames& sonames) {
  static std::mutex m;
  static std::map<Sonames, Library> opened;
  std::lock_guard<std::mutex> lock(m);
  if (auto it = opened.find(sonames); it != opened.end()) return it->second;
  Library& lib = opened[sonames];
  std::string tried;
  for (const auto& [version, soname] : sonames) {
    tried += (tried.empty() ? "" : ", ") + soname + " + libcudart.so." + version;
    const Runtime* rt = runtime_of(version);
    if (rt == nullptr) continue;
    if (void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      lib.runtime = rt;
      lib.handle = h;
      lib.from = "CUDA " + version + ": " + soname + ", libcudart.so." + version;
      return lib;
    }
  }
  lib.problem = "not found (" + tried + ")";
  return lib;
}

std::string describe(const Sonames& sonames) {
  const Library lib = open_library(sonames);
  return lib.problem.empty() ? lib.from : lib.problem;
}

DeviceBuffer::DeviceBuffer(const Runtime& rt, std::size_t bytes) : rt_(rt) {
  if (rt_.malloc_(&ptr_, bytes) != 0) ptr_ = nullptr;
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) rt_.free_(ptr_);
}
bool DeviceBuffer::upload(const void* src, std::size_t bytes, std::size_t offset) {
  return ptr_ != nullptr && rt_.memcpy_(static_cast<char*>(ptr_) + offset, src, bytes, 1) == 0;
}
bool DeviceBuffer::download(void* dst, std::size_t bytes, std::size_t offset) const {
  return ptr_ != nullptr && rt_.memcpy_(dst, static_cast<const char*>(ptr_) + offset, bytes, 2) == 0;
}

bool DeviceBuffer::poison(std::size_t bytes) { return ptr_ != nullptr && rt_.memset_(ptr_, 0xFF, bytes) == 0; }

Timing time_events(const Runtime& rt, const std::function<void()>& launch, const TimingPlan& plan) {
  void *e0 = nullptr, *e1 = nullptr;
  if (rt.event_create(&e0) != 0 || rt.event_create(&e1) != 0) {
    if (e0 != nullptr) rt.event_destroy(e0);
    throw Error("cudaEventCreate failed");
  }
  int calls = 1;  // back-to-back calls per event pair, as time_region does (TimingPlan::region_ms)
  const auto once = [&] {
    float ms = 0;
    if (rt.event_record(e0, nullptr) != 0) throw Error("cudaEvent timing failed");
    for (int i = 0; i < calls; ++i) launch();
    if (rt.event_record(e1, nullptr) != 0 || rt.event_sync(e1) != 0 || rt.event_elapsed(&ms, e0, e1) != 0)
      throw Error("cudaEvent timing failed");
    const double per_call = static_cast<double>(ms) / calls;
    if (calls == 1) calls = detail::region_calls(plan, per_call);
    return per_call;
  };
  const auto settle = [&] {
    if (rt.device_synchronize() != 0) throw Error("cudaEvent timing failed");
  };
  try {
    const Timing t = detail::sample_runs(plan, {once}, settle).front();
    rt.event_destroy(e0);
    rt.event_destroy(e1);
    return t;
  } catch (...) {
    rt.event_destroy(e0);
    rt.event_destroy(e1);
    throw;
  }
}

}  // namespace clforge::bench::cuda
#endif
