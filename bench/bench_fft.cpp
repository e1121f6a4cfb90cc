// clforge's batched FFTs against clFFT and VkFFT (OpenCL backend) on the same device in the same
// run: out-of-place forward transforms of contiguous batches of random data, all timed alike
// between marker kernels (clFFT and VkFFT may enqueue several kernels). Four kinds of case:
// complex 1-D (FftPlan), real-input 1-D (RealFftPlan, R2C), complex 2-D, 3-D (FftNdPlan) and
// real-input 2-D, 3-D (RealFftNdPlan, R2C); effective bandwidth is bytes read + written / time,
// flops 5 N log2 N per complex transform of N points (2.5 N log2 N per R2C). On NVIDIA devices
// cuFFT runs on the same data (libcufft loaded at run time; cudaEvent timing), on CPU devices
// FFTW float on the host (threaded; host clock). clforge's and the peers' errors are checked
// against FFTW (double) on a sample of transforms.
//
// Each peer's runner has its own file (fft_clfft.cpp, fft_cufft.cpp, fft_fftw.cpp,
// fft_vkfft.cpp: VkFFT in a child process on CPU devices); this file holds the cases, clforge's
// runner, the rounds and the shared error check.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

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

FftCase FftCase::of(const Size& z, std::size_t max_alloc) {
  if (z.interleaved)
    throw InvalidArgument("fft size '" + z.text() + "': the FFT benchmark measures contiguous batches (no layout key)");
  FftCase c;
  c.shape = z.fft_shape();
  c.real = z.real;
  const std::size_t per = 4 * std::max(c.in_floats(), c.out_floats());  // bytes of the larger buffer per transform
  if (z.batch != 0) {
    c.batch = z.batch;
  } else {
    std::size_t bytes = z.mib != 0 ? z.mib << 20 : std::size_t{64} << 20;
    if (max_alloc != 0) bytes = std::min(bytes, max_alloc);
    c.batch = std::max<std::size_t>(1, bytes / per);
  }
  if (c.batch > std::numeric_limits<std::size_t>::max() / per)
    throw InvalidArgument("fft size '" + z.text() + "': the batch's bytes do not fit a size_t");
  return c;
}

FftCase FftCase::parse(const std::string& text, std::size_t max_alloc) {
  return of(parse_size("fft", text), max_alloc);
}

std::size_t FftCase::points() const {
  std::size_t p = 1;
  for (std::size_t n : shape) p *= n;  // the grammar keeps the product below 2^31
  return p;
}
std::size_t FftCase::in_floats() const { return real ? points() : 2 * points(); }
std::size_t FftCase::out_floats() const {
  if (!real) return 2 * points();
  const std::size_t last = shape.back();
  return 2 * (points() / last) * (last / 2 + 1);
}

std::string FftCase::label() const {
  std::string dims;
  for (std::size_t n : shape) dims += (dims.empty() ? "" : "x") + std::to_string(n);
  const std::string rank = shape.size() > 1 ? std::to_string(shape.size()) + "-D " : "";
  return (real ? "real " : "") + rank + "n=" + dims + " batch=" + std::to_string(batch);
}

std::string FftCase::text() const {
  std::string dims;
  for (std::size_t n : shape) dims += (dims.empty() ? "" : "x") + std::to_string(n);
  return dims + ",batch=" + std::to_string(batch) + (real ? ",real" : "");
}

double FftCase::tolerance() const {
  double t = 0;
  for (std::size_t n : shape) t += host::fft_tolerance(n);
  return t;
}

// Transforms whose error is checked: first, last and evenly spread between, at least 8 and
// enough to hold 2^16 points (at most 1024 transforms). The error is the largest over the
// sample, so a sample of 8 short transforms is a noisy statistic (n = 32: 256 points); every
// library is checked on the same sample.
std::vector<std::size_t> sample_of(std::size_t batch, std::size_t points) {
  const std::size_t count = std::min(batch, std::clamp<std::size_t>((std::size_t{1} << 16) / points, 8, 1024));
  std::vector<std::size_t> s{0};
  for (std::size_t k = 1; k < count; ++k) s.push_back(batch * k / count);
  s.push_back(batch - 1);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

namespace {
// FFTW's result in double for one transform's input x: the complex transform of its axes, or
// for a real case the complex transform of x taken as complex values with zero imaginary parts,
// of each row along the last axis its first n_last/2 + 1 values (the layout of the R2C output).
std::vector<host::cdouble> reference_of(const FftCase& c, const std::vector<float>& x, bool inverse) {
  if (!c.real) return host::fftw_nd(x.data(), c.shape, inverse);
  const std::size_t n = c.points(), last = c.shape.back(), half = last / 2 + 1;
  std::vector<float> z(2 * n, 0.0f);
  for (std::size_t k = 0; k < n; ++k) z[2 * k] = x[k];
  const std::vector<host::cdouble> full = host::fftw_nd(z.data(), c.shape, inverse);
  std::vector<host::cdouble> ref;
  ref.reserve(n / last * half);
  for (std::size_t row = 0; row < n / last; ++row)
    ref.insert(ref.end(), full.begin() + static_cast<std::ptrdiff_t>(row * last),
               full.begin() + static_cast<std::ptrdiff_t>(row * last + half));
  return ref;
}
}  // namespace

double sampled_error(const FftCase& c, const std::function<void(std::size_t, float*, float*)>& read, bool inverse) {
  double worst = 0;
  std::vector<float> x(c.in_floats()), y(c.out_floats());
  for (std::size_t b : sample_of(c.batch, c.points())) {
    read(b, x.data(), y.data());
    const auto ref = reference_of(c, x, inverse);
    const std::size_t m = ref.size();
    const host::FftError e = host::fft_compare(y.data(), m, 1, 1, m, 0, ref);
    if (e.nonfinite) return std::nan("");
    worst = std::max(worst, e.max_rel_l2);
  }
  return worst;
}

// The same for contiguous transforms in OpenCL buffers.
double sampled_error(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c) {
  const std::size_t ib = 4 * c.in_floats(), ob = 4 * c.out_floats();
  return sampled_error(c, [&](std::size_t b, float* x, float* y) {
    detail::check(q.enqueueReadBuffer(in, CL_TRUE, b * ib, ib, x), "clEnqueueReadBuffer");
    detail::check(q.enqueueReadBuffer(out, CL_TRUE, b * ob, ob, y), "clEnqueueReadBuffer");
  });
}

void poison_buffer(cl::CommandQueue& q, const cl::Buffer& b, std::size_t bytes) {
  const float nan = std::nanf("");
  detail::check(q.enqueueFillBuffer(b, nan, 0, bytes), "clEnqueueFillBuffer");
  detail::check(q.finish(), "clFinish");
}

Record make_record(const std::string& library, const FftCase& c) {
  Record r = Record::of("fft", library, c.label());
  const double n = static_cast<double>(c.points());
  r.bytes = static_cast<double>(c.in_bytes()) + static_cast<double>(c.out_bytes());
  r.flops = n > 1 ? (c.real ? 2.5 : 5.0) * n * std::log2(n) * static_cast<double>(c.batch) : 0.0;
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

// The default list's real and N-D cases (the complex 1-D ones: cases_of). GPUs: R2C at the
// complex rows' lengths, 64 MiB; CPU devices and quick: fewer lengths, and smaller N-D shapes.
// Each N-D shape is measured complex and real (R2C).
std::vector<std::string> real_and_nd_sizes(const BenchOptions& opt, const DeviceInfo& dev,
                                           const std::vector<std::size_t>& lengths) {
  std::vector<std::string> out, nd;
  if (opt.quick) {
    for (const char* n : {"256", "1024", "1000"}) out.push_back(std::string(n) + ",mib=16,real");
    nd = {"64x64,batch=16", "256x256,batch=1", "100x100,batch=1", "32x32x32,batch=1"};
  } else if (dev.type == "CPU") {
    for (std::size_t n : {16, 64, 256, 1024, 4096, 16384, 65536, 1000, 1009})
      out.push_back(std::to_string(n) + ",real");
    nd = {"1024x1024,batch=1", "1000x1000,batch=1", "128x128x128,batch=1", "256x256,batch=64"};
  } else {
    for (std::size_t n : lengths) out.push_back(std::to_string(n) + ",real");
    nd = {"1024x1024,batch=1", "4096x4096,batch=1",   "8192x8192,batch=1",
          "1000x1000,batch=1", "256x256x256,batch=1", "256x256,batch=64"};
  }
  out.insert(out.end(), nd.begin(), nd.end());
  for (const std::string& t : nd) out.push_back(t + ",real");
  return out;
}

std::vector<FftCase> cases_of(const BenchOptions& opt, const DeviceInfo& dev) {
  std::vector<FftCase> out;
  const std::size_t limit = dev.max_alloc_size;
  if (!opt.sizes.empty()) {
    for (const auto& s : opt.sizes) out.push_back(FftCase::parse(s, limit));
    return out;
  }
  const auto add = [&](std::size_t n, std::size_t mib) {
    out.push_back(FftCase::parse(std::to_string(n) + ",mib=" + std::to_string(mib), limit));
  };
  std::vector<std::size_t> lengths;
  if (opt.quick) {
    for (std::size_t n : {16, 256, 1024, 4096, 1000, 1009, 65536}) add(n, 16);
  } else {
    // CPU devices: lengths up to 2^16 (the longer multi-pass ones run at a few percent of the copy
    // bandwidth there and VkFFT crashes on them; they would double a full run's time).
    const std::size_t max_log2 = dev.type == "CPU" ? 16 : 20;
    for (std::size_t k = 3; k <= max_log2; ++k) lengths.push_back(std::size_t{1} << k);
    for (std::size_t n : {1000, 3000, 4095, 1009, 65537}) lengths.push_back(n);
    // CPU devices: the 64 MiB batches only (the 512 MiB ones would take tens of minutes there,
    // peers included, and show nothing the 64 MiB ones do not).
    std::vector<std::size_t> totals{64};
    if (dev.type != "CPU") totals.push_back(512);
    for (std::size_t mib : totals)
      for (std::size_t n : lengths) add(n, mib);
  }
  for (const std::string& t : real_and_nd_sizes(opt, dev, lengths)) {
    const FftCase c = FftCase::parse(t, limit);
    if (limit == 0 || std::max(c.in_bytes(), c.out_bytes()) <= limit) out.push_back(c);  // 8192^2 on a small GPU
  }
  return out;
}

// clforge's plan of a case (FftPlan, RealFftPlan, FftNdPlan or RealFftNdPlan): its forward call,
// description and kernel configurations (none listed for N-D plans).
struct ClforgeFft {
  std::function<void(const cl::Buffer&, const cl::Buffer&)> forward;
  std::string describe;
  nlohmann::json kernels;
};

template <class Plan>
ClforgeFft clforge_fft_of(const Plan& plan) {
  ClforgeFft f{[plan](const cl::Buffer& in, const cl::Buffer& out) { plan.forward(in, out); }, plan.describe(),
               nullptr};
  if constexpr (!std::is_same_v<Plan, FftNdPlan> && !std::is_same_v<Plan, RealFftNdPlan>) {
    f.kernels = nlohmann::json::array();
    for (const auto& cfg : plan.configurations()) {
      nlohmann::json j = params_json(cfg);
      j["variant"] = cfg.variant;
      f.kernels.push_back(j);
    }
  }
  return f;
}

ClforgeFft clforge_fft(Session& s, const FftCase& c, const Tuning& tuning) {
  if (c.real && c.shape.size() > 1) {
    RealFftNdDesc d;  // contiguous row-major: points() floats in, the half spectrum's rows out
    d.shape = c.shape;
    d.batch = c.batch;
    return clforge_fft_of(RealFftNdPlan(s.queue, d, tuning));
  }
  if (c.real) {
    RealFftDesc d;  // contiguous rows: n floats in, n/2 + 1 complex values out
    d.n = c.points();
    d.batch = c.batch;
    return clforge_fft_of(RealFftPlan(s.queue, d, tuning));
  }
  if (c.shape.size() > 1) {
    FftNdDesc d;
    d.shape = c.shape;
    d.batch = c.batch;
    return clforge_fft_of(FftNdPlan(s.queue, d, tuning));
  }
  FftDesc d;
  d.n = c.points();
  d.batch = c.batch;
  return clforge_fft_of(FftPlan(s.queue, d, tuning));
}

Record run_clforge(Session& s, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c, const BenchOptions& opt) {
  Record r = make_record("clforge", c);
  try {
    const ClforgeFft plan = clforge_fft(s, c, opt.tuning);
    poison_buffer(s.queue, out, c.out_bytes());
    plan.forward(in, out);
    detail::check(s.queue.finish(), "clFinish");
    r.error = sampled_error(s.queue, in, out, c);
    r.params["plan"] = plan.describe;
    if (!plan.kernels.is_null()) r.params["kernels"] = plan.kernels;
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
  for (const FftCase& c : cases_of(opt, dev)) out.push_back(c.text());
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
    if (!opt.peers) libraries.resize(1);  // clforge alone
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
          in = random_buffer(s.context, s.queue, c.in_floats() * c.batch, 1234 + c.points());
          out = cl::Buffer(s.context, CL_MEM_READ_WRITE, c.out_bytes(), nullptr, &st);
          detail::check(st, "clCreateBuffer", "fft benchmark output");
        }
        Record r = libraries[i]();
        if (rounds > 1 && r.status.rfind("refused", 0) != 0)
          report_line(r, "round " + std::to_string(k + 1) + "/" + std::to_string(rounds));
        results[i].push_back(std::move(r));
      }
    for (const auto& rs : results) {
      Record r = merge_rounds(rs);
      // Every library's result against the same tolerance (an error of -1: not checked).
      if (r.status.rfind("ok", 0) == 0 && r.error != -1 && !(r.error <= c.tolerance()))
        r.status = "failed: error " + std::to_string(r.error) + " above the tolerance " + std::to_string(c.tolerance());
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
