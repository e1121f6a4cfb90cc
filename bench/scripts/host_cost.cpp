// Host cost of routine calls: for sgemm 1000^3, transpose 1000^2, the separable and
// recursive blur of an N x N image (sigma 10) and out-of-place FFT plans of 64 MiB (n = 1024,
// 4096, 16384), 20 calls back to back, three times each; prints
// the host's time per enqueue (and the slowest one), the wall time per call and the device span
// per call (END of the first call's last command to END of the last's, over 19 calls). When the
// host time per call reaches the device span, the host is the limit.
// usage: clforge_host_cost [N (default 1024)] [DEVICE (clforge device syntax, default: default)]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "clforge/clforge.hpp"

using namespace clforge;
using Clock = std::chrono::steady_clock;

namespace {
double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

void measure(cl::CommandQueue& q, const char* label, const std::function<void(cl::Event*)>& call) {
  constexpr int kCalls = 20;
  for (int rep = 0; rep < 3; ++rep) {
    q.finish();
    cl::Event first, last;
    double slowest = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) {
      const auto a = Clock::now();
      call(i == 0 ? &first : i == kCalls - 1 ? &last : nullptr);
      slowest = std::max(slowest, us(Clock::now() - a));
    }
    const auto t1 = Clock::now();
    q.finish();
    const auto t2 = Clock::now();
    cl_ulong s = 0, e = 0;
    first.getProfilingInfo(CL_PROFILING_COMMAND_END, &s);
    last.getProfilingInfo(CL_PROFILING_COMMAND_END, &e);
    std::printf("%s: host %.1f us/call (slowest %.1f), wall %.1f us/call, device span %.1f us/call%s\n", label,
                us(t1 - t0) / kCalls, slowest, us(t2 - t0) / kCalls, static_cast<double>(e - s) * 1e-3 / (kCalls - 1),
                rep == 0 ? " (first round: builds)" : "");
  }
}
}  // namespace

int main(int argc, char** argv) {
  try {
    const std::size_t N = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
    Session s(argc > 2 ? argv[2] : "");
    std::printf("device %s\n", s.entry.info.name.c_str());
    cl::CommandQueue& q = s.queue;
    const std::size_t n = 1000;
    const std::vector<float> half(n * n, 0.5f);
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, n * n * 4), b(s.context, CL_MEM_READ_WRITE, n * n * 4),
        c(s.context, CL_MEM_READ_WRITE, n * n * 4);
    q.enqueueWriteBuffer(a, CL_TRUE, 0, n * n * 4, half.data());
    q.enqueueWriteBuffer(b, CL_TRUE, 0, n * n * 4, half.data());
    measure(q, "sgemm 1000^3", [&](cl::Event* ev) {
      sgemm(q, Layout::ColMajor, Transpose::No, Transpose::No, n, n, n, 1.0f, {a, 0, n}, {b, 0, n}, 0.0f, {c, 0, n}, {},
            ev);
    });
    measure(q, "transpose 1000^2", [&](cl::Event* ev) { transpose(q, n, n, 4, {a, 0, n}, {c, 0, n}, {}, ev); });
    cl::Buffer in(s.context, CL_MEM_READ_WRITE, N * N * 4), out(s.context, CL_MEM_READ_WRITE, N * N * 4);
    const std::vector<float> ones(N * N, 1.0f);
    q.enqueueWriteBuffer(in, CL_TRUE, 0, N * N * 4, ones.data());
    BlurWorkspace ws;
    for (BlurMethod m : {BlurMethod::Separable, BlurMethod::Recursive}) {
      BlurOptions o;
      o.sigma_x = o.sigma_y = 10;
      o.method = m;
      o.workspace = &ws;
      const std::string label = std::string("blur ") + to_string(m) + " " + std::to_string(N) + "^2";
      measure(q, label.c_str(), [&](cl::Event* ev) {
        gaussian_blur(q, N, N, PixelFormat::R32F, {in, 0, N}, {out, 0, N}, o, {}, ev);
      });
    }
    for (std::size_t fn : {1024, 4096, 16384}) {
      FftDesc d;
      d.n = fn;
      d.batch = (std::size_t{64} << 20) / (8 * fn);
      cl::Buffer fi(s.context, CL_MEM_READ_WRITE, 8 * fn * d.batch), fo(s.context, CL_MEM_READ_WRITE, 8 * fn * d.batch);
      q.enqueueFillBuffer(fi, 0.25f, 0, 8 * fn * d.batch);
      const FftPlan plan(q, d);
      const std::string label = "fft " + std::to_string(fn) + " x " + std::to_string(d.batch);
      measure(q, label.c_str(), [&](cl::Event* ev) { plan.forward(fi, fo, {}, ev); });
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "clforge_host_cost: %s\n", e.what());
    return 1;
  }
  return 0;
}
