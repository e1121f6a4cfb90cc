// The MPI component (clforge/mpi.hpp): distribution of items over the ranks, scatter and gather,
// and the collective routines, each rank running its share on its DeviceGroup. Every wait on the
// other ranks is bounded (wait(): MPI_Test in a loop, MPI_Abort of every rank when it expires),
// and every call ends with agree(): the ranks learn whether one failed, and the lowest failing
// rank's message is thrown on all of them as RankFailure.
#include "clforge/mpi.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "group/group_internal.hpp"
#include "mpi/mpi_testing.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/test_hook.hpp"

namespace clforge::detail {
namespace {
TestHook<MpiFault> g_fault;
}  // namespace

void set_mpi_fault(MpiFault fault) { g_fault.set(std::move(fault)); }

void run_mpi_fault(int rank) {
  if (const MpiFault fault = g_fault.get()) fault(rank);
}
}  // namespace clforge::detail

namespace clforge::mpi {

namespace {

using Clock = std::chrono::steady_clock;

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
int size_of(MPI_Comm c) {
  int s = 0;
  MPI_Comm_size(c, &s);
  return s;
}

// Waits for the requests, at most timeout_s; when that passes, says so and aborts every rank.
void wait_all(MPI_Comm comm, std::vector<MPI_Request>& reqs, double timeout_s, const std::string& what) {
  const auto t0 = Clock::now();
  bool said = false;
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!said && waited > std::min(10.0, timeout_s / 4)) {  // says what it waits for, once
      std::fprintf(stderr, "clforge mpi: rank %d has waited %.0f s for the other ranks (%s)\n", rank_of(comm), waited,
                   what.c_str());
      std::fflush(stderr);
      said = true;
    }
    if (waited > timeout_s) {
      std::fprintf(stderr, "clforge mpi: rank %d waited %.0f s for the other ranks (%s); aborting every rank\n",
                   rank_of(comm), waited, what.c_str());
      std::fflush(stderr);
      MPI_Abort(comm, 3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}
void wait(MPI_Comm comm, MPI_Request& req, double timeout_s, const std::string& what) {
  std::vector<MPI_Request> one = {req};
  wait_all(comm, one, timeout_s, what);
  req = one[0];
}

// Every rank learns whether any failed; the lowest failing rank's message is thrown on all.
void agree(MPI_Comm comm, const std::string& error, double timeout_s, const std::string& what) {
  const int me = rank_of(comm);
  int mine = error.empty() ? INT_MAX : me, lowest = INT_MAX;
  MPI_Request r;
  MPI_Iallreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm, &r);
  wait(comm, r, timeout_s, what);
  if (lowest == INT_MAX) return;
  int len = me == lowest ? static_cast<int>(std::min<std::size_t>(error.size(), 4096)) : 0;
  MPI_Ibcast(&len, 1, MPI_INT, lowest, comm, &r);
  wait(comm, r, timeout_s, what);
  std::string msg = me == lowest ? error.substr(0, static_cast<std::size_t>(len)) : std::string(len, ' ');
  MPI_Ibcast(msg.data(), len, MPI_CHAR, lowest, comm, &r);
  wait(comm, r, timeout_s, what);
  throw RankFailure("clforge mpi " + what + ": rank " + std::to_string(lowest) + " failed: " + msg, lowest);
}

// Runs `work`, turning any exception into the message agree() spreads.
template <typename F>
std::string attempt(F&& work) {
  try {
    work();
    return {};
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

// Collects every rank's share; remembers this rank's throughput.
MpiRun finish(MPI_Comm comm, const std::string& routine, const Distribution& d, double seconds, double timeout_s) {
  const int me = rank_of(comm), n = size_of(comm);
  const double mine[3] = {static_cast<double>(d.first[me]), static_cast<double>(d.count[me]), seconds};
  std::vector<double> all(3 * static_cast<std::size_t>(n));
  MPI_Request r;
  MPI_Iallgather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, comm, &r);
  wait(comm, r, timeout_s, routine + " shares");
  MpiRun run;
  for (int q = 0; q < n; ++q) {
    const double* v = &all[3 * static_cast<std::size_t>(q)];
    run.ranks.push_back({q, static_cast<std::size_t>(v[0]), static_cast<std::size_t>(v[1]), v[2]});
    run.seconds = std::max(run.seconds, v[2]);
  }
  // This rank's throughput (items per second), for distribute() without weights.
  if (d.count[me] > 0 && seconds > 0)
    detail::remember_rate("mpi|" + routine, static_cast<double>(d.count[me]) / seconds);
  return run;
}

// The distribution must be one of this communicator's and describe `items`.
void check_distribution(MPI_Comm comm, const Distribution& d, const char* what) {
  const auto n = static_cast<std::size_t>(size_of(comm));
  detail::require(d.first.size() == n && d.count.size() == n, what, "the distribution is not of this communicator");
  std::size_t at = 0;
  for (std::size_t q = 0; q < n; ++q) {
    detail::require(d.first[q] == at, what, "the distribution's slices are not contiguous in rank order");
    at = detail::add_or_throw(at, d.count[q], what, "the distribution's items");
  }
  detail::require(at == d.items, what, "the distribution's slices do not add up to its items");
}

// An MPI datatype of `bytes` contiguous bytes (freed by the destructor).
struct Bytes {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  explicit Bytes(std::size_t bytes) {
    detail::require(bytes > 0 && bytes <= static_cast<std::size_t>(INT_MAX), "clforge mpi",
                    "an item of more than 2^31 - 1 bytes");
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type);
    MPI_Type_commit(&type);
  }
  ~Bytes() { MPI_Type_free(&type); }
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
};

std::vector<int> int_counts(const std::vector<std::size_t>& v, const char* what) {
  std::vector<int> out;
  for (std::size_t x : v) {
    detail::require(x <= static_cast<std::size_t>(INT_MAX), what, "more than 2^31 - 1 items on one rank");
    out.push_back(static_cast<int>(x));
  }
  return out;
}

// Root's bytes to every rank, in pieces of at most 1 GiB.
void broadcast(MPI_Comm comm, int root, char* data, std::size_t bytes, double timeout_s, const std::string& what) {
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < bytes; at += kPiece) {
    MPI_Request r;
    MPI_Ibcast(data + at, static_cast<int>(std::min(kPiece, bytes - at)), MPI_BYTE, root, comm, &r);
    wait(comm, r, timeout_s, what);
  }
}

}  // namespace

Distribution distribute(MPI_Comm comm, const std::string& routine, std::size_t items, const MpiOptions& o,
                        std::size_t granule) {
  const int n = size_of(comm);
  std::vector<double> w = o.weights;
  if (w.empty()) {
    double mine = detail::remembered_rate("mpi|" + routine);
    w.assign(static_cast<std::size_t>(n), 0.0);
    MPI_Request r;
    MPI_Iallgather(&mine, 1, MPI_DOUBLE, w.data(), 1, MPI_DOUBLE, comm, &r);
    wait(comm, r, o.timeout_s, "distribute " + routine);
    if (std::any_of(w.begin(), w.end(), [](double x) { return !(x > 0); })) w.assign(w.size(), 1.0);
  }
  const char* what = "clforge mpi distribute";
  detail::require(w.size() == static_cast<std::size_t>(n), what,
                  [&] { return std::to_string(w.size()) + " weights for " + std::to_string(n) + " ranks"; });
  double total = 0;
  for (double x : w) {
    detail::require(std::isfinite(x) && x >= 0, what, "weights must be finite and >= 0");
    total += x;
  }
  detail::require(total > 0, what, "weights sum to 0");
  granule = std::max<std::size_t>(granule, 1);
  Distribution d;
  d.items = items;
  double cum = 0;
  std::size_t at = 0;
  for (int q = 0; q < n; ++q) {
    cum += w[static_cast<std::size_t>(q)];
    std::size_t end =
        q + 1 == n ? items
                   : std::min(items, static_cast<std::size_t>(std::llround(static_cast<double>(items) * (cum / total) /
                                                                           static_cast<double>(granule))) *
                                         granule);
    end = std::max(end, at);
    d.first.push_back(at);
    d.count.push_back(end - at);
    at = end;
  }
  return d;
}

namespace {

// Scatterv (to_ranks) or Gatherv of whole items between root's array and every rank's slice.
void move_items(MPI_Comm comm, int root, const Distribution& d, std::size_t item_bytes, const void* all_in,
                void* all_out, const void* local_in, void* local_out, bool to_ranks, double timeout_s) {
  const char* what = to_ranks ? "clforge mpi scatter" : "clforge mpi gather";
  check_distribution(comm, d, what);
  const Bytes item(item_bytes);
  const auto counts = int_counts(d.count, what), firsts = int_counts(d.first, what);
  const int mine = counts[static_cast<std::size_t>(rank_of(comm))];
  MPI_Request r;
  if (to_ranks)
    MPI_Iscatterv(all_in, counts.data(), firsts.data(), item.type, local_out, mine, item.type, root, comm, &r);
  else
    MPI_Igatherv(local_in, mine, item.type, all_out, counts.data(), firsts.data(), item.type, root, comm, &r);
  wait(comm, r, timeout_s, to_ranks ? "scatter" : "gather");
}

}  // namespace

void scatter(MPI_Comm comm, int root, const Distribution& d, std::size_t item_bytes, const void* all, void* local,
             double timeout_s) {
  move_items(comm, root, d, item_bytes, all, nullptr, nullptr, local, true, timeout_s);
}

void gather(MPI_Comm comm, int root, const Distribution& d, std::size_t item_bytes, const void* local, void* all,
            double timeout_s) {
  move_items(comm, root, d, item_bytes, nullptr, all, local, nullptr, false, timeout_s);
}

MpiRun fft(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, std::size_t n,
           const std::complex<float>* local_in, std::complex<float>* local_out, bool inverse, const MpiOptions& o) {
  const int me = rank_of(comm);
  const auto t0 = Clock::now();
  const std::string err = attempt([&] {
    check_distribution(comm, d, "clforge mpi fft");
    detail::run_mpi_fault(me);
    const std::size_t count = d.count[static_cast<std::size_t>(me)];
    if (count > 0) clforge::fft(local, n, count, local_in, local_out, inverse, o.local);
  });
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  agree(comm, err, o.timeout_s, "fft");
  return finish(comm, "fft", d, secs, o.timeout_s);
}

MpiRun sgemm(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, int root, Transpose trans_a, std::size_t m,
             std::size_t k, float alpha, const float* a, std::size_t lda, const float* local_b, float beta,
             float* local_c, const MpiOptions& o) {
  const int me = rank_of(comm);
  const char* what = "clforge mpi sgemm";
  const auto t0 = Clock::now();
  // op(A)'s storage: rows x cols, column-major; every rank gets it packed (leading dimension rows).
  const std::size_t rows = trans_a == Transpose::No ? m : k, cols = trans_a == Transpose::No ? k : m;
  std::vector<float> packed;
  std::string err = attempt([&] {
    check_distribution(comm, d, what);
    detail::require(root >= 0 && root < size_of(comm), what, "root is not a rank of the communicator");
    detail::require(trans_a == Transpose::No || trans_a == Transpose::Yes, what, "unknown transpose");
    packed.resize(detail::mul_or_throw(rows, cols, what, "A's elements"));
    if (me == root && !packed.empty()) {
      detail::require(a != nullptr, what, "null A on the root");
      detail::require(lda >= std::max<std::size_t>(1, rows), what, "lda too small");
      for (std::size_t j = 0; j < cols; ++j) std::memcpy(&packed[j * rows], a + j * lda, rows * 4);
    }
  });
  agree(comm, err, o.timeout_s, "sgemm (arguments)");
  broadcast(comm, root, reinterpret_cast<char*>(packed.data()), packed.size() * 4, o.timeout_s, "sgemm A");
  err = attempt([&] {
    detail::run_mpi_fault(me);
    const std::size_t count = d.count[static_cast<std::size_t>(me)];
    if (count > 0)
      clforge::sgemm(local, Layout::ColMajor, trans_a, Transpose::No, m, count, k, alpha, packed.data(),
                     std::max<std::size_t>(1, rows), local_b, std::max<std::size_t>(1, k), beta, local_c,
                     std::max<std::size_t>(1, m), o.local);
  });
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  agree(comm, err, o.timeout_s, "sgemm");
  return finish(comm, "sgemm", d, secs, o.timeout_s);
}

MpiRun sgemm_strided_batched(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, Layout layout,
                             Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n, std::size_t k,
                             float alpha, const float* local_a, std::size_t lda, std::size_t a_stride,
                             const float* local_b, std::size_t ldb, std::size_t b_stride, float beta, float* local_c,
                             std::size_t ldc, std::size_t c_stride, const MpiOptions& o) {
  const int me = rank_of(comm);
  const auto t0 = Clock::now();
  const std::string err = attempt([&] {
    check_distribution(comm, d, "clforge mpi sgemm_strided_batched");
    detail::run_mpi_fault(me);
    const std::size_t count = d.count[static_cast<std::size_t>(me)];
    if (count > 0)
      clforge::sgemm_strided_batched(local, layout, trans_a, trans_b, m, n, k, alpha, local_a, lda, a_stride, local_b,
                                     ldb, b_stride, beta, local_c, ldc, c_stride, count, o.local);
  });
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  agree(comm, err, o.timeout_s, "sgemm_strided_batched");
  return finish(comm, "sgemm_strided_batched", d, secs, o.timeout_s);
}

MpiRun gaussian_blur(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, std::size_t width,
                     PixelFormat format, const void* local_in, void* local_out, const BlurOptions& options,
                     const MpiOptions& o) {
  const int me = rank_of(comm), n = size_of(comm);
  const char* what = "clforge mpi gaussian_blur";
  const auto t0 = Clock::now();
  // One method on every rank: Auto as rank 0's first device resolves it.
  int method = static_cast<int>(options.method);
  std::string err = attempt([&] {
    check_distribution(comm, d, what);
    detail::require(width > 0 && d.items > 0, what, "width and height must be at least 1");
    for (double s : {options.sigma_x, options.sigma_y})
      detail::require(s > 0 && s <= 4096, what, "sigma must be in (0, 4096]");
    detail::require(d.count[static_cast<std::size_t>(me)] == 0 || (local_in && local_out), what,
                    "null input or output");
    if (me == 0 && options.method == BlurMethod::Auto)
      method = static_cast<int>(resolve_blur_method(local.queue(0), width, d.items, format, options.sigma_x,
                                                    options.sigma_y, o.local.tuning));
  });
  agree(comm, err, o.timeout_s, "gaussian_blur (arguments)");
  MPI_Request req;
  MPI_Ibcast(&method, 1, MPI_INT, 0, comm, &req);
  wait(comm, req, o.timeout_s, "gaussian_blur method");
  BlurOptions bo = options;
  bo.method = static_cast<BlurMethod>(method);
  const std::size_t halo = detail::blur_halo_rows(bo.method, bo.sigma_y);
  const std::size_t row = width * pixel_bytes(format), H = d.items;
  // The rows each rank needs: its own and the halo around them.
  auto need = [&](int q) {
    const std::size_t f = d.first[static_cast<std::size_t>(q)], c = d.count[static_cast<std::size_t>(q)];
    return c == 0 ? std::pair<std::size_t, std::size_t>{0, 0}
                  : std::pair<std::size_t, std::size_t>{f > halo ? f - halo : 0, std::min(H, f + c + halo)};
  };
  const auto [lo, hi] = need(me);
  const std::size_t f = d.first[static_cast<std::size_t>(me)], c = d.count[static_cast<std::size_t>(me)];
  std::vector<char> band((hi - lo) * row), blurred(band.size());
  if (c > 0) std::memcpy(band.data() + (f - lo) * row, local_in, c * row);
  // Halo rows from the ranks that own them, and ours to the ranks that need them.
  const Bytes row_type(row);
  std::vector<MPI_Request> reqs;
  for (int q = 0; q < n; ++q) {
    if (q == me) continue;
    const std::size_t qf = d.first[static_cast<std::size_t>(q)], qc = d.count[static_cast<std::size_t>(q)];
    const std::size_t rf = std::max(lo, qf), rl = std::min(hi, qf + qc);  // q's rows that we need
    if (c > 0 && rf < rl) {
      reqs.emplace_back();
      MPI_Irecv(band.data() + (rf - lo) * row, static_cast<int>(rl - rf), row_type.type, q, 7, comm, &reqs.back());
    }
    const auto [qlo, qhi] = need(q);
    const std::size_t sf = std::max(qlo, f), sl = std::min(qhi, f + c);  // our rows that q needs
    if (qc > 0 && sf < sl) {
      reqs.emplace_back();
      MPI_Isend(static_cast<const char*>(local_in) + (sf - f) * row, static_cast<int>(sl - sf), row_type.type, q, 7,
                comm, &reqs.back());
    }
  }
  wait_all(comm, reqs, o.timeout_s, "gaussian_blur halo rows");
  err = attempt([&] {
    detail::run_mpi_fault(me);
    if (c == 0) return;
    clforge::gaussian_blur(local, width, hi - lo, format, band.data(), blurred.data(), bo, o.local);
    std::memcpy(local_out, blurred.data() + (f - lo) * row, c * row);
  });
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  agree(comm, err, o.timeout_s, "gaussian_blur");
  return finish(comm, "blur", d, secs, o.timeout_s);
}

}  // namespace clforge::mpi
