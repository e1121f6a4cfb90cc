// Batched 1-D complex FFT against FFTW in double precision (tests/fft_support.hpp: metric,
// poison, guard tail): powers of two 2^0 .. 2^20, mixed radices, primes (Bluestein), forward,
// inverse and round trips, strides, padded distances and offsets, in-place and out-of-place,
// scaling; the host reference, the library's host FFT and roots of unity against it, the
// host-vector overload, invalid arguments and the compile cache.
// Parameter sets are in test_fft_params.cpp, the structure of plans in test_fft_plan.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "fft/fft_math.hpp"
#include "tests/fft_support.hpp"

using namespace clforge;
using namespace clforge::test::fft_cases;

TEST_SUITE("fft") {
  TEST_CASE("powers of two 2^0 .. 2^20, forward and inverse") {
    std::uint64_t seed = test::seed();
    for (int k = 0; k <= 20; ++k) {
      const std::size_t n = std::size_t{1} << k;
      const std::size_t batch = long_tests()
                                    ? std::max<std::size_t>(3, (std::size_t{1} << 22) / n)
                                    : std::max<std::size_t>(1, std::min<std::size_t>(37, (std::size_t{1} << 16) / n));
      CAPTURE(n);
      check_fft(contiguous(n, batch), seed++);
      check_fft(contiguous(n, k >= 16 ? 1 : 3, true), seed++);
    }
  }

  TEST_CASE("mixed radices 3, 5, 7, 11, 13 and primes through Bluestein") {
    std::uint64_t seed = test::seed() + 100;
    const std::size_t lengths[] = {3, 5, 7, 11, 13, 12, 15, 49, 60, 1000, 4095, 17, 97, 1009};
    for (std::size_t n : lengths) {
      CAPTURE(n);
      check_fft(contiguous(n, n < 100 ? 21 : 5), seed++);
      check_fft(contiguous(n, 2, true), seed++);
    }
  }

  TEST_CASE("long lengths: several passes, and Bluestein and Rader in several passes") {
    std::uint64_t seed = test::seed() + 200;
    // 65537 runs by Rader's algorithm as shipped (its Bluestein convolution needs passes), and by
    // Bluestein's with FFT_RADER 0.
    const std::size_t lengths[] = {3 * 4096, 7 * 11 * 13 * 16, 3 * 3 * 3 * 3 * 3 * 3 * 3 * 3 * 3, 65537};
    for (std::size_t n : lengths) {
      CAPTURE(n);
      check_fft(contiguous(n, 2), seed++);
      check_fft(contiguous(n, 1, true), seed++);
    }
    for (const bool inverse : {false, true}) {
      Case c = contiguous(65537, 2, inverse);
      c.tuning = Tuning{{{"FFT_RADER", 0}}, false};
      check_fft(c, seed++);
    }
    if (long_tests()) {
      for (std::size_t n :
           {std::size_t{1} << 21, std::size_t{1} << 22, std::size_t{3} << 20, std::size_t{10007}, std::size_t{1000003}})
        check_fft(contiguous(n, 1), seed++);
    }
  }

  TEST_CASE("round trip: inverse(forward(x)) / n == x") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 300;
    for (std::size_t n : {1, 60, 256, 1009, 4096, 8192, 65537}) {
      const std::size_t batch = 3;
      CAPTURE(n);
      std::vector<float> x = host::random_floats(2 * n * batch, seed++);
      FftDesc d;
      d.n = n;
      d.batch = batch;
      d.inverse_scaling = FftScaling::OverN;
      FftPlan plan(s.queue, d, Tuning{{}, false});
      cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
      cl::Buffer b(s.context, CL_MEM_READ_WRITE, x.size() * 4), c(s.context, CL_MEM_READ_WRITE, x.size() * 4);
      plan.forward(a, b);
      plan.inverse(b, c);
      std::vector<float> y(x.size());
      s.queue.enqueueReadBuffer(c, CL_TRUE, 0, y.size() * 4, y.data());
      std::vector<double> ref(x.begin(), x.end());
      const host::Comparison cmp = host::compare(y, ref);
      INFO(cmp.summary() << ", tolerance " << host::fft_round_trip_tolerance(n));
      CHECK(cmp.nonfinite == 0);
      CHECK(cmp.rel_error <= host::fft_round_trip_tolerance(n));
    }
  }

  TEST_CASE("strides, padded distances, offsets, interleaved batches") {
    std::uint64_t seed = test::seed() + 400;
    for (std::size_t n : {1, 16, 60, 1024, 97, 8192, 1009}) {
      CAPTURE(n);
      Case c = contiguous(n, 5);
      c.in = {1, n + 3, 7};  // padded rows and an offset
      c.out = {1, n + 17, 2};
      check_fft(c, seed++);
      c.in = {3, 3 * n + 1, 0};  // element stride
      c.out = {2, 2 * n, 5};
      check_fft(c, seed++);
      c.in = {5, 1, 1};  // interleaved: element stride >= batch, distance 1
      c.out = {6, 1, 0};
      c.inverse = true;
      check_fft(c, seed++);
      c.in = {1, n, 0};  // contiguous in, interleaved out
      c.out = {5, 1, 3};
      check_fft(c, seed++);
    }
  }

  TEST_CASE("in place") {
    std::uint64_t seed = test::seed() + 500;
    for (std::size_t n : {16, 1000, 4096, 8192, 1009, 65537}) {
      CAPTURE(n);
      Case c = contiguous(n, 3);
      c.in_place = true;
      check_fft(c, seed++);
      c.in = {1, n + 5, 3};
      c.inverse = true;
      check_fft(c, seed++);
      c.in = {4, 1, 0};
      check_fft(c, seed++);
    }
  }

  TEST_CASE("scaling: 1/n and 1/sqrt(n) on either direction") {
    std::uint64_t seed = test::seed() + 600;
    for (std::size_t n : {16, 1000, 1009, 8192}) {
      for (FftScaling sc : {FftScaling::OverN, FftScaling::OverSqrtN}) {
        Case c = contiguous(n, 2);
        c.scaling = sc;
        check_fft(c, seed++);
        c.inverse = true;
        check_fft(c, seed++);
      }
    }
  }

  TEST_CASE("the host reference without FFTW agrees with FFTW and with a direct DFT") {
    std::uint64_t seed = test::seed() + 900;
    for (std::size_t n : {1, 2, 3, 12, 17, 64, 97, 210, 1009}) {
      CAPTURE(n);
      std::vector<float> x = host::random_floats(2 * n, seed++);
      const auto a = host::fft_batch(x.data(), n, 1, 1, n, 0, false);
      const auto b = host::fftw_batch(x.data(), n, 1, 1, n, 0, false);
      std::vector<host::cdouble> xc(n);
      for (std::size_t k = 0; k < n; ++k) xc[k] = {x[2 * k], x[2 * k + 1]};
      const auto c = host::dft(xc, -1);
      double eab = 0, eac = 0, nb = 0;
      for (std::size_t k = 0; k < n; ++k) {
        eab += std::norm(a[k] - b[k]);
        eac += std::norm(a[k] - c[k]);
        nb += std::norm(b[k]);
      }
      CHECK(std::sqrt(eab / nb) < 1e-13);
      CHECK(std::sqrt(eac / nb) < 1e-12);
    }
  }

  // fft_batch runs its transforms on threads (a grain of 2^16 points a thread): batches that span
  // several threads, strided and interleaved with an offset, each transform against its own DFT.
  TEST_CASE("the host reference's batches: every transform, stride, distance and offset, inverse and scaled") {
    std::uint64_t seed = test::seed() + 925;
    for (const std::size_t n : {3, 97, 1024})
      for (const bool interleaved : {false, true}) {
        CAPTURE(n);
        CAPTURE(interleaved);
        const std::size_t batch = (std::size_t{1} << 17) / n + 3, offset = 5;
        const std::size_t stride = interleaved ? batch : 1, distance = interleaved ? 1 : n + 2;
        const std::vector<float> x = host::random_floats(2 * (offset + n * batch + 2 * batch), seed++);
        const auto y = host::fft_batch(x.data(), n, batch, stride, distance, offset, true, 0.5);
        REQUIRE(y.size() == n * batch);
        for (const std::size_t b : {std::size_t{0}, batch / 2, batch - 1}) {
          std::vector<host::cdouble> xc(n);
          for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = offset + b * distance + k * stride;
            xc[k] = {x[2 * i], x[2 * i + 1]};
          }
          const auto d = host::dft(xc, +1);
          double e = 0, nd = 0;
          for (std::size_t k = 0; k < n; ++k) {
            e += std::norm(y[b * n + k] - 0.5 * d[k]);
            nd += std::norm(0.5 * d[k]);
          }
          CHECK(std::sqrt(e / nd) < 1e-12);
        }
      }
  }

  TEST_CASE("the library's host FFT and roots of unity (src/fft/fft_math.hpp) agree with the reference") {
    std::uint64_t seed = test::seed() + 950;
    for (std::size_t n : {1, 2, 12, 17, 97, 128, 210, 1009, 4096, 65537}) {
      CAPTURE(n);
      const std::vector<float> x = host::random_floats(2 * n, seed++);
      std::vector<host::cdouble> xc(n);
      for (std::size_t k = 0; k < n; ++k) xc[k] = {x[2 * k], x[2 * k + 1]};
      for (int sign : {-1, 1}) {
        const auto lib = detail::fft_double(xc, sign), ref = host::fft(xc, sign);
        double e = 0, nr = 0;
        for (std::size_t k = 0; k < n; ++k) {
          e += std::norm(lib[k] - ref[k]);
          nr += std::norm(ref[k]);
        }
        CHECK(std::sqrt(e / nr) < 1e-13);
      }
    }
    for (std::size_t n : {std::size_t{3}, std::size_t{1000}, std::size_t{65537}, std::size_t{1} << 27}) {
      double worst = 0;
      for (std::size_t k = 0; k < n; k += n / 211 + 1)
        for (int sign : {-1, 1})
          worst = std::max(worst, std::abs(detail::unit_root(k, n, sign) - host::unit_root(k, n, sign)));
      CAPTURE(n);
      CHECK(worst < 1e-15);
    }
  }

  TEST_CASE("host-vector convenience overload") {
    auto& s = test::session();
    const std::size_t n = 40, batch = 3;
    std::vector<float> x = host::random_floats(2 * n * batch, test::seed() + 1000);
    std::vector<std::complex<float>> xc(n * batch);
    for (std::size_t i = 0; i < xc.size(); ++i) xc[i] = {x[2 * i], x[2 * i + 1]};
    const auto y = fft(s.queue, xc, n);
    const auto ref = host::fftw_batch(x.data(), n, batch, 1, n, 0, false);
    const host::FftError e = host::fft_compare(reinterpret_cast<const float*>(y.data()), n, batch, 1, n, 0, ref);
    CHECK(e.max_rel_l2 <= host::fft_tolerance(n));
    CHECK_THROWS_AS(fft(s.queue, xc, 7), InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 1024 * 8), b(s.context, CL_MEM_READ_WRITE, 1024 * 8);
    const auto expect = test::expect_invalid_argument;
    auto desc = [](std::size_t n, std::size_t batch) {
      FftDesc d;
      d.n = n;
      d.batch = batch;
      return d;
    };
    expect([&] { FftPlan(s.queue, desc(0, 1)); }, "n must be at least 1");
    expect([&] { FftPlan(s.queue, desc(8, 0)); }, "batch must be at least 1");
    expect(
        [&] {
          FftDesc d = desc(8, 4);
          d.in.stride = 0;
          FftPlan(s.queue, d);
        },
        "in.stride");
    expect(
        [&] {
          FftDesc d = desc(8, 4);
          d.out.distance = 4;  // transforms of the output overlap
          FftPlan(s.queue, d);
        },
        "overlap");
    expect(
        [&] {
          FftDesc d = desc(8, 4);
          d.in_place = true;
          d.out.stride = 2;
          FftPlan(s.queue, d);
        },
        "in-place plan");
    expect([&] { FftPlan(s.queue, desc(std::size_t{1} << 28, 1)); }, "at most 2^27");
    expect([&] { FftPlan(s.queue, desc((std::size_t{1} << 23) + 9, 1)); }, "at most 2^23");
    expect([&] { FftPlan(s.queue, desc(8, 4), Tuning{{{"FFT_NOPE", 1}}, true}); }, "unknown parameter");
    expect([&] { FftPlan(s.queue, desc(8, 4), Tuning{{{"FFT_RADIX", 64}}, true}); }, "not legal");

    FftPlan p(s.queue, desc(256, 4));
    expect([&] { p.forward(a, cl::Buffer()); }, "out is a null buffer");
    expect([&] { p.forward(cl::Buffer(), b); }, "in is a null buffer");
    expect([&] { p.forward(a, cl::Buffer(s.context, CL_MEM_READ_WRITE, 256 * 4 * 8 - 8)); }, "out buffer too small");
    expect([&] { p.inverse(cl::Buffer(s.context, CL_MEM_READ_WRITE, 100), b); }, "in buffer too small");
    expect([&] { p.forward(a, a); }, "overlap");
    expect([&] { p.forward(a); }, "needs an in-place plan");
    FftDesc ip = desc(256, 2);
    ip.in_place = true;
    FftPlan q(s.queue, ip);
    expect([&] { q.forward(a, b); }, "same buffer");
    // Offsets that keep the ranges apart make one buffer legal for an out-of-place plan.
    FftDesc split = desc(64, 2);
    split.out.offset = 128;
    FftPlan r(s.queue, split);
    CHECK_NOTHROW(r.forward(a, a));
    s.queue.finish();
  }

  TEST_CASE("a new plan with the same description hits the compile cache") {
    auto& s = test::session();
    FftDesc d;
    d.n = 2048;
    d.batch = 7;
    FftPlan first(s.queue, d, Tuning{{}, false});
    const CacheStats before = cache_stats();
    FftPlan second(s.queue, d, Tuning{{}, false});
    const CacheStats after = cache_stats();
    CHECK(after.compiles == before.compiles);
    CHECK(after.memory_hits + after.disk_hits > before.memory_hits + before.disk_hits);
    CHECK(first.launches() == 1);
    CHECK(first.scratch_bytes() == 0);
    d.n = 1 << 16;
    FftPlan big(s.queue, d, Tuning{{}, false});
    CHECK(big.launches() >= 2);
    CHECK(big.scratch_bytes() >= (std::size_t{1} << 16) * 8);
  }
}
