// Shared pieces of the blur tests (test_blur*.cpp): one float blur with a poisoned, guarded
// output against the double host reference of the same filter, and its tolerances.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "host/blur.hpp"
#include "host/guard.hpp"
#include "tests/support.hpp"

namespace clforge::test::blur {

using test::long_tests;  // CLFORGE_LONG_TESTS

// Tolerances against the double reference of the same filter: host::truncated_blur_tolerance
// (direct, separable) and host::recursive_blur_tolerance (host/blur.hpp, shared with clforge demo).

// Recursive filter against the exact Gaussian on random data: the approximation error of the
// Young-van Vliet design (measured 2-D: 0.15-0.17 at sigma 0.5-1, 0.09 at 2, 0.06 at 5, 0.04 at
// 10), largest at small sigma where high frequencies dominate.
inline double exact_tolerance(double sigma_min) { return sigma_min < 2 ? 0.20 : sigma_min < 5 ? 0.10 : 0.07; }
// An image whose every side is 1 or shorter than 4 sigma of its axis blurs to nearly its
// mean, which may be close to zero, so there the error is bounded in absolute terms instead
// (inputs lie in [-1, 1]).
constexpr double kExactAbsTolerance = 0.02;
inline bool nearly_constant(std::size_t w, std::size_t h, double sx, double sy) {
  auto flat = [](std::size_t n, double s) { return n == 1 || static_cast<double>(n) < 4 * s; };
  return flat(w, sx) && flat(h, sy);
}

struct Case {
  std::size_t w = 1, h = 1, c = 1;
  double sx = 1, sy = 1;
  BlurBorder border = BlurBorder::Clamp;
  BlurMethod method = BlurMethod::Separable;
  std::size_t in_pad = 0, out_pad = 0, in_off = 0, out_off = 0;
  Tuning tuning{};
};

inline std::string describe(const Case& k, std::uint64_t seed) {
  std::string s = std::to_string(k.w) + "x" + std::to_string(k.h) + "x" + std::to_string(k.c) + " sigma " +
                  std::to_string(k.sx) + "/" + std::to_string(k.sy) + " " + to_string(k.border) + " " +
                  to_string(k.method) + " pads " + std::to_string(k.in_pad) + "/" + std::to_string(k.out_pad) +
                  " offsets " + std::to_string(k.in_off) + "/" + std::to_string(k.out_off) + " seed " +
                  std::to_string(seed) + " params";
  for (const auto& [n, v] : k.tuning.overrides) s += " " + n + "=" + std::to_string(v);
  return s;
}

struct Outcome {
  host::Comparison cmp;    // against the reference of the same filter
  host::Comparison exact;  // recursive only: against the exact Gaussian
  std::size_t outside_touched = 0;
  BlurMethod used = BlurMethod::Auto;
};

// Runs one float blur with poisoned output (and a guard tail, host/guard.hpp) and compares it.
inline Outcome run_float(const Case& k, std::uint64_t seed, bool with_exact = false) {
  auto& s = test::session();
  const std::size_t c = k.c, in_pitch = k.w + k.in_pad, out_pitch = k.w + k.out_pad;
  const std::size_t in_px = k.in_off + (k.h - 1) * in_pitch + k.w;
  const host::PoisonedOutput poison(k.out_off + (k.h - 1) * out_pitch + k.w, c * 4);
  const std::vector<float> in = host::random_floats(in_px * c, seed);
  std::vector<float> out = poison.floats();
  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data());
  BlurOptions o;
  o.sigma_x = k.sx;
  o.sigma_y = k.sy;
  o.border = k.border;
  o.method = k.method;
  cl::Event ev;
  Outcome r;
  r.used = gaussian_blur(s.queue, k.w, k.h, c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F,
                         {bin, k.in_off, in_pitch}, {bout, k.out_off, out_pitch}, o, {}, &ev, k.tuning);
  const std::vector<cl::Event> deps{ev};
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out.size() * 4, out.data(), &deps);

  const float* src = in.data() + k.in_off * c;
  std::vector<double> ref = r.used == BlurMethod::Recursive
                                ? host::recursive_blur(src, k.w, k.h, c, in_pitch, k.sx, k.sy, k.border)
                                : host::gaussian_blur(src, k.w, k.h, c, in_pitch, k.sx, k.sy, k.border);
  std::vector<float> got(k.w * k.h * c);
  for (std::size_t y = 0; y < k.h; ++y)
    for (std::size_t x = 0; x < k.w; ++x)
      for (std::size_t ch = 0; ch < c; ++ch)
        got[(y * k.w + x) * c + ch] = out[(k.out_off + y * out_pitch + x) * c + ch];
  std::vector<bool> inside(poison.elements(), false);
  host::mark_rows(inside, k.out_off, k.h, k.w, out_pitch);
  r.outside_touched = poison.changed_outside(out.data(), inside);
  r.cmp = host::compare(got, ref);
  if (with_exact) {
    const std::vector<double> exact = host::gaussian_blur(src, k.w, k.h, c, in_pitch, k.sx, k.sy, k.border, 8.0);
    r.exact = host::compare(got, exact);
  }
  return r;
}

inline void check_float(const Case& k, std::uint64_t seed) {
  const bool rec = k.method == BlurMethod::Recursive;
  const Outcome r = run_float(k, seed, rec);
  const double tol = rec ? host::recursive_blur_tolerance(k.sx, k.sy) : host::truncated_blur_tolerance(k.sx, k.sy);
  INFO(describe(k, seed));
  INFO("against the same filter: " << r.cmp.summary() << " (tolerance " << tol << ")");
  CHECK(r.outside_touched == 0);
  if (nearly_constant(k.w, k.h, k.sx,
                      k.sy)) {  // output near its mean, maybe near zero: error against the input scale 1
    CHECK(r.cmp.nonfinite == 0);
    CHECK(r.cmp.max_abs_error <= tol);
  } else {
    CHECK(r.cmp.ok(tol));
  }
  if (rec) {
    // Images with a side shorter than 4 sigma of its axis (a 1-pixel side under the zero border
    // keeps only the centre tap, where the approximation is weakest; nearly constant outputs
    // may have a mean near zero): relative error 0.30, or max abs error 0.02 against inputs in
    // [-1, 1].
    const bool short_side = k.w == 1 || k.h == 1 || k.w < 4 * k.sx || k.h < 4 * k.sy;
    const double etol = short_side ? 0.30 : exact_tolerance(std::min(k.sx, k.sy));
    INFO("against the exact Gaussian: " << r.exact.summary() << " (tolerance " << etol
                                        << (short_side ? ", or max abs 0.02)" : ")"));
    CHECK(r.exact.nonfinite == 0);
    CHECK((r.exact.ok(etol) || (short_side && r.exact.max_abs_error <= kExactAbsTolerance)));
  }
}

}  // namespace clforge::test::blur
