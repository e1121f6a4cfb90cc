// `clforge tune group ROUTINE`: the chunk size (KiB) and queue count of a routine's group calls
// searched per device on host data, timed as users run them (whole calls, host to host), every
// candidate's result checked; the fastest is stored in the group store (group_store.hpp, beside
// the user tuning databases) when it beats the current values by more than 2 %.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "group/group_store.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

struct TuneGroupArgs {
  std::string routine, size, devices;
  std::vector<int> chunks = {256, 1024, 4096, 8192, 16384, 65536};
  std::vector<int> queues = {1, 2, 3, 4};
  int reps = 3;
  bool pinned = false, no_store = false;
  double time_s = 0;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// Median of `reps` whole calls after a first one (plans, kernels), the output reset before each.
double median_ms(bench::HostJob& job, const DeviceGroup& group, const SplitOptions& o, int reps) {
  bench::TimingPlan plan;
  plan.warmup = 1;
  plan.min_reps = plan.max_reps = reps;
  plan.min_time_ms = 0;
  return detail::sample_runs(
             plan, {[&] {
               job.reset();
               const auto t0 = std::chrono::steady_clock::now();
               job.run(group, o);
               return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
             }})
      .front()
      .median_ms;
}

// Times the current choice and every candidate on one device alone; stores the fastest.
void tune_device(const TuneGroupArgs& a, const bench::SplitCase& c, const DeviceEntry& e, const Tuning& base) {
  const DeviceGroup group(std::vector<DeviceEntry>{e}, 4);
  auto job = bench::make_host_job(c, group);
  std::printf("tune group %s %s on \"%s\": chunk KiB x queues, median of %d whole calls\n", a.routine.c_str(),
              c.shape().c_str(), e.info.name.c_str(), a.reps);
  SplitOptions o;
  o.tuning = base;
  // Timed twice, the second counting: the first whole calls also build plans and programs.
  median_ms(*job, group, o, a.reps);
  const double current = median_ms(*job, group, o, a.reps);
  const detail::ChunkChoice now = detail::chunk_choice(e.info, a.routine, detail::group_store_enabled(base));
  std::printf("  current (%d KiB x %d queues): %.3f ms\n", now.chunk_kib, now.queues, current);
  double best = current;
  int best_kib = now.chunk_kib, best_q = now.queues;
  bool cut = false;
  for (int kib : a.chunks)
    for (int q : a.queues) {
      if (cut || std::chrono::steady_clock::now() >= a.deadline) {
        if (!cut) std::printf("  %6d KiB x %d and after: not measured, the time budget is spent\n", kib, q);
        cut = true;
        continue;
      }
      o.chunk_kib = static_cast<std::size_t>(kib);
      o.queues = static_cast<std::size_t>(q);
      const double ms = median_ms(*job, group, o, a.reps);
      const double err = job->error();
      const bool ok = err <= job->tolerance();
      std::printf("  %6d KiB x %d: %9.3f ms%s\n", kib, q, ms, ok ? "" : "  WRONG (left out)");
      if (ok && ms < best) best = ms, best_kib = kib, best_q = q;
    }
  if (best < current / 1.02 && !a.no_store) {
    detail::GroupRecord r;
    r.chunk_kib = best_kib, r.queues = best_q;
    detail::store_group_record(e.info, a.routine, r, detail::kFieldChunkKib | detail::kFieldQueues,
                               "tune group " + a.routine + " " + c.shape());
    std::printf("  stored %d KiB x %d queues (%.3f ms, %.2fx) in %s\n", best_kib, best_q, best, current / best,
                detail::group_store_path().c_str());
  } else {
    std::printf("  best %d KiB x %d queues (%.3f ms, %.2fx): %s\n", best_kib, best_q, best, current / best,
                a.no_store ? "nothing stored (--no-store)" : "not 2 % faster, nothing stored");
  }
}

void cmd_tune_group(Globals& g, const TuneGroupArgs& a) {
  const Size z = parse_size(a.routine, a.size);
  bench::SplitCase c;
  c.routine = a.routine;
  c.x = z.x, c.y = z.y, c.z = z.z;
  if (a.routine == "fft" && z.y != 0) throw UsageError("size '" + z.text() + "': device groups split 1-D FFT batches");
  if (a.routine == "fft") c.y = z.fft_batch(std::size_t{64} << 20);
  if (a.routine == "sgemm") c.trans_a = z.trans_a, c.trans_b = z.trans_b;
  if (a.routine == "transpose") c.elem = z.elem;
  if (a.routine == "blur") c.channels = z.channels;
  c.pinned = a.pinned;
  const std::vector<DeviceEntry> entries =
      a.devices.empty() ? std::vector<DeviceEntry>{g.session().entry} : select_devices(a.devices);
  const Tuning base = g.tuning();
  // Every candidate checked before anything is measured: an illegal value is a usage error.
  const auto& legal = detail::group_chunk_kib_legal();
  for (int kib : a.chunks)
    if (std::find(legal.begin(), legal.end(), kib) == legal.end())
      throw UsageError("tune group: chunk " + std::to_string(kib) +
                       " KiB is not legal (a power of two from 64 to 65536)");
  for (int q : a.queues)
    if (q < 1 || q > detail::kGroupQueuesMax)
      throw UsageError("tune group: " + std::to_string(q) + " queues are not legal (1.." +
                       std::to_string(detail::kGroupQueuesMax) + ")");
  for (const DeviceEntry& e : entries) tune_device(a, c, e, base);
}

void register_tune_group(Apps& apps, Globals& g) {
  static TuneGroupArgs a;
  auto* t = apps.tune->add_subcommand(
      "group", "chunk size and queue count of a routine's group calls (host data), per device, into the group store");
  t->add_option("routine", a.routine, "fft, sgemm, transpose or blur")
      ->required()
      ->check(CLI::IsMember({"fft", "sgemm", "transpose", "blur"}));
  t->add_option("--size", a.size, "one size in the run commands' grammar")->required();
  t->add_option("--devices", a.devices, "devices to tune, each alone (default: the -d device)");
  t->add_option("--chunks", a.chunks, "chunk sizes (KiB) to try")->delimiter(',')->capture_default_str();
  t->add_option("--queues", a.queues, "queue counts to try")->delimiter(',')->capture_default_str();
  t->add_option("--reps", a.reps, "timed calls per candidate (the median counts)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  t->add_flag("--pinned", a.pinned, "host arrays in pinned memory");
  t->add_flag("--no-store", a.no_store, "measure only");
  t->add_option("--time", a.time_s, "seconds: no candidate is measured after them (the fastest so far counts)")
      ->check(CLI::PositiveNumber);
  t->callback([&g] {
    if (a.time_s > 0)
      a.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(a.time_s));
    cmd_tune_group(g, a);
  });
}

CLFORGE_CLI_COMMANDS(register_tune_group);

}  // namespace

void tune_group(Globals& g, const std::string& routine, const std::string& size, bool store,
                std::chrono::steady_clock::time_point deadline) {
  TuneGroupArgs a;
  a.routine = routine;
  a.size = size;
  a.no_store = !store;
  a.deadline = deadline;
  cmd_tune_group(g, a);
}

}  // namespace clforge::cli
