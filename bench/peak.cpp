// Peak probes (see peak.hpp): the copy probes on buffers larger than the last-level cache, the
// order of the probes, and the peaks as JSON. Kernels in bench/peak.cl, embedded into the bench
// library (not libclforge) and built through the library's program cache like every other kernel.
#include "bench/peak.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "bench/peak_internal.hpp"
#include "host/data.hpp"
#include "runtime/errors.hpp"
#include "runtime/files.hpp"
#include "runtime/launch.hpp"
#include "runtime/strings.hpp"

namespace clforge::bench {

namespace detail_peak {

cl::Program peak_program(Session& s, const std::string& options) {
  // bench/peak.cl is found in the bench library's own table (generated/bench_kernels.cpp); a
  // CLFORGE_KERNEL_DIR holding bench/peak.cl still overrides it.
  static const bool added = [] {
    std::size_t n = 0;
    const detail::EmbeddedFile* files = detail::bench_embedded_files(&n);
    detail::add_embedded_files(files, n);
    return true;
  }();
  (void)added;
  detail::KernelSpec spec;
  spec.name = "peak";
  spec.files = {"bench/peak.cl"};
  Configuration cfg;
  cfg.kernel = "peak";
  return detail::get_program(detail::queue_context_of(s.queue), spec, cfg, options);
}

std::string mib_text(double bytes) { return std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB"; }

}  // namespace detail_peak

namespace {

using detail_peak::mib_text;
using detail_peak::peak_program;

// "32768K", "1M", "512" (bytes) as in /sys/devices/system/cpu/cpu*/cache/index*/size.
double sysfs_size(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const char unit = end != nullptr ? *end : '\0';
  return unit == 'K' ? v * 1024 : unit == 'M' ? v * 1024 * 1024 : unit == 'G' ? v * 1024 * 1024 * 1024 : v;
}

// The last-level cache as the C library reads it from the processor (CPUID), for machines whose
// sysfs has no cache folders (some virtual machines): 0 when it does not say either.
double libc_llc_bytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long bytes = sysconf(name);
    if (bytes > 0) return static_cast<double>(bytes);
  }
  return 0;
}

// The host's last-level cache over every CPU: the caches of the highest level, each counted once
// (by the CPUs that share it); where sysfs does not say, what the C library reads.
double host_llc_bytes() {
  const std::string root = "/sys/devices/system/cpu/";
  std::map<std::string, double> top;  // shared_cpu_list -> size of the highest level seen
  int top_level = 0;
  DIR* d = opendir(root.c_str());
  if (d == nullptr) return libc_llc_bytes();
  while (const dirent* e = readdir(d)) {
    const std::string cpu = e->d_name;
    if (cpu.size() < 4 || cpu.compare(0, 3, "cpu") != 0 || cpu[3] < '0' || cpu[3] > '9') continue;
    for (int index = 0; index < 16; ++index) {
      const std::string dir = root + cpu + "/cache/index" + std::to_string(index) + "/";
      const auto level = detail::read_file(dir + "level");
      if (!level) break;
      const auto type = detail::read_file(dir + "type"), size = detail::read_file(dir + "size"),
                 shared = detail::read_file(dir + "shared_cpu_list");
      if (!type || !size || !shared || detail::trim(*type) == "Instruction") continue;
      const int l = std::atoi(level->c_str());
      if (l < top_level) continue;
      if (l > top_level) top.clear(), top_level = l;
      top[detail::trim(*shared)] = sysfs_size(detail::trim(*size));
    }
  }
  closedir(d);
  double sum = 0;
  for (const auto& [cpus, bytes] : top) sum += bytes;
  return sum > 0 ? sum : libc_llc_bytes();
}

// A buffer of random floats (never zeros, nothing a memory system could compress): up to 64 MiB
// written from the host, then repeated on the device (copies doubling the filled part).
cl::Buffer random_device_buffer(Session& s, std::size_t floats) {
  const std::size_t head = std::min<std::size_t>(floats, std::size_t{16} << 20);
  const std::vector<float> host = host::random_floats(head, 17);
  cl_int st = CL_SUCCESS;
  cl::Buffer b(s.context, CL_MEM_READ_WRITE, floats * 4, nullptr, &st);
  detail::check(st, "clCreateBuffer", "peak input of " + std::to_string(floats * 4) + " bytes");
  detail::check(s.queue.enqueueWriteBuffer(b, CL_TRUE, 0, head * 4, host.data()), "clEnqueueWriteBuffer");
  for (std::size_t done = head; done < floats; done += std::min(done, floats - done))
    detail::check(s.queue.enqueueCopyBuffer(b, b, 0, done * 4, std::min(done, floats - done) * 4),
                  "clEnqueueCopyBuffer");
  detail::check(s.queue.finish(), "clFinish");
  return b;
}

void copy_probes(Session& s, Report& report, Peaks& peaks, const PeakOptions& opt) {
  const DeviceInfo& dev = s.entry.info;
  const double cl_cache = static_cast<double>(s.entry.device.getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>());
  const double host_cache = dev.type == "CPU" ? host_llc_bytes() : 0;
  peaks.cache_bytes = std::max(cl_cache, host_cache);
  // GPUs report a first-level cache here, if anything (the H100: 4.3 MB beside a 50 MB L2), so
  // their buffers are at least 512 MiB.
  const std::size_t floor = (dev.type == "GPU" ? std::size_t{512} : std::size_t{64}) << 20;
  std::size_t bytes = std::max<std::size_t>({opt.copy_bytes, floor, static_cast<std::size_t>(4 * peaks.cache_bytes)});
  if (dev.max_alloc_size > 0) bytes = std::min<std::size_t>(bytes, dev.max_alloc_size);
  if (dev.global_mem_size > 0) bytes = std::min<std::size_t>(bytes, dev.global_mem_size / 4);
  const std::size_t floats = bytes / 4 / 4 * 4;
  peaks.copy_bytes = static_cast<double>(floats) * 4;
  cl::Buffer in = random_device_buffer(s, floats);
  cl_int st = CL_SUCCESS;
  cl::Buffer out(s.context, CL_MEM_READ_WRITE, floats * 4, nullptr, &st);
  detail::check(st, "clCreateBuffer", "peak output");
  const std::string shape = mib_text(peaks.copy_bytes);
  const nlohmann::json params = {{"buffer_bytes", peaks.copy_bytes},
                                 {"cache_bytes", peaks.cache_bytes},
                                 {"cl_global_mem_cache_bytes", cl_cache},
                                 {"host_llc_bytes", host_cache > 0 ? nlohmann::json(host_cache) : nullptr}};
  {
    Record r = Record::of("peak", "clEnqueueCopyBuffer", shape);
    r.bytes = 2.0 * floats * 4;
    r.params = params;
    r.timing = time_event(s.queue, [&] {
      cl::Event e;
      detail::check(s.queue.enqueueCopyBuffer(in, out, 0, 0, floats * 4, nullptr, &e), "clEnqueueCopyBuffer");
      return e;
    });
    peaks.copy_gbps = std::max(peaks.copy_gbps, r.gbps());
    progress("peak copy (clEnqueueCopyBuffer) " + shape + ": " + std::to_string(r.gbps()) + " GB/s");
    report.add(r);
  }
  for (int extra : {0, 3, 6, 24}) {
    if (!opt.flop_ladder && extra != 0) continue;
    cl::Kernel k = detail::get_kernel(peak_program(s, "-DPEAK_EXTRA_FLOPS=" + std::to_string(extra)), "peak_copy");
    detail::set_args(k, in, out, 1.0001f, 0.5f);
    Record r = Record::of("peak", extra == 0 ? "copy kernel" : "copy+" + std::to_string(extra) + " flop", shape);
    r.bytes = 2.0 * floats * 4;
    r.flops = static_cast<double>(extra) * floats;
    r.params = params;
    r.timing = time_event(s.queue, [&] {
      cl::Event e;
      detail::launch(s.queue, k, cl::NDRange(floats / 4), cl::NullRange, nullptr, &e);
      return e;
    });
    if (extra == 0) peaks.copy_gbps = std::max(peaks.copy_gbps, r.gbps());
    progress("peak " + r.library + " " + shape + ": " + std::to_string(r.gbps()) + " GB/s");
    report.add(r);
  }
}

}  // namespace

Peaks measure_peaks(Session& s, Report& report, const PeakOptions& opt) {
  Peaks peaks;
  const ProgressScope scope(1);
  progress_step();
  copy_probes(s, report, peaks, opt);
  detail_peak::measure_fma(s, report, peaks, opt.quick_search);
  if (opt.transfers) {
    detail_peak::measure_transfers(s, report, peaks);
    detail_peak::measure_launch(s, report, peaks);
  }
  return peaks;
}

Peaks measure_peaks(Session& s, Report& report, std::size_t bytes, bool with_flop_ladder) {
  PeakOptions o;
  o.copy_bytes = bytes;
  o.flop_ladder = with_flop_ladder;
  o.transfers = with_flop_ladder;
  o.quick_search = !with_flop_ladder;
  return measure_peaks(s, report, o);
}

Peaks routine_peaks(Session& s, Report& report, bool quick) {
  const std::size_t bytes = quick ? std::size_t{16} << 20 : std::size_t{256} << 20;
  return measure_peaks(s, report, std::min<std::size_t>(bytes, s.entry.info.max_alloc_size / 2), false);
}

nlohmann::json peaks_json(const Peaks& p) {
  const auto v = [](double x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"copy_gbps", v(p.copy_gbps)},
          {"copy_buffer_bytes", v(p.copy_bytes)},
          {"cache_bytes", v(p.cache_bytes)},
          {"fma_gflops", v(p.fma_gflops)},
          {"fma_config", p.fma_config.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.fma_config)},
          {"h2d_gbps", v(p.h2d_gbps)},
          {"d2h_gbps", v(p.d2h_gbps)},
          {"both_directions_gbps", v(p.both_gbps)},
          {"launch_enqueue_us", v(p.launch_enqueue_us)},
          {"launch_gap_us", v(p.launch_gap_us)},
          {"launch_round_trip_us", v(p.launch_round_trip_us)}};
}

}  // namespace clforge::bench
