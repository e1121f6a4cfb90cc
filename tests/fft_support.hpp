// Shared pieces of the fft suite (test_fft*.cpp): a case (length, batch, layouts, direction,
// scaling, tuning) run on fresh random data against FFTW in double precision.
//
// Error metric: relative L2 error per transform, ||y_b - ref_b|| / ||ref_b||, must stay below
// host::fft_tolerance(n) = c * (2e-7 + 6e-8 * log2 n) with c = 1 for lengths with prime factors
// <= 13 and c = 3 for Bluestein lengths. Outputs are poisoned with NaN first; elements outside
// the output layout (gaps and a guard tail) must keep their poison (or, in place, their input).
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "clforge/fft.hpp"
#include "clforge/runtime.hpp"
#include "host/fft.hpp"
#include "host/fftw_reference.hpp"
#include "host/guard.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

namespace clforge::test::fft_cases {

// The variants of the shipped FFT rows of architecture sm_90 that contain `part` (every variant
// row where it is empty).
inline std::set<std::string> sm90_fft_variants(const std::string& part = "") {
  const auto j = nlohmann::json::parse(load_kernel_source(detail::kernel_spec("fft").database).text);
  std::set<std::string> variants;
  for (const auto& e : j["entries"])
    if (e.value("architecture", "") == "sm_90" && e.contains("variant") &&
        e["variant"].template get<std::string>().find(part) != std::string::npos)
      variants.insert(e["variant"].template get<std::string>());
  return variants;
}

using test::long_tests;  // CLFORGE_LONG_TESTS

struct Case {
  std::size_t n = 1, batch = 1;
  FftLayout in{}, out{};
  bool in_place = false;
  bool inverse = false;
  FftScaling scaling = FftScaling::None;
  Tuning tuning{{}, false};
};

inline std::size_t span(const FftLayout& l, std::size_t n, std::size_t batch) {
  return l.offset + (batch - 1) * l.distance + (n - 1) * l.stride + 1;
}

inline std::string params_of(const Tuning& t) {
  std::string p;
  for (const auto& [k, v] : t.overrides) p += k + "=" + std::to_string(v) + " ";
  return p.empty() ? "(device defaults)" : p;
}

inline double scale_of(FftScaling s, std::size_t n) {
  return s == FftScaling::OverN ? 1.0 / n : s == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(n)) : 1.0;
}

// Runs one plan on fresh random data and checks it; returns the largest relative error.
inline double check_fft(Case c, std::uint64_t seed) {
  auto& s = test::session();
  if (c.in.distance == 0) c.in.distance = c.n * c.in.stride;
  if (c.in_place) c.out = c.in;
  if (c.out.distance == 0) c.out.distance = c.n * c.out.stride;
  const std::size_t in_elems = span(c.in, c.n, c.batch) + host::kGuardTail;
  std::vector<float> in = host::random_floats(2 * in_elems, seed);
  // In place, the input is what must survive outside the layout.
  const host::PoisonedOutput poison =
      c.in_place ? host::PoisonedOutput(in, 8) : host::PoisonedOutput(span(c.out, c.n, c.batch), 8);
  const std::vector<float> out = poison.floats();
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
  cl::Buffer bout = c.in_place ? bin
                               : cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4,
                                            const_cast<float*>(out.data()));
  cl::Event ev;
  if (c.inverse)
    plan.inverse(bin, bout, {}, &ev);
  else
    plan.forward(bin, bout, {}, &ev);
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
  std::vector<bool> mask(poison.elements(), false);
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t k = 0; k < c.n; ++k) mask[c.out.offset + b * c.out.distance + k * c.out.stride] = true;
  std::size_t first = 0;
  const std::size_t touched = poison.changed_outside(got.data(), mask, &first);
  INFO("first changed element outside the layout: " << first);
  CHECK(touched == 0);
  if (!c.in_place) {  // the input is never written
    std::vector<float> after(in.size());
    s.queue.enqueueReadBuffer(bin, CL_TRUE, 0, after.size() * 4, after.data());
    CHECK(std::memcmp(after.data(), in.data(), in.size() * 4) == 0);
  }
  return e.max_rel_l2;
}

inline Case contiguous(std::size_t n, std::size_t batch, bool inverse = false) {
  Case c;
  c.n = n;
  c.batch = batch;
  c.inverse = inverse;
  return c;
}

// A vendor class's shipped parameters for length n (resolved for a made-up device of that class),
// the lane kernel's included (FFT_LANES 0 on GPUs: their rows run fft_local here too).
inline ParamMap vendor_row(VendorClass v, std::size_t n) {
  ParamMap p = test::vendor_row("fft", v, std::to_string(n));
  for (const auto& [k, val] : test::vendor_row("fft_lanes", v, std::to_string(n))) p[k] = val;
  return p;
}

// The case with these parameters; sets of fft_local's parameters alone run fft_local (FFT_LANES 0),
// not the CPU lane kernel that the device's own row may choose.
inline Case with(Case c, const ParamMap& p) {
  c.tuning = Tuning{p, false};
  c.tuning.overrides.emplace("FFT_LANES", 0);
  return c;
}

// Multi-dimensional layouts and references (test_fft_nd.cpp, test_fft_real_nd.cpp) ------------

using Shape = std::vector<std::size_t>;

inline std::size_t volume(const Shape& s) {
  std::size_t v = 1;
  for (std::size_t n : s) v *= n;
  return v;
}

// Strides and distance as the plans document their defaults (row-major, distance max n_k s_k).
inline FftNdLayout filled(FftNdLayout l, const Shape& shape) {
  if (l.strides.empty()) {
    l.strides.assign(shape.size(), 1);
    for (std::size_t k = shape.size() - 1; k > 0; --k) l.strides[k - 1] = l.strides[k] * shape[k];
  }
  if (l.distance == 0)
    for (std::size_t k = 0; k < shape.size(); ++k) l.distance = std::max(l.distance, shape[k] * l.strides[k]);
  return l;
}

// Element offsets of the logical elements (b, i_0, ..., i_(r-1)) in row-major order.
inline std::vector<std::size_t> positions(const FftNdLayout& l, const Shape& shape, std::size_t batch) {
  std::vector<std::size_t> p;
  const std::size_t v = volume(shape);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t e = 0; e < v; ++e) {
      std::size_t o = l.offset + b * l.distance, rest = e;
      for (std::size_t k = shape.size(); k-- > 0;) {
        o += (rest % shape[k]) * l.strides[k];
        rest /= shape[k];
      }
      p.push_back(o);
    }
  return p;
}

// The DFT of x (a batch of row-major arrays of `shape`) along `axis`, exp(sign 2 pi i jk/n), from its definition.
inline std::vector<std::complex<double>> dft_axis(const std::vector<std::complex<double>>& x, const Shape& shape,
                                                  std::size_t axis, int sign) {
  std::size_t inner = 1;  // elements after this axis: its stride in the logical array
  for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  const std::size_t n = shape[axis];
  std::vector<std::complex<double>> y(x.size());
  for (std::size_t base = 0; base < x.size(); ++base) {
    const std::size_t k = (base / inner) % n, first = base - k * inner;
    std::complex<double> s = 0;
    for (std::size_t j = 0; j < n; ++j)
      s += x[first + j * inner] * std::polar(1.0, sign * 2.0 * M_PI * static_cast<double>((j * k) % n) / n);
    y[base] = s;
  }
  return y;
}

// The DFT of x along every axis, scaled.
inline std::vector<std::complex<double>> separable_dft(std::vector<std::complex<double>> x, const Shape& shape,
                                                       int sign, double scale) {
  for (std::size_t axis = 0; axis < shape.size(); ++axis) x = dft_axis(x, shape, axis, sign);
  for (std::complex<double>& z : x) z *= scale;
  return x;
}

// The bound of a multi-dimensional transform: the sum over the axes of the 1-D bound.
inline double tolerance(const Shape& shape) {
  double t = 0;
  for (std::size_t n : shape) t += host::fft_tolerance(n);
  return t;
}

// Largest relative L2 error per transform of `got` (floats) at the output positions `pos`
// (complex: floats 2p, 2p + 1; real: float p) against `ref`, `per` values per transform.
inline double max_error(const std::vector<float>& got, const std::vector<std::size_t>& pos, bool complex_out,
                        const std::vector<std::complex<double>>& ref, std::size_t per) {
  double worst = 0;
  for (std::size_t b = 0; b < ref.size() / per; ++b) {
    double num = 0, den = 0;
    for (std::size_t e = b * per; e < (b + 1) * per; ++e) {
      const std::complex<double> y = complex_out ? std::complex<double>(got[2 * pos[e]], got[2 * pos[e] + 1])
                                                 : std::complex<double>(got[pos[e]], 0);
      num += std::norm(y - ref[e]);
      den += std::norm(ref[e]);
    }
    const double r = std::sqrt(num / std::max(den, 1e-300));
    worst = std::isfinite(r) ? std::max(worst, r) : INFINITY;
  }
  return worst;
}

// Runs `plan` in `direction` on a device copy of x into an output that starts as `init` (in
// place: x's buffer) and returns the output; out of place also checks that x is left unchanged.
template <class Plan>
std::vector<float> run_plan(const Plan& plan, FftDirection direction, bool in_place, const std::vector<float>& x,
                            std::vector<float> init) {
  auto& s = session();
  cl::Buffer bin(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, const_cast<float*>(x.data()));
  cl::Buffer bout =
      in_place ? bin : cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.size() * 4, init.data());
  cl::Event ev;
  plan.enqueue(s.queue, direction, bin, bout, {}, &ev);
  std::vector<cl::Event> deps{ev};
  std::vector<float> got(init.size());
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, got.size() * 4, got.data(), &deps);
  if (!in_place) {
    std::vector<float> after(x.size());
    s.queue.enqueueReadBuffer(bin, CL_TRUE, 0, after.size() * 4, after.data());
    CHECK(std::memcmp(after.data(), x.data(), x.size() * 4) == 0);
  }
  return got;
}

}  // namespace clforge::test::fft_cases
