// clforge's batched FFT against clFFT and VkFFT (OpenCL backend) on the same device in the same
// run: out-of-place forward transforms of contiguous batches of random data, all timed alike
// between marker kernels (clFFT and VkFFT may enqueue several kernels), with effective bandwidth
// 2 * bytes / time and 5 n log2 n flops per transform. On NVIDIA devices cuFFT runs on the same
// data (libcufft loaded at run time; cudaEvent timing), on CPU devices FFTW float on the host
// (threaded; host clock). clforge's and the peers' errors are checked against FFTW (double) on a
// sample of transforms.
//
// Each peer's runner has its own file (fft_clfft.cpp, fft_cufft.cpp, fft_fftw.cpp,
// fft_vkfft.cpp: VkFFT in a child process on CPU devices); this file holds the cases, clforge's
// runner, the rounds and the shared error check.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "bench/fft_peers.hpp"
#include "bench/routines.hpp"
#include "clforge/fft.hpp"
#include "host/data.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"

#if CLFORGE_HAVE_CLFFT
#include <clFFT.h>
#endif

namespace clforge::bench {

// Transforms whose error is checked: first, last and evenly spread between, at least 8 and
// enough to hold 2^16 points (at most 1024 transforms). The error is the largest over the
// sample, so a sample of 8 short transforms is a noisy statistic (n = 32: 256 points); every
// library is checked on the same sample.
std::vector<std::size_t> sample_of(std::size_t batch, std::size_t n) {
  const std::size_t count = std::min(batch, std::clamp<std::size_t>((std::size_t{1} << 16) / n, 8, 1024));
  std::vector<std::size_t> s{0};
  for (std::size_t k = 1; k < count; ++k) s.push_back(batch * k / count);
  s.push_back(batch - 1);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// Largest relative L2 error over the sampled transforms against FFTW (NaN when an output is
// not finite); read(b, x, y) fills the input x and output y of transform b (n complex each).
double sampled_error(const FftCase& c, const std::function<void(std::size_t, float*, float*)>& read, bool inverse) {
  double worst = 0;
  std::vector<float> x(2 * c.n), y(2 * c.n);
  for (std::size_t b : sample_of(c.batch, c.n)) {
    read(b, x.data(), y.data());
    const auto ref = host::fftw_batch(x.data(), c.n, 1, 1, c.n, 0, inverse);
    const host::FftError e = host::fft_compare(y.data(), c.n, 1, 1, c.n, 0, ref);
    if (e.nonfinite) return std::nan("");
    worst = std::max(worst, e.max_rel_l2);
  }
  return worst;
}

// The same for contiguous transforms in OpenCL buffers.
double sampled_error(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c) {
  return sampled_error(c, [&](std::size_t b, float* x, float* y) {
    detail::check(q.enqueueReadBuffer(in, CL_TRUE, b * c.n * 8, c.n * 8, x), "clEnqueueReadBuffer");
    detail::check(q.enqueueReadBuffer(out, CL_TRUE, b * c.n * 8, c.n * 8, y), "clEnqueueReadBuffer");
  });
}

void poison_buffer(cl::CommandQueue& q, const cl::Buffer& b, std::size_t bytes) {
  const float nan = std::nanf("");
  detail::check(q.enqueueFillBuffer(b, nan, 0, bytes), "clEnqueueFillBuffer");
  detail::check(q.finish(), "clFinish");
}

Record make_record(const std::string& library, const FftCase& c) {
  Record r = Record::of("fft", library, c.label());
  r.bytes = 2.0 * 8.0 * static_cast<double>(c.n) * static_cast<double>(c.batch);
  r.flops = c.n > 1 ? 5.0 * c.n * std::log2(static_cast<double>(c.n)) * c.batch : 0.0;
  return r;
}

// The progress line of a record; `note` follows the library ("round 2/3").
void report_line(const Record& r, const std::string& note) {
  const std::string library = note.empty() ? r.library : r.library + " (" + note + ")";
  char line[360];
  if (r.status.rfind("ok", 0) == 0)
    std::snprintf(line, sizeof line, "fft %s %s: %.4f ms, %.1f GB/s, %.1f GFLOP/s, error %.2e%s", r.shape.c_str(),
                  library.c_str(), r.timing.median_ms, r.gbps(), r.gflops(), r.error, r.status.c_str() + 2);
  else
    std::snprintf(line, sizeof line, "fft %s %s: %s", r.shape.c_str(), library.c_str(), r.status.c_str());
  progress(line);
}

namespace {

std::vector<FftCase> cases_of(const BenchOptions& opt, const DeviceInfo& dev) {
  std::vector<std::size_t> lengths;
  std::vector<FftCase> out;
  auto add = [&](std::size_t n, std::size_t bytes) {
    const std::size_t limit = dev.max_alloc_size != 0 ? dev.max_alloc_size : bytes;
    bytes = std::min(bytes, limit);
    out.push_back({n, std::max<std::size_t>(1, bytes / (8 * n))});
  };
  if (!opt.sizes.empty()) {
    for (const auto& s : opt.sizes) {
      // "N" (64 MiB batch), "NxB" (explicit batch) or "N@MIB" (batch of MIB mebibytes)
      const auto x = s.find('x'), at = s.find('@');
      try {
        if (x != std::string::npos)
          out.push_back({std::stoul(s.substr(0, x)), std::stoul(s.substr(x + 1))});
        else if (at != std::string::npos)
          add(std::stoul(s.substr(0, at)), std::stoul(s.substr(at + 1)) << 20);
        else
          add(std::stoul(s), std::size_t{64} << 20);
      } catch (const std::exception&) {
        throw InvalidArgument("fft size '" + s + "': expected N, NxBATCH or N@MIB");
      }
      if (out.back().n == 0 || out.back().batch == 0)
        throw InvalidArgument("fft size '" + s + "': zero length or batch");
    }
    return out;
  }
  if (opt.quick) {
    for (std::size_t n : {16, 256, 1024, 4096, 1000, 1009, 65536}) add(n, std::size_t{16} << 20);
    return out;
  }
  // CPU devices: lengths up to 2^16 (the longer multi-pass ones run at a few percent of the copy
  // bandwidth there and VkFFT crashes on them; they would double a full run's time).
  const std::size_t max_log2 = dev.type == "CPU" ? 16 : 20;
  for (std::size_t k = 3; k <= max_log2; ++k) lengths.push_back(std::size_t{1} << k);
  for (std::size_t n : {1000, 3000, 4095, 1009, 65537}) lengths.push_back(n);
  // CPU devices: the 64 MiB batches only (the 512 MiB ones would take tens of minutes there,
  // peers included, and show nothing the 64 MiB ones do not).
  std::vector<std::size_t> totals{std::size_t{64} << 20};
  if (dev.type != "CPU") totals.push_back(std::size_t{512} << 20);
  for (std::size_t bytes : totals)
    for (std::size_t n : lengths) add(n, bytes);
  return out;
}

Record run_clforge(Session& s, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c, const BenchOptions& opt) {
  Record r = make_record("clforge", c);
  try {
    FftDesc d;
    d.n = c.n;
    d.batch = c.batch;
    const FftPlan plan(s.queue, d, opt.tuning);
    poison_buffer(s.queue, out, c.n * c.batch * 8);
    plan.forward(in, out);
    detail::check(s.queue.finish(), "clFinish");
    r.error = sampled_error(s.queue, in, out, c);
    if (!(r.error <= host::fft_tolerance(c.n)))
      r.status = "failed: error " + std::to_string(r.error) + " above the tolerance " +
                 std::to_string(host::fft_tolerance(c.n));
    r.params["plan"] = plan.describe();
    nlohmann::json cfgs = nlohmann::json::array();
    for (const auto& cfg : plan.configurations()) {
      nlohmann::json j = params_json(cfg);
      j["variant"] = cfg.variant;
      cfgs.push_back(j);
    }
    r.params["kernels"] = cfgs;
    r.timing = time_region(
        s.queue, [&] { plan.forward(in, out); }, opt.plan);
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  return r;
}

// One library's rounds of a case as one record: the median of the rounds' medians (each in
// round_medians_ms), the least and greatest repetition over all rounds, the median of the
// rounds' quartiles (the spread within a round), the repetitions summed, the first round's
// error and parameters; a round that did not time (refused, failed) makes the record its status.
Record merge_rounds(const std::vector<Record>& rounds) {
  Record m = rounds.front();
  if (rounds.size() == 1) return m;
  std::vector<double> medians, q1, q3;
  for (const Record& r : rounds) {
    if (r.status.rfind("ok", 0) != 0) {
      m.status = r.status;
      m.timing = {};
      return m;
    }
    medians.push_back(r.timing.median_ms);
    q1.push_back(r.timing.q1_ms);
    q3.push_back(r.timing.q3_ms);
  }
  m.timing = detail::summarize(medians);
  m.timing.q1_ms = detail::summarize(q1).median_ms;
  m.timing.q3_ms = detail::summarize(q3).median_ms;
  m.timing.reps = 0;
  for (const Record& r : rounds) {
    m.timing.min_ms = std::min(m.timing.min_ms, r.timing.min_ms);
    m.timing.max_ms = std::max(m.timing.max_ms, r.timing.max_ms);
    m.timing.reps += r.timing.reps;
  }
  m.round_medians_ms = medians;
  return m;
}

}  // namespace

std::vector<std::string> fft_sizes(const BenchOptions& opt, const DeviceInfo& dev) {
  std::vector<std::string> out;
  for (const FftCase& c : cases_of(opt, dev)) out.push_back(std::to_string(c.n) + "x" + std::to_string(c.batch));
  return out;
}
std::size_t fft_cases(const BenchOptions& opt, const DeviceInfo& dev) { return cases_of(opt, dev).size(); }

int bench_rounds(const BenchOptions& opt, const DeviceInfo& dev) {
  return opt.rounds > 0 ? opt.rounds : dev.type == "CPU" && !opt.quick ? 3 : 1;
}

void bench_fft(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks) {
  const std::vector<FftCase> cases = cases_of(opt, s.entry.info);
  const int rounds = bench_rounds(opt, s.entry.info);
  const ProgressScope scope(cases.size());
#if CLFORGE_HAVE_CLFFT
  clfftSetupData setup;
  clfftInitSetupData(&setup);
  const bool clfft_ok = clfftSetup(&setup) == CLFFT_SUCCESS;
#endif
  for (const FftCase& c : cases) {
    progress_step();
    // The libraries of a case, each run on the same input (made again after a library that
    // needs the memory to itself released it).
    cl::Buffer in, out;
    using Run = std::function<Record()>;
    std::vector<Run> libraries;
    libraries.push_back([&] { return run_clforge(s, in, out, c, opt); });
#if CLFORGE_HAVE_CLFFT
    if (clfft_ok) libraries.push_back([&] { return run_clfft(s, in, out, c, opt.plan); });
#endif
#if CLFORGE_BENCH_CUDA
    libraries.push_back([&] { return run_cufft(s, in, c, opt.plan); });
#endif
#if CLFORGE_HAVE_FFTWF
    std::shared_ptr<FftwCaseState> fftw;  // the plan and host arrays of this case's rounds
    if (s.entry.info.type == "CPU") libraries.push_back([&] { return run_fftw(fftw, s, in, c, opt.plan); });
#endif
#if CLFORGE_HAVE_VKFFT
    libraries.push_back([&] {
      in = cl::Buffer();
      out = cl::Buffer();
      return s.entry.info.type == "GPU" ? run_vkfft_here(s, c, opt) : run_vkfft_child(s, c, opt);
    });
#endif
    // Rounds in turn (round k starts with library k): on a device whose speed drifts (a
    // shared CPU) no library always meets the same conditions, and the median over the
    // rounds decides. A library that refused the case is not asked again.
    std::vector<std::vector<Record>> results(libraries.size());
    for (int k = 0; k < rounds; ++k)
      for (std::size_t j = 0; j < libraries.size(); ++j) {
        const std::size_t i = (j + static_cast<std::size_t>(k)) % libraries.size();
        if (!results[i].empty() && results[i].front().status.rfind("refused", 0) == 0) continue;
        if (in() == nullptr) {
          cl_int st = CL_SUCCESS;
          in = random_buffer(s.context, s.queue, 2 * c.n * c.batch, 1234 + c.n);
          out = cl::Buffer(s.context, CL_MEM_READ_WRITE, c.n * c.batch * 8, nullptr, &st);
          detail::check(st, "clCreateBuffer", "fft benchmark output");
        }
        Record r = libraries[i]();
        if (rounds > 1 && r.status.rfind("refused", 0) != 0)
          report_line(r, "round " + std::to_string(k + 1) + "/" + std::to_string(rounds));
        results[i].push_back(std::move(r));
      }
    for (const auto& rs : results) {
      const Record r = merge_rounds(rs);
      report_line(r, rs.size() > 1 ? "median of " + std::to_string(rs.size()) + " rounds" : "");
      if (r.library == "clforge" && peaks.copy_gbps > 0 && r.status == "ok") {
        char line[160];
        std::snprintf(line, sizeof line, "    %.0f%% of the copy bandwidth %.1f GB/s", 100 * r.gbps() / peaks.copy_gbps,
                      peaks.copy_gbps);
        progress(line);
      }
      report.add(r);
    }
  }
#if CLFORGE_HAVE_CLFFT
  if (clfft_ok) clfftTeardown();
#endif
}

}  // namespace clforge::bench
