// Transpose against the host reference: odd and degenerate shapes, every element size,
// padded leading dimensions and offsets, every shipped vendor-class parameter set and a few
// others. Transposition moves bits, so results must be exact.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "host/reference.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

struct Shape {
  std::size_t rows, cols;
};

// Runs one transpose on the device with poisoned output and guard tail; returns true when the
// result equals the host reference bit for bit and nothing outside the matrix was touched.
void check_transpose(std::size_t rows, std::size_t cols, std::size_t elem, std::size_t in_pad, std::size_t out_pad,
                     std::size_t in_off, std::size_t out_off, const Tuning& tuning, std::uint64_t seed) {
  auto& s = test::session();
  const std::size_t fpe = elem / 4;  // floats per element
  const std::size_t in_ld = cols + in_pad, out_ld = rows + out_pad;
  const std::size_t guard = 127;
  const std::size_t in_n = (in_off + (rows - 1) * in_ld + cols) * fpe;
  const std::size_t out_n = (out_off + (cols - 1) * out_ld + rows) * fpe + guard;
  std::vector<float> in = host::random_floats(in_n, seed);
  std::vector<float> out = host::poisoned(out_n);
  std::vector<float> ref = out;
  host::transpose(rows, cols, elem, in.data() + in_off * fpe, in_ld, ref.data() + out_off * fpe, out_ld);

  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_n * 4, in.data());
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_n * 4, out.data());
  cl::Event ev;
  transpose(s.queue, rows, cols, elem, MatrixRef{bin, in_off, in_ld}, MatrixRef{bout, out_off, out_ld}, {}, &ev,
            tuning);
  std::vector<cl::Event> deps{ev};
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out_n * 4, out.data(), &deps);
  INFO("rows " << rows << " cols " << cols << " elem " << elem << " in_ld " << in_ld << " out_ld " << out_ld
               << " offsets " << in_off << "/" << out_off << " seed " << seed << " params "
               << [&] { std::string p; for (auto& [k, v] : tuning.overrides) p += k + "=" + std::to_string(v) + " "; return p; }());
  // NaN != NaN, so compare bits: poison outside the matrix must stay poison.
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < out_n; ++i)
    if (std::memcmp(&out[i], &ref[i], 4) != 0 && mismatches++ == 0) first = i;
  INFO("first mismatch at float " << first);
  CHECK(mismatches == 0);
}

ParamMap vendor_row(VendorClass v, const std::string& variant) {
  return test::vendor_row("transpose", v, variant);
}

}  // namespace

TEST_SUITE("transpose") {
  TEST_CASE("shapes and element sizes with the device's own parameters") {
    const Shape shapes[] = {{1, 1}, {1, 37}, {37, 1}, {17, 33}, {33, 17}, {64, 64}, {128, 256}, {1000, 999}, {4097, 31}};
    std::uint64_t seed = test::seed();
    for (std::size_t elem : {4, 8, 16})
      for (const auto& sh : shapes) check_transpose(sh.rows, sh.cols, elem, 0, 0, 0, 0, {}, seed++);
  }

  TEST_CASE("leading dimensions larger than a row, and offsets") {
    std::uint64_t seed = test::seed() + 1000;
    for (std::size_t elem : {4, 8, 16}) {
      check_transpose(17, 33, elem, 5, 3, 7, 11, {}, seed++);
      check_transpose(100, 3, elem, 1, 29, 0, 1, {}, seed++);
      check_transpose(65, 127, elem, 64, 0, 100, 0, {}, seed++);
    }
  }

  TEST_CASE("every shipped vendor-class parameter set computes the right answer here") {
    std::uint64_t seed = test::seed() + 2000;
    for (VendorClass v : {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other})
      for (std::size_t elem : {4, 8, 16}) {
        Tuning t{vendor_row(v, std::to_string(elem)), false};
        CAPTURE(to_string(v));
        check_transpose(1000, 999, elem, 0, 0, 0, 0, t, seed++);
        check_transpose(31, 4097, elem, 3, 0, 5, 0, t, seed++);
      }
  }

  TEST_CASE("other legal parameter sets, including square powers of two") {
    std::uint64_t seed = test::seed() + 3000;
    const ParamMap sets[] = {
        {{"TRA_TILE", 8}, {"TRA_WPT", 8}, {"TRA_VW", 1}, {"TRA_PAD", 0}, {"TRA_DIAG", 1}},
        {{"TRA_TILE", 64}, {"TRA_WPT", 8}, {"TRA_VW", 2}, {"TRA_PAD", 1}, {"TRA_DIAG", 1}},
        {{"TRA_TILE", 16}, {"TRA_WPT", 2}, {"TRA_VW", 4}, {"TRA_PAD", 0}, {"TRA_DIAG", 0}},
        {{"TRA_TILE", 32}, {"TRA_WPT", 1}, {"TRA_VW", 2}, {"TRA_PAD", 1}, {"TRA_DIAG", 1}},
        {{"TRA_TILE", 16}, {"TRA_WPT", 16}, {"TRA_VW", 4}, {"TRA_LOCAL", 0}, {"TRA_DIAG", 1}},
        {{"TRA_TILE", 64}, {"TRA_WPT", 16}, {"TRA_VW", 8}, {"TRA_LOCAL", 0}},
        {{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 8}, {"TRA_LOCAL", 0}},
        // Band swizzles whose width does not divide the tile grid (a narrower last band).
        {{"TRA_TILE", 16}, {"TRA_WPT", 4}, {"TRA_VW", 4}, {"TRA_SWZ", 8}},
        {{"TRA_TILE", 32}, {"TRA_WPT", 8}, {"TRA_VW", 1}, {"TRA_SWZ", 32}},
        {{"TRA_TILE", 8}, {"TRA_WPT", 4}, {"TRA_VW", 2}, {"TRA_SWZ", 4}, {"TRA_LOCAL", 0}},
        {{"TRA_TILE", 16}, {"TRA_WPT", 8}, {"TRA_VW", 8}, {"TRA_SWZ", 1}, {"TRA_LOCAL", 0}},  // down the columns
        {{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 4}, {"TRA_SWZ", 2}},
    };
    for (const auto& p : sets)
      for (std::size_t n : {16, 256, 512}) check_transpose(n, n, 4, 0, 0, 0, 0, Tuning{p, false}, seed++);
    for (const auto& p : sets) check_transpose(129, 67, 8, 2, 1, 3, 4, Tuning{p, false}, seed++);
  }

  TEST_CASE("every tile / rows-per-item / vector-width combination, aligned (vector) and unaligned paths") {
    // Shapes whose leading dimensions are multiples of 8 take the whole-vector paths
    // (TRA_ALIGN_IN/OUT; with TRA_LOCAL = 0 and TRA_WPT a multiple of TRA_VW = 4 or 8 the square
    // blocks turned by shuffles, with and without non-temporal stores); the odd one takes the
    // scalar paths. Partial tiles in both.
    std::uint64_t seed = test::seed() + 5000;
    for (int local : {0, 1})
      for (int tile : {8, 16, 32})
        for (int wpt : {1, 2, 4, 8, 16})
          for (int vw : {1, 2, 4, 8}) {
            if (wpt > tile || vw > tile) continue;
            const Tuning t{{{"TRA_TILE", tile}, {"TRA_WPT", wpt}, {"TRA_VW", vw}, {"TRA_LOCAL", local}, {"TRA_PAD", 1},
                            {"TRA_DIAG", (tile + wpt) % 2}, {"TRA_SWZ", (tile + wpt) % 2 ? 0 : 4},
                            {"TRA_NT", (tile / 8 + wpt) % 2}}, false};
            check_transpose(64, 64, 4, 0, 0, 0, 0, t, seed++);
            check_transpose(40, 72, 4, 8, 0, 16, 0, t, seed++);
            if (vw == 2) check_transpose(33, 70, 4, 0, 0, 0, 0, t, seed++);
          }
  }

  TEST_CASE("host-vector convenience overload") {
    auto& s = test::session();
    const std::size_t rows = 19, cols = 23;
    std::vector<float> in = host::random_floats(rows * cols, test::seed() + 4000);
    std::vector<float> out = transpose(s.queue, rows, cols, in);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) REQUIRE(out[c * rows + r] == in[r * cols + c]);
    CHECK_THROWS_AS(transpose(s.queue, rows, cols + 1, in), InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), b(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    const auto expect = test::expect_invalid_argument;
    expect([&] { transpose(s.queue, 0, 4, 4, {a, 0, 4}, {b, 0, 4}); }, "at least 1");
    expect([&] { transpose(s.queue, 4, 4, 3, {a, 0, 4}, {b, 0, 4}); }, "elem_size");
    expect([&] { transpose(s.queue, 4, 8, 4, {a, 0, 4}, {b, 0, 8}); }, "in.ld");
    expect([&] { transpose(s.queue, 8, 4, 4, {a, 0, 4}, {b, 0, 4}); }, "out.ld");
    expect([&] { transpose(s.queue, 64, 64, 16, {a, 0, 64}, {b, 0, 64}); }, "too small");
    expect([&] { transpose(s.queue, 64, 64, 4, {a, 1, 64}, {b, 0, 64}); }, "in buffer too small");
    expect([&] { transpose(s.queue, 4, 4, 4, {cl::Buffer(), 0, 4}, {b, 0, 4}); }, "null buffer");
    expect([&] { transpose(s.queue, 4, 4, 4, {a, 0, 4}, {a, 0, 4}); }, "different buffers");
    expect([&] { transpose(s.queue, 4, 4, 4, {a, 0, 4}, {b, 0, 4}, {}, nullptr, Tuning{{{"TRA_NOPE", 1}}, true}); },
           "unknown parameter");
    expect([&] { transpose(s.queue, 4, 4, 4, {a, 0, 4}, {b, 0, 4}, {}, nullptr, Tuning{{{"TRA_TILE", 12}}, true}); },
           "not legal");
    expect([&] {
      transpose(s.queue, 4, 4, 4, {a, 0, 4}, {b, 0, 4}, {}, nullptr, Tuning{{{"TRA_TILE", 4}, {"TRA_WPT", 8}}, true});
    }, "TRA_WPT must not exceed TRA_TILE");
  }
}
