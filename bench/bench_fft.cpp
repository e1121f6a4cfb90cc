// clforge's batched FFT against clFFT and VkFFT (OpenCL backend) on the same device in the same
// run: out-of-place forward transforms of contiguous batches of random data, all timed alike
// between marker kernels (clFFT and VkFFT may enqueue several kernels), with effective bandwidth
// 2 * bytes / time and 5 n log2 n flops per transform. On NVIDIA devices cuFFT runs on the same
// data (built with CLFORGE_WITH_CUDA; cudaEvent timing). clforge's and the peers' errors are
// checked against FFTW (double) on a sample of transforms.
//
// On CPU devices VkFFT runs in a child process (this executable, `bench fft-vkfft-child`): a
// crash inside VkFFT (seen on PoCL at n = 131072) becomes a "failed" row instead of ending the
// benchmark. On GPUs it runs in this process (see run_vkfft_here).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <sstream>

#include "bench/fft_child.hpp"
#include "bench/routines.hpp"
#include "clforge/fft.hpp"
#include "host/data.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"

#if CLFORGE_HAVE_CLFFT
#include <clFFT.h>
#endif
#if CLFORGE_BENCH_CUDA
#include "bench/cuda_runtime.hpp"
#endif
#include "bench/vkfft_include.hpp"

namespace clforge::bench {

namespace {

struct FftCase {
  std::size_t n = 0, batch = 0;
  std::string label() const { return "n=" + std::to_string(n) + " batch=" + std::to_string(batch); }
};

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
double sampled_error(const FftCase& c, const std::function<void(std::size_t, float*, float*)>& read) {
  double worst = 0;
  std::vector<float> x(2 * c.n), y(2 * c.n);
  for (std::size_t b : sample_of(c.batch, c.n)) {
    read(b, x.data(), y.data());
    const auto ref = host::fftw_batch(x.data(), c.n, 1, 1, c.n, 0, false);
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
void report_line(const Record& r, const std::string& note = "") {
  const std::string library = note.empty() ? r.library : r.library + " (" + note + ")";
  char line[360];
  if (r.status.rfind("ok", 0) == 0)
    std::snprintf(line, sizeof line, "fft %s %s: %.4f ms, %.1f GB/s, %.1f GFLOP/s, error %.2e%s", r.shape.c_str(),
                  library.c_str(), r.timing.median_ms, r.gbps(), r.gflops(), r.error, r.status.c_str() + 2);
  else
    std::snprintf(line, sizeof line, "fft %s %s: %s", r.shape.c_str(), library.c_str(), r.status.c_str());
  progress(line);
}

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
        if (x != std::string::npos) out.push_back({std::stoul(s.substr(0, x)), std::stoul(s.substr(x + 1))});
        else if (at != std::string::npos) add(std::stoul(s.substr(0, at)), std::stoul(s.substr(at + 1)) << 20);
        else add(std::stoul(s), std::size_t{64} << 20);
      } catch (const std::exception&) {
        throw InvalidArgument("fft size '" + s + "': expected N, NxBATCH or N@MIB");
      }
      if (out.back().n == 0 || out.back().batch == 0) throw InvalidArgument("fft size '" + s + "': zero length or batch");
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

#if CLFORGE_HAVE_CLFFT
const char* clfft_status_name(clfftStatus s) {
  switch (s) {
    case CLFFT_SUCCESS: return "ok";
    case CLFFT_NOTIMPLEMENTED: return "CLFFT_NOTIMPLEMENTED";
    case CLFFT_INVALID_PLAN: return "CLFFT_INVALID_PLAN";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED: return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    default: return "clFFT error";
  }
}

Record run_clfft(Session& s, const cl::Buffer& in, const cl::Buffer& out, const FftCase& c, const TimingPlan& plan) {
  Record r = make_record("clFFT", c);
  clfftPlanHandle h = 0;
  std::size_t len[1] = {c.n};
  auto fail = [&](const char* what, clfftStatus st) {
    r.status = std::string("refused: ") + what + " returned " + clfft_status_name(st) + " (" + std::to_string(st) + ")";
  };
  clfftStatus st = clfftCreateDefaultPlan(&h, s.context(), CLFFT_1D, len);
  if (st != CLFFT_SUCCESS) {
    fail("clfftCreateDefaultPlan", st);
    return r;
  }
  std::size_t dist = c.n;
  clfftSetPlanPrecision(h, CLFFT_SINGLE);
  clfftSetLayout(h, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
  clfftSetResultLocation(h, CLFFT_OUTOFPLACE);
  clfftSetPlanBatchSize(h, c.batch);
  clfftSetPlanDistance(h, dist, dist);
  cl_command_queue q = s.queue();
  st = clfftBakePlan(h, 1, &q, nullptr, nullptr);
  if (st != CLFFT_SUCCESS) {
    fail("clfftBakePlan", st);
    clfftDestroyPlan(&h);
    return r;
  }
  std::size_t tmp_bytes = 0;
  clfftGetTmpBufSize(h, &tmp_bytes);
  cl::Buffer tmp;
  if (tmp_bytes > 0) tmp = cl::Buffer(s.context, CL_MEM_READ_WRITE, tmp_bytes);
  cl_mem bin = in(), bout = out();
  auto enqueue = [&] {
    const clfftStatus e = clfftEnqueueTransform(h, CLFFT_FORWARD, 1, &q, 0, nullptr, nullptr, &bin, &bout,
                                                tmp_bytes ? tmp() : nullptr);
    if (e != CLFFT_SUCCESS) throw Error(std::string("clfftEnqueueTransform: ") + clfft_status_name(e));
  };
  try {
    poison_buffer(s.queue, out, c.n * c.batch * 8);
    enqueue();
    detail::check(s.queue.finish(), "clFinish");
    r.error = sampled_error(s.queue, in, out, c);
    r.timing = time_region(s.queue, enqueue, plan);
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  clfftDestroyPlan(&h);
  return r;
}
#endif

#if CLFORGE_BENCH_CUDA
// cuFFT of CUDA 11-13 (libcufft.so.10-12) with its libcudart, loaded at run time.
struct Cufft : cuda::Library {
  int (*plan_many)(int*, int, int*, int*, int, int, int*, int, int, int, int) = nullptr;
  int (*exec_c2c)(int, void*, void*, int) = nullptr;
  int (*destroy)(int) = nullptr;
  Cufft()
      : cuda::Library(
            cuda::open_library({{"13", "libcufft.so.12"}, {"12", "libcufft.so.11"}, {"11", "libcufft.so.10"}})) {
    if (!problem.empty()) return;
    bind(plan_many, "cufftPlanMany");
    bind(exec_c2c, "cufftExecC2C");
    bind(destroy, "cufftDestroy");
  }
};
const Cufft& cufft() {
  static const Cufft* c = new Cufft;
  return *c;
}

std::string cufft_result(int r) {
  static const char* const names[] = {"CUFFT_SUCCESS",      "CUFFT_INVALID_PLAN",  "CUFFT_ALLOC_FAILED",
                                      "CUFFT_INVALID_TYPE", "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR",
                                      "CUFFT_EXEC_FAILED",  "CUFFT_SETUP_FAILED",  "CUFFT_INVALID_SIZE"};
  return (r >= 0 && r < 9 ? std::string(names[r]) + " " : std::string()) + "(" + std::to_string(r) + ")";
}

// cuFFT on the same input as clforge (read back from `in`): out-of-place forward C2C of the
// contiguous batch on the default stream, checked on sampled transforms, timed with cudaEvents.
Record run_cufft(Session& s, const cl::Buffer& in, const FftCase& c, const TimingPlan& plan) {
  Record r = make_record("cuFFT", c);
  r.status = cuda::refusal(s.entry.info, cufft);
  if (!r.status.empty()) return r;
  const Cufft& cf = cufft();
  if (c.n > 0x7fffffff || c.batch > 0x7fffffff) {
    r.status = "refused: n or batch does not fit cufftPlanMany's int";
    return r;
  }
  const std::size_t bytes = c.n * c.batch * 8;
  std::vector<float> x(2 * c.n * c.batch);
  detail::check(s.queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, x.data()), "clEnqueueReadBuffer");
  const cuda::Runtime& rt = *cf.runtime;
  cuda::DeviceBuffer din(rt, bytes), dout(rt, bytes);
  if (!din.upload(x.data(), bytes) || !dout.poison(bytes)) {
    r.status = "refused: cudaMalloc/cudaMemcpy of " + std::to_string(bytes) + " bytes failed";
    return r;
  }
  int handle = 0, n = static_cast<int>(c.n);
  const int planned = cf.plan_many(&handle, 1, &n, nullptr, 1, n, nullptr, 1, n, 0x29 /* CUFFT_C2C */,
                                   static_cast<int>(c.batch));
  if (planned != 0) {
    r.status = "refused: cufftPlanMany returned " + cufft_result(planned);
    return r;
  }
  const auto exec = [&] {
    const int e = cf.exec_c2c(handle, din.get(), dout.get(), -1 /* CUFFT_FORWARD */);
    if (e != 0) throw Error("cufftExecC2C returned " + cufft_result(e));
  };
  try {
    exec();
    if (rt.device_synchronize() != 0) throw Error("cudaDeviceSynchronize failed");
    r.error = sampled_error(c, [&](std::size_t b, float* xb, float* yb) {
      std::memcpy(xb, x.data() + 2 * b * c.n, c.n * 8);
      if (!dout.download(yb, c.n * 8, b * c.n * 8)) throw Error("cudaMemcpy failed");
    });
    r.timing = cuda::time_events(rt, exec, plan);
    r.status = "ok (cudaEvent timing, " + cf.from + ")";
  } catch (const Error& e) {
    r.status = std::string("failed: ") + e.what();
  }
  cf.destroy(handle);
  return r;
}
#endif

std::string self_exe() {
  char buf[4096];
  const ssize_t len = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (len <= 0) return {};
  buf[len] = '\0';
  return buf;
}

// Reads the answer line "VKFFT ok <median> <min> <max> <reps> <error>" or "VKFFT <why>" into r.
void read_vkfft_answer(const std::string& line, Record& r) {
  std::istringstream in(line.substr(line.find("VKFFT ") + 6));
  std::string status;
  in >> status;
  if (status == "ok") {
    in >> r.timing.median_ms >> r.timing.min_ms >> r.timing.max_ms >> r.timing.reps >> r.error;
  } else {
    std::string rest;
    std::getline(in, rest);
    r.status = status + rest;
  }
}

// Runs VkFFT for one case in a child process and turns its one-line answer into a Record.
Record run_vkfft_child(Session& s, const FftCase& c, const BenchOptions& opt) {
  Record r = make_record("VkFFT", c);
  const std::string exe = self_exe();
  if (exe.empty()) {
    r.status = "failed: cannot find this executable to run VkFFT in a child process";
    return r;
  }
  std::ostringstream cmd;
  cmd << "'" << exe << "' --device " << s.entry.info.index_string() << " bench fft-vkfft-child --n " << c.n
      << " --batch " << c.batch << " --reps " << opt.plan.min_reps << " --min-ms " << opt.plan.min_time_ms
      << " --warmup " << opt.plan.warmup << " --region-ms " << opt.plan.region_ms << " 2>&1";
  std::FILE* p = ::popen(cmd.str().c_str(), "r");
  if (p == nullptr) {
    r.status = "failed: popen";
    return r;
  }
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) text += buf;
  const int st = ::pclose(p);
  const auto pos = text.find("VKFFT ");
  if (pos == std::string::npos) {
    // The child's last output line says why (its stderr is merged into the pipe).
    std::string last;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);)
      if (!l.empty() && l.find("warning") == std::string::npos) last = l;
    const int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (st != -1 && WIFSIGNALED(st))
      r.status = "failed: VkFFT child crashed (signal " + std::to_string(WTERMSIG(st)) + ")";
    else if (code > 128)  // the shell between us reports the child's signal as 128 + signal
      r.status = "failed: VkFFT child crashed (signal " + std::to_string(code - 128) + ")";
    else
      r.status = "failed: VkFFT child exited with status " + std::to_string(st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : st);
    if (!last.empty()) r.status += ": " + last.substr(0, 300);
    return r;
  }
  read_vkfft_answer(text.substr(pos), r);
  return r;
}

// Runs VkFFT for one case in this process. GPUs: a driver may give the device to one process
// at a time (the H100's NVIDIA OpenCL showed no device to a child while this process held a
// context), and VkFFT's crash was seen on a CPU device only.
Record run_vkfft_here(Session& s, const FftCase& c, const BenchOptions& opt) {
  Record r = make_record("VkFFT", c);
  read_vkfft_answer(vkfft_answer(s, c.n, c.batch, opt.plan), r);
  return r;
}

}  // namespace

std::string vkfft_answer(Session& s, std::size_t n, std::size_t batch, const TimingPlan& plan) {
  char line[256];
#if CLFORGE_HAVE_VKFFT
  const FftCase c{n, batch};
  const std::size_t bytes = n * batch * 8;
  cl::Buffer in = random_buffer(s.context, s.queue, 2 * n * batch, 1234 + n);
  cl::Buffer out(s.context, CL_MEM_READ_WRITE, bytes);
  cl_device_id dev = s.entry.device();
  cl_context ctx = s.context();
  cl_platform_id plat = s.entry.platform();
  cl_command_queue q = s.queue();
  cl_mem bin = in(), bout = out();
  VkFFTConfiguration cfg = {};
  VkFFTApplication app = {};
  cfg.FFTdim = 1;
  cfg.size[0] = n;
  cfg.numberBatches = batch;
  cfg.device = &dev;
  cfg.context = &ctx;
  cfg.platform = &plat;
  std::uint64_t buffer_size = bytes;
  cfg.bufferSize = &buffer_size;
  cfg.inputBufferSize = &buffer_size;
  cfg.isInputFormatted = 1;  // out of place: read inputBuffer, write buffer
  cfg.inputBuffer = &bin;
  cfg.buffer = &bout;
  cfg.makeForwardPlanOnly = 1;
  const VkFFTResult init = initializeVkFFT(&app, cfg);
  if (init != VKFFT_SUCCESS) {
    std::snprintf(line, sizeof line, "VKFFT refused: initializeVkFFT returned %d", static_cast<int>(init));
    return line;
  }
  VkFFTLaunchParams lp = {};
  lp.commandQueue = &q;
  lp.inputBuffer = &bin;
  lp.buffer = &bout;
  auto enqueue = [&] {
    const VkFFTResult e = VkFFTAppend(&app, -1, &lp);
    if (e != VKFFT_SUCCESS) throw Error("VkFFTAppend returned " + std::to_string(static_cast<int>(e)));
  };
  try {
    poison_buffer(s.queue, out, bytes);
    enqueue();
    detail::check(s.queue.finish(), "clFinish");
    const double err = sampled_error(s.queue, in, out, c);
    const Timing t = time_region(s.queue, enqueue, plan);
    std::snprintf(line, sizeof line, "VKFFT ok %.6f %.6f %.6f %d %.6e", t.median_ms, t.min_ms, t.max_ms, t.reps, err);
  } catch (const std::exception& e) {
    std::snprintf(line, sizeof line, "VKFFT failed: %.200s", e.what());
  }
  deleteVkFFT(&app);
#else
  (void)s, (void)n, (void)batch, (void)plan;
  std::snprintf(line, sizeof line, "VKFFT refused: built without VkFFT");
#endif
  return line;
}

int fft_vkfft_child(Session& s, std::size_t n, std::size_t batch, const TimingPlan& plan) {
  std::printf("%s\n", vkfft_answer(s, n, batch, plan).c_str());
  std::fflush(stdout);
  return 0;
}

namespace {

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
      nlohmann::json j = nlohmann::json::object();
      j["variant"] = cfg.variant;
      for (const auto& [k, v] : cfg.values) j[k] = {{"value", v}, {"source", cfg.sources.at(k)}};
      cfgs.push_back(j);
    }
    r.params["kernels"] = cfgs;
    r.timing = time_region(s.queue, [&] { plan.forward(in, out); }, opt.plan);
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  return r;
}

// One library's rounds of a case as one record: the median of the rounds' medians, the least
// and greatest repetition over all rounds, the repetitions summed, the first round's error and
// parameters, each round's median in params["round_medians_ms"]; a round that did not time
// (refused, failed) makes the record its status.
Record merge_rounds(const std::vector<Record>& rounds) {
  Record m = rounds.front();
  if (rounds.size() == 1) return m;
  std::vector<double> medians;
  for (const Record& r : rounds) {
    if (r.status.rfind("ok", 0) != 0) {
      m.status = r.status;
      m.timing = {};
      return m;
    }
    medians.push_back(r.timing.median_ms);
  }
  m.timing = detail::summarize(medians);
  m.timing.reps = 0;
  for (const Record& r : rounds) {
    m.timing.min_ms = std::min(m.timing.min_ms, r.timing.min_ms);
    m.timing.max_ms = std::max(m.timing.max_ms, r.timing.max_ms);
    m.timing.reps += r.timing.reps;
  }
  m.params["round_medians_ms"] = medians;
  return m;
}

}  // namespace

int bench_rounds(const BenchOptions& opt, const DeviceInfo& dev) {
  return opt.rounds > 0 ? opt.rounds : dev.type == "CPU" && !opt.quick ? 3 : 1;
}

void bench_fft(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks) {
  const std::vector<FftCase> cases = cases_of(opt, s.entry.info);
  const int rounds = bench_rounds(opt, s.entry.info);
#if CLFORGE_HAVE_CLFFT
  clfftSetupData setup;
  clfftInitSetupData(&setup);
  const bool clfft_ok = clfftSetup(&setup) == CLFFT_SUCCESS;
#endif
  for (const FftCase& c : cases) {
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
