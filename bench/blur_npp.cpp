// NPP as a peer of `clforge bench blur` on NVIDIA devices (left out only when built with
// -DCLFORGE_WITH_CUDA=OFF): libnppif of CUDA 13 or 12 and its libcudart loaded at run time
// through bench/cuda_runtime.hpp, as cuBLAS and cuFFT are. The calls are the _Ctx forms (the
// only ones NPP 13 keeps) with a stream context filled from cudaDeviceGetAttribute on the
// default stream. NPP's Gaussian filters replicate the border only. Where clforge's taps are
// one of NPP's fixed mask sizes (3 to 15), nppiFilterGaussBorder runs first and is kept when its
// mask passes the same check as every library (NPP fixes each mask's sigma itself); otherwise
// nppiFilterGaussAdvancedBorder runs with clforge's taps, which it takes in device memory.
#include <cmath>
#include <cstdio>
#include <functional>

#include "bench/blur_peers.hpp"
#include "host/blur.hpp"
#include "runtime/errors.hpp"
#if CLFORGE_BENCH_CUDA
#include "bench/cuda_runtime.hpp"
#endif

namespace clforge::bench {

#if CLFORGE_BENCH_CUDA
namespace {

// NPP's types as nppdefs.h lays them out (NPP 11 to 13).
struct NppiSize {
  int width, height;
};
struct NppiPoint {
  int x, y;
};
struct NppStreamContext {
  void* stream;  // cudaStream_t; null: the default stream
  int device, multiprocessors, max_threads_per_multiprocessor, max_threads_per_block;
  std::size_t shared_memory_per_block;
  int capability_major, capability_minor;
  unsigned int stream_flags;
  int reserved;
};
struct NppLibraryVersion {
  int major, minor, build;
};
constexpr int kBorderReplicate = 2;  // NPP_BORDER_REPLICATE

using GaussFixed = int (*)(const float*, int, NppiSize, NppiPoint, float*, int, NppiSize, int, int, NppStreamContext);
using GaussTaps = int (*)(const float*, int, NppiSize, NppiPoint, float*, int, NppiSize, int, const float*, int,
                          NppStreamContext);

// libnppif with its libcudart (libnppif loads libnppc, where nppGetLibVersion lives).
struct Npp : cuda::Library {
  GaussFixed fixed_c1 = nullptr, fixed_c4 = nullptr;
  GaussTaps taps_c1 = nullptr, taps_c4 = nullptr;
  const NppLibraryVersion* (*version)() = nullptr;
  Npp() : cuda::Library(cuda::open_library(cuda::kNppSonames)) {
    if (!problem.empty()) return;
    bind(fixed_c1, "nppiFilterGaussBorder_32f_C1R_Ctx");
    bind(fixed_c4, "nppiFilterGaussBorder_32f_C4R_Ctx");
    bind(taps_c1, "nppiFilterGaussAdvancedBorder_32f_C1R_Ctx");
    bind(taps_c4, "nppiFilterGaussAdvancedBorder_32f_C4R_Ctx");
    bind(version, "nppGetLibVersion");
  }
};
const Npp& npp() {
  static const Npp* n = new Npp;
  return *n;
}

// NppiMaskSize of a square fixed mask of `taps` (3 to 15, odd), -1 for other sizes.
int fixed_mask(int taps) {
  switch (taps) {
    case 3:
      return 200;  // NPP_MASK_SIZE_3_X_3
    case 5:
      return 201;
    case 7:
      return 400;
    case 9:
      return 500;
    case 11:
      return 600;
    case 13:
      return 700;
    case 15:
      return 800;  // NPP_MASK_SIZE_15_X_15
    default:
      return -1;
  }
}

// The stream context of the current device's default stream; false when a CUDA call fails.
bool stream_context(const cuda::Runtime& rt, NppStreamContext& ctx) {
  ctx = NppStreamContext{};
  int shared = 0;
  const auto attr = [&](int* v, int a) { return rt.device_get_attribute(v, a, ctx.device) == 0; };
  const bool ok = rt.get_device(&ctx.device) == 0 && attr(&ctx.multiprocessors, 16) &&
                  attr(&ctx.max_threads_per_multiprocessor, 39) && attr(&ctx.max_threads_per_block, 1) &&
                  attr(&shared, 8) && attr(&ctx.capability_major, 75) && attr(&ctx.capability_minor, 76);
  ctx.shared_memory_per_block = static_cast<std::size_t>(shared);
  return ok;
}

std::string version_of(const Npp& lib) {
  const NppLibraryVersion* v = lib.version();
  if (v == nullptr) return "NPP (version unknown)";
  return "NPP " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->build);
}

// The device buffers and calls of one case.
struct NppCase {
  const Npp& lib;
  const BlurCase& c;
  cuda::DeviceBuffer in, out, taps;
  NppStreamContext ctx{};
  NppCase(const Npp& l, const BlurCase& bc)
      : lib(l), c(bc), in(*l.runtime, bytes()), out(*l.runtime, bytes()), taps(*l.runtime, 4 * bc.taps()) {}
  std::size_t bytes() const { return c.width * c.height * c.channels * 4; }
  int step() const { return static_cast<int>(c.width * c.channels * 4); }
  NppiSize size() const { return {static_cast<int>(c.width), static_cast<int>(c.height)}; }
  int fixed() const {
    const auto* src = static_cast<const float*>(in.get());
    auto* dst = static_cast<float*>(out.get());
    return (c.channels == 1 ? lib.fixed_c1 : lib.fixed_c4)(src, step(), size(), {0, 0}, dst, step(), size(),
                                                           fixed_mask(c.taps()), kBorderReplicate, ctx);
  }
  int given() const {
    const auto* src = static_cast<const float*>(in.get());
    auto* dst = static_cast<float*>(out.get());
    return (c.channels == 1 ? lib.taps_c1 : lib.taps_c4)(src, step(), size(), {0, 0}, dst, step(), size(), c.taps(),
                                                         static_cast<const float*>(taps.get()), kBorderReplicate, ctx);
  }
  // Runs `call` once on a poisoned output and returns the output read back.
  std::vector<float> result(const std::function<int()>& call) {
    std::vector<float> host(c.width * c.height * c.channels);
    if (!out.poison(bytes())) throw Error("cudaMemset failed");
    const int e = call();
    if (e != 0) throw Error("NPP returned " + std::to_string(e));
    if (lib.runtime->device_synchronize() != 0 || !out.download(host.data(), bytes()))
      throw Error("cudaDeviceSynchronize/cudaMemcpy failed");
    return host;
  }
};

// Uploads the case; "" when ready, else the refusal.
std::string prepare(NppCase& k) {
  const BlurCase& c = k.c;
  if (c.width * c.channels * 4 > 0x7fffffff || c.height > 0x7fffffff)
    return "refused: the image does not fit NPP's int sizes and steps";
  std::vector<float> weights;
  for (double w : host::gaussian_weights(c.sigma)) weights.push_back(static_cast<float>(w));
  if (!k.in.upload(c.image->data(), k.bytes()) || !k.taps.upload(weights.data(), 4 * weights.size()))
    return "refused: cudaMalloc/cudaMemcpy of " + std::to_string(k.bytes()) + " bytes failed";
  if (!stream_context(*k.lib.runtime, k.ctx)) return "refused: cudaGetDevice/cudaDeviceGetAttribute failed";
  return "";
}

// The call of the case: the fixed mask where clforge's taps are one of its sizes and its output
// passes the check (never unchecked: with verification off the given taps run), else the given
// taps. Returns the call in words.
std::string choose_call(NppCase& k, std::function<int()>& call) {
  const BlurCase& c = k.c;
  call = [&k] { return k.given(); };
  std::string how = "nppiFilterGaussAdvancedBorder, " + std::to_string(c.taps()) + " taps";
  if (fixed_mask(c.taps()) < 0 || c.verify_pixels <= 0) return how;
  char note[160];
  try {
    const std::vector<float> y = k.result([&k] { return k.fixed(); });
    const double e = blur_sampled_error(c.image->data(), y.data(), c.width, c.height, c.channels, c.sigma, c.border,
                                        3.0, c.verify_pixels, c.verify_seed);
    if (e <= kTruncatedBlurTolerance) {
      call = [&k] { return k.fixed(); };
      return "nppiFilterGaussBorder, fixed " + std::to_string(c.taps()) + "x" + std::to_string(c.taps()) + " mask";
    }
    std::snprintf(note, sizeof note, "; its fixed %dx%d mask is another Gaussian (sampled error %.2e)", c.taps(),
                  c.taps(), e);
  } catch (const Error& e) {
    std::snprintf(note, sizeof note, "; its fixed %dx%d mask: %s", c.taps(), c.taps(), e.what());
  }
  return how + note;
}

Record npp_record(Session& s, const BlurCase& c, const TimingPlan& plan) {
  Record r = blur_peer_record("NPP", c);
  r.status = cuda::refusal(s.entry.info, cuda::kNppSonames, npp);
  if (!r.status.empty()) return r;
  if (c.border != BlurBorder::Clamp) {
    r.status = std::string("refused: NPP's Gaussian filters replicate the border only, not ") + to_string(c.border);
    return r;
  }
  try {
    NppCase k(npp(), c);
    r.status = prepare(k);
    if (!r.status.empty()) return r;
    std::function<int()> call;
    const std::string how = choose_call(k, call);
    const std::vector<float> y = k.result(call);
    if (!check_blur_output(r, c, y.data())) return r;
    r.timing = cuda::time_events(
        *k.lib.runtime,
        [&] {
          if (call() != 0) throw Error("NPP call failed");
        },
        plan);
    r.status = "ok (cudaEvent timing, " + how + ", " + version_of(k.lib) + ", " + k.lib.from + ")";
  } catch (const Error& e) {
    r.status = std::string("failed: ") + e.what();
  }
  return r;
}

}  // namespace

std::vector<Record> run_npp(Session& s, const BlurCase& c, const TimingPlan& plan) { return {npp_record(s, c, plan)}; }

#else

std::vector<Record> run_npp(Session&, const BlurCase&, const TimingPlan&) { return {}; }

#endif

}  // namespace clforge::bench
