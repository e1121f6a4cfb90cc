// Rader's algorithm for prime lengths n whose n - 1 has no prime factor above 13 (FFT_RADER;
// src/fft/fft_rader.cpp, cl/fft/fft_rader.cl) against FFTW (tests/fft_support.hpp): the passes of
// fft_local and the CPU lane kernel's four launches between the gather and the scatter, the
// caller's layouts, directions and scaling, chunks, the choice between Rader and Bluestein, the
// number theory against brute force, and invalid overrides.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fft/fft_internal.hpp"
#include "tests/fft_support.hpp"

using namespace clforge;
using namespace clforge::test::fft_cases;

namespace {
bool is_prime(std::size_t n) {
  if (n < 2) return false;
  for (std::size_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Largest prime factor by trial division (1 for n <= 1).
std::size_t largest_prime_factor(std::size_t n) {
  std::size_t largest = 1;
  for (std::size_t d = 2; d * d <= n; ++d)
    for (; n % d == 0; n /= d) largest = d;
  return n > 1 ? n : largest;
}

// Multiplicative order of g modulo the prime p, by repeated multiplication.
std::size_t order(std::size_t g, std::size_t p) {
  std::size_t k = 1;
  for (unsigned long long x = g % p; x != 1; x = x * g % p) ++k;
  return k;
}

// The smallest g whose order modulo the prime p is p - 1.
std::size_t smallest_generator(std::size_t p) {
  std::size_t g = 2;
  while (order(g, p) != p - 1) ++g;
  return g;
}

FftDesc desc_of(std::size_t n, std::size_t batch) {
  FftDesc d;
  d.n = n;
  d.batch = batch;
  return d;
}

std::string describe(const FftDesc& d, const ParamMap& p) {
  return FftPlan(test::session().queue, d, Tuning{p, false}).describe();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Work-groups per transform of a plan's gather, from its description ("Rader gather, G groups of ...").
std::size_t gather_groups(const std::string& how) {
  INFO(how);
  const std::size_t at = how.find("Rader gather, ");
  REQUIRE(at != std::string::npos);
  return std::stoul(how.substr(at + 14));
}

// fft_local's passes with Rader wherever it applies (FFT_RADER 2), not the CPU lane kernel.
ParamMap passes(ParamMap p = {}) {
  p.emplace("FFT_RADER", 2);
  p.emplace("FFT_LANES", 0);
  return p;
}

// The CPU lane kernel: one launch up to lane_max, above it two launches of FFT_LANES2 transforms
// per work-item (four for a convolution), lengths from 16 points per launch.
ParamMap lanes(int lane_max, int lanes2, int rader) {
  return ParamMap{{"FFT_LANES", 8},       {"FFT_LANE_RADIX", 8},  {"FFT_LANE_MIN", 16}, {"FFT_LANE_MAX", lane_max},
                  {"FFT_LANES2", lanes2}, {"FFT_LANE_EBLOCK", 1}, {"FFT_RADER", rader}};
}
}  // namespace

TEST_SUITE("fft_rader") {
  TEST_CASE("which lengths Rader's algorithm takes, and their smallest primitive roots, against brute force") {
    using detail::fft_primitive_root;
    using detail::fft_rader_applies;
    // Primes above 13 (the smaller ones are radices of their own) whose n - 1 has no prime factor above 13.
    for (std::size_t n = 0; n <= 3000; ++n) {
      CAPTURE(n);
      const bool expected = is_prime(n) && n > 13 && largest_prime_factor(n - 1) <= 13;
      CHECK(fft_rader_applies(n) == expected);
    }
    for (std::size_t n : {17, 257, 1009, 65537}) CHECK(fft_rader_applies(n));
    // 47: 46 = 2 * 23; 13 and 15 and 1024 smooth; 289 = 17^2 not prime (288 smooth); 1.
    for (std::size_t n : {47, 13, 15, 1024, 289, 1}) CHECK_FALSE(fft_rader_applies(n));

    // Known smallest primitive roots (Fermat primes 17, 257, 65537: 3; 1009: 11), then every
    // Rader length up to 3000 against the order computed by repeated multiplication.
    CHECK(fft_primitive_root(17) == 3);
    CHECK(fft_primitive_root(257) == 3);
    CHECK(fft_primitive_root(65537) == 3);
    CHECK(fft_primitive_root(1009) == 11);
    for (std::size_t p = 17; p <= 3000; ++p) {
      if (!is_prime(p)) continue;
      CAPTURE(p);
      const std::size_t g = fft_primitive_root(p);
      CHECK(order(g, p) == p - 1);
      CHECK(g == smallest_generator(p));
    }
  }

  TEST_CASE("passes: a gather, two (n - 1)-point FFTs in passes, a scatter; layouts, directions, scaling") {
    std::uint64_t seed = test::seed() + 2500;
    // n = 17 (m 16), 97 (96 = 2^5 * 3), 257 (256), 1009 (1008 = 16 * 63): forward and inverse.
    for (std::size_t n : {17, 97, 257, 1009}) {
      CAPTURE(n);
      check_fft(with(contiguous(n, 7), passes()), seed++);
      check_fft(with(contiguous(n, 3, true), passes()), seed++);
    }
    // Strided input with an offset (the gather reads x_(g^q) at the caller's stride).
    Case c = contiguous(97, 4);
    c.in = {3, 300, 5};
    check_fft(with(c, passes()), seed++);
    // Interleaved output (distance 1, element k of transform b at 2 + 5k + b), inverse over n.
    c = contiguous(257, 5, true);
    c.in = {2, 520, 1};
    c.out = {5, 1, 2};
    c.scaling = FftScaling::OverN;
    check_fft(with(c, passes()), seed++);
    // In place: the scatter overwrites the input the gather read; inverse over sqrt(n).
    c = contiguous(1009, 3, true);
    c.in_place = true;
    c.in = {1, 1013, 4};
    c.scaling = FftScaling::OverSqrtN;
    check_fft(with(c, passes()), seed++);
    c = contiguous(17, 6);  // forward with scaling, interleaved input
    c.in = {6, 1, 0};
    c.scaling = FftScaling::OverN;
    check_fft(with(c, passes()), seed++);
    c = contiguous(1009, 2);
    c.scaling = FftScaling::OverSqrtN;
    check_fft(with(c, passes()), seed++);

    // The plan names the convolution's length, the gather and the scatter with the primitive root
    // (computed here by brute force); it has no Bluestein part and 2 + 2P launches.
    for (std::size_t n : {17, 1009}) {
      CAPTURE(n);
      const FftPlan plan(test::session().queue, desc_of(n, 3), Tuning{passes(), false});
      const std::string how = plan.describe();
      INFO(how);
      CHECK(has(how, "Rader M=" + std::to_string(n - 1) + ", 2 x "));
      CHECK(has(how, ", gathered and scattered"));
      CHECK(has(how, "\n  Rader gather, "));
      CHECK(has(how, "\n  Rader scatter, g = " + std::to_string(smallest_generator(n))));
      CHECK(has(how, "Rader forward pass 1/"));
      CHECK(has(how, "Rader inverse pass 1/"));
      CHECK_FALSE(has(how, "Bluestein"));
      const std::size_t at = how.find("2 x ");
      REQUIRE(at != std::string::npos);
      const std::size_t P = std::stoul(how.substr(at + 4));  // passes per FFT
      CHECK(P >= 2);
      CHECK(plan.launches() == 2 + 2 * P);
    }
    CHECK(has(describe(desc_of(17, 3), passes()), "Rader M=16, 2 x 2 passes of 4*4, gathered and scattered"));
  }

  TEST_CASE("passes: gathers of several groups, scatters of small groups, batches in chunks") {
    std::uint64_t seed = test::seed() + 2600;
    // 32 work-items per group: the gather of 1008 values splits over groups whose partial sums the
    // scatter adds for X_0, and the scatter of 1009 outputs takes many groups per transform.
    const ParamMap small = passes({{"FFT_RADER_WG", 32}});
    Case c = contiguous(1009, 5, true);
    c.out = {2, 2100, 7};
    check_fft(with(c, small), seed++);
    check_fft(with(contiguous(1009, 4), small), seed++);
    // The case is only worth its time where the gather takes more than one group per transform;
    // one value per work-item (FFT_RADER_VPT 1) takes more groups still.
    const ParamMap one_each = passes({{"FFT_RADER_WG", 32}, {"FFT_RADER_VPT", 1}});
    const std::size_t groups = gather_groups(describe(desc_of(1009, 2), small));
    CHECK(groups > 1);
    CHECK(gather_groups(describe(desc_of(1009, 2), one_each)) > groups);
    check_fft(with(contiguous(1009, 3, true), one_each), seed++);
    check_fft(with(contiguous(257, 3), passes({{"FFT_RADER_WG", 512}})), seed++);

    // 65537: the 65536 values of a transform are 512 KiB, so 4 MiB chunks (FFT_CHUNK 4) with the side
    // values hold fewer than 9 transforms and more than 4: two chunks of 2 + 2 x 2 passes each.
    FftDesc d = desc_of(65537, 9);
    d.inverse_scaling = FftScaling::OverN;
    const ParamMap chunked = passes({{"FFT_CHUNK", 4}});
    const FftPlan plan(test::session().queue, d, Tuning{chunked, false});
    INFO(plan.describe());
    CHECK(has(plan.describe(), "Rader M=65536, 2 x 2 passes of 256*256, gathered and scattered"));
    CHECK(plan.launches() == 2 * 6);
    // At most FFT_CHUNK MiB per scratch buffer (two here), the side values (x_0 and the partial
    // sums) included; at least the 5 transforms per buffer that two chunks of 9 need.
    CHECK(plan.scratch_bytes() <= 2 * (std::size_t{4} << 20));
    CHECK(plan.scratch_bytes() >= 2 * 5 * 65536 * 8);
    check_fft(with(contiguous(65537, 9), chunked), seed++);
    c = contiguous(65537, 9, true);
    c.scaling = FftScaling::OverN;
    check_fft(with(c, chunked), seed++);
  }

  TEST_CASE(
      "lane kernel: four lane launches between a gather and a scatter, and Bluestein where n - 1 does not split") {
    std::uint64_t seed = test::seed() + 2700;
    // 257: Bluestein's 1024 points (2^k >= 2n - 1) pass FFT_LANE_MAX 256; 256 = 16 x 16 in launches
    // of 16 lanes.
    const ParamMap p16 = lanes(256, 16, 1);
    CHECK(
        has(describe(desc_of(257, 3), p16), "Rader M=256, four lane kernels between a gather and a scatter, 16 x 16"));
    check_fft(with(contiguous(257, 5), p16), seed++);
    check_fft(with(contiguous(257, 4, true), p16), seed++);
    Case c = contiguous(257, 6);  // strided input with an offset, interleaved output, scaled
    c.in = {2, 600, 3};
    c.out = {6, 1, 1};
    c.scaling = FftScaling::OverSqrtN;
    check_fft(with(c, p16), seed++);
    c = contiguous(257, 3, true);  // in place, inverse over n
    c.in_place = true;
    c.in = {1, 260, 2};
    c.scaling = FftScaling::OverN;
    check_fft(with(c, p16), seed++);

    // 641: 640 = 40 x 16 in launches of 8 lanes (radix 5 in the 40-point launch).
    const ParamMap p8 = lanes(256, 8, 1);
    const std::string how8 = describe(desc_of(641, 3), p8);
    INFO(how8);
    CHECK(has(how8, "Rader M=640, four lane kernels between a gather and a scatter"));
    CHECK(has(how8, "Rader scatter, g = " + std::to_string(smallest_generator(641))));
    check_fft(with(contiguous(641, 9), p8), seed++);
    c = contiguous(641, 2, true);
    c.in = {3, 1930, 0};
    c.scaling = FftScaling::OverSqrtN;
    check_fft(with(c, p8), seed++);

    // With 16 lanes 640 has no split into two multiples of 16: Bluestein, under FFT_RADER 2 too.
    const std::string how16 = describe(desc_of(641, 3), lanes(256, 16, 2));
    INFO(how16);
    CHECK(has(how16, "Bluestein M="));
    CHECK_FALSE(has(how16, "Rader"));
    check_fft(with(contiguous(641, 5, true), lanes(256, 16, 2)), seed++);
  }

  TEST_CASE("FFT_RADER chooses between Rader and Bluestein") {
    std::uint64_t seed = test::seed() + 2800;
    const FftDesc d1009 = desc_of(1009, 3);
    // 0: Bluestein, also where it takes passes (a single-kernel limit of 256 points).
    const ParamMap never = {{"FFT_RADER", 0}, {"FFT_LANES", 0}, {"FFT_LOCAL_MAX", 256}};
    std::string how = describe(d1009, never);
    CHECK(has(how, "Bluestein M="));
    CHECK_FALSE(has(how, "Rader"));
    // 1: the one-kernel Bluestein of 2048 points stays; where it does not fit, Rader's passes.
    how = describe(d1009, {{"FFT_RADER", 1}, {"FFT_LANES", 0}});
    CHECK(has(how, "Bluestein, one kernel of 2048 points"));
    CHECK_FALSE(has(how, "Rader"));
    const ParamMap where_passes = {{"FFT_RADER", 1}, {"FFT_LANES", 0}, {"FFT_LOCAL_MAX", 256}};
    how = describe(d1009, where_passes);
    CHECK(has(how, "Rader M=1008, 2 x "));
    check_fft(with(contiguous(1009, 3, true), where_passes), seed++);
    // 2: Rader also where one Bluestein kernel would fit.
    CHECK(has(describe(d1009, passes()), "Rader M=1008"));
    // The lane kernel under 1: Bluestein in one launch where 1024 points fit FFT_LANE_MAX; under
    // 2 Rader there too (256 = 16 x 16); under 0 Bluestein's four launches where they do not fit.
    how = describe(desc_of(257, 3), lanes(4096, 16, 1));
    CHECK(has(how, "Bluestein, one lane kernel of 1024 points"));
    how = describe(desc_of(257, 3), lanes(4096, 16, 2));
    CHECK(has(how, "Rader M=256, four lane kernels between a gather and a scatter, 16 x 16"));
    check_fft(with(contiguous(257, 3, true), lanes(4096, 16, 2)), seed++);
    how = describe(desc_of(257, 3), lanes(256, 16, 0));
    CHECK(has(how, "Bluestein M="));
    CHECK(has(how, "four lane kernels"));
    CHECK_FALSE(has(how, "Rader"));
    // 47 (46 = 2 * 23) stays Bluestein under 2, and is right.
    how = describe(desc_of(47, 3), passes());
    CHECK(has(how, "Bluestein"));
    CHECK_FALSE(has(how, "Rader"));
    check_fft(with(contiguous(47, 9, true), passes()), seed++);
  }

  TEST_CASE("invalid Rader overrides throw InvalidArgument from the plan constructor") {
    auto& s = test::session();
    for (std::size_t n : {17, 1024}) {  // a Rader length and one that never takes it
      CAPTURE(n);
      const FftDesc d = desc_of(n, 2);
      for (const auto& [name, value] :
           {std::pair<const char*, int>{"FFT_RADER", 3}, {"FFT_RADER_WG", 48}, {"FFT_RADER_VPT", 3}}) {
        const Tuning bad{{{name, value}}, false};
        test::expect_invalid_argument([&] { FftPlan(s.queue, d, bad); },
                                      std::string(name) + "=" + std::to_string(value));
      }
    }
  }
}
