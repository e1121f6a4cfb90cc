// FFT parameter sets against FFTW (tests/fft_support.hpp), in three suites that CTest runs side
// by side (each compiles a hundred or more kernels): fft_params, every shipped vendor-class row
// with local-memory halving off and on and other valid configurations (radices, registers,
// values per work-item, staging, twiddle modes, padding, float2 access, exchanges in quarters);
// fft_passes, passes and chunks under those sets and merged odd factors (FFT_MIX); fft_rows, the
// shipped sm_90 and CPU rows on this device.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fft/fft_internal.hpp"
#include "tests/fft_support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;
using namespace clforge::test::fft_cases;

namespace {
// Parameter sets beside the shipped rows: radices, registers, values per work-item, staging,
// twiddle modes, padding, float2 access, exchanges in quarters.
const std::vector<ParamMap>& other_sets() {
  static const std::vector<ParamMap> sets = {
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
  return sets;
}
}  // namespace

TEST_SUITE("fft_params") {
  TEST_CASE("every shipped vendor-class parameter set, with local-memory halving off and on") {
    // Each row as shipped on the lengths that take the different kernel kinds (registers, one
    // work-group per transform, mixed radix, Bluestein), then with halving flipped on the kernels
    // that exchange through local memory (including the staged load/store of interleaved batches).
    std::uint64_t seed = test::seed() + 700;
    for (VendorClass v :
         {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other}) {
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

  TEST_CASE(
      "other parameter sets: radices, registers, values per work-item, staging, twiddles, padding, float2 access") {
    std::uint64_t seed = test::seed() + 800;
    const std::vector<ParamMap>& sets = other_sets();
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
  }
}

TEST_SUITE("fft_params") {
  TEST_CASE("the CPU lane kernel: every width and radix, odd lengths, layouts, in place, inverse") {
    // Lane tails (batches not a multiple of the width), every butterfly the kernel can meet
    // (2 … 16 and the odd primes), one to eight passes, and the layouts of the plan API.
    std::uint64_t seed = test::seed() + 900;
    auto lane_params = [](int lanes, int radix) {
      return ParamMap{{"FFT_LANES", lanes}, {"FFT_LANE_RADIX", radix}, {"FFT_LANE_MIN", 1}, {"FFT_LANE_MAX", 4096}};
    };
    for (int lanes : {4, 8, 16})  // 360 = 4*2*3*3*5 or 8*3*3*5
      for (int radix : {4, 8, 16}) check_fft(with(contiguous(360, 13, true), lane_params(lanes, radix)), seed++);
    for (int radix : {4, 8, 16})  // 128 = 4*4*4*2, 8*8*2, 16*8
      check_fft(with(contiguous(128, 13), lane_params(8, radix)), seed++);
    check_fft(with(contiguous(2310, 13), lane_params(16, 8)), seed++);  // 2*3*5*7*11: five odd passes
    const ParamMap p = lane_params(8, 4);
    for (std::size_t n : {2, 3, 13, 4096}) check_fft(with(contiguous(n, n < 16 ? 21 : 3), p), seed++);
    Case c = contiguous(1000, 9, true);  // interleaved in, strided out with an offset, inverse scaled
    c.in = {9, 1, 0};
    c.out = {2, 2003, 5};
    c.scaling = FftScaling::OverN;
    check_fft(with(c, p), seed++);
    c = contiguous(256, 10);
    c.in_place = true;
    c.in = {1, 260, 3};
    check_fft(with(c, p), seed++);
    // Interleaved on both sides, 13 transforms: whole vectors for the work-items whose lanes are
    // all transforms of the batch, the last one gathering and scattering (none whole at 16 lanes).
    for (int lanes : {4, 8, 16})
      for (bool inverse : {false, true}) {
        c = contiguous(96, 13, inverse);
        c.in = c.out = {13, 1, 0};
        check_fft(with(c, lane_params(lanes, 8)), seed++);
      }
    // The plan says which kernel it runs.
    FftDesc d;
    d.n = 1000;
    d.batch = 3;
    const FftPlan plan(test::session().queue, d, Tuning{p, false});
    CHECK(plan.describe().find("lane kernel, 8 transforms per work-item: radix 4*2*5*5*5") != std::string::npos);
    d.n = 5000;  // above FFT_LANE_MAX: fft_local
    CHECK(FftPlan(test::session().queue, d, Tuning{p, false}).describe().find("lane kernel") == std::string::npos);
    // fft_local parameters chosen for the length beat the device's shipped lane row (CPU row: lanes).
    d.n = 1000;
    const bool cpu_lanes = test::session().entry.info.type == "CPU";
    CHECK((FftPlan(test::session().queue, d, Tuning{{}, false}).describe().find("lane kernel") != std::string::npos) ==
          cpu_lanes);
    CHECK(FftPlan(test::session().queue, d, Tuning{{{"FFT_WG", 64}}, false}).describe().find("lane kernel") ==
          std::string::npos);
  }
}

TEST_SUITE("fft_params") {
  TEST_CASE("the lane kernel: element blocks transposed in registers, and two launches for long lengths") {
    std::uint64_t seed = test::seed() + 950;
    auto params = [](int lanes, int eblock, int lane_max, int lanes2) {
      return ParamMap{{"FFT_LANES", lanes},       {"FFT_LANE_RADIX", 8},  {"FFT_LANE_MIN", 16},
                      {"FFT_LANE_MAX", lane_max}, {"FFT_LANES2", lanes2}, {"FFT_LANE_EBLOCK", eblock}};
    };
    // Element blocks of every width: loads and stores transposed in registers where elements are
    // adjacent (n a multiple of the width), element by element elsewhere; lane tails (batches not
    // a multiple of the width) read the last transform again and store nothing.
    for (int lanes : {4, 8, 16}) {
      check_fft(with(contiguous(64, 37), params(lanes, 1, 4096, 8)), seed++);
      check_fft(with(contiguous(240, 5, true), params(lanes, 1, 4096, 8)), seed++);  // 240 % 16 = 0
    }
    check_fft(with(contiguous(360, 9), params(16, 1, 4096, 8)), seed++);  // 360 % 16 != 0: no blocks
    Case c = contiguous(256, 11, true);  // strided input (no blocks there), blocked output with an offset
    c.in = {3, 800, 2};
    c.out = {1, 260, 7};
    c.scaling = FftScaling::OverN;
    check_fft(with(c, params(8, 1, 4096, 8)), seed++);
    c = contiguous(128, 13);
    c.in_place = true;
    c.in = {1, 131, 5};
    check_fft(with(c, params(16, 1, 4096, 8)), seed++);
    // Interleaved transforms (distance 1) in batches of whole vectors: element e of a
    // work-item's lanes loaded and stored as one vector; in place too.
    c = contiguous(256, 16, true);
    c.in = {16, 1, 0};
    c.out = {16, 1, 3};
    check_fft(with(c, params(8, 1, 4096, 8)), seed++);
    c = contiguous(96, 32);
    c.in = {33, 1, 2};  // stride 33: the lanes adjacent, the elements not
    c.out = {1, 96, 0};
    check_fft(with(c, params(16, 1, 4096, 8)), seed++);
    c = contiguous(64, 8);
    c.in_place = true;
    c.in = {8, 1, 1};
    check_fft(with(c, params(4, 1, 4096, 8)), seed++);

    // Two launches above FFT_LANE_MAX: n = n1 n2 with both a multiple of FFT_LANES2 and in
    // [FFT_LANE_MIN, FFT_LANE_MAX], the most even split; columns read as whole vectors where the
    // caller's stride is 1, rows blocked or gathered.
    for (int lanes2 : {4, 8, 16})
      for (int eblock : {0, 1})
        check_fft(with(contiguous(4096, 5, lanes2 == 8), params(8, eblock, 256, lanes2)), seed++);
    check_fft(with(contiguous(1536, 3), params(8, 1, 256, 16)), seed++);  // 48 x 32
    c = contiguous(2048, 3, true);  // interleaved input, strided output with an offset, scaled
    c.in = {3, 1, 0};
    c.out = {2, 4099, 3};
    c.scaling = FftScaling::OverSqrtN;
    check_fft(with(c, params(8, 1, 256, 8)), seed++);
    c = contiguous(1024, 4);
    c.in_place = true;
    c.in = {1, 1030, 6};
    check_fft(with(c, params(8, 1, 256, 8)), seed++);
    FftDesc d;
    d.n = 4096;
    d.batch = 3;
    const auto describe = [&](const ParamMap& p) {
      return FftPlan(test::session().queue, d, Tuning{p, false}).describe();
    };
    CHECK(describe(params(8, 1, 256, 16)).find("two lane kernels, 64 x 64") != std::string::npos);
    d.n = 8192;  // 128 x 64: the most even split within the limits
    CHECK(describe(params(8, 1, 256, 16)).find("two lane kernels, 128 x 64") != std::string::npos);
    // Bluestein in one lane launch (M = 64 for 17, 2048 for 1009): chirp, zero padding, the
    // spectrum's product, the second transform, layouts, lane tails, in place.
    for (int lanes : {4, 16}) check_fft(with(contiguous(17, 21, lanes == 4), params(lanes, 1, 4096, 8)), seed++);
    c = contiguous(1009, 5, true);
    c.in = {2, 2100, 3};
    c.out = {5, 1, 1};  // interleaved output: element k of transform b at 1 + 5k + b
    c.scaling = FftScaling::OverN;
    check_fft(with(c, params(8, 1, 4096, 8)), seed++);
    c = contiguous(211, 9);
    c.in_place = true;
    c.in = {1, 215, 4};
    check_fft(with(c, params(8, 1, 512, 8)), seed++);
    // Bluestein in four lane launches (the convolution length above FFT_LANE_MAX): chirp and zero
    // padding on the first launch's loads, the spectrum on the second's results into a second
    // scratch buffer, the conjugate chirp on the last's first n results only.
    for (int lanes2 : {8, 16}) check_fft(with(contiguous(131, 7, lanes2 == 16), params(8, 1, 256, lanes2)), seed++);
    c = contiguous(257, 6, true);
    c.in = {6, 1, 2};  // interleaved input with an offset, strided output, scaled
    c.out = {3, 800, 0};
    c.scaling = FftScaling::OverSqrtN;
    ParamMap blue = params(8, 1, 256, 8);
    blue["FFT_RADER"] = 0;  // 256 = 16 x 16 would take Rader's algorithm (test_fft_rader.cpp)
    check_fft(with(c, blue), seed++);
    c = contiguous(131, 5);
    c.in_place = true;
    c.in = {1, 140, 9};
    check_fft(with(c, params(8, 1, 256, 8)), seed++);
    d.n = 131;  // 2n - 1 = 261: 320 does not split into multiples of 8 from 16 on, 384 = 24 x 16
    CHECK(describe(params(8, 1, 256, 8)).find("Bluestein M=384, four lane kernels, 24 x 16") != std::string::npos);
    {
      // Scratch A for the chunk's 3 x 384 points, then B from the next multiple of 512 elements.
      const FftPlan p4(test::session().queue, d, Tuning{params(8, 1, 256, 8), false});
      CHECK(p4.launches() == 4);
      CHECK(p4.scratch_bytes() == (1536 + 1152) * 8);
    }
    d.n = 1009;
    CHECK(describe(params(8, 1, 4096, 8)).find("Bluestein, one lane kernel of 2048 points") != std::string::npos);
    CHECK(describe(params(8, 1, 1024, 8)).find("four lane kernels") != std::string::npos);  // M above the limit
    d.n = 1152;  // 2^7 * 9: 48 x 24 with 8 lanes; no split into multiples of 16, so fft_local
    CHECK(describe(params(8, 1, 256, 8)).find("two lane kernels, 48 x 24") != std::string::npos);
    CHECK(describe(params(8, 1, 256, 16)).find("lane kernel") == std::string::npos);
  }
}

TEST_SUITE("fft_passes") {
  TEST_CASE("multi-pass plans, chunks, long kernels in quarters and odd radices under other parameter sets") {
    std::uint64_t seed = test::seed() + 900;
    const std::vector<ParamMap>& sets = other_sets();
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
    for (const ParamMap& p :
         {ParamMap{{"FFT_LOCAL_MAX", 16384}, {"FFT_RADIX", 16}, {"FFT_HALVE", 2}},
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
        const ParamMap p = {{"FFT_TWIDDLE", tw}, {"FFT_MIX", 1},          {"FFT_VPT", 15},
                            {"FFT_WG", 128},     {"FFT_LOCAL_MAX", 8192}, {"FFT_HALVE", 1}};
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
    const ParamMap r32 = {{"FFT_PASS_MAX", 1024}, {"FFT_RADIX", 32}, {"FFT_WG", 128},
                          {"FFT_HALVE", 2},       {"FFT_STAGE", 3},  {"FFT_ACROSS", 4}};
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
}

TEST_SUITE("fft_rows") {
  TEST_CASE("every shipped sm_90 row computes the right answer here") {
    // The H100 rows (architecture sm_90), resolved for a made-up NVIDIA sm_90 device with this
    // device's limits, run on their own lengths (PoCL on CI), forward and inverse.
    using namespace clforge::detail;
    const DeviceInfo fake = test::fake_device(VendorClass::NVIDIA, "sm_90");
    std::set<std::string> variants = sm90_fft_variants();
    CHECK(variants.count("3000") == 1);
    CHECK(variants.count("16384") == 1);
    CHECK(variants.count("pass1024:later") == 1);
    CHECK(variants.count("pass512:later") == 1);
    CHECK(variants.count("1024:cols") == 1);
    std::uint64_t seed = test::seed() + 1300;
    for (const std::string& v : variants) {
      if (v.rfind("pass", 0) == 0) continue;  // below, in the plans that use them
      const std::size_t n = std::stoull(v);
      const ParamMap p = resolve_configuration("fft", v, fake, Tuning{{}, false}).values;
      CAPTURE(n);
      CAPTURE(params_of(Tuning{p, false}));
      check_fft(with(contiguous(n, n <= 64 ? 67 : n >= 65536 ? 1 : 3), p), seed++);
      check_fft(with(contiguous(n, n >= 65536 ? 1 : 2, true), p), seed++);
      if (v.find(":cols") != std::string::npos) {  // as columns: 17 interleaved transforms
        Case c = with(contiguous(n, 17), p);
        c.in = c.out = {17, 1, 0};
        check_fft(c, seed++);
      }
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
      if (e.value("vendor", "") == "CPU" && e.contains("variant") &&
          e["variant"].get<std::string>().rfind("pass", 0) != 0) {
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
}
