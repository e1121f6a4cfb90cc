// Real-input multi-dimensional FFTs (RealFftNdPlan: R2C forward, C2R inverse) against the DFT
// computed here from its definition in double precision (tests/fft_support.hpp's dft_axis), on
// fresh random data: 2-D shapes with odd, even, prime and unit sides (17x12, 1x8, 8x1, 64x100),
// the 3-D 9x5x7, batches, strided, padded and offset layouts, the padded in-place rows, scaling,
// round trips, the accessors and the argument checks.
//
// References: R2C, the complex DFT of the real array along every axis, its outputs k_last <=
// n_last/2; C2R (numpy.fft.irfftn's definition), the inverse DFT along the other axes, then along
// the last axis the inverse DFT of the Hermitian extension of each row (imaginary parts of its
// first and, for even n_last, its last value dropped), real parts. Random half spectra are not
// Hermitian in the planes k_last = 0 and n_last/2, so that definition is what they test.
// Error metric: relative L2 error per transform below tolerance(shape), the sum over the axes of
// host::fft_tolerance(n_k) (each pass adds its rounding; the last axis' real pass has the complex
// FFT's bound at its length). Outputs are poisoned with NaN first; every float outside the
// output layout (gaps and a guard tail of host::kGuardTail floats) must keep its poison (in
// place: its input), and the input of an out-of-place plan must be unchanged.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
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
using test::fft_cases::dft_axis;
using test::fft_cases::filled;
using test::fft_cases::max_error;
using test::fft_cases::positions;
using test::fft_cases::run_plan;
using test::fft_cases::Shape;
using test::fft_cases::tolerance;
using test::fft_cases::volume;

struct RealNdCase {
  Shape shape;
  std::size_t batch = 1;
  FftNdLayout real{}, spectrum{};  // floats; complex elements
  bool in_place = false, inverse = false;
  FftScaling scaling = FftScaling::None;
  Tuning tuning{};
};

Shape half_of(Shape s) {
  s.back() = s.back() / 2 + 1;
  return s;
}

// The layouts as the plan documents them: row-major defaults, in place the padded rows.
RealNdCase with_layouts(RealNdCase c) {
  c.spectrum = filled(c.spectrum, half_of(c.shape));
  if (c.in_place) {
    c.real = c.spectrum;
    for (std::size_t& s : c.real.strides) s *= 2;
    c.real.strides.back() = 1;
    c.real.distance *= 2;
    c.real.offset *= 2;
  }
  c.real = filled(c.real, c.shape);
  return c;
}

// R2C of a batch of real arrays (row-major, logical order): the complex DFT, k_last <= n/2.
std::vector<cd> r2c_nd(const std::vector<cd>& x, const Shape& shape, double scale) {
  std::vector<cd> y = x;
  for (std::size_t a = 0; a < shape.size(); ++a) y = dft_axis(y, shape, a, -1);
  const std::size_t n = shape.back(), h = n / 2 + 1;
  std::vector<cd> r;
  for (std::size_t e = 0; e < y.size(); ++e)
    if (e % n < h) r.push_back(y[e] * scale);
  return r;
}

// C2R of a batch of half spectra (row-major over the half shape, logical order).
std::vector<cd> c2r_nd(std::vector<cd> X, const Shape& shape, double scale) {
  const Shape half = half_of(shape);
  for (std::size_t a = 0; a + 1 < shape.size(); ++a) X = dft_axis(X, half, a, +1);
  const std::size_t n = shape.back(), h = n / 2 + 1;
  std::vector<cd> full(X.size() / h * n);
  for (std::size_t row = 0; row < X.size() / h; ++row)
    for (std::size_t k = 0; k < h; ++k) {
      const cd v = X[row * h + k];
      const bool single = k == 0 || 2 * k == n;
      full[row * n + k] = single ? cd(v.real(), 0) : v;
      if (!single) full[row * n + n - k] = std::conj(v);
    }
  full = dft_axis(full, shape, shape.size() - 1, +1);
  for (cd& v : full) v = v.real() * scale;
  return full;
}

RealFftNdDesc desc_of(const RealNdCase& c) {
  RealFftNdDesc d;
  d.shape = c.shape;
  d.batch = c.batch;
  d.real = c.real;
  d.complex = c.spectrum;
  d.in_place = c.in_place;
  (c.inverse ? d.inverse_scaling : d.forward_scaling) = c.scaling;
  return d;
}

// Runs one plan on fresh random data and checks it against the definition.
void check_real_nd(const RealNdCase& given, std::uint64_t seed) {
  auto& s = test::session();
  const RealNdCase c = with_layouts(given);
  const Shape half = half_of(c.shape);
  const std::vector<std::size_t> preal = positions(c.real, c.shape, c.batch);
  const std::vector<std::size_t> pspec = positions(c.spectrum, half, c.batch);
  const std::size_t real_floats = *std::max_element(preal.begin(), preal.end()) + 1;
  const std::size_t spec_floats = 2 * (*std::max_element(pspec.begin(), pspec.end()) + 1);
  const std::size_t in_floats = c.in_place ? std::max(real_floats, spec_floats) : c.inverse ? spec_floats : real_floats;
  const std::vector<float> x = host::random_floats(in_floats + host::kGuardTail, seed);
  const host::PoisonedOutput poison =
      c.in_place ? host::PoisonedOutput(x, 4) : host::PoisonedOutput(c.inverse ? real_floats : spec_floats, 4);
  std::vector<cd> logical;
  for (std::size_t p : c.inverse ? pspec : preal) logical.push_back(c.inverse ? cd(x[2 * p], x[2 * p + 1]) : x[p]);
  const double scale = test::fft_cases::scale_of(c.scaling, volume(c.shape));
  const std::vector<cd> ref = c.inverse ? c2r_nd(logical, c.shape, scale) : r2c_nd(logical, c.shape, scale);

  const std::string what = std::to_string(c.shape.size()) + "-D " + std::to_string(c.shape[0]) + "x..x" +
                           std::to_string(c.shape.back()) + " batch " + std::to_string(c.batch) +
                           (c.inverse ? " C2R" : " R2C") + (c.in_place ? " in-place" : "");
  INFO(what << " seed " << seed);
  RealFftNdPlan plan(s.queue, desc_of(given), given.tuning);
  INFO("plan: " << plan.describe());
  const std::vector<float> got =
      run_plan(plan, c.inverse ? FftDirection::Inverse : FftDirection::Forward, c.in_place, x, poison.floats());

  const std::vector<std::size_t>& pout = c.inverse ? preal : pspec;
  const double err = max_error(got, pout, !c.inverse, ref, c.inverse ? volume(c.shape) : volume(half));
  INFO("max relative L2 error " << err << ", tolerance " << tolerance(c.shape));
  CHECK(err <= tolerance(c.shape));
  // The output layout's floats; in place also the half spectrum's, where both directions work.
  std::vector<bool> mask(poison.elements(), false);
  if (c.inverse)
    for (std::size_t p : preal) mask[p] = true;
  if (!c.inverse || c.in_place)
    for (std::size_t p : pspec) mask[2 * p] = mask[2 * p + 1] = true;
  CHECK(poison.changed_outside(got.data(), mask) == 0);
}

RealNdCase real_case(Shape shape, std::size_t batch = 1, bool inverse = false) {
  RealNdCase c;
  c.shape = std::move(shape);
  c.batch = batch;
  c.inverse = inverse;
  return c;
}

// ||a - b|| / ||b|| over two float arrays.
double relative(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    num += (a[i] - b[i]) * double(a[i] - b[i]);
    den += b[i] * double(b[i]);
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST_SUITE("fft_real_nd") {
  TEST_CASE("2-D: odd, even, prime and unit sides, batches, both directions") {
    std::uint64_t seed = 8100;
    for (const bool inverse : {false, true}) {
      check_real_nd(real_case({17, 12}, 3, inverse), ++seed);
      check_real_nd(real_case({1, 8}, 2, inverse), ++seed);
      check_real_nd(real_case({8, 1}, 2, inverse), ++seed);
      check_real_nd(real_case({64, 100}, 1, inverse), ++seed);
    }
  }

  TEST_CASE("3-D and in place, scaled") {
    std::uint64_t seed = 8200;
    for (const bool inverse : {false, true}) {
      RealNdCase c = real_case({9, 5, 7}, 2, inverse);
      c.scaling = inverse ? FftScaling::OverN : FftScaling::OverSqrtN;
      check_real_nd(c, ++seed);
      c.in_place = true;
      check_real_nd(c, ++seed);
      c.tuning = Tuning{{{"FFT_LANES", 0}}, false};  // by fft_local: odd rows read and written in one kernel
      check_real_nd(c, ++seed);
      c.in_place = false;
      check_real_nd(c, ++seed);
      RealNdCase rows = real_case({17, 12}, 2, inverse);  // padded rows with a gap and an offset
      rows.in_place = true;
      rows.spectrum = {{9, 1}, 17 * 9 + 4, 3};
      check_real_nd(rows, ++seed);
    }
  }

  TEST_CASE("strides, distances and offsets out of place") {
    std::uint64_t seed = 8300;
    for (const bool inverse : {false, true}) {
      RealNdCase c = real_case({17, 12}, 2, inverse);
      c.real = {{14, 1}, 17 * 14 + 5, 3};  // padded real rows
      c.spectrum = {{1, 17}, 0, 2};        // the half spectrum column-major
      check_real_nd(c, ++seed);
      RealNdCase inter = real_case({9, 5, 7}, 3, inverse);  // interleaved batch on both sides
      inter.real = {{105, 21, 3}, 1, 0};
      inter.spectrum = {{60, 12, 3}, 1, 1};
      check_real_nd(inter, ++seed);
    }
  }

  TEST_CASE("round trips with 1/N scaling return the input") {
    auto& s = test::session();
    for (const bool in_place : {false, true}) {
      RealFftNdDesc d;
      d.shape = {9, 5, 7};
      d.batch = 2;
      d.in_place = in_place;
      d.inverse_scaling = FftScaling::OverN;
      const RealFftNdPlan plan(s.queue, d);
      const std::size_t real_floats = in_place ? 2 * 9 * 5 * 4 * 2 : 9 * 5 * 7 * 2;
      const std::vector<float> x = host::random_floats(real_floats, 8400 + in_place);
      cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, const_cast<float*>(x.data()));
      cl::Buffer b(s.context, CL_MEM_READ_WRITE, 9 * 5 * 4 * 2 * 8);
      cl::Buffer c(s.context, CL_MEM_READ_WRITE, x.size() * 4);
      if (in_place) {
        plan.forward(a);
        plan.inverse(a);
      } else {
        plan.forward(a, b);
        plan.inverse(b, c);
      }
      std::vector<float> y(x.size());
      s.queue.enqueueReadBuffer(in_place ? a : c, CL_TRUE, 0, y.size() * 4, y.data());
      std::vector<float> want = x, now = y;
      if (in_place)  // the real values: the first 7 floats of each padded row of 8
        for (std::size_t i = 0; i < x.size(); ++i)
          if (i % 8 == 7) want[i] = now[i] = 0;
      INFO((in_place ? "in place" : "out of place"));
      CHECK(relative(now, want) <= 2 * tolerance(d.shape));
    }
  }

  TEST_CASE("accessors: defaults filled in, launches, scratch") {
    auto& s = test::session();
    RealFftNdDesc d;
    d.shape = {17, 12};
    d.batch = 3;
    const RealFftNdPlan out(s.queue, d);
    CHECK(out.desc().real.strides == std::vector<std::size_t>{12, 1});
    CHECK(out.desc().real.distance == 17 * 12);
    CHECK(out.desc().complex.strides == std::vector<std::size_t>{7, 1});
    CHECK(out.desc().complex.distance == 17 * 7);
    CHECK(out.launches() >= 2);  // the complex FFT of 6 on the rows read as pairs (and post), the columns of 17
    CHECK(out.describe().find("reads the real rows itself") != std::string::npos);
    CHECK(out.scratch_bytes() >= 3 * 17 * 7 * 8);  // the inverse's copy of the spectrum
    CHECK(out.describe().find("axis 1 (real)") != std::string::npos);
    d.in_place = true;
    const RealFftNdPlan in(s.queue, d);
    CHECK(in.desc().real.strides == std::vector<std::size_t>{14, 1});
    CHECK(in.desc().real.distance == 2 * 17 * 7);
    CHECK(in.scratch_bytes() < out.scratch_bytes());
  }

  TEST_CASE("invalid arguments throw before anything runs") {
    auto& s = test::session();
    auto throws = [&](const RealFftNdDesc& d) { CHECK_THROWS_AS(RealFftNdPlan(s.queue, d), InvalidArgument); };
    RealFftNdDesc d;
    throws(d);  // no axes
    d.shape = {2, 2, 2, 2};
    throws(d);
    d.shape = {4, 0};
    throws(d);
    d.shape = {4, 6};
    d.batch = 0;
    throws(d);
    d.batch = 1;
    d.complex.strides = {3, 1};  // rows of 4 complex values overlap
    throws(d);
    d.complex = {};
    d.real.strides = {5, 1};  // real rows of 6 overlap
    throws(d);
    d.real = {};
    d.in_place = true;
    d.complex.strides = {1, 4};  // in place: rows must be contiguous
    throws(d);
    d.complex = {};
    d.real.strides = {6, 1};  // in place: not the padded rows
    throws(d);
    d.real = {};
    d.complex.strides = {SIZE_MAX / 2, 1};
    throws(d);
    d.complex = {};
    const RealFftNdPlan plan(s.queue, d);  // 4 rows of 4 complex values, 32 floats
    cl::Buffer small(s.context, CL_MEM_READ_WRITE, 31 * 4), ok(s.context, CL_MEM_READ_WRITE, 32 * 4);
    CHECK_THROWS_AS(plan.forward(small), InvalidArgument);
    CHECK_THROWS_AS(plan.forward(ok, small), InvalidArgument);
    CHECK_NOTHROW(plan.forward(ok));
    d.in_place = false;
    const RealFftNdPlan oop(s.queue, d);  // 24 floats in, 16 complex values out
    cl::Buffer both(s.context, CL_MEM_READ_WRITE, 40 * 8);
    CHECK_THROWS_AS(oop.forward(both, both), InvalidArgument);  // the same range
    CHECK_THROWS_AS(oop.inverse(ok), InvalidArgument);          // one buffer, out of place
    s.queue.finish();
  }
}
