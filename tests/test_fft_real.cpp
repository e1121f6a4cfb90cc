// Real-input FFTs (RealFftPlan: R2C forward, C2R inverse) against the DFT computed here from its
// definition in double precision, on fresh random data: lengths 1, 2, 3, 17, 1000, 1009, 4095,
// 65537, batches with strides, distances and offsets (rows read as pairs at an even offset, or
// through the pack at an odd one), interleaved batches, the padded in-place layout, scaling and a
// round trip.
//
// Error metric (tests/fft_support.hpp's): relative L2 error per transform ||y_b - ref_b|| /
// ||ref_b|| below host::fft_tolerance(n), the complex FFT's bound at the same length. For n
// above 5000 the reference is evaluated at 61 outputs per transform spread over the whole range
// (the full O(n^2) sum would take seconds), and the metric is taken over those. Outputs are
// poisoned with NaN first; every element outside the output layout (gaps and a guard tail of
// host::kGuardTail elements) must keep its poison (in place: its input), and the input of an
// out-of-place plan must be unchanged, in both directions.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "clforge/fft.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "host/guard.hpp"
#include "tests/fft_support.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;

namespace {

using cd = std::complex<double>;

struct RealCase {
  std::size_t n = 1, batch = 1;
  FftLayout real{}, spectrum{};  // floats; complex elements
  bool in_place = false, inverse = false;
  FftScaling scaling = FftScaling::None;
  Tuning tuning{{}, false};
};

std::size_t span(const FftLayout& l, std::size_t count, std::size_t batch) {
  return l.offset + (batch - 1) * l.distance + (count - 1) * l.stride + 1;
}

// The outputs at which the reference is evaluated: all, or 61 spread over [0, count).
std::vector<std::size_t> probes(std::size_t count) {
  std::vector<std::size_t> p;
  const std::size_t step = count > 2500 ? count / 61 : 1;
  for (std::size_t i = 0; i < count; i += step) p.push_back(i);
  if (p.back() != count - 1) p.push_back(count - 1);
  return p;
}

// exp(sign 2 pi i r / n) for r < n, from the definition in double.
std::vector<cd> roots(std::size_t n, int sign) {
  std::vector<cd> w(n);
  for (std::size_t r = 0; r < n; ++r) w[r] = std::polar(1.0, sign * 2.0 * M_PI * static_cast<double>(r) / n);
  return w;
}

// X_k = sum_j x_j exp(-2 pi i jk/n) at the probes k <= n/2.
std::vector<cd> r2c_reference(const std::vector<double>& x, const std::vector<std::size_t>& ks) {
  const std::size_t n = x.size();
  const std::vector<cd> w = roots(n, -1);
  std::vector<cd> y;
  for (std::size_t k : ks) {
    cd s = 0;
    for (std::size_t j = 0; j < n; ++j) s += x[j] * w[(j * k) % n];
    y.push_back(s);
  }
  return y;
}

// x_j = sum over the Hermitian spectrum of X_k exp(+2 pi i jk/n) at the probes j: X_0 and
// X_(n/2) (even n) by their real parts, the pairs k, n - k as 2 Re(X_k exp(...)).
std::vector<double> c2r_reference(const std::vector<cd>& X, std::size_t n, const std::vector<std::size_t>& js) {
  const std::vector<cd> w = roots(n, +1);
  std::vector<double> y;
  for (std::size_t j : js) {
    double s = X[0].real();
    for (std::size_t k = 1; 2 * k < n; ++k) s += 2.0 * (X[k] * w[(j * k) % n]).real();
    if (n % 2 == 0) s += X[n / 2].real() * ((j % 2 == 0) ? 1.0 : -1.0);
    y.push_back(s);
  }
  return y;
}

// The layouts as the plan documents them: default distances, in place the padded rows.
RealCase with_defaults(RealCase c) {
  const std::size_t h = c.n / 2 + 1;
  if (c.spectrum.distance == 0) c.spectrum.distance = h * c.spectrum.stride;
  if (c.in_place) c.real = {1, 2 * c.spectrum.distance, 2 * c.spectrum.offset};
  if (c.real.distance == 0) c.real.distance = c.n * c.real.stride;
  return c;
}

struct Errors {
  double max_rel = 0, max_abs = 0;
  std::size_t nonfinite = 0;
};

// Relative L2 error per transform of got (floats) at the probes of each transform.
Errors compare(const std::vector<float>& got, const RealCase& c, const std::vector<std::vector<double>>& ref,
               const std::vector<std::size_t>& at) {
  Errors e;
  const bool real_out = c.inverse;
  const FftLayout& l = real_out ? c.real : c.spectrum;
  for (std::size_t b = 0; b < c.batch; ++b) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < at.size(); ++i) {
      const std::size_t pos = l.offset + b * l.distance + at[i] * l.stride;
      const int parts = real_out ? 1 : 2;
      for (int p = 0; p < parts; ++p) {
        const double y = got[real_out ? pos : 2 * pos + p], r = ref[b][parts * i + p];
        if (!std::isfinite(y)) ++e.nonfinite;
        num += (y - r) * (y - r);
        den += r * r;
        e.max_abs = std::max(e.max_abs, std::abs(y - r));
      }
    }
    e.max_rel = std::max(e.max_rel, std::sqrt(num / den));
  }
  return e;
}

// The reference of every transform at the probes: interleaved (re, im) for R2C, values for C2R.
std::vector<std::vector<double>> reference(const std::vector<float>& in, const RealCase& c,
                                           const std::vector<std::size_t>& at) {
  const double scale = test::fft_cases::scale_of(c.scaling, c.n);
  std::vector<std::vector<double>> ref;
  for (std::size_t b = 0; b < c.batch; ++b) {
    std::vector<double> r;
    if (!c.inverse) {
      std::vector<double> x(c.n);
      for (std::size_t j = 0; j < c.n; ++j) x[j] = in[c.real.offset + b * c.real.distance + j * c.real.stride];
      for (const cd& v : r2c_reference(x, at)) r.insert(r.end(), {v.real() * scale, v.imag() * scale});
    } else {
      std::vector<cd> X(c.n / 2 + 1);
      for (std::size_t k = 0; k < X.size(); ++k) {
        const std::size_t pos = c.spectrum.offset + b * c.spectrum.distance + k * c.spectrum.stride;
        X[k] = cd(in[2 * pos], in[2 * pos + 1]);
      }
      for (double v : c2r_reference(X, c.n, at)) r.push_back(v * scale);
    }
    ref.push_back(r);
  }
  return ref;
}

// Runs one plan on fresh random data and checks it; returns the largest relative error.
double check_real(RealCase c, std::uint64_t seed) {
  auto& s = test::session();
  c = with_defaults(c);
  const std::size_t h = c.n / 2 + 1;
  const std::size_t real_floats = span(c.real, c.n, c.batch), spectrum_floats = 2 * span(c.spectrum, h, c.batch);
  const std::size_t in_floats =
      c.in_place ? std::max(real_floats, spectrum_floats) : (c.inverse ? spectrum_floats : real_floats);
  const std::vector<float> in = host::random_floats(in_floats + 2 * host::kGuardTail, seed);
  // Elements of 4 bytes on the real side, 8 on the complex side; in place the input must survive.
  const std::size_t elem = c.inverse ? 4 : 8;
  const host::PoisonedOutput poison = c.in_place
                                          ? host::PoisonedOutput(in, elem)
                                          : host::PoisonedOutput(c.inverse ? real_floats : spectrum_floats / 2, elem);
  const std::vector<float> out = poison.floats();
  const std::vector<std::size_t> at = probes(c.inverse ? c.n : h);
  const std::vector<std::vector<double>> ref = reference(in, c, at);

  RealFftDesc d;
  d.n = c.n;
  d.batch = c.batch;
  d.in_place = c.in_place;
  d.real = c.in_place ? FftLayout{} : c.real;
  d.complex = c.spectrum;
  (c.inverse ? d.inverse_scaling : d.forward_scaling) = c.scaling;
  INFO("n " << c.n << " batch " << c.batch << (c.inverse ? " C2R" : " R2C") << (c.in_place ? " in-place" : "")
            << " real (" << c.real.stride << ", " << c.real.distance << ", " << c.real.offset << ") complex ("
            << c.spectrum.stride << ", " << c.spectrum.distance << ", " << c.spectrum.offset << ") seed " << seed);
  RealFftPlan plan(s.queue, d, c.tuning);
  INFO("plan: " << plan.describe());
  cl::Buffer bin(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
  cl::Buffer bout = c.in_place ? bin
                               : cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4,
                                            const_cast<float*>(out.data()));
  plan.enqueue(s.queue, c.inverse ? FftDirection::Inverse : FftDirection::Forward, bin, bout);
  std::vector<float> got(out.size());
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, got.size() * 4, got.data());

  const Errors e = compare(got, c, ref, at);
  const double tol = host::fft_tolerance(c.n);
  INFO("max relative L2 error " << e.max_rel << ", max abs " << e.max_abs << ", tolerance " << tol);
  CHECK(e.nonfinite == 0);
  CHECK(e.max_rel <= tol);
  // Nothing outside the output layout changes.
  std::vector<bool> mask(poison.elements(), false);
  const FftLayout& l = c.inverse ? c.real : c.spectrum;
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t k = 0; k < (c.inverse ? c.n : h); ++k) mask[l.offset + b * l.distance + k * l.stride] = true;
  std::size_t first = 0;
  const std::size_t touched = poison.changed_outside(got.data(), mask, &first);
  INFO("first changed element outside the layout: " << first);
  CHECK(touched == 0);
  if (!c.in_place) {  // the input is never written, C2R included
    std::vector<float> after(in.size());
    s.queue.enqueueReadBuffer(bin, CL_TRUE, 0, after.size() * 4, after.data());
    CHECK(std::memcmp(after.data(), in.data(), in.size() * 4) == 0);
  }
  return e.max_rel;
}

// A plan of n points over `batch` rows as they lie, for its structure (describe, launches).
RealFftPlan plan_of(std::size_t n, std::size_t batch, const Tuning& tuning) {
  RealFftDesc d;
  d.n = n;
  d.batch = batch;
  return RealFftPlan(test::session().queue, d, tuning);
}

RealCase real_case(std::size_t n, std::size_t batch, bool inverse) {
  RealCase c;
  c.n = n;
  c.batch = batch;
  c.inverse = inverse;
  return c;
}

// An odd length under `tuning`, both directions, 7 rows on every real layout (rows as they lie,
// strided at an odd offset, interleaved, in place: padded rows); then its plan: both ends in the
// kernel, one launch each way.
void check_odd_in_one_launch(std::size_t n, const Tuning& tuning, std::uint64_t& seed) {
  const std::size_t h = n / 2 + 1;
  for (bool inverse : {false, true}) {
    RealCase c = real_case(n, 7, inverse);
    c.tuning = tuning;
    check_real(c, seed++);
    c.real = {3, 3 * n + 1, 5};
    c.spectrum = {2, 2 * h + 3, 1};
    check_real(c, seed++);
    c.real = {7, 1, 3};
    c.spectrum = {7, 1, 0};
    check_real(c, seed++);
    c.real = {};
    c.spectrum = {1, h + 2, 1};
    c.in_place = true;
    check_real(c, seed++);
  }
  const RealFftPlan plan = plan_of(n, 7, tuning);
  INFO(plan.describe());
  CHECK(plan.describe().find("it reads the real rows itself and writes the half spectrum") != std::string::npos);
  CHECK(plan.describe().find("it reads the half spectrum itself and writes the real rows") != std::string::npos);
  CHECK(plan.launches(FftDirection::Forward) == 1);
  CHECK(plan.launches(FftDirection::Inverse) == 1);
}

}  // namespace

TEST_SUITE("fft_real") {
  TEST_CASE("R2C and C2R: even, odd and prime lengths") {
    std::uint64_t seed = test::seed() + 5100;
    for (std::size_t n : {1, 2, 3, 17, 1000, 1009, 4095, 65537}) {
      CAPTURE(n);
      const double r2c = check_real(real_case(n, n > 5000 ? 1 : 3, false), seed++);
      const double c2r = check_real(real_case(n, n > 5000 ? 1 : 3, true), seed++);
      MESSAGE("n " << n << ": relative L2 error R2C " << r2c << ", C2R " << c2r << " (tolerance "
                   << host::fft_tolerance(n) << ")");
    }
  }

  TEST_CASE("strides, distances, offsets and interleaved batches") {
    std::uint64_t seed = test::seed() + 5200;
    for (std::size_t n : {16, 15}) {
      CAPTURE(n);
      const std::size_t h = n / 2 + 1;
      for (bool inverse : {false, true}) {
        RealCase c = real_case(n, 5, inverse);
        c.real = {2, 2 * n + 5, 3};  // element stride, padded distance, offset
        c.spectrum = {3, 3 * h + 2, 1};
        check_real(c, seed++);
        c.real = {5, 1, 2};  // interleaved: element stride = batch, distance 1
        c.spectrum = {5, 1, 0};
        check_real(c, seed++);
        c.real = {1, n, 4};  // rows as they lie at an even offset: read or written as pairs (even n)
        c.spectrum = {1, h, 2};
        check_real(c, seed++);
        c.tuning = Tuning{{{"FFT_LANES", 0}}, false};  // by fft_local rather than the lane kernel
        check_real(c, seed++);
        c.tuning = Tuning{{}, false};
        c.real = {1, n, 3};  // an odd offset: through the pack or unpack launch
        check_real(c, seed++);
      }
    }
  }

  TEST_CASE("the ends in the loads and stores of one fft_local kernel") {
    // Rows read as pairs by one fft_local kernel of n/2 points (not the CPU lane kernel), which
    // post-processes in its store: the forward in one launch; the inverse's kernel pre-processes
    // its loads and writes the rows as pairs: one launch too. At an odd offset the forward keeps
    // its pack launch and the inverse its unpack.
    std::uint64_t seed = test::seed() + 5250;
    for (std::size_t n : {1000, 1024, 4096}) {
      CAPTURE(n);
      for (bool inverse : {false, true}) {
        RealCase c = real_case(n, 5, inverse);
        c.tuning = Tuning{{{"FFT_LANES", 0}}, false};
        check_real(c, seed++);
      }
      RealFftDesc d;
      d.n = n;
      d.batch = 5;
      const RealFftPlan plan(test::session().queue, d, Tuning{{{"FFT_LANES", 0}}, false});
      CHECK(plan.describe().find("post-processes them in its store") != std::string::npos);
      CHECK(plan.describe().find("it pre-processes its loads and writes the real rows itself") != std::string::npos);
      CHECK(plan.launches() == 1);
      for (bool inverse : {false, true}) {  // at an odd offset: pack, then the kernel with the post-processing
        RealCase odd = real_case(n, 3, inverse);
        odd.real = {1, n, 1};
        odd.tuning = Tuning{{{"FFT_LANES", 0}}, false};
        check_real(odd, seed++);
      }
      d.real.offset = 1;
      const RealFftPlan packed(test::session().queue, d, Tuning{{{"FFT_LANES", 0}}, false});
      CHECK(packed.describe().find("a pack launch, then it reads the rows and post-processes them in its store") !=
            std::string::npos);
      CHECK(packed.launches() == 2);
    }
  }

  TEST_CASE("the forward's post-processing from registers and from halves of local memory") {
    // The store's post-processing gets Z_k and Z_(m-k) of a register kernel's transforms through
    // the group's rows in local memory (its own, or those of its staged accesses), or in two
    // rounds (halving: real, then imaginary parts).
    // Each a forward of one launch; batches that leave a partial group. Exchanges in quarters keep
    // the post-processing launch.
    std::uint64_t seed = test::seed() + 5270;
    struct Kind {
      const char* name;
      Tuning tuning;
      std::size_t n;
      const char* shape;
    };
    const Kind kinds[] = {
        {"registers", Tuning{{{"FFT_LANES", 0}, {"FFT_REG", 64}}, false}, 24, "1 work-item x"},
        {"registers", Tuning{{{"FFT_LANES", 0}, {"FFT_REG", 64}}, false}, 64, "1 work-item x"},
        {"registers, staged", Tuning{{{"FFT_LANES", 0}, {"FFT_REG", 64}, {"FFT_STAGE", 1}}, false}, 32,
         "load staged, store staged"},
        {"halves", Tuning{{{"FFT_LANES", 0}, {"FFT_REG", 1}, {"FFT_HALVE", 1}}, false}, 1000, "halved local memory"},
    };
    for (const Kind& k : kinds) {
      CAPTURE(k.name);
      CAPTURE(k.n);
      RealCase c = real_case(k.n, 37, false);
      c.tuning = k.tuning;
      check_real(c, seed++);
      const RealFftPlan plan = plan_of(k.n, 37, k.tuning);
      INFO(plan.describe());
      CHECK(plan.describe().find(k.shape) != std::string::npos);
      CHECK(plan.describe().find("post-processes them in its store") != std::string::npos);
      CHECK(plan.launches() == 1);
    }
    const Tuning quarters{{{"FFT_LANES", 0}, {"FFT_REG", 1}, {"FFT_HALVE", 2}}, false};
    RealCase c = real_case(2048, 37, false);
    c.tuning = quarters;
    check_real(c, seed++);
    const RealFftPlan plan = plan_of(2048, 37, quarters);
    INFO(plan.describe());
    CHECK(plan.describe().find("local memory in quarters") != std::string::npos);
    CHECK(plan.describe().find("then a post-processing launch") != std::string::npos);
    CHECK(plan.launches(FftDirection::Forward) == 2);
    CHECK(plan.launches(FftDirection::Inverse) == 1);  // its pre-processing is in the kernel's loads
  }

  TEST_CASE("odd lengths: one kernel reads and writes the caller's sides in either direction") {
    // An odd length is the complex FFT of n points: the forward's loads read floats (imaginary
    // parts zero) and its stores keep X_0 .. X_(n/2); the inverse's loads read the Hermitian
    // extension of the half spectrum and its stores write the real parts. One launch each for a
    // kernel of one pass set or a Bluestein convolution (17, 1009), on rows as they lie,
    // strided, interleaved, at odd offsets and in place.
    std::uint64_t seed = test::seed() + 5290;
    const Tuning local{{{"FFT_LANES", 0}}, false};
    for (std::size_t n : {3, 17, 1009, 4095}) {
      CAPTURE(n);
      check_odd_in_one_launch(n, local, seed);
    }
  }

  TEST_CASE("odd lengths on the lane kernel: one launch each way, on any real layout") {
    // The CPU lane kernel of one launch reads the real rows itself (imaginary parts zero) and
    // writes X_0 .. X_(n/2), and for the inverse reads the half spectrum's Hermitian extension and
    // writes the real parts, lane by lane: no pack, post-processing, pre-processing or unpack
    // launch; a Bluestein convolution in lanes (1009) too. Rows as they lie, strided at an odd
    // offset, interleaved, in place.
    std::uint64_t seed = test::seed() + 5297;
    const Tuning lanes{{{"FFT_LANES", 8}}, false};
    for (std::size_t n : {15, 1009}) {
      CAPTURE(n);
      check_odd_in_one_launch(n, lanes, seed);
      CHECK(plan_of(n, 7, lanes).describe().find("lane kernel") != std::string::npos);
    }
  }

  TEST_CASE("more rows than one launch of an end covers: its work-items step through them") {
    // The ends' launches cover at most 65535 groups of 4 rows (NVIDIA's grid): 300001 rows of
    // n = 2 and 3 take each work-item through more than one.
    std::uint64_t seed = test::seed() + 5280;
    for (std::size_t n : {2, 3})
      for (bool inverse : {false, true}) {
        CAPTURE(n);
        check_real(real_case(n, 300001, inverse), seed++);
      }
  }

  TEST_CASE("the ends' rows (fft_real): a work-item's elements an NDRange apart or consecutive") {
    // The GPU rows (FFT_REAL_CHUNK 0, 4 elements a work-item), the CPU row's (1, 64) and one
    // element each: pack and unpack (rows at an odd offset), post- and pre-processing (n = 20000:
    // the lane kernel's two launches, which fold neither end), a last chunk cut short.
    std::uint64_t seed = test::seed() + 5290;
    for (const auto& [chunk, per] : {std::pair{0, 4}, std::pair{1, 64}, std::pair{1, 1}})
      for (bool inverse : {false, true}) {
        CAPTURE(chunk);
        CAPTURE(per);
        CAPTURE(inverse);
        const Tuning t{{{"FFT_REAL_CHUNK", chunk}, {"FFT_REAL_PER", per}}, false};
        RealCase c = real_case(300, 7, inverse);
        c.real = {1, 300, 3};
        c.tuning = t;
        check_real(c, seed++);
        c = real_case(20000, 3, inverse);
        c.tuning = t;
        check_real(c, seed++);
      }
    // The plan runs the ends with the row asked for.
    RealFftDesc d;
    d.n = 20000;
    d.batch = 3;
    const RealFftPlan plan(test::session().queue, d, Tuning{{{"FFT_REAL_CHUNK", 1}, {"FFT_REAL_PER", 1}}, false});
    const auto cfgs = plan.configurations();
    REQUIRE(!cfgs.empty());
    CHECK(cfgs.back().kernel == "fft_real");
    CHECK(cfgs.back().values.at("FFT_REAL_CHUNK") == 1);
    CHECK(cfgs.back().values.at("FFT_REAL_PER") == 1);
  }

  TEST_CASE("in place: padded rows") {
    std::uint64_t seed = test::seed() + 5300;
    for (std::size_t n : {16, 15}) {
      CAPTURE(n);
      for (bool inverse : {false, true}) {
        RealCase c = real_case(n, 4, inverse);
        c.in_place = true;
        check_real(c, seed++);
        c.spectrum = {1, n / 2 + 4, 3};  // more padding and an offset
        check_real(c, seed++);
      }
    }
  }

  TEST_CASE("the complex FFT in passes over two chunks, in place and out of place") {
    // n = 2^17: 65536-point complex rows of 512 KiB in passes of at most 64 points, 4 MiB chunks
    // of scratch (8 transforms): a batch of 9 runs as two chunks of the pack, passes and post.
    std::uint64_t seed = test::seed() + 5350;
    for (bool in_place : {false, true})
      for (bool inverse : {false, true}) {
        RealCase c = real_case(std::size_t{1} << 17, 9, inverse);
        c.in_place = in_place;
        c.tuning = Tuning{{{"FFT_PASS_MAX", 64}, {"FFT_CHUNK", 4}}, false};
        check_real(c, seed++);
      }
  }

  TEST_CASE("scaling on either direction") {
    std::uint64_t seed = test::seed() + 5400;
    for (FftScaling sc : {FftScaling::OverN, FftScaling::OverSqrtN})
      for (bool inverse : {false, true}) {
        RealCase c = real_case(16, 2, inverse);
        c.scaling = sc;
        check_real(c, seed++);
      }
  }

  TEST_CASE("round trip: C2R(R2C(x)) with OverN == x") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 5500;
    for (std::size_t n : {17, 1000}) {
      const std::size_t batch = 3, h = n / 2 + 1;
      CAPTURE(n);
      const std::vector<float> x = host::random_floats(n * batch, seed++);
      RealFftDesc d;
      d.n = n;
      d.batch = batch;
      d.inverse_scaling = FftScaling::OverN;
      RealFftPlan plan(s.queue, d, Tuning{{}, false});
      cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, const_cast<float*>(x.data()));
      cl::Buffer b(s.context, CL_MEM_READ_WRITE, h * batch * 8), c(s.context, CL_MEM_READ_WRITE, x.size() * 4);
      plan.forward(a, b);
      plan.inverse(b, c);
      std::vector<float> y(x.size());
      s.queue.enqueueReadBuffer(c, CL_TRUE, 0, y.size() * 4, y.data());
      const host::Comparison cmp = host::compare(y, std::vector<double>(x.begin(), x.end()));
      INFO(cmp.summary() << ", tolerance " << host::fft_round_trip_tolerance(n));
      CHECK(cmp.nonfinite == 0);
      CHECK(cmp.rel_error <= host::fft_round_trip_tolerance(n));
    }
  }

  TEST_CASE("plan structure and argument checks") {
    auto& s = test::session();
    RealFftDesc d;
    d.n = 1000;
    d.batch = 2;
    RealFftPlan plan(s.queue, d, Tuning{{}, false});
    CHECK(plan.desc().real.distance == 1000);
    CHECK(plan.desc().complex.distance == 501);
    // Rows as they lie are read as pairs: one launch fewer than through the pack at an odd offset.
    RealFftDesc odd = d;
    odd.real.offset = 1;
    const RealFftPlan packed(s.queue, odd, Tuning{{}, false});
    CHECK(plan.describe().find("reads the real rows itself") != std::string::npos);
    CHECK(packed.describe().find("a pack launch") != std::string::npos);
    CHECK(packed.describe().find("an unpack launch") != std::string::npos);
    CHECK(plan.launches() < packed.launches());
    CHECK(plan.launches() >= 1);
    CHECK(plan.scratch_bytes() >= 500 * 2 * 8);
    CHECK(!plan.configurations().empty());
    CHECK(plan.describe().find("complex FFT of 500") != std::string::npos);
    auto refused = [&](const RealFftDesc& bad, const char* needle) {
      CAPTURE(needle);
      try {
        RealFftPlan p(s.queue, bad);
        FAIL("no exception");
      } catch (const InvalidArgument& e) {
        CHECK(std::string(e.what()).find(needle) != std::string::npos);
      }
    };
    RealFftDesc e = d;
    e.n = 0;
    refused(e, "n must be at least 1");
    e = d;
    e.complex.distance = 500;  // rows of 501 overlap
    refused(e, "complex layout makes transforms overlap");
    e = d;
    e.real.stride = 0;
    refused(e, "real.stride");
    e = d;
    e.in_place = true;
    e.complex.stride = 2;
    refused(e, "complex.stride must be 1");
    e = d;
    e.in_place = true;
    e.real = {1, 1000, 0};
    refused(e, "the real layout must be");
    // Buffers: too small, same buffer overlapping, one buffer for an out-of-place plan.
    cl::Buffer real(s.context, CL_MEM_READ_WRITE, 2000 * 4), small(s.context, CL_MEM_READ_WRITE, 1000 * 8);
    CHECK_THROWS_AS(plan.forward(real, small), InvalidArgument);
    CHECK_THROWS_AS(plan.inverse(small, real), InvalidArgument);
    CHECK_THROWS_AS(plan.forward(real, real), InvalidArgument);
    CHECK_THROWS_AS(plan.forward(real), InvalidArgument);
  }

  TEST_CASE("the complex FFT inside a real plan takes its length's \":real\" rows, over the length's own") {
    // Rows of a tuning file: 64 points on 16 work-items, and in a real plan on 32.
    const std::string file = test::temp_dir("fft-real-rows") + "/rows.json";
    std::ofstream(file) << R"({"kernel": "fft", "entries": [{"variant": "64", "params": {"FFT_WG": 16}},
                                                             {"variant": "64:real", "params": {"FFT_WG": 32}}]})";
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    const Tuning local{{{"FFT_LANES", 0}}, false};  // the fft_local kernel, on CPU devices too
    FftDesc d;
    d.n = 64;
    d.batch = 5;
    const std::vector<Configuration> complex = FftPlan(test::session().queue, d, local).configurations();
    const std::vector<Configuration> real = plan_of(128, 5, local).configurations();
    REQUIRE(complex.size() == 1);
    REQUIRE(real.size() == 1);
    CHECK(complex[0].variant == "64");
    CHECK(complex[0].at("FFT_WG") == 16);
    CHECK(real[0].variant == "64:real");
    CHECK(real[0].at("FFT_WG") == 32);
    CHECK(real[0].at("FFT_RADIX") == complex[0].at("FFT_RADIX"));  // the rest falls back alike
    const RealFftPlan odd = plan_of(65, 3, local);                 // an odd length's complex FFT of n points
    CHECK(odd.configurations().front().variant == "65:real");
    std::uint64_t seed = test::seed() + 4700;
    for (const bool inverse : {false, true})
      for (const std::size_t n : {std::size_t{128}, std::size_t{65}}) {
        RealCase c = real_case(n, 5, inverse);
        c.tuning = local;
        check_real(c, seed++);
      }
  }

  TEST_CASE("every shipped sm_90 \":real\" row computes R2C and C2R right here") {
    // The rows resolved for a made-up NVIDIA sm_90 device with this device's limits, on the
    // fft_local kernel (as on a GPU), in real plans of twice their length, forward and inverse.
    using namespace clforge::detail;
    const DeviceInfo fake = test::fake_device(VendorClass::NVIDIA, "sm_90");
    const std::set<std::string> variants = test::fft_cases::sm90_fft_variants(":real");
    CHECK(variants.count("64:real") == 1);
    std::uint64_t seed = test::seed() + 4800;
    for (const std::string& v : variants) {
      ParamMap p = resolve_configuration("fft", v, fake, Tuning{{}, false}).values;
      p["FFT_LANES"] = 0;
      CAPTURE(v);
      for (const bool inverse : {false, true}) {
        RealCase c = real_case(2 * std::stoull(v), 3, inverse);
        c.tuning = Tuning{p, false};
        check_real(c, seed++);
      }
    }
  }
}
