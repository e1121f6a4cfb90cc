// The chunk ramp of group calls (GROUP_RAMP): smaller first and last chunks of each device's
// share, computed on plans of about their own size (detail::plan_items). Chunk counts worked out
// by hand for a ramp of two halvings; every family against the double host reference (transpose
// bitwise, separable blur bitwise against the single-device call) with the ramp on, split over
// the suite's two PoCL devices.
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

SplitOptions ramped(SplitMode mode, std::vector<double> weights, std::size_t chunk, int ramp) {
  SplitOptions o;
  o.mode = mode;
  o.weights = std::move(weights);
  o.chunk = chunk;
  o.staging = Staging::On;
  o.tuning.overrides["GROUP_RAMP"] = ramp;
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

  TEST_CASE("ramp: chunk counts of one device's share, and of two halves") {
    // FFT n = 16, 1000 transforms, chunk 100. Without a ramp: 10 chunks of 100. With two halvings
    // (chunk / 4 = 25): 25 and 50 first (925 left), then 100 while at least two chunks are left
    // (925, 825, ..., 225: 8 chunks, 125 left), then half of what is left down to 25: 63, 31, 25,
    // and the last 6: 14 chunks. Two halves of 500: 25, 50 (425 left), 100 at 425, 325, 225
    // (125 left), 63, 31, 25, 6: 9 chunks each.
    const std::size_t n = 16, batch = 1000;
    const auto x = host::random_floats(2 * n * batch, test::seed() + 71);
    const auto ref = host::fft_batch(x.data(), n, batch, 1, n, 0, false);
    std::vector<std::complex<float>> in(n * batch);
    std::memcpy(static_cast<void*>(in.data()), x.data(), x.size() * 4);
    struct Case {
      int ramp;
      bool two;
      std::size_t chunks;
    };
    for (const Case& c : {Case{0, false, 10}, Case{2, false, 14}, Case{2, true, 9}}) {
      if (c.two && group().size() < 2) continue;
      INFO("ramp " << c.ramp << (c.two ? ", two halves" : ", one device"));
      std::vector<double> w(group().size(), 0.0);
      w[0] = 1;
      if (c.two) w[1] = 1;
      std::vector<std::complex<float>> out(n * batch, {NAN, NAN});
      const GroupRun r =
          fft(group(), n, batch, in.data(), out.data(), false, ramped(SplitMode::Weights, w, 100, c.ramp));
      CHECK(r.shares[0].chunks == c.chunks);
      CHECK(r.shares[0].items == (c.two ? 500 : 1000));
      if (c.two) CHECK(r.shares[1].chunks == c.chunks);
      const auto e = host::fft_compare(reinterpret_cast<const float*>(out.data()), n, batch, 1, n, 0, ref);
      CHECK(e.nonfinite == 0);
      CHECK(e.max_rel_l2 <= host::fft_tolerance(n));
    }
  }

  TEST_CASE("ramp: every family against the reference, weights and dynamic") {
    for (int ramp : {1, 4}) {
      for (SplitMode mode : {SplitMode::Weights, SplitMode::Dynamic}) {
        INFO("ramp " << ramp << (mode == SplitMode::Dynamic ? ", dynamic" : ", 50/50"));
        const SplitOptions o = ramped(mode, mode == SplitMode::Weights ? halves() : std::vector<double>{}, 37, ramp);
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
        {  // separable blur: bands of every height the ramp makes, each as the whole image's rows
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
        {  // sgemm has no sized chunks: the ramp is not used, every chunk but the last is whole
          const std::size_t m = 19, nn = 150, k = 23;
          const auto a = host::random_floats(m * k, test::seed() + 75),
                     b = host::random_floats(k * nn, test::seed() + 76);
          std::vector<float> c = host::poisoned(m * nn);
          const GroupRun r = sgemm(group(), Layout::ColMajor, Transpose::No, Transpose::No, m, nn, k, 1.0f, a.data(), m,
                                   b.data(), k, 0.0f, c.data(), m, o);
          const host::GemmShape shape{false, false, false, m, nn, k, m, k, m};
          std::vector<double> ref(m * nn), mag(m * nn);
          host::gemm(shape, 1.0, a.data(), b.data(), 0.0, nullptr, ref.data(), 0, mag.data());
          CHECK(host::gemm_scaled_error(c.data(), ref.data(), mag.data(), c.size()) <= host::gemm_tolerance(k));
          for (const auto& sh : r.shares)
            if (sh.items) CHECK(sh.chunks == (sh.items + 36) / 37);
        }
      }
    }
  }
}
