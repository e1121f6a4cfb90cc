// Peak probes (see peak.hpp). Kernels in cl/bench/peak.cl, built through the library's
// program cache like every other kernel.
#include "bench/peak.hpp"

#include <algorithm>

#include "runtime/errors.hpp"
#include "runtime/launch.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge::bench {

namespace {
detail::KernelSpec peak_spec() {
  detail::KernelSpec s;
  s.name = "peak";
  s.files = {"bench/peak.cl"};
  return s;
}
}  // namespace

Peaks measure_peaks(Session& s, Report& report, std::size_t bytes, bool with_flop_ladder) {
  Peaks peaks;
  const ProgressScope scope(1);
  progress_step();
  const std::size_t floats = bytes / 4 / 4 * 4;
  cl::Buffer in = random_buffer(s.context, s.queue, floats, 17);
  cl_int st = CL_SUCCESS;
  cl::Buffer out(s.context, CL_MEM_READ_WRITE, floats * 4, nullptr, &st);
  detail::check(st, "clCreateBuffer", "peak output");
  const detail::QueueContext qc = detail::queue_context_of(s.queue);
  const std::string shape = std::to_string(floats * 4 >> 20) + " MiB";

  {
    Record r = Record::of("peak", "clEnqueueCopyBuffer", shape);
    r.bytes = 2.0 * floats * 4;
    r.timing = time_event(s.queue, [&] {
      cl::Event e;
      detail::check(s.queue.enqueueCopyBuffer(in, out, 0, 0, floats * 4, nullptr, &e), "clEnqueueCopyBuffer");
      return e;
    });
    peaks.copy_gbps = std::max(peaks.copy_gbps, r.gbps());
    progress("peak copy (clEnqueueCopyBuffer) " + shape + ": " + std::to_string(r.gbps()) + " GB/s");
    report.add(r);
  }
  const int ladder[] = {0, 3, 6, 24};
  for (int extra : ladder) {
    if (!with_flop_ladder && extra != 0) continue;
    Configuration cfg;
    cfg.kernel = "peak";
    const cl::Program prog = detail::get_program(qc, peak_spec(), cfg, "-DPEAK_EXTRA_FLOPS=" + std::to_string(extra));
    cl::Kernel k = detail::get_kernel(prog, "peak_copy");
    detail::set_args(k, in, out, 1.0001f, 0.5f);
    Record r = Record::of("peak", extra == 0 ? "copy kernel" : "copy+" + std::to_string(extra) + " flop", shape);
    r.bytes = 2.0 * floats * 4;
    r.flops = static_cast<double>(extra) * floats;
    r.timing = time_event(s.queue, [&] {
      cl::Event e;
      detail::launch(s.queue, k, cl::NDRange(floats / 4), cl::NullRange, nullptr, &e);
      return e;
    });
    if (extra == 0) peaks.copy_gbps = std::max(peaks.copy_gbps, r.gbps());
    progress("peak " + r.library + " " + shape + ": " + std::to_string(r.gbps()) + " GB/s");
    report.add(r);
  }
  {
    Configuration cfg;
    cfg.kernel = "peak";
    const int iters = 256;
    const cl::Program prog = detail::get_program(qc, peak_spec(), cfg, "-DPEAK_ITERS=" + std::to_string(iters));
    cl::Kernel k = detail::get_kernel(prog, "peak_fma");
    const std::size_t items = std::max<std::size_t>(s.entry.info.compute_units, 1) * 8192;
    cl::Buffer sink(s.context, CL_MEM_WRITE_ONLY, items * 4, nullptr, &st);
    detail::check(st, "clCreateBuffer", "fma sink");
    detail::set_args(k, sink, 0.9999f, 0.0001f);
    Record r = Record::of("peak", "fma", std::to_string(items) + " work-items");
    r.flops = 2.0 * 16 * iters * items;
    r.timing = time_event(s.queue, [&] {
      cl::Event e;
      detail::launch(s.queue, k, cl::NDRange(items), cl::NullRange, nullptr, &e);
      return e;
    });
    peaks.fma_gflops = r.gflops();
    progress("peak fma: " + std::to_string(r.gflops()) + " GFLOP/s");
    report.add(r);
  }
  return peaks;
}

}  // namespace clforge::bench
