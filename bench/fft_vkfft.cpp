// VkFFT (OpenCL backend) as a peer of `clforge bench fft` (C2C and R2C of 1 to 3 axes): on CPU
// devices in a child process (this executable, `bench fft-vkfft-child`), so that a crash inside
// VkFFT (seen on PoCL at n = 131072) becomes a "failed" row instead of ending the benchmark; on
// GPUs in-process.
#include "clforge/fft.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "bench/fft_child.hpp"
#include "bench/fft_peers.hpp"
#include "bench/vkfft_include.hpp"
#include "host/data.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"
#include "runtime/files.hpp"

namespace clforge::bench {

namespace {
// Reads the answer line "VKFFT ok <median> <min> <max> <reps> <error> <q1> <q3>" or
// "VKFFT <why>" into r.
void read_vkfft_answer(const std::string& line, Record& r) {
  std::istringstream in(line.substr(line.find("VKFFT ") + 6));
  std::string status;
  in >> status;
  if (status == "ok") {
    std::string error;  // strtod reads "nan" (an output that was not finite), operator>> does not
    in >> r.timing.median_ms >> r.timing.min_ms >> r.timing.max_ms >> r.timing.reps >> error >> r.timing.q1_ms >>
        r.timing.q3_ms;
    if (!in) {
      r.timing = {};
      r.status = "failed: unreadable answer from the VkFFT child process: " + line.substr(0, line.find('\n'));
    } else {
      r.error = std::strtod(error.c_str(), nullptr);
    }
  } else {
    std::string rest;
    std::getline(in, rest);
    r.status = status + rest;
  }
}

// Runs VkFFT for one case in a child process and turns its one-line answer into a Record.
}  // namespace

Record run_vkfft_child(Session& s, const FftCase& c, const BenchOptions& opt) {
  Record r = make_record("VkFFT", c);
  const std::string exe = detail::own_executable();
  if (exe.empty()) {
    r.status = "failed: cannot find this executable to run VkFFT in a child process";
    return r;
  }
  std::ostringstream cmd;
  cmd << "'" << exe << "' --device " << s.entry.info.index_string() << " bench fft-vkfft-child --size " << c.text()
      << " --reps " << opt.plan.min_reps << " --min-ms " << opt.plan.min_time_ms << " --warmup " << opt.plan.warmup
      << " --region-ms " << opt.plan.region_ms << " 2>&1";
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
      r.status =
          "failed: VkFFT child exited with status " + std::to_string(st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : st);
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
  read_vkfft_answer(vkfft_answer(s, c, opt.plan), r);
  return r;
}

#if CLFORGE_HAVE_VKFFT
namespace {
// The configuration of a case: VkFFT lists the axes fastest first; out of place
// (isInputFormatted: read inputBuffer, write buffer), rows contiguous (a real row unpadded:
// n_last floats, its output n_last/2 + 1 complex values, VkFFT's default for `buffer`; the
// strides of the slower axes and the batch follow from the first as products of the lengths).
void vkfft_configure(VkFFTConfiguration& cfg, const FftCase& c) {
  const std::size_t rank = c.shape.size();
  cfg.FFTdim = rank;
  for (std::size_t k = 0; k < rank; ++k) cfg.size[k] = c.shape[rank - 1 - k];
  cfg.numberBatches = c.batch;
  cfg.isInputFormatted = 1;
  if (c.real) {
    cfg.performR2C = 1;
    cfg.inputBufferStride[0] = c.shape.back();
  }
  cfg.makeForwardPlanOnly = 1;
}
}  // namespace
#endif

std::string vkfft_answer(Session& s, const FftCase& c, const TimingPlan& plan) {
  char line[256];
#if CLFORGE_HAVE_VKFFT
  cl::Buffer in = random_buffer(s.context, s.queue, c.in_floats() * c.batch, 1234 + c.points());
  cl::Buffer out(s.context, CL_MEM_READ_WRITE, c.out_bytes());
  cl_device_id dev = s.entry.device();
  cl_context ctx = s.context();
  cl_platform_id plat = s.entry.platform();
  cl_command_queue q = s.queue();
  cl_mem bin = in(), bout = out();
  VkFFTConfiguration cfg = {};
  VkFFTApplication app = {};
  vkfft_configure(cfg, c);
  cfg.device = &dev;
  cfg.context = &ctx;
  cfg.platform = &plat;
  std::uint64_t buffer_size = c.out_bytes(), input_size = c.in_bytes();
  cfg.bufferSize = &buffer_size;
  cfg.inputBufferSize = &input_size;
  cfg.inputBuffer = &bin;
  cfg.buffer = &bout;
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
    poison_buffer(s.queue, out, c.out_bytes());
    enqueue();
    detail::check(s.queue.finish(), "clFinish");
    const double err = sampled_error(s.queue, in, out, c);
    const Timing t = time_region(s.queue, enqueue, plan);
    std::snprintf(line, sizeof line, "VKFFT ok %.6f %.6f %.6f %d %.6e %.6f %.6f", t.median_ms, t.min_ms, t.max_ms,
                  t.reps, err, t.q1_ms, t.q3_ms);
  } catch (const std::exception& e) {
    std::snprintf(line, sizeof line, "VKFFT failed: %.200s", e.what());
  }
  deleteVkFFT(&app);
#else
  (void)s, (void)c, (void)plan;
  std::snprintf(line, sizeof line, "VKFFT refused: built without VkFFT");
#endif
  return line;
}

int fft_vkfft_child(Session& s, const std::string& size, const TimingPlan& plan) {
  std::printf("%s\n", vkfft_answer(s, FftCase::parse(size), plan).c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace clforge::bench
