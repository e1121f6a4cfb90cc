// Gaussian blur against the double host references: direct and separable against the same
// truncated Gaussian (tight), recursive against the same recursive filter (tight) and against
// the exact Gaussian (looser, the filter is an approximation); every border mode, degenerate
// and odd shapes, radius wider than the image, sigma 0.5 .. 50, pitches and offsets, 4-channel
// and 8-bit RGBA paths. Parameter sets are in test_blur_params.cpp, the plan, events and bad
// arguments in test_blur_plan.cpp, the command line in test_blur_cli.cpp. Set
// CLFORGE_LONG_TESTS=1 for larger sizes.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "blur/blur_design.hpp"
#include "blur/blur_route.hpp"
#include "host/blur.hpp"
#include "host/guard.hpp"
#include "tests/blur_support.hpp"
#include "tests/support.hpp"

using namespace clforge;
using namespace clforge::test::blur;

namespace {

// The library's recursive filter on one line as its kernels run it: the cascade with the
// Triggs-Sdika boundary matrix at the far end and the Mirror margin (blur_design.hpp).
void design_line(const double* x, std::size_t n, double* y, const detail::RecursiveGaussian& g, BlurBorder border) {
  const long N = static_cast<long>(n), K = detail::recursive_margin(g.sigma, border);
  auto ext = [&](long i) {
    const long j = host::blur_border_index(i, N, border);
    return j < 0 ? 0.0 : x[j];
  };
  const double first = border == BlurBorder::Zero ? 0.0 : ext(-K);
  const double last = border == BlurBorder::Zero ? 0.0 : ext(N + K - 1);
  std::vector<double> w(static_cast<std::size_t>(N + 2 * K));
  double s[3] = {first, first, first};
  for (long i = -K; i < N + K; ++i) {
    detail::recursive_step(s, ext(i), g);
    w[i + K] = s[1];
  }
  const detail::Mat3 M = detail::recursive_boundary(g);
  double a[3];
  for (int i = 0; i < 3; ++i)
    a[i] = last + M[i * 3] * (s[0] - last) + M[i * 3 + 1] * (s[1] - last) + M[i * 3 + 2] * (s[2] - last);
  for (long i = N + K - 1; i >= 0; --i) {
    detail::recursive_step(a, w[i + K], g);
    if (i < N) y[i] = a[1];
  }
}

}  // namespace

TEST_SUITE("blur") {
  // The references split an image's rows (and the recursive filter's columns) over threads by
  // 2^16 values: an image of several such blocks against the direct reference, and the recursive
  // one against its own lines filtered here one by one.
  TEST_CASE("host references on threads: a large image as line by line") {
    const std::size_t w = 301, h = 517, c = 2;
    const std::vector<float> img = host::random_floats(w * h * c, test::seed() + 31);
    const auto d = host::gaussian_blur_direct(img.data(), w, h, c, w, 1.5, 2.5, BlurBorder::Mirror);
    const auto p = host::gaussian_blur(img.data(), w, h, c, w, 1.5, 2.5, BlurBorder::Mirror);
    double m = 0;
    for (std::size_t i = 0; i < d.size(); ++i) m = std::max(m, std::fabs(d[i] - p[i]));
    CHECK(m < 1e-13);
    const auto r = host::recursive_blur(img.data(), w, h, c, w, 3.0, 5.0, BlurBorder::Clamp);
    std::vector<double> a(img.begin(), img.end()), b(a.size()), e(a.size());
    for (std::size_t i = 0; i < w * c; ++i)
      host::recursive_line(a.data() + i, h, w * c, b.data() + i, host::recursive_gaussian(5.0), BlurBorder::Clamp);
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t ch = 0; ch < c; ++ch)
        host::recursive_line(b.data() + y * w * c + ch, w, c, e.data() + y * w * c + ch, host::recursive_gaussian(3.0),
                             BlurBorder::Clamp);
    REQUIRE(r.size() == e.size());
    CHECK(r == e);
  }

  TEST_CASE("host references: direct = separable, Triggs-Sdika boundary = long extension, design checks") {
    const std::vector<float> img = host::random_floats(13 * 11 * 4, test::seed());
    for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
      for (double s : {0.5, 1.3, 6.0}) {
        const auto d = host::gaussian_blur_direct(img.data(), 11, 13, 4, 11, s, s * 0.7 + 0.1, b);
        const auto p = host::gaussian_blur(img.data(), 11, 13, 4, 11, s, s * 0.7 + 0.1, b);
        double m = 0;
        for (std::size_t i = 0; i < d.size(); ++i) m = std::max(m, std::fabs(d[i] - p[i]));
        CHECK(m < 1e-13);
      }
    // The library's design (src/blur/blur_design.hpp) against the independent reference: the
    // Triggs-Sdika boundary matrix gives what the reference's explicit extension gives.
    std::vector<double> x(40), y1(40), y2(40);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * i) + 0.3;
    for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
      for (double s : {0.5, 2.0, 9.0, 30.0}) {
        design_line(x.data(), x.size(), y1.data(), detail::recursive_gaussian(s), b);
        host::recursive_line(x.data(), x.size(), 1, y2.data(), host::recursive_gaussian(s), b);
        double m = 0;
        for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(y1[i] - y2[i]));
        INFO("sigma " << s << " border " << std::string(to_string(b)));
        CHECK(m < 1e-10);
      }
    // The library's coefficients are the published ones, its cascade reproduces the published
    // direct-form feedback, and the reference has unit DC gain.
    for (double s : {0.5, 1.0, 2.49, 2.5, 10.0, 100.0}) {
      const auto g = detail::recursive_gaussian(s);
      const auto h = host::recursive_gaussian(s);
      INFO("sigma " << s);
      CHECK(std::fabs(g.q - h.q) <= 1e-15 * h.q);
      const std::pair<double, double> coefficients[] = {{g.b0, h.b0}, {g.b1, h.b1}, {g.b2, h.b2}, {g.b3, h.b3}};
      for (const auto& [lib, ref] : coefficients) CHECK(std::fabs(lib - ref) <= 1e-14 * std::fabs(ref));
      // B = 1 - (b1 + b2 + b3) / b0 cancels: its rounding is relative to the sum, not to B.
      CHECK(std::fabs(g.B - h.B) <= 1e-15 * (std::fabs(h.b1) + std::fabs(h.b2) + std::fabs(h.b3)) / h.b0);
      CHECK(std::fabs((g.p1 + g.c1) - h.b1 / h.b0) < 1e-12);
      CHECK(std::fabs((g.c2 - g.p1 * g.c1) - h.b2 / h.b0) < 1e-12);
      CHECK(std::fabs(-g.p1 * g.c2 - h.b3 / h.b0) < 1e-12);
      std::vector<double> ones(50, 1.0), out(50);
      host::recursive_line(ones.data(), 50, 1, out.data(), h, BlurBorder::Clamp);
      for (double v : out) CHECK(std::fabs(v - 1) < 1e-12);
    }
    // The library's truncated Gaussian is the reference's.
    for (double s : {0.01, 0.5, 1.3, 6.0, 40.0})
      for (double t : {3.0, 4.5}) {
        const auto lib = detail::gaussian_weights(s, t), ref = host::gaussian_weights(s, t);
        CHECK(detail::gaussian_radius(s, t) == host::gaussian_radius(s, t));
        REQUIRE(lib.size() == ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) CHECK(std::fabs(lib[i] - ref[i]) <= 1e-15);
      }
    CHECK_THROWS_AS(host::recursive_gaussian(0.49), InvalidArgument);
    CHECK_THROWS_AS(detail::recursive_gaussian(0.49), InvalidArgument);
    // Mirror border index: reflection about the edge with period 2n.
    CHECK(host::blur_border_index(-1, 5, BlurBorder::Mirror) == 0);
    CHECK(host::blur_border_index(5, 5, BlurBorder::Mirror) == 4);
    CHECK(host::blur_border_index(-7, 5, BlurBorder::Mirror) == 3);
    CHECK(host::blur_border_index(12, 5, BlurBorder::Mirror) == 2);
    CHECK(host::blur_border_index(-3, 1, BlurBorder::Mirror) == 0);
    CHECK(host::blur_border_index(-3, 5, BlurBorder::Clamp) == 0);
    CHECK(host::blur_border_index(9, 5, BlurBorder::Zero) == -1);
  }

  TEST_CASE("direct and separable match the truncated Gaussian: shapes, borders, sigma, radius wider than the image") {
    std::uint64_t seed = test::seed() + 100;
    struct Shape {
      std::size_t w, h;
    };
    const Shape shapes[] = {{1, 1}, {1, 17}, {17, 1}, {33, 65}, {64, 3}};
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable})
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
        for (const auto& sh : shapes)
          for (double s : {0.5, 2.0, 11.0}) {  // 11: radius 33, wider than every image here but one
            Case k;
            k.w = sh.w;
            k.h = sh.h;
            k.sx = s;
            k.sy = s * 0.6 + 0.2;
            k.border = b;
            k.method = m;
            check_float(k, seed++);
          }
  }

  TEST_CASE("large image, sigma 0.5 .. 50, padded pitches and offsets") {
    std::uint64_t seed = test::seed() + 200;
    const std::size_t W = 1000, H = 999;
    for (double s : {0.8, 5.0, 50.0}) {
      Case k;
      k.w = W;
      k.h = H;
      k.sx = s;
      k.sy = s;
      k.border = s == 5.0 ? BlurBorder::Mirror : BlurBorder::Clamp;
      k.in_pad = 3;
      k.out_pad = 17;
      k.in_off = 5;
      k.out_off = 2;
      check_float(k, seed++);
      k.method = BlurMethod::Recursive;
      k.border = s == 5.0 ? BlurBorder::Zero : BlurBorder::Mirror;
      check_float(k, seed++);
    }
    Case d;  // direct on the big image with a small radius
    d.w = W;
    d.h = H;
    d.sx = 1.0;
    d.sy = 0.5;
    d.method = BlurMethod::Direct;
    d.border = BlurBorder::Zero;
    check_float(d, seed++);
    if (long_tests()) {
      for (BlurMethod m : {BlurMethod::Separable, BlurMethod::Recursive}) {
        Case k;
        k.w = 4097;
        k.h = 2049;
        k.sx = 20;
        k.sy = 3;
        k.method = m;
        check_float(k, seed++);
      }
    }
  }

  TEST_CASE("recursive matches the same recursive filter tightly and the exact Gaussian loosely") {
    std::uint64_t seed = test::seed() + 300;
    struct Shape {
      std::size_t w, h;
    };
    const Shape shapes[] = {{1, 1}, {1, 17}, {17, 1}, {33, 65}, {130, 70}};
    // Whole columns, blocks with a separate transpose, blocks with the fused transpose, and
    // blocks as wide as a work-group, whose vertical pass writes the horizontal carries; the
    // link kernel with one work-item per column and with runs of blocks per work-item.
    const ParamMap schemes[] = {
        {{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 0}, {"BLUR_R_BATCH", 16}},
        {{"BLUR_R_BLOCK", 16},
         {"BLUR_R_NARROW", 1 << 30},
         {"BLUR_R_FUSE_T", 0},
         {"BLUR_R_BATCH", 2},
         {"BLUR_R_LINK_SPLIT", 4}},
        {{"BLUR_R_BLOCK", 32},
         {"BLUR_R_NARROW", 1 << 30},
         {"BLUR_R_FUSE_T", 1},
         {"BLUR_R_LX", 16},
         {"BLUR_R_BATCH", 8}},
        {{"BLUR_R_BLOCK", 16},
         {"BLUR_R_NARROW", 1 << 30},
         {"BLUR_R_FUSE_T", 1},
         {"BLUR_R_LX", 16},
         {"BLUR_R_BATCH", 4},
         {"BLUR_R_LINK_SPLIT", 2}},
    };
    const auto& dev = test::session().entry.info;
    for (int i = 0; i < 4; ++i) {
      BlurOptions o;
      o.method = BlurMethod::Recursive;
      const bool fused_carries = i == 3;
      CHECK(detail::blur_route(dev, 130, 70, PixelFormat::R32F, o, Tuning{schemes[i], false}).carry_fused ==
            fused_carries);
      if (fused_carries) {  // and not when switched off
        ParamMap off = schemes[i];
        off["BLUR_R_NEXT_CARRY"] = 0;
        CHECK_FALSE(detail::blur_route(dev, 130, 70, PixelFormat::R32F, o, Tuning{off, false}).carry_fused);
      }
    }
    for (const auto& scheme : schemes)
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
        for (const auto& sh : shapes)
          for (double s : {0.5, 3.0, 20.0}) {
            Case k;
            k.w = sh.w;
            k.h = sh.h;
            k.sx = s;
            k.sy = s == 0.5 ? 1.5 : s / 2;
            k.border = b;
            k.method = BlurMethod::Recursive;
            k.tuning = Tuning{scheme, false};
            if (sh.w == 130) {
              k.in_pad = 2;
              k.in_off = 3;
              k.out_pad = 1;
              k.out_off = 7;
            }
            check_float(k, seed++);
          }
    // Sigma from 0.5 to 50 on a mid-size image; larger images make the exact comparison
    // meaningful at large sigma.
    for (double s : {0.5, 1.0, 2.0, 5.0, 10.0, 50.0}) {
      Case k;
      k.w = 300;
      k.h = 257;
      k.sx = s;
      k.sy = s;
      k.border = BlurBorder::Mirror;
      k.method = BlurMethod::Recursive;
      check_float(k, seed++);
    }
  }

  TEST_CASE("4-channel float images on every method") {
    std::uint64_t seed = test::seed() + 400;
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive})
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero}) {
        Case k;
        k.w = 37;
        k.h = 29;
        k.c = 4;
        k.sx = 2.5;
        k.sy = 1.0;
        k.border = b;
        k.method = m;
        k.in_pad = 4;
        k.out_off = 3;
        check_float(k, seed++);
        k.w = 1;
        k.h = 9;
        k.sx = k.sy = 6;
        check_float(k, seed++);
      }
  }

  TEST_CASE("8-bit RGBA through the conversion kernels: rounded to nearest and saturated") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 500;
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive})
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Zero}) {
        const std::size_t W = 45, H = 23, pitch = 48, off = 5;
        std::mt19937_64 rng(seed++);
        std::vector<unsigned char> in((off + H * pitch) * 4);
        for (auto& v : in) v = static_cast<unsigned char>(rng() & 0xff);
        for (std::size_t i = 0; i < 64; ++i) in[(off + i) * 4 + 1] = 255;  // saturated runs
        const host::PoisonedOutput poison(off + (H - 1) * pitch + W, 4, 0xA5);
        std::vector<unsigned char> out(poison.data(), poison.data() + poison.bytes());
        cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size(), in.data());
        cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size(), out.data());
        BlurOptions o;
        o.sigma_x = 1.7;
        o.sigma_y = 3.1;
        o.method = m;
        o.border = b;
        gaussian_blur(s.queue, W, H, PixelFormat::RGBA8, {bin, off, pitch}, {bout, off, pitch}, o);
        s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out.size(), out.data());
        std::vector<float> f(H * pitch * 4);
        for (std::size_t i = 0; i < f.size(); ++i) f[i] = in[off * 4 + i];
        const auto ref = m == BlurMethod::Recursive ? host::recursive_blur(f.data(), W, H, 4, pitch, 1.7, 3.1, b)
                                                    : host::gaussian_blur(f.data(), W, H, 4, pitch, 1.7, 3.1, b);
        int worst = 0;
        std::size_t off_by_one = 0;
        for (std::size_t y = 0; y < H; ++y)
          for (std::size_t x = 0; x < W; ++x)
            for (std::size_t ch = 0; ch < 4; ++ch) {
              const double r = std::min(255.0, std::max(0.0, std::nearbyint(ref[(y * W + x) * 4 + ch])));
              const int d = std::abs(static_cast<int>(out[((off + y * pitch + x) * 4) + ch]) - static_cast<int>(r));
              worst = std::max(worst, d);
              off_by_one += d == 1;
            }
        std::vector<bool> in_image(poison.elements(), false);
        host::mark_rows(in_image, off, H, W, pitch);
        const std::size_t outside = poison.changed_outside(out.data(), in_image);
        INFO(to_string(m) << " " << to_string(b) << ": worst difference " << worst << ", " << off_by_one
                          << " values off by one (float rounding at .5)");
        CHECK(worst <= 1);
        CHECK(off_by_one < W * H / 20);
        CHECK(outside == 0);
      }
  }
}
