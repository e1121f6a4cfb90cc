// Commands on a device group: the --devices options of `run ROUTINE` (run_on_group) and
// `bench split ROUTINE` (bench/split.hpp).
#include <cstdio>

#include "tools/cli.hpp"

namespace clforge::cli {

SplitOptions SplitArgs::options(const DeviceGroup& group, const Tuning& tuning) const {
  SplitOptions o;
  o.tuning = tuning;
  o.mode = parse_split_mode(split);
  if (!weights.empty() && cpu_percent >= 0) throw UsageError("give --weights or --cpu-percent, not both");
  if (!weights.empty() || cpu_percent >= 0) {
    if (o.mode == SplitMode::Dynamic) throw UsageError("--split dynamic takes no --weights or --cpu-percent");
    o.mode = SplitMode::Weights;
    o.weights = cpu_percent >= 0 ? cpu_percent_weights(group, cpu_percent) : weights;
    if (o.weights.size() != group.size())
      throw UsageError("--weights: " + std::to_string(o.weights.size()) + " given for " + std::to_string(group.size()) +
                       " devices (" + group.describe() + ")");
  } else if (o.mode == SplitMode::Weights) {
    throw UsageError("--split weights needs --weights or --cpu-percent");
  }
  o.chunk = chunk;
  o.queues = queues;
  o.staging = staging == "on" ? Staging::On : staging == "off" ? Staging::Off : Staging::Auto;
  o.overlap = !no_overlap;
  return o;
}

void add_split_options(CLI::App* app, SplitArgs& a, bool devices_required) {
  auto* d = app->add_option(
      "--devices", a.devices,
      "run on a group of devices, comma-separated selectors: all, gpu, cpu, a vendor, an index "
      "N or P:D, a name substring (each picks every device it matches); SELECTOR@N takes N compute units of "
      "it (e.g. nvidia,cpu@12: the CPU device on 12 cores, the rest left to the GPU's host copies)");
  if (devices_required) d->required();
  app->add_option("--split", a.split, "how the chunks go to the devices: auto (from a calibration), weights, dynamic")
      ->check(CLI::IsMember({"auto", "weights", "dynamic"}))
      ->capture_default_str();
  app->add_option("--weights", a.weights, "share of each device, in the group's order (e.g. 3,1)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  app->add_option("--cpu-percent", a.cpu_percent, "percent of the work for the CPU devices, the rest for the others")
      ->check(CLI::Range(0.0, 100.0));
  app->add_option("--chunk", a.chunk, "items per chunk: transforms, columns of C, rows (default: the group parameters)")
      ->check(size_range());
  app->add_option("--queues", a.queues, "queues (chunks in flight) per device, 1-8")->check(CLI::Range(1, 8));
  app->add_option("--staging", a.staging, "through pinned staging buffers: auto (GPUs), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app->add_flag("--no-overlap", a.no_overlap, "one chunk at a time per device (upload, compute, download)");
  app->add_flag("--mpi", a.mpi,
                "across the ranks of mpirun, each on its own --devices (per rank, separated by '|': 'nvidia|cpu')");
  app->add_option("--reps", a.reps, "timed calls (the median counts)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
}

void run_on_group(Globals& g, const bench::SplitCase& c) {
  if (g.split.mpi) return run_on_ranks(g, c, false);
  const DeviceGroup group(g.split.devices, std::max<std::size_t>(3, g.split.queues));
  if (!bench::run_split(group, c, g.split.options(group, g.tuning()), g.split.reps))
    throw Error("run " + c.routine + ": the group's result differs from the host reference");
}

namespace {

// A --size of `routine` as a group case (defaults of the run commands for what sizes leave out).
bench::SplitCase split_case(const std::string& routine, const std::string& text) {
  const Size z = parse_size(routine, text);
  bench::SplitCase c;
  c.routine = routine;
  c.x = z.x, c.y = z.y, c.z = z.z;
  if (routine == "fft" && z.y != 0) throw UsageError("size '" + z.text() + "': device groups split 1-D FFT batches");
  if (routine == "fft") c.y = z.fft_batch(std::size_t{64} << 20);
  if (routine == "sgemm") c.trans_a = z.trans_a, c.trans_b = z.trans_b;
  if (routine == "transpose") c.elem = z.elem;
  if (routine == "blur") c.channels = z.channels;
  return c;
}

void cmd_bench_split(Globals& g, const std::string& routine, double sigma, const std::string& method, bool pinned,
                     bool resident) {
  std::vector<std::string> sizes = g.sizes;
  if (sizes.empty()) {
    if (routine == "fft")
      sizes =
          g.quick ? std::vector<std::string>{"256,mib=4"} : std::vector<std::string>{"1024,mib=256", "65536,mib=256"};
    if (routine == "sgemm") sizes = {g.quick ? "256" : "4096"};
    if (routine == "transpose") sizes = {g.quick ? "512" : "8192"};
    if (routine == "blur") sizes = {g.quick ? "256x256" : "8192x8192"};
  }
  if (!g.split.mpi && g.split.devices.empty()) throw UsageError("bench split: --devices is required (or --mpi)");
  if (g.split.mpi) {
    for (const auto& text : sizes) {
      bench::SplitCase c = split_case(routine, text);
      c.sigma = sigma;
      c.method = parse_blur_method(method);
      run_on_ranks(g, c, true);
    }
    return;
  }
  const DeviceGroup group(g.split.devices, std::max<std::size_t>(3, g.split.queues));
  bench::Report report(group.entry(0).info);
  bench::SplitBenchOptions o;
  o.split = g.split.options(group, g.tuning());
  o.reps = g.split.reps;
  if (resident) {
    if (o.split.mode == SplitMode::Dynamic) throw UsageError("bench split --resident: weights or auto, not dynamic");
    o.split.resident_reps = g.split.reps;
  }
  std::printf("group: %s\n", group.describe().c_str());
  for (const auto& text : sizes) {
    bench::SplitCase c = split_case(routine, text);
    c.sigma = sigma;
    c.method = parse_blur_method(method);
    c.pinned = pinned;
    bench::bench_split(group, report, c, o);
  }
  finish_report(report, g, "\n");
}

void register_split(Apps& apps, Globals& g) {
  auto* b = apps.bench->add_subcommand(
      "split", "one job on a device group: the group against each device alone and without overlap, same run");
  static std::string routine, method = "auto";
  static double sigma = 5;
  static bool pinned = false, resident = false;
  b->add_option("routine", routine, "fft, sgemm, transpose or blur")
      ->required()
      ->check(CLI::IsMember({"fft", "sgemm", "transpose", "blur"}));
  b->add_option("--size", g.sizes, "sizes in the run commands' grammar (see `clforge run ROUTINE --help`)");
  b->add_flag("--quick", g.quick, "a small size");
  b->add_option("-s,--sigma", sigma, "blur: standard deviation in pixels")->capture_default_str();
  b->add_option("--method", method, "blur: auto, direct, separable, recursive")->capture_default_str();
  b->add_flag("--pinned", pinned, "the host arrays in pinned memory (PinnedMemory) instead of pageable vectors");
  b->add_flag("--resident", resident,
              "device-resident: each device's share uploaded once, then the median of --reps computations with every "
              "device at once (no transfers), against each device alone on the whole job");
  add_split_options(b, g.split, false);  // --devices: required unless --mpi (checked below)
  add_out_option(b, g.out, "results.json, results.csv, report.md");
  b->callback([&g] { cmd_bench_split(g, routine, sigma, method, pinned, resident); });
}

CLFORGE_CLI_COMMANDS(register_split);

}  // namespace
}  // namespace clforge::cli
