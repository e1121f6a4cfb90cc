// Core commands: devices, info, params, peak, and `run/bench transpose`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "bench/peak.hpp"
#include "group/group_store.hpp"
#include "host/data.hpp"
#include "host/reference.hpp"
#include "runtime/program_cache.hpp"
#include "tools/cli.hpp"
#include "tuning/spec.hpp"

namespace clforge::cli {
namespace {

void cmd_devices() {
  const auto all = list_devices();
  if (all.empty()) {
    std::cout << "no OpenCL device found\n";
    return;
  }
  std::printf("%-5s %-7s %-5s %-22s %-40s %5s %6s %9s %9s  %s\n", "index", "vendor", "type", "architecture", "name",
              "CUs", "MHz", "local KiB", "mem MiB", "platform / driver");
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& d = all[i].info;
    std::printf(
        "%-5s %-7s %-5s %-22s %-40s %5u %6u %9llu %9llu  %s / %s\n", d.index_string().c_str(), d.vendor_key().c_str(),
        d.type.c_str(), d.architecture.empty() ? "-" : d.architecture.c_str(), d.name.substr(0, 40).c_str(),
        d.compute_units, d.max_clock_mhz, static_cast<unsigned long long>(d.local_mem_size / 1024),
        static_cast<unsigned long long>(d.global_mem_size >> 20), d.platform_name.c_str(), d.driver_version.c_str());
    std::printf("      max work-group %zu, max alloc %llu MiB, local memory %s\n", d.max_work_group_size,
                static_cast<unsigned long long>(d.max_alloc_size >> 20),
                d.local_mem_dedicated ? "dedicated" : "global");
  }
}

void cmd_info(Globals& g, bool timings) {
  std::cout << "clforge " << version_string << "\n";
  const SourceDirs dirs = source_dirs();
  std::cout << "kernel sources, in lookup order:\n"
            << "  CLFORGE_KERNEL_DIR: " << (dirs.override_dir.empty() ? "(unset)" : dirs.override_dir) << "\n"
            << "  share dir:          " << (dirs.share_dir.empty() ? "(none)" : dirs.share_dir) << " ["
            << dirs.share_status << "]\n"
            << "  embedded:           " << dirs.embedded.size() << " files, each read from:\n";
  // The same list as the count: every embedded file and where it is read from now.
  for (const auto& f : dirs.embedded) std::cout << "    " << f << " <- " << load_kernel_source(f).origin << "\n";
  const std::string cd = cache_dir();
  std::cout << "compile cache: " << (cd.empty() ? "off (CLFORGE_CACHE_DIR=off)" : cd) << "\n";
  std::cout << "user tuning database dir: " << user_tuning_dir() << "\n";
  if (const char* tf = std::getenv("CLFORGE_TUNING_FILE")) std::cout << "CLFORGE_TUNING_FILE: " << tf << "\n";
  auto devs = list_devices();
  for (const auto& d : devs) {
    const std::string p = user_database_path(d.info);
    std::FILE* f = std::fopen(p.c_str(), "r");
    if (f) {
      std::fclose(f);
      std::cout << "  user database for \"" << d.info.name << "\": " << p << "\n";
    }
  }
  if (!timings) return;
  // Build every kernel family with its resolved defaults and say where each program came from.
  Session& s = g.session();
  std::cout << "program builds on \"" << s.entry.info.name << "\":\n";
  const detail::QueueContext qc = detail::queue_context_of(s.queue);
  for (const auto& spec : detail::all_kernel_specs()) {
    for (const std::string& variant : spec.variants.empty() ? std::vector<std::string>{"*"} : spec.variants) {
      const Configuration cfg = resolve_configuration(spec.name, variant, s.entry.info, g.tuning());
      const CacheStats before = cache_stats();
      const auto t0 = std::chrono::steady_clock::now();
      std::string extra;
      if (spec.name == "transpose") extra = "-DTRA_ELEM_SIZE=" + variant;
      detail::get_program(qc, spec, cfg, extra);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const CacheStats after = cache_stats();
      const char* how = after.compiles > before.compiles     ? "compiled"
                        : after.disk_hits > before.disk_hits ? "disk cache"
                                                             : "memory";
      std::printf("  %-12s variant %-4s %-10s %8.1f ms\n", spec.name.c_str(), variant.c_str(), how, ms);
    }
  }
  const CacheStats st = cache_stats();
  std::printf("  total: %llu compiled (%.1f ms), %llu from disk cache (%.1f ms), %llu rejected cache entries\n",
              static_cast<unsigned long long>(st.compiles), st.compile_ms,
              static_cast<unsigned long long>(st.disk_hits), st.disk_load_ms,
              static_cast<unsigned long long>(st.disk_rejected));
}

// The kernels `name` stands for: a routine's kernels (transpose, sgemm, fft, blur), else the
// kernel of that name.
std::vector<const detail::KernelSpec*> kernels_named(const std::string& name) {
  std::vector<const detail::KernelSpec*> found;
  const auto& routines = routine_names();
  const bool routine = std::find(routines.begin(), routines.end(), name) != routines.end();
  std::string kernels;
  for (const auto& spec : detail::all_kernel_specs()) {
    if (routine ? family_of(spec.name) == name : spec.name == name) found.push_back(&spec);
    kernels += (kernels.empty() ? "" : ", ") + spec.name;
  }
  if (found.empty()) {
    std::string r;
    for (const auto& n : routines) r += (r.empty() ? "" : ", ") + n;
    throw UsageError("params: unknown routine or kernel '" + name + "' (routines: " + r + "; kernels: " + kernels +
                     ")");
  }
  return found;
}

// A routine's group calls on the device: chunk size and queues with their origin (the group
// store's record, else the shipped table), and Auto's rates stored per size class.
void print_group_settings(const DeviceInfo& dev, const std::string& routine, const Tuning& t) {
  const bool store = detail::group_store_enabled(t);
  const detail::ChunkChoice c = detail::chunk_choice(dev, routine, store);
  std::cout << "group calls (" << routine << "; clforge tune group, docs/group.md)\n";
  std::printf("  chunk KiB = %-5d  %s\n", c.chunk_kib, c.chunk_source.c_str());
  std::printf("  queues    = %-5d  %s\n", c.queues, c.queues_source.c_str());
  if (!store) return;
  for (const auto& [key, r] : detail::group_records(dev))
    if (key.rfind(routine + ":", 0) == 0)
      std::printf("  auto %s: rate %.1f MB/s, alone %.1f, split %.1f, share %d %%\n", key.c_str(), r.rate, r.alone,
                  r.split, r.share ? r.share : 100);
}

void cmd_params(Globals& g, const std::string& name, const std::string& variant) {
  const auto kernels = kernels_named(name);
  if (!variant.empty() &&
      std::none_of(kernels.begin(), kernels.end(), [&](const auto* k) { return k->knows_variant(variant); })) {
    std::string all;
    for (const auto* k : kernels)
      for (const auto& v : k->variants) all += (all.empty() ? "" : ", ") + v;
    throw UsageError("params " + name + ": no kernel has variant '" + variant + "' (variants: " + all + ")");
  }
  Session& s = g.session();
  const Tuning t = g.tuning();
  const DeviceInfo& dev = s.entry.info;
  std::cout << name << " on \"" << dev.name << "\" [" << dev.vendor_key() << ", "
            << (dev.architecture.empty() ? "-" : dev.architecture) << "]: " << kernels.size() << " kernel"
            << (kernels.size() == 1 ? "" : "s") << "\n";
  for (const auto* k : kernels) {
    const std::string v = !variant.empty() && k->knows_variant(variant) ? variant
                          : k->variants.empty()                         ? "*"
                                                                        : k->variants.front();
    const Configuration cfg = resolve_configuration(k->name, v, dev, t);
    std::string variants;
    for (const auto& x : k->variants) variants += (variants.empty() ? "" : ", ") + x;
    std::cout << "kernel " << k->name << " (variant " << v
              << (variants.empty() ? "" : "; variants " + variants + ", --variant V") << ")\n";
    int width = 10;
    for (const auto& p : k->params) width = std::max(width, static_cast<int>(p.name.size()));
    for (const auto& p : k->params)
      std::printf("  %-*s = %-5d  %s\n", width, p.name.c_str(), cfg.values.at(p.name), cfg.sources.at(p.name).c_str());
    for (const auto& n : cfg.notes) std::cout << "  note: " << n << "\n";
    std::cout << "  build options: " << detail::build_options(cfg, {}) << "\n";
  }
  const auto& routines = routine_names();
  if (std::find(routines.begin(), routines.end(), name) != routines.end()) print_group_settings(dev, name, t);
}

void cmd_peak(Globals& g) {
  Session& s = g.session();
  bench::Report report(s.entry.info);
  const std::size_t bytes = g.quick ? (16u << 20) : (256u << 20);
  const bench::Peaks p = bench::measure_peaks(s, report, std::min<std::size_t>(bytes, s.entry.info.max_alloc_size / 2));
  finish_report(report, g);
  std::printf("copy bandwidth %.1f GB/s, FMA throughput %.1f GFLOP/s\n", p.copy_gbps, p.fma_gflops);
  // Stored for the lookup: where the device has no rows of its own, the rows of the devices
  // nearest by peaks apply (docs/tuning.md).
  if (p.copy_gbps <= 0 || p.fma_gflops <= 0) return;
  try {
    store_device_peaks(s.entry.info, p.copy_gbps, p.fma_gflops);
    std::printf("peaks stored in %s\n", user_database_path(s.entry.info).c_str());
  } catch (const TuningError& e) {
    std::fprintf(stderr, "peaks not stored: %s\n", e.what());
  }
}

void cmd_bench_transpose(Globals& g) {
  Session& s = g.session();
  bench::Report report(s.entry.info);
  const bench::Peaks p = bench::routine_peaks(s, report, g.quick);
  bench::bench_transpose(s, report, g.bench_options("transpose"), p);
  finish_report(report, g);
}

void cmd_bench_overhead(Globals& g) {
  Session& s = g.session();
  bench::Report report(s.entry.info);
  bench::bench_overhead(s, report);
  char line[320];
  std::string table;
  std::snprintf(line, sizeof line, "%-46s %10s %12s %9s %15s %18s\n", "call (repeated back to back)", "host us",
                "device us", "commands", "launches us", "host us - launches");
  table += line;
  for (const auto& r : report.records()) {
    std::snprintf(line, sizeof line, "%-46s %10.2f %12.2f %9.1f %15.2f %18.2f\n", r.shape.c_str(),
                  r.params["host_us_per_call"].get<double>(), r.params["device_span_us_per_call"].get<double>(),
                  r.params["commands_per_call"].get<double>(), r.params["launches_alone_us_per_call"].get<double>(),
                  r.params["host_us_beyond_launches"].get<double>());
    table += line;
  }
  if (!report.records().empty()) {
    std::snprintf(line, sizeof line,
                  "(launches us: the call's recorded argument bindings and kernel launches replayed alone; one "
                  "empty kernel enqueue: %.2f us)\n",
                  report.records()[0].params["empty_launch_us"].get<double>());
    table += line;
  }
  finish_report(report, g, table);
}

void cmd_run_transpose(Globals& g, const std::string& size) {
  const Size z = parse_size("transpose", size);
  const std::size_t rows = z.x, cols = z.y, elem = z.elem;
  if (!g.split.devices.empty() || g.split.mpi) {
    bench::SplitCase c;
    c.routine = "transpose";
    c.x = rows, c.y = cols, c.elem = elem;
    return run_on_group(g, c);
  }
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(rows, cols, &bytes) || __builtin_mul_overflow(bytes, elem, &bytes))
    throw InvalidArgument("run transpose: " + std::to_string(rows) + " x " + std::to_string(cols) + " elements of " +
                          std::to_string(elem) + " bytes do not fit in memory");
  Session& s = g.session();
  if (bytes > s.entry.info.max_alloc_size)
    throw Error("run transpose: " + std::to_string(bytes >> 20) + " MiB is larger than the device's largest buffer (" +
                std::to_string(s.entry.info.max_alloc_size >> 20) + " MiB)");
  const std::size_t n = bytes / 4;
  cl::Buffer in = bench::random_buffer(s.context, s.queue, n, host::default_seed());
  cl::Buffer out(s.context, CL_MEM_READ_WRITE, n * 4);
  std::vector<float> poison = host::poisoned(n), got(n), src(n), ref(n);
  s.queue.enqueueWriteBuffer(out, CL_TRUE, 0, n * 4, poison.data());
  s.queue.enqueueReadBuffer(in, CL_TRUE, 0, n * 4, src.data());
  const Tuning t = g.tuning();
  cl::Event ev;
  transpose(s.queue, rows, cols, elem, {in, 0, cols}, {out, 0, rows}, {}, &ev, t);
  ev.wait();
  s.queue.enqueueReadBuffer(out, CL_TRUE, 0, n * 4, got.data());
  host::transpose(rows, cols, elem, src.data(), cols, ref.data(), rows);
  const bool exact = std::memcmp(got.data(), ref.data(), n * 4) == 0;
  const auto timing = bench::time_event(s.queue, [&] {
    cl::Event e;
    transpose(s.queue, rows, cols, elem, {in, 0, cols}, {out, 0, rows}, {}, &e, t);
    return e;
  });
  std::printf("transpose %zux%zu, %zu-byte elements on \"%s\": %.4f ms median, %.1f GB/s, result %s\n", rows, cols,
              elem, s.entry.info.name.c_str(), timing.median_ms, 2.0 * n * 4 / timing.median_ms / 1e6,
              exact ? "exact" : "WRONG");
  if (!exact) throw Error("transpose result differs from the host reference");
}

void register_core(Apps& apps, Globals& g) {
  apps.root->add_subcommand("devices", "list OpenCL devices with their identity")->callback([] { cmd_devices(); });

  auto* info = apps.root->add_subcommand("info", "version, kernel source origins, cache and tuning files");
  static bool timings = false;
  info->add_flag("--timings", timings, "build every kernel with its defaults and show compile vs cache times");
  info->callback([&g] { cmd_info(g, timings); });

  auto* params = apps.root->add_subcommand(
      "params", "effective parameters of a routine's kernels (or of one kernel) and where each came from");
  static std::string routine, variant;
  params
      ->add_option("routine", routine,
                   "routine (transpose, sgemm, fft, blur: all its kernels) or kernel name (e.g. sgemm_direct)")
      ->required();
  params->add_option(
      "--variant", variant,
      "variant, for the kernels that have it (transpose: element size 4/8/16, with :large from 16 MiB, "
      "4:large:odd off the float4 grid; sgemm: size class small/medium/large; fft: length; blur: channels 1/4)");
  params->callback([&g] { cmd_params(g, routine, variant); });

  auto* peak = apps.root->add_subcommand(
      "peak", "measure copy bandwidth and FMA throughput; store them in the user tuning database (lookup by peaks)");
  peak->add_flag("--quick", g.quick, "a smaller buffer and few repetitions");
  add_out_option(peak, g.out, "results.json, results.csv, report.md");
  peak->callback([&g] { cmd_peak(g); });

  auto* bt = apps.bench->add_subcommand("transpose", "clforge transpose vs CLBlast Omatcopy and copy bandwidth");
  add_bench_options(bt, g, "transpose");
  bt->callback([&g] { cmd_bench_transpose(g); });

  auto* bo = apps.bench->add_subcommand(
      "overhead", "host time per repeated small call (every routine) beside its device span and launch count");
  add_out_option(bo, g.out, "results.json, results.csv, report.md");
  bo->callback([&g] { cmd_bench_overhead(g); });

  auto* rt = apps.run->add_subcommand("transpose", "one transpose on random data, checked and timed");
  static std::string size = "4096";
  add_run_size_option(rt, size, "transpose", "matrix");
  add_split_options(rt, g.split, false);
  rt->callback([&g] { cmd_run_transpose(g, size); });
}

CLFORGE_CLI_COMMANDS(register_core);

}  // namespace
}  // namespace clforge::cli
