// Short chunks on plans of about their own size (detail::plan_items): the plan sizes, and every
// family with shares that end in chunks of every rung, against the double host reference
// (transpose bitwise, separable blur bitwise against the single-device call), split over the
// suite's two PoCL devices, twice in a row (the second call's plans and buffers come from the
// caches and pools).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "group/group_internal.hpp"
#include "host/blur.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"
#include "tests/group_support.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

using test::group;

SplitOptions split(SplitMode mode, std::vector<double> weights, std::size_t chunk) {
  SplitOptions o;
  o.mode = mode;
  o.weights = std::move(weights);
  o.chunk = chunk;
  o.staging = Staging::On;
  return o;
}

std::vector<double> halves() {
  std::vector<double> w(group().size(), 0.0);
  w[0] = 1;
  if (w.size() > 1) w[1] = 1;
  return w;
}

}  // namespace

TEST_SUITE("group") {
  TEST_CASE("plan_items: the smallest of chunk, chunk / 2, ..., chunk / 16 that holds the items") {
    CHECK(detail::plan_items(1024, 1024) == 1024);
    CHECK(detail::plan_items(1024, 513) == 1024);
    CHECK(detail::plan_items(1024, 512) == 512);
    CHECK(detail::plan_items(1024, 65) == 128);
    CHECK(detail::plan_items(1024, 64) == 64);
    CHECK(detail::plan_items(1024, 1) == 64);  // never below chunk / 16
    CHECK(detail::plan_items(1000, 300) == 500);
    CHECK(detail::plan_items(1000, 250) == 250);
    CHECK(detail::plan_items(5, 2) == 2);  // ceil(5 / 4)
    CHECK(detail::plan_items(5, 1) == 1);
    CHECK(detail::plan_items(1, 1) == 1);
  }

  TEST_CASE("short chunks: every family against the reference, weights and dynamic, twice") {
    // Shares of 50/50 and dynamic runs whose last chunks hold from 1 item to nearly a chunk (FFT,
    // 301 transforms: 150 and 151 in chunks of 37 end in 2 and 3 items, on plans of 3; in chunks
    // of 50 in 0 and 1, on a plan of 4; dynamic ends in 5 and 1). The second round finds its
    // plans in the cache and its buffers in the pools.
    for (int round : {1, 2})
      for (std::size_t chunk : {37, 50})
        for (SplitMode mode : {SplitMode::Weights, SplitMode::Dynamic}) {
          INFO("round " << round << ", chunk " << chunk << (mode == SplitMode::Dynamic ? ", dynamic" : ", 50/50"));
          const SplitOptions o = split(mode, mode == SplitMode::Weights ? halves() : std::vector<double>{}, chunk);
          {  // FFT, odd length and batch
            const std::size_t n = 24, batch = 301;
            const auto x = host::random_floats(2 * n * batch, test::seed() + 72);
            std::vector<std::complex<float>> in(n * batch), out(n * batch, {NAN, NAN});
            std::memcpy(static_cast<void*>(in.data()), x.data(), x.size() * 4);
            fft(group(), n, batch, in.data(), out.data(), true, o);
            const auto e = host::fft_compare(reinterpret_cast<const float*>(out.data()), n, batch, 1, n, 0,
                                             host::fft_batch(x.data(), n, batch, 1, n, 0, true));
            CHECK(e.nonfinite == 0);
            CHECK(e.max_rel_l2 <= host::fft_tolerance(n));
          }
          {  // transpose: bands of plans of fewer rows, brought back with their own pitch
            const std::size_t rows = 211, cols = 45;
            const auto in = host::random_floats(rows * cols * 2, test::seed() + 73);
            std::vector<float> ref(in.size()), out = host::poisoned(in.size());
            host::transpose(rows, cols, 8, in.data(), cols, ref.data(), rows);
            transpose(group(), rows, cols, 8, in.data(), out.data(), o);
            CHECK(std::memcmp(out.data(), ref.data(), ref.size() * 4) == 0);
          }
          {  // separable blur: bands of every height, each as the whole image's rows
            const std::size_t w = 29, h = 263;
            const auto img = host::random_floats(w * h, test::seed() + 74);
            BlurOptions bo;
            bo.sigma_x = bo.sigma_y = 1.5;
            bo.method = BlurMethod::Separable;
            const std::vector<float> single = gaussian_blur(test::session().queue, w, h, 1, img, bo);
            std::vector<float> out = host::poisoned(w * h);
            gaussian_blur(group(), w, h, PixelFormat::R32F, img.data(), out.data(), bo, o);
            CHECK(std::memcmp(out.data(), single.data(), out.size() * 4) == 0);
            const auto cmp = host::compare(out, host::gaussian_blur(img.data(), w, h, 1, w, 1.5, 1.5, bo.border));
            CHECK(cmp.rel_error <= host::truncated_blur_tolerance(1.5, 1.5));
          }
          {  // sgemm: one plan of the chunk's columns for every chunk
            const std::size_t m = 19, nn = 150, k = 23;
            const auto a = host::random_floats(m * k, test::seed() + 75),
                       b = host::random_floats(k * nn, test::seed() + 76);
            std::vector<float> c = host::poisoned(m * nn);
            const GroupRun r = sgemm(group(), Layout::ColMajor, Transpose::No, Transpose::No, m, nn, k, 1.0f, a.data(),
                                     m, b.data(), k, 0.0f, c.data(), m, o);
            const host::GemmShape shape{false, false, false, m, nn, k, m, k, m};
            std::vector<double> ref(m * nn), mag(m * nn);
            host::gemm(shape, 1.0, a.data(), b.data(), 0.0, nullptr, ref.data(), 0, mag.data());
            CHECK(host::gemm_scaled_error(c.data(), ref.data(), mag.data(), c.size()) <= host::gemm_tolerance(k));
            for (const auto& sh : r.shares)
              if (sh.items) CHECK(sh.chunks == (sh.items + chunk - 1) / chunk);
          }
        }
  }
}
