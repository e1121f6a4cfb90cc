// Group plans (clforge/group.hpp): one plan of each family executed several times on fresh data
// against the double host reference (transpose bitwise), through a copy and from several threads
// at once; executions build no program (the plans were made by the constructor); argument
// checks at construction and at execution; a one-device group runs its chunks on the caller's
// thread.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "group/group_internal.hpp"
#include "group/group_testing.hpp"
#include "host/blur.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"
#include "runtime/host_io.hpp"
#include "runtime/program_cache.hpp"
#include "tests/group_support.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

using test::group;

// Weights over every device of the group: each does part of the job in chunks of `chunk`.
SplitOptions even_split(std::size_t chunk) {
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights.assign(group().size(), 1.0);
  o.chunk = chunk;
  return o;
}

std::uint64_t programs_made() {
  const auto c = cache_stats();
  return c.compiles + c.disk_hits;
}

std::vector<std::complex<float>> complex_of(const std::vector<float>& x) {
  std::vector<std::complex<float>> v(x.size() / 2);
  std::memcpy(static_cast<void*>(v.data()), x.data(), x.size() * 4);
  return v;
}

}  // namespace

TEST_SUITE("group") {
  TEST_CASE("fft plan: executed on fresh data, both directions, through a copy and on four threads") {
    const std::size_t n = 48, batch = 40;  // chunk 5: every chunk the plan's own size
    const GroupFftPlan plan(group(), n, batch, even_split(5));
    CHECK(plan.n() == n);
    CHECK(plan.batch() == batch);
    const double tol = host::fft_tolerance(n);
    const std::uint64_t before = programs_made();
    for (int call = 0; call < 3; ++call) {
      const auto x = host::random_floats(2 * n * batch, test::seed() + 100 + call);
      const bool inverse = call == 1;
      const auto ref = host::fft_batch(x.data(), n, batch, 1, n, 0, inverse);
      const auto in = complex_of(x);
      std::vector<std::complex<float>> out(n * batch, {NAN, NAN});
      const GroupFftPlan copy = plan;
      const GroupRun r = (call == 2 ? copy : plan)
                             .execute(inverse ? FftDirection::Inverse : FftDirection::Forward, in.data(), out.data());
      INFO("call " << call);
      const auto e = host::fft_compare(reinterpret_cast<const float*>(out.data()), n, batch, 1, n, 0, ref);
      CHECK(e.nonfinite == 0);
      CHECK(e.max_rel_l2 <= tol);
      CHECK(r.mode == SplitMode::Weights);
    }
    CHECK(programs_made() == before);
    // Four threads, each its own arrays, one plan.
    std::vector<std::vector<float>> xs(4);
    std::vector<std::vector<std::complex<float>>> outs(4, std::vector<std::complex<float>>(n * batch));
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t) {
      xs[t] = host::random_floats(2 * n * batch, test::seed() + 110 + t);
      threads.emplace_back([&, t] {
        const auto in = complex_of(xs[t]);
        plan.forward(in.data(), outs[t].data());
      });
    }
    for (auto& th : threads) th.join();
    for (std::size_t t = 0; t < 4; ++t) {
      const auto ref = host::fft_batch(xs[t].data(), n, batch, 1, n, 0, false);
      CHECK(host::fft_compare(reinterpret_cast<const float*>(outs[t].data()), n, batch, 1, n, 0, ref).max_rel_l2 <=
            tol);
    }
    // In place through the same plan.
    const auto x = host::random_floats(2 * n * batch, test::seed() + 120);
    auto data = complex_of(x);
    plan.inverse(data.data(), data.data());
    CHECK(host::fft_compare(reinterpret_cast<const float*>(data.data()), n, batch, 1, n, 0,
                            host::fft_batch(x.data(), n, batch, 1, n, 0, true))
              .max_rel_l2 <= tol);
  }

  TEST_CASE("transpose plan: bitwise on fresh data, twice") {
    const std::size_t rows = 45, cols = 23;
    const GroupTransposePlan plan(group(), rows, cols, 8, even_split(9));
    for (int call = 0; call < 2; ++call) {
      const auto in = host::random_floats(2 * rows * cols, test::seed() + 130 + call);
      std::vector<float> out = host::poisoned(2 * rows * cols);
      plan.execute(in.data(), out.data());
      bool equal = true;
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
          equal = equal && std::memcmp(&out[2 * (c * rows + r)], &in[2 * (r * cols + c)], 8) == 0;
      CHECK(equal);
    }
  }

  TEST_CASE("sgemm plan: row-major NT, fresh A, B and C each call, C's gaps untouched") {
    const std::size_t m = 21, n = 34, k = 17;
    host::GemmShape s{true, false, true, m, n, k, k + 2, k + 1, n + 3};
    const GroupSgemmPlan plan(group(), Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k, 0.75f, s.lda, s.ldb,
                              -0.5f, s.ldc, even_split(4));
    for (int call = 0; call < 2; ++call) {
      const auto a = host::random_floats(host::gemm_span(s, 'a'), test::seed() + 140 + call);
      const auto b = host::random_floats(host::gemm_span(s, 'b'), test::seed() + 150 + call);
      const auto c0 = host::random_floats(host::gemm_span(s, 'c'), test::seed() + 160 + call);
      std::vector<float> c = c0;
      std::vector<double> ref(c.size()), mag(c.size());
      host::gemm(s, 0.75, a.data(), b.data(), -0.5, c0.data(), ref.data(), 0, mag.data());
      plan.execute(a.data(), b.data(), c.data());
      const test::GemmCheck e = test::check_gemm_c(s, c, c0, ref, mag);
      INFO("call " << call);
      CHECK(e.error <= host::gemm_tolerance(k));
      CHECK(e.gaps_changed == 0);
    }
    // m or n 0: nothing is touched, not even a null C.
    const GroupSgemmPlan empty(group(), Layout::ColMajor, Transpose::No, Transpose::No, 0, 5, 3, 1.0f, 1, 3, 0.0f, 1);
    const GroupRun r = empty.execute(nullptr, nullptr, nullptr);
    CHECK(r.shares.empty());
  }

  TEST_CASE("blur plan: separable on fresh images, within the truncated Gaussian's tolerance") {
    const std::size_t w = 53, h = 61;
    BlurOptions bo;
    bo.sigma_x = 1.5;
    bo.sigma_y = 2.0;
    bo.method = BlurMethod::Separable;
    const GroupBlurPlan plan(group(), w, h, PixelFormat::R32F, bo, even_split(16));
    CHECK(plan.method() == BlurMethod::Separable);
    for (int call = 0; call < 2; ++call) {
      const auto img = host::random_floats(w * h, test::seed() + 170 + call);
      std::vector<float> out = host::poisoned(w * h);
      plan.execute(img.data(), out.data());
      const auto cmp = host::compare(out, host::gaussian_blur(img.data(), w, h, 1, w, 1.5, 2.0, BlurBorder::Clamp));
      INFO("call " << call << ": " << cmp.summary());
      CHECK(cmp.nonfinite == 0);
      CHECK(cmp.rel_error <= host::truncated_blur_tolerance(1.5, 2.0));
    }
  }

  TEST_CASE("group plans: bad descriptions and options throw at construction, bad arrays at execution") {
    const GroupFftPlan fft_plan(group(), 16, 4);
    const GroupSgemmPlan gemm(group(), Layout::ColMajor, Transpose::No, Transpose::No, 4, 4, 4, 1.0f, 4, 4, 0.0f, 4);
    const auto before = detail::activity();
    SplitOptions wrong = even_split(0);
    wrong.weights.push_back(1.0);  // one weight too many
    CHECK_THROWS_AS(GroupFftPlan(group(), 64, 8, wrong), InvalidArgument);
    CHECK_THROWS_AS(GroupFftPlan(group(), 0, 8), InvalidArgument);
    CHECK_THROWS_AS(GroupTransposePlan(group(), 4, 4, 3), InvalidArgument);
    CHECK_THROWS_AS(
        GroupSgemmPlan(group(), Layout::ColMajor, Transpose::No, Transpose::No, 8, 8, 8, 1.0f, 7, 8, 0.0f, 8),
        InvalidArgument);  // lda < m
    BlurOptions bad;
    bad.sigma_x = 0;
    CHECK_THROWS_AS(GroupBlurPlan(group(), 8, 8, PixelFormat::R32F, bad), InvalidArgument);
    SplitOptions resident_dynamic;
    resident_dynamic.mode = SplitMode::Dynamic;
    resident_dynamic.resident_reps = 2;
    CHECK_THROWS_AS(GroupTransposePlan(group(), 4, 4, 4, resident_dynamic), InvalidArgument);

    std::vector<std::complex<float>> x(16 * 5);
    CHECK_THROWS_AS(fft_plan.forward(nullptr, x.data()), InvalidArgument);
    CHECK_THROWS_AS(fft_plan.forward(x.data(), x.data() + 1), InvalidArgument);  // overlap, not the same array
    CHECK_THROWS_AS(fft_plan.execute(static_cast<FftDirection>(7), x.data(), x.data()), InvalidArgument);
    std::vector<float> m(64);
    CHECK_THROWS_AS(gemm.execute(m.data(), nullptr, m.data() + 32), InvalidArgument);
    CHECK_THROWS_AS(gemm.execute(m.data(), m.data() + 16, m.data() + 8), InvalidArgument);  // C overlaps A
    const auto after = detail::activity();  // nothing allocated or enqueued by a refusal
    CHECK(after.buffers == before.buffers);
    CHECK(after.enqueued == before.enqueued);
  }

  TEST_CASE("a one-device group runs its chunks on the calling thread") {
    const DeviceGroup one(test::session().context, test::session().entry.device);
    std::mutex mutex;
    std::set<std::thread::id> threads;
    const detail::GroupFaultScope hook([&](std::size_t, std::size_t) {
      const std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    });
    const std::size_t rows = 40, cols = 8;
    SplitOptions o;
    o.chunk = 8;  // five chunks
    const auto in = host::random_floats(rows * cols, test::seed() + 180);
    std::vector<float> out(rows * cols);
    const GroupRun r = GroupTransposePlan(one, rows, cols, 4, o).execute(in.data(), out.data());
    CHECK(r.mode == SplitMode::Weights);
    CHECK(!r.calibrating);
    CHECK(r.shares.at(0).chunks == 5);
    CHECK(threads == std::set<std::thread::id>{std::this_thread::get_id()});
    CHECK(out[1 * rows + 3] == in[3 * cols + 1]);
  }
}
