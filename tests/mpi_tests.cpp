// The MPI component (clforge/mpi.hpp) under `mpirun -n 3` (CTest entry `mpi`): every rank runs
// these cases in the same order on its own device group. Uneven shares and odd sizes for every
// routine against the double host reference and against the single-process group call on the
// root; halo rows that span several ranks; a failure injected on one rank thrown on every rank
// with its message; bad weights refused on every rank. The case "a rank that never arrives" runs
// only under CLFORGE_MPI_TEST_HANG=1 (CTest entry `mpi_timeout`, which expects the abort).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "clforge/mpi.hpp"
#include "host/blur.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "mpi/mpi_testing.hpp"

using namespace clforge;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }
int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
const DeviceGroup& local() {
  static const DeviceGroup g("all");
  return g;
}
// Uneven weights: rank r gets r + 1 parts.
mpi::MpiOptions uneven() {
  mpi::MpiOptions o;
  for (int r = 0; r < ranks(); ++r) o.weights.push_back(r + 1.0);
  o.timeout_s = 60;
  return o;
}
std::uint64_t seed() { return 20261126; }  // the same data on every rank

}  // namespace

TEST_CASE("distribute: contiguous slices in proportion, the same on every rank") {
  mpi::MpiOptions o = uneven();
  const mpi::Distribution d = mpi::distribute(world(), "fft", 61, o, 4);
  REQUIRE(d.first.size() == static_cast<std::size_t>(ranks()));
  std::size_t at = 0, total = 0;
  for (int r = 0; r < ranks(); ++r) {
    CHECK(d.first[r] == at);
    if (r + 1 < ranks()) CHECK(d.count[r] % 4 == 0);
    at += d.count[r];
    total += r + 1;
  }
  CHECK(at == 61);
  const double expect_last = 61.0 * ranks() / static_cast<double>(total);
  CHECK(std::fabs(static_cast<double>(d.count.back()) - expect_last) <= 4);
  // Every rank holds the same distribution.
  std::vector<unsigned long> mine(d.count.begin(), d.count.end()), all(mine.size() * ranks());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UNSIGNED_LONG, all.data(),
                static_cast<int>(mine.size()), MPI_UNSIGNED_LONG, world());
  for (int r = 0; r < ranks(); ++r)
    CHECK(std::vector<unsigned long>(all.begin() + r * mine.size(), all.begin() + (r + 1) * mine.size()) == mine);
  o.weights.push_back(1);
  CHECK_THROWS_AS(mpi::distribute(world(), "fft", 61, o), InvalidArgument);
  o.weights.assign(ranks(), 0.0);
  CHECK_THROWS_AS(mpi::distribute(world(), "fft", 61, o), InvalidArgument);
}

TEST_CASE("fft: uneven shares of an odd batch, against the reference and the single-process call") {
  const std::size_t n = 100, batch = 37;
  const auto x = host::random_floats(2 * n * batch, seed());
  const mpi::MpiOptions o = uneven();
  const mpi::Distribution d = mpi::distribute(world(), "fft", batch, o);
  std::vector<std::complex<float>> mine(d.count[rank()] * n), out(mine.size()), all(n * batch);
  mpi::scatter(world(), 0, d, n * 8, x.data(), mine.data());
  const mpi::MpiRun run = mpi::fft(world(), local(), d, n, mine.data(), out.data(), false, o);
  mpi::gather(world(), 0, d, n * 8, out.data(), all.data());
  REQUIRE(run.ranks.size() == static_cast<std::size_t>(ranks()));
  for (int r = 0; r < ranks(); ++r) CHECK(run.ranks[r].items == d.count[r]);
  if (rank() == 0) {
    const auto ref = host::fft_batch(x.data(), n, batch, 1, n, 0, false);
    const auto e = host::fft_compare(reinterpret_cast<const float*>(all.data()), n, batch, 1, n, 0, ref);
    CHECK(e.nonfinite == 0);
    CHECK(e.max_rel_l2 <= host::fft_tolerance(n));
    std::vector<std::complex<float>> single(n * batch);
    fft(local(), n, batch, reinterpret_cast<const std::complex<float>*>(x.data()), single.data());
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < single.size(); ++i) diff += std::norm(single[i] - all[i]), norm += std::norm(single[i]);
    CHECK(std::sqrt(diff / norm) <= host::fft_tolerance(n));
  }
}

TEST_CASE("sgemm: C and B by uneven blocks of columns, A broadcast from the root") {
  const std::size_t m = 37, n = 53, k = 29;
  for (bool ta : {false, true}) {
    CAPTURE(ta);
    host::GemmShape s{false, ta, false, m, n, k, ta ? k + 2 : m + 2, k, m};
    const auto a = host::random_floats(host::gemm_span(s, 'a'), seed() + 1);
    const auto b = host::random_floats(host::gemm_span(s, 'b'), seed() + 2);
    const auto c0 = host::random_floats(host::gemm_span(s, 'c'), seed() + 3);
    const mpi::MpiOptions o = uneven();
    const mpi::Distribution d = mpi::distribute(world(), "sgemm", n, o);
    std::vector<float> lb(k * d.count[rank()]), lc(m * d.count[rank()]), c(m * n);
    mpi::scatter(world(), 0, d, k * 4, b.data(), lb.data());
    mpi::scatter(world(), 0, d, m * 4, c0.data(), lc.data());
    mpi::sgemm(world(), local(), d, 0, ta ? Transpose::Yes : Transpose::No, m, k, 1.5f,
               rank() == 0 ? a.data() : nullptr, s.lda, lb.data(), 0.5f, lc.data(), o);
    mpi::gather(world(), 0, d, m * 4, lc.data(), c.data());
    if (rank() == 0) {
      std::vector<double> ref(c.size()), mag(c.size());
      host::gemm(s, 1.5, a.data(), b.data(), 0.5, c0.data(), ref.data(), 0, mag.data());
      CHECK(host::gemm_scaled_error(c.data(), ref.data(), mag.data(), c.size()) <= host::gemm_tolerance(k));
      std::vector<float> single = c0;
      sgemm(local(), Layout::ColMajor, s.trans_a ? Transpose::Yes : Transpose::No, Transpose::No, m, n, k, 1.5f,
            a.data(), s.lda, b.data(), k, 0.5f, single.data(), m);
      CHECK(host::gemm_scaled_error(c.data(), std::vector<double>(single.begin(), single.end()).data(), mag.data(),
                                    c.size()) <= host::gemm_tolerance(k));
    }
  }
}

TEST_CASE("sgemm strided batches: uneven shares of an odd batch of products, one B for all") {
  const std::size_t m = 7, n = 5, k = 6, batch = 11;
  host::GemmShape s = host::tight_gemm_shape(true, true, false, m, n, k);  // row-major TN, tight
  const std::size_t sa = host::gemm_span(s, 'a'), sb = host::gemm_span(s, 'b'), sc = host::gemm_span(s, 'c');
  const auto a = host::random_floats(sa * batch, seed() + 4);
  const auto b = host::random_floats(sb, seed() + 5);  // every rank holds the one B
  const auto c0 = host::random_floats(sc * batch, seed() + 6);
  const mpi::MpiOptions o = uneven();
  const mpi::Distribution d = mpi::distribute(world(), "sgemm_strided_batched", batch, o);
  const std::size_t mine = d.count[rank()];
  std::vector<float> la(sa * mine), lc(sc * mine), c(sc * batch);
  mpi::scatter(world(), 0, d, sa * 4, a.data(), la.data());
  mpi::scatter(world(), 0, d, sc * 4, c0.data(), lc.data());
  mpi::sgemm_strided_batched(world(), local(), d, Layout::RowMajor, Transpose::Yes, Transpose::No, m, n, k, 1.5f,
                             la.data(), s.lda, sa, b.data(), s.ldb, 0, 0.5f, lc.data(), s.ldc, sc, o);
  mpi::gather(world(), 0, d, sc * 4, lc.data(), c.data());
  if (rank() == 0)
    for (std::size_t z = 0; z < batch; ++z) {
      std::vector<double> ref(sc), mag(sc);
      host::gemm(s, 1.5, a.data() + z * sa, b.data(), 0.5, c0.data() + z * sc, ref.data(), 1, mag.data());
      CHECK(host::gemm_scaled_error(c.data() + z * sc, ref.data(), mag.data(), sc) <= host::gemm_tolerance(k));
    }
}

TEST_CASE("blur: halo rows from several ranks; separable bitwise as one process, recursive within tolerance") {
  const std::size_t w = 61, h = 47;
  const auto img = host::random_floats(w * h, seed() + 4);
  mpi::MpiOptions o = uneven();
  o.weights.assign(ranks(), 1.0);
  o.weights[ranks() / 2] = 10;  // the others hold fewer rows than the halo
  for (BlurMethod m : {BlurMethod::Separable, BlurMethod::Recursive}) {
    CAPTURE(to_string(m));
    BlurOptions bo;
    bo.sigma_x = bo.sigma_y = m == BlurMethod::Separable ? 2.0 : 3.0;
    bo.method = m;
    bo.border = BlurBorder::Mirror;
    const mpi::Distribution d = mpi::distribute(world(), "blur", h, o);
    std::vector<float> mine(w * d.count[rank()]), out(mine.size()), all(w * h);
    mpi::scatter(world(), 0, d, w * 4, img.data(), mine.data());
    mpi::gaussian_blur(world(), local(), d, w, PixelFormat::R32F, mine.data(), out.data(), bo, o);
    mpi::gather(world(), 0, d, w * 4, out.data(), all.data());
    if (rank() == 0) {
      std::vector<float> single(w * h);
      gaussian_blur(local(), w, h, PixelFormat::R32F, img.data(), single.data(), bo);
      if (m == BlurMethod::Separable) {
        CHECK(std::memcmp(all.data(), single.data(), all.size() * 4) == 0);
      } else {
        const auto ref = host::recursive_blur(img.data(), w, h, 1, w, bo.sigma_x, bo.sigma_y, bo.border);
        CHECK(host::compare(all, ref).rel_error <= host::recursive_blur_tolerance(bo.sigma_x, bo.sigma_y));
      }
    }
  }
}

TEST_CASE("a rank that fails: every rank throws RankFailure with its message") {
  const std::size_t n = 64, batch = 12;
  const auto x = host::random_floats(2 * n * batch, seed());
  mpi::MpiOptions o = uneven();
  clforge::detail::set_mpi_fault([](int r) {
    if (r == 1 % ranks()) throw Error("injected failure on this rank");
  });
  const mpi::Distribution d = mpi::distribute(world(), "fft", batch, o);
  std::vector<std::complex<float>> mine(d.count[rank()] * n), out(mine.size());
  mpi::scatter(world(), 0, d, n * 8, x.data(), mine.data());
  bool thrown = false;
  try {
    mpi::fft(world(), local(), d, n, mine.data(), out.data(), false, o);
  } catch (const mpi::RankFailure& e) {
    thrown = true;
    CHECK(e.rank() == 1 % ranks());
    CHECK(std::string(e.what()).find("injected failure on this rank") != std::string::npos);
    CHECK(std::string(e.what()).find("rank " + std::to_string(1 % ranks()) + " failed") != std::string::npos);
  }
  CHECK(thrown);
  // The communicator still works afterwards.
  clforge::detail::set_mpi_fault(nullptr);
  CHECK_NOTHROW(mpi::fft(world(), local(), d, n, mine.data(), out.data(), false, o));
}

TEST_CASE("a rank that never arrives: the others abort every rank after the timeout" *
          doctest::skip(std::getenv("CLFORGE_MPI_TEST_HANG") == nullptr)) {
  mpi::MpiOptions o = uneven();
  o.timeout_s = 3;
  const mpi::Distribution d = mpi::distribute(world(), "fft", 8, o);
  if (rank() == ranks() - 1) std::this_thread::sleep_for(std::chrono::seconds(600));  // never joins; MPI_Abort ends it
  std::vector<std::complex<float>> mine(d.count[rank()] * 16), out(mine.size());
  mpi::fft(world(), local(), d, 16, mine.data(), out.data(), false, o);
  FAIL("the collective returned although a rank never joined");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  int rc = ctx.run();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
