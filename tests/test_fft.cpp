// Batched 1-D complex FFT against FFTW in double precision: powers of two 2^0 .. 2^20, mixed
// radices, primes (Bluestein), forward, inverse and round trips, strides, padded distances and
// offsets, in-place and out-of-place, scaling, every shipped vendor-class parameter set with
// local-memory halving on and off, and invalid arguments.
//
// Error metric: relative L2 error per transform, ||y_b - ref_b|| / ||ref_b||, must stay below
// host::fft_tolerance(n) = c * (2e-7 + 6e-8 * log2 n) with c = 1 for lengths with prime factors
// <= 13 and c = 3 for Bluestein lengths. Outputs are poisoned with NaN first; elements outside
// the output layout (gaps and a guard tail) must keep their poison (or, in place, their input).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "clforge/fft.hpp"
#include "clforge/runtime.hpp"
#include "tuning/spec.hpp"
#include "fft/fft_internal.hpp"
#include "host/fft.hpp"
#include "host/fftw_reference.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

struct Case {
  std::size_t n = 1, batch = 1;
  FftLayout in{}, out{};
  bool in_place = false;
  bool inverse = false;
  FftScaling scaling = FftScaling::None;
  Tuning tuning{{}, false};
};

std::size_t span(const FftLayout& l, std::size_t n, std::size_t batch) {
  return l.offset + (batch - 1) * l.distance + (n - 1) * l.stride + 1;
}

std::string params_of(const Tuning& t) {
  std::string p;
  for (const auto& [k, v] : t.overrides) p += k + "=" + std::to_string(v) + " ";
  return p.empty() ? "(device defaults)" : p;
}

double scale_of(FftScaling s, std::size_t n) {
  return s == FftScaling::OverN ? 1.0 / n : s == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(n)) : 1.0;
}

// Runs one plan on fresh random data and checks it; returns the largest relative error.
double check_fft(Case c, std::uint64_t seed) {
  auto& s = test::session();
  if (c.in.distance == 0) c.in.distance = c.n * c.in.stride;
  if (c.in_place) c.out = c.in;
  if (c.out.distance == 0) c.out.distance = c.n * c.out.stride;
  const std::size_t guard = 127;
  const std::size_t in_elems = span(c.in, c.n, c.batch) + guard;
  const std::size_t out_elems = c.in_place ? in_elems : span(c.out, c.n, c.batch) + guard;

  std::vector<float> in = host::random_floats(2 * in_elems, seed);
  std::vector<float> out = c.in_place ? in : host::poisoned(2 * out_elems);
  const std::vector<double> dummy;
  const double scale = scale_of(c.scaling, c.n);
  const std::vector<host::cdouble> ref =
      host::fftw_batch(in.data(), c.n, c.batch, c.in.stride, c.in.distance, c.in.offset, c.inverse, scale);

  FftDesc d;
  d.n = c.n;
  d.batch = c.batch;
  d.in = c.in;
  d.out = c.out;
  d.in_place = c.in_place;
  (c.inverse ? d.inverse_scaling : d.forward_scaling) = c.scaling;
  INFO("n " << c.n << " batch " << c.batch << (c.inverse ? " inverse" : " forward") << (c.in_place ? " in-place" : "")
            << " in (stride " << c.in.stride << ", distance " << c.in.distance << ", offset " << c.in.offset
            << ") out (stride " << c.out.stride << ", distance " << c.out.distance << ", offset " << c.out.offset
            << ") seed " << seed << " params " << params_of(c.tuning));
  FftPlan plan(s.queue, d, c.tuning);
  INFO("plan: " << plan.describe());

  cl::Buffer bin(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in.size() * 4, in.data());
  cl::Buffer bout =
      c.in_place ? bin : cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data());
  cl::Event ev;
  if (c.inverse) plan.inverse(bin, bout, {}, &ev);
  else plan.forward(bin, bout, {}, &ev);
  std::vector<cl::Event> deps{ev};
  std::vector<float> got(out.size());
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, got.size() * 4, got.data(), &deps);

  const host::FftError e = host::fft_compare(got.data(), c.n, c.batch, c.out.stride, c.out.distance, c.out.offset, ref);
  const double tol = host::fft_tolerance(c.n);
  INFO("max relative L2 error " << e.max_rel_l2 << " (transform " << e.worst << "), max abs " << e.max_abs
                                << ", tolerance " << tol);
  CHECK(e.nonfinite == 0);
  CHECK(e.max_rel_l2 <= tol);

  // Nothing outside the output layout changes: poison (out of place) or the input (in place).
  std::vector<char> mask(got.size() / 2, 0);
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t k = 0; k < c.n; ++k) mask[c.out.offset + b * c.out.distance + k * c.out.stride] = 1;
  std::size_t touched = 0, first = 0;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (!mask[i] && std::memcmp(&got[2 * i], &out[2 * i], 8) != 0 && touched++ == 0) first = i;
  INFO("first changed element outside the layout: " << first);
  CHECK(touched == 0);
  if (!c.in_place) {  // the input is never written
    std::vector<float> after(in.size());
    s.queue.enqueueReadBuffer(bin, CL_TRUE, 0, after.size() * 4, after.data());
    CHECK(std::memcmp(after.data(), in.data(), in.size() * 4) == 0);
  }
  return e.max_rel_l2;
}

Case contiguous(std::size_t n, std::size_t batch, bool inverse = false) {
  Case c;
  c.n = n;
  c.batch = batch;
  c.inverse = inverse;
  return c;
}

bool long_tests() {
  const char* v = std::getenv("CLFORGE_LONG_TESTS");
  return v != nullptr && std::string(v) == "1";
}

// A vendor class's shipped parameters for length n (resolved for a made-up device of that class).
ParamMap vendor_row(VendorClass v, std::size_t n) {
  return test::vendor_row("fft", v, std::to_string(n));
}

Case with(Case c, const ParamMap& p) {
  c.tuning = Tuning{p, false};
  return c;
}

}  // namespace

TEST_SUITE("fft") {
  TEST_CASE("powers of two 2^0 .. 2^20, forward and inverse") {
    std::uint64_t seed = test::seed();
    for (int k = 0; k <= 20; ++k) {
      const std::size_t n = std::size_t{1} << k;
      const std::size_t batch = long_tests() ? std::max<std::size_t>(3, (std::size_t{1} << 22) / n)
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

  TEST_CASE("long lengths: several passes, and Bluestein in several passes") {
    std::uint64_t seed = test::seed() + 200;
    const std::size_t lengths[] = {3 * 4096, 7 * 11 * 13 * 16, 3 * 3 * 3 * 3 * 3 * 3 * 3 * 3 * 3, 65537};
    for (std::size_t n : lengths) {
      CAPTURE(n);
      check_fft(contiguous(n, 2), seed++);
      check_fft(contiguous(n, 1, true), seed++);
    }
    if (long_tests()) {
      for (std::size_t n : {std::size_t{1} << 21, std::size_t{1} << 22, std::size_t{3} << 20, std::size_t{10007},
                            std::size_t{1000003}})
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
      c.in = {1, n + 3, 7};     // padded rows and an offset
      c.out = {1, n + 17, 2};
      check_fft(c, seed++);
      c.in = {3, 3 * n + 1, 0};  // element stride
      c.out = {2, 2 * n, 5};
      check_fft(c, seed++);
      c.in = {5, 1, 1};          // interleaved: element stride >= batch, distance 1
      c.out = {6, 1, 0};
      c.inverse = true;
      check_fft(c, seed++);
      c.in = {1, n, 0};          // contiguous in, interleaved out
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

  TEST_CASE("every shipped vendor-class parameter set, with local-memory halving off and on") {
    // Each row as shipped on the lengths that take the different kernel kinds (registers, one
    // work-group per transform, mixed radix, Bluestein), then with halving flipped on the kernels
    // that exchange through local memory (including the staged load/store of interleaved batches).
    std::uint64_t seed = test::seed() + 700;
    for (VendorClass v : {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other}) {
      CAPTURE(to_string(v));
      for (std::size_t n : {16, 256, 4096, 1000, 1009})
        check_fft(with(contiguous(n, n <= 64 ? 70 : 3, n % 2 == 1), vendor_row(v, n)), seed++);
      if (v == VendorClass::NVIDIA) {  // passes through global memory with the H100 row (staged, halved)
        check_fft(with(contiguous(std::size_t{1} << 20, 1), vendor_row(v, 1024)), seed++);
        check_fft(with(contiguous(65537, 1, true), vendor_row(v, 65537)), seed++);
        check_fft(with(contiguous(8192, 2), vendor_row(v, 8192)), seed++);
      }
      for (int halve : {0, 1}) {
        CAPTURE(halve);
        for (std::size_t n : {4096, 1000}) {
          ParamMap p = vendor_row(v, n);
          p["FFT_HALVE"] = halve;
          check_fft(with(contiguous(n, 3, n == 1000), p), seed++);
        }
        ParamMap p = vendor_row(v, 256);
        p["FFT_HALVE"] = halve;
        Case c = contiguous(256, 12);  // interleaved batches take the staged path
        c.in = {12, 1, 0};
        c.out = {12, 1, 0};
        check_fft(with(c, p), seed++);
      }
    }
  }

  TEST_CASE("other parameter sets: radices, registers, values per work-item, staging, twiddles, padding, float2 access") {
    std::uint64_t seed = test::seed() + 800;
    const ParamMap sets[] = {
        {{"FFT_RADIX", 2}, {"FFT_WG", 64}, {"FFT_REG", 1}},
        {{"FFT_RADIX", 4}, {"FFT_WG", 128}, {"FFT_REG", 4}, {"FFT_STAGE", 1}, {"FFT_PAD", 0}},
        {{"FFT_RADIX", 16}, {"FFT_WG", 1024}, {"FFT_REG", 64}, {"FFT_TWIDDLE", 1}, {"FFT_VEC", 0}},
        {{"FFT_RADIX", 8}, {"FFT_WG", 32}, {"FFT_REG", 32}, {"FFT_STAGE", 2}, {"FFT_HALVE", 1}, {"FFT_VEC", 1}},
        {{"FFT_LOCAL_MAX", 256}, {"FFT_WG", 64}, {"FFT_STAGE", 1}, {"FFT_HALVE", 1}, {"FFT_TWIDDLE", 1}},
        {{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 16}, {"FFT_HALVE", 1}},
        // Several butterflies per work-item and pass (fewer work-items per transform).
        {{"FFT_RADIX", 16}, {"FFT_VPT", 32}, {"FFT_WG", 128}, {"FFT_HALVE", 1}},
        {{"FFT_RADIX", 8}, {"FFT_VPT", 64}, {"FFT_WG", 64}, {"FFT_TWIDDLE", 1}},
        // Exchanges in quarters (FFT_HALVE 2): a round picks a work-item's butterflies by its index
        // (one butterfly each) or by the butterfly (two each); odd radices, Bluestein, one
        // transform per work-item and staged loads fall back to halves.
        {{"FFT_HALVE", 2}, {"FFT_RADIX", 16}, {"FFT_WG", 256}},
        {{"FFT_HALVE", 2}, {"FFT_RADIX", 16}, {"FFT_VPT", 32}, {"FFT_WG", 64}, {"FFT_PAD", 0}},
        // One twiddle per butterfly in double, the others its powers (FFT_TWIDDLE 2), in
        // local-memory kernels and in one transform per work-item, float2 or float access.
        {{"FFT_TWIDDLE", 2}, {"FFT_RADIX", 16}, {"FFT_WG", 256}, {"FFT_HALVE", 2}},
        {{"FFT_TWIDDLE", 2}, {"FFT_RADIX", 8}, {"FFT_REG", 64}, {"FFT_VEC", 0}, {"FFT_WG", 32}},
        // Radix 32 (1024 = 32*32 on 32 work-items; 32 points in registers; twiddle powers up to
        // the 31st in double).
        {{"FFT_RADIX", 32}, {"FFT_WG", 64}, {"FFT_REG", 32}},
        {{"FFT_RADIX", 32}, {"FFT_TWIDDLE", 2}, {"FFT_HALVE", 2}, {"FFT_WG", 128}},
        // Every pass's twiddles as float products of the powers w^(2^k) (FFT_TWIDDLE 5).
        {{"FFT_TWIDDLE", 5}, {"FFT_RADIX", 16}, {"FFT_WG", 256}, {"FFT_HALVE", 2}},
        {{"FFT_TWIDDLE", 5}, {"FFT_RADIX", 32}, {"FFT_WG", 64}, {"FFT_REG", 32}},
    };
    for (const auto& p : sets) {
      CAPTURE(params_of(Tuning{p, false}));
      // A set needing more local memory than the device has (FFT_WG=1024 with 64 registers on a
      // 48 KiB GPU) must be refused by name before anything runs; PoCL runs every set.
      try {
        check_fft(with(contiguous(1024, 3), p), seed++);
      } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("do not fit device") != std::string::npos);
        CHECK((what.find("local memory") != std::string::npos || what.find("cl_khr_fp64") != std::string::npos));
        continue;
      }
      for (std::size_t n : {8, 64, 1024, 1000, 17})
        check_fft(with(contiguous(n, n <= 64 ? 67 : 3, n % 2 == 1), p), seed++);
      Case c = contiguous(128, 9);
      c.in = {9, 1, 0};
      c.out = {1, 130, 0};
      check_fft(with(c, p), seed++);
    }
    // Multi-pass plans under a small single-kernel limit, and one long kernel where the device's
    // local memory holds it (PoCL; a 48 KiB GPU refuses it by name).
    check_fft(with(contiguous(8192, 2, true), sets[4]), seed++);
    // Passes capped below the single-kernel limit: 65536 = 64*64*16, 2^20 in passes of at most
    // 128, and a Bluestein length whose M-point FFTs take passes of at most 64.
    const ParamMap short_passes = {{"FFT_PASS_MAX", 64}};
    check_fft(with(contiguous(65536, 2, true), short_passes), seed++);
    check_fft(with(contiguous(1 << 20, 1), ParamMap{{"FFT_PASS_MAX", 128}}), seed++);
    check_fft(with(contiguous(4099, 3), short_passes), seed++);
    // Batches in chunks of FFT_CHUNK MiB, every pass of a chunk before the next: 16384 points are
    // 128 KiB, so 4 MiB chunks hold 32 transforms and 70 run as 32 + 32 + 6.
    const ParamMap chunks = {{"FFT_CHUNK", 4}, {"FFT_LOCAL_MAX", 4096}};
    {
      FftDesc d;
      d.n = 16384;
      d.batch = 70;
      FftPlan plan(test::session().queue, d, Tuning{chunks, false});
      CHECK(plan.launches() == 3 * 2);
      CHECK(plan.scratch_bytes() == std::size_t{4} << 20);
    }
    check_fft(with(contiguous(16384, 70, true), chunks), seed++);
    try {
      check_fft(with(contiguous(16384, 2), sets[5]), seed++);
    } catch (const InvalidArgument& e) {
      CHECK(std::string(e.what()).find("do not fit device") != std::string::npos);
      CHECK(test::session().entry.info.local_mem_size < 16384 * 8);
    }
    // 16384 points in one kernel with the exchanges in quarters (32 KiB of local memory), with
    // one and with two butterflies per work-item and pass, forward and inverse, in place.
    for (const ParamMap& p : {ParamMap{{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 16}, {"FFT_HALVE", 2}},
                              ParamMap{{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 16}, {"FFT_HALVE", 2}, {"FFT_VPT", 32}},
                              ParamMap{{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 32}, {"FFT_HALVE", 2}},
                              // The last pass's twiddles in double, the second pass's from the table.
                              ParamMap{{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 32}, {"FFT_HALVE", 2}, {"FFT_TWIDDLE", 3}},
                              // The last pass's twiddles as float products w^(4h) * w^l (l, h < 4).
                              ParamMap{{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 32}, {"FFT_HALVE", 2}, {"FFT_TWIDDLE", 4}}}) {
      CAPTURE(params_of(Tuning{p, false}));
      FftDesc d;
      d.n = 16384;
      d.batch = 3;
      FftPlan plan(test::session().queue, d, Tuning{p, false});
      CHECK(plan.launches() == 1);
      check_fft(with(contiguous(16384, 3), p), seed++);
      Case c = with(contiguous(16384, 2, true), p);
      c.in_place = true;
      check_fft(c, seed++);
      // Interleaved transforms stage their accesses: one kernel where halving fits (PoCL),
      // else the passes (a 48 KiB GPU).
      c = with(contiguous(16384, 3), p);
      c.in = c.out = {3, 1, 0};
      check_fft(c, seed++);
    }
    // The odd radices 3, 5, 7 and 13 with FFT_TWIDDLE 2 (powers up to the twelfth).
    for (std::size_t n : {3000, 4095}) check_fft(with(contiguous(n, 2, n == 3000), sets[10]), seed++);
    // Twiddles as float products of the powers w^(2^k) (FFT_TWIDDLE 4) in the large passes of
    // odd and merged radices: 3000 = 8*15*5*5 (radix 5 after 600), 4095 (radix 13 after 315), and
    // 8192 (radix 8 after 1024).
    for (int tw : {4, 5})
      for (std::size_t n : {3000, 4095, 8192}) {
        const ParamMap p = {{"FFT_TWIDDLE", tw}, {"FFT_MIX", 1}, {"FFT_VPT", 15}, {"FFT_WG", 128},
                            {"FFT_LOCAL_MAX", 8192}, {"FFT_HALVE", 1}};
        check_fft(with(contiguous(n, 2, n == 4095), p), seed++);
      }
    // More work-items than the largest radix's butterflies (FFT_VPT below it): 3000 on 600 and
    // 1000 work-items (the radix-8 pass leaves 225 or 625 idle), 4096 on 512 (radix 16).
    for (const auto& [n, vpt, t] : {std::tuple<std::size_t, int, int>{3000, 5, 600}, {3000, 3, 1000}, {4096, 8, 512}}) {
      const ParamMap p = {{"FFT_VPT", vpt}, {"FFT_RADIX", 16}};
      ParamMap full = vendor_row(VendorClass::Other, n);
      for (const auto& [k, v] : p) full[k] = v;
      CHECK(clforge::detail::fft_base_shape(n, full, 1024).t == t);
      check_fft(with(contiguous(n, 3, n == 4096), p), seed++);
    }
    // Passes with their exchanges in quarters, numbered element-fastest and transform-fastest
    // (contiguous sides staged or, FFT_STAGE 3, direct, with 4 transforms per group), and a
    // Bluestein length whose passes may use them.
    for (int stage : {0, 2, 3}) {
      ParamMap p = {{"FFT_HALVE", 2}, {"FFT_PASS_MAX", 256}, {"FFT_STAGE", stage}, {"FFT_WG", 256}};
      if (stage == 3) {
        p["FFT_ACROSS"] = 4;
        p["FFT_TWIDDLE"] = 2;
      }
      CAPTURE(params_of(Tuning{p, false}));
      check_fft(with(contiguous(65536, 2, stage == 0), p), seed++);
      check_fft(with(contiguous(4099, 3), p), seed++);
    }
    // Two passes of 32*32 (2^20) and 32*32 then 512 (2^19), transform-fastest with 4 transforms
    // per group of 128 work-items, in quarters.
    const ParamMap r32 = {{"FFT_PASS_MAX", 1024}, {"FFT_RADIX", 32}, {"FFT_WG", 128}, {"FFT_HALVE", 2},
                          {"FFT_STAGE", 3}, {"FFT_ACROSS", 4}};
    for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 19}) {
      CAPTURE(n);
      FftDesc d;
      d.n = n;
      FftPlan plan(test::session().queue, d, Tuning{r32, false});
      INFO(plan.describe());
      CHECK(plan.launches() == 2);
      CHECK(plan.describe().find("(1024 points): radix 32*32, 32 work-items x 4 transforms") != std::string::npos);
      check_fft(with(contiguous(n, 1, n == (std::size_t{1} << 19)), r32), seed++);
    }
  }

  TEST_CASE("odd factors merged into radix-9, -15 and -25 butterflies (FFT_MIX), with halving off and on") {
    // Lengths whose odd factors merge (3*3, 3*5, 5*5) in registers, in one work-group and with
    // 200 work-items per transform (FFT_VPT 15), twiddles from the table and as powers in
    // double (one chain or two); forward, inverse, in place and interleaved.
    std::uint64_t seed = test::seed() + 1100;
    // Groups of 64 or 128 work-items: fewer work-items per transform put more transforms in a
    // group, and 225 = 25*9 on 9 work-items in groups of 256 would need 50 KiB on a 48 KiB GPU.
    const ParamMap spread = {{"FFT_VPT", 15}, {"FFT_TWIDDLE", 2}, {"FFT_WG", 128}};
    for (int mix : {1, 2})
      for (int halve : {0, 1}) {
        // each merging both ways
        ParamMap p = (mix + halve) % 2 == 0 ? ParamMap{{"FFT_WG", 64}} : spread;
        p["FFT_MIX"] = mix;
        p["FFT_DCHAIN"] = mix;  // the double powers (up to the 24th) in one chain or two
        p["FFT_HALVE"] = halve;
        CAPTURE(params_of(Tuning{p, false}));
        for (std::size_t n : {9, 15, 25, 45, 75, 225, 60, 1000, 3000, 4095, 3375})
          check_fft(with(contiguous(n, n <= 64 ? 41 : 3, n % 2 == 1), p), seed++);
        Case c = with(contiguous(3000, 2), p);
        c.in_place = true;
        check_fft(c, seed++);
        c = with(contiguous(1000, 5, true), p);  // staged across the interleaved transforms
        c.in = c.out = {5, 1, 0};
        check_fft(c, seed++);
      }
  }

  TEST_CASE("every shipped sm_90 row computes the right answer here") {
    // The H100 rows (architecture sm_90), resolved for a made-up NVIDIA sm_90 device with this
    // device's limits, run on their own lengths (PoCL on CI), forward and inverse.
    using namespace clforge::detail;
    const DeviceInfo fake = test::fake_device(VendorClass::NVIDIA, "sm_90");
    const auto j = nlohmann::json::parse(load_kernel_source(kernel_spec("fft").database).text);
    std::set<std::string> variants;
    for (const auto& e : j["entries"])
      if (e.value("architecture", "") == "sm_90" && e.contains("variant")) variants.insert(e["variant"].get<std::string>());
    CHECK(variants.count("3000") == 1);
    CHECK(variants.count("16384") == 1);
    CHECK(variants.count("pass1024:later") == 1);
    CHECK(variants.count("pass512:later") == 1);
    std::uint64_t seed = test::seed() + 1300;
    for (const std::string& v : variants) {
      if (v.rfind("pass", 0) == 0) continue;  // below, in the plans that use them
      const std::size_t n = std::stoull(v);
      const ParamMap p = resolve_configuration("fft", v, fake, Tuning{{}, false}).values;
      CAPTURE(n);
      CAPTURE(params_of(Tuning{p, false}));
      check_fft(with(contiguous(n, n <= 64 ? 67 : n >= 65536 ? 1 : 3), p), seed++);
      check_fft(with(contiguous(n, n >= 65536 ? 1 : 2, true), p), seed++);
    }
    // The pass rows act per pass: every sm_90 variant's configuration, resolved for the made-up
    // device, becomes a row of a tuning file here (with "*" for the lengths without one), and
    // the multi-pass lengths run under it: 2^20 (pass1024, pass1024:later), 2^19 (pass1024,
    // pass512:later) and 2^18 (pass512 from "*", pass512:later).
    nlohmann::json rows = nlohmann::json::array();
    variants.insert("*");
    for (const std::string& v : variants) {
      nlohmann::json params;
      for (const auto& [k, val] : resolve_configuration("fft", v, fake, Tuning{{}, false}).values) params[k] = val;
      rows.push_back({{"variant", v}, {"params", params}});
    }
    const std::string file = test::temp_dir("fft-sm90-passes") + "/rows.json";
    std::ofstream(file) << nlohmann::json{{"kernel", "fft"}, {"entries", rows}}.dump();
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    for (const std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 19, std::size_t{1} << 18}) {
      CAPTURE(n);
      FftDesc d;
      d.n = n;
      FftPlan plan(test::session().queue, d, Tuning{{}, false});
      INFO(plan.describe());
      REQUIRE(plan.configurations().size() == 2);
      CHECK(plan.configurations()[1].variant.find(":later") != std::string::npos);
      check_fft(contiguous(n, 1, n == (std::size_t{1} << 19)), seed++);
    }
  }

  TEST_CASE("every shipped CPU row, for Intel and AMD processors, computes the right answer here") {
    // The CPU rows resolved for a made-up PoCL device of each processor maker (the AMD rows are
    // narrowed by device_vendor), on their own lengths, forward and inverse.
    using namespace clforge::detail;
    const auto j = nlohmann::json::parse(load_kernel_source(kernel_spec("fft").database).text);
    std::set<std::string> variants, amd_variants;
    for (const auto& e : j["entries"])
      if (e.value("vendor", "") == "CPU" && e.contains("variant") && e["variant"].get<std::string>().rfind("pass", 0) != 0) {
        variants.insert(e["variant"].get<std::string>());
        if (e.contains("device_vendor")) amd_variants.insert(e["variant"].get<std::string>());
      }
    CHECK(amd_variants.count("64") == 1);
    std::uint64_t seed = test::seed() + 1500;
    for (const char* maker : {"GenuineIntel", "AuthenticAMD"}) {
      const DeviceInfo fake = test::fake_device(VendorClass::CPU, "", "no such device", maker);
      CAPTURE(maker);
      for (const std::string& v : variants) {
        const std::size_t n = std::stoull(v);
        const Configuration cfg = resolve_configuration("fft", v, fake, Tuning{{}, false});
        const bool narrowed = cfg.sources.at("FFT_VEC").find("(AuthenticAMD)") != std::string::npos;
        CHECK(narrowed == (std::string(maker) == "AuthenticAMD" && amd_variants.count(v) == 1));
        CAPTURE(n);
        CAPTURE(params_of(Tuning{cfg.values, false}));
        check_fft(with(contiguous(n, n <= 64 ? 67 : 3), cfg.values), seed++);
        check_fft(with(contiguous(n, 2, true), cfg.values), seed++);
      }
    }
  }

  TEST_CASE("passes: FFT_STAGE 3 numbers the strided sides transform-fastest with FFT_ACROSS transforms per group") {
    auto& s = test::session();
    FftDesc d;
    d.n = 65536;
    d.batch = 2;
    for (int across : {4, 8, 16}) {
      CAPTURE(across);
      const ParamMap p = {{"FFT_PASS_MAX", 256}, {"FFT_STAGE", 3}, {"FFT_ACROSS", across}, {"FFT_WG", 256},
                          {"FFT_RADIX", 16}, {"FFT_HALVE", 2}, {"FFT_VPT", 0}};
      FftPlan plan(s.queue, d, Tuning{p, false});
      const std::string how = plan.describe();
      INFO(how);
      // 65536 = 256 * 256: both passes direct on both sides, transform-fastest, in quarters;
      // radix 16 gives 16 work-items per transform, so 256 work-items hold 16 transforms (at
      // least FFT_ACROSS).
      CHECK(how.find("pass 1/2 (256 points): radix 16*16, 16 work-items x 16 transforms, load direct, store direct, "
                     "transform-fastest, local memory in quarters") != std::string::npos);
      CHECK(how.find("staged") == std::string::npos);
    }
    // 32 values per work-item make 8 work-items per transform and 8 transforms per group of 64:
    // fewer than FFT_ACROSS 16, still numbered transform-fastest (never staged).
    const ParamMap q = {{"FFT_PASS_MAX", 256}, {"FFT_STAGE", 3}, {"FFT_ACROSS", 16}, {"FFT_WG", 128},
                        {"FFT_RADIX", 16}, {"FFT_VPT", 32}};
    FftPlan plan(s.queue, d, Tuning{q, false});
    INFO(plan.describe());
    CHECK(plan.describe().find("8 work-items x 8 transforms, load direct, store direct, transform-fastest") !=
          std::string::npos);
    check_fft(with(contiguous(65536, 2), q), test::seed() + 1100);
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

  TEST_CASE("decomposition") {
    using namespace clforge::detail;
    CHECK(fft_smooth(1));
    CHECK(fft_smooth(2 * 3 * 5 * 7 * 11 * 13));
    CHECK_FALSE(fft_smooth(17));
    CHECK(fft_bluestein_length(1009) == 2048);
    CHECK(fft_bluestein_length_smooth(65537) == 131220);
    CHECK(fft_radices(4096, 16) == std::vector<int>{16, 16, 16});
    CHECK(fft_radices(1024, 16) == std::vector<int>{16, 8, 8});
    CHECK(fft_radices(1000, 8) == std::vector<int>{8, 5, 5, 5});
    // Odd factors merged in pairs: 3*5 and 3*3 (mix 1), 5*5 first (mix 2); powers of two as before.
    CHECK(fft_radices(3000, 16, 1) == std::vector<int>{8, 15, 5, 5});
    CHECK(fft_radices(3000, 16, 2) == std::vector<int>{8, 25, 15});
    CHECK(fft_radices(4095, 16, 1) == std::vector<int>{15, 13, 7, 3});
    CHECK(fft_radices(3375, 16, 1) == std::vector<int>{15, 15, 15});
    CHECK(fft_radices(3375, 16, 2) == std::vector<int>{25, 15, 9});
    CHECK(fft_radices(1000, 8, 1) == std::vector<int>{8, 5, 5, 5});
    CHECK(fft_radices(1024, 16, 2) == std::vector<int>{16, 8, 8});
    // A length the merging makes one butterfly keeps its primes' passes outside registers (one
    // work-item per transform otherwise); in registers the single butterfly is taken.
    const clforge::ParamMap mix2 = {{"FFT_RADIX", 16}, {"FFT_WG", 256}, {"FFT_REG", 16}, {"FFT_HALVE", 0},
                                    {"FFT_PAD", 1}, {"FFT_VPT", 0}, {"FFT_MIX", 2}};
    CHECK(fft_base_shape(25, mix2, 1024).radices == std::vector<int>{5, 5});
    CHECK(fft_base_shape(15, mix2, 1024).radices == std::vector<int>{15});
    CHECK(fft_base_shape(75, mix2, 1024).radices == std::vector<int>{25, 3});
    CHECK(fft_global_factors(std::size_t{1} << 20, 4096) == std::vector<std::size_t>{1024, 1024});
    CHECK(fft_global_factors(3 * 4096, 4096) == std::vector<std::size_t>{128, 96});
    CHECK(fft_global_factors(8192, 4096) == std::vector<std::size_t>{128, 64});
  }

  TEST_CASE("passes resolve rows of their own (variant passN), not the one-kernel rows of their length") {
    const std::string dir = test::temp_dir("fft-pass-rows");
    const std::string file = dir + "/t.json";
    std::ofstream(file) << R"({"kernel": "fft", "entries": [
      {"variant": "256", "params": {"FFT_WG": 64}},
      {"variant": "pass256", "params": {"FFT_WG": 32, "FFT_PAD": 0}},
      {"variant": "pass256:later", "params": {"FFT_WG": 128}},
      {"variant": "65536", "params": {"FFT_PASS_MAX": 256, "FFT_LOCAL_MAX": 4096}}]})";
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    auto& s = test::session();
    FftDesc d;
    d.n = 65536;
    d.batch = 2;
    FftPlan passes(s.queue, d, Tuning{{}, false});
    // 256 * 256, from the plan's own row; the second pass (strided on both sides) takes the
    // rows of pass256:later first, then pass256's.
    const std::vector<Configuration> cfgs = passes.configurations();  // a copy: configurations() returns by value
    REQUIRE(cfgs.size() == 2);
    const Configuration& first = cfgs[0];
    const Configuration& later = cfgs[1];
    CHECK(first.variant == "pass256");
    CHECK(first.at("FFT_WG") == 32);
    CHECK(later.variant == "pass256:later");
    CHECK(later.at("FFT_WG") == 128);
    CHECK(later.at("FFT_PAD") == 0);
    INFO(passes.describe());
    CHECK(passes.describe().find("pass 2/2 (256 points): radix 16*16, 16 work-items x 8 transforms") != std::string::npos);
    d.n = 256;
    d.batch = 3;
    FftPlan one(s.queue, d, Tuning{{}, false});
    REQUIRE(one.configurations().size() == 1);
    CHECK(one.configurations()[0].variant == "256");
    CHECK(one.configurations()[0].at("FFT_WG") == 64);
    std::uint64_t seed = test::seed() + 1000;
    check_fft(contiguous(65536, 2), seed++);
    check_fft(contiguous(256, 3), seed++);
  }

  TEST_CASE("shipped GPU rows fit their vendor's limits as they are (no fallback)") {
    using namespace clforge::detail;
    struct Limits {
      VendorClass v;
      std::size_t wg, local;
    };
    for (const Limits& l : {Limits{VendorClass::NVIDIA, 1024, 48 * 1024}, Limits{VendorClass::AMD, 256, 64 * 1024},
                            Limits{VendorClass::Intel, 256, 64 * 1024}}) {
      DeviceInfo dev = test::session().entry.info;
      dev.vendor_class = l.v;
      dev.name = "no such device";
      dev.architecture = "";
      dev.type = "GPU";
      dev.max_work_group_size = l.wg;
      dev.max_work_item_sizes = {l.wg, l.wg, 64};
      dev.local_mem_size = l.local;
      for (std::size_t n : {8, 16, 64, 256, 1024, 2048, 3000, 4095, 4096, 8192, 1009, 65536}) {
        CAPTURE(to_string(l.v));
        CAPTURE(n);
        const Configuration cfg = resolve_configuration("fft", std::to_string(n), dev, Tuning{{}, false});
        CHECK(cfg.notes.empty());
        const std::size_t len = fft_smooth(n) ? std::min<std::size_t>(n, fft_local_limit(cfg.values, dev)) : 2048;
        FftShape sh = fft_base_shape(len, cfg.values, dev.max_work_group_size);
        sh.in_mode = sh.t == 1 ? 1 : 0;
        CHECK(sh.work_group() <= l.wg);
        CHECK(sh.local_bytes() <= l.local);
      }
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
    expect([&] {
      FftDesc d = desc(8, 4);
      d.in.stride = 0;
      FftPlan(s.queue, d);
    }, "in.stride");
    expect([&] {
      FftDesc d = desc(8, 4);
      d.out.distance = 4;  // transforms of the output overlap
      FftPlan(s.queue, d);
    }, "overlap");
    expect([&] {
      FftDesc d = desc(8, 4);
      d.in_place = true;
      d.out.stride = 2;
      FftPlan(s.queue, d);
    }, "in-place plan");
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
