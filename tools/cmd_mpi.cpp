// `run ROUTINE --mpi` and `bench split ROUTINE --mpi` (clforge/mpi.hpp): rank 0 makes the case's
// host data (bench::HostJob), scatters each rank's slice, every rank runs its share on its own
// device group, rank 0 gathers the result and checks it against the host reference. The bench
// form also times every rank alone on the whole job, for the scaling efficiency.
#include <cstdio>

#include "tools/cli.hpp"

#ifdef CLFORGE_WITH_MPI
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cmath>

#include "clforge/mpi.hpp"
#endif

namespace clforge::cli {

#ifndef CLFORGE_WITH_MPI
void run_on_ranks(Globals&, const bench::SplitCase&, bool) {
  throw UsageError("--mpi: this clforge was built without MPI (install libopenmpi-dev and build again)");
}
#else
namespace {

// This rank's device group: its entry of --devices ('|' between ranks, taken in turn), else the
// default device.
DeviceGroup rank_group(const Globals& g, int rank) {
  std::vector<std::string> per_rank;
  std::string s = g.split.devices;
  for (std::size_t at = 0; !s.empty();) {
    const std::size_t bar = s.find('|', at);
    per_rank.push_back(s.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
    if (bar == std::string::npos) break;
    at = bar + 1;
  }
  if (per_rank.empty()) return DeviceGroup(std::vector<DeviceEntry>{select_device(g.device)});
  return DeviceGroup(per_rank[static_cast<std::size_t>(rank) % per_rank.size()]);
}

// mpirun binds each rank to one core by default (two ranks or fewer): a rank whose CPU device
// would then run on that core alone, or whose GPU staging copies would share it, is warned.
void warn_if_bound(const DeviceGroup& local, int rank) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  const long usable = CPU_COUNT(&set), online = sysconf(_SC_NPROCESSORS_ONLN);
  long want = 2;  // a GPU's staging copies beside its host thread
  for (std::size_t d = 0; d < local.size(); ++d)
    if (local.entry(d).info.type == "CPU") want = std::max<long>(want, local.entry(d).info.compute_units);
  if (usable < std::min(want, online))
    std::fprintf(stderr,
                 "clforge: warning: rank %d may run on %ld of this host's %ld cores while its devices want %ld "
                 "(mpirun binds ranks to cores: add --bind-to none, or --map-by ...:pe=N)\n",
                 rank, usable, online, want);
}

// One distributed call of the case: scatter from rank 0, the collective routine, gather to rank 0.
// `call` gets the seconds of the collective routine alone (the data already on the ranks).
mpi::MpiRun distributed(const bench::SplitCase& c, bench::HostJob* job, const DeviceGroup& local,
                        const mpi::MpiOptions& o, int rank, double* call = nullptr) {
  MPI_Comm w = MPI_COMM_WORLD;
  using Clock = std::chrono::steady_clock;
  Clock::time_point t0;
  auto start = [&] { t0 = Clock::now(); };
  auto stop = [&](mpi::MpiRun r) {
    if (call) *call = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  };
  auto arr = [&](const char* name) { return rank == 0 ? job->array(name) : nullptr; };
  if (rank == 0) job->reset();
  if (c.routine == "fft") {
    const mpi::Distribution d = mpi::distribute(w, "fft", c.y, o);
    std::vector<std::complex<float> > in(d.count[rank] * c.x), out(in.size());
    mpi::scatter(w, 0, d, c.x * 8, arr("in"), in.data(), o.timeout_s);
    start();
    const auto run = stop(mpi::fft(w, local, d, c.x, in.data(), out.data(), c.inverse, o));
    mpi::gather(w, 0, d, c.x * 8, out.data(), arr("out"), o.timeout_s);
    return run;
  }
  if (c.routine == "sgemm") {
    const std::size_t m = c.x, n = c.y, k = c.z;
    const mpi::Distribution d = mpi::distribute(w, "sgemm", n, o);
    std::vector<float> b(k * d.count[rank]), cc(m * d.count[rank]);
    mpi::scatter(w, 0, d, k * 4, arr("b"), b.data(), o.timeout_s);
    if (c.beta != 0.0f) mpi::scatter(w, 0, d, m * 4, arr("out"), cc.data(), o.timeout_s);
    start();
    const auto run = stop(mpi::sgemm(w, local, d, 0, c.trans_a ? Transpose::Yes : Transpose::No, m, k, c.alpha,
                                     arr("a"), c.trans_a ? k : m, b.data(), c.beta, cc.data(), o));
    mpi::gather(w, 0, d, m * 4, cc.data(), arr("out"), o.timeout_s);
    return run;
  }
  const std::size_t row = c.x * c.channels * 4;
  const mpi::Distribution d = mpi::distribute(w, "blur", c.y, o);
  std::vector<char> in(row * d.count[rank]), out(in.size());
  mpi::scatter(w, 0, d, row, arr("in"), in.data(), o.timeout_s);
  BlurOptions bo;
  bo.sigma_x = bo.sigma_y = c.sigma;
  bo.method = c.method;
  bo.border = c.border;
  start();
  const auto run = stop(mpi::gaussian_blur(w, local, d, c.x, c.channels == 4 ? PixelFormat::RGBA32F : PixelFormat::R32F,
                                           in.data(), out.data(), bo, o));
  mpi::gather(w, 0, d, row, out.data(), arr("out"), o.timeout_s);
  return run;
}

// Median wall seconds of `reps` distributed calls (after a first one), the last run kept; `call`
// gets the median of the collective routine alone.
double timed(const bench::SplitCase& c, bench::HostJob* job, const DeviceGroup& local, const mpi::MpiOptions& o,
             int rank, int reps, mpi::MpiRun& last, double* call = nullptr) {
  std::vector<double> s, calls;
  for (int r = 0; r <= reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    double one = 0;
    last = distributed(c, job, local, o, rank, &one);
    if (r > 0) s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (r > 0) calls.push_back(one);
  }
  std::sort(s.begin(), s.end());
  std::sort(calls.begin(), calls.end());
  if (call) *call = calls[calls.size() / 2];
  return s[s.size() / 2];
}

void run_ranks(Globals& g, bench::SplitCase c, bool bench) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (c.routine == "transpose") throw UsageError("--mpi: fft, sgemm and blur (transpose has no MPI form)");
  if (c.routine == "sgemm" && (c.row_major || c.trans_b))
    throw UsageError("--mpi: sgemm is column-major with op(B) = B (C and B are distributed by columns)");
  const DeviceGroup local = rank_group(g, rank);
  warn_if_bound(local, rank);
  mpi::MpiOptions o;
  o.local = g.split.options(local, g.tuning());
  if (c.routine == "blur" && c.method == BlurMethod::Auto) {  // one method, judged on rank 0 alike
    int m = rank == 0 ? static_cast<int>(resolve_blur_method(local.queue(0), c.x, c.y,
                                                             c.channels == 4 ? PixelFormat::RGBA32F : PixelFormat::R32F,
                                                             c.sigma, c.sigma))
                      : 0;
    MPI_Bcast(&m, 1, MPI_INT, 0, MPI_COMM_WORLD);
    c.method = static_cast<BlurMethod>(m);
  }
  std::unique_ptr<bench::HostJob> job;
  if (rank == 0) job = bench::make_host_job(c, local);
  const double bytes = rank == 0 ? job->bytes : 0;
  mpi::MpiRun run = distributed(c, job.get(), local, o, rank);  // checked, and the rates measured
  int ok = 1;
  double err = 0, tol = 0;
  if (rank == 0) {
    err = job->error(), tol = job->tolerance();
    ok = err <= tol;
  }
  double call = 0;
  const double secs = timed(c, job.get(), local, o, rank, std::max(1, g.split.reps), run, &call);
  // Each rank alone on the whole job, for the scaling efficiency.
  std::vector<double> alone;
  if (bench)
    for (int r = 0; r < ranks; ++r) {
      mpi::MpiOptions one = o;
      one.weights.assign(static_cast<std::size_t>(ranks), 0.0);
      one.weights[static_cast<std::size_t>(r)] = 1.0;
      mpi::MpiRun ignored;
      alone.push_back(timed(c, job.get(), local, one, rank, std::max(1, g.split.reps), ignored));
    }
  std::string mine = std::to_string(rank) + ": " + local.describe();
  std::vector<char> names(static_cast<std::size_t>(ranks) * 200, 0);
  mine.resize(199, ' ');
  MPI_Gather(mine.data(), 200, MPI_CHAR, names.data(), 200, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%s %s across %d ranks\n  %-4s %-48s %8s %9s %10s\n", c.routine.c_str(), c.shape().c_str(), ranks,
                "rank", "devices", "items", "busy ms", bench ? "alone ms" : "");
    for (const auto& s : run.ranks) {
      std::printf("  %-4d %-48.48s %8zu %9.2f", s.rank, &names[static_cast<std::size_t>(s.rank) * 200], s.items,
                  1e3 * s.seconds);
      if (bench) std::printf(" %10.2f", 1e3 * alone[static_cast<std::size_t>(s.rank)]);
      std::printf("\n");
    }
    std::printf("  %.3f ms median of %d calls (scatter, compute, gather), %.2f GB/s\n", 1e3 * secs, g.split.reps,
                bytes / secs / 1e9);
    std::printf("  %.3f ms median of the distributed call alone (each rank's slice in its memory), %.2f GB/s\n",
                1e3 * call, bytes / call / 1e9);
    if (bench) {
      double rate_sum = 0, best = INFINITY;
      for (double a : alone) rate_sum += 1.0 / a, best = std::min(best, a);
      std::printf(
          "  speed-up over the best rank alone %.2fx; scaling efficiency %.2f (all ranks' rate over the sum "
          "of their rates alone)\n",
          best / secs, (1.0 / secs) / rate_sum);
    }
    std::printf("  error against the host reference %.2e, tolerance %.2e: %s\n", err, tol, ok ? "ok" : "WRONG");
  }
  if (!ok) throw Error("run " + c.routine + " --mpi: the result differs from the host reference");
}

}  // namespace

void run_on_ranks(Globals& g, const bench::SplitCase& c, bool bench) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  try {
    run_ranks(g, c, bench);
  } catch (const mpi::RankFailure&) {  // every rank throws it, agreed: each ends alike
    MPI_Finalize();
    throw;
  } catch (const std::exception& e) {
    // This rank alone (e.g. its --devices entry matches nothing) while the others may wait in a
    // collective: its message, then every rank ends.
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "clforge: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, dynamic_cast<const UsageError*>(&e) ? 2 : 1);
  }
  MPI_Finalize();
}
#endif

}  // namespace clforge::cli
