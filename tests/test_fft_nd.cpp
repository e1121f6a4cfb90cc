// Multi-dimensional complex FFTs (FftNdPlan) against a separable DFT computed here from its
// definition in double precision (a direct sum along each axis in turn), on fresh random data:
// 2-D shapes with odd and prime sides (3x5, 17x12, 1x7, 7x1), 3-D shapes (4x5x6, 2x3x17),
// batches, passes of one launch (fft_local and the lane kernel), columns in passes of adjacent
// transforms (FFT_COLS), non-default strides, distances and offsets, in place and out of place,
// scaling and a forward-inverse round trip, and the argument checks.
//
// Error metric: relative L2 error per transform ||y_b - ref_b|| / ||ref_b|| below the sum over
// the axes of host::fft_tolerance(n_k), the 1-D bound of each axis' pass. Outputs are poisoned
// with NaN first; every element outside the output layout (gaps and a guard tail of
// host::kGuardTail elements) must keep its poison (in place: its input), and the input of an
// out-of-place plan must be unchanged.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "clforge/fft.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "host/guard.hpp"
#include "tests/fft_support.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

using cd = std::complex<double>;
using test::fft_cases::Shape;

struct NdCase {
  Shape shape;
  std::size_t batch = 1;
  FftNdLayout in{}, out{};
  bool in_place = false, inverse = false;
  FftScaling scaling = FftScaling::None;
  Tuning tuning{};
  std::size_t launches = 0;  // the plan's launches where the case fixes them (0: any)
  int columns = -1;          // 1: a pass in the column form (FFT_COLS), 0: none, -1: either
};

using test::fft_cases::filled;
using test::fft_cases::max_error;
using test::fft_cases::positions;
using test::fft_cases::run_plan;
using test::fft_cases::separable_dft;
using test::fft_cases::tolerance;
using test::fft_cases::volume;

FftNdDesc desc_of(const NdCase& c) {
  FftNdDesc d;
  d.shape = c.shape;
  d.batch = c.batch;
  d.in = c.in;
  d.out = c.out;
  d.in_place = c.in_place;
  (c.inverse ? d.inverse_scaling : d.forward_scaling) = c.scaling;
  return d;
}

// Runs one plan on fresh random data and checks it against the separable DFT.
void check_nd(NdCase c, std::uint64_t seed) {
  auto& s = test::session();
  const FftNdLayout in = filled(c.in, c.shape), out = c.in_place ? in : filled(c.out, c.shape);
  const std::vector<std::size_t> pin = positions(in, c.shape, c.batch), pout = positions(out, c.shape, c.batch);
  const std::size_t in_span = *std::max_element(pin.begin(), pin.end()) + 1;
  const std::size_t out_span = *std::max_element(pout.begin(), pout.end()) + 1;
  const std::vector<float> x = host::random_floats(2 * (in_span + host::kGuardTail), seed);
  const host::PoisonedOutput poison = c.in_place ? host::PoisonedOutput(x, 8) : host::PoisonedOutput(out_span, 8);
  std::vector<cd> logical;
  for (std::size_t p : pin) logical.push_back({x[2 * p], x[2 * p + 1]});
  const std::vector<cd> ref =
      separable_dft(logical, c.shape, c.inverse ? +1 : -1, test::fft_cases::scale_of(c.scaling, volume(c.shape)));

  INFO("shape " << c.shape.size() << "-D " << c.shape[0] << "x" << c.shape.back() << " batch " << c.batch
                << (c.inverse ? " inverse" : " forward") << (c.in_place ? " in-place" : "") << " seed " << seed);
  FftNdPlan plan(s.queue, desc_of(c), c.tuning);
  INFO("plan: " << plan.describe());
  if (c.launches > 0) CHECK(plan.launches() == c.launches);
  if (c.columns >= 0) CHECK((plan.describe().find("columns") != std::string::npos) == (c.columns == 1));
  const std::vector<float> got =
      run_plan(plan, c.inverse ? FftDirection::Inverse : FftDirection::Forward, c.in_place, x, poison.floats());

  const double err = max_error(got, pout, true, ref, volume(c.shape));
  INFO("max relative L2 error " << err << ", tolerance " << tolerance(c.shape));
  CHECK(err <= tolerance(c.shape));
  std::vector<bool> mask(poison.elements(), false);
  for (std::size_t p : pout) mask[p] = true;
  CHECK(poison.changed_outside(got.data(), mask) == 0);
}

NdCase plain(Shape shape, std::size_t batch = 1) {
  NdCase c;
  c.shape = std::move(shape);
  c.batch = batch;
  return c;
}

}  // namespace

TEST_SUITE("fft_nd") {
  TEST_CASE("2-D: odd, prime and unit sides, batches") {
    std::uint64_t seed = 7100;
    for (const Shape& sh : {Shape{3, 5}, Shape{17, 12}, Shape{1, 7}, Shape{7, 1}}) check_nd(plain(sh), ++seed);
    check_nd(plain({17, 12}, 3), ++seed);
    NdCase inv = plain({3, 5}, 2);
    inv.inverse = true;
    inv.scaling = FftScaling::OverSqrtN;
    check_nd(inv, ++seed);
  }

  TEST_CASE("3-D: batches, in place") {
    check_nd(plain({4, 5, 6}, 2), 7200);
    NdCase c = plain({2, 3, 17}, 2);
    c.in_place = true;
    c.inverse = true;
    c.scaling = FftScaling::OverN;
    check_nd(c, 7201);
  }

  TEST_CASE("one launch per axis: adjacent transforms as the batch, the other level in the launch") {
    // 20x16x24 x 2: the middle axis' batch is the last axis (24 adjacent transforms), its other
    // level (axis 0 and the batch, 40 positions) runs inside the launch; 2-D columns of 18x20 x 5
    // take the 5 images inside theirs. Lane kernels (PoCL's rows) and fft_local.
    std::uint64_t seed = 7250;
    for (const Tuning& t : {Tuning{}, Tuning{{{"FFT_LANES", 0}}, false}}) {
      NdCase c = plain({20, 16, 24}, 2);
      c.tuning = t;
      c.launches = 3;
      check_nd(c, ++seed);
      c.in_place = true;
      c.inverse = true;
      check_nd(c, ++seed);
      NdCase cols = plain({18, 20}, 5);
      cols.tuning = t;
      cols.launches = 2;
      cols.out = {{24, 1}, 500, 3};  // padded rows and images
      check_nd(cols, ++seed);
    }
  }

  TEST_CASE("columns in passes whose groups hold adjacent columns (FFT_COLS)") {
    // 1024x20 on fft_local: one 1024-point kernel holds one column per group, so the 20 adjacent
    // columns run as passes in the column form (scratch interleaved); FFT_COLS 0 keeps the one
    // kernel. 600x18 x 3: padded rows and images on the output, the images as repeats inside
    // each pass' launches (scratch in a block per image): the rows' launch and one per pass.
    const Tuning local{{{"FFT_LANES", 0}}, false};
    NdCase c = plain({1024, 20});
    c.tuning = local;
    c.columns = 1;
    check_nd(c, 7260);
    c.in_place = true;
    c.inverse = true;
    c.scaling = FftScaling::OverN;
    check_nd(c, 7261);
    NdCase padded = plain({600, 18}, 3);
    padded.tuning = local;
    padded.out = {{20, 1}, 12100, 5};
    padded.launches = 3;
    check_nd(padded, 7262);
    padded.in = padded.out;  // in place on the padded layout, inverse
    padded.in_place = true;
    padded.inverse = true;
    check_nd(padded, 7264);
    NdCase one = plain({1024, 20});
    one.tuning = Tuning{{{"FFT_LANES", 0}, {"FFT_COLS", 0}}, false};
    one.columns = 0;
    check_nd(one, 7263);
  }

  TEST_CASE("columns resolve their length's \"<n>:cols\" rows over the length's own") {
    // Without a row of its own, "1024:cols" is the length's configuration. A user row for it
    // (FFT_COLS 0: one kernel) turns the column passes of 1024x20 into one kernel, and the
    // result stays right; the length's contiguous configuration keeps FFT_COLS 1.
    const DeviceInfo& dev = test::session().entry.info;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("fft_nd_cols_row"));
    CHECK(resolve_configuration("fft", "1024:cols", dev).values == resolve_configuration("fft", "1024", dev).values);
    store_user_entry(dev, "fft", "1024:cols", {{"FFT_COLS", 0}});
    CHECK(resolve_configuration("fft", "1024:cols", dev).at("FFT_COLS") == 0);
    CHECK(resolve_configuration("fft", "1024", dev).at("FFT_COLS") == 1);
    NdCase c = plain({1024, 20});
    c.tuning = Tuning{{{"FFT_LANES", 0}}, true};
    c.columns = 0;
    check_nd(c, 7270);
  }

  TEST_CASE("strides, distances and offsets") {
    NdCase cols = plain({5, 3}, 2);  // column-major images, padded rows on the output
    cols.in = {{1, 5}, 17, 3};
    cols.out = {{4, 1}, 21, 2};
    check_nd(cols, 7300);
    NdCase inter = plain({3, 5}, 4);  // interleaved batch: element (b, i, j) at b + 4 (5 i + j)
    inter.in = {{20, 4}, 1, 0};
    inter.out = {{20, 4}, 1, 1};
    check_nd(inter, 7301);
    NdCase padded = plain({2, 3, 4}, 3);  // 3-D, in place, padded planes and rows
    padded.in = {{30, 6, 1}, 70, 5};
    padded.in_place = true;
    check_nd(padded, 7302);
  }

  TEST_CASE("forward then inverse with 1/N scaling returns the input") {
    auto& s = test::session();
    FftNdDesc d;
    d.shape = {6, 7};
    d.batch = 2;
    d.inverse_scaling = FftScaling::OverN;
    FftNdDesc back = d;
    back.in_place = true;
    const FftNdPlan fwd(s.queue, d), inv(s.queue, back);
    const std::vector<float> x = host::random_floats(2 * 84, 7400);
    cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, const_cast<float*>(x.data()));
    cl::Buffer b(s.context, CL_MEM_READ_WRITE, x.size() * 4);
    fwd.forward(a, b);
    inv.inverse(b);
    std::vector<float> y(x.size());
    s.queue.enqueueReadBuffer(b, CL_TRUE, 0, y.size() * 4, y.data());
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      num += (y[i] - x[i]) * double(y[i] - x[i]);
      den += x[i] * double(x[i]);
    }
    CHECK(std::sqrt(num / den) <= 2 * tolerance(d.shape));
  }

  TEST_CASE("invalid arguments throw before anything runs") {
    auto& s = test::session();
    auto throws = [&](FftNdDesc d) { CHECK_THROWS_AS(FftNdPlan(s.queue, d), InvalidArgument); };
    FftNdDesc d;
    throws(d);  // no axes
    d.shape = {2, 2, 2, 2};
    throws(d);
    d.shape = {4, 0};
    throws(d);
    d.shape = {4, 4};
    d.in.strides = {4};
    throws(d);  // one stride for two axes
    d.in.strides = {0, 1};
    throws(d);
    d.in.strides = {};
    d.out.strides = {2, 1};  // rows overlap
    throws(d);
    d.out = {};
    d.batch = 2;
    d.out.distance = 15;  // images overlap
    throws(d);
    d.out = {};
    d.in_place = true;
    d.out.offset = 1;
    throws(d);
    d.out = {};
    d.in.strides = {SIZE_MAX / 2, 1};
    throws(d);
    d.in.strides = {};
    const FftNdPlan plan(s.queue, d);
    cl::Buffer small(s.context, CL_MEM_READ_WRITE, 31 * 8), ok(s.context, CL_MEM_READ_WRITE, 32 * 8);
    CHECK_THROWS_AS(plan.forward(small), InvalidArgument);
    CHECK_THROWS_AS(plan.forward(ok, small), InvalidArgument);
    CHECK_NOTHROW(plan.forward(ok));
    s.queue.finish();
  }
}
